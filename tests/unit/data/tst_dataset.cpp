// data.yaml, label parsing, the split scan and check-dataset on small datasets built here,
// one for each bad input the issue lists.
#include <QTemporaryDir>
#include <sys/stat.h>

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <thread>

#include <opencv2/imgcodecs.hpp>

#include "core/data/dataset.h"
#include "core/data/dataset_report.h"
#include "core/data/image_header.h"
#include "core/data/image_source.h"

using namespace stave::data;
namespace fs = std::filesystem;

namespace {
void writeText(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}
void writeImage(const fs::path& p, const cv::Mat& m) {
  fs::create_directories(p.parent_path());
  std::vector<uint8_t> bytes;
  QVERIFY(cv::imencode(p.extension().string(), m, bytes));
  std::ofstream(p, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}
cv::Mat colourImage(int w, int h) {
  cv::Mat m(h, w, CV_8UC3);
  cv::randu(m, 0, 255);
  return m;
}
std::string yaml(const std::string& extra = "") {
  return "path: .\ntrain: images/train\nval: images/val\nnames: [a, b, c, d, e]\n" + extra;
}
bool hasProblem(const SplitIndex& s, const std::string& kind, const std::string& fileEnd = "",
                int line = -1) {
  for (const auto& p : s.problems)
    if (p.kind == kind &&
        (fileEnd.empty() ||
         QString::fromStdString(p.file).endsWith(QString::fromStdString(fileEnd))) &&
        (line < 0 || p.line == line))
      return true;
  return false;
}
const ImageRecord* findImage(const SplitIndex& s, const std::string& end) {
  for (const auto& r : s.images)
    if (QString::fromStdString(r.imagePath).endsWith(QString::fromStdString(end))) return &r;
  return nullptr;
}
}  // namespace

class TestDataset : public QObject {
  Q_OBJECT
 private slots:
  void labelRows_data();
  void labelRows();
  void labelPairing();
  void yamlErrors_data();
  void yamlErrors();
  void yamlNamesMap();
  void badImages();
  void labelProblemsHaveFileAndLine();
  void missingLabelsFolderAndOrphans();
  void listFilesAndDuplicates();
  void exifOrientation();
  void emptySplitIsUnusable();
  void cacheAndThreads();
  void progressAndCancel();
  void checkExitCodes();
  void fractionAndSingleClass();
};

void TestDataset::labelRows_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<int>("boxes");
  QTest::addColumn<QString>("kind");  // expected problem kind, "" for none
  QTest::newRow("plain") << "0 0.5 0.5 0.2 0.2" << 1 << "";
  QTest::newRow("two rows") << "0 0.5 0.5 0.2 0.2\n4 0.1 0.1 0.1 0.1\n" << 2 << "";
  QTest::newRow("empty file = background") << "" << 0 << "";
  QTest::newRow("blank lines") << "\n\n0 0.5 0.5 0.2 0.2\n\n" << 1 << "";
  QTest::newRow("nan") << "0 nan 0.5 0.2 0.2" << 0 << "label-nan";
  QTest::newRow("inf") << "0 0.5 inf 0.2 0.2" << 0 << "label-nan";
  QTest::newRow("class 99 with nc 5") << "99 0.5 0.5 0.2 0.2" << 0 << "label-class";
  QTest::newRow("negative class") << "-1 0.5 0.5 0.2 0.2" << 0 << "label-class";
  QTest::newRow("fractional class") << "1.5 0.5 0.5 0.2 0.2" << 0 << "label-class";
  QTest::newRow("negative coordinate") << "0 -0.3 0.5 0.2 0.2" << 0 << "label-range";
  QTest::newRow("coordinate > 1") << "0 0.5 1.4 0.2 0.2" << 0 << "label-range";
  QTest::newRow("within tolerance is clipped") << "0 0.096 0.5 0.2 0.2" << 1 << "";
  QTest::newRow("zero area") << "0 0.5 0.5 0 0.2" << 0 << "label-zero-area";
  QTest::newRow("negative size") << "0 0.5 0.5 -0.1 0.2" << 0 << "label-zero-area";
  QTest::newRow("six columns") << "0 0.5 0.5 0.2 0.2 0.3" << 0 << "label-columns";
  QTest::newRow("four columns") << "0 0.5 0.5 0.2" << 0 << "label-columns";
  QTest::newRow("seven columns = triangle polygon") << "0 0.1 0.1 0.5 0.2 0.3 0.6" << 1 << "";
  QTest::newRow("eight columns") << "0 0.1 0.1 0.5 0.2 0.3 0.6 0.1" << 0 << "label-columns";
  QTest::newRow("not a number") << "0 0.5 abc 0.2 0.2" << 0 << "label-number";
  QTest::newRow("duplicate row") << "0 0.5 0.5 0.2 0.2\n0 0.5 0.5 0.2 0.2" << 1
                                 << "label-duplicate";
}

