#include "core/train/pred_eval.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>

namespace stave::train {

void writePredictionRow(std::ostream& out, const std::string& image, int cls, double conf,
                        double x1, double y1, double x2, double y2) {
  if (image.find_first_of(",\"\r\n") == std::string::npos) {
    out << image;
  } else {
    out << '"';
    for (char c : image) out << (c == '"' ? "\"\"" : std::string(1, c));
    out << '"';
  }
  out << ',' << cls << ',' << conf << ',' << x1 << ',' << y1 << ',' << x2 << ',' << y2 << '\n';
}

namespace {

// Splits one CSV line; quoted fields may hold commas and doubled quotes. False on a quote that
// never closes.
bool splitCsvLine(const std::string& line, std::vector<std::string>& fields) {
  fields.clear();
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        field += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      fields.push_back(field);
      field.clear();
    } else {
      field += ch;
    }
  }
  fields.push_back(field);
  return !quoted;
}

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

bool parseDouble(const std::string& s, double& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && errno != ERANGE;
}

std::string stemOf(const std::string& path) {
  const auto slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const auto dot = name.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

constexpr const char* kColumns[] = {"image", "cls", "conf", "x1", "y1", "x2", "y2"};

// One data row's seven trimmed fields as a prediction, or nothing with every problem of the
// row (each naming `lineNo` and its column) added to `errors`.
std::optional<PredictionRow> parsePredictionRow(const std::vector<std::string>& fields,
                                                const std::string& fileName, int lineNo, int nc,
                                                std::vector<Error>& errors) {
  auto fail = [&](const std::string& key, const std::string& message) {
    errors.push_back(Error{fileName, lineNo, key, message});
  };
  if (fields.size() != 7) {
    fail("",
         "expected 7 columns (image,cls,conf,x1,y1,x2,y2), got " + std::to_string(fields.size()));
    return std::nullopt;
  }
  PredictionRow row;
  row.line = lineNo;
  row.image = normaliseImageKey(fields[0]);
  bool ok = true;
  if (row.image.empty()) {
    fail("image", "is empty");
    ok = false;
  }
  double v[6] = {0};
  for (int c = 1; c < 7; ++c) {
    if (!parseDouble(fields[c], v[c - 1])) {
      fail(kColumns[c], "'" + fields[c] + "' is not a number");
      ok = false;
    } else if (!std::isfinite(v[c - 1])) {
      fail(kColumns[c], "must be finite, got " + fields[c]);
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  const double cls = v[0];
  if (cls != std::floor(cls) || cls < 0 || cls >= nc) {
    fail("cls", "'" + fields[1] + "' is not a class id in [0, " + std::to_string(nc - 1) + "]");
    return std::nullopt;
  }
  if (v[1] < 0 || v[1] > 1) {
    fail("conf", "'" + fields[2] + "' is outside [0, 1] (a confidence, not a logit or a percent)");
    return std::nullopt;
  }
  if (v[4] < v[2]) {
    fail("x2", "x2 (" + fields[5] + ") is left of x1 (" + fields[3] + ")");
    return std::nullopt;
  }
  if (v[5] < v[3]) {
    fail("y2", "y2 (" + fields[6] + ") is above y1 (" + fields[4] + ")");
    return std::nullopt;
  }
  row.det = Detection{float(v[2]), float(v[3]), float(v[4]),
                      float(v[5]), float(v[1]), static_cast<int>(cls)};
  return row;
}

// Whether the first row with content is the header (its first field "image", any case).
bool isHeaderRow(const std::vector<std::string>& fields) {
  std::string first = fields[0];
  std::transform(first.begin(), first.end(), first.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return first == "image";
}

}  // namespace

std::string normaliseImageKey(const std::string& path) {
  std::string p = path;
  std::replace(p.begin(), p.end(), '\\', '/');
  while (p.size() > 2 && p[0] == '.' && p[1] == '/') p.erase(0, 2);
  return p;
}

Result<std::vector<PredictionRow>> parsePredictionsCsv(const std::string& text,
                                                       const std::string& fileName, int nc) {
  std::vector<PredictionRow> rows;
  std::vector<Error> errors;
  std::vector<std::string> fields;
  size_t pos = 0;
  int lineNo = 0;
  bool sawContent = false;
  while (pos <= text.size()) {
    const size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? text.size() + 1 : nl + 1;
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (lineNo == 1 && line.size() >= 3 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) {
      line.erase(0, 3);  // UTF-8 byte order mark from spreadsheet tools
    }
    if (trim(line).empty()) continue;
    if (!splitCsvLine(line, fields)) {
      errors.push_back(Error{fileName, lineNo, "", "a quoted field is not closed"});
      continue;
    }
    for (auto& f : fields) f = trim(f);
    if (!sawContent) {
      sawContent = true;
      if (isHeaderRow(fields)) continue;
    }
    if (auto row = parsePredictionRow(fields, fileName, lineNo, nc, errors))
      rows.push_back(std::move(*row));
  }
  if (!errors.empty()) return errors;
  if (rows.empty()) {
    // Scoring nothing as mAP 0 would hide a wrong file or an export that wrote no rows.
    return Error{fileName, 0, "",
                 sawContent ? "has a header but no prediction rows"
                            : "is empty: expected rows image,cls,conf,x1,y1,x2,y2"};
  }
  return rows;
}

Result<std::vector<int>> matchRowsToImages(const std::vector<EvalImage>& images,
                                           const std::vector<PredictionRow>& rows,
                                           const std::string& csvName) {
  constexpr int kAmbiguous = -2;
  std::map<std::string, int> byKey, byStem;
  auto insert = [&](std::map<std::string, int>& m, const std::string& k, int idx) {
    auto [it, added] = m.emplace(k, idx);
    if (!added && it->second != idx) it->second = kAmbiguous;
  };
  for (int i = 0; i < static_cast<int>(images.size()); ++i) {
    for (const auto& k : images[i].keys) insert(byKey, normaliseImageKey(k), i);
    insert(byStem, images[i].stem, i);
  }

  std::vector<int> out;
  out.reserve(rows.size());
  std::vector<Error> errors;
  for (const auto& row : rows) {
    auto lookup = [](const std::map<std::string, int>& m, const std::string& k) {
      auto it = m.find(k);
      return it == m.end() ? -1 : it->second;
    };
    int idx = lookup(byKey, row.image);
    if (idx == -1 && row.image.find('/') == std::string::npos) {
      // A bare name is a file stem, with or without its extension.
      idx = lookup(byStem, row.image);
      if (idx == -1) idx = lookup(byStem, stemOf(row.image));
    }
    if (idx == kAmbiguous) {
      errors.push_back(Error{csvName, row.line, "image",
                             "'" + row.image +
                                 "' matches several images; use the path relative to the split "
                                 "root"});
      continue;
    }
    if (idx < 0) {
      errors.push_back(
          Error{csvName, row.line, "image", "'" + row.image + "' is not an image of this split"});
      continue;
    }
    out.push_back(idx);
  }
  if (!errors.empty()) return errors;
  return out;
}

Result<PredEvalResult> evaluatePredictions(const std::vector<EvalImage>& images,
                                           const std::vector<PredictionRow>& rows,
                                           const std::string& csvName, int nc, int maxDet) {
  auto matched = matchRowsToImages(images, rows, csvName);
  if (!matched) return matched.errors();
  std::vector<std::vector<Detection>> dets(images.size());
  for (size_t r = 0; r < rows.size(); ++r)
    dets[static_cast<size_t>(matched.value()[r])].push_back(rows[r].det);

  PredEvalResult out;
  DetectionEvaluator ev(nc, maxDet);
  for (size_t i = 0; i < images.size(); ++i) {
    out.predictions += static_cast<int64_t>(dets[i].size());
    out.imagesWithPredictions += dets[i].empty() ? 0 : 1;
    ev.add(static_cast<int>(i), std::move(dets[i]), images[i].truths);
  }
  out.metrics = ev.compute();
  return out;
}

std::string formatMetricsTable(const DetectionMetrics& m, const std::vector<std::string>& names) {
  std::string out;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%22s%11s%11s%11s%11s%11s%11s\n", "Class", "Images", "Instances",
                "P", "R", "mAP50", "mAP50-95");
  out += buf;
  std::snprintf(buf, sizeof buf, "%22s%11lld%11lld%11.3f%11.3f%11.3f%11.3f\n", "all",
                static_cast<long long>(m.images), static_cast<long long>(m.instances), m.precision,
                m.recall, m.map50, m.map5095);
  out += buf;
  for (const auto& c : m.perClass) {
    if (c.instances == 0) continue;
    const std::string name =
        c.cls < static_cast<int>(names.size()) ? names[c.cls] : std::to_string(c.cls);
    std::snprintf(buf, sizeof buf, "%22s%11lld%11lld%11.3f%11.3f%11.3f%11.3f\n",
                  name.substr(0, 21).c_str(), static_cast<long long>(c.images),
                  static_cast<long long>(c.instances), c.precision, c.recall, c.ap50, c.ap5095);
    out += buf;
  }
  return out;
}

nlohmann::json metricsToJson(const DetectionMetrics& m, const std::vector<std::string>& names) {
  nlohmann::json perClass = nlohmann::json::array();
  for (const auto& c : m.perClass) {
    perClass.push_back({{"cls", c.cls},
                        {"name", c.cls < static_cast<int>(names.size()) ? names[c.cls] : ""},
                        {"images", c.images},
                        {"instances", c.instances},
                        {"precision", c.precision},
                        {"recall", c.recall},
                        {"map50", c.ap50},
                        {"map75", c.ap75},
                        {"map50_95", c.ap5095}});
  }
  return {{"precision", m.precision},
          {"recall", m.recall},
          {"map50", m.map50},
          {"map75", m.map75},
          {"map50_95", m.map5095},
          {"fitness", m.fitness()},
          {"operating_conf", m.operatingConf},
          {"images", m.images},
          {"instances", m.instances},
          {"detections", m.detections},
          {"classes_with_gt", m.classesWithGt},
          {"per_class", perClass}};
}

}  // namespace stave::train
