// Augmentation geometry checked against slow, obvious references: boxes transformed by corner
// arithmetic vs. the bounding box of the warped pixels; labels after the whole pipeline vs.
// where each object's colour actually ends up; the HSV lookup tables vs. per-pixel maths.
#include <QtTest>

#include <map>

#include <opencv2/imgproc.hpp>

#include "core/data/augment.h"
#include "core/data/resample.h"

using namespace stave::data;

namespace {
// Slow reference: the box as a filled mask, warped with nearest neighbour, bounding rect.
cv::Rect2d warpedMaskBox(const PixBox& b, const cv::Matx33d& M, cv::Size in, cv::Size out) {
  cv::Mat mask = cv::Mat::zeros(in, CV_8U);
  cv::rectangle(mask, cv::Point(int(b.x1), int(b.y1)), cv::Point(int(b.x2) - 1, int(b.y2) - 1),
                cv::Scalar(255), cv::FILLED);
  cv::Mat w;
  cv::warpPerspective(mask, w, cv::Mat(M), out, cv::INTER_NEAREST, cv::BORDER_CONSTANT,
                      cv::Scalar(0));
  return cv::boundingRect(w);
}

cv::Vec3b paletteColour(int id) {
  // Distinct, saturated colours far from the grey 114 border and from each other.
  static const cv::Vec3b p[] = {{255, 0, 0},   {0, 255, 0},   {0, 0, 255},     {255, 255, 0},
                                {255, 0, 255}, {0, 255, 255}, {255, 128, 0},   {0, 128, 255},
                                {128, 0, 255}, {0, 0, 0},     {255, 255, 255}, {128, 255, 0}};
  return p[id % 12];
}
}  // namespace

class TestAugment : public QObject {
  Q_OBJECT
 private slots:
  void boxesFollowTheWarp_data();
  void boxesFollowTheWarp();
  void pipelineLabelsMatchPixels_data();
  void pipelineLabelsMatchPixels();
  void letterboxGeometry_data();
  void letterboxGeometry();
  void scaledRendererMatchesWarp();
  void hsvMatchesPerPixelReference();
  void hsvAndMirrorFused();
  void fusedAndOpenCvPathsAgree();
  void boxCandidatesDropSlivers();
};

void TestAugment::boxesFollowTheWarp_data() {
  QTest::addColumn<double>("degrees");
  QTest::addColumn<double>("shear");
  QTest::addColumn<double>("perspective");
  QTest::addColumn<int>("seed");
  QTest::newRow("scale+translate") << 0.0 << 0.0 << 0.0 << 1;
  QTest::newRow("rotation") << 30.0 << 0.0 << 0.0 << 2;
  QTest::newRow("rotation+shear") << 20.0 << 10.0 << 0.0 << 3;
  QTest::newRow("perspective") << 10.0 << 0.0 << 0.0005 << 4;
}

