#include "core/train/metrics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace stave::train {

namespace {

// numpy.linspace(start, stop, num): i * step + start, the last element set to stop exactly.
std::vector<double> linspace(double start, double stop, int num) {
  std::vector<double> v(num);
  const double step = (stop - start) / (num - 1);
  for (int i = 0; i < num; ++i) v[i] = i * step + start;
  v[num - 1] = stop;
  return v;
}

constexpr double kAreaMax = 1e5 * 1e5;  // COCOeval's area range "all": [0, 1e5^2]

double boxArea(double x1, double y1, double x2, double y2) {
  return (x2 - x1) * (y2 - y1);
}

// Stable descending order of scores, as np.argsort(-scores, kind='mergesort').
template <typename T, typename Score>
std::vector<size_t> stableOrderByScore(const std::vector<T>& items, Score score) {
  std::vector<size_t> order(items.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return score(items[a]) > score(items[b]); });
  return order;
}

// The result of COCOeval.evaluateImg for one image and category: per kept detection its score,
// and per IoU threshold whether it matched and whether it is ignored.
struct ImageCategoryEval {
  std::vector<double> scores;                 // sorted descending, capped at maxDet
  std::vector<std::vector<uint8_t>> matched;  // [t][d]
  std::vector<std::vector<uint8_t>> ignored;  // [t][d]
  int64_t gtCount = 0;                        // ground truth that is not ignored
};

ImageCategoryEval evaluateImage(const std::vector<const Detection*>& dtIn,
                                const std::vector<const GroundTruth*>& gtIn, int maxDet) {
  const auto& thresholds = cocoIouThresholds();
  const size_t T = thresholds.size();

  // Ground truth: not-ignored first (stable), as COCOeval sorts by the ignore flag.
  std::vector<const GroundTruth*> gt;
  std::vector<uint8_t> gtIgnore;
  for (int pass = 0; pass < 2; ++pass) {
    for (const GroundTruth* g : gtIn) {
      const double a = boxArea(g->x1, g->y1, g->x2, g->y2);
      const bool ignore = a < 0 || a > kAreaMax;
      if (ignore == (pass == 1)) {
        gt.push_back(g);
        gtIgnore.push_back(ignore);
      }
    }
  }
  const auto order = stableOrderByScore(dtIn, [](const Detection* d) { return d->score; });
  const size_t nd = std::min(order.size(), static_cast<size_t>(std::max(maxDet, 0)));
  std::vector<const Detection*> dt(nd);
  for (size_t i = 0; i < nd; ++i) dt[i] = dtIn[order[i]];

  std::vector<std::vector<double>> ious(nd, std::vector<double>(gt.size()));
  for (size_t d = 0; d < nd; ++d) {
    for (size_t g = 0; g < gt.size(); ++g) {
      ious[d][g] = cocoIou(dt[d]->x1, dt[d]->y1, dt[d]->x2, dt[d]->y2, gt[g]->x1, gt[g]->y1,
                           gt[g]->x2, gt[g]->y2);
    }
  }

  ImageCategoryEval out;
  out.scores.resize(nd);
  for (size_t d = 0; d < nd; ++d) out.scores[d] = dt[d]->score;
  out.matched.assign(T, std::vector<uint8_t>(nd, 0));
  out.ignored.assign(T, std::vector<uint8_t>(nd, 0));
  for (size_t g = 0; g < gt.size(); ++g) out.gtCount += gtIgnore[g] ? 0 : 1;

  for (size_t t = 0; t < T; ++t) {
    std::vector<uint8_t> gtMatched(gt.size(), 0);
    for (size_t d = 0; d < nd; ++d) {
      // The best still unmatched ground truth with IoU >= threshold; a later one with equal
      // IoU wins, and once a real match exists ignored ground truth is not considered.
      double best = std::min(thresholds[t], 1 - 1e-10);
      long m = -1;
      for (size_t g = 0; g < gt.size(); ++g) {
        if (gtMatched[g]) continue;  // no crowd boxes: a matched one is taken
        if (m > -1 && !gtIgnore[m] && gtIgnore[g]) break;
        if (ious[d][g] < best) continue;
        best = ious[d][g];
        m = static_cast<long>(g);
      }
      if (m == -1) continue;
      out.ignored[t][d] = gtIgnore[m];
      out.matched[t][d] = 1;
      gtMatched[m] = 1;
    }
    // Unmatched detections outside the area range are ignored ("all" covers [0, 1e10]).
    for (size_t d = 0; d < nd; ++d) {
      const double a = boxArea(dt[d]->x1, dt[d]->y1, dt[d]->x2, dt[d]->y2);
      if (!out.matched[t][d] && (a < 0 || a > kAreaMax)) out.ignored[t][d] = 1;
    }
  }
  return out;
}

