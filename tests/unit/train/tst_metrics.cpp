// DetectionEvaluator against (1) small cases worked by hand and (2) a deliberately slow reference
// written straight from the COCOeval description, on random cases with fixed seeds.
// pycocotools itself is not installable here; the reference uses the textbook definition of
// interpolated precision (max precision at any recall >= r) rather than COCOeval's
// envelope-and-searchsorted code, so the two are independent where it matters.

#include <QtTest>

#include <random>

#include "core/train/metrics.h"

using namespace stave::train;

namespace {

struct RefImage {
  int id;
  std::vector<Detection> dets;
  std::vector<GroundTruth> gts;
};

struct RefResult {
  std::vector<double> ap50, ap5095;  // per class, -1 without ground truth
  double map50 = 0, map5095 = 0;
};

double refIou(float ax1, float ay1, float ax2, float ay2, float bx1, float by1, float bx2,
              float by2) {
  const double ix = std::max(0.0, double(std::min(ax2, bx2)) - double(std::max(ax1, bx1)));
  const double iy = std::max(0.0, double(std::min(ay2, by2)) - double(std::max(ay1, by1)));
  const double inter = ix * iy;
  if (inter <= 0) return 0;
  const double a = (double(ax2) - ax1) * (double(ay2) - ay1);
  const double b = (double(bx2) - bx1) * (double(by2) - by1);
  return inter / (a + b - inter);
}

// COCOeval for bbox, area "all", one maxDet, no crowd, written the slow obvious way:
// for each class and IoU threshold, every image's detections of that class (best score first,
// at most maxDet) claim in turn the unclaimed ground truth they overlap most (IoU >= threshold;
// on equal IoU the later box). All claims of the class are ranked by score; AP is the mean over
// recall r = 0, .01, ..., 1 of the best precision reached at any rank whose recall is >= r.
RefResult referenceCoco(std::vector<RefImage> images, int nc, int maxDet) {
  std::sort(images.begin(), images.end(),
            [](const RefImage& a, const RefImage& b) { return a.id < b.id; });
  RefResult out;
  const auto& thresholds = cocoIouThresholds();
  int counted = 0;
  for (int c = 0; c < nc; ++c) {
    int totalGt = 0;
    for (const auto& img : images) {
      for (const auto& g : img.gts) totalGt += g.cls == c;
    }
    if (totalGt == 0) {
      out.ap50.push_back(-1);
      out.ap5095.push_back(-1);
      continue;
    }
    double apSum = 0, ap50 = 0;
    for (size_t t = 0; t < thresholds.size(); ++t) {
      std::vector<std::pair<double, bool>> ranked;  // score, true positive
      for (const auto& img : images) {
        std::vector<Detection> dets;
        for (const auto& d : img.dets) {
          if (d.cls == c) dets.push_back(d);
        }
        std::stable_sort(dets.begin(), dets.end(),
                         [](const Detection& a, const Detection& b) { return a.score > b.score; });
        if (int(dets.size()) > maxDet) dets.resize(maxDet);
        std::vector<GroundTruth> gts;
        for (const auto& g : img.gts) {
          if (g.cls == c) gts.push_back(g);
        }
        std::vector<bool> claimed(gts.size(), false);
        for (const auto& d : dets) {
          double bestIou = thresholds[t];
          int best = -1;
          for (size_t g = 0; g < gts.size(); ++g) {
            if (claimed[g]) continue;
            const double iou =
                refIou(d.x1, d.y1, d.x2, d.y2, gts[g].x1, gts[g].y1, gts[g].x2, gts[g].y2);
            if (iou >= bestIou) {
              bestIou = iou;
              best = int(g);
            }
          }
          if (best >= 0) claimed[best] = true;
          ranked.push_back({d.score, best >= 0});
        }
      }
      std::stable_sort(ranked.begin(), ranked.end(),
                       [](const auto& a, const auto& b) { return a.first > b.first; });
      std::vector<double> precision, recall;
      int tp = 0;
      for (size_t k = 0; k < ranked.size(); ++k) {
        tp += ranked[k].second;
        precision.push_back(double(tp) / double(k + 1));
        recall.push_back(double(tp) / totalGt);
      }
      double ap = 0;
      for (double r : cocoRecallThresholds()) {
        double best = 0;
        for (size_t k = 0; k < ranked.size(); ++k) {
          if (recall[k] >= r) best = std::max(best, precision[k]);
        }
        ap += best;
      }
      ap /= 101;
      apSum += ap;
      if (t == 0) ap50 = ap;
    }
    out.ap50.push_back(ap50);
    out.ap5095.push_back(apSum / thresholds.size());
    out.map50 += ap50;
    out.map5095 += apSum / thresholds.size();
    ++counted;
  }
  if (counted) {
    out.map50 /= counted;
    out.map5095 /= counted;
  }
  return out;
}

// Random images: ground truth of every class but the last, detections that are jittered copies
// (some with the wrong class, some duplicated) plus random false positives of any class.
std::vector<RefImage> randomImages(uint32_t seed, int nc, int nImages) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u01(0, 1);
  auto uni = [&](float a, float b) { return a + (b - a) * u01(rng); };
  auto randInt = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::vector<RefImage> images;
  for (int i = 0; i < nImages; ++i) {
    RefImage img;
    img.id = 1000 - 7 * i;  // not in insertion order: the evaluator must order by id
    const int nGt = randInt(0, 6);
    for (int g = 0; g < nGt; ++g) {
      const float x = uni(0, 500), y = uni(0, 500), w = uni(4, 150), h = uni(4, 150);
      const int cls = randInt(0, std::max(0, nc - 2));
      img.gts.push_back({x, y, x + w, y + h, cls});
      const int copies = u01(rng) < 0.85f ? (u01(rng) < 0.3f ? 2 : 1) : 0;
      for (int k = 0; k < copies; ++k) {
        const float jx = uni(-0.15f, 0.15f) * w, jy = uni(-0.15f, 0.15f) * h;
        const float sw = uni(0.8f, 1.2f), sh = uni(0.8f, 1.2f);
        const int dcls = u01(rng) < 0.9f ? cls : randInt(0, nc - 1);
        img.dets.push_back({x + jx, y + jy, x + jx + w * sw, y + jy + h * sh, u01(rng), dcls});
      }
    }
    const int nFp = randInt(0, 4);
    for (int f = 0; f < nFp; ++f) {
      const float x = uni(0, 500), y = uni(0, 500), w = uni(4, 150), h = uni(4, 150);
      img.dets.push_back({x, y, x + w, y + h, u01(rng) * 0.8f, randInt(0, nc - 1)});
    }
    images.push_back(std::move(img));
  }
  return images;
}

