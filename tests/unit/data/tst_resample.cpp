// The fused renderer (resample + flips + RGB layout) against the OpenCV passes it
// replaces, its two kernels against each other, its edge cases (one-pixel sources, widths
// that are not multiples of 8, views inside larger images), and the direct JPEG decoder
// against cv::imdecode.
#include <QtTest>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "core/data/augment.h"
#include "core/data/image_source.h"
#include "core/data/resample.h"

using namespace stave::data;

namespace {
// The reference, in float and rounded once: each tile through cv::resize onto a grey canvas,
// the flips, then RGB planes.
std::vector<uint8_t> reference(const RgbRender& r) {
  cv::Mat canvas(r.out, CV_32FC3, cv::Scalar::all(r.grey));
  for (const auto& t : r.tiles) {
    cv::Mat src, roi = canvas(t.dst);
    t.src.convertTo(src, CV_32FC3);
    cv::resize(src, roi, t.dst.size(), 0, 0, cv::INTER_LINEAR);
  }
  cv::Mat mapped;
  canvas.convertTo(mapped, CV_8UC3);  // rounds and saturates
  if (r.flipLR) cv::flip(mapped, mapped, 1);
  if (r.flipUD) cv::flip(mapped, mapped, 0);
  std::vector<uint8_t> planes(size_t(3) * size_t(r.out.area()));
  copyBgrToRgb(mapped, planes.data(), false);
  return planes;
}

std::vector<uint8_t> render(const RgbRender& r, bool channelsLast = false) {
  std::vector<uint8_t> out(size_t(3) * size_t(r.out.area()), 7);
  renderRgb(r, out.data(), channelsLast);
  return out;
}

// Largest and mean absolute difference.
std::pair<int, double> diff(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  int worst = 0;
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const int d = std::abs(int(a[i]) - int(b[i]));
    worst = std::max(worst, d);
    sum += d;
  }
  return {worst, sum / double(std::max<size_t>(1, a.size()))};
}

cv::Mat smoothImage(int w, int h, int seed) {
  // Smooth content (like photos) plus some noise: gradients and blobs.
  cv::Mat m(h, w, CV_8UC3);
  cv::RNG rng(seed);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      m.at<cv::Vec3b>(y, x) = cv::Vec3b(uint8_t((x * 3 + seed * 17) % 256), uint8_t((y * 2) % 256),
                                        uint8_t((x + y + seed * 40) % 256));
  cv::Mat noise(h, w, CV_8UC3);
  rng.fill(noise, cv::RNG::UNIFORM, 0, 24);
  m += noise;
  return m;
}

// A random mosaic-like render: four tiles of different scales and flips.
RgbRender randomRender(cv::RNG& rng, std::vector<cv::Mat>& keep, cv::Size out) {
  RgbRender r;
  r.out = out;
  const int xc = rng.uniform(1, out.width), yc = rng.uniform(1, out.height);
  const cv::Rect quads[4] = {{0, 0, xc, yc},
                             {xc, 0, out.width - xc, yc},
                             {0, yc, xc, out.height - yc},
                             {xc, yc, out.width - xc, out.height - yc}};
  for (int q = 0; q < 4; ++q) {
    const double s = rng.uniform(0.4, 1.7);
    const int sw = std::max(1, int(quads[q].width / s)), sh = std::max(1, int(quads[q].height / s));
    keep.push_back(smoothImage(sw + 9, sh + 5, rng.uniform(0, 1000)));
    // A view inside a larger image: the renderer must not read around it.
    r.tiles.push_back({keep.back()(cv::Rect(4, 2, sw, sh)), quads[q]});
  }
  r.flipLR = rng.uniform(0, 2) == 1;
  r.flipUD = rng.uniform(0, 2) == 1;
  return r;
}
}  // namespace

class TestResample : public QObject {
  Q_OBJECT
 private slots:
  void matchesOpenCvPasses();
  void kernelsGiveTheSameBytes();
  void flipsAndLayouts();
  void edgeCases();
  void viewsAreNotReadAround();
  void greyWhereNoTile();
  void jpegDecoderMatchesOpenCv();
  void jpegDecoderRefusesBadData();
};

