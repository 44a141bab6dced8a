// nonMaxSuppression against a slow obvious version (loops over plain vectors) on random
// clustered boxes, plus the edge cases: nothing above conf, no boxes, maxDet, agnostic, maxNms.

#include <QtTest>

#include <torch/torch.h>

#include "core/base/result.h"
#include "core/train/nms.h"

using namespace stave::train;

namespace {

struct Box {
  float x1, y1, x2, y2, score;
  int cls;
};

float iouOf(const Box& a, const Box& b) {
  const float w = std::max(0.0f, std::min(a.x2, b.x2) - std::max(a.x1, b.x1));
  const float h = std::max(0.0f, std::min(a.y2, b.y2) - std::max(a.y1, b.y1));
  const float inter = w * h;
  const float areaA = (a.x2 - a.x1) * (a.y2 - a.y1);
  const float areaB = (b.x2 - b.x1) * (b.y2 - b.y1);
  return inter / (areaA + areaB - inter);
}

// The textbook procedure: each box takes its best class; boxes above conf, best score first
// (only the maxNms best); a box survives unless a kept box of its class overlaps it by more than
// iou; stop after maxDet.
std::vector<Box> referenceNms(const torch::Tensor& image, double conf, double iou, int maxDet,
                              bool agnostic, int64_t maxNms) {
  auto a = image.accessor<float, 2>();
  std::vector<Box> cand;
  for (int64_t i = 0; i < image.size(0); ++i) {
    int best = 0;
    for (int64_t c = 1; c < image.size(1) - 4; ++c) {
      if (a[i][4 + c] > a[i][4 + best]) best = int(c);
    }
    if (a[i][4 + best] > conf)
      cand.push_back({a[i][0], a[i][1], a[i][2], a[i][3], a[i][4 + best], best});
  }
  std::stable_sort(cand.begin(), cand.end(),
                   [](const Box& x, const Box& y) { return x.score > y.score; });
  if (int64_t(cand.size()) > maxNms) cand.resize(maxNms);
  std::vector<Box> kept;
  for (const Box& b : cand) {
    if (int(kept.size()) >= maxDet) break;
    bool suppressed = false;
    for (const Box& k : kept) {
      if ((agnostic || k.cls == b.cls) && iouOf(k, b) > iou) suppressed = true;
    }
    if (!suppressed) kept.push_back(b);
  }
  return kept;
}

// B images of N boxes in a few clusters (so that many overlap), nc class probabilities.
torch::Tensor randomPreds(int64_t B, int64_t N, int64_t nc, uint64_t seed) {
  torch::manual_seed(seed);
  auto centers = torch::rand({B, 6, 2}) * 600;
  auto which = torch::randint(0, 6, {B, N});
  auto c = torch::gather(centers, 1, which.unsqueeze(2).expand({B, N, 2})) +
           torch::randn({B, N, 2}) * 12;
  auto wh = torch::rand({B, N, 2}) * 60 + 20;
  auto xyxy = torch::cat({c - wh / 2, c + wh / 2}, 2);
  auto probs = torch::rand({B, N, nc}).pow(3);  // mostly low, some high
  return torch::cat({xyxy, probs}, 2);
}

}  // namespace

class TestNms : public QObject {
  Q_OBJECT