// Ultralytics' validator (8.4) written the slow obvious way: per image, every detection in
// descending confidence claims per IoU threshold the unclaimed ground truth of its class with
// the highest IoU (float32, the union + 1e-7; the first on equal IoU) if that IoU reaches the
// threshold. Per class with ground truth, all detections ranked by confidence give the points
// (recall, precision), framed by (0, 1) before and (last recall, 0), (1, 0) after; each point
// takes the best precision of the points from it on, the polyline through them is read at
// x = 0, .01, ..., 1 (searching every point) and integrated with trapezoids. A class without
// detections scores 0.
RefResult referenceUltralytics(std::vector<RefImage> images, int nc) {
  std::sort(images.begin(), images.end(),
            [](const RefImage& a, const RefImage& b) { return a.id < b.id; });
  const auto& thresholds = cocoIouThresholds();
  const size_t T = thresholds.size();
  struct Ranked {
    double score;
    int cls;
    std::vector<bool> tp;
  };
  std::vector<Ranked> all;
  std::vector<int> nGt(nc, 0);
  for (const auto& img : images) {
    for (const auto& g : img.gts) ++nGt[g.cls];
    std::vector<Detection> dets = img.dets;
    std::stable_sort(dets.begin(), dets.end(),
                     [](const Detection& a, const Detection& b) { return a.score > b.score; });
    std::vector<std::vector<bool>> claimed(T, std::vector<bool>(img.gts.size(), false));
    for (const auto& d : dets) {
      Ranked r{d.score, d.cls, std::vector<bool>(T, false)};
      for (size_t t = 0; t < T; ++t) {
        float best = -1;
        int bestG = -1;
        for (size_t g = 0; g < img.gts.size(); ++g) {
          const auto& gt = img.gts[g];
          if (gt.cls != d.cls || claimed[t][g]) continue;
          const float iw = std::max(0.f, std::min(gt.x2, d.x2) - std::max(gt.x1, d.x1));
          const float ih = std::max(0.f, std::min(gt.y2, d.y2) - std::max(gt.y1, d.y1));
          const float inter = iw * ih;
          const float iou = inter / ((gt.x2 - gt.x1) * (gt.y2 - gt.y1) +
                                     (d.x2 - d.x1) * (d.y2 - d.y1) - inter + 1e-7f);
          if (iou > best) {
            best = iou;
            bestG = int(g);
          }
        }
        if (bestG >= 0 && best >= float(thresholds[t])) {
          r.tp[t] = true;
          claimed[t][size_t(bestG)] = true;
        }
      }
      all.push_back(r);
    }
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const Ranked& a, const Ranked& b) { return a.score > b.score; });
  RefResult out;
  int counted = 0;
  for (int c = 0; c < nc; ++c) {
    if (nGt[c] == 0) {
      out.ap50.push_back(-1);
      out.ap5095.push_back(-1);
      continue;
    }
    ++counted;
    double apSum = 0, ap50 = 0;
    for (size_t t = 0; t < T; ++t) {
      // The curve's points: (0, 1), one per detection, (last recall, 0), (1, 0).
      std::vector<std::pair<double, double>> pts{{0.0, 1.0}};
      int tp = 0, n = 0;
      for (const auto& r : all) {
        if (r.cls != c) continue;
        ++n;
        tp += r.tp[t];
        pts.push_back({tp / (nGt[c] + 1e-16), double(tp) / n});
      }
      if (n == 0) continue;  // AP 0
      pts.push_back({pts.back().first, 0.0});
      pts.push_back({1.0, 0.0});
      for (size_t k = 0; k < pts.size(); ++k)  // the envelope: best precision from here on
        for (size_t l = k; l < pts.size(); ++l)
          pts[k].second = std::max(pts[k].second, pts[l].second);
      std::vector<double> y;
      for (double x : cocoRecallThresholds()) {
        size_t j = 0;  // the last point at or before x
        for (size_t k = 0; k < pts.size(); ++k)
          if (pts[k].first <= x) j = k;
        if (pts[j].first == x || j + 1 == pts.size()) {
          y.push_back(pts[j].second);
        } else {
          const double f = (x - pts[j].first) / (pts[j + 1].first - pts[j].first);
          y.push_back(pts[j].second + f * (pts[j + 1].second - pts[j].second));
        }
      }
      double ap = 0;
      for (size_t i = 0; i + 1 < y.size(); ++i) ap += 0.01 * (y[i] + y[i + 1]) / 2;
      apSum += ap;
      if (t == 0) ap50 = ap;
    }
    out.ap50.push_back(ap50);
    out.ap5095.push_back(apSum / T);
    out.map50 += ap50;
    out.map5095 += apSum / T;
  }
  if (counted) {
    out.map50 /= counted;
    out.map5095 /= counted;
  }
  return out;
}