void TestAugment::boxesFollowTheWarp() {
  QFETCH(double, degrees);
  QFETCH(double, shear);
  QFETCH(double, perspective);
  QFETCH(int, seed);
  AugmentOptions aug;
  aug.degrees = degrees;
  aug.shear = shear;
  aug.perspective = perspective;
  aug.scale = 0.3;
  Rng rng(seed);
  const cv::Size in(256, 256), out(192, 192);
  int compared = 0;
  for (int trial = 0; trial < 20; ++trial) {
    double s = 1;
    const cv::Matx33d M = randomPerspectiveMatrix(rng, aug, in, out, &s);
    std::vector<PixBox> boxes;
    for (int k = 0; k < 4; ++k) {
      const float x = float(rng.uniform(10, 180)), y = float(rng.uniform(10, 180));
      boxes.push_back({k, x, y, x + float(rng.uniform(20, 70)), y + float(rng.uniform(20, 70))});
    }
    const auto fast = transformBoxes(boxes, M, out, s);
    for (const auto& f : fast) {
      // A rotated box cut by the output border keeps the box of its corners (as Ultralytics
      // does without segments), which is larger than its visible pixels: compare uncut ones.
      if (f.x1 <= 0 || f.y1 <= 0 || f.x2 >= out.width || f.y2 >= out.height) continue;
      const cv::Rect2d ref = warpedMaskBox(boxes[size_t(f.cls)], M, in, out);
      if (ref.area() == 0) continue;
      QVERIFY2(std::abs(f.x1 - ref.x) <= 2 && std::abs(f.y1 - ref.y) <= 2 &&
                   std::abs(f.x2 - (ref.x + ref.width)) <= 2 &&
                   std::abs(f.y2 - (ref.y + ref.height)) <= 2,
               qPrintable(QString("fast [%1 %2 %3 %4] vs warped pixels [%5 %6 %7 %8]")
                              .arg(f.x1)
                              .arg(f.y1)
                              .arg(f.x2)
                              .arg(f.y2)
                              .arg(ref.x)
                              .arg(ref.y)
                              .arg(ref.x + ref.width)
                              .arg(ref.y + ref.height)));
      ++compared;
    }
  }
  QVERIFY(compared > 20);
}

void TestAugment::pipelineLabelsMatchPixels_data() {
  QTest::addColumn<double>("mosaic");
  QTest::addColumn<double>("degrees");
  QTest::addColumn<double>("mixup");
  QTest::newRow("mosaic, flips") << 1.0 << 0.0 << 0.0;
  QTest::newRow("mosaic, rotation") << 1.0 << 15.0 << 0.0;
  QTest::newRow("letterbox, rotation") << 0.0 << 25.0 << 0.0;
}