void TestResample::matchesOpenCvPasses() {
  cv::RNG rng(1);
  for (int trial = 0; trial < 12; ++trial) {
    std::vector<cv::Mat> keep;
    const RgbRender r = randomRender(rng, keep, cv::Size(160 + 8 * trial, 128 + 3 * trial));
    const auto [worst, mean] = diff(render(r), reference(r));
    // 8-bit weights and fixed point against float: one level at most, and rarely (about 1% of
    // the values are off by one).
    QVERIFY2(worst <= 1 && mean < 0.05,
             qPrintable(QString("trial %1: max %2, mean %3").arg(trial).arg(worst).arg(mean)));
  }
}

void TestResample::kernelsGiveTheSameBytes() {
  if (!resampleHasAvx2()) QSKIP("this CPU has no AVX2: only the scalar kernel runs here");
  cv::RNG rng(2);
  for (int trial = 0; trial < 12; ++trial) {
    std::vector<cv::Mat> keep;
    RgbRender r = randomRender(rng, keep, cv::Size(97 + 13 * trial, 61 + 7 * trial));
    r.kernel = ResampleKernel::Scalar;
    const auto scalar = render(r);
    r.kernel = ResampleKernel::Avx2;
    const auto avx2 = render(r);
    QVERIFY2(scalar == avx2,
             qPrintable(
                 QString("trial %1: max difference %2").arg(trial).arg(diff(scalar, avx2).first)));
  }
}

void TestResample::flipsAndLayouts() {
  cv::RNG rng(3);
  std::vector<cv::Mat> keep;
  RgbRender r = randomRender(rng, keep, cv::Size(123, 77));
  r.flipLR = r.flipUD = false;
  const auto plain = render(r);
  const cv::Size sz = r.out;
  const size_t plane = size_t(sz.area());
  for (int mode = 1; mode < 4; ++mode) {
    r.flipLR = mode & 1;
    r.flipUD = mode & 2;
    const auto flipped = render(r);
    for (int c = 0; c < 3; ++c) {
      cv::Mat a(sz, CV_8U, const_cast<uint8_t*>(plain.data()) + c * plane), expect;
      cv::flip(a, expect, r.flipLR && r.flipUD ? -1 : (r.flipLR ? 1 : 0));
      cv::Mat b(sz, CV_8U, const_cast<uint8_t*>(flipped.data()) + c * plane);
      QCOMPARE(cv::norm(expect, b, cv::NORM_INF), 0.0);
    }
  }
  // Interleaved RGB holds the same bytes as the planes.
  r.flipLR = r.flipUD = false;
  const auto hwc = render(r, true);
  for (size_t i = 0; i < plane; ++i)
    for (size_t c = 0; c < 3; ++c) QCOMPARE(hwc[3 * i + c], plain[c * plane + i]);
  // The BGR image of the planes is the same picture.
  const cv::Mat bgr = planarRgbToBgr(plain.data(), sz);
  QCOMPARE(int(bgr.at<cv::Vec3b>(5, 7)[0]), int(plain[2 * plane + 5 * 123 + 7]));
  QCOMPARE(int(bgr.at<cv::Vec3b>(5, 7)[2]), int(plain[5 * 123 + 7]));
}

void TestResample::edgeCases() {
  for (const auto kernel : {ResampleKernel::Scalar, ResampleKernel::Auto}) {
    // One source pixel stretched over a tile; a one-row and a one-column source; tiles narrower
    // than 8 columns and widths that are not multiples of 8; a tile touching every border.
    const cv::Mat one(1, 1, CV_8UC3, cv::Scalar(10, 20, 30));
    const cv::Mat row = smoothImage(37, 1, 4), col = smoothImage(1, 29, 5);
    const cv::Mat big = smoothImage(300, 200, 6);
    RgbRender r;
    r.out = cv::Size(83, 45);
    r.kernel = kernel;
    r.tiles = {{one, {0, 0, 9, 7}},
               {row, {9, 0, 5, 11}},
               {col, {14, 0, 21, 6}},
               {big, {35, 0, 48, 45}},
               {big(cv::Rect(3, 3, 2, 2)), {0, 11, 35, 34}}};
    const auto got = render(r);
    const auto [worst, mean] = diff(got, reference(r));
    QVERIFY2(worst <= 1, qPrintable(QString("max difference %1 (mean %2)").arg(worst).arg(mean)));
    // The one-pixel tile is that pixel everywhere.
    QCOMPARE(int(got[0]), 30);                         // R
    QCOMPARE(int(got[size_t(r.out.area()) + 8]), 20);  // G
    QCOMPARE(int(got[2 * size_t(r.out.area())]), 10);  // B
  }
  // Tiles outside the output are refused, not written out of bounds.
  RgbRender bad;
  bad.out = cv::Size(10, 10);
  bad.tiles = {{smoothImage(4, 4, 1), {8, 8, 4, 4}}};
  std::vector<uint8_t> out(300);
  QVERIFY_THROWS_EXCEPTION(std::exception, renderRgb(bad, out.data(), false));
}

