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

// A message argument: the catalog message `text`, or the plain English where it has none.
Text::Arg messageArg(const std::string& name, const TextParts& text, const std::string& english) {
  return text.empty() ? Text::Arg(name, english) : Text::Arg(name, text);
}

std::string number(int64_t n) {
  return std::to_string(n);
}

// A statistic as the text prints it (4 significant digits).
std::string statValue(double v) {
  std::ostringstream os;
  os << std::setprecision(4) << v;
  return os.str();
}

void addLine(std::vector<ReportLine>& lines, int indent, Text text) {
  lines.push_back({indent, TextParts{std::move(text)}});
}

// Each error into the report's "errors" and as an "error:" line of the text.
void recordErrors(const std::vector<Error>& errors, nlohmann::json& report, std::ostream& text,
                  std::vector<ReportLine>& lines) {
  for (const auto& e : errors) {
    report["errors"].push_back(
        {{"file", e.file}, {"line", e.line}, {"key", e.key}, {"message", e.message}});
    text << "error: " << e.toString() << "\n";
    Error where = e;
    where.message.clear();
    addLine(lines, 0,
            Text("data.report.error",
                 {{"where", where.toString()}, messageArg("message", e.text, e.message)}));
  }
}

// The text section of one scanned split: counts, instances per class, statistics, problems.
// (The stream's formatting flags stay set for the sections after it, as they always have.)
void describeSplit(std::ostream& text, std::vector<ReportLine>& lines, const char* split,
                   const nlohmann::json& rep, const SplitIndex& index, const DataSpec& spec) {
  text << "\n[" << split << "] " << rep["images"].get<int64_t>() << " images ("
       << rep["labelled"].get<int64_t>() << " labelled, " << rep["background"].get<int64_t>()
       << " background), " << rep["instances"].get<int64_t>() << " instances";
  if (index.skippedImages) text << ", " << index.skippedImages << " images left out";
  if (index.droppedRows) text << ", " << index.droppedRows << " label rows left out";
  lines.push_back({});
  TextParts head{Text("data.report.split", {{"split", split},
                                            {"images", number(rep["images"].get<int64_t>())},
                                            {"labelled", number(rep["labelled"].get<int64_t>())},
                                            {"background", number(rep["background"].get<int64_t>())},
                                            {"instances", number(rep["instances"].get<int64_t>())}})};
  if (index.skippedImages)
    head.push_back(Text("data.report.images_left_out", {{"count", number(index.skippedImages)}}));
  if (index.droppedRows)
    head.push_back(Text("data.report.rows_left_out", {{"count", number(index.droppedRows)}}));
  lines.push_back({0, std::move(head)});
  text << "\n  per class:";
  std::string counts;
  for (const auto& name : spec.names) {
    const auto n = rep["instances_per_class"][name].get<int64_t>();
    text << " " << name << "=" << n;
    counts += (counts.empty() ? "" : " ") + name + "=" + number(n);
  }
  text << "\n";
  addLine(lines, 2, Text("data.report.per_class", {{"counts", counts}}));
  auto stat = [&](const char* label, const char* id, const nlohmann::json& s) {
    if (s.is_null()) return;
    addLine(lines, 2,
            Text("data.report.stat", {{"what", Text(id)},
                                      {"min", statValue(s["min"].get<double>())},
                                      {"mean", statValue(s["mean"].get<double>())},
                                      {"max", statValue(s["max"].get<double>())}}));
    text << "  " << std::left << std::setw(13) << label << std::setprecision(4) << "min "
         << s["min"].get<double>() << "  mean " << s["mean"].get<double>() << "  max "
         << s["max"].get<double>() << "\n";
  };
  stat("box width", "data.report.box_width", rep["box_width"]);
  stat("box height", "data.report.box_height", rep["box_height"]);
  stat("box aspect", "data.report.box_aspect", rep["box_aspect"]);
  stat("image width", "data.report.image_width", rep["image_width"]);
  stat("image height", "data.report.image_height", rep["image_height"]);
  if (!index.problems.empty()) {
    text << "  " << index.problems.size() << " problems:\n";
    addLine(lines, 2,
            Text("data.report.problems", {{"count", number(int64_t(index.problems.size()))}}));
    for (const auto& p : index.problems) {
      text << "    " << p.toString() << "\n";
      const std::string where = p.file + (p.line > 0 ? ":" + number(p.line) : "") + ": ";
      addLine(lines, 4,
              Text("data.report.problem", {{"where", where},
                                           {"kind", p.kind},
                                           messageArg("message", p.text, p.message)}));
    }
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
    recordErrors(spec.errors(), out.report, text, out.lines);
    text << "the dataset cannot be used\n";
    addLine(out.lines, 0, Text("data.report.unusable"));
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
  addLine(out.lines, 0,
          Text("data.report.dataset",
               {{"path", spec->yamlPath}, {"classes", number(int64_t(spec->nc()))}}));
  for (const char* split : {"train", "val", "test"}) {
    if (spec->sources(split)->empty()) continue;
    auto index = scanSplit(spec.value(), split, opt);
    if (!index) {
      recordErrors(index.errors(), out.report, text, out.lines);
      unusable = true;
      continue;
    }
    const auto rep = splitReport(index.value(), spec.value());
    out.report["splits"][split] = rep;
    if (index->images.empty() && std::string(split) != "test") unusable = true;
    if (!index->problems.empty()) problems = true;
    describeSplit(text, out.lines, split, rep, index.value(), spec.value());
  }
  out.exitCode = unusable ? 2 : problems ? 1 : 0;
  text << "\n"
       << (out.exitCode == 0   ? "ok: no problems found"
           : out.exitCode == 1 ? "problems found (training leaves out what is unusable)"
                               : "the dataset cannot be used")
       << "\n";
  out.lines.push_back({});
  addLine(out.lines, 0,
          Text(out.exitCode == 0   ? "data.report.ok"
               : out.exitCode == 1 ? "data.report.problems_found"
                                   : "data.report.unusable"));
  // Headers and end markers vouch for a file's size and ending, not for the pixel data in
  // between (a PNG with damaged image data and an intact IEND passes): say so.
  if (!verify && out.exitCode != 2)
    text << "images were checked by their headers and end markers only; --verify decodes "
            "every image (training warns about each image it cannot decode and fails past "
            "max_bad_images)\n";
  if (!verify && out.exitCode != 2) addLine(out.lines, 0, Text("data.report.headers_only"));
  out.report["verified"] = verify;
  out.report["ok"] = out.exitCode == 0;
  out.report["exit_code"] = out.exitCode;
  out.text = text.str();
  return out;
}

}  // namespace stave::data