// Ultralytics' box_iou for one pair, in float32 as torch computes it there (the union gets 1e-7).
float ultralyticsIou(const GroundTruth& g, const Detection& d) {
  const float w = std::max(std::min(g.x2, d.x2) - std::max(g.x1, d.x1), 0.f);
  const float h = std::max(std::min(g.y2, d.y2) - std::max(g.y1, d.y1), 0.f);
  const float inter = w * h;
  const float areaG = (g.x2 - g.x1) * (g.y2 - g.y1);
  const float areaD = (d.x2 - d.x1) * (d.y2 - d.y1);
  return inter / (areaG + areaD - inter + 1e-7f);
}

// Ultralytics' match_predictions for one image and class (other classes' IoU is zeroed there,
// so they never match): detections by descending confidence each claim, per IoU threshold, the
// unclaimed ground truth they overlap most (the first on equal IoU) when that IoU reaches the
// threshold (float32 against float32 thresholds). Nothing is capped or ignored.
ImageCategoryEval matchImageUltralytics(const std::vector<const Detection*>& dtIn,
                                        const std::vector<const GroundTruth*>& gt) {
  const auto& thresholds = cocoIouThresholds();
  const size_t T = thresholds.size();
  const auto order = stableOrderByScore(dtIn, [](const Detection* d) { return d->score; });
  const size_t nd = order.size();
  ImageCategoryEval out;
  out.scores.resize(nd);
  out.matched.assign(T, std::vector<uint8_t>(nd, 0));
  out.ignored.assign(T, std::vector<uint8_t>(nd, 0));
  out.gtCount = static_cast<int64_t>(gt.size());
  std::vector<std::vector<uint8_t>> claimed(T, std::vector<uint8_t>(gt.size(), 0));
  std::vector<float> ious(gt.size());
  for (size_t k = 0; k < nd; ++k) {
    const Detection& d = *dtIn[order[k]];
    out.scores[k] = d.score;
    for (size_t g = 0; g < gt.size(); ++g) ious[g] = ultralyticsIou(*gt[g], d);
    for (size_t t = 0; t < T; ++t) {
      const float threshold = static_cast<float>(thresholds[t]);
      float best = 0;
      long m = -1;
      for (size_t g = 0; g < gt.size(); ++g) {
        if (!claimed[t][g] && ious[g] > best) {
          best = ious[g];
          m = static_cast<long>(g);
        }
      }
      if (m >= 0 && best >= threshold) {
        out.matched[t][k] = 1;
        claimed[t][static_cast<size_t>(m)] = 1;
      }
    }
  }
  return out;
}

// np.interp(x, xp, fp, left, right) for increasing xp (ties allowed).
double interp(double x, const std::vector<double>& xp, const std::vector<double>& fp, double left) {
  const size_t n = xp.size();
  if (x < xp.front()) return left;
  if (x >= xp.back()) return fp.back();
  // Last j with xp[j] <= x, so xp[j] <= x < xp[j + 1].
  const size_t j = static_cast<size_t>(std::upper_bound(xp.begin(), xp.end(), x) - xp.begin()) - 1;
  if (x == xp[j] || j + 1 >= n) return fp[j];
  const double slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
  return slope * (x - xp[j]) + fp[j];
}