void TestDataset::labelRows() {
  QFETCH(QString, text);
  QFETCH(int, boxes);
  QFETCH(QString, kind);
  const auto lp = parseLabelText(text.toStdString(), "x.txt", 5, 0.01);
  QCOMPARE(int(lp.boxes.size()), boxes);
  if (kind.isEmpty()) {
    QVERIFY(lp.problems.empty());
  } else {
    QCOMPARE(int(lp.problems.size()), 1);
    QCOMPARE(QString::fromStdString(lp.problems[0].kind), kind);
    QVERIFY(lp.problems[0].line >= 1);
    QCOMPARE(lp.problems[0].file, std::string("x.txt"));
    QCOMPARE(lp.droppedRows, int64_t(1));
  }
  if (QTest::currentDataTag() == QStringLiteral("seven columns = triangle polygon")) {
    // The polygon (0.1,0.1) (0.5,0.2) (0.3,0.6) has the box [0.1, 0.5] x [0.1, 0.6].
    QCOMPARE(lp.boxes[0].cx, 0.3f);
    QCOMPARE(lp.boxes[0].cy, 0.35f);
    QCOMPARE(lp.boxes[0].w, 0.4f);
    QCOMPARE(lp.boxes[0].h, 0.5f);
  }
  if (QTest::currentDataTag() == QStringLiteral("within tolerance is clipped")) {
    QVERIFY(std::abs(lp.boxes[0].cx - 0.098f) < 1e-6);  // x1 = -0.004 clipped to 0, x2 = 0.196
    QVERIFY(std::abs(lp.boxes[0].w - 0.196f) < 1e-6);
  }
}

void TestDataset::labelPairing() {
  QCOMPARE(labelPathFor("/d/images/train/a.jpg"), std::string("/d/labels/train/a.txt"));
  QCOMPARE(labelPathFor("/d/images/x/images/b.JPEG"), std::string("/d/images/x/labels/b.txt"));
  QCOMPARE(labelPathFor("/d/pics/c.png"), std::string("/d/pics/c.txt"));
  QCOMPARE(labelPathFor("/d/images.v1/images/x.y.jpg"), std::string("/d/images.v1/labels/x.y.txt"));
}

void TestDataset::yamlErrors_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<QString>("key");
  QTest::addColumn<int>("line");
  QTest::newRow("missing val") << "path: .\ntrain: images/train\nnames: [a]\n"
                               << "val" << 0;
  QTest::newRow("names is a number")
      << "path: .\ntrain: images/train\nval: images/train\nnames: 5\n"
      << "names" << 4;
  QTest::newRow("names map with a gap")
      << "train: images/train\nval: images/train\nnames:\n  0: a\n  2: b\n"
      << "names" << 4;
  QTest::newRow("nc disagrees") << "train: images/train\nval: images/train\nnc: 3\nnames: [a, b]\n"
                                << "nc" << 3;
  QTest::newRow("path does not exist") << "train: images/train\nval: images/nope\nnames: [a]\n"
                                       << "val" << 2;
  QTest::newRow("root does not exist")
      << "path: /no/such/root\ntrain: images/train\nval: images/train\nnames: [a]\n"
      << "path" << 1;
  QTest::newRow("not yaml") << "train: [unclosed\n"
                            << "" << 0;
  QTest::newRow("no names") << "train: images/train\nval: images/train\n"
                            << "names" << 0;
}

