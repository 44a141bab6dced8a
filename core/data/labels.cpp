// Label files: parsing rows, pairing images with labels, describing problems.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "core/data/dataset.h"

namespace stave::data {

std::string Problem::toString() const {
  std::ostringstream os;
  os << file;
  if (line > 0) os << ':' << line;
  os << ": " << kind << ": " << message;
  return os.str();
}

void applyFraction(SplitIndex& index, double fraction) {
  if (!(fraction > 0) || fraction >= 1) return;
  const auto keep = static_cast<size_t>(std::llround(double(index.images.size()) * fraction));
  if (keep < index.images.size()) index.images.resize(std::max<size_t>(keep, 1));
}

void makeSingleClass(SplitIndex& index) {
  for (auto& r : index.images)
    for (auto& b : r.boxes) b.cls = 0;
}

std::string labelPathFor(const std::string& imagePath) {
  std::string p = imagePath;
  const auto pos = p.rfind("/images/");
  if (pos != std::string::npos) p.replace(pos, 8, "/labels/");
  const auto slash = p.find_last_of('/');
  const auto dot = p.find_last_of('.');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) p.erase(dot);
  return p + ".txt";
}

namespace {
bool parseNumber(const std::string& tok, double& out) {
  const char* s = tok.c_str();
  char* end = nullptr;
  errno = 0;
  out = std::strtod(s, &end);
  return end != s && *end == '\0';
}

std::string fmt(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}
// Why a label row is dropped: the problem's kind and message.
struct RowProblem {
  std::string kind;
  Text text;
};

// The row's columns as numbers in `v`; a problem for the first that is not one.
std::optional<RowProblem> readNumbers(const std::vector<std::string>& toks,
                                      std::vector<double>& v) {
  v.assign(toks.size(), 0.0);
  for (size_t i = 0; i < toks.size(); ++i) {
    if (!parseNumber(toks[i], v[i]))
      return RowProblem{
          "label-number",
          Text("data.not_a_number", {{"column", std::to_string(i + 1)}, {"value", toks[i]}})};
  }
  return std::nullopt;
}

// The column count, finiteness and class id of a numeric row.
std::optional<RowProblem> checkRowShape(const std::vector<std::string>& toks,
                                        const std::vector<double>& v, int nc) {
  const size_t cols = toks.size();
  if (!(cols == 5 || (cols >= 7 && cols % 2 == 1)))
    return RowProblem{"label-columns", Text("data.columns", {{"count", std::to_string(cols)}})};
  bool finite = true;
  for (double x : v) finite = finite && std::isfinite(x);
  if (!finite) return RowProblem{"label-nan", Text("data.nan")};
  if (v[0] != std::floor(v[0]) || v[0] < 0 || v[0] >= nc)
    return RowProblem{"label-class", Text("data.class", {{"id", toks[0]},
                                                         {"last", std::to_string(nc - 1)},
                                                         {"nc", std::to_string(nc)}})};
  return std::nullopt;
}

// The box of a checked row (cls cx cy w h, or a polygon's bounds), clamped to the image when it
// reaches out by no more than `tol`.
std::optional<RowProblem> rowBox(const std::vector<double>& v, double tol, Box& b) {
  const size_t cols = v.size();
  double x1, y1, x2, y2;
  if (cols == 5) {
    if (v[3] <= 0 || v[4] <= 0)
      return RowProblem{"label-zero-area",
                        Text("data.zero_size", {{"w", fmt(v[3])}, {"h", fmt(v[4])}})};
    x1 = v[1] - v[3] / 2;
    x2 = v[1] + v[3] / 2;
    y1 = v[2] - v[4] / 2;
    y2 = v[2] + v[4] / 2;
  } else {
    x1 = y1 = 1e30;
    x2 = y2 = -1e30;
    for (size_t i = 1; i + 1 < cols; i += 2) {
      x1 = std::min(x1, v[i]);
      x2 = std::max(x2, v[i]);
      y1 = std::min(y1, v[i + 1]);
      y2 = std::max(y2, v[i + 1]);
    }
  }
  if (x1 < -tol || y1 < -tol || x2 > 1 + tol || y2 > 1 + tol)
    return RowProblem{
        "label-range",
        Text("data.range",
             {{"left", fmt(x1)}, {"top", fmt(y1)}, {"right", fmt(x2)}, {"bottom", fmt(y2)}})};
  x1 = std::clamp(x1, 0.0, 1.0);
  y1 = std::clamp(y1, 0.0, 1.0);
  x2 = std::clamp(x2, 0.0, 1.0);
  y2 = std::clamp(y2, 0.0, 1.0);
  if (x2 - x1 <= 0 || y2 - y1 <= 0) return RowProblem{"label-zero-area", Text("data.zero_area")};
  b = Box{static_cast<int>(v[0]), float((x1 + x2) / 2), float((y1 + y2) / 2), float(x2 - x1),
          float(y2 - y1)};
  return std::nullopt;
}
}  // namespace

LabelParse parseLabelText(const std::string& text, const std::string& file, int nc, double tol) {
  LabelParse out;
  std::set<std::tuple<int, float, float, float, float>> seen;
  std::istringstream in(text);
  std::string line;
  int lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    std::istringstream row(line);
    std::vector<std::string> toks;
    for (std::string t; row >> t;) toks.push_back(t);
    if (toks.empty()) continue;
    std::vector<double> v;
    Box b{};
    std::optional<RowProblem> bad = readNumbers(toks, v);
    if (!bad) bad = checkRowShape(toks, v, nc);
    if (!bad) bad = rowBox(v, tol, b);
    if (!bad && !seen.insert({b.cls, b.cx, b.cy, b.w, b.h}).second)
      bad = RowProblem{"label-duplicate", Text("data.duplicate_row")};
    if (bad) {
      out.problems.push_back(textProblem(file, lineNo, bad->kind, {bad->text}, false));
      ++out.droppedRows;
      continue;
    }
    out.boxes.push_back(b);
  }
  return out;
}

}  // namespace stave::data