// Ultralytics' smooth(): box filter of odd width round(n * 2f) // 2 + 1, edges padded.
std::vector<double> smooth(const std::vector<double>& y, double f) {
  const int n = static_cast<int>(y.size());
  const int nf = static_cast<int>(std::nearbyint(n * f * 2)) / 2 + 1;
  const int half = nf / 2;
  std::vector<double> padded;
  padded.reserve(n + 2 * half);
  padded.insert(padded.end(), half, y.front());
  padded.insert(padded.end(), y.begin(), y.end());
  padded.insert(padded.end(), half, y.back());
  std::vector<double> out(n);
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (int k = 0; k < nf; ++k) s += padded[i + k];
    out[i] = s / nf;
  }
  return out;
}

// Per class, the detections of all images in image-id order, as COCOeval.accumulate sees them.
struct ClassPool {
  std::vector<double> scores;
  std::vector<std::vector<uint8_t>> matched, ignored;  // [t][d]
  int64_t gtCount = 0;
};

// One image's boxes split by class, each class with boxes matched by `rule` (COCOeval's
// evaluateImg or Ultralytics' match_predictions) and appended to its pool; counts the images and
// instances of each class.
void poolImage(const std::vector<Detection>& detections, const std::vector<GroundTruth>& truths,
               int nc, int maxDet, ApRule rule, std::vector<ClassPool>& pools,
               std::vector<ClassMetrics>& perClass) {
  const size_t T = cocoIouThresholds().size();
  std::vector<std::vector<const Detection*>> dts(nc);
  std::vector<std::vector<const GroundTruth*>> gts(nc);
  for (const auto& d : detections) dts[d.cls].push_back(&d);
  for (const auto& g : truths) gts[g.cls].push_back(&g);
  for (int c = 0; c < nc; ++c) {
    if (!gts[c].empty()) {
      ++perClass[c].images;
      perClass[c].instances += static_cast<int64_t>(gts[c].size());
    }
    if (dts[c].empty() && gts[c].empty()) continue;
    const ImageCategoryEval e = rule == ApRule::Coco ? evaluateImage(dts[c], gts[c], maxDet)
                                                     : matchImageUltralytics(dts[c], gts[c]);
    ClassPool& p = pools[c];
    p.scores.insert(p.scores.end(), e.scores.begin(), e.scores.end());
    for (size_t t = 0; t < T; ++t) {
      p.matched[t].insert(p.matched[t].end(), e.matched[t].begin(), e.matched[t].end());
      p.ignored[t].insert(p.ignored[t].end(), e.ignored[t].begin(), e.ignored[t].end());
    }
    p.gtCount += e.gtCount;
  }
}

// COCOeval.accumulate for one class at IoU threshold `t`, over its detections ranked by score
// (`order`): the AP (mean of the monotone precision at the 101 recall points), those points'
// precisions left in `atRecall` (0 where the recall is never reached).
double averagePrecision(const ClassPool& p, const std::vector<size_t>& order, size_t t,
                        std::vector<double>& atRecall) {
  constexpr double kSpacing1 = 2.220446049250313e-16;  // np.spacing(1), COCOeval's eps
  const auto& recThr = cocoRecallThresholds();
  const size_t R = recThr.size();
  const size_t nd = order.size();
  std::vector<double> rc(nd), pr(nd);
  double tpSum = 0, fpSum = 0;
  for (size_t k = 0; k < nd; ++k) {
    const size_t d = order[k];
    const bool ign = p.ignored[t][d];
    tpSum += (p.matched[t][d] && !ign) ? 1 : 0;
    fpSum += (!p.matched[t][d] && !ign) ? 1 : 0;
    rc[k] = tpSum / p.gtCount;
    pr[k] = tpSum / (fpSum + tpSum + kSpacing1);
  }
  for (size_t k = nd; k-- > 1;) {
    if (pr[k] > pr[k - 1]) pr[k - 1] = pr[k];
  }
  double q = 0;
  atRecall.assign(R, 0.0);
  for (size_t r = 0; r < R; ++r) {
    const size_t k =
        static_cast<size_t>(std::lower_bound(rc.begin(), rc.end(), recThr[r]) - rc.begin());
    if (k >= nd) break;  // COCOeval stops filling at the first recall it cannot reach
    q += pr[k];
    atRecall[r] = pr[k];
  }
  return q / R;
}