void TestDataset::yamlErrors() {
  QFETCH(QString, text);
  QFETCH(QString, key);
  QFETCH(int, line);
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  writeImage(root / "images/train/a.jpg", colourImage(32, 32));
  writeText(root / "data.yaml", text.toStdString());
  const auto spec = loadDataYaml((root / "data.yaml").string());
  QVERIFY(!spec.ok());
  bool found = false;
  for (const auto& e : spec.errors()) {
    QVERIFY(QString::fromStdString(e.file).endsWith("data.yaml"));
    if (QString::fromStdString(e.key) == key && (line == 0 || e.line == line)) found = true;
  }
  QVERIFY2(found, spec.errorText().c_str());
  // check-dataset says the dataset cannot be used at all.
  QCOMPARE(checkDataset((root / "data.yaml").string(), false).exitCode, 2);
}

void TestDataset::yamlNamesMap() {
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  writeImage(root / "d/images/train/a.jpg", colourImage(32, 32));
  writeText(root / "cfg/data.yaml",
            "path: ../d\ntrain: images/train\nval: [images/train]\nnames:\n  1: dog\n  0: cat\n");
  const auto spec = loadDataYaml((root / "cfg/data.yaml").string());
  QVERIFY2(spec.ok(), spec.errorText().c_str());
  QCOMPARE(spec->names, (std::vector<std::string>{"cat", "dog"}));
  QCOMPARE(spec->root, (root / "d").lexically_normal().string());
  QCOMPARE(spec->val.size(), size_t(1));
  QVERIFY(spec->test.empty());
}