void TestAugment::pipelineLabelsMatchPixels() {
  // Images of uniquely coloured rectangles; after mosaic + perspective + flips every label must
  // sit where its colour is.
  QFETCH(double, mosaic);
  QFETCH(double, degrees);
  QFETCH(double, mixup);
  const int S = 128;
  std::vector<ImageRecord> records;
  std::vector<std::shared_ptr<LoadedImage>> images;
  int id = 0;
  Rng gen(7);
  for (int i = 0; i < 4; ++i) {
    const int w = i % 2 ? S : S * 3 / 4, h = i % 2 ? S * 3 / 4 : S;
    auto li = std::make_shared<LoadedImage>();
    li->img = cv::Mat(h, w, CV_8UC3, cv::Scalar(114, 114, 114));
    li->w0 = w, li->h0 = h;
    ImageRecord r;
    r.width = w, r.height = h;
    for (int k = 0; k < 3; ++k, ++id) {
      const int bw = 20 + int(gen.below(25)), bh = 20 + int(gen.below(25));
      int x = 0, y = 0;
      for (int attempt = 0; attempt < 100; ++attempt) {  // no overlaps: labels stay exact
        x = int(gen.below(uint64_t(w - bw))), y = int(gen.below(uint64_t(h - bh)));
        bool clash = false;
        for (const auto& o : r.boxes)
          clash = clash || (std::abs((x + bw / 2.f) / w - o.cx) * w < (bw + o.w * w) / 2 + 2 &&
                            std::abs((y + bh / 2.f) / h - o.cy) * h < (bh + o.h * h) / 2 + 2);
        if (!clash) break;
      }
      li->img(cv::Rect(x, y, bw, bh)).setTo(paletteColour(id));
      r.boxes.push_back({id, (x + bw / 2.f) / w, (y + bh / 2.f) / h, float(bw) / w, float(bh) / h});
    }
    records.push_back(r);
    images.push_back(li);
  }
  // Rectangles may overlap inside one image; the later one covers the earlier. Keep the test
  // honest by skipping boxes whose colour is partly hidden in the source.
  AugmentContext ctx;
  ctx.records = &records;
  ctx.imgsz = S;
  ctx.aug.mosaic = mosaic;
  ctx.aug.degrees = degrees;
  ctx.aug.mixup = mixup;
  ctx.aug.hsv_h = ctx.aug.hsv_s = ctx.aug.hsv_v = 0;
  ctx.aug.flipud = 0.5;
  ctx.load = [&](int64_t i, StageTimes&) {
    return std::shared_ptr<const LoadedImage>(images[size_t(i)]);
  };
  int checked = 0;
  for (int trial = 0; trial < 12; ++trial) {
    int next = 0;
    const auto companion = [&](Rng&) -> int64_t { return (++next) % 4; };
    Rng rng(1000 + trial);
    StageTimes t;
    const Sample s = makeTrainSample(ctx, 0, true, companion, rng, t);
    QCOMPARE(s.img.cols, S);
    QCOMPARE(s.img.rows, S);
    for (const auto& b : s.boxes) {
      const cv::Vec3b c = paletteColour(b.cls);
      cv::Mat mask;
      cv::inRange(s.img, cv::Scalar(c[0] - 40.0, c[1] - 40.0, c[2] - 40.0),
                  cv::Scalar(c[0] + 40.0, c[1] + 40.0, c[2] + 40.0), mask);
      const cv::Rect ref = cv::boundingRect(mask);
      if (ref.area() == 0) continue;
      // Corner arithmetic is exact for rectangles, except a rotated one cut by the border.
      if (degrees != 0 && (b.x1 <= 0 || b.y1 <= 0 || b.x2 >= S || b.y2 >= S)) continue;
      const double tol = 2.5;
      QVERIFY2(std::abs(b.x1 - ref.x) <= tol && std::abs(b.y1 - ref.y) <= tol &&
                   std::abs(b.x2 - (ref.x + ref.width)) <= tol &&
                   std::abs(b.y2 - (ref.y + ref.height)) <= tol,
               qPrintable(QString("trial %9 id %10: label [%1 %2 %3 %4] vs pixels [%5 %6 %7 %8]")
                              .arg(b.x1)
                              .arg(b.y1)
                              .arg(b.x2)
                              .arg(b.y2)
                              .arg(ref.x)
                              .arg(ref.y)
                              .arg(ref.x + ref.width)
                              .arg(ref.y + ref.height)
                              .arg(trial)
                              .arg(b.cls)));
      ++checked;
    }
    // Conversely, every clearly visible colour has a label.
    for (int k = 0; k < id; ++k) {
      const cv::Vec3b c = paletteColour(k);
      cv::Mat mask;
      cv::inRange(s.img, cv::Scalar(c[0] - 5.0, c[1] - 5.0, c[2] - 5.0),
                  cv::Scalar(c[0] + 5.0, c[1] + 5.0, c[2] + 5.0), mask);
      if (cv::countNonZero(mask) < 150) continue;
      bool labelled = false;
      for (const auto& b : s.boxes) labelled = labelled || b.cls == k;
      QVERIFY2(labelled, qPrintable(QString("trial %1: colour %2 visible (%3 px) without a label")
                                        .arg(trial)
                                        .arg(k)
                                        .arg(cv::countNonZero(mask))));
    }
  }
  QVERIFY(checked > 10);
}

void TestAugment::letterboxGeometry_data() {
  QTest::addColumn<int>("w");
  QTest::addColumn<int>("h");
  QTest::addColumn<int>("tw");
  QTest::addColumn<int>("th");
  QTest::addColumn<bool>("scaleup");
  QTest::newRow("landscape into square") << 640 << 480 << 640 << 640 << true;
  QTest::newRow("portrait into square") << 300 << 500 << 640 << 640 << false;
  QTest::newRow("odd padding") << 101 << 50 << 128 << 128 << true;
  QTest::newRow("rect shape") << 640 << 360 << 640 << 384 << false;
}

