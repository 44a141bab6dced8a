// The loader: DistributedSampler semantics, identical bytes whatever the thread count,
// in-order delivery, exceptions reaching the consumer, caches that change nothing but speed,
// validation letterbox/rect geometry, and bad images that never stop it.
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "core/data/demo.h"
#include "core/data/loader_config.h"
#include "core/data/loader.h"
#include "core/data/prepare.h"
#include "core/data/sampler.h"

using namespace stave::data;
namespace fs = std::filesystem;

namespace {
struct Demo {
  QTemporaryDir dir;
  DataSpec spec;
  SplitIndex train, val;
  explicit Demo(int n = 24, int imgsz = 128) {
    DemoOptions o;
    o.out = dir.path().toStdString();
    o.train = n;
    o.val = 8;
    o.imgsz = imgsz;
    o.seed = 3;
    const auto st = makeDemo(o);
    if (!st) qFatal("%s", st.errorText().c_str());
    spec = loadDataYaml(o.out + "/data.yaml").value();
    train = scanSplit(spec, "train").value();
    val = scanSplit(spec, "val").value();
  }
};

std::vector<Batch> epoch(Loader& l, int e, bool mosaic = true) {
  l.startEpoch(e, mosaic);
  std::vector<Batch> out;
  while (auto b = l.next()) out.push_back(std::move(*b));
  return out;
}

bool sameBatch(const Batch& a, const Batch& b) {
  const size_t bytes = size_t(a.n) * 3 * a.height * a.width;
  return a.seq == b.seq && a.n == b.n && a.height == b.height && a.width == b.width &&
         a.targets == b.targets && a.paths == b.paths &&
         std::memcmp(a.pixels.get(), b.pixels.get(), bytes) == 0;
}

LoaderOptions smallOptions() {
  LoaderOptions o;
  o.imgsz = 128;
  o.batch = 4;
  o.workers = 2;
  o.prefetch = 2;
  o.seed = 11;
  o.aug.degrees = 10;
  o.aug.mixup = 0.3;
  o.aug.flipud = 0.2;
  o.aug.shear = 2;
  return o;
}
}  // namespace

class TestLoader : public QObject {
  Q_OBJECT
 private slots:
  void sampler_data();
  void sampler();
  void identicalWhateverTheThreads();
  void epochsDifferAndRestart();
  void workersPersistOrRestart();
  void optionsFollowTheSchema();
  void exceptionsReachTheConsumer();
  void destructorStopsBusyWorkers();
  void cachesChangeNothingButSpeed();
  void oneDiskCacheForTrainingAndValidation();
  void ramBudgetIsChecked();
  void validationGeometry_data();
  void validationGeometry();
  void targetsAreNormalised();
  void channelsLast();
  void badImagesNeverStopTheLoader();
  void damagedDiskCacheIsNotTrainedOn();
  void ranksShareTheEpoch();
  void epochStartsAtAGivenBatch();
  void mosaicCompanionsCrossTheEpochBoundary();
  void exifOrientationIsApplied();
  void emptySplitEndsAtOnce();
  void prepareBuildsSharedDiskCaches();
};

void TestLoader::sampler_data() {
  QTest::addColumn<int>("n");
  QTest::addColumn<int>("world");
  QTest::addColumn<bool>("shuffle");
  QTest::newRow("even") << 12 << 3 << true;
  QTest::newRow("padded") << 10 << 4 << true;
  QTest::newRow("fewer than ranks") << 2 << 3 << false;
  QTest::newRow("single") << 7 << 1 << true;
}

void TestLoader::sampler() {
  QFETCH(int, n);
  QFETCH(int, world);
  QFETCH(bool, shuffle);
  const int per = (n + world - 1) / world;
  std::vector<int64_t> perm;
  if (shuffle)
    perm = epochPermutation(n, 5, 2);
  else
    for (int i = 0; i < n; ++i) perm.push_back(i);
  std::multiset<int64_t> all;
  for (int r = 0; r < world; ++r) {
    const auto idx = distributedIndices(n, r, world, shuffle, 5, 2);
    QCOMPARE(int(idx.size()), per);
    // Rank r takes positions r, r + W, ... of the padded permutation.
    for (int k = 0; k < per; ++k) QCOMPARE(idx[size_t(k)], perm[size_t((r + k * world) % n)]);
    all.insert(idx.begin(), idx.end());
  }
  for (int i = 0; i < n; ++i) QVERIFY(all.count(i) >= 1);
  QCOMPARE(int(all.size()), per * world);
  if (shuffle && n > 3) {
    QVERIFY(epochPermutation(n, 5, 2) == epochPermutation(n, 5, 2));
    QVERIFY(epochPermutation(n, 5, 2) != epochPermutation(n, 5, 3));
  }
}