 private slots:
  void matchesReference_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("nc");
    QTest::addColumn<double>("conf");
    QTest::addColumn<double>("iou");
    QTest::addColumn<int>("maxDet");
    QTest::addColumn<bool>("agnostic");
    QTest::addColumn<int>("maxNms");
    QTest::addColumn<int>("seed");
    QTest::newRow("val settings") << 800 << 5 << 0.001 << 0.7 << 300 << false << 30000 << 1;
    QTest::newRow("predict settings") << 800 << 5 << 0.25 << 0.7 << 300 << false << 30000 << 2;
    QTest::newRow("agnostic") << 600 << 4 << 0.05 << 0.5 << 300 << true << 30000 << 3;
    QTest::newRow("maxDet 7") << 600 << 3 << 0.01 << 0.6 << 7 << false << 30000 << 4;
    QTest::newRow("maxNms 50") << 600 << 3 << 0.01 << 0.6 << 300 << false << 50 << 5;
    QTest::newRow("one class, tight iou") << 400 << 1 << 0.1 << 0.3 << 100 << false << 30000 << 6;
  }

  void matchesReference() {
    QFETCH(int, n);
    QFETCH(int, nc);
    QFETCH(double, conf);
    QFETCH(double, iou);
    QFETCH(int, maxDet);
    QFETCH(bool, agnostic);
    QFETCH(int, maxNms);
    QFETCH(int, seed);
    const auto preds = randomPreds(3, n, nc, seed);
    const auto out = nonMaxSuppression(preds, conf, iou, maxDet, agnostic, false, maxNms);
    QCOMPARE(int(out.size()), 3);
    int total = 0;
    for (int b = 0; b < 3; ++b) {
      const auto ref = referenceNms(preds[b].contiguous(), conf, iou, maxDet, agnostic, maxNms);
      const auto& got = out[b];
      QCOMPARE(got.dim(), int64_t(2));
      QCOMPARE(got.size(1), int64_t(6));
      QCOMPARE(got.size(0), int64_t(ref.size()));
      auto g = got.accessor<float, 2>();
      for (size_t k = 0; k < ref.size(); ++k) {
        QCOMPARE(g[k][0], ref[k].x1);
        QCOMPARE(g[k][1], ref[k].y1);
        QCOMPARE(g[k][2], ref[k].x2);
        QCOMPARE(g[k][3], ref[k].y2);
        QCOMPARE(g[k][4], ref[k].score);
        QCOMPARE(int(g[k][5]), ref[k].cls);
      }
      total += int(ref.size());
    }
    QVERIFY(total > 3);  // the case exercised something
  }

  void suppressionIsClassAware() {
    // Two identical boxes of different classes both survive; agnostic keeps the better one.
    auto p = torch::tensor({0.f, 0.f, 10.f, 10.f, 0.9f, 0.1f, 0.f, 0.f, 10.f, 10.f, 0.2f, 0.8f})
                 .view({1, 2, 6});
    QCOMPARE(nonMaxSuppression(p, 0.25, 0.7, 300)[0].size(0), int64_t(2));
    const auto ag = nonMaxSuppression(p, 0.25, 0.7, 300, true)[0];
    QCOMPARE(ag.size(0), int64_t(1));
    QCOMPARE(ag[0][4].item<float>(), 0.9f);
    QCOMPARE(ag[0][5].item<float>(), 0.0f);
  }

  void multiLabelKeepsEveryClassAboveConf() {
    // Box A scores 0.6 for class 0 and 0.5 for class 1; box B (IoU 0.81 with A) 0.55 for class 0
    // and 0.1 for class 1; box C (apart) 0.3 for class 1 only. Best class only: A(0) suppresses
    // B(0), C stays. Multi-label: A counts as class 0 and class 1, B(0) is suppressed by A(0),
    // B's class 1 is under conf, C(1) stays (other boxes of class 1 do not overlap it).
    auto p = torch::tensor({0.f,  0.f,  10.f, 10.f, 0.6f,  0.5f,  //
                            0.f,  0.f,  10.f, 9.f,  0.55f, 0.1f,  //
                            50.f, 50.f, 60.f, 60.f, 0.05f, 0.3f})
                 .view({1, 3, 6});
    const auto one = nonMaxSuppression(p, 0.25, 0.7, 300)[0];
    QCOMPARE(one.size(0), int64_t(2));
    const auto multi = nonMaxSuppression(p, 0.25, 0.7, 300, false, true)[0];
    QCOMPARE(multi.size(0), int64_t(3));
    // Best score first: A as class 0, A as class 1, C as class 1.
    QCOMPARE(multi[0][4].item<float>(), 0.6f);
    QCOMPARE(multi[0][5].item<float>(), 0.0f);
    QCOMPARE(multi[1][4].item<float>(), 0.5f);
    QCOMPARE(multi[1][5].item<float>(), 1.0f);
    QCOMPARE(multi[1][3].item<float>(), 10.0f);  // box A's coordinates
    QCOMPARE(multi[2][4].item<float>(), 0.3f);
    QCOMPARE(multi[2][0].item<float>(), 50.0f);
    // One class: multi-label changes nothing (Ultralytics: multi_label &= nc > 1).
    auto single = p.slice(2, 0, 5).contiguous();
    QVERIFY(torch::equal(nonMaxSuppression(single, 0.25, 0.7, 300, false, true)[0],
                         nonMaxSuppression(single, 0.25, 0.7, 300)[0]));
  }

  void emptyCases() {
    // Nothing above conf.
    auto low = torch::rand({2, 50, 3}) * 0.1;
    auto preds = torch::cat({torch::rand({2, 50, 4}) * 100, low}, 2);
    auto out = nonMaxSuppression(preds, 0.5, 0.7, 300);
    QCOMPARE(int(out.size()), 2);
    for (const auto& t : out) {
      QCOMPARE(t.size(0), int64_t(0));
      QCOMPARE(t.size(1), int64_t(6));
      QCOMPARE(t.scalar_type(), torch::kFloat);
    }
    // No boxes at all, and an empty batch.
    QCOMPARE(nonMaxSuppression(torch::zeros({1, 0, 6}), 0.1, 0.7, 300)[0].size(0), int64_t(0));
    QCOMPARE(int(nonMaxSuppression(torch::zeros({0, 10, 6}), 0.1, 0.7, 300).size()), 0);
    // maxDet 0 keeps nothing.
    QCOMPARE(nonMaxSuppression(randomPreds(1, 20, 2, 9), 0.0, 0.7, 0)[0].size(0), int64_t(0));
  }

  void halfPrecisionInput() {
    const auto preds = randomPreds(1, 300, 3, 12);
    const auto a = nonMaxSuppression(preds.to(torch::kBFloat16), 0.05, 0.7, 100);
    QCOMPARE(a[0].scalar_type(), torch::kFloat);
    QVERIFY(a[0].size(0) > 0);
  }

  void convertsToDetections() {
    const auto kept = nonMaxSuppression(randomPreds(1, 200, 3, 21), 0.05, 0.7, 50)[0];
    const auto dets = toDetections(kept);
    QCOMPARE(int64_t(dets.size()), kept.size(0));
    QVERIFY(!dets.empty());
    QCOMPARE(dets[0].x1, kept[0][0].item<float>());
    QCOMPARE(dets[0].y2, kept[0][3].item<float>());
    QCOMPARE(dets[0].score, kept[0][4].item<float>());
    QCOMPARE(dets.back().cls, int(kept[kept.size(0) - 1][5].item<float>()));
    QVERIFY(toDetections(torch::zeros({0, 6})).empty());
  }

  void badShapeIsAnInternalError() {
    bool thrown = false;
    try {
      nonMaxSuppression(torch::zeros({10, 6}), 0.1, 0.7, 300);
    } catch (const stave::InternalError&) {
      thrown = true;
    }
    QVERIFY(thrown);
  }
};

QTEST_GUILESS_MAIN(TestNms)
#include "tst_nms.moc"