// Ultralytics' compute_ap for one class at IoU threshold `t` (the class has predictions): the
// precision envelope over recall [0, r..., r_last, 1] / precision [1, p..., 0, 0], read by
// linear interpolation at the 101 recall points (left in `atRecall`) and integrated with the
// trapezoid rule.
double ultralyticsAveragePrecision(const ClassPool& p, const std::vector<size_t>& order, size_t t,
                                   std::vector<double>& atRecall) {
  constexpr double kEpsilon = 1e-16;  // ap_per_class's eps in the recall
  const size_t nd = order.size();
  std::vector<double> mrec(nd + 3), mpre(nd + 3);
  mrec[0] = 0;
  mpre[0] = 1;
  double tpc = 0, fpc = 0;
  for (size_t k = 0; k < nd; ++k) {
    const bool tp = p.matched[t][order[k]];
    tpc += tp ? 1 : 0;
    fpc += tp ? 0 : 1;
    mrec[k + 1] = tpc / (p.gtCount + kEpsilon);
    mpre[k + 1] = tpc / (tpc + fpc);
  }
  mrec[nd + 1] = nd ? mrec[nd] : 1.0;
  mrec[nd + 2] = 1.0;
  mpre[nd + 1] = mpre[nd + 2] = 0;
  for (size_t k = nd + 2; k-- > 0;) mpre[k] = std::max(mpre[k], mpre[k + 1]);
  const auto& x = cocoRecallThresholds();
  atRecall.resize(x.size());
  for (size_t i = 0; i < x.size(); ++i) atRecall[i] = interp(x[i], mrec, mpre, mpre[0]);
  double ap = 0;
  for (size_t i = 0; i + 1 < x.size(); ++i)
    ap += (x[i + 1] - x[i]) * (atRecall[i + 1] + atRecall[i]) / 2.0;
  return ap;
}

// One class's detections at IoU .5, for Ultralytics' P and R: confidence and true-positive flag.
struct PrCurve {
  std::vector<double> conf, tp;  // sorted by confidence, ignored detections left out
  int64_t nGt = 0;
};

// The class's pooled detections in rank order (`order`) as a PrCurve.
PrCurve rankedAtIou50(const ClassPool& p, const std::vector<size_t>& order) {
  PrCurve curve;
  curve.nGt = p.gtCount;
  for (const size_t d : order) {
    if (p.ignored[0][d]) continue;
    curve.conf.push_back(p.scores[d]);
    curve.tp.push_back(p.matched[0][d] ? 1 : 0);
  }
  return curve;
}

// COCOeval.accumulate + summarize for one class with ground truth: its AP50, AP75 and
// AP50-95, its PR curve at IoU .5 into `prAt50` when `keepPr`, and its ranked detections at
// IoU .5 into `curve`.
void accumulateClass(const ClassPool& p, ApRule rule, bool keepPr, ClassMetrics& cm,
                     std::vector<double>& prAt50, PrCurve& curve) {
  const size_t T = cocoIouThresholds().size();
  const std::vector<size_t> order = stableOrderByScore(p.scores, [](double s) { return s; });
  std::vector<double> apPerT(T, 0);
  for (size_t t = 0; t < T; ++t) {
    std::vector<double> atRecall;
    if (rule == ApRule::Coco)
      apPerT[t] = averagePrecision(p, order, t, atRecall);
    else if (!order.empty())  // Ultralytics leaves a class without predictions at 0
      apPerT[t] = ultralyticsAveragePrecision(p, order, t, atRecall);
    if (t == 0 && keepPr) prAt50 = std::move(atRecall);
  }
  cm.ap50 = apPerT[0];
  cm.ap75 = apPerT[5];
  cm.ap5095 = std::accumulate(apPerT.begin(), apPerT.end(), 0.0) / T;
  curve = rankedAtIou50(p, order);
}