DetectionMetrics evaluate(const std::vector<RefImage>& images, int nc, int maxDet,
                          ApRule rule = ApRule::Coco) {
  DetectionEvaluator ev(nc, maxDet);
  for (const auto& img : images) ev.add(img.id, img.dets, img.gts);
  return ev.compute(0, rule);
}

}  // namespace

class TestMetrics : public QObject {
  Q_OBJECT

 private slots:
  // Issue 29's validation views: Ultralytics' confusion matrix on a hand-made case (two classes,
  // known matches): a right class, a wrong class, a missed truth, a spurious detection, one
  // below conf, and two detections on one truth (the better IoU wins, the other is background).
  void confusionMatrixHandMade() {
    ConfusionMatrix m(2, 0.25, 0.45, 2);
    m.add(7,
          {{0, 0, 10, 10, 0.9f, 0},      // on truth 0 (class 0): correct
           {20, 0, 30, 10, 0.8f, 0},     // on truth 1 (class 1): wrong class
           {0, 0, 10, 9, 0.7f, 1},       // on truth 0 again, lower IoU: unmatched -> background
           {50, 50, 60, 60, 0.6f, 1},    // nothing there: background
           {40, 0, 50, 10, 0.2f, 0}},    // below conf: ignored
          {{0, 0, 10, 10, 0}, {20, 0, 30, 10, 1}, {40, 0, 50, 10, 1}});  // the last is missed
    QCOMPARE(m.count(0, 0), int64_t(1));
    QCOMPARE(m.count(0, 1), int64_t(1));
    QCOMPARE(m.count(2, 1), int64_t(1));  // missed truth: background row
    QCOMPARE(m.count(1, 2), int64_t(2));  // two spurious class-1 detections
    QCOMPARE(m.count(2, 0), int64_t(0));
    int64_t total = 0;
    for (int p = 0; p <= 2; ++p)
      for (int t = 0; t <= 2; ++t) total += m.count(p, t);
    QCOMPARE(total, int64_t(5));
    QCOMPARE(m.images(0, 0), std::vector<int64_t>{7});
    m.add(8, {}, {{0, 0, 5, 5, 0}});
    m.add(9, {}, {{0, 0, 5, 5, 0}});
    QCOMPARE(m.count(2, 0), int64_t(2));
    m.add(10, {}, {{0, 0, 5, 5, 0}});
    QCOMPARE(m.images(2, 0), (std::vector<int64_t>{8, 9}));  // kept up to 2 images
  }

