// Box overlap, task-aligned assigner and detection loss: hand-worked values, a slow reference
// assigner, and a tiny overfit run.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "core/train/assigner.h"
#include "core/train/loss.h"

using namespace stave::train;

namespace {

// ---- slow, obvious reference of the task-aligned assigner (double precision, plain loops) ----
struct Box {
  double x1, y1, x2, y2;
};

double refCiou(const Box& a, const Box& b) {
  const double eps = 1e-7;
  const double w1 = a.x2 - a.x1, h1 = a.y2 - a.y1 + eps, w2 = b.x2 - b.x1, h2 = b.y2 - b.y1 + eps;
  const double iw = std::max(0.0, std::min(a.x2, b.x2) - std::max(a.x1, b.x1));
  const double ih = std::max(0.0, std::min(a.y2, b.y2) - std::max(a.y1, b.y1));
  const double inter = iw * ih;
  const double iou = inter / (w1 * h1 + w2 * h2 - inter + eps);
  const double cw = std::max(a.x2, b.x2) - std::min(a.x1, b.x1),
               ch = std::max(a.y2, b.y2) - std::min(a.y1, b.y1);
  const double c2 = cw * cw + ch * ch + eps;
  const double dx = b.x1 + b.x2 - a.x1 - a.x2, dy = b.y1 + b.y2 - a.y1 - a.y2;
  const double rho2 = (dx * dx + dy * dy) / 4;
  const double d = std::atan(w2 / h2) - std::atan(w1 / h1);
  const double v = 4 / (M_PI * M_PI) * d * d;
  const double alpha = v / (v - iou + 1 + eps);
  return iou - (rho2 / c2 + v * alpha);
}

struct RefResult {
  std::vector<std::vector<std::vector<double>>> scores;  // [b][a][c]
  std::vector<std::vector<int>> fg, gtIdx;               // [b][a]
  std::vector<std::vector<double>> maxMetric;            // [b][a] best metric over boxes
};

// pd: [b][a] boxes and [b][a][c] scores; gts per image (variable count); anchors (x, y).
RefResult refAssign(const std::vector<std::vector<Box>>& pd,
                    const std::vector<std::vector<std::vector<double>>>& sc,
                    const std::vector<std::pair<double, double>>& anc,
                    const std::vector<std::vector<Box>>& gts,
                    const std::vector<std::vector<int>>& labels, int maxBoxes, int topk, int nc) {
  const int bs = int(pd.size()), na = int(anc.size());
  RefResult r;
  r.scores.assign(bs, std::vector<std::vector<double>>(na, std::vector<double>(nc, 0.0)));
  r.fg.assign(bs, std::vector<int>(na, 0));
  r.gtIdx.assign(bs, std::vector<int>(na, 0));
  r.maxMetric.assign(bs, std::vector<double>(na, 0.0));
  for (int b = 0; b < bs; ++b) {
    const int ng = int(gts[b].size());
    // Padded boxes take part only through overlaps = 0 (as in the batched version).
    std::vector<std::vector<double>> metric(maxBoxes, std::vector<double>(na, 0.0)), ov = metric,
                                                                                     pos = metric;
    for (int m = 0; m < ng; ++m) {
      const Box& g = gts[b][m];
      std::vector<int> inside(na, 0);
      for (int a = 0; a < na; ++a) {
        const double ax = anc[a].first, ay = anc[a].second;
        inside[a] = std::min({ax - g.x1, ay - g.y1, g.x2 - ax, g.y2 - ay}) > 1e-9;
        if (inside[a]) {
          ov[m][a] = std::max(0.0, refCiou(g, pd[b][a]));
          metric[m][a] = std::pow(sc[b][a][labels[b][m]], 0.5) * std::pow(ov[m][a], 6.0);
        }
      }
      std::vector<int> order(na);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](int i, int j) { return metric[m][i] > metric[m][j]; });
      for (int k = 0; k < std::min(topk, na); ++k)
        if (inside[order[k]]) pos[m][order[k]] = 1;
    }
    for (int a = 0; a < na; ++a) {
      int count = 0;
      for (int m = 0; m < maxBoxes; ++m) count += pos[m][a] > 0;
      if (count > 1) {
        int best = 0;
        for (int m = 1; m < maxBoxes; ++m)
          if (ov[m][a] > ov[best][a]) best = m;
        for (int m = 0; m < maxBoxes; ++m) pos[m][a] = m == best;
      }
    }
    std::vector<double> posAlign(maxBoxes, 0), posOv(maxBoxes, 0);
    for (int m = 0; m < maxBoxes; ++m)
      for (int a = 0; a < na; ++a) {
        posAlign[m] = std::max(posAlign[m], metric[m][a] * pos[m][a]);
        posOv[m] = std::max(posOv[m], ov[m][a] * pos[m][a]);
      }
    for (int a = 0; a < na; ++a) {
      double norm = 0;
      int idx = -1;
      for (int m = 0; m < maxBoxes; ++m) {
        r.maxMetric[b][a] = std::max(r.maxMetric[b][a], metric[m][a]);
        if (pos[m][a] > 0) {
          if (idx < 0) idx = m;
          norm = std::max(norm, metric[m][a] * posOv[m] / (posAlign[m] + 1e-9));
        }
      }
      if (idx >= 0) {
        r.fg[b][a] = 1;
        r.gtIdx[b][a] = idx;
        r.scores[b][a][labels[b][idx]] = norm;
      }
    }
  }
  return r;
}