void TestLoader::identicalWhateverTheThreads() {
  Demo d;
  LoaderOptions o = smallOptions();
  std::vector<std::vector<Batch>> runs;
  for (int workers : {0, 1, 3}) {
    o.workers = workers;
    Loader l(d.train, o);
    runs.push_back(epoch(l, 1));
  }
  QCOMPARE(runs[0].size(), size_t(6));
  for (size_t r = 1; r < runs.size(); ++r) {
    QCOMPARE(runs[r].size(), runs[0].size());
    for (size_t b = 0; b < runs[0].size(); ++b)
      QVERIFY2(sameBatch(runs[0][b], runs[r][b]),
               qPrintable(QString("run %1 batch %2").arg(r).arg(b)));
  }
  // Delivered in order.
  for (size_t b = 0; b < runs[2].size(); ++b) QCOMPARE(runs[2][b].seq, int64_t(b));
}

void TestLoader::epochsDifferAndRestart() {
  Demo d;
  Loader l(d.train, smallOptions());
  auto e0 = epoch(l, 0);
  auto e1 = epoch(l, 1);
  QVERIFY(e0[0].paths != e1[0].paths);
  // Restart mid-epoch: the first batch comes again, the same.
  l.startEpoch(0, true);
  auto first = l.next();
  auto second = l.next();
  QVERIFY(first && second);
  l.startEpoch(0, true);
  auto again = l.next();
  QVERIFY(again && sameBatch(*again, e0[0]));
  QVERIFY(sameBatch(*first, e0[0]));
  // close_mosaic: the same epoch without mosaic is different.
  auto noMosaic = epoch(l, 0, false);
  QVERIFY(!sameBatch(noMosaic[0], e0[0]));
  QCOMPARE(l.stats().batches, int64_t(6 + 6 + 2 + 1 + 6));
}

// persistent_workers: the same threads for every epoch, or fresh ones at each new epoch (and
// mid-epoch restart); the batches are the same either way.
void TestLoader::workersPersistOrRestart() {
  Demo d;
  LoaderOptions o = smallOptions();
  Loader kept(d.train, o);
  o.persistentWorkers = false;
  Loader fresh(d.train, o);
  for (int e = 0; e < 3; ++e) {
    auto a = epoch(kept, e), b = epoch(fresh, e);
    QCOMPARE(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) QVERIFY(sameBatch(a[i], b[i]));
  }
  QCOMPARE(kept.stats().workerStarts, int64_t(1));
  QCOMPARE(fresh.stats().workerStarts, int64_t(3));  // at construction, then epochs 1 and 2
  // Restarting in the middle of an epoch (a batch possibly being built) is safe.
  fresh.startEpoch(0, true);
  QVERIFY(fresh.next().has_value());
  auto again = epoch(fresh, 0);
  QCOMPARE(again.size(), size_t(6));
  QCOMPARE(fresh.stats().workerStarts, int64_t(5));
  // Without worker threads there is nothing to restart.
  o.workers = 0;
  Loader inline0(d.train, o);
  epoch(inline0, 0);
  epoch(inline0, 1);
  QCOMPARE(inline0.stats().workerStarts, int64_t(0));
}