  // The curves: F1 peaks where P and R balance; PR precision at recall 0 is the best precision.
  void curvesOfAPerfectDetector() {
    DetectionEvaluator e(1);
    e.add(0, {{0, 0, 10, 10, 0.9f, 0}}, {{0, 0, 10, 10, 0}});
    e.add(1, {{0, 0, 10, 10, 0.8f, 0}}, {{0, 0, 10, 10, 0}});
    const auto m = e.compute(101);
    QCOMPARE(int(m.curves.conf.size()), 101);
    QCOMPARE(int(m.curves.classes.size()), 1);
    const auto& c = m.curves.classes[0];
    QVERIFY(c.bestF1 > 0.99);
    QVERIFY(c.bestF1Conf <= 0.8 + 1e-9);
    QCOMPARE(int(c.prPrecision.size()), 101);
    QVERIFY(std::abs(c.prPrecision[100] - 1.0) < 1e-12);
    QVERIFY(e.compute().curves.classes.empty());  // only when asked
  }

  void thresholdsAsNumpy() {
    // numpy.linspace(.5, .95, 10) and numpy.linspace(0, 1, 101), printed with repr().
    const auto& t = cocoIouThresholds();
    QCOMPARE(int(t.size()), 10);
    QCOMPARE(t[0], 0.5);
    QCOMPARE(t[7], 0.8500000000000001);
    QCOMPARE(t[9], 0.95);
    const auto& r = cocoRecallThresholds();
    QCOMPARE(int(r.size()), 101);
    QCOMPARE(r[50], 0.5);
    QCOMPARE(r[100], 1.0);
    QCOMPARE(r[7], 0.07);
  }

  void iouAsCoco() {
    // [0,0,10,10] vs [5,0,15,10]: overlap 5 x 10 = 50, union 100 + 100 - 50 = 150.
    QCOMPARE(cocoIou(0, 0, 10, 10, 5, 0, 15, 10), 50.0 / 150.0);
    // Touching edges do not overlap (no +1 on widths).
    QCOMPARE(cocoIou(0, 0, 10, 10, 10, 0, 20, 10), 0.0);
    QCOMPARE(cocoIou(0, 0, 10, 10, 0, 0, 10, 10), 1.0);
  }

  void handWorked() {
    // One image, one class, one ground truth [0,0,10,10], one exact detection: AP = 1.
    {
      DetectionEvaluator ev(1);
      ev.add(0, {{0, 0, 10, 10, 0.9f, 0}}, {{0, 0, 10, 10, 0}});
      const auto m = ev.compute();
      QCOMPARE(m.map50, 1.0);
      QCOMPARE(m.map5095, 1.0);
      QCOMPARE(m.precision, 1.0);
      QCOMPARE(m.recall, 1.0);
      QCOMPARE(m.images, int64_t(1));
      QCOMPARE(m.instances, int64_t(1));
    }
    // Detection [0,0,10,5]: IoU = 50 / (50 + 100 - 50) = 0.5 exactly. COCOeval matches at
    // IoU >= threshold, so it counts at .50 and at no other threshold:
    // AP50 = 1, AP at .55..95 = 0, AP50-95 = 1/10.
    {
      DetectionEvaluator ev(1);
      ev.add(0, {{0, 0, 10, 5, 0.9f, 0}}, {{0, 0, 10, 10, 0}});
      const auto m = ev.compute();
      QCOMPARE(m.map50, 1.0);
      QCOMPARE(m.map75, 0.0);
      QVERIFY(qAbs(m.map5095 - 0.1) < 1e-12);
    }
    // Two ground truths, detections by score: TP (.9), FP (.8), TP (.7).
    // precision 1, 1/2, 2/3 at recall .5, .5, 1; made monotone: 1, 2/3, 2/3.
    // Recall thresholds 0 .. .50 (51 points) reach rank 1 -> 1; .51 .. 1 (50 points) need rank 3
    // -> 2/3. AP = (51 + 50 * 2/3) / 101 = 0.834983..., the same at every IoU (boxes exact).
    // Ultralytics' P/R: at confidence <= .7 recall 1, precision 2/3, F1 .8, the peak of the mean
    // F1 curve (also after smoothing): P = 2/3, R = 1.
    {
      DetectionEvaluator ev(1);
      ev.add(0, {{0, 0, 10, 10, 0.9f, 0}, {50, 50, 60, 60, 0.8f, 0}, {20, 20, 30, 30, 0.7f, 0}},
             {{0, 0, 10, 10, 0}, {20, 20, 30, 30, 0}});
      const auto m = ev.compute();
      const double ap = (51 + 50 * 2.0 / 3.0) / 101;
      QVERIFY(qAbs(m.map50 - ap) < 1e-12);
      QVERIFY(qAbs(m.map5095 - ap) < 1e-12);
      QVERIFY(qAbs(m.precision - 2.0 / 3.0) < 1e-9);
      QVERIFY(qAbs(m.recall - 1.0) < 1e-9);
      QVERIFY(m.operatingConf <= 0.7);
    }
    // Greedy by score, not the best assignment. GT1 [0,0,10,10], GT2 [5,0,15,10].
    // d1 (.9) [3,0,13,10]: IoU with GT1 70/130 = .538, with GT2 80/120 = .667 -> takes GT2.
    // d2 (.8) [5,0,15,10]: IoU with GT2 1 (taken), with GT1 50/150 = .333 -> FP.
    // IoU .50-.65 (4 thresholds): TP, FP; recall .5 at best; AP = 51 / 101.
    // IoU .70-.95 (6 thresholds): d1 matches nothing, d2 takes GT2: FP, TP; precision .5 at
    // recall .5 -> AP = 51 * .5 / 101.  AP50-95 = (4 * 51 + 6 * 25.5) / 1010 = 357 / 1010.
    {
      DetectionEvaluator ev(1);
      ev.add(0, {{3, 0, 13, 10, 0.9f, 0}, {5, 0, 15, 10, 0.8f, 0}},
             {{0, 0, 10, 10, 0}, {5, 0, 15, 10, 0}});
      const auto m = ev.compute();
      QVERIFY(qAbs(m.map50 - 51.0 / 101) < 1e-12);
      QVERIFY(qAbs(m.map75 - 25.5 / 101) < 1e-12);
      QVERIFY(qAbs(m.map5095 - 357.0 / 1010) < 1e-12);
    }
  }

