#include "core/data/label_issues.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <tuple>

namespace stave::data {

const char* issueKindName(IssueKind kind) {
  switch (kind) {
    case IssueKind::Overlooked:
      return "overlooked";
    case IssueKind::Swapped:
      return "swapped";
    case IssueKind::BadlyLocated:
      return "badly_located";
    case IssueKind::Spurious:
      return "spurious";
  }
  return "?";
}

double boxIou(double ax1, double ay1, double ax2, double ay2, double bx1, double by1, double bx2,
              double by2) {
  const double aw = ax2 - ax1, ah = ay2 - ay1, bw = bx2 - bx1, bh = by2 - by1;
  if (!(aw > 0 && ah > 0 && bw > 0 && bh > 0)) return 0.0;
  const double iw = std::min(ax2, bx2) - std::max(ax1, bx1);
  const double ih = std::min(ay2, by2) - std::max(ay1, by1);
  if (iw <= 0 || ih <= 0) return 0.0;
  const double inter = iw * ih;
  return inter / (aw * ah + bw * bh - inter);
}

Status checkLabelIssueOptions(const LabelIssueOptions& o) {
  std::vector<Error> errors;
  auto unit = [&](double v, const char* name, bool open0) {
    if (!(v <= 1.0) || (open0 ? !(v > 0.0) : !(v >= 0.0)))
      errors.push_back(Error{"", 0, name,
                             std::string("must be ") + (open0 ? "above 0" : "from 0") +
                                 " and at most 1, got " + std::to_string(v)});
  };
  if (o.confident >= 0) unit(o.confident, "--confident", true);
  unit(o.minConfident, "--min-confident", true);
  unit(o.maxConfident, "--max-confident", true);
  if (o.minConfident > o.maxConfident)
    errors.push_back(Error{"", 0, "--min-confident", "must not exceed --max-confident"});
  unit(o.matchIou, "--match-iou", true);
  unit(o.coverIou, "--cover-iou", true);
  unit(o.locIou, "--loc-iou", true);
  unit(o.minLocIou, "--min-loc-iou", false);
  if (o.minLocIou >= o.locIou)
    errors.push_back(Error{"", 0, "--min-loc-iou", "must be below --loc-iou"});
  unit(o.alpha, "--alpha", false);
  unit(o.minScore, "--min-score", false);
  if (o.minClassBoxes < 0) errors.push_back(Error{"", 0, "--min-class-boxes", "must be 0 or more"});
  if (!errors.empty()) return errors;
  return Ok{};
}

namespace {

double iouOf(const IssueLabel& l, const IssuePrediction& p) {
  return boxIou(l.x1, l.y1, l.x2, l.y2, p.x1, p.y1, p.x2, p.y2);
}

// IoU, plus closeness of the centres relative to the label box's size: a badly drawn box still
// belongs to the prediction whose centre is near, even when their IoU is low.
double similarity(const IssueLabel& l, const IssuePrediction& p, double alpha) {
  const double dx = (l.x1 + l.x2 - p.x1 - p.x2) / 2, dy = (l.y1 + l.y2 - p.y1 - p.y2) / 2;
  const double diag = std::max(std::hypot(l.x2 - l.x1, l.y2 - l.y1), 1e-9);
  return alpha * iouOf(l, p) + (1 - alpha) * std::exp(-std::hypot(dx, dy) / diag);
}

// A prediction's confidence on a common scale: its class's threshold maps to 0.5, 1 to 1, 0 to
// 0; the scores below compare confidences of classes whose thresholds differ.
double strength(double conf, double threshold) {
  if (conf >= threshold)
    return threshold >= 1 ? 1.0 : 0.5 + 0.5 * (conf - threshold) / (1 - threshold);
  return threshold > 0 ? 0.5 * conf / threshold : 0.0;
}

// Whether each prediction matches a label box of its class (greedy by confidence, best IoU at
// least matchIou, each label box taken once): the ground for the per-class thresholds.
std::vector<std::vector<char>> matchPredictions(const std::vector<IssueImage>& images,
                                                double matchIou) {
  std::vector<std::vector<char>> matched(images.size());
  for (size_t i = 0; i < images.size(); ++i) {
    const auto& im = images[i];
    matched[i].assign(im.predictions.size(), 0);
    std::vector<size_t> order(im.predictions.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return im.predictions[a].conf > im.predictions[b].conf;
    });
    std::vector<char> taken(im.labels.size(), 0);
    for (size_t p : order) {
      int best = -1;
      double bestIou = matchIou;
      for (size_t l = 0; l < im.labels.size(); ++l) {
        if (taken[l] || im.labels[l].cls != im.predictions[p].cls) continue;
        const double iou = iouOf(im.labels[l], im.predictions[p]);
        if (iou >= bestIou) bestIou = iou, best = static_cast<int>(l);
      }
      if (best >= 0) taken[static_cast<size_t>(best)] = 1, matched[i][p] = 1;
    }
  }
  return matched;
}

struct Claim {
  double conf;
  bool tp;
};

// Threshold, precision and recall of one list of predictions against `labels` label boxes.
ClassCalibration calibrate(std::vector<Claim> claims, int labels, const LabelIssueOptions& o) {
  ClassCalibration c;
  c.labels = labels;
  std::sort(claims.begin(), claims.end(),
            [](const Claim& a, const Claim& b) { return a.conf > b.conf; });
  double threshold = o.confident;
  if (threshold < 0) {
    double bestF1 = -1;
    threshold = o.maxConfident;
    int tp = 0;
    for (size_t k = 0; k < claims.size(); ++k) {
      tp += claims[k].tp ? 1 : 0;
      // Only where the confidence changes: equal confidences are one threshold.
      if (k + 1 < claims.size() && claims[k + 1].conf == claims[k].conf) continue;
      const double precision = double(tp) / double(k + 1);
      const double recall = labels > 0 ? double(tp) / labels : 0.0;
      const double f1 = precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0;
      if (f1 > bestF1) bestF1 = f1, threshold = claims[k].conf;
    }
    threshold = std::clamp(threshold, o.minConfident, o.maxConfident);
  }
  c.threshold = threshold;
  int n = 0, tp = 0;
  for (const auto& cl : claims) {
    if (cl.conf < threshold) break;
    ++n;
    tp += cl.tp ? 1 : 0;
  }
  c.precision = n > 0 ? double(tp) / n : 0.0;
  c.recall = labels > 0 ? std::min(1.0, double(tp) / labels) : 0.0;
  return c;
}

std::vector<ClassCalibration> calibrateClasses(const std::vector<IssueImage>& images, int nc,
                                               const LabelIssueOptions& o) {
  const auto matched = matchPredictions(images, o.matchIou);
  std::vector<std::vector<Claim>> claims(static_cast<size_t>(nc));
  std::vector<int> labels(static_cast<size_t>(nc), 0);
  std::vector<Claim> all;
  int allLabels = 0;
  for (size_t i = 0; i < images.size(); ++i) {
    for (const auto& l : images[i].labels)
      if (l.cls >= 0 && l.cls < nc) ++labels[static_cast<size_t>(l.cls)], ++allLabels;
    for (size_t p = 0; p < images[i].predictions.size(); ++p) {
      const auto& pr = images[i].predictions[p];
      if (pr.cls < 0 || pr.cls >= nc) continue;
      const Claim c{pr.conf, matched[i][p] != 0};
      claims[static_cast<size_t>(pr.cls)].push_back(c);
      all.push_back(c);
    }
  }
  const ClassCalibration pooled = calibrate(all, allLabels, o);
  std::vector<ClassCalibration> out(static_cast<size_t>(nc));
  for (int c = 0; c < nc; ++c) {
    const auto k = static_cast<size_t>(c);
    if (labels[k] < o.minClassBoxes) {
      out[k] = pooled;
      out[k].labels = labels[k];
      out[k].pooled = true;
    } else {
      out[k] = calibrate(claims[k], labels[k], o);
    }
  }
  return out;
}

// The issues of one image.
void scoreImage(const IssueImage& im, int index, int nc, const std::vector<ClassCalibration>& cal,
                const LabelIssueOptions& o, std::vector<LabelIssue>& out) {
  const size_t nl = im.labels.size(), np = im.predictions.size();
  auto valid = [nc](int cls) { return cls >= 0 && cls < nc; };
  std::vector<double> z(np, 0.0);
  for (size_t p = 0; p < np; ++p) {
    const auto& pr = im.predictions[p];
    if (valid(pr.cls)) z[p] = strength(pr.conf, cal[static_cast<size_t>(pr.cls)].threshold);
  }
  std::vector<std::vector<double>> iou(nl, std::vector<double>(np, 0.0));
  for (size_t l = 0; l < nl; ++l)
    for (size_t p = 0; p < np; ++p) iou[l][p] = iouOf(im.labels[l], im.predictions[p]);
  // A prediction that overlaps a label box of its own class at matchIou is explained by it.
  auto explainedByOther = [&](size_t p, size_t except) {
    for (size_t l = 0; l < nl; ++l)
      if (l != except && im.labels[l].cls == im.predictions[p].cls && iou[l][p] >= o.matchIou)
        return true;
    return false;
  };
  // The label box of its class a prediction overlaps most (it belongs there).
  auto ownerOf = [&](size_t p) {
    int best = -1;
    double bestIou = 0;
    for (size_t l = 0; l < nl; ++l)
      if (im.labels[l].cls == im.predictions[p].cls && iou[l][p] > bestIou)
        bestIou = iou[l][p], best = static_cast<int>(l);
    return best;
  };
  std::vector<char> partner(np, 0);  // predictions already used to explain a label box's issue
  auto push = [&](IssueKind kind, int labelIndex, int predIndex, double score) {
    score = std::clamp(score, 0.0, 1.0);
    if (score <= 0.0 || score < o.minScore) return;
    LabelIssue is;
    is.image = index;
    is.kind = kind;
    is.score = score;
    is.labelIndex = labelIndex;
    is.predictionIndex = predIndex;
    if (labelIndex >= 0) {
      const auto& l = im.labels[static_cast<size_t>(labelIndex)];
      is.labelClass = l.cls;
      is.x1 = l.x1, is.y1 = l.y1, is.x2 = l.x2, is.y2 = l.y2;
    }
    if (predIndex >= 0) {
      const auto& p = im.predictions[static_cast<size_t>(predIndex)];
      is.predictedClass = p.cls;
      if (labelIndex < 0) is.x1 = p.x1, is.y1 = p.y1, is.x2 = p.x2, is.y2 = p.y2;
    }
    out.push_back(is);
  };

  for (size_t l = 0; l < nl; ++l) {
    const auto& lab = im.labels[l];
    if (!valid(lab.cls)) continue;
    const auto& own = cal[static_cast<size_t>(lab.cls)];
    // How strongly the model says "this class, here".
    double sameSupport = 0;
    for (size_t p = 0; p < np; ++p)
      if (im.predictions[p].cls == lab.cls && iou[l][p] >= o.matchIou)
        sameSupport = std::max(sameSupport, z[p]);
    // Swapped: a confident prediction of another class on the same object, stronger than any
    // of the labelled class, and not the prediction of another label box of its class.
    int other = -1;
    double otherValue = 0;
    for (size_t p = 0; p < np; ++p) {
      const auto& pr = im.predictions[p];
      if (pr.cls == lab.cls || !valid(pr.cls) || z[p] < 0.5 || iou[l][p] < o.matchIou) continue;
      if (explainedByOther(p, l)) continue;
      const double v = z[p] * iou[l][p];
      if (v > otherValue) otherValue = v, other = static_cast<int>(p);
    }
    if (other >= 0 && z[static_cast<size_t>(other)] > sameSupport) {
      const auto po = static_cast<size_t>(other);
      const double reliability = cal[static_cast<size_t>(im.predictions[po].cls)].precision;
      partner[po] = 1;
      push(IssueKind::Swapped, static_cast<int>(l), other, reliability * z[po] * (1 - sameSupport));
      continue;
    }
    // Badly located: the prediction of this class that belongs to the box (nearest by
    // similarity among those it overlaps most) overlaps it less than locIou.
    int best = -1;
    double bestSim = -1;
    for (size_t p = 0; p < np; ++p) {
      if (im.predictions[p].cls != lab.cls || z[p] < 0.25 || iou[l][p] < o.minLocIou) continue;
      if (ownerOf(p) != static_cast<int>(l) || explainedByOther(p, l)) continue;
      const double s = similarity(lab, im.predictions[p], o.alpha);
      if (s > bestSim) bestSim = s, best = static_cast<int>(p);
    }
    if (best >= 0 && iou[l][static_cast<size_t>(best)] < o.locIou) {
      const auto pb = static_cast<size_t>(best);
      partner[pb] = 1;
      push(IssueKind::BadlyLocated, static_cast<int>(l), best,
           own.precision * z[pb] * (1 - iou[l][pb]));
      continue;
    }
    // Spurious: no prediction claims the box (one of another class that belongs to another
    // label box does not: a duplicate box with another class is spurious); counts as much as
    // the model finds the class's boxes (its recall there).
    double support = 0;
    for (size_t p = 0; p < np; ++p)
      if (iou[l][p] >= o.coverIou && (im.predictions[p].cls == lab.cls || !explainedByOther(p, l)))
        support = std::max(support, z[p]);
    if (support < 0.5)
      push(IssueKind::Spurious, static_cast<int>(l), -1, own.recall * (1 - 2 * support));
  }

  // Overlooked: confident predictions that no label box covers, strongest first; a weaker one
  // on the same object as one already reported is the same missing box.
  std::vector<size_t> order(np);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return z[a] > z[b]; });
  std::vector<size_t> reported;
  for (size_t p : order) {
    const auto& pr = im.predictions[p];
    if (!valid(pr.cls) || z[p] < 0.5 || partner[p]) continue;
    double covered = 0;
    for (size_t l = 0; l < nl; ++l) covered = std::max(covered, iou[l][p]);
    if (covered >= o.coverIou) continue;
    bool duplicate = false;
    for (size_t q : reported) {
      const auto& a = im.predictions[q];
      if (boxIou(a.x1, a.y1, a.x2, a.y2, pr.x1, pr.y1, pr.x2, pr.y2) >= o.matchIou)
        duplicate = true;
    }
    if (duplicate) continue;
    reported.push_back(p);
    push(IssueKind::Overlooked, -1, static_cast<int>(p),
         cal[static_cast<size_t>(pr.cls)].precision * z[p] * (1 - covered / o.coverIou));
  }
}

}  // namespace