void TestResample::viewsAreNotReadAround() {
  // A black view inside a white image: no white may leak in, at any scale or flip.
  cv::Mat frame(60, 80, CV_8UC3, cv::Scalar::all(255));
  frame(cv::Rect(10, 10, 50, 30)).setTo(cv::Scalar::all(0));
  for (const auto kernel : {ResampleKernel::Scalar, ResampleKernel::Auto}) {
    for (const cv::Size dst : {cv::Size(17, 9), cv::Size(50, 30), cv::Size(131, 77)}) {
      RgbRender r;
      r.out = dst;
      r.kernel = kernel;
      r.flipLR = dst.width == 131;
      r.tiles = {{frame(cv::Rect(10, 10, 50, 30)), cv::Rect(cv::Point(), dst)}};
      const auto got = render(r);
      QCOMPARE(*std::max_element(got.begin(), got.end()), uint8_t(0));
    }
  }
}

void TestResample::greyWhereNoTile() {
  RgbRender r;
  r.out = cv::Size(20, 10);
  r.grey = 100;
  r.tiles = {{cv::Mat(4, 4, CV_8UC3, cv::Scalar(0, 0, 0)), {0, 0, 10, 10}}};
  const auto got = render(r);
  QCOMPARE(int(got[15]), 100);  // uncovered: grey
  QCOMPARE(int(got[5]), 0);     // the black tile
}

void TestResample::jpegDecoderMatchesOpenCv() {
  const cv::Mat img = smoothImage(333, 217, 9);
  std::vector<uint8_t> bytes;
  QVERIFY(cv::imencode(".jpg", img, bytes, {cv::IMWRITE_JPEG_QUALITY, 90}));
  const std::pair<int, int> modes[] = {{1, cv::IMREAD_COLOR},
                                       {2, cv::IMREAD_REDUCED_COLOR_2},
                                       {4, cv::IMREAD_REDUCED_COLOR_4},
                                       {8, cv::IMREAD_REDUCED_COLOR_8}};
  for (const auto& [denom, flag] : modes) {
    const cv::Mat ours = decodeJpegBgr(bytes.data(), bytes.size(), denom);
    const cv::Mat theirs = cv::imdecode(bytes, flag);
    QVERIFY2(!ours.empty(), qPrintable(QString("1/%1").arg(denom)));
    QCOMPARE(ours.size(), theirs.size());
    QCOMPARE(cv::norm(ours, theirs, cv::NORM_INF), 0.0);
  }
  // A grey JPEG: three equal channels, as OpenCV gives them.
  cv::Mat grey;
  cv::cvtColor(img, grey, cv::COLOR_BGR2GRAY);
  QVERIFY(cv::imencode(".jpg", grey, bytes));
  const cv::Mat ours = decodeJpegBgr(bytes.data(), bytes.size(), 1);
  QCOMPARE(ours.type(), CV_8UC3);
  QCOMPARE(cv::norm(ours, cv::imdecode(bytes, cv::IMREAD_COLOR), cv::NORM_INF), 0.0);
}

void TestResample::jpegDecoderRefusesBadData() {
  std::vector<uint8_t> bytes;
  QVERIFY(cv::imencode(".jpg", smoothImage(64, 48, 3), bytes));
  // Garbage, an empty buffer and a header cut short: empty, no crash, no output on stderr.
  const std::vector<uint8_t> garbage(500, 0x5A);
  QVERIFY(decodeJpegBgr(garbage.data(), garbage.size()).empty());
  QVERIFY(decodeJpegBgr(bytes.data(), 0).empty());
  QVERIFY(decodeJpegBgr(bytes.data(), 40).empty());
  // A file cut in the middle of its data still decodes (libjpeg fills the rest), as OpenCV
  // does; the dataset scan reports such files (image-truncated) and training skips them.
  const cv::Mat half = decodeJpegBgr(bytes.data(), bytes.size() / 2);
  QVERIFY(half.empty() || half.size() == cv::Size(64, 48));
}

QTEST_GUILESS_MAIN(TestResample)
#include "tst_resample.moc"