// Ultralytics' operating point is found on a 1000-point confidence grid.
constexpr int kGrid = 1000;
constexpr double kEps = 1e-16;

double f1Score(double p, double r) {
  return 2 * p * r / (p + r + kEps);
}

// P, R and mean F1 over the grid for the classes with ground truth (P and R interpolated along
// each class's ranked detections).
struct OperatingGrid {
  std::vector<double> x;                   // the confidence grid, 0..1
  std::vector<int> classes;                // classes with ground truth
  std::vector<std::vector<double>> P, Rc;  // [class of `classes`][grid point]
  std::vector<double> meanF1;              // over `classes`, per grid point
};

// P and R of one class over the grid (both stay 0 without predictions).
void classOnGrid(const PrCurve& curve, const std::vector<double>& x, std::vector<double>& P,
                 std::vector<double>& Rc) {
  if (curve.conf.empty()) return;  // no predictions: P = R = 0 everywhere
  const size_t n = curve.conf.size();
  std::vector<double> negConf(n), recall(n), precision(n);
  double tpc = 0, fpc = 0;
  for (size_t k = 0; k < n; ++k) {
    negConf[k] = -curve.conf[k];
    tpc += curve.tp[k];
    fpc += 1 - curve.tp[k];
    recall[k] = tpc / (curve.nGt + kEps);
    precision[k] = tpc / (tpc + fpc);
  }
  for (int i = 0; i < kGrid; ++i) {
    Rc[i] = interp(-x[i], negConf, recall, 0.0);
    P[i] = interp(-x[i], negConf, precision, 1.0);
  }
}

// The grid for every class with ground truth; `classes` empty when none has any.
OperatingGrid operatingGrid(const std::vector<PrCurve>& curves) {
  OperatingGrid g;
  g.x = linspace(0, 1, kGrid);
  for (int c = 0; c < static_cast<int>(curves.size()); ++c) {
    if (curves[c].nGt > 0) g.classes.push_back(c);
  }
  if (g.classes.empty()) return g;
  g.P.assign(g.classes.size(), std::vector<double>(kGrid, 0));
  g.Rc.assign(g.classes.size(), std::vector<double>(kGrid, 0));
  g.meanF1.assign(kGrid, 0);
  for (size_t ci = 0; ci < g.classes.size(); ++ci)
    classOnGrid(curves[g.classes[ci]], g.x, g.P[ci], g.Rc[ci]);
  for (int i = 0; i < kGrid; ++i) {
    double s = 0;
    for (size_t ci = 0; ci < g.classes.size(); ++ci) s += f1Score(g.P[ci][i], g.Rc[ci][i]);
    g.meanF1[i] = s / g.classes.size();
  }
  return g;
}

// The curves at `curvePoints` points of the grid (the first and last included), each class's
// F1 peak, and its PR curve at IoU .5 (`prAt50`, by class index).
void keepCurves(const OperatingGrid& g, const std::vector<std::vector<double>>& prAt50,
                int curvePoints, DetectionCurves& out) {
  const int n = std::clamp(curvePoints, 2, kGrid);
  std::vector<int> at(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    at[i] = static_cast<int>(std::lround(double(i) * (kGrid - 1) / (n - 1)));
  for (int i : at) {
    out.conf.push_back(g.x[i]);
    out.meanF1.push_back(g.meanF1[i]);
  }
  for (size_t ci = 0; ci < g.classes.size(); ++ci) {
    const std::vector<double>& P = g.P[ci];
    const std::vector<double>& Rc = g.Rc[ci];
    ClassCurves cc;
    cc.cls = g.classes[ci];
    for (int i = 0; i < kGrid; ++i) {
      const double f1 = f1Score(P[i], Rc[i]);
      if (f1 > cc.bestF1) {
        cc.bestF1 = f1;
        cc.bestF1Conf = g.x[i];
      }
    }
    for (int i : at) {
      cc.precision.push_back(P[i]);
      cc.recall.push_back(Rc[i]);
      cc.f1.push_back(f1Score(P[i], Rc[i]));
    }
    cc.prPrecision = prAt50[static_cast<size_t>(g.classes[ci])];
    if (cc.prPrecision.empty()) cc.prPrecision.assign(cocoRecallThresholds().size(), 0.0);
    out.classes.push_back(std::move(cc));
  }
}

}  // namespace