void TestAugment::letterboxGeometry() {
  QFETCH(int, w);
  QFETCH(int, h);
  QFETCH(int, tw);
  QFETCH(int, th);
  QFETCH(bool, scaleup);
  cv::Mat img(h, w, CV_8UC3, cv::Scalar(10, 20, 30));
  float r, px, py;
  cv::Mat out = letterbox(img, cv::Size(tw, th), scaleup, &r, &px, &py);
  QCOMPARE(out.cols, tw);
  QCOMPARE(out.rows, th);
  double expect = std::min(double(tw) / w, double(th) / h);
  if (!scaleup) expect = std::min(expect, 1.0);
  QVERIFY(std::abs(r - expect) < 1e-6);
  // The image sits centred: the pixel at the mapped centre is image colour, the corners grey
  // whenever there is padding.
  const cv::Vec3b centre = out.at<cv::Vec3b>(int(py + h * r / 2), int(px + w * r / 2));
  QCOMPARE(int(centre[0]), 10);
  if (px >= 1) QCOMPARE(int(out.at<cv::Vec3b>(th / 2, 0)[0]), 114);
  if (py >= 1) QCOMPARE(int(out.at<cv::Vec3b>(0, tw / 2)[0]), 114);
  QVERIFY(std::abs((tw - w * r) / 2 - px) <= 0.6);
  QVERIFY(std::abs((th - h * r) / 2 - py) <= 0.6);
}

void TestAugment::scaledRendererMatchesWarp() {
  // The fast renderer (resize each tile into place) against the slow one (paint the canvas,
  // warpAffine), on smooth tiles so a sub-pixel shift shows as a small difference only.
  Rng rng(5);
  for (int trial = 0; trial < 10; ++trial) {
    const int S = 160;
    Composition comp;
    comp.canvas = cv::Size(2 * S, 2 * S);
    const int xc = int(rng.uniform(0.5 * S, 1.5 * S)), yc = int(rng.uniform(0.5 * S, 1.5 * S));
    const cv::Rect quads[4] = {{0, 0, xc, yc},
                               {xc, 0, 2 * S - xc, yc},
                               {0, yc, xc, 2 * S - yc},
                               {xc, yc, 2 * S - xc, 2 * S - yc}};
    for (int q = 0; q < 4; ++q) {
      auto li = std::make_shared<LoadedImage>();
      li->img.create(2 * S, 2 * S, CV_8UC3);
      for (int y = 0; y < li->img.rows; ++y)
        for (int x = 0; x < li->img.cols; ++x)
          li->img.at<cv::Vec3b>(y, x) =
              cv::Vec3b(uint8_t(x * 0.75), uint8_t(y * 0.75), uint8_t(60 * q));
      Tile t;
      t.image = li;
      t.dst = quads[q];
      t.src = cv::Rect(0, 0, quads[q].width, quads[q].height);
      const float bx = float(t.dst.x + 10), by = float(t.dst.y + 10);
      t.boxes.push_back({q, bx, by, bx + std::min(60.f, t.dst.width - 12.f),
                         by + std::min(50.f, t.dst.height - 12.f)});
      comp.tiles.push_back(t);
    }
    AugmentOptions aug;  // defaults: scale and translate only
    double s = 1;
    const cv::Matx33d M = randomPerspectiveMatrix(rng, aug, comp.canvas, cv::Size(S, S), &s);
    const Sample fast = renderScaled(comp, M, cv::Size(S, S), s);
    const Sample slow = renderWarped(comp, M, cv::Size(S, S), s);
    cv::Mat diff;
    cv::absdiff(fast.img, slow.img, diff);
    // Gradients of 0.75 levels per pixel: a shift of d pixels costs about 0.75 d per channel.
    const double meanDiff = cv::mean(diff)[0] + cv::mean(diff)[1];
    QVERIFY2(meanDiff < 2.5,
             qPrintable(QString("trial %1: mean difference %2").arg(trial).arg(meanDiff)));
    for (const auto& f : fast.boxes) {
      bool matched = false;
      for (const auto& r : slow.boxes)
        matched = matched ||
                  (r.cls == f.cls && std::abs(r.x1 - f.x1) <= 1.5 && std::abs(r.y1 - f.y1) <= 1.5 &&
                   std::abs(r.x2 - f.x2) <= 1.5 && std::abs(r.y2 - f.y2) <= 1.5);
      QVERIFY2(
          matched,
          qPrintable(
              QString("trial %1: fast box of class %2 has no slow twin").arg(trial).arg(f.cls)));
    }
    QVERIFY(std::abs(int(fast.boxes.size()) - int(slow.boxes.size())) <= 1);
  }
}

