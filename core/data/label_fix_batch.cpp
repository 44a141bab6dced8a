// The issues of an issues CSV fixed in one go through LabelStore (see label_fix_batch.h).
#include "core/data/label_fix_batch.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/base/bounded_read.h"
#include "core/base/hash.h"
#include "core/data/dataset.h"
#include "core/data/image_header.h"

namespace fs = std::filesystem;

namespace stave::data {

std::string issuesCompanionPath(const std::string& csvPath) {
  return csvPath + ".json";
}

std::string issuesCompanionJson(const IssuesCompanion& c) {
  nlohmann::json j = {{"format", 1}, {"csv_hash", c.csvHash}};
  j["label_hashes"] = nlohmann::json::object();
  for (const auto& [image, hash] : c.labelHashes) j["label_hashes"][image] = hash;
  j["predicted_boxes"] = nlohmann::json::object();
  for (const auto& [line, box] : c.predictedBoxes) j["predicted_boxes"][std::to_string(line)] = box;
  return j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Result<IssuesCompanion> readIssuesCompanion(const std::string& path) {
  auto text = readFileCapped(path, size_t{256} << 20);
  if (!text) return text.errors();
  const auto j = nlohmann::json::parse(text.value(), nullptr, false);
  if (!j.is_object() || !j.contains("csv_hash") || !j["csv_hash"].is_string())
    return textError(path, 0, "csv_hash", Text("labels.companion.not_one"));
  IssuesCompanion c;
  c.csvHash = j["csv_hash"].get<std::string>();
  if (auto it = j.find("label_hashes"); it != j.end()) {
    if (!it->is_object())
      return textError(path, 0, "label_hashes", Text("labels.companion.not_object"));
    for (const auto& [image, hash] : it->items()) {
      if (!hash.is_string())
        return textError(path, 0, "label_hashes",
                         Text("labels.companion.not_string", {{"image", image}}));
      c.labelHashes[image] = hash.get<std::string>();
    }
  }
  if (auto it = j.find("predicted_boxes"); it != j.end()) {
    if (!it->is_object())
      return textError(path, 0, "predicted_boxes", Text("labels.companion.not_object"));
    for (const auto& [line, box] : it->items()) {
      char* end = nullptr;
      const long n = std::strtol(line.c_str(), &end, 10);
      if (!end || *end || n <= 1 || !box.is_array() || box.size() != 4 ||
          !std::all_of(box.begin(), box.end(), [](const auto& v) { return v.is_number(); }))
        return textError(path, 0, "predicted_boxes",
                         Text("labels.companion.bad_box", {{"line", line}}));
      c.predictedBoxes[int(n)] = box.get<std::vector<double>>();
    }
  }
  return c;
}

int IssueFixReport::count(IssueFixOutcome::Status status) const {
  return int(std::count_if(outcomes.begin(), outcomes.end(),
                           [status](const IssueFixOutcome& o) { return o.status == status; }));
}

IssueFix batchFix(IssueKind kind) {
  IssueFix fix = IssueFix::TakePredictedBox;  // badly located: the one defaultFix leaves to a hand
  defaultFix(kind, fix);
  return fix;
}

namespace {

int64_t mtimeNs(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return 0;
  return int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

// A label file as this call found it: its state (updated by each fix) and whether it may be
// touched at all.
struct FileSlot {
  LabelFileState state;
  std::string refused;  // why not ("" = it may be fixed)
  std::string readError;
};

}  // namespace

IssuesCompanion companionFor(const std::string& csvPath, const std::string& csvText,
                             std::vector<Error>& warnings, bool& used) {
  used = false;
  const std::string companionPath = issuesCompanionPath(csvPath);
  std::error_code ec;
  if (!fs::exists(companionPath, ec)) return {};
  auto c = readIssuesCompanion(companionPath);
  if (!c) {
    warnings.push_back(c.errors().front());
    return {};
  }
  if (c->csvHash != hashHex(csvText)) {
    warnings.push_back(textError(companionPath, 0, "csv_hash",
                                 Text("labels.companion.other_version", {{"csv", csvPath}})));
    return {};
  }
  used = true;
  return std::move(c.value());
}

void attachPredictedBox(const IssuesCompanion& companion, IssueRow& row) {
  const auto it = companion.predictedBoxes.find(row.line);
  if (it == companion.predictedBoxes.end() || it->second.size() != 4) return;
  row.hasPredictedBox = true;
  row.px1 = it->second[0], row.py1 = it->second[1];
  row.px2 = it->second[2], row.py2 = it->second[3];
}

Result<IssueFixReport> fixLabelIssues(const std::string& csvPath,
                                      const IssueFixSelection& selection, LabelStore& store) {
  auto csvText = readFileCapped(csvPath, size_t{256} << 20);
  if (!csvText) return csvText.errors();
  auto csv = readLabelIssuesCsv(csvPath);
  if (!csv) return csv.errors();
  IssueFixReport report;
  report.session = store.session();
  report.warnings = csv->problems;

  // The companion, when it belongs to this very CSV (a CSV filtered by a script has none).
  const IssuesCompanion companion =
      companionFor(csvPath, csvText.value(), report.warnings, report.companionUsed);
  const int64_t csvTime = mtimeNs(csvPath);

  // The selection, in the CSV's order (its ranking).
  const auto dismissed = readDismissedIssues(store.root());
  std::vector<IssueRow> chosen;
  for (auto& row : csv->rows) {
    if (std::find(selection.kinds.begin(), selection.kinds.end(), row.kind) ==
            selection.kinds.end() ||
        row.score < selection.minScore)
      continue;
    if (dismissed.count(issueKey(row))) {
      ++report.dismissed;
      continue;
    }
    attachPredictedBox(companion, row);
    chosen.push_back(row);
    if (selection.top > 0 && int(chosen.size()) >= selection.top) break;
  }

  std::map<std::string, FileSlot> files;
  for (const auto& issue : chosen) {
    IssueFixOutcome o;
    o.issue = issue;
    const std::string image = store.absolute(issue.image);
    o.labelFile = labelPathFor(image);
    auto [it, first] = files.try_emplace(o.labelFile);
    FileSlot& slot = it->second;
    if (first) {
      // Checked once, before this call's own writes change the file.
      auto state = readLabelFile(o.labelFile);
      if (!state) {
        slot.readError = state.errorText();
      } else {
        slot.state = std::move(state.value());
        auto known = companion.labelHashes.find(issue.image);
        if (known != companion.labelHashes.end()) {
          if (known->second != slot.state.hash)
            slot.refused = "changed since the issues were found (" + csvPath +
                           "): its content is not what was scored; not fixed — run "
                           "label-issues again";
        } else if (slot.state.exists && csvTime > 0 && slot.state.mtimeNs > csvTime) {
          slot.refused = "modified after the issues were found (" + csvPath +
                         " is older); not fixed — run label-issues again";
        }
      }
    }
    if (!slot.readError.empty()) {
      o.reason = slot.readError;
    } else if (!slot.refused.empty()) {
      o.status = IssueFixOutcome::Status::Refused;
      o.reason = o.labelFile + ": " + slot.refused;
    } else {
      const auto h = readImageHeader(image);
      auto text = h.ok ? applyIssueFix(slot.state.text, o.labelFile, issue, batchFix(issue.kind),
                                       h.displayWidth(), h.displayHeight())
                       : Result<std::string>(Error{image, 0, "", "cannot read: " + h.error});
      if (!text) {
        o.reason = text.errorText();
      } else if (text.value() == slot.state.text) {
        o.reason = o.labelFile + ": the fix changes nothing";
      } else {
        o.oldLines = splitLines(slot.state.text);
        o.newLines = splitLines(text.value());
        if (selection.dryRun) {
          // Later fixes of this file see this one, as they would when written.
          slot.state.text = text.value();
          slot.state.exists = true;
          o.status = IssueFixOutcome::Status::WouldFix;
        } else if (auto e = store.write(slot.state, text.value()); !e) {
          o.reason = e.errorText();
        } else {
          o.status = IssueFixOutcome::Status::Fixed;
          o.editId = e->id;
        }
      }
    }
    report.outcomes.push_back(std::move(o));
  }
  return report;
}

}  // namespace stave::data