ConfusionMatrix::ConfusionMatrix(int nc, double conf, double iou, int keepImages)
    : m_nc(nc),
      m_conf(conf),
      m_iou(iou),
      m_keep(static_cast<size_t>(std::max(0, keepImages))),
      m_counts(static_cast<size_t>((nc + 1) * (nc + 1)), 0),
      m_images(static_cast<size_t>((nc + 1) * (nc + 1))) {}

int64_t ConfusionMatrix::count(int predicted, int truth) const {
  if (predicted < 0 || predicted > m_nc || truth < 0 || truth > m_nc) return 0;
  return m_counts[static_cast<size_t>(predicted * (m_nc + 1) + truth)];
}

const std::vector<int64_t>& ConfusionMatrix::images(int predicted, int truth) const {
  static const std::vector<int64_t> none;
  if (predicted < 0 || predicted > m_nc || truth < 0 || truth > m_nc) return none;
  return m_images[static_cast<size_t>(predicted * (m_nc + 1) + truth)];
}

void ConfusionMatrix::add(int64_t imageId, const std::vector<Detection>& detections,
                         const std::vector<GroundTruth>& truths) {
  auto bump = [&](int p, int t) {
    if (p < 0 || p > m_nc || t < 0 || t > m_nc) return;
    const size_t cell = static_cast<size_t>(p * (m_nc + 1) + t);
    ++m_counts[cell];
    auto& list = m_images[cell];
    if (list.size() < m_keep && (list.empty() || list.back() != imageId)) list.push_back(imageId);
  };
  std::vector<const Detection*> dets;
  for (const auto& d : detections)
    if (d.score > m_conf) dets.push_back(&d);
  // Every (truth, detection) pair above the IoU threshold, whatever the classes (Ultralytics'
  // box_iou: areas from corner differences, no +1).
  struct Match {
    size_t g, d;
    double iou;
  };
  std::vector<Match> matches;
  for (size_t g = 0; g < truths.size(); ++g)
    for (size_t d = 0; d < dets.size(); ++d) {
      const auto& a = truths[g];
      const auto& b = *dets[d];
      const double iw = std::max(0.0, double(std::min(a.x2, b.x2)) - std::max(a.x1, b.x1));
      const double ih = std::max(0.0, double(std::min(a.y2, b.y2)) - std::max(a.y1, b.y1));
      const double inter = iw * ih;
      const double uni = double(a.x2 - a.x1) * (a.y2 - a.y1) + double(b.x2 - b.x1) * (b.y2 - b.y1) -
                         inter;
      const double iou = inter / (uni + 1e-7);
      if (iou > m_iou) matches.push_back({g, d, iou});
    }
  // Highest IoU first; each detection, then each truth, keeps its best pair.
  std::stable_sort(matches.begin(), matches.end(),
                   [](const Match& a, const Match& b) { return a.iou > b.iou; });
  std::vector<char> detUsed(dets.size(), 0), gtUsed(truths.size(), 0);
  std::vector<int> gtMatch(truths.size(), -1);
  std::vector<Match> kept;
  for (const auto& m : matches) {
    if (detUsed[m.d]) continue;
    detUsed[m.d] = 1;
    kept.push_back(m);
  }
  std::fill(detUsed.begin(), detUsed.end(), 0);
  for (const auto& m : kept) {
    if (gtUsed[m.g]) continue;
    gtUsed[m.g] = 1;
    detUsed[m.d] = 1;
    gtMatch[m.g] = static_cast<int>(m.d);
  }
  for (size_t g = 0; g < truths.size(); ++g) {
    if (gtMatch[g] >= 0)
      bump(dets[static_cast<size_t>(gtMatch[g])]->cls, truths[g].cls);
    else
      bump(m_nc, truths[g].cls);
  }
  for (size_t d = 0; d < dets.size(); ++d)
    if (!detUsed[d]) bump(dets[d]->cls, m_nc);
}