void TestDataset::badImages() {
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  const fs::path tr = root / "images/train";
  // Good reference image.
  writeImage(tr / "good.jpg", colourImage(64, 48));
  // Truncated JPEG: the first half of a valid file.
  {
    std::vector<uint8_t> b;
    cv::imencode(".jpg", colourImage(64, 64), b);
    fs::create_directories(tr);
    std::ofstream(tr / "truncated.jpg", std::ios::binary)
        .write(reinterpret_cast<const char*>(b.data()), b.size() / 2);
  }
  writeText(tr / "zero.jpg", "");
  writeText(tr / "garbage.jpg", "this is not an image at all");
  // A FIFO that no writer opens (reading it would block the scan for good).
  QCOMPARE(::mkfifo((tr / "pipe.jpg").c_str(), 0600), 0);
  // PNG with alpha, 16-bit PNG, grayscale.
  {
    cv::Mat a(40, 30, CV_8UC4, cv::Scalar(10, 20, 30, 128));
    writeImage(tr / "alpha.png", a);
    cv::Mat d(20, 50, CV_16UC3, cv::Scalar(1000, 30000, 65535));
    writeImage(tr / "deep.png", d);
    cv::Mat g(33, 44, CV_8UC1, cv::Scalar(77));
    writeImage(tr / "gray.jpg", g);
    writeImage(tr / "small.bmp", colourImage(21, 13));
  }
  // A "huge" image: a valid PNG header announcing 70000 x 70000 pixels.
  {
    std::vector<uint8_t> b;
    cv::imencode(".png", colourImage(8, 8), b);
    const uint32_t s = 70000;
    const uint8_t be[4] = {uint8_t(s >> 24), uint8_t(s >> 16), uint8_t(s >> 8), uint8_t(s)};
    std::copy(be, be + 4, b.begin() + 16);
    std::copy(be, be + 4, b.begin() + 20);
    std::ofstream(tr / "huge.png", std::ios::binary)
        .write(reinterpret_cast<const char*>(b.data()), b.size());
    // Below the pixel limit, but 20000 x 20000 in a few hundred bytes: not what it claims.
    const uint32_t m = 20000;
    const uint8_t mb[4] = {uint8_t(m >> 24), uint8_t(m >> 16), uint8_t(m >> 8), uint8_t(m)};
    std::copy(mb, mb + 4, b.begin() + 16);
    std::copy(mb, mb + 4, b.begin() + 20);
    std::ofstream(tr / "claims.png", std::ios::binary)
        .write(reinterpret_cast<const char*>(b.data()), b.size());
  }
  // Non-ASCII and space-containing paths, with a label.
  writeImage(root / "images/train/sub dir/ünïcødé bild.jpg", colourImage(40, 40));
  writeText(root / "labels/train/sub dir/ünïcødé bild.txt", "1 0.5 0.5 0.5 0.5\n");
  writeImage(root / "images/val/v.jpg", colourImage(16, 16));
  writeText(root / "data.yaml", yaml());
  auto spec = loadDataYaml((root / "data.yaml").string());
  QVERIFY2(spec.ok(), spec.errorText().c_str());
  ScanOptions opt;
  opt.useCache = false;
  auto s = scanSplit(spec.value(), "train", opt);
  QVERIFY(s.ok());
  QVERIFY(hasProblem(s.value(), "image-truncated", "truncated.jpg"));
  QVERIFY(hasProblem(s.value(), "image-unreadable", "zero.jpg"));
  QVERIFY(hasProblem(s.value(), "image-unreadable", "garbage.jpg"));
  QVERIFY(hasProblem(s.value(), "image-too-large", "huge.png"));
  QVERIFY(hasProblem(s.value(), "image-implausible", "claims.png"));
  QVERIFY(hasProblem(s.value(), "image-unreadable", "pipe.jpg"));
  bool named = false;
  for (const auto& p : s->problems)
    named |= p.file.find("pipe.jpg") != std::string::npos && p.message.find("FIFO") != std::string::npos;
  QVERIFY(named);
  // The loader, too, refuses it at once, naming it.
  std::vector<uint8_t> bytes;
  QVERIFY(!readFileBytes((tr / "pipe.jpg").string(), bytes));
  QCOMPARE(s->skippedImages, int64_t(6));
  QCOMPARE(s->listed, int64_t(12));
  QCOMPARE(int(s->images.size()), 6);
  const auto* alpha = findImage(s.value(), "alpha.png");
  QVERIFY(alpha && alpha->width == 30 && alpha->height == 40);
  const auto* deep = findImage(s.value(), "deep.png");
  QVERIFY(deep && deep->width == 50 && deep->height == 20);
  const auto* gray = findImage(s.value(), "gray.jpg");
  QVERIFY(gray && gray->width == 44 && gray->height == 33);
  const auto* bmp = findImage(s.value(), "small.bmp");
  QVERIFY(bmp && bmp->width == 21 && bmp->height == 13);
  const auto* uni = findImage(s.value(), "ünïcødé bild.jpg");
  QVERIFY(uni);
  QCOMPARE(uni->boxes.size(), size_t(1));
  QCOMPARE(uni->boxes[0].cls, 1);
  // Every problem that drops an image says so.
  for (const auto& p : s->problems)
    if (p.kind.rfind("image-", 0) == 0) QVERIFY(p.skipsImage);
  // --verify decodes fully and agrees on the good images.
  opt.verify = true;
  auto v = scanSplit(spec.value(), "train", opt);
  QCOMPARE(v->images.size(), s->images.size());
}

void TestDataset::labelProblemsHaveFileAndLine() {
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  writeImage(root / "images/train/a.jpg", colourImage(32, 32));
  writeText(root / "labels/train/a.txt",
            "0 0.5 0.5 0.2 0.2\n0 nan 0.5 0.2 0.2\n99 0.5 0.5 0.2 0.2\n0 0.5 0.5 0.2 0.2 1\n0 1.5 "
            "0.5 0.2 0.2\n");
  writeImage(root / "images/val/b.jpg", colourImage(32, 32));
  writeText(root / "data.yaml", yaml());
  auto spec = loadDataYaml((root / "data.yaml").string());
  QVERIFY(spec.ok());
  auto s = scanSplit(spec.value(), "train", ScanOptions{});
  QVERIFY(s.ok());
  QCOMPARE(s->images.size(), size_t(1));
  QCOMPARE(s->images[0].boxes.size(), size_t(1));
  QVERIFY(hasProblem(s.value(), "label-nan", "labels/train/a.txt", 2));
  QVERIFY(hasProblem(s.value(), "label-class", "labels/train/a.txt", 3));
  QVERIFY(hasProblem(s.value(), "label-columns", "labels/train/a.txt", 4));
  QVERIFY(hasProblem(s.value(), "label-range", "labels/train/a.txt", 5));
  QCOMPARE(s->droppedRows, int64_t(4));
  // The message for a class out of range names the valid range.
  for (const auto& p : s->problems)
    if (p.kind == "label-class") QVERIFY(p.message.find("[0, 4]") != std::string::npos);
}