// One source for defaults and ranges: the run-config schema. The loader's own check uses the
// schema's ranges (they had drifted: degrees 360 vs 180, scale 0.95 vs 0.99, prefetch 1024 vs
// 64), and default options carry the schema's defaults.
void TestLoader::optionsFollowTheSchema() {
  using stave::config::defaultNumber;
  using stave::config::findParam;
  const LoaderOptions d;
  QCOMPARE(d.imgsz, int(defaultNumber("imgsz")));
  QCOMPARE(d.prefetch, int(defaultNumber("prefetch")));
  QCOMPARE(d.aug.degrees, defaultNumber("degrees"));
  QCOMPARE(d.aug.mosaic, defaultNumber("mosaic"));
  QCOMPARE(d.aug.scale, defaultNumber("scale"));
  Demo demo;
  auto errorFor = [&](LoaderOptions o) {
    const stave::Status st = Loader::validate(demo.train, o);
    return st ? std::string() : st.errorText();
  };
  LoaderOptions o = smallOptions();
  QVERIFY(errorFor(o).empty());
  o.aug.degrees = findParam("degrees")->max;
  o.aug.scale = findParam("scale")->max;
  o.prefetch = int(findParam("prefetch")->max);
  QVERIFY2(errorFor(o).empty(), errorFor(o).c_str());
  o.aug.degrees = findParam("degrees")->max + 1;
  QVERIFY(errorFor(o).find("degrees") != std::string::npos);
  o = smallOptions();
  o.prefetch = int(findParam("prefetch")->max) + 1;
  const std::string e = errorFor(o);
  QVERIFY2(e.find("prefetch") != std::string::npos && e.find("[1, 64]") != std::string::npos,
           e.c_str());
  // Each augmentation key is checked against its row (the check walks augmentBindings()).
  for (const auto& b : stave::data::augmentBindings()) {
    LoaderOptions bad = smallOptions();
    bad.aug.*std::get<double stave::data::AugmentOptions::*>(b.member) = findParam(b.key)->max + 1;
    const std::string why = errorFor(bad);
    QVERIFY2(why.find(std::string(b.key) + ": is ") != std::string::npos, b.key);
  }
}

void TestLoader::exceptionsReachTheConsumer() {
  Demo d;
  LoaderOptions o = smallOptions();
  std::atomic<int> calls{0};
  o.allocate = [&](size_t n) -> std::shared_ptr<uint8_t> {
    if (++calls == 3) throw std::runtime_error("pinned memory exhausted");
    return std::shared_ptr<uint8_t>(new uint8_t[n], std::default_delete<uint8_t[]>());
  };
  o.workers = 1;
  o.prefetch = 1;
  Loader l(d.train, o);
  l.startEpoch(0, true);
  QVERIFY(l.next());
  QVERIFY(l.next());
  bool thrown = false;
  try {
    l.next();
  } catch (const std::runtime_error& e) {
    thrown = true;
    const QString what = e.what();
    QVERIFY2(what.contains("batch 2") && what.contains("pinned memory exhausted"), e.what());
  }
  QVERIFY(thrown);
  QVERIFY(l.next());  // the loader goes on with the next batch
}

void TestLoader::destructorStopsBusyWorkers() {
  Demo d;
  LoaderOptions o = smallOptions();
  o.workers = 3;
  const auto t0 = std::chrono::steady_clock::now();
  {
    Loader l(d.train, o);
    l.startEpoch(0, true);
    QVERIFY(l.next());
  }  // batches still being built
  QVERIFY(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
}

// Training and validation load the same pixels: a split loaded both ways (a training loader
// and one without augmentation) gets one disk cache, built by whichever loader comes first.
void TestLoader::oneDiskCacheForTrainingAndValidation() {
  Demo d;
  LoaderOptions o = smallOptions();
  o.cache = CacheMode::Disk;
  const fs::path cacheDir = fs::path(defaultDiskCachePath(d.val, o.imgsz)).parent_path();
  auto cacheFiles = [&] {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(cacheDir, ec))
      if (e.path().filename().string().rfind("images-", 0) == 0)
        names.push_back(e.path().filename().string());
    return names;
  };
  o.augment = true;
  Loader train(d.val, o);
  epoch(train, 0);
  const auto afterTrain = cacheFiles();
  QCOMPARE(afterTrain.size(), size_t(1));
  o.augment = false;
  Loader val(d.val, o);
  epoch(val, 0);
  QCOMPARE(val.stats().decoded, int64_t(0));
  QCOMPARE(cacheFiles(), afterTrain);
}