void TestAugment::hsvMatchesPerPixelReference() {
  // Ultralytics' RandomHSV (8.3.79 on) on eight BGR pixels for two sets of gains: the expected
  // bytes were computed with its code (numpy lookup tables, OpenCV's HSV conversions).
  const uint8_t px[] = {10, 200, 30,  255, 255, 255, 0,   0,  0,  114, 114, 114,
                        40, 90,  250, 200, 10,  10,  128, 64, 32, 250, 250, 5};
  const cv::Mat img(1, 8, CV_8UC3, const_cast<uint8_t*>(px));
  struct Case {
    double r[3];
    uint8_t want[24];
  } cases[] = {{{0.01, -0.4, 0.3}, {110, 255, 120, 255, 255, 255, 0,   0,   0,  148, 148, 148,
                                    127, 161, 255, 255, 110, 115, 166, 114, 92, 255, 250, 105}},
               {{-0.012, 0.5, -0.2}, {0, 160, 32,  204, 204, 204, 0,   0,  0, 91,  91,  91,
                                      0, 27,  200, 160, 16,  0,   102, 44, 0, 180, 200, 0}}};
  for (const auto& c : cases) {
    cv::Mat bgr = img.clone();
    applyHsvLookup(bgr, hsvLookupTable(c.r[0], c.r[1], c.r[2]));
    const cv::Mat want(1, 8, CV_8UC3, const_cast<uint8_t*>(c.want));
    QVERIFY2(cv::norm(bgr, want, cv::NORM_INF) == 0,
             qPrintable(QString("gains %1 %2 %3").arg(c.r[0]).arg(c.r[1]).arg(c.r[2])));
    // The same map on RGB pixels.
    cv::Mat rgb;
    cv::cvtColor(img, rgb, cv::COLOR_BGR2RGB);
    applyHsvLookup(rgb, hsvLookupTable(c.r[0], c.r[1], c.r[2]), /*rgb=*/true);
    cv::cvtColor(rgb, rgb, cv::COLOR_RGB2BGR);
    QCOMPARE(cv::norm(rgb, want, cv::NORM_INF), 0.0);
  }
  // The table: hue wraps at 180 both ways, saturation and value clip at 255 and truncate.
  const cv::Mat t = hsvLookupTable(-0.1, 0.5, -0.25);
  QCOMPARE(int(t.at<cv::Vec3b>(0, 0)[0]), 162);                          // 0 - 18 -> 162
  QCOMPARE(int(t.at<cv::Vec3b>(0, 170)[0]), 152);                        // 170 - 18
  QCOMPARE(int(t.at<cv::Vec3b>(0, 3)[1]), 4);                            // 4.5 -> 4
  QCOMPARE(int(t.at<cv::Vec3b>(0, 200)[1]), 255);                        // 300 -> 255
  QCOMPARE(int(t.at<cv::Vec3b>(0, 7)[2]), 5);                            // 5.25 -> 5
  QCOMPARE(int(hsvLookupTable(0.1, 0, 0).at<cv::Vec3b>(0, 170)[0]), 8);  // 188 -> 8
  // augmentHsv draws r = U(-1, 1) x gain (hue, saturation, value) from the generator.
  cv::Mat noise(37, 41, CV_8UC3);
  cv::randu(noise, 0, 256);
  cv::Mat drawn = noise.clone(), byHand = noise.clone();
  Rng a(99), b(99);
  augmentHsv(drawn, a, 0.5, 0.7, 0.4);
  const double r0 = b.uniform(-1, 1) * 0.5, r1 = b.uniform(-1, 1) * 0.7,
               r2 = b.uniform(-1, 1) * 0.4;
  applyHsvLookup(byHand, hsvLookupTable(r0, r1, r2));
  QCOMPARE(cv::norm(drawn, byHand, cv::NORM_INF), 0.0);
  QVERIFY(cv::norm(noise, drawn, cv::NORM_INF) > 10);  // the gains did change the image
  // Zero gains leave the image as it is.
  cv::Mat same = noise.clone();
  Rng c(1);
  augmentHsv(same, c, 0, 0, 0);
  QCOMPARE(cv::norm(same, noise, cv::NORM_INF), 0.0);
}