  void classesWithoutGroundTruthAreLeftOut() {
    // Class 0 perfect, class 1 only a false positive and no ground truth, class 2 ground truth
    // but no detection. Class 1 is excluded (-1), class 2 counts with AP 0: mAP = (1 + 0) / 2.
    DetectionEvaluator ev(3);
    ev.add(0, {{0, 0, 10, 10, 0.9f, 0}, {40, 40, 50, 50, 0.95f, 1}},
           {{0, 0, 10, 10, 0}, {60, 60, 70, 70, 2}});
    const auto m = ev.compute();
    QCOMPARE(m.classesWithGt, 2);
    QCOMPARE(m.perClass[0].ap50, 1.0);
    QCOMPARE(m.perClass[1].ap50, -1.0);
    QCOMPARE(m.perClass[1].ap5095, -1.0);
    QCOMPARE(m.perClass[2].ap50, 0.0);
    QCOMPARE(m.perClass[2].instances, int64_t(1));
    QCOMPARE(m.perClass[2].images, int64_t(1));
    QCOMPARE(m.map50, 0.5);
    QCOMPARE(m.map5095, 0.5);
    QCOMPARE(m.perClass[2].recall, 0.0);
    // An evaluator without any ground truth reports zeros, not NaN.
    DetectionEvaluator empty(2);
    empty.add(0, {{0, 0, 10, 10, 0.5f, 0}}, {});
    const auto e = empty.compute();
    QCOMPARE(e.map50, 0.0);
    QCOMPARE(e.precision, 0.0);
    QCOMPARE(e.classesWithGt, 0);
  }

  void maxDetCapsPerImageAndClass() {
    // One ground truth; a far-off false positive scored above the true positive.
    // maxDet 1 keeps only the FP: AP 0. maxDet 2: FP then TP, precision .5 at recall 1, and
    // every recall threshold reads .5: AP = .5.
    const std::vector<Detection> dets{{100, 100, 110, 110, 0.9f, 0}, {0, 0, 10, 10, 0.8f, 0}};
    const std::vector<GroundTruth> gts{{0, 0, 10, 10, 0}};
    DetectionEvaluator one(1, 1), two(1, 2);
    one.add(0, dets, gts);
    two.add(0, dets, gts);
    QCOMPARE(one.compute().map50, 0.0);
    QVERIFY(qAbs(two.compute().map50 - 0.5) < 1e-12);
    // The cap counts per class (as COCOeval with categories): a detection of another class
    // does not push the true positive out.
    DetectionEvaluator other(2, 1);
    other.add(0, {{100, 100, 110, 110, 0.9f, 1}, {0, 0, 10, 10, 0.8f, 0}}, gts);
    QCOMPARE(other.compute().map50, 1.0);
  }