void TestLoader::cachesChangeNothingButSpeed() {
  Demo d;
  for (bool augment : {true, false}) {
    LoaderOptions o = smallOptions();
    o.augment = augment;
    const SplitIndex& split = augment ? d.train : d.val;
    Loader none(split, o);
    const auto ref = epoch(none, 0);
    o.cache = CacheMode::Ram;
    Loader ram(split, o);
    auto r1 = epoch(ram, 0);
    QVERIFY(ram.stats().cacheHits > 0 || !augment);
    const QString diskPath = d.dir.filePath(augment ? "train.raw" : "val.raw");
    QVERIFY(buildDiskCache(split, o.imgsz, diskPath.toStdString(), 2).ok());
    const auto mtime = fs::last_write_time(diskPath.toStdString());
    QVERIFY(
        buildDiskCache(split, o.imgsz, diskPath.toStdString(), 2).ok());  // already there
    QVERIFY(fs::last_write_time(diskPath.toStdString()) == mtime);
    o.cache = CacheMode::Disk;
    o.diskCachePath = diskPath.toStdString();
    Loader disk(split, o);
    auto r2 = epoch(disk, 0);
    QCOMPARE(disk.stats().decoded, int64_t(0));
    for (size_t b = 0; b < ref.size(); ++b) {
      QVERIFY2(sameBatch(ref[b], r1[b]), "cache=ram changed a batch");
      QVERIFY2(sameBatch(ref[b], r2[b]), "cache=disk changed a batch");
    }
  }
}

// Pixels of a disk-cache entry changed after it was written (zeroed here) are caught by the
// entry's checksum: the image is decoded from its file instead, and the cache is named.
void TestLoader::damagedDiskCacheIsNotTrainedOn() {
  Demo d;
  LoaderOptions o = smallOptions();
  o.augment = false;
  Loader none(d.val, o);
  const auto ref = epoch(none, 0);
  const std::string path = d.dir.filePath("val.raw").toStdString();
  QVERIFY(buildDiskCache(d.val, o.imgsz, path, 2).ok());
  {
    // Entry 0 follows the 64-byte header; its first field is the pixels' offset.
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    uint64_t offset = 0;
    f.seekg(64);
    f.read(reinterpret_cast<char*>(&offset), sizeof offset);
    QVERIFY(offset > 64);
    f.seekp(static_cast<std::streamoff>(offset));
    const std::string zeros(300, '\0');
    f.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
  }
  o.cache = CacheMode::Disk;
  o.diskCachePath = path;
  Loader disk(d.val, o);
  const auto got = epoch(disk, 0);
  QCOMPARE(got.size(), ref.size());
  for (size_t b = 0; b < ref.size(); ++b) QVERIFY2(sameBatch(ref[b], got[b]), "zeroed pixels used");
  const auto problems = disk.takeImageProblems();
  QCOMPARE(problems.size(), size_t(1));
  QVERIFY(!problems[0].undecodable);
  QVERIFY2(problems[0].reason.find("checksum mismatch") != std::string::npos,
           problems[0].reason.c_str());
  QCOMPARE(disk.stats().decodeFailures, int64_t(0));
}

void TestLoader::ramBudgetIsChecked() {
  Demo d;
  LoaderOptions o = smallOptions();
  o.cache = CacheMode::Ram;
  o.ramBudgetBytes = 100000;
  const auto st = Loader::validate(d.train, o);
  QVERIFY(!st.ok());
  const QString msg = QString::fromStdString(st.errorText());
  QVERIFY2(msg.contains("cache=ram needs") && msg.contains("24 train images") &&
               msg.contains("0.0001 GB"),
           qPrintable(msg));
  bool thrown = false;
  try {
    Loader l(d.train, o);
  } catch (const std::runtime_error&) {
    thrown = true;
  }
  QVERIFY(thrown);
  o.ramBudgetBytes = 0;
  QVERIFY(Loader::validate(d.train, o).ok());
}

void TestLoader::validationGeometry_data() {
  QTest::addColumn<bool>("rect");
  QTest::newRow("square letterbox") << false;
  QTest::newRow("rect batches") << true;
}