void TestDataset::missingLabelsFolderAndOrphans() {
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  writeImage(root / "images/train/a.jpg", colourImage(32, 32));
  writeImage(root / "images/val/b.jpg", colourImage(32, 32));
  writeText(root / "labels/val/b.txt", "0 0.5 0.5 0.5 0.5\n");
  writeText(root / "labels/val/orphan.txt", "0 0.5 0.5 0.5 0.5\n");
  writeText(root / "data.yaml", yaml());
  auto spec = loadDataYaml((root / "data.yaml").string());
  QVERIFY(spec.ok());
  auto t = scanSplit(spec.value(), "train", ScanOptions{});
  QVERIFY(hasProblem(t.value(), "labels-missing", "labels/train"));
  QCOMPARE(t->images.size(), size_t(1));
  QVERIFY(t->images[0].boxes.empty());  // background
  auto v = scanSplit(spec.value(), "val", ScanOptions{});
  QVERIFY(hasProblem(v.value(), "label-orphan", "orphan.txt"));
  QVERIFY(!hasProblem(v.value(), "label-orphan", "b.txt"));
}

void TestDataset::listFilesAndDuplicates() {
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  writeImage(root / "images/train/a.jpg", colourImage(32, 32));
  writeImage(root / "images/train/b.jpg", colourImage(32, 32));
  writeText(root / "train.txt",
            "./images/train/a.jpg\nimages/train/b.jpg\n\n./images/train/a.jpg\n./images/train/"
            "missing.jpg\n");
  writeImage(root / "images/val/v.jpg", colourImage(32, 32));
  writeText(root / "data.yaml", "train: train.txt\nval: [images/val]\nnames: [a]\n");
  auto spec = loadDataYaml((root / "data.yaml").string());
  QVERIFY2(spec.ok(), spec.errorText().c_str());
  auto s = scanSplit(spec.value(), "train", ScanOptions{});
  QVERIFY(s.ok());
  QCOMPARE(s->listed, int64_t(4));
  QCOMPARE(s->images.size(), size_t(2));
  QVERIFY(hasProblem(s.value(), "image-duplicate", "train.txt", 4));
  QVERIFY(hasProblem(s.value(), "image-unreadable", "missing.jpg"));
  for (const auto& p : s->problems)
    if (p.kind == "image-unreadable") QVERIFY(p.message.find("train.txt:5") != std::string::npos);
}

void TestDataset::exifOrientation() {
  // A JPEG whose EXIF says "rotate 90" (orientation 6) is displayed with swapped axes.
  std::vector<uint8_t> jpg;
  cv::imencode(".jpg", colourImage(60, 20), jpg);
  const uint8_t tiff[] = {'M', 'M', 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3,
                          0,   0,   0, 1,  0, 6, 0, 0, 0, 0, 0,    0,    0, 0};
  std::vector<uint8_t> app1 = {0xFF, 0xE1, 0, 0, 'E', 'x', 'i', 'f', 0, 0};
  app1.insert(app1.end(), std::begin(tiff), std::end(tiff));
  const size_t len = app1.size() - 2;
  app1[2] = uint8_t(len >> 8);
  app1[3] = uint8_t(len & 0xFF);
  jpg.insert(jpg.begin() + 2, app1.begin(), app1.end());
  const ImageHeader h = parseImageHeader(jpg.data(), jpg.size(), true);
  QVERIFY(h.ok);
  QCOMPARE(h.orientation, 6);
  QCOMPARE(h.width, 60);
  QCOMPARE(h.displayWidth(), 20);
  QCOMPARE(h.displayHeight(), 60);
  QVERIFY(!h.truncated);
}