  void outOfRangeClassesIgnored() {
    DetectionEvaluator ev(1);
    ev.add(0, {{0, 0, 10, 10, 0.9f, 0}, {0, 0, 10, 10, 0.99f, 5}}, {{0, 0, 10, 10, -1}});
    QCOMPARE(ev.ignoredBoxes(), int64_t(2));
  }

  void matchesReference_data() {
    QTest::addColumn<uint>("seed");
    QTest::addColumn<int>("nc");
    QTest::addColumn<int>("images");
    QTest::addColumn<int>("maxDet");
    QTest::newRow("3 classes, 40 images") << 1u << 3 << 40 << 100;
    QTest::newRow("1 class (+1 without gt)") << 2u << 2 << 25 << 100;
    QTest::newRow("5 classes, cap 3") << 3u << 5 << 60 << 3;
    QTest::newRow("4 classes, cap 1") << 4u << 4 << 30 << 1;
    QTest::newRow("8 classes, 120 images") << 5u << 8 << 120 << 100;
    QTest::newRow("2 classes, few images") << 6u << 2 << 3 << 100;
  }

  void matchesReference() {
    QFETCH(uint, seed);
    QFETCH(int, nc);
    QFETCH(int, images);
    QFETCH(int, maxDet);
    const auto imgs = randomImages(seed, nc, images);
    const DetectionMetrics m = evaluate(imgs, nc, maxDet);
    const RefResult ref = referenceCoco(imgs, nc, maxDet);
    QVERIFY(m.map50 > 0.05 && m.map50 < 0.999);  // a case worth comparing
    QVERIFY2(qAbs(m.map50 - ref.map50) < 1e-9,
             qPrintable(QString("%1 vs %2").arg(m.map50).arg(ref.map50)));
    QVERIFY2(qAbs(m.map5095 - ref.map5095) < 1e-9,
             qPrintable(QString("%1 vs %2").arg(m.map5095).arg(ref.map5095)));
    for (int c = 0; c < nc; ++c) {
      QVERIFY(qAbs(m.perClass[c].ap50 - ref.ap50[c]) < 1e-9);
      QVERIFY(qAbs(m.perClass[c].ap5095 - ref.ap5095[c]) < 1e-9);
    }
    QCOMPARE(m.perClass[nc - 1].ap50, -1.0);  // the generator gives the last class no gt
    QVERIFY(m.precision > 0 && m.precision <= 1);
    QVERIFY(m.recall > 0 && m.recall <= 1);
  }

