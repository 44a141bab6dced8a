#include "core/data/dataset_report.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

namespace stave::data {
namespace {
struct Stat {
  double min = 0, max = 0, sum = 0;
  int64_t n = 0;
  void add(double v) {
    if (n == 0) min = max = v;
    min = std::min(min, v);
    max = std::max(max, v);
    sum += v;
    ++n;
  }
  nlohmann::json json() const {
    if (n == 0) return nullptr;
    return {{"min", min}, {"mean", sum / double(n)}, {"max", max}};
  }
};
}  // namespace

nlohmann::json splitReport(const SplitIndex& index, const DataSpec& spec) {
  int64_t labelled = 0, instances = 0;
  std::vector<int64_t> perClass(spec.names.size(), 0);
  Stat bw, bh, aspect, iw, ih;
  for (const auto& r : index.images) {
    if (!r.boxes.empty()) ++labelled;
    iw.add(r.width);
    ih.add(r.height);
    for (const auto& b : r.boxes) {
      ++instances;
      if (b.cls >= 0 && b.cls < static_cast<int>(perClass.size())) ++perClass[b.cls];
      bw.add(b.w);
      bh.add(b.h);
      aspect.add((b.w * r.width) / std::max(1e-9, double(b.h * r.height)));
    }
  }
  nlohmann::json classes = nlohmann::json::object();
  for (size_t c = 0; c < perClass.size(); ++c) classes[spec.names[c]] = perClass[c];
  std::map<std::string, int64_t> kinds;
  nlohmann::json problems = nlohmann::json::array();
  for (const auto& p : index.problems) {
    ++kinds[p.kind];
    problems.push_back({{"file", p.file},
                        {"line", p.line},
                        {"kind", p.kind},
                        {"message", p.message},
                        {"skips_image", p.skipsImage}});
  }
  return {{"images", index.images.size()},
          {"listed", index.listed},
          {"skipped_images", index.skippedImages},
          {"dropped_rows", index.droppedRows},
          {"labelled", labelled},
          {"background", static_cast<int64_t>(index.images.size()) - labelled},
          {"instances", instances},
          {"instances_per_class", classes},
          {"box_width", bw.json()},
          {"box_height", bh.json()},
          {"box_aspect", aspect.json()},
          {"image_width", iw.json()},
          {"image_height", ih.json()},
          {"from_cache", index.fromCache},
          {"problem_counts", kinds},
          {"problems", problems}};
}

namespace {

// Each error into the report's "errors" and as an "error:" line of the text.
void recordErrors(const std::vector<Error>& errors, nlohmann::json& report, std::ostream& text) {
  for (const auto& e : errors) {
    report["errors"].push_back(
        {{"file", e.file}, {"line", e.line}, {"key", e.key}, {"message", e.message}});
    text << "error: " << e.toString() << "\n";
  }
}

// The text section of one scanned split: counts, instances per class, statistics, problems.
// (The stream's formatting flags stay set for the sections after it, as they always have.)
void describeSplit(std::ostream& text, const char* split, const nlohmann::json& rep,
                   const SplitIndex& index, const DataSpec& spec) {
  text << "\n[" << split << "] " << rep["images"].get<int64_t>() << " images ("
       << rep["labelled"].get<int64_t>() << " labelled, " << rep["background"].get<int64_t>()
       << " background), " << rep["instances"].get<int64_t>() << " instances";
  if (index.skippedImages) text << ", " << index.skippedImages << " images left out";
  if (index.droppedRows) text << ", " << index.droppedRows << " label rows left out";
  text << "\n  per class:";
  for (const auto& name : spec.names)
    text << " " << name << "=" << rep["instances_per_class"][name].get<int64_t>();
  text << "\n";
  auto stat = [&](const char* label, const nlohmann::json& s) {
    if (s.is_null()) return;
    text << "  " << std::left << std::setw(13) << label << std::setprecision(4) << "min "
         << s["min"].get<double>() << "  mean " << s["mean"].get<double>() << "  max "
         << s["max"].get<double>() << "\n";
  };
  stat("box width", rep["box_width"]);
  stat("box height", rep["box_height"]);
  stat("box aspect", rep["box_aspect"]);
  stat("image width", rep["image_width"]);
  stat("image height", rep["image_height"]);
  if (!index.problems.empty()) {
    text << "  " << index.problems.size() << " problems:\n";
    for (const auto& p : index.problems) text << "    " << p.toString() << "\n";
  }
}

}  // namespace

DatasetCheck checkDataset(const std::string& yamlPath, bool verify, int threads) {
  DatasetCheck out;
  std::ostringstream text;
  out.report = {{"data", yamlPath},
                {"splits", nlohmann::json::object()},
                {"errors", nlohmann::json::array()}};
  auto spec = loadDataYaml(yamlPath);
  if (!spec) {
    recordErrors(spec.errors(), out.report, text);
    text << "the dataset cannot be used\n";
    out.exitCode = 2;
    out.report["ok"] = false;
    out.report["exit_code"] = 2;
    out.text = text.str();
    return out;
  }
  ScanOptions opt;
  opt.verify = verify;
  opt.threads = threads;
  bool unusable = false, problems = false;
  text << "dataset " << spec->yamlPath << " (" << spec->nc() << " classes)\n";
  for (const char* split : {"train", "val", "test"}) {
    if (spec->sources(split)->empty()) continue;
    auto index = scanSplit(spec.value(), split, opt);
    if (!index) {
      recordErrors(index.errors(), out.report, text);
      unusable = true;
      continue;
    }
    const auto rep = splitReport(index.value(), spec.value());
    out.report["splits"][split] = rep;
    if (index->images.empty() && std::string(split) != "test") unusable = true;
    if (!index->problems.empty()) problems = true;
    describeSplit(text, split, rep, index.value(), spec.value());
  }
  out.exitCode = unusable ? 2 : problems ? 1 : 0;
  text << "\n"
       << (out.exitCode == 0   ? "ok: no problems found"
           : out.exitCode == 1 ? "problems found (training leaves out what is unusable)"
                               : "the dataset cannot be used")
       << "\n";
  // Headers and end markers vouch for a file's size and ending, not for the pixel data in
  // between (a PNG with damaged image data and an intact IEND passes): say so.
  if (!verify && out.exitCode != 2)
    text << "images were checked by their headers and end markers only; --verify decodes "
            "every image (training warns about each image it cannot decode and fails past "
            "max_bad_images)\n";
  out.report["verified"] = verify;
  out.report["ok"] = out.exitCode == 0;
  out.report["exit_code"] = out.exitCode;
  out.text = text.str();
  return out;
}

}  // namespace stave::data
