// Which label files two runs' datasets differ in, from the edit log (see label_history.h).
#include "core/data/label_history.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/data/dataset.h"

namespace fs = std::filesystem;

namespace stave::data {

std::string labelEditLogPath(const std::string& root) {
  return root + "/.stave/label-edits.jsonl";
}

int64_t labelEditCount(const std::string& root) {
  return int64_t(readEditLog(labelEditLogPath(root)).edits.size());
}

namespace {

// A file's content as the log knows it: whether it exists, and its lines.
struct Content {
  bool exists = false;
  std::vector<std::string> lines;
  bool operator!=(const Content& o) const {
    return exists != o.exists || (exists && lines != o.lines);
  }
};

// The files whose content after the last of `edits` (in log order) differs from before the
// first: each file's state before its first edit here against after its last.
template <typename Pick>
std::vector<std::string> netChanges(const std::vector<LabelEdit>& edits, Pick pick) {
  std::map<std::string, std::pair<Content, Content>> span;  // file -> (before, after)
  for (size_t i = 0; i < edits.size(); ++i) {
    if (!pick(i)) continue;
    const LabelEdit& e = edits[i];
    auto it = span.find(e.file);
    if (it == span.end())
      it = span.emplace(e.file, std::pair{Content{e.oldExisted, e.oldLines}, Content{}}).first;
    it->second.second = Content{e.newExists, e.newLines};
  }
  std::vector<std::string> files;
  for (const auto& [file, states] : span)
    if (states.first != states.second) files.push_back(file);
  return files;  // a map's keys: sorted
}

}  // namespace

std::vector<std::string> labelFilesChanged(const std::vector<LabelEdit>& edits, int64_t from,
                                           int64_t to) {
  const auto n = int64_t(edits.size());
  const int64_t lo = std::clamp(std::min(from, to), int64_t{0}, n);
  const int64_t hi = std::clamp(std::max(from, to), int64_t{0}, n);
  return netChanges(edits, [&](size_t i) { return int64_t(i) >= lo && int64_t(i) < hi; });
}

std::vector<std::string> labelFilesChangedBetween(const std::vector<LabelEdit>& edits, double from,
                                                  double to) {
  const double lo = std::min(from, to), hi = std::max(from, to);
  return netChanges(edits, [&](size_t i) { return edits[i].time > lo && edits[i].time <= hi; });
}

LabelFilesDiff labelFilesDiffBetweenRuns(const RunDataset& a, const RunDataset& b) {
  using Basis = LabelFilesDiff::Basis;
  using Why = LabelFilesDiff::Why;
  LabelFilesDiff d;
  const bool hashesKnown = !a.contentHash.empty() && !b.contentHash.empty();
  if (hashesKnown && a.contentHash == b.contentHash) {
    d.basis = Basis::SameContent;
    return d;
  }
  std::string roots[2];
  for (int k = 0; k < 2; ++k) {
    const RunDataset& r = k == 0 ? a : b;
    if (r.dataYaml.empty()) {
      d.why = Why::NoDataset;
      d.error = "the run does not name its data.yaml";
      return d;
    }
    auto spec = loadDataYaml(r.dataYaml);
    if (!spec) {
      d.why = Why::NoDataset;
      d.error = spec.errorText();
      return d;
    }
    std::error_code ec;
    roots[k] = fs::weakly_canonical(fs::absolute(spec->root), ec).string();
    if (ec) roots[k] = fs::absolute(spec->root).lexically_normal().string();
  }
  if (roots[0] != roots[1]) {
    d.why = Why::OtherDatasets;
    return d;
  }
  d.root = roots[0];
  const auto log = readEditLog(labelEditLogPath(d.root));
  const auto n = int64_t(log.edits.size());
  const bool positions = a.labelEdits >= 0 && b.labelEdits >= 0;
  if (positions && std::max(a.labelEdits, b.labelEdits) <= n) {
    d.basis = Basis::LogPositions;
    d.files = labelFilesChanged(log.edits, a.labelEdits, b.labelEdits);
  } else if (a.started > 0 && b.started > 0) {
    d.basis = Basis::EditTimes;
    d.files = labelFilesChangedBetween(log.edits, a.started, b.started);
  } else {
    d.why = positions ? Why::BadLog : Why::NoTimes;
    return d;
  }
  d.outsideLog = d.files.empty() && hashesKnown;
  return d;
}

}  // namespace stave::data