const char* apRuleName(ApRule rule) {
  return rule == ApRule::Coco ? "coco" : "ultralytics";
}

std::optional<ApRule> parseApRule(const std::string& name) {
  if (name == "coco") return ApRule::Coco;
  if (name == "ultralytics") return ApRule::Ultralytics;
  return std::nullopt;
}

const std::vector<double>& cocoIouThresholds() {
  static const std::vector<double> t = linspace(0.5, 0.95, 10);
  return t;
}

const std::vector<double>& cocoRecallThresholds() {
  static const std::vector<double> r = linspace(0.0, 1.0, 101);
  return r;
}

double cocoIou(float ax1, float ay1, float ax2, float ay2, float bx1, float by1, float bx2,
               float by2) {
  // pycocotools' bbIou: boxes as x, y, w, h; no +1 on widths; empty overlap is 0.
  const double w = std::min<double>(ax2, bx2) - std::max<double>(ax1, bx1);
  if (w <= 0) return 0;
  const double h = std::min<double>(ay2, by2) - std::max<double>(ay1, by1);
  if (h <= 0) return 0;
  const double inter = w * h;
  const double uni = boxArea(ax1, ay1, ax2, ay2) + boxArea(bx1, by1, bx2, by2) - inter;
  return inter / uni;
}

DetectionEvaluator::DetectionEvaluator(int nc, int maxDet) : m_nc(nc), m_maxDet(maxDet) {}

void DetectionEvaluator::add(int imageId, std::vector<Detection> detections,
                             std::vector<GroundTruth> truths) {
  ImageData& img = m_images[imageId];
  for (const auto& d : detections) {
    if (d.cls < 0 || d.cls >= m_nc) {
      ++m_ignored;
    } else {
      img.detections.push_back(d);
    }
  }
  for (const auto& g : truths) {
    if (g.cls < 0 || g.cls >= m_nc) {
      ++m_ignored;
    } else {
      img.truths.push_back(g);
    }
  }
}

void DetectionEvaluator::merge(const DetectionEvaluator& other) {
  for (const auto& [id, img] : other.m_images) add(id, img.detections, img.truths);
  m_ignored += other.m_ignored;
}

std::vector<float> DetectionEvaluator::pack() const {
  std::vector<float> out;
  for (const auto& [id, img] : m_images) {
    out.push_back(static_cast<float>(id));
    out.push_back(static_cast<float>(img.detections.size()));
    out.push_back(static_cast<float>(img.truths.size()));
    for (const auto& d : img.detections) {
      out.insert(out.end(), {d.x1, d.y1, d.x2, d.y2, d.score, static_cast<float>(d.cls)});
    }
    for (const auto& g : img.truths) {
      out.insert(out.end(), {g.x1, g.y1, g.x2, g.y2, static_cast<float>(g.cls)});
    }
  }
  return out;
}