torch::Tensor boxesTensor(const std::vector<Box>& boxes) {
  std::vector<float> v;
  for (const auto& b : boxes)
    v.insert(v.end(), {float(b.x1), float(b.y1), float(b.x2), float(b.y2)});
  return torch::tensor(v).view({-1, 4});
}

}  // namespace

// Anchor centres of a 32x32 image at stride 8: (4 + 8 * column, 4 + 8 * row), row-major.
static torch::Tensor anchorGrid4x4() {
  auto anc = torch::zeros({16, 2});
  for (int i = 0; i < 16; ++i) {
    anc[i][0] = 4 + 8 * (i % 4);
    anc[i][1] = 4 + 8 * (i / 4);
  }
  return anc;
}

class TestLoss : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { torch::manual_seed(0); }

  void iou_data() {
    QTest::addColumn<QVector<double>>("a");
    QTest::addColumn<QVector<double>>("b");
    QTest::addColumn<double>("iou");
    QTest::addColumn<double>("ciou");
    // Unit overlap of two 2x2 squares: inter 1, union 4 + 4 - 1 = 7 -> IoU 1/7. Enclosing box 3x3:
    // c^2 = 9 + 9 = 18; centres (1,1) and (2,2): rho^2 = 1 + 1 = 2; same aspect -> v = 0.
    // CIoU = 1/7 - 2/18 = 2/63 = 0.031746.
    QTest::newRow("diagonal") << QVector<double>{0, 0, 2, 2} << QVector<double>{1, 1, 3, 3}
                              << 1.0 / 7 << 2.0 / 63;
    QTest::newRow("identical") << QVector<double>{0, 0, 4, 2} << QVector<double>{0, 0, 4, 2} << 1.0
                               << 1.0;
    // Disjoint unit squares 1 apart: IoU 0; enclosing 3x1: c^2 = 10; centres 2 apart: rho^2 = 4;
    // CIoU = 0 - 4/10 = -0.4.
    QTest::newRow("disjoint") << QVector<double>{0, 0, 1, 1} << QVector<double>{2, 0, 3, 1} << 0.0
                              << -0.4;
    // 2x2 inside 4x2: inter 4, union 4 + 8 - 4 = 8 -> IoU 0.5. Enclosing 4x2: c^2 = 16 + 4 = 20;
    // centres (1,1), (2,1): rho^2 = 1 -> 0.05. v = 4/pi^2 (atan 2 - atan 1)^2
    // = 0.4052847 * (1.1071487 - 0.7853982)^2 = 0.0419574; alpha = v / (v - 0.5 + 1) = 0.0774182;
    // CIoU = 0.5 - 0.05 - 0.0419574 * 0.0774182 = 0.4467518.
    QTest::newRow("aspect") << QVector<double>{0, 0, 2, 2} << QVector<double>{0, 0, 4, 2} << 0.5
                            << 0.4467518;
  }
  void iou() {
    QFETCH(QVector<double>, a);
    QFETCH(QVector<double>, b);
    QFETCH(double, iou);
    QFETCH(double, ciou);
    auto ta = torch::tensor(std::vector<double>(a.begin(), a.end()), torch::kFloat);
    auto tb = torch::tensor(std::vector<double>(b.begin(), b.end()), torch::kFloat);
    QVERIFY(std::abs(bboxIou(ta, tb, false).item<double>() - iou) < 1e-5);
    QVERIFY(std::abs(bboxIou(ta, tb, true).item<double>() - ciou) < 1e-5);
    QVERIFY(std::abs(bboxIou(tb, ta, true).item<double>() - ciou) < 1e-5);  // symmetric
    QVERIFY(std::abs(refCiou({a[0], a[1], a[2], a[3]}, {b[0], b[1], b[2], b[3]}) - ciou) < 1e-5);
    // Broadcasting: (2, 1, 4) x (1, 3, 4) -> (2, 3).
    auto grid =
        bboxIou(torch::stack({ta, ta}).unsqueeze(1), torch::stack({tb, tb, tb}).unsqueeze(0), true);
    QCOMPARE(grid.sizes().vec(), (std::vector<int64_t>{2, 3}));
  }

  void dfl_data() {
    QTest::addColumn<double>("target");
    QTest::addColumn<int>("peakBin");  // -1: p(2) = 0.7, p(3) = 0.3; -2: uniform; else one-hot
    QTest::addColumn<double>("expected");
    // Target 2.3 between bins 2 and 3 (weights 0.7, 0.3) against p(2)=0.7, p(3)=0.3:
    // 0.7 * -ln 0.7 + 0.3 * -ln 0.3 = 0.7 * 0.3566749 + 0.3 * 1.2039728 = 0.6108643 (the entropy:
    // the minimum).
    QTest::newRow("mixed") << 2.3 << -1 << 0.6108643;
    // Uniform over 16 bins: -ln(1/16) = 2.7725887 whatever the target.
    QTest::newRow("uniform") << 7.6 << -2 << 2.7725887;
    // Exactly on bin 4 with all mass there: 0.
    QTest::newRow("exact") << 4.0 << 4 << 0.0;
    // Target 2.3 but all mass on bin 3: 0.7 * -ln(~0) is large.
    QTest::newRow("wrong") << 2.3 << 3 << 0.7 * 30.0;
  }
  void dfl() {
    QFETCH(double, target);
    QFETCH(int, peakBin);
    QFETCH(double, expected);
    auto logits = torch::full({1, 4, 16}, -30.0f);
    if (peakBin == -1) {
      logits.select(2, 2).fill_(std::log(0.7));
      logits.select(2, 3).fill_(std::log(0.3));
    } else if (peakBin == -2) {
      logits.zero_();
    } else {
      logits.select(2, peakBin).fill_(0.0);
    }
    auto loss = distributionFocalLoss(logits, torch::full({1, 4}, float(target)));
    QCOMPARE(loss.sizes().vec(), (std::vector<int64_t>{1}));
    QVERIFY2(std::abs(loss.item<double>() - expected) < 1e-3 * std::max(1.0, expected),
             qPrintable(QString::number(loss.item<double>())));
    // The DFL integral of p(2)=0.7, p(3)=0.3 is 2.3 bins.
    if (peakBin == -1) {
      auto expect = (logits.softmax(-1) * torch::arange(16, torch::kFloat)).sum(-1);
      QVERIFY(torch::allclose(expect, torch::full({1, 4}, 2.3f), 1e-5, 1e-4));
    }
  }

  void targetsPerImage() {
    // Image 64 wide, 32 high. Rows: batchIdx, cls, cx, cy, w, h (normalised).
    auto t = torch::tensor({1.f, 2.f, .5f, .5f, .5f, .25f,   //
                            0.f, 0.f, .25f, .25f, .5f, .5f,  //
                            1.f, 1.f, .75f, .75f, .25f, .5f})
                 .view({3, 6});
    auto [gt, mask] = stave::train::targetsPerImage(t, 3, 64, 32);
    QCOMPARE(gt.sizes().vec(), (std::vector<int64_t>{3, 2, 5}));
    // img0 box: centre (16, 8) size 32x16 -> (0, 0, 32, 16)
    QVERIFY(torch::allclose(gt[0][0], torch::tensor({0.f, 0.f, 0.f, 32.f, 16.f})));
    // img1 first row (order kept): centre (32, 16), 32x8 -> (16, 12, 48, 20); second: centre (48,
    // 24), 16x16
    QVERIFY(torch::allclose(gt[1][0], torch::tensor({2.f, 16.f, 12.f, 48.f, 20.f})));
    QVERIFY(torch::allclose(gt[1][1], torch::tensor({1.f, 40.f, 16.f, 56.f, 32.f})));
    QCOMPARE(mask.squeeze(-1).to(torch::kInt).flatten().sizes().vec(), (std::vector<int64_t>{6}));
    QVERIFY(torch::equal(mask.squeeze(-1).to(torch::kInt),
                         torch::tensor({1, 0, 1, 1, 0, 0}).view({3, 2}).to(torch::kInt)));
  }

  // 4x4 anchors at stride 8 (centres 4, 12, 20, 28), one box (0, 0, 16, 16) of class 1 holding
  // anchors 0 (4,4), 1 (12,4), 4 (4,12), 5 (12,12). With top-k 2:
  //   anchor  predicted box   score  CIoU       metric = score^0.5 * CIoU^6
  //   0       (0,0,16,16)     0.9    1          0.948683
  //   1       (0,0,16,8)      0.5    0.4655019  0.007194714  (IoU .5, rho^2/c^2 = 16/512, v*alpha =
  //   0.0032482) 4       (0,0,8,8)       0.5    0.1875     3.07e-5      (IoU .25, rho^2/c^2 =
  //   32/512) 5       (8,8,16,16)     0.1    0.1875     1.37e-5
  // -> anchors 0 and 1. Target scores: metric * best CIoU / best metric: 1.0 and
  // 0.007194714 / 0.948683 = 0.0075839. Image 1 has only padding: nothing assigned.
  void assignerHandCase() {
    const int na = 16, nc = 2;
    auto anc = anchorGrid4x4();
    auto pdBoxes = torch::zeros({2, na, 4});
    pdBoxes.select(0, 0).copy_(torch::cat({anc - 4, anc + 4}, 1));  // 8x8 boxes around each anchor
    pdBoxes[0][0] = torch::tensor({0.f, 0.f, 16.f, 16.f});
    pdBoxes[0][1] = torch::tensor({0.f, 0.f, 16.f, 8.f});
    pdBoxes[0][4] = torch::tensor({0.f, 0.f, 8.f, 8.f});
    pdBoxes[0][5] = torch::tensor({8.f, 8.f, 16.f, 16.f});
    auto scores = torch::full({2, na, nc}, 0.2f);
    scores[0][0][1] = 0.9f;
    scores[0][1][1] = 0.5f;
    scores[0][4][1] = 0.5f;
    scores[0][5][1] = 0.1f;
    auto gtBoxes = torch::zeros({2, 1, 4});
    gtBoxes[0][0] = torch::tensor({0.f, 0.f, 16.f, 16.f});
    auto gtLabels = torch::tensor({1.f, 0.f}).view({2, 1, 1});
    auto maskGt = torch::tensor({1.f, 0.f}).view({2, 1, 1});
    TaskAlignedAssigner assigner(AssignerOptions{2, nc, 0.5, 6.0, 1e-9});
    auto r = assigner(scores, pdBoxes, anc, gtLabels, gtBoxes, maskGt);
    auto fgIdx = r.fgMask[0].nonzero().flatten();
    QCOMPARE(fgIdx.sizes().vec(), (std::vector<int64_t>{2}));
    QCOMPARE(fgIdx[0].item<int64_t>(), int64_t(0));
    QCOMPARE(fgIdx[1].item<int64_t>(), int64_t(1));
    QVERIFY(!r.fgMask[1].any().item<bool>());
    QVERIFY(std::abs(r.targetScores[0][0][1].item<double>() - 1.0) < 1e-5);
    QVERIFY(std::abs(r.targetScores[0][1][1].item<double>() - 0.0075839) < 1e-5);
    QVERIFY(std::abs(r.targetScores.sum().item<double>() - 1.0075839) <
            1e-5);  // nothing else scored
    QVERIFY(torch::allclose(r.targetBboxes[0][1], gtBoxes[0][0]));
    QCOMPARE(r.targetLabels[0][1].item<int64_t>(), int64_t(1));

    // Top-k 10: all four candidates inside the box, and no anchor outside it.
    TaskAlignedAssigner wide(AssignerOptions{10, nc, 0.5, 6.0, 1e-9});
    auto r10 = wide(scores, pdBoxes, anc, gtLabels, gtBoxes, maskGt);
    QVERIFY(
        torch::equal(r10.fgMask[0].nonzero().flatten(), torch::tensor({0, 1, 4, 5}, torch::kLong)));
  }

  // A 4x4 box between anchors (centres at 4 + 8k) holds no anchor centre, so without a floor it
  // gets no candidate at all and teaches nothing; with Ultralytics' floor (sides widened to 16
  // for the inside test only) the four anchors around it are candidates, and the targets keep
  // the real box.
  void assignerFloorsSmallBoxes() {
    const int na = 16, nc = 2;
    auto anc = anchorGrid4x4();
    // Every anchor predicts the box itself, so every candidate aligns (a zero metric would leave
    // the choice among candidates to topk's tie order).
    auto gtBoxes = torch::tensor({13.f, 13.f, 17.f, 17.f}).view({1, 1, 4});
    auto pdBoxes = gtBoxes.expand({1, na, 4}).clone();
    auto scores = torch::full({1, na, nc}, 0.5f);
    auto gtLabels = torch::tensor({1.f}).view({1, 1, 1});
    auto maskGt = torch::ones({1, 1, 1});
    QVERIFY(!candidatesInGts(anc, gtBoxes).any().item<bool>());
    auto plain = TaskAlignedAssigner(AssignerOptions{10, nc, 0.5, 6.0, 1e-9})(
        scores, pdBoxes, anc, gtLabels, gtBoxes, maskGt);
    QVERIFY(!plain.fgMask.any().item<bool>());
    AssignerOptions floored{10, nc, 0.5, 6.0, 1e-9};
    floored.minSide = 16;
    auto r = TaskAlignedAssigner(floored)(scores, pdBoxes, anc, gtLabels, gtBoxes, maskGt);
    // Anchors (12,12), (20,12), (12,20), (20,20): indices 5, 6, 9, 10.
    QVERIFY(torch::equal(r.fgMask[0].nonzero().flatten(), torch::tensor({5, 6, 9, 10}, torch::kLong)));
    QVERIFY(torch::allclose(r.targetBboxes[0][5], gtBoxes[0][0]));
    QCOMPARE(r.targetLabels[0][10].item<int64_t>(), int64_t(1));
    // A box already wider than the floor is tested as it is.
    auto big = torch::tensor({0.f, 0.f, 16.f, 16.f}).view({1, 1, 4});
    QVERIFY(torch::equal(candidatesInGts(anc, big, 1e-9, 16), candidatesInGts(anc, big)));
  }

  // Anchor 5 (12,12) lies in box A (0,0,16,16) and box B (8,8,24,24); its prediction (8,8,24,24)
  // overlaps B fully and A with IoU 64 / 448, so B (class 1, index 1) takes it.
  void assignerMultiBoxGoesToBestOverlap() {
    const int na = 16, nc = 2;
    auto anc = anchorGrid4x4();
    auto pdBoxes = torch::cat({anc - 4, anc + 4}, 1).unsqueeze(0).clone();
    pdBoxes[0][5] = torch::tensor({8.f, 8.f, 24.f, 24.f});
    auto scores = torch::full({1, na, nc}, 0.5f);
    auto gtBoxes = torch::tensor({0.f, 0.f, 16.f, 16.f, 8.f, 8.f, 24.f, 24.f}).view({1, 2, 4});
    auto gtLabels = torch::tensor({0.f, 1.f}).view({1, 2, 1});
    auto maskGt = torch::ones({1, 2, 1});
    auto r = TaskAlignedAssigner(AssignerOptions{10, nc, 0.5, 6.0, 1e-9})(
        scores, pdBoxes, anc, gtLabels, gtBoxes, maskGt);
    QVERIFY(r.fgMask[0][5].item<bool>());
    QCOMPARE(r.targetGtIdx[0][5].item<int64_t>(), int64_t(1));
    QCOMPARE(r.targetLabels[0][5].item<int64_t>(), int64_t(1));
    QVERIFY(torch::allclose(r.targetBboxes[0][5], gtBoxes[0][1]));
    QCOMPARE(r.targetScores[0][5][0].item<double>(), 0.0);
    QVERIFY(r.targetScores[0][5][1].item<double>() > 0.99);  // best anchor of B, CIoU 1
  }

  void assignerMatchesReference_data() {
    QTest::addColumn<int>("seed");
    QTest::addColumn<int>("topk");
    for (int s = 0; s < 6; ++s)
      QTest::newRow(qPrintable(QString("seed%1").arg(s))) << s << (s % 2 ? 10 : 4);
  }
  void assignerMatchesReference() {
    QFETCH(int, seed);
    QFETCH(int, topk);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    const int nc = 3, bs = 3;
    // Anchors of a 32x32 image: 8x8 at stride 4, 4x4 at 8, 2x2 at 16.
    std::vector<std::pair<double, double>> anc;
    for (int s : {4, 8, 16})
      for (int y = 0; y < 32 / s; ++y)
        for (int x = 0; x < 32 / s; ++x) anc.emplace_back((x + 0.5) * s, (y + 0.5) * s);
    const int na = int(anc.size());
    std::vector<std::vector<Box>> pd(bs), gts(bs);
    std::vector<std::vector<std::vector<double>>> sc(bs);
    std::vector<std::vector<int>> labels(bs);
    const int counts[3] = {1 + seed % 4, 0, 4};
    for (int b = 0; b < bs; ++b) {
      for (int a = 0; a < na; ++a) {
        const double w = 4 + 16 * u(rng), h = 4 + 16 * u(rng);
        const double cx = anc[a].first + 4 * (u(rng) - 0.5),
                     cy = anc[a].second + 4 * (u(rng) - 0.5);
        pd[b].push_back({cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2});
        sc[b].push_back({0.05 + 0.95 * u(rng), 0.05 + 0.95 * u(rng), 0.05 + 0.95 * u(rng)});
      }
      for (int m = 0; m < counts[b]; ++m) {
        const double x1 = 20 * u(rng), y1 = 20 * u(rng);
        gts[b].push_back({x1, y1, x1 + 4 + 12 * u(rng), y1 + 4 + 12 * u(rng)});
        labels[b].push_back(int(u(rng) * nc) % nc);
      }
    }
    const int maxBoxes = 4;
    auto tScores = torch::zeros({bs, na, nc}), tBoxes = torch::zeros({bs, na, 4});
    auto tGt = torch::zeros({bs, maxBoxes, 4}), tLab = torch::zeros({bs, maxBoxes, 1}),
         tMask = torch::zeros({bs, maxBoxes, 1});
    for (int b = 0; b < bs; ++b) {
      tBoxes[b].copy_(boxesTensor(pd[b]));
      for (int a = 0; a < na; ++a)
        for (int c = 0; c < nc; ++c) tScores[b][a][c] = sc[b][a][c];
      for (int m = 0; m < int(gts[b].size()); ++m) {
        tGt[b][m].copy_(boxesTensor({gts[b][m]})[0]);
        tLab[b][m][0] = labels[b][m];
        tMask[b][m][0] = 1;
      }
    }
    std::vector<float> ancFlat;
    for (auto& p : anc) ancFlat.insert(ancFlat.end(), {float(p.first), float(p.second)});
    auto tAnc = torch::tensor(ancFlat).view({na, 2});

    auto fast = TaskAlignedAssigner(AssignerOptions{topk, nc, 0.5, 6.0, 1e-9})(
        tScores, tBoxes, tAnc, tLab, tGt, tMask);
    auto ref = refAssign(pd, sc, anc, gts, labels, maxBoxes, topk, nc);
    int positives = 0;
    for (int b = 0; b < bs; ++b)
      for (int a = 0; a < na; ++a) {
        for (int c = 0; c < nc; ++c) {
          const double f = fast.targetScores[b][a][c].item<double>(), r = ref.scores[b][a][c];
          QVERIFY2(std::abs(f - r) < 1e-4 + 1e-3 * r,
                   qPrintable(
                       QString("b%1 a%2 c%3: fast %4 ref %5").arg(b).arg(a).arg(c).arg(f).arg(r)));
        }
        // Anchors whose metric is 0 for every box tie in top-k; which of them fill the k slots is
        // arbitrary and harmless (target score 0), so membership is compared where the metric is >
        // 0.
        if (ref.maxMetric[b][a] > 1e-12) {
          QCOMPARE(int(fast.fgMask[b][a].item<bool>()), ref.fg[b][a]);
          if (ref.fg[b][a]) {
            ++positives;
            QCOMPARE(int(fast.targetGtIdx[b][a].item<int64_t>()), ref.gtIdx[b][a]);
            QCOMPARE(int(fast.targetLabels[b][a].item<int64_t>()), labels[b][ref.gtIdx[b][a]]);
          }
        }
      }
    QVERIFY(positives >= 3);  // the case is not vacuous
    QVERIFY(!fast.fgMask[1].any().item<bool>());
  }

  // The whole loss against plain loops: decode, reference assignment, BCE, CIoU and DFL terms,
  // normalisation and weights, on random head outputs at imgsz 64 (levels 8x8, 4x4, 2x2).
  void lossMatchesReference_data() {
    QTest::addColumn<int>("seed");
    for (int s = 0; s < 3; ++s) QTest::newRow(qPrintable(QString("seed%1").arg(s))) << s;
  }
  void lossMatchesReference() {
    QFETCH(int, seed);
    torch::manual_seed(seed);
    const int nc = 2, bs = 2, regMax = 16, no = 4 * regMax + nc;
    stave::model::Yolo model(stave::model::ModelOptions{"n", nc, regMax});
    std::vector<torch::Tensor> feats{torch::randn({bs, no, 8, 8}) * 2,
                                     torch::randn({bs, no, 4, 4}) * 2,
                                     torch::randn({bs, no, 2, 2}) * 2};
    // Image 0: three boxes, image 1: one (normalised cx, cy, w, h).
    auto targets = torch::tensor({0.f, 1.f, .3f, .3f,  .4f, .4f,  //
                                  1.f, 0.f, .5f, .5f,  .6f, .7f,  //
                                  0.f, 0.f, .7f, .6f,  .3f, .5f,  //
                                  0.f, 1.f, .6f, .25f, .5f, .3f})
                       .view({4, 6});
    auto out = DetectionLoss(*model)(feats, targets, bs);

    std::vector<std::pair<double, double>> anc, ancGrid;
    std::vector<double> stride;
    std::vector<std::vector<std::vector<double>>> logits(bs);  // [b][a][no]
    const int strides[3] = {8, 16, 32};
    for (int l = 0; l < 3; ++l) {
      const int n = 64 / strides[l];
      for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
          ancGrid.emplace_back(x + 0.5, y + 0.5);
          anc.emplace_back((x + 0.5) * strides[l], (y + 0.5) * strides[l]);
          stride.push_back(strides[l]);
          for (int b = 0; b < bs; ++b) {
            std::vector<double> v(no);
            for (int c = 0; c < no; ++c) v[c] = feats[l][b][c][y][x].item<double>();
            logits[b].push_back(v);
          }
        }
    }
    const int na = int(anc.size());
    std::vector<std::vector<Box>> pdGrid(bs), pdPix(bs), gts(bs);
    std::vector<std::vector<std::vector<double>>> sc(bs), logp(bs);  // logp: [b][a][side*16+bin]
    std::vector<std::vector<int>> labels(bs);
    for (int b = 0; b < bs; ++b)
      for (int a = 0; a < na; ++a) {
        double d[4];
        std::vector<double> lp(4 * regMax);
        for (int side = 0; side < 4; ++side) {
          double mx = -1e30, z = 0, e = 0;
          for (int k = 0; k < regMax; ++k) mx = std::max(mx, logits[b][a][side * regMax + k]);
          for (int k = 0; k < regMax; ++k) z += std::exp(logits[b][a][side * regMax + k] - mx);
          for (int k = 0; k < regMax; ++k) {
            const double p = std::exp(logits[b][a][side * regMax + k] - mx) / z;
            e += p * k;
            lp[side * regMax + k] = std::log(p);
          }
          d[side] = e;
        }
        logp[b].push_back(lp);
        const auto [ax, ay] = ancGrid[a];
        const Box g{ax - d[0], ay - d[1], ax + d[2], ay + d[3]};
        pdGrid[b].push_back(g);
        const double s = stride[a];
        pdPix[b].push_back({g.x1 * s, g.y1 * s, g.x2 * s, g.y2 * s});
        std::vector<double> p(nc);
        for (int c = 0; c < nc; ++c) p[c] = 1 / (1 + std::exp(-logits[b][a][4 * regMax + c]));
        sc[b].push_back(p);
      }
    for (int r = 0; r < targets.size(0); ++r) {
      const int b = int(targets[r][0].item<double>());
      const double cx = targets[r][2].item<double>() * 64, cy = targets[r][3].item<double>() * 64;
      const double w = targets[r][4].item<double>() * 64, h = targets[r][5].item<double>() * 64;
      gts[b].push_back({cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2});
      labels[b].push_back(int(targets[r][1].item<double>()));
    }
    const auto ref = refAssign(pdPix, sc, anc, gts, labels, 3, 10, nc);

    double tss = 0, cls = 0, box = 0, dfl = 0;
    for (int b = 0; b < bs; ++b)
      for (int a = 0; a < na; ++a)
        for (int c = 0; c < nc; ++c) {
          const double x = logits[b][a][4 * regMax + c], y = ref.scores[b][a][c];
          tss += y;
          cls += std::max(x, 0.0) - x * y + std::log1p(std::exp(-std::abs(x)));
        }
    for (int b = 0; b < bs; ++b)
      for (int a = 0; a < na; ++a) {
        if (!ref.fg[b][a]) continue;
        double weight = 0;
        for (int c = 0; c < nc; ++c) weight += ref.scores[b][a][c];
        const Box& gp = gts[b][ref.gtIdx[b][a]];
        const double s = stride[a];
        const Box g{gp.x1 / s, gp.y1 / s, gp.x2 / s, gp.y2 / s};
        box += (1 - refCiou(pdGrid[b][a], g)) * weight;
        const auto [ax, ay] = ancGrid[a];
        const double ltrb[4] = {ax - g.x1, ay - g.y1, g.x2 - ax, g.y2 - ay};
        double sideSum = 0;
        for (int side = 0; side < 4; ++side) {
          const double t = std::clamp(ltrb[side], 0.0, regMax - 1 - 0.01);
          const int tl = int(t);
          const double wl = tl + 1 - t;
          sideSum +=
              -logp[b][a][side * regMax + tl] * wl - logp[b][a][side * regMax + tl + 1] * (1 - wl);
        }
        dfl += sideSum / 4 * weight;
      }
    tss = std::max(tss, 1.0);
    const double expected[3] = {box / tss * 7.5, cls / tss * 0.5, dfl / tss * 1.5};
    int fgCount = 0;
    for (int b = 0; b < bs; ++b) fgCount += std::accumulate(ref.fg[b].begin(), ref.fg[b].end(), 0);
    qInfo("reference: %d foreground anchors, box %.5f cls %.5f dfl %.5f", fgCount, expected[0],
          expected[1], expected[2]);
    QVERIFY(fgCount >= 8 && box > 0 && dfl > 0);
    for (int i = 0; i < 3; ++i) {
      const double got = out.items[i].item<double>();
      QVERIFY2(
          std::abs(got - expected[i]) < 1e-4 * std::max(1.0, expected[i]),
          qPrintable(QString("item %1: loss %2, reference %3").arg(i).arg(got).arg(expected[i])));
    }
    QVERIFY(std::abs(out.total.item<double>() - bs * (expected[0] + expected[1] + expected[2])) <
            1e-3);
  }

  void lossFromReducedPrecisionFeats() {
    stave::model::Yolo model(stave::model::ModelOptions{"n", 2, 16});
    auto feats = model->forward(torch::rand({2, 3, 64, 64}));
    auto targets =
        torch::tensor({0.f, 1.f, .5f, .5f, .4f, .3f, 1.f, 0.f, .3f, .6f, .2f, .5f}).view({2, 6});
    DetectionLoss loss(*model);
    auto out32 = loss(feats, targets, 2);
    std::vector<torch::Tensor> half;
    for (auto& f : feats) half.push_back(f.to(torch::kBFloat16));
    auto outBf = loss(half, targets, 2);
    QCOMPARE(out32.total.dtype(), torch::kFloat);
    QCOMPARE(outBf.total.dtype(), torch::kFloat);
    QCOMPARE(out32.items.sizes().vec(), (std::vector<int64_t>{3}));
    QVERIFY(torch::isfinite(out32.items).all().item<bool>());
    QVERIFY(std::abs(out32.total.item<double>() - outBf.total.item<double>()) <
            0.05 * out32.total.item<double>());
    // total = sum(items) * batch size
    QVERIFY(std::abs(out32.total.item<double>() - 2 * out32.items.sum().item<double>()) <
            1e-4 * out32.total.item<double>());
    out32.total.backward();
    QVERIFY(model->named_parameters()["model.22.cv2.0.2.weight"].grad().defined());

    // Inside a CPU bf16 autocast region: the network runs in bf16 but for the head's prediction
    // convolutions (float32 logits), the loss in float32, and the caller's autocast state
    // survives the call.
    const auto x = torch::rand({2, 3, 64, 64});
    torch::Tensor feat32;
    {
      torch::NoGradGuard noGrad;
      feat32 = model->forward(x)[0];
    }
    at::autocast::set_autocast_dtype(at::kCPU, torch::kBFloat16);
    at::autocast::set_autocast_enabled(at::kCPU, true);
    auto featsAc = model->forward(x);
    const bool floatLogits = featsAc[0].scalar_type() == torch::kFloat;
    const double bf16Change = (featsAc[0].detach() - feat32).abs().max().item<double>();
    auto outAc = loss(featsAc, targets, 2);
    const bool stillOn = at::autocast::is_autocast_enabled(at::kCPU);
    at::autocast::set_autocast_enabled(at::kCPU, false);
    at::autocast::clear_cache();
    QVERIFY(floatLogits);
    QVERIFY2(bf16Change > 1e-4 && bf16Change < 0.5 * feat32.abs().max().item<double>(),
             qPrintable(QString::number(bf16Change)));  // the convolutions before ran in bf16
    QVERIFY(stillOn);
    QCOMPARE(outAc.total.scalar_type(), torch::kFloat);
    QVERIFY(torch::isfinite(outAc.items).all().item<bool>());
    outAc.total.backward();
  }

  // The dense selection (CUDA's, no device sync) gives the gather path's losses and gradients,
  // also with crowded images (several boxes per image, padding slots) and an empty image.
  void denseMasksMatchGather() {
    torch::manual_seed(11);
    stave::model::Yolo model(stave::model::ModelOptions{"n", 3, 16});
    model->train();
    auto images = torch::rand({3, 3, 96, 96});
    auto targets = torch::tensor({0.f, 0.f, .3f, .3f, .4f, .4f,  //
                                  0.f, 2.f, .7f, .6f, .3f, .5f,  //
                                  0.f, 1.f, .5f, .5f, .9f, .9f,  //
                                  0.f, 1.f, .52f, .5f, .1f, .1f,  //
                                  1.f, 1.f, .5f, .5f, .6f, .5f})
                       .view({5, 6});
    LossOptions gatherOpt, denseOpt;
    gatherOpt.masks = stave::train::MaskMode::Gather;
    denseOpt.masks = stave::train::MaskMode::Dense;
    DetectionLoss gather(*model, gatherOpt), dense(*model, denseOpt);
    auto feats = model->forward(images);
    auto og = gather(feats, targets, 3);
    auto od = dense(feats, targets, 3);
    QVERIFY(torch::allclose(og.items, od.items, 1e-5, 1e-6));
    std::vector<torch::Tensor> params;
    for (auto& p : model->parameters())
      if (p.requires_grad()) params.push_back(p);
    auto gg = torch::autograd::grad({og.total}, params, {}, /*retain_graph=*/true);
    auto gd = torch::autograd::grad({od.total}, params);
    for (size_t i = 0; i < params.size(); ++i) {
      QVERIFY(torch::isfinite(gd[i]).all().item<bool>());
      QVERIFY2(torch::allclose(gg[i], gd[i], 1e-4, 1e-6), qPrintable(QString::number(i)));
    }
  }

  void lossWithoutTargets() {
    stave::model::Yolo model(stave::model::ModelOptions{"n", 2, 16});
    auto feats = model->forward(torch::rand({2, 3, 64, 64}));
    auto out = DetectionLoss(*model)(feats, torch::zeros({0, 6}), 2);
    QCOMPARE(out.items[0].item<double>(), 0.0);
    QCOMPARE(out.items[2].item<double>(), 0.0);
    QVERIFY(out.items[1].item<double>() > 0);
    out.total.backward();
  }

  // Overfitting one tiny batch must drive the loss well down.
  void overfitTinyBatch() {
    torch::manual_seed(1);
    stave::model::Yolo model(stave::model::ModelOptions{"n", 2, 16});
    model->train();
    auto images = torch::rand({2, 3, 64, 64});
    auto targets = torch::tensor({0.f, 0.f, .3f, .3f, .4f, .4f,  //
                                  0.f, 1.f, .7f, .6f, .3f, .5f,  //
                                  1.f, 1.f, .5f, .5f, .6f, .5f})
                       .view({3, 6});
    DetectionLoss loss(*model);
    std::vector<torch::Tensor> params;
    for (auto& p : model->parameters())
      if (p.requires_grad()) params.push_back(p);
    torch::optim::SGD opt(params, torch::optim::SGDOptions(0.01).momentum(0.9).nesterov(true));
    double first = 0;
    std::vector<double> lastFive;
    for (int step = 0; step < 30; ++step) {
      opt.zero_grad();
      auto out = loss(model->forward(images), targets, 2);
      out.total.backward();
      torch::nn::utils::clip_grad_norm_(params, 10.0);
      opt.step();
      const double v = out.items.sum().item<double>();
      QVERIFY(std::isfinite(v));
      if (step == 0) first = v;
      if (step >= 25) lastFive.push_back(v);
    }
    // One step's loss on two images in train mode jumps (BatchNorm over two images, assignments
    // that flip), so the end is the median of the last five steps.
    std::nth_element(lastFive.begin(), lastFive.begin() + 2, lastFive.end());
    const double last = lastFive[2];
    qInfo("overfit: loss %.4f -> %.4f (median of the last five steps)", first, last);
    QVERIFY2(last < 0.5 * first, qPrintable(QString("%1 -> %2").arg(first).arg(last)));
  }
};

QTEST_APPLESS_MAIN(TestLoss)
#include "tst_loss.moc"