void TestAugment::hsvAndMirrorFused() {
  // The colour map and the left-right flip run in one pass: a sample with fliplr = 1 must be
  // exactly the mirror of the same sample with fliplr = 0 (same draws), boxes included.
  const int S = 96;
  std::vector<ImageRecord> records(1);
  records[0].width = S, records[0].height = S;
  records[0].boxes.push_back({2, 0.3f, 0.4f, 0.2f, 0.3f});
  auto li = std::make_shared<LoadedImage>();
  li->img = cv::Mat(S, S, CV_8UC3);
  cv::randu(li->img, 0, 256);
  li->w0 = li->h0 = S;
  AugmentContext ctx;
  ctx.records = &records;
  ctx.imgsz = S;
  ctx.aug.mosaic = 0;
  ctx.aug.translate = 0.05;
  ctx.load = [&](int64_t, StageTimes&) { return std::shared_ptr<const LoadedImage>(li); };
  const auto companion = [](Rng&) -> int64_t { return 0; };
  for (int trial = 0; trial < 4; ++trial) {
    StageTimes t;
    ctx.aug.fliplr = 0;
    Rng a(50 + trial);
    const Sample plain = makeTrainSample(ctx, 0, true, companion, a, t);
    const cv::Mat plainImg = plain.img.clone();
    ctx.aug.fliplr = 1;
    Rng b(50 + trial);
    const Sample mirrored = makeTrainSample(ctx, 0, true, companion, b, t);
    cv::Mat expect;
    cv::flip(plainImg, expect, 1);
    QCOMPARE(cv::norm(expect, mirrored.img, cv::NORM_INF), 0.0);
    QVERIFY(cv::norm(plainImg, mirrored.img, cv::NORM_INF) > 0);
    QCOMPARE(plain.boxes.size(), mirrored.boxes.size());
    for (size_t k = 0; k < plain.boxes.size(); ++k) {
      QCOMPARE(mirrored.boxes[k].x1, S - plain.boxes[k].x2);
      QCOMPARE(mirrored.boxes[k].x2, S - plain.boxes[k].x1);
      QCOMPARE(mirrored.boxes[k].y1, plain.boxes[k].y1);
    }
  }
}