void TestLoader::validationGeometry() {
  // Boxes mapped back through ImageMeta land on the original labels.
  QFETCH(bool, rect);
  Demo d(8, 200);
  LoaderOptions o = smallOptions();
  o.augment = false;
  o.rect = rect;
  o.imgsz = 160;
  Loader l(d.val, o);
  int checked = 0;
  for (const auto& b : epoch(l, 0)) {
    QCOMPARE(b.width % 32, 0);
    QCOMPARE(b.height % 32, 0);
    if (!rect)
      QVERIFY(b.width == 160 && b.height == 160);
    else
      QVERIFY(b.width <= 192 && b.height <= 192);
    for (int64_t t = 0; t < b.numTargets(); ++t) {
      const float* row = &b.targets[size_t(t) * 6];
      const int i = int(row[0]);
      const ImageMeta& m = b.meta[size_t(i)];
      const float x1 = ((row[2] - row[4] / 2) * b.width - m.padX) / m.scale;
      const float y1 = ((row[3] - row[5] / 2) * b.height - m.padY) / m.scale;
      // Find the matching original label.
      const ImageRecord* rec = nullptr;
      for (const auto& r : d.val.images)
        if (r.imagePath == b.paths[size_t(i)]) rec = &r;
      QVERIFY(rec);
      QCOMPARE(m.origWidth, rec->width);
      bool found = false;
      for (const auto& bx : rec->boxes)
        found = found || (std::abs((bx.cx - bx.w / 2) * rec->width - x1) < 1.0 &&
                          std::abs((bx.cy - bx.h / 2) * rec->height - y1) < 1.0);
      QVERIFY(found);
      ++checked;
    }
  }
  QVERIFY(checked > 5);
}

void TestLoader::targetsAreNormalised() {
  Demo d;
  Loader l(d.train, smallOptions());
  int64_t rows = 0;
  for (const auto& b : epoch(l, 0)) {
    QCOMPARE(b.height, 128);
    QCOMPARE(int(b.paths.size()), b.n);
    for (int64_t t = 0; t < b.numTargets(); ++t) {
      const float* r = &b.targets[size_t(t) * 6];
      QVERIFY(r[0] >= 0 && r[0] < b.n);
      QVERIFY(r[1] >= 0 && r[1] < 5);
      QVERIFY(r[4] > 0 && r[5] > 0);
      QVERIFY(r[2] - r[4] / 2 >= -1e-5 && r[2] + r[4] / 2 <= 1 + 1e-5);
      QVERIFY(r[3] - r[5] / 2 >= -1e-5 && r[3] + r[5] / 2 <= 1 + 1e-5);
      ++rows;
    }
    QVERIFY(b.times.decode + b.times.augment + b.times.collate > 0);
  }
  QVERIFY(rows > 24);
}

void TestLoader::channelsLast() {
  Demo d;
  LoaderOptions o = smallOptions();
  Loader a(d.train, o);
  o.channelsLast = true;
  Loader b(d.train, o);
  const Batch x = a.buildBatch(0, true, 1), y = b.buildBatch(0, true, 1);
  QVERIFY(y.channelsLast && !x.channelsLast);
  const int H = x.height, W = x.width;
  for (int i = 0; i < x.n; ++i)
    for (int c = 0; c < 3; ++c)
      for (int yy = 0; yy < H; yy += 7)
        for (int xx = 0; xx < W; xx += 5)
          QCOMPARE(x.pixels.get()[((size_t(i) * 3 + c) * H + yy) * W + xx],
                   y.pixels.get()[((size_t(i) * H + yy) * W + xx) * 3 + c]);
}