  // Ultralytics' rule on a hand-made case, the expected numbers computed once with Ultralytics
  // 8.4.190's own code (tests venv: BaseValidator.match_predictions with iouv =
  // torch.linspace(.5, .95, 10) on box_iou(gt, det) per image, detections in descending
  // confidence as NMS leaves them; then ap_per_class over the concatenation; printed with repr).
  // Four classes: 0 and 1 with ground truth and detections, 2 ground truth only (AP 0, counted),
  // 3 detections only (left out). Image 0 holds a tie in IoU: d1 [0,.5,10,10.5] overlaps A
  // [0,0,10,10] and B [0,1,10,11] equally (95 / 105); Ultralytics gives it the first (A), so d2
  // (= B) then matches B at every threshold; COCOeval gives d1 the later one (B) and d2 reaches A
  // only at IoU 90 / 110. Image 2 has no ground truth and a detection tied in confidence with
  // image 1's (.75, both class 0: ranked in image order by both rules). Image 3: IoU exactly .5.
  void ultralyticsRuleMatchesUltralytics() {
    const std::vector<RefImage> images{
        {0,
         {{0, 0.5f, 10, 10.5f, 0.9f, 0},
          {0, 1, 10, 11, 0.8f, 0},
          {52, 50, 72, 70, 0.7f, 1},
          {50, 50, 70, 70, 0.6f, 1},
          {200, 200, 210, 210, 0.95f, 3},
          {30, 30, 40, 40, 0.85f, 0}},
         {{0, 0, 10, 10, 0}, {0, 1, 10, 11, 0}, {50, 50, 70, 70, 1}, {100, 100, 120, 120, 2}}},
        {1,
         {{1, 1, 21, 21, 0.75f, 0},
          {30, 0, 50, 20, 0.3f, 1},
          {60, 60, 70, 70, 0.5f, 0},
          {0, 0, 20, 20, 0.65f, 1},
          {0, 0, 20, 20, 0.4f, 3}},
         {{0, 0, 20, 20, 0}, {30, 0, 50, 20, 1}}},
        {2, {{5, 5, 15, 15, 0.55f, 0}, {10, 10, 30, 30, 0.8f, 1}, {0, 0, 10, 10, 0.75f, 0}}, {}},
        {3, {{0, 0, 10, 10, 0.6f, 0}}, {{0, 0, 10, 5, 0}}},
    };
    const DetectionMetrics m = evaluate(images, 4, 100, ApRule::Ultralytics);
    QCOMPARE(m.rule, ApRule::Ultralytics);
    QCOMPARE(m.classesWithGt, 3);
    QVERIFY(qAbs(m.perClass[0].ap50 - 0.7866666666666666) < 1e-12);
    QVERIFY(qAbs(m.perClass[1].ap50 - 0.4475) < 1e-12);
    QCOMPARE(m.perClass[2].ap50, 0.0);
    QCOMPARE(m.perClass[3].ap50, -1.0);
    QVERIFY(qAbs(m.perClass[0].ap5095 - 0.5411666666666667) < 1e-12);
    QVERIFY(qAbs(m.perClass[1].ap5095 - 0.43265000000000003) < 1e-12);
    QVERIFY(qAbs(m.map50 - 0.41138888888888886) < 1e-12);
    QVERIFY(qAbs(m.map5095 - 0.32460555555555554) < 1e-12);
    // P and R at the mean-F1 peak, from the rule's own true positives: (.5, 1), (.4, 1), (0, 0).
    QVERIFY(qAbs(m.perClass[0].precision - 0.5) < 1e-9);
    QVERIFY(qAbs(m.perClass[1].precision - 0.4) < 1e-9);
    QVERIFY(qAbs(m.precision - 0.3) < 1e-9);
    QVERIFY(qAbs(m.recall - 2.0 / 3.0) < 1e-9);
    // The slow reference agrees. COCOeval's rule reads class 1 (no ties) higher, but class 0
    // lower: the tie sends d1 to B, and d2 then misses at IoU .85 and .9.
    const RefResult ref = referenceUltralytics(images, 4);
    QVERIFY(qAbs(m.map5095 - ref.map5095) < 1e-12);
    const DetectionMetrics coco = evaluate(images, 4, 100, ApRule::Coco);
    QVERIFY(qAbs(coco.map5095 - referenceCoco(images, 4, 100).map5095) < 1e-12);
    QVERIFY(coco.perClass[1].ap5095 > m.perClass[1].ap5095);
    QVERIFY(coco.perClass[0].ap5095 < m.perClass[0].ap5095);
  }

  // The two rules by hand, one class, two ground truths; detections TP (.9), FP (.8), TP (.7):
  // recall .5, .5, 1; precision 1, 1/2, 2/3. COCOeval: (51 + 50 * 2/3) / 101 = .834983.
  // Ultralytics: the envelope over recall 0, .5, .5, 1, 1, 1 is 1, 1, 2/3, 2/3, 0, 0; read at
  // x = 0 .. .49 -> 1, .5 .. .99 -> 2/3 (x = .5 takes the last point at .5), 1 -> 0 (the
  // sentinel after the last recall); trapezoids of width .01: 49 * 1 + (1 + 2/3) / 2 +
  // 49 * 2/3 + (2/3 + 0) / 2, times .01 = .828333.
  void rulesByHand() {
    DetectionEvaluator ev(1);
    ev.add(0, {{0, 0, 10, 10, 0.9f, 0}, {50, 50, 60, 60, 0.8f, 0}, {20, 20, 30, 30, 0.7f, 0}},
           {{0, 0, 10, 10, 0}, {20, 20, 30, 30, 0}});
    const double coco = (51 + 50 * 2.0 / 3.0) / 101;
    const double ultralytics = 0.01 * (49 + (1 + 2.0 / 3.0) / 2 + 49 * 2.0 / 3.0 + (2.0 / 3.0) / 2);
    QVERIFY(qAbs(ev.compute(0, ApRule::Coco).map50 - coco) < 1e-12);
    QVERIFY(qAbs(ev.compute(0, ApRule::Ultralytics).map50 - ultralytics) < 1e-12);
    QVERIFY(qAbs(ev.compute(0, ApRule::Ultralytics).map5095 - ultralytics) < 1e-12);
    // A class with ground truth but no detection is 0 under both (not the .5 that the
    // envelope of an empty curve would integrate to).
    DetectionEvaluator none(1);
    none.add(0, {}, {{0, 0, 10, 10, 0}});
    QCOMPARE(none.compute(0, ApRule::Ultralytics).map50, 0.0);
    QCOMPARE(none.compute(0, ApRule::Ultralytics).classesWithGt, 1);
    // Ultralytics caps nothing per class (NMS caps per image): maxDet 1 leaves the TP in.
    DetectionEvaluator capped(1, 1);
    capped.add(0, {{100, 100, 110, 110, 0.9f, 0}, {0, 0, 10, 10, 0.8f, 0}}, {{0, 0, 10, 10, 0}});
    QCOMPARE(capped.compute(0, ApRule::Coco).map50, 0.0);
    QVERIFY(qAbs(capped.compute(0, ApRule::Ultralytics).map50 - 0.5 * 0.99 - 0.0025) < 1e-12);
  }