bool DetectionEvaluator::addPacked(const std::vector<float>& packed) {
  // Parse everything first so a malformed buffer adds nothing.
  struct Parsed {
    int id;
    std::vector<Detection> dets;
    std::vector<GroundTruth> gts;
  };
  std::vector<Parsed> parsed;
  size_t i = 0;
  auto count = [](float f, size_t& out) {
    if (!(f >= 0) || f != std::floor(f) || f > 1e7f) return false;
    out = static_cast<size_t>(f);
    return true;
  };
  while (i < packed.size()) {
    if (packed.size() - i < 3) return false;
    size_t nd = 0, ng = 0;
    if (packed[i] != std::floor(packed[i]) || !count(packed[i + 1], nd) ||
        !count(packed[i + 2], ng)) {
      return false;
    }
    Parsed p;
    p.id = static_cast<int>(packed[i]);
    i += 3;
    if (packed.size() - i < nd * 6 + ng * 5) return false;
    for (size_t k = 0; k < nd; ++k, i += 6) {
      p.dets.push_back({packed[i], packed[i + 1], packed[i + 2], packed[i + 3], packed[i + 4],
                        static_cast<int>(packed[i + 5])});
    }
    for (size_t k = 0; k < ng; ++k, i += 5) {
      p.gts.push_back({packed[i], packed[i + 1], packed[i + 2], packed[i + 3],
                       static_cast<int>(packed[i + 4])});
    }
    parsed.push_back(std::move(p));
  }
  for (auto& p : parsed) add(p.id, std::move(p.dets), std::move(p.gts));
  return true;
}

DetectionMetrics DetectionEvaluator::compute(int curvePoints, ApRule rule) const {
  const size_t T = cocoIouThresholds().size();

  DetectionMetrics out;
  out.rule = rule;
  out.images = static_cast<int64_t>(m_images.size());
  out.perClass.resize(m_nc);
  for (int c = 0; c < m_nc; ++c) out.perClass[c].cls = c;
  std::vector<std::vector<double>> prAt50(static_cast<size_t>(m_nc));

  std::vector<ClassPool> pools(m_nc);
  for (auto& p : pools) {
    p.matched.resize(T);
    p.ignored.resize(T);
  }
  for (const auto& [id, img] : m_images) {
    out.detections += static_cast<int64_t>(img.detections.size());
    poolImage(img.detections, img.truths, m_nc, m_maxDet, rule, pools, out.perClass);
  }

  // COCOeval.accumulate + summarize (or Ultralytics' ap_per_class), and the per-detection TP
  // flags at IoU .5 for P and R.
  double sum50 = 0, sum75 = 0, sumAll = 0;
  std::vector<PrCurve> curves(m_nc);
  for (int c = 0; c < m_nc; ++c) {
    out.instances += out.perClass[c].instances;
    if (pools[c].gtCount == 0) continue;  // precision stays -1: left out of the mean
    ++out.classesWithGt;
    ClassMetrics& cm = out.perClass[c];
    accumulateClass(pools[c], rule, curvePoints > 0, cm, prAt50[c], curves[c]);
    sum50 += cm.ap50;
    sum75 += cm.ap75;
    sumAll += cm.ap5095;
  }
  if (out.classesWithGt > 0) {
    out.map50 = sum50 / out.classesWithGt;
    out.map75 = sum75 / out.classesWithGt;
    out.map5095 = sumAll / out.classesWithGt;
  }

  // Ultralytics' operating point: P and R per class on a 1000-point confidence grid
  // (interpolated along the ranked detections), the grid point where the smoothed mean F1
  // over classes with ground truth peaks, and P and R read there.
  const OperatingGrid g = operatingGrid(curves);
  if (g.classes.empty()) return out;
  if (curvePoints > 0) keepCurves(g, prAt50, curvePoints, out.curves);
  const std::vector<double> smoothed = smooth(g.meanF1, 0.1);
  const int best =
      static_cast<int>(std::max_element(smoothed.begin(), smoothed.end()) - smoothed.begin());
  out.operatingConf = g.x[best];
  double sumP = 0, sumR = 0;
  for (size_t ci = 0; ci < g.classes.size(); ++ci) {
    out.perClass[g.classes[ci]].precision = g.P[ci][best];
    out.perClass[g.classes[ci]].recall = g.Rc[ci][best];
    sumP += g.P[ci][best];
    sumR += g.Rc[ci][best];
  }
  out.precision = sumP / g.classes.size();
  out.recall = sumR / g.classes.size();
  return out;
}

}  // namespace stave::train
