// Issues CSV read back, one-key fixes applied to label text, "not an issue" remembered.
#include "core/data/label_fixes.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "core/base/atomic_file.h"
#include "core/base/bounded_read.h"
#include "core/data/label_edits.h"

namespace stave::data {

namespace {

// The fields of one CSV line (RFC 4180 quotes; no line breaks inside a field: the image names
// Stave writes hold none).
std::vector<std::string> csvFields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

bool number(const std::string& s, double& v) {
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return !s.empty() && end && *end == '\0' && std::isfinite(v);
}

bool whole(const std::string& s, int& v) {
  double d = 0;
  if (!number(s, d) || d != std::floor(d) || d < -1 || d > 1e6) return false;
  v = int(d);
  return true;
}

}  // namespace

bool parseIssueKind(const std::string& text, IssueKind& kind) {
  for (IssueKind k :
       {IssueKind::Overlooked, IssueKind::Swapped, IssueKind::BadlyLocated, IssueKind::Spurious})
    if (text == issueKindName(k)) {
      kind = k;
      return true;
    }
  return false;
}

Result<IssuesCsv> readLabelIssuesCsv(const std::string& path) {
  auto text = readFileCapped(path, size_t{256} << 20);
  if (!text) return text.errors();
  const auto lines = splitLines(text.value());
  std::string header = kLabelIssuesCsvHeader;
  header.pop_back();
  if (lines.empty() || (lines[0] != header && lines[0] != header + "\r"))
    return textError(path, 1, "", Text("issues.not_csv", {{"header", header}}));
  IssuesCsv out;
  for (size_t i = 1; i < lines.size(); ++i) {
    const int lineNo = int(i + 1);
    if (lines[i].empty()) continue;
    const auto f = csvFields(lines[i]);
    IssueRow r;
    r.line = lineNo;
    Text why;
    if (f.size() != 9)
      why = Text("issues.fields", {{"count", std::to_string(f.size())}});
    else if (f[0].empty())
      why = Text("issues.no_image");
    else if (!parseIssueKind(f[1], r.kind))
      why = Text("issues.kind", {{"kind", f[1]}});
    else if (!whole(f[2], r.labelClass) || !whole(f[3], r.predictedClass))
      why = Text("issues.class");
    else if (!number(f[4], r.score) || !number(f[5], r.x1) || !number(f[6], r.y1) ||
             !number(f[7], r.x2) || !number(f[8], r.y2))
      why = Text("issues.number");
    if (!why.id.empty()) {
      out.problems.push_back(
          textError(path, lineNo, "", Text("issues.row_skipped", {{"why", why}})));
      continue;
    }
    r.image = f[0];
    out.rows.push_back(std::move(r));
  }
  return out;
}

bool defaultFix(IssueKind kind, IssueFix& fix) {
  switch (kind) {
    case IssueKind::Overlooked:
      fix = IssueFix::AcceptPrediction;
      return true;
    case IssueKind::Swapped:
      fix = IssueFix::TakeOtherClass;
      return true;
    case IssueKind::Spurious:
      fix = IssueFix::DeleteBox;
      return true;
    case IssueKind::BadlyLocated:
      return false;
  }
  return false;
}

Result<std::string> applyIssueFix(const std::string& labelText, const std::string& labelPath,
                                  const IssueRow& issue, IssueFix fix, int width, int height) {
  if (width <= 0 || height <= 0) return textError(labelPath, 0, "", Text("issues.size_unknown"));
  auto rows = parseLabelRows(labelText);
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(r.text);
  const double W = width, H = height;
  if (fix == IssueFix::AcceptPrediction) {
    if (issue.predictedClass < 0) return textError(labelPath, 0, "", Text("issues.no_prediction"));
    Box b{issue.predictedClass, float((issue.x1 + issue.x2) / 2 / W),
          float((issue.y1 + issue.y2) / 2 / H), float((issue.x2 - issue.x1) / W),
          float((issue.y2 - issue.y1) / H)};
    out.push_back(formatBoxRow(b));
    return joinRows(out);
  }
  if (issue.labelClass < 0) return textError(labelPath, 0, "", Text("issues.no_label_box"));
  if (fix == IssueFix::TakeOtherClass && issue.predictedClass < 0)
    return textError(labelPath, 0, "", Text("issues.no_other_class"));
  if (fix == IssueFix::TakePredictedBox &&
      (!issue.hasPredictedBox || issue.px2 <= issue.px1 || issue.py2 <= issue.py1))
    return textError(labelPath, 0, "", Text("issues.no_predicted_box"));
  // The label box the issue names: of its class, overlapping the issue's box most.
  int best = -1;
  double bestIou = 0.5;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i].isBox || rows[i].box.cls != issue.labelClass) continue;
    const Box& b = rows[i].box;
    const double iou = boxIou((b.cx - b.w / 2) * W, (b.cy - b.h / 2) * H, (b.cx + b.w / 2) * W,
                              (b.cy + b.h / 2) * H, issue.x1, issue.y1, issue.x2, issue.y2);
    if (iou >= bestIou) {
      bestIou = iou;
      best = int(i);
    }
  }
  if (best < 0)
    return textError(labelPath, 0, "",
                     Text("issues.box_gone", {{"class", std::to_string(issue.labelClass)}}));
  if (fix == IssueFix::DeleteBox) {
    out.erase(out.begin() + best);
  } else if (fix == IssueFix::TakePredictedBox) {
    const Box b{issue.labelClass, float((issue.px1 + issue.px2) / 2 / W),
                float((issue.py1 + issue.py2) / 2 / H), float((issue.px2 - issue.px1) / W),
                float((issue.py2 - issue.py1) / H)};
    out[size_t(best)] = formatBoxRow(b);
  } else {
    Box b = rows[size_t(best)].box;
    b.cls = issue.predictedClass;
    out[size_t(best)] = formatBoxRow(b);
  }
  return joinRows(out);
}

std::string issueKey(const IssueRow& r) {
  std::ostringstream os;
  os << r.image << '|' << issueKindName(r.kind) << '|' << r.labelClass << '|' << r.predictedClass
     << '|' << std::lround(r.x1) << '|' << std::lround(r.y1) << '|' << std::lround(r.x2) << '|'
     << std::lround(r.y2);
  return os.str();
}

namespace {
std::string dismissedPath(const std::string& root) {
  return root + "/.stave/not-issues.txt";
}
}  // namespace

std::set<std::string> readDismissedIssues(const std::string& root) {
  std::set<std::string> keys;
  auto text = readFileCapped(dismissedPath(root), size_t{64} << 20);
  if (!text) return keys;
  for (auto& l : splitLines(text.value()))
    if (!l.empty()) keys.insert(l);
  return keys;
}

Status dismissIssue(const std::string& root, const IssueRow& issue) {
  auto keys = readDismissedIssues(root);
  if (!keys.insert(issueKey(issue)).second) return Ok{};
  return writeFileAtomic(dismissedPath(root),
                         joinRows(std::vector<std::string>(keys.begin(), keys.end())));
}

}  // namespace stave::data