void TestLoader::badImagesNeverStopTheLoader() {
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  auto save = [&](const std::string& rel, const cv::Mat& m) {
    fs::create_directories((root / rel).parent_path());
    QVERIFY(cv::imwrite((root / rel).string(), m));
  };
  cv::Mat big(3000, 4000, CV_8UC3, cv::Scalar(30, 60, 90));
  cv::rectangle(big, cv::Rect(1000, 1000, 2000, 1000), cv::Scalar(200, 10, 10), cv::FILLED);
  save("images/train/huge.jpg", big);
  std::ofstream(root / "labels/train/huge.txt") << "0 0.5 0.5 0.5 0.333333\n";
  save("images/train/alpha.png", cv::Mat(50, 40, CV_8UC4, cv::Scalar(1, 2, 3, 100)));
  save("images/train/deep.png",
       cv::Mat(30, 60, CV_16UC3, cv::Scalar(256 * 10, 256 * 20, 256 * 30)));
  save("images/train/gray.jpg", cv::Mat(40, 40, CV_8UC1, cv::Scalar(90)));
  save("images/train/ö ü/naïve name.jpg", cv::Mat(40, 40, CV_8UC3, cv::Scalar(5, 5, 5)));
  save("images/train/later-corrupt.jpg", cv::Mat(40, 40, CV_8UC3, cv::Scalar(5, 5, 5)));
  save("images/val/v.jpg", cv::Mat(40, 40, CV_8UC3, cv::Scalar(5, 5, 5)));
  std::ofstream(root / "data.yaml") << "train: images/train\nval: images/val\nnames: [a]\n";
  const auto spec = loadDataYaml((root / "data.yaml").string()).value();
  ScanOptions so;
  so.useCache = false;
  const auto index = scanSplit(spec, "train", so).value();
  QCOMPARE(index.images.size(), size_t(6));
  // Corrupt one image after the scan: the loader trains on grey instead and counts it.
  {
    std::ofstream f(root / "images/train/later-corrupt.jpg", std::ios::binary | std::ios::trunc);
    f << "\xFF\xD8\xFF garbage";
  }
  for (auto [augment, cache] : {std::pair{false, CacheMode::None}, {true, CacheMode::None},
                                {false, CacheMode::Disk}}) {
    LoaderOptions o;
    o.imgsz = 256;
    o.batch = 3;
    o.workers = 2;
    o.augment = augment;
    o.shuffle = false;
    o.cache = cache;
    if (cache == CacheMode::Disk) o.diskCachePath = (root / "cache.raw").string();
    Loader l(index, o);
    const auto t0 = std::chrono::steady_clock::now();
    auto batches = epoch(l, 0);
    QCOMPARE(batches.size(), size_t(2));
    QCOMPARE(l.stats().decodeFailures, int64_t(1));
    // Named once (for the trainer's warning), also when the disk cache stood in for it.
    const auto problems = l.takeImageProblems();
    QCOMPARE(problems.size(), size_t(1));
    QVERIFY(QString::fromStdString(problems[0].path).endsWith("later-corrupt.jpg"));
    QVERIFY(problems[0].undecodable);
    epoch(l, 1);
    QVERIFY(l.takeImageProblems().empty());
    QVERIFY(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
    if (!augment) {
      // The huge JPEG (decoded at 1/8 scale) keeps its box: 2000x1000 of 4000x3000.
      bool found = false;
      for (const auto& b : batches)
        for (int i = 0; i < b.n; ++i)
          if (QString::fromStdString(b.paths[size_t(i)]).endsWith("huge.jpg")) {
            found = true;
            QCOMPARE(b.meta[size_t(i)].origWidth, 4000);
            QVERIFY(std::abs(b.meta[size_t(i)].scale - 256.f / 4000) < 1e-6);
            // The red rectangle's centre pixel is red in RGB planes.
            const size_t plane = size_t(b.height) * b.width;
            const uint8_t* img = b.pixels.get() + size_t(i) * 3 * plane;
            const size_t c = size_t(b.height / 2) * b.width + b.width / 2;
            QVERIFY(img[c] < 30 && img[2 * plane + c] > 180);
          }
      QVERIFY(found);
    }
  }
}

void TestLoader::ranksShareTheEpoch() {
  Demo d(10);
  LoaderOptions o = smallOptions();
  o.worldSize = 3;
  std::multiset<std::string> seen, notPadding;
  for (int r = 0; r < 3; ++r) {
    o.rank = r;
    Loader l(d.train, o);
    QCOMPARE(l.samplesPerEpoch(), int64_t(4));
    QCOMPARE(l.batchesPerEpoch(), int64_t(1));
    for (const auto& b : epoch(l, 4)) {
      seen.insert(b.paths.begin(), b.paths.end());
      // 10 images over 3 ranks: positions 10 and 11 (the last of ranks 1 and 2) are padding,
      // and what is not padding covers every image exactly once.
      QCOMPARE(b.padded, r == 0 ? 0 : 1);
      notPadding.insert(b.paths.begin(), b.paths.end() - b.padded);
    }
  }
  QCOMPARE(seen.size(), size_t(12));
  std::set<std::string> unique(seen.begin(), seen.end());
  QCOMPARE(unique.size(), size_t(10));
  QCOMPARE(notPadding.size(), size_t(10));
  QCOMPARE(std::set<std::string>(notPadding.begin(), notPadding.end()).size(), size_t(10));
}

void TestLoader::epochStartsAtAGivenBatch() {
  // A run resumed inside an epoch gets the batches the full epoch would have given next.
  Demo d(20);
  LoaderOptions o = smallOptions();
  Loader full(d.train, o), resumed(d.train, o);
  QVERIFY(full.batchesPerEpoch() >= 3);
  const auto all = epoch(full, 2);
  resumed.startEpoch(2, true, 2);
  std::vector<Batch> rest;
  while (auto b = resumed.next()) rest.push_back(std::move(*b));
  QCOMPARE(rest.size(), all.size() - 2);
  for (size_t k = 0; k < rest.size(); ++k) {
    QCOMPARE(rest[k].seq, all[k + 2].seq);
    QVERIFY(sameBatch(rest[k], all[k + 2]));
  }
  // Past the end: an empty epoch.
  resumed.startEpoch(2, true, 1000);
  QVERIFY(!resumed.next());
}

void TestLoader::exifOrientationIsApplied() {
  // A 60x20 JPEG, left half black, right half white, tagged "rotate 90 clockwise" (6): it is
  // shown 20 wide and 60 high with the white half at the bottom.
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  cv::Mat m(20, 60, CV_8UC3, cv::Scalar(0, 0, 0));
  m(cv::Rect(30, 0, 30, 20)).setTo(cv::Scalar(255, 255, 255));
  std::vector<uint8_t> jpg;
  cv::imencode(".jpg", m, jpg);
  const uint8_t tiff[] = {'M', 'M', 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3,
                          0,   0,   0, 1,  0, 6, 0, 0, 0, 0, 0,    0,    0, 0};
  std::vector<uint8_t> app1 = {0xFF, 0xE1, 0, uint8_t(8 + sizeof tiff), 'E', 'x', 'i', 'f', 0, 0};
  app1.insert(app1.end(), std::begin(tiff), std::end(tiff));
  jpg.insert(jpg.begin() + 2, app1.begin(), app1.end());
  fs::create_directories(root / "images/train");
  std::ofstream(root / "images/train/r.jpg", std::ios::binary)
      .write(reinterpret_cast<const char*>(jpg.data()), jpg.size());
  std::ofstream(root / "data.yaml") << "train: images/train\nval: images/train\nnames: [a]\n";
  const auto spec = loadDataYaml((root / "data.yaml").string()).value();
  ScanOptions so;
  so.useCache = false;
  const auto index = scanSplit(spec, "train", so).value();
  QCOMPARE(index.images.size(), size_t(1));
  QCOMPARE(index.images[0].width, 20);
  QCOMPARE(index.images[0].height, 60);
  StageTimes t;
  const LoadedImage li = loadImage(index.images[0], 0, LoadResize::Ultralytics, t);
  QCOMPARE(li.img.cols, 20);
  QCOMPARE(li.img.rows, 60);
  QVERIFY(li.img.at<cv::Vec3b>(5, 10)[0] < 40);    // top: black
  QVERIFY(li.img.at<cv::Vec3b>(55, 10)[0] > 215);  // bottom: white
}

void TestLoader::emptySplitEndsAtOnce() {
  SplitIndex empty;
  empty.split = "val";
  Loader l(empty, smallOptions());
  QCOMPARE(l.batchesPerEpoch(), int64_t(0));
  l.startEpoch(0, true);
  QVERIFY(!l.next());
  QVERIFY(!l.next());
}

void TestLoader::prepareBuildsSharedDiskCaches() {
  Demo d(12, 96);
  const auto rep = prepareDataset(d.spec.yamlPath, 96, CacheMode::Disk, 2);
  QVERIFY2(rep.ok(), rep.errorText().c_str());
  QCOMPARE(rep->trainImages, int64_t(12));
  QVERIFY(fs::exists(rep->trainDiskCache) && fs::exists(rep->valDiskCache));
  // Two "ranks" map the file the launcher built instead of decoding.
  LoaderOptions o = smallOptions();
  o.imgsz = 96;
  o.cache = CacheMode::Disk;
  o.worldSize = 2;
  for (int r = 0; r < 2; ++r) {
    o.rank = r;
    Loader l(d.train, o);
    QVERIFY(!epoch(l, 0).empty());
    QCOMPARE(l.stats().decoded, int64_t(0));
  }
  // A changed dataset gets a new cache, and the stale one is removed.
  std::ofstream(d.dir.filePath("labels/train/000000.txt").toStdString(), std::ios::app) << "";
  fs::last_write_time(d.train.images[0].imagePath,
                      fs::file_time_type::clock::now() + std::chrono::seconds(5));
  const auto rep2 = prepareDataset(d.spec.yamlPath, 96, CacheMode::Disk, 2);
  QVERIFY(rep2.ok());
  QVERIFY(rep2->trainDiskCache != rep->trainDiskCache);
  QVERIFY(!fs::exists(rep->trainDiskCache));
  QVERIFY(fs::exists(rep2->trainDiskCache));
  QVERIFY(fs::exists(rep->valDiskCache));  // val unchanged, same file
  // Errors: a dataset that cannot be used.
  QVERIFY(!prepareDataset(d.dir.filePath("missing.yaml").toStdString(), 96, CacheMode::None).ok());
}

// Mosaic companions come from samples a lag behind in the delivery order. An epoch's first
// batches take theirs from the end of the previous epoch (as Ultralytics' uniformly drawn
// companions come from beyond the batch too); only the very first batches of a run fall back to
// their own batch. Each image here has one box whose class is the image's number, so a
// sample's targets say which images its mosaic drew.
void TestLoader::mosaicCompanionsCrossTheEpochBoundary() {
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  const int n = 24;
  fs::create_directories(root / "images/train");
  fs::create_directories(root / "labels/train");
  std::ofstream yaml(root / "data.yaml");
  yaml << "path: " << root.string() << "\ntrain: images/train\nval: images/train\nnames:\n";
  for (int i = 0; i < n; ++i) {
    yaml << "  " << i << ": img" << i << "\n";
    const std::string name = "img" + std::to_string(i);
    cv::imwrite((root / "images/train" / (name + ".png")).string(),
                cv::Mat(64, 64, CV_8UC3, cv::Scalar(10 * i, 100, 200 - 5 * i)));
    std::ofstream(root / "labels/train" / (name + ".txt")) << i << " 0.5 0.5 0.9 0.9\n";
  }
  yaml.close();
  auto spec = loadDataYaml((root / "data.yaml").string());
  QVERIFY2(spec.ok(), spec.errorText().c_str());
  auto index = scanSplit(spec.value(), "train");
  QVERIFY2(index.ok(), index.errorText().c_str());
  LoaderOptions o;
  o.imgsz = 64;
  o.batch = 4;
  o.workers = 1;
  o.seed = 5;
  o.mosaicLag = 4;
  o.mosaicWindow = 4;
  o.aug.translate = 0;
  o.aug.scale = 0;
  o.aug.mixup = 0;
  Loader l(index.value(), o);
  auto imageOf = [](const std::string& path) {
    const std::string stem = fs::path(path).stem().string();
    return std::stoi(stem.substr(3));
  };
  auto drawn = [](const Batch& b) {
    std::set<int> classes;
    for (int64_t t = 0; t < b.numTargets(); ++t)
      classes.insert(static_cast<int>(b.targets[t * 6 + 1]));
    return classes;
  };
  auto own = [&](const Batch& b) {
    std::set<int> images;
    for (const auto& p : b.paths) images.insert(imageOf(p));
    return images;
  };
  const auto e0 = epoch(l, 0);
  const auto e1 = epoch(l, 1);
  QCOMPARE(int(e0.size()), n / 4);
  // The run's first batch: its own images only.
  for (int c : drawn(e0[0])) QVERIFY2(own(e0[0]).count(c), qPrintable(QString::number(c)));
  // Epoch 1's first batch: its own images and epoch 0's positions n-8 .. n-5 (lag 4, window 4).
  std::set<int> tail;
  for (int p = n - 8; p < n - 4; ++p) tail.insert(imageOf(e0[p / 4].paths[p % 4]));
  int fromTail = 0;
  for (int c : drawn(e1[0])) {
    QVERIFY2(own(e1[0]).count(c) || tail.count(c), qPrintable(QString::number(c)));
    if (!own(e1[0]).count(c)) ++fromTail;
  }
  QVERIFY(fromTail > 0);
}

QTEST_GUILESS_MAIN(TestLoader)
#include "tst_loader.moc"