void TestDataset::emptySplitIsUnusable() {
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  writeImage(root / "images/train/a.jpg", colourImage(32, 32));
  fs::create_directories(root / "images/val");
  writeText(root / "data.yaml", yaml());
  auto spec = loadDataYaml((root / "data.yaml").string());
  QVERIFY(spec.ok());
  auto v = scanSplit(spec.value(), "val", ScanOptions{});
  QVERIFY(v.ok());
  QVERIFY(v->images.empty());
  QVERIFY(hasProblem(v.value(), "split-empty"));
  QCOMPARE(checkDataset((root / "data.yaml").string(), false).exitCode, 2);
}

void TestDataset::cacheAndThreads() {
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  for (int i = 0; i < 40; ++i) {
    writeImage(root / ("images/train/" + std::to_string(i) + ".jpg"), colourImage(32 + i, 32));
    writeText(root / ("labels/train/" + std::to_string(i) + ".txt"),
              i % 7 == 3 ? "9 0.5 0.5 0.1 0.1\n" : "0 0.5 0.5 0.1 0.1\n");
  }
  writeImage(root / "images/val/v.jpg", colourImage(16, 16));
  writeText(root / "data.yaml", yaml());
  auto spec = loadDataYaml((root / "data.yaml").string());
  ScanOptions one;
  one.threads = 1;
  one.useCache = false;
  ScanOptions many;
  many.threads = 4;
  auto a = scanSplit(spec.value(), "train", one);
  auto b = scanSplit(spec.value(), "train", many);
  QVERIFY(!b->fromCache);
  QVERIFY(!b->cachePath.empty());
  auto same = [](const SplitIndex& x, const SplitIndex& y) {
    if (x.images.size() != y.images.size() || x.problems.size() != y.problems.size()) return false;
    for (size_t i = 0; i < x.images.size(); ++i)
      if (x.images[i].imagePath != y.images[i].imagePath ||
          x.images[i].width != y.images[i].width ||
          x.images[i].boxes.size() != y.images[i].boxes.size())
        return false;
    for (size_t i = 0; i < x.problems.size(); ++i)
      if (x.problems[i].toString() != y.problems[i].toString()) return false;
    return true;
  };
  QVERIFY(same(a.value(), b.value()));
  auto c = scanSplit(spec.value(), "train", many);
  QVERIFY(c->fromCache);
  QVERIFY(same(a.value(), c.value()));
  // Changing a label invalidates the cache.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  writeText(root / "labels/train/3.txt", "0 0.5 0.5 0.1 0.1\n");
  auto d = scanSplit(spec.value(), "train", many);
  QVERIFY(!d->fromCache);
  QCOMPARE(d->problems.size() + 1, a->problems.size());
  // A corrupt cache file is ignored, not trusted.
  writeText(d->cachePath, "STAVESC1garbage");
  auto e = scanSplit(spec.value(), "train", many);
  QVERIFY(!e->fromCache);
  QVERIFY(same(d.value(), e.value()));
}