void TestAugment::fusedAndOpenCvPathsAgree() {
  // The one-pass renderer (AVX2 CPUs) and OpenCV's passes (the others) give the same boxes and
  // pixels within OpenCV's fixed-point rounding, for mosaic and letterbox samples with and
  // without HSV, and flips.
  if (!resampleHasAvx2()) QSKIP("this CPU has no AVX2: both settings take the OpenCV path");
  const int S = 128;
  std::vector<ImageRecord> records(4);
  std::vector<std::shared_ptr<LoadedImage>> images;
  cv::RNG noise(4);
  for (int i = 0; i < 4; ++i) {
    records[i].width = 90 + 13 * i, records[i].height = 128 - 9 * i;
    records[i].boxes.push_back({i, 0.5f, 0.5f, 0.4f, 0.3f});
    auto li = std::make_shared<LoadedImage>();
    li->img = cv::Mat(records[i].height, records[i].width, CV_8UC3);
    for (int y = 0; y < li->img.rows; ++y)
      for (int x = 0; x < li->img.cols; ++x)
        li->img.at<cv::Vec3b>(y, x) =
            cv::Vec3b(uint8_t(2 * x + 40 * i), uint8_t(y + 30), uint8_t((x + y) % 256));
    li->w0 = li->img.cols, li->h0 = li->img.rows;
    images.push_back(li);
  }
  AugmentContext ctx;
  ctx.records = &records;
  ctx.imgsz = S;
  ctx.aug.flipud = 0.5;
  ctx.load = [&](int64_t i, StageTimes&) {
    return std::shared_ptr<const LoadedImage>(images[size_t(i)]);
  };
  const auto companion = [](Rng& r) -> int64_t { return int64_t(r.below(4)); };
  for (int trial = 0; trial < 16; ++trial) {
    ctx.aug.mosaic = trial % 2 ? 1.0 : 0.0;
    // HSV on in half the trials: the HSV round trip turns a one-level resampling difference into
    // a few levels where hue or saturation quantise differently.
    const bool hsvOn = trial % 4 < 2;
    ctx.aug.hsv_h = hsvOn ? 0.015 : 0.0;
    ctx.aug.hsv_s = hsvOn ? 0.7 : 0.0;
    ctx.aug.hsv_v = hsvOn ? 0.4 : 0.0;
    StageTimes t;
    ctx.fused = true;
    Rng a(900 + trial);
    const Sample fused = makeTrainSample(ctx, trial % 4, true, companion, a, t);
    ctx.fused = false;
    Rng b(900 + trial);
    const Sample plain = makeTrainSample(ctx, trial % 4, true, companion, b, t);
    QCOMPARE(fused.boxes.size(), plain.boxes.size());
    for (size_t k = 0; k < fused.boxes.size(); ++k) {
      QCOMPARE(fused.boxes[k].x1, plain.boxes[k].x1);
      QCOMPARE(fused.boxes[k].y2, plain.boxes[k].y2);
    }
    cv::Mat diff;
    cv::absdiff(fused.img, plain.img, diff);
    double worst = 0;
    cv::minMaxLoc(diff.reshape(1), nullptr, &worst);
    const double over2 = cv::countNonZero(diff.reshape(1) > 2) / double(diff.total() * 3);
    QVERIFY2(
        worst <= (hsvOn ? 16 : 2) && over2 < (hsvOn ? 0.05 : 0.0) + 1e-9 && cv::mean(diff)[0] < 0.5,
        qPrintable(QString("trial %1: max %2, mean %3, share over 2 levels %4")
                       .arg(trial)
                       .arg(worst)
                       .arg(cv::mean(diff)[0])
                       .arg(over2)));
  }
}

void TestAugment::boxCandidatesDropSlivers() {
  // Identity transform, output cut at x = 100: a box mostly outside loses > 90% of its area.
  const cv::Matx33d I = cv::Matx33d::eye();
  const std::vector<PixBox> in{
      {0, 10, 10, 50, 50}, {1, 95, 10, 195, 50}, {2, 10, 10, 11.5f, 50}, {3, 60, 60, 99, 99}};
  const auto out = transformBoxes(in, I, cv::Size(100, 100), 1.0);
  std::vector<int> kept;
  for (const auto& b : out) kept.push_back(b.cls);
  QCOMPARE(kept, (std::vector<int>{0, 3}));  // 1 keeps 5% of its area, 2 is 1.5 px wide
}

QTEST_GUILESS_MAIN(TestAugment)
#include "tst_augment.moc"