LabelIssueReport findLabelIssues(const std::vector<IssueImage>& images, int nc,
                                 const LabelIssueOptions& options) {
  LabelIssueReport report;
  report.classes = calibrateClasses(images, nc, options);
  for (size_t i = 0; i < images.size(); ++i)
    scoreImage(images[i], static_cast<int>(i), nc, report.classes, options, report.issues);
  report.imageScores.assign(images.size(), 0.0);
  for (const auto& is : report.issues) {
    auto& s = report.imageScores[static_cast<size_t>(is.image)];
    s = std::max(s, is.score);
  }
  const auto& worst = report.imageScores;
  std::stable_sort(
      report.issues.begin(), report.issues.end(), [&](const LabelIssue& a, const LabelIssue& b) {
        const double wa = worst[static_cast<size_t>(a.image)];
        const double wb = worst[static_cast<size_t>(b.image)];
        return std::make_tuple(-wa, a.image, -a.score, a.labelIndex, a.predictionIndex) <
               std::make_tuple(-wb, b.image, -b.score, b.labelIndex, b.predictionIndex);
      });
  return report;
}

namespace {
std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}
}  // namespace

std::string labelIssuesCsv(const LabelIssueReport& report, const std::vector<IssueImage>& images) {
  std::string text = kLabelIssuesCsvHeader;
  char buf[256];
  for (const auto& is : report.issues) {
    std::snprintf(buf, sizeof buf, ",%s,%d,%d,%.4f,%.1f,%.1f,%.1f,%.1f\n", issueKindName(is.kind),
                  is.labelClass, is.predictedClass, is.score, is.x1, is.y1, is.x2, is.y2);
    text += csvField(images[static_cast<size_t>(is.image)].name);
    text += buf;
  }
  return text;
}

}  // namespace stave::data