// Progress counts every image once, in order, up to the total; the cache answers with (n, n).
// Cancel, before or during the scan, fails with "cancelled" and leaves no cache behind.
void TestDataset::progressAndCancel() {
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  for (int i = 0; i < 30; ++i) {
    writeImage(root / ("images/train/" + std::to_string(i) + ".png"), colourImage(16, 16));
    writeText(root / ("labels/train/" + std::to_string(i) + ".txt"), "0 0.5 0.5 0.1 0.1\n");
  }
  writeImage(root / "images/val/v.png", colourImage(16, 16));
  writeText(root / "data.yaml", yaml());
  auto spec = loadDataYaml((root / "data.yaml").string());
  QVERIFY(spec.ok());
  const fs::path cacheDir = root / ".stave-cache";
  auto cacheFiles = [&] {
    int n = 0;
    std::error_code ec;
    for (fs::directory_iterator it(cacheDir, ec), end; !ec && it != end; it.increment(ec)) ++n;
    return n;
  };

  // Cancelled before it starts.
  std::atomic<bool> cancel{true};
  ScanOptions o;
  o.threads = 2;
  o.cancel = &cancel;
  auto r = scanSplit(spec.value(), "train", o);
  QVERIFY(!r.ok());
  QCOMPARE(r.errors().front().message, std::string("cancelled"));
  QCOMPARE(cacheFiles(), 0);

  // Cancelled from the progress callback after a few images (one thread: it stops at once).
  cancel = false;
  o.threads = 1;
  std::vector<std::pair<int64_t, int64_t>> calls;
  o.progress = [&](int64_t done, int64_t total) {
    calls.emplace_back(done, total);
    if (done >= 5) cancel = true;
  };
  r = scanSplit(spec.value(), "train", o);
  QVERIFY(!r.ok());
  QCOMPARE(r.errors().front().message, std::string("cancelled"));
  QCOMPARE(cacheFiles(), 0);
  QVERIFY(!calls.empty());
  QVERIFY(calls.back().first < 30);

  // A full scan: 0 .. 30, increasing, every call with the total 30; then the cache answers.
  cancel = false;
  o.threads = 3;
  o.progress = [&](int64_t done, int64_t total) { calls.emplace_back(done, total); };
  calls.clear();
  r = scanSplit(spec.value(), "train", o);
  QVERIFY2(r.ok(), r.errorText().c_str());
  QVERIFY(!r->fromCache);
  QCOMPARE(r->images.size(), size_t(30));
  QCOMPARE(calls.front(), std::make_pair(int64_t(0), int64_t(30)));
  QCOMPARE(calls.back(), std::make_pair(int64_t(30), int64_t(30)));
  for (size_t i = 1; i < calls.size(); ++i) {
    QVERIFY(calls[i].first > calls[i - 1].first);
    QCOMPARE(calls[i].second, int64_t(30));
  }
  QCOMPARE(cacheFiles(), 1);
  calls.clear();
  r = scanSplit(spec.value(), "train", o);
  QVERIFY(r->fromCache);
  QCOMPARE(calls.size(), size_t(1));
  QCOMPARE(calls.front(), std::make_pair(int64_t(30), int64_t(30)));
}

void TestDataset::checkExitCodes() {
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  writeImage(root / "images/train/a.jpg", colourImage(32, 32));
  writeText(root / "labels/train/a.txt", "0 0.5 0.5 0.2 0.2\n");
  writeImage(root / "images/val/b.jpg", colourImage(32, 32));
  writeText(root / "labels/val/b.txt", "1 0.5 0.5 0.2 0.2\n");
  writeText(root / "data.yaml", yaml());
  auto ok = checkDataset((root / "data.yaml").string(), true);
  QCOMPARE(ok.exitCode, 0);
  QCOMPARE(ok.report["splits"]["train"]["instances_per_class"]["a"].get<int>(), 1);
  QCOMPARE(ok.report["splits"]["val"]["instances_per_class"]["b"].get<int>(), 1);
  writeText(root / "labels/val/b.txt", "1 0.5 0.5 0.2 0.2\n7 0.5 0.5 0.2 0.2\n");
  auto bad = checkDataset((root / "data.yaml").string(), false);
  QCOMPARE(bad.exitCode, 1);
  QCOMPARE(bad.report["splits"]["val"]["problems"][0]["line"].get<int>(), 2);
  QVERIFY(bad.text.find("labels/val/b.txt:2: label-class") != std::string::npos);
}

void TestDataset::fractionAndSingleClass() {
  SplitIndex s;
  for (int i = 0; i < 10; ++i)
    s.images.push_back(ImageRecord{"i" + std::to_string(i), "", 10, 10, {{3, .5f, .5f, .1f, .1f}}});
  applyFraction(s, 1.0);
  QCOMPARE(s.images.size(), size_t(10));
  applyFraction(s, 0.26);
  QCOMPARE(s.images.size(), size_t(3));
  QCOMPARE(s.images[2].imagePath, std::string("i2"));
  applyFraction(s, 0.01);
  QCOMPARE(s.images.size(), size_t(1));  // never empty
  makeSingleClass(s);
  QCOMPARE(s.images[0].boxes[0].cls, 0);
}

QTEST_GUILESS_MAIN(TestDataset)
#include "tst_dataset.moc"