  void ruleNames() {
    QCOMPARE(QString(apRuleName(ApRule::Coco)), QString("coco"));
    QCOMPARE(QString(apRuleName(ApRule::Ultralytics)), QString("ultralytics"));
    QCOMPARE(parseApRule("ultralytics"), std::optional<ApRule>(ApRule::Ultralytics));
    QCOMPARE(parseApRule("coco"), std::optional<ApRule>(ApRule::Coco));
    QVERIFY(!parseApRule("COCO").has_value());
  }

  void ultralyticsMatchesReference_data() {
    QTest::addColumn<uint>("seed");
    QTest::addColumn<int>("nc");
    QTest::addColumn<int>("images");
    QTest::newRow("3 classes, 40 images") << 1u << 3 << 40;
    QTest::newRow("1 class (+1 without gt)") << 2u << 2 << 25;
    QTest::newRow("8 classes, 120 images") << 5u << 8 << 120;
    QTest::newRow("2 classes, few images") << 6u << 2 << 3;
  }

  void ultralyticsMatchesReference() {
    QFETCH(uint, seed);
    QFETCH(int, nc);
    QFETCH(int, images);
    const auto imgs = randomImages(seed, nc, images);
    const DetectionMetrics m = evaluate(imgs, nc, 100, ApRule::Ultralytics);
    const RefResult ref = referenceUltralytics(imgs, nc);
    QVERIFY(m.map50 > 0.05 && m.map50 < 0.999);
    QVERIFY2(qAbs(m.map50 - ref.map50) < 1e-9,
             qPrintable(QString("%1 vs %2").arg(m.map50).arg(ref.map50)));
    QVERIFY2(qAbs(m.map5095 - ref.map5095) < 1e-9,
             qPrintable(QString("%1 vs %2").arg(m.map5095).arg(ref.map5095)));
    for (int c = 0; c < nc; ++c) {
      QVERIFY(qAbs(m.perClass[c].ap50 - ref.ap50[c]) < 1e-9);
      QVERIFY(qAbs(m.perClass[c].ap5095 - ref.ap5095[c]) < 1e-9);
    }
    // On the same detections COCOeval's rule reads mAP50-95 higher (its step precision holds
    // to the last recall; Ultralytics' trapezoids slope down to 0 after it).
    QVERIFY(evaluate(imgs, nc, 100, ApRule::Coco).map5095 > m.map5095);
  }

  void mergeAndPack() {
    const auto imgs = randomImages(11, 3, 30);
    DetectionEvaluator all(3), a(3), b(3);
    for (size_t i = 0; i < imgs.size(); ++i) {
      all.add(imgs[i].id, imgs[i].dets, imgs[i].gts);
      (i % 2 ? a : b).add(imgs[i].id, imgs[i].dets, imgs[i].gts);
    }
    DetectionEvaluator merged(3);
    merged.merge(a);
    merged.merge(b);
    DetectionEvaluator unpacked(3);
    QVERIFY(unpacked.addPacked(a.pack()));
    QVERIFY(unpacked.addPacked(b.pack()));
    const auto ref = all.compute();
    for (const auto* ev : {&merged, &unpacked}) {
      const auto m = ev->compute();
      QCOMPARE(m.map50, ref.map50);
      QCOMPARE(m.map5095, ref.map5095);
      QCOMPARE(m.precision, ref.precision);
      QCOMPARE(m.images, ref.images);
    }
    // Malformed buffers are refused and add nothing.
    std::vector<float> bad = a.pack();
    bad.pop_back();
    DetectionEvaluator refused(3);
    QVERIFY(!refused.addPacked(bad));
    QVERIFY(!refused.addPacked({1.0f, -2.0f, 0.0f}));
    QCOMPARE(refused.imageCount(), int64_t(0));
  }
};

QTEST_GUILESS_MAIN(TestMetrics)
#include "tst_metrics.moc"
