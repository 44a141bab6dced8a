#include <qcustomplot.h>
#include <QBuffer>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QListView>
#include <QListWidget>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <set>
#include <tuple>

#include "core/config/project.h"
#include "core/data/dataset.h"
#include "core/studio/models/gallery_model.h"
#include "core/studio/project/project_document.h"
#include "core/studio/models/thumbnail_loader.h"
#include "widgets/augment_view.h"
#include "widgets/box_image_view.h"
#include "widgets/dataset_gallery.h"
#include "widgets/dataset_page.h"

using stave::studio::GalleryFilterModel;
using stave::studio::GalleryModel;
using stave::widgets::DatasetPage;

namespace {
void writeFile(const QString& path, const QByteArray& bytes) {
  QDir().mkpath(QFileInfo(path).absolutePath());
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(bytes);
}

// A dataset with planted problems: a class id out of range, a coordinate beyond 1, a row of 4
// columns, an unreadable image; and clean images with known class counts.
void plant(const QTemporaryDir& dir) {
  const QString root = dir.filePath("set");
  QImage img(64, 48, QImage::Format_RGB888);
  img.fill(Qt::gray);
  for (const QString split : {"train", "val"}) {
    for (int i = 0; i < 4; ++i) {
      QDir().mkpath(root + "/images/" + split);
      QVERIFY(img.save(QString("%1/images/%2/ok%3.png").arg(root, split).arg(i)));
      // Class 0 twice and class 1 once per image.
      writeFile(QString("%1/labels/%2/ok%3.txt").arg(root, split).arg(i),
                "0 0.5 0.5 0.2 0.2\n0 0.3 0.3 0.1 0.1\n1 0.7 0.7 0.2 0.3\n");
    }
  }
  QVERIFY(img.save(root + "/images/train/bad.png"));
  writeFile(root + "/labels/train/bad.txt",
            "0 0.5 0.5 0.2 0.2\n7 0.5 0.5 0.1 0.1\n0 0.5 1.7 0.1 0.1\n1 0.5 0.5 0.1\n");
  writeFile(root + "/images/train/broken.png", "this is not a png");
  writeFile(root + "/labels/train/broken.txt", "0 0.5 0.5 0.2 0.2\n");
  writeFile(root + "/data.yaml",
            "path: .\ntrain: images/train\nval: images/val\nnames: [cat, dog]\n");
}
QString plantedDataset(const QTemporaryDir& dir) {
  plant(dir);
  return dir.filePath("set/data.yaml");
}
QString makeProject(const QTemporaryDir& dir, const QString& yaml) {
  auto p =
      stave::config::createProject(dir.filePath("proj").toStdString(), "p", yaml.toStdString());
  if (!p.ok()) qWarning("%s", p.errorText().c_str());
  return p.ok() ? QString::fromStdString(p->path) : QString();
}

// The large synthetic set: kTrain + kVal JPEGs — the first kLarge are 1280 x 960 photos-like
// pictures (what a first screen of a real dataset costs to decode), the rest tiny (eight
// pictures, the same bytes reused, so writing 10 000 files is quick) — with 1..3 boxes each of
// classes (i + b) % 3; every 1000th label (i % 1000 == 7) has a class id out of range, and
// train/broken.jpg is not an image.
constexpr int kTrain = 8000, kVal = 2000, kLarge = 64;
struct BigSet {
  QString yaml;
  int withClass[3] = {0, 0, 0};
  int valWithClass0 = 0;
  int labelClassProblems = 0;
};
BigSet writeBigSet(const QString& root) {
  BigSet set;
  QVector<QByteArray> jpegs;
  for (int v = 0; v < 8; ++v) {
    QImage img(48, 32, QImage::Format_RGB888);
    img.fill(QColor::fromHsv(v * 45, 160, 200));
    QByteArray bytes;
    QBuffer buf(&bytes);
    buf.open(QIODevice::WriteOnly);
    img.save(&buf, "JPG", 80);
    jpegs << bytes;
  }
  QVector<QByteArray> large;
  for (int v = 0; v < 4; ++v) {
    QImage img(1280, 960, QImage::Format_RGB888);
    for (int y = 0; y < img.height(); ++y) {
      uchar* row = img.scanLine(y);
      for (int x = 0; x < img.width(); ++x) {
        row[3 * x] = uchar((x * 255 / 1280 + v * 60) & 255);
        row[3 * x + 1] = uchar(y * 255 / 960);
        row[3 * x + 2] = uchar(((x / 40 + y / 40) % 2) * 200);
      }
    }
    QByteArray bytes;
    QBuffer buf(&bytes);
    buf.open(QIODevice::WriteOnly);
    img.save(&buf, "JPG", 90);
    large << bytes;
  }
  for (const char* split : {"train", "val"}) {
    QDir().mkpath(root + "/images/" + split);
    QDir().mkpath(root + "/labels/" + split);
  }
  for (int i = 0; i < kTrain + kVal; ++i) {
    const bool val = i >= kTrain;
    const QString name = QStringLiteral("img%1").arg(i, 5, 10, QLatin1Char('0'));
    const QString split = val ? QStringLiteral("val") : QStringLiteral("train");
    QFile im(QStringLiteral("%1/images/%2/%3.jpg").arg(root, split, name));
    if (!im.open(QIODevice::WriteOnly)) return {};
    im.write(i < kLarge ? large[i % 4] : jpegs[i % 8]);
    QByteArray label;
    const int n = 1 + i % 3;
    bool has[3] = {false, false, false};
    for (int b = 0; b < n; ++b) {
      const int cls = (i + b) % 3;
      has[cls] = true;
      label += QByteArray::number(cls) + " 0." + QByteArray::number(2 + b * 2) + " 0.5 0.2 0.3\n";
    }
    if (i % 1000 == 7) {
      label += "5 0.5 0.5 0.1 0.1\n";
      ++set.labelClassProblems;
    }
    for (int c = 0; c < 3; ++c) set.withClass[c] += has[c];
    if (val && has[0]) ++set.valWithClass0;
    QFile lf(QStringLiteral("%1/labels/%2/%3.txt").arg(root, split, name));
    if (!lf.open(QIODevice::WriteOnly)) return {};
    lf.write(label);
  }
  QFile broken(root + "/images/train/broken.jpg");
  if (!broken.open(QIODevice::WriteOnly)) return {};
  broken.write("not a jpeg at all");
  broken.close();
  QFile y(root + "/data.yaml");
  if (!y.open(QIODevice::WriteOnly)) return {};
  y.write("path: .\ntrain: images/train\nval: images/val\nnames: [red, green, blue]\n");
  set.yaml = root + "/data.yaml";
  return set;
}
}  // namespace

// The Dataset page on a planted-problem set: every problem listed, selecting one shows its
// file:line and image; the histogram has the class counts; a missing data.yaml is reported;
// Cancel stops a scan; the gallery on 10 000 images (first screen of thumbnails timed, filters);
// a batch from the real loader with its boxes.
class TestDatasetPage : public QObject {
  Q_OBJECT
  QTemporaryDir m_big;
  BigSet m_set;
  QString m_bigProject;

 private slots:
  void initTestCase() {
    QVERIFY(m_big.isValid());
    QElapsedTimer t;
    t.start();
    m_set = writeBigSet(m_big.filePath("set"));
    QVERIFY(!m_set.yaml.isEmpty());
    m_bigProject = makeProject(m_big, m_set.yaml);
    QVERIFY(!m_bigProject.isEmpty());
    qInfo("wrote %d images and labels in %lld ms", kTrain + kVal, t.elapsed());
  }

  void plantedProblems() {
    QTemporaryDir dir;
    const QString yaml = plantedDataset(dir);
    const QString proj = makeProject(dir, yaml);
    QVERIFY(!proj.isEmpty());
    stave::studio::ProjectDocument doc;
    DatasetPage page(&doc);
    page.resize(1200, 800);
    page.show();
    QVERIFY(doc.open(proj));
    QTRY_VERIFY_WITH_TIMEOUT(!page.scanning() && !page.summary().splits.isEmpty(), 30000);
    const auto& s = page.summary();
    QVERIFY2(s.error.isEmpty(), qPrintable(s.error));
    // Every problem the engine's scan finds is listed, with its file and line.
    auto spec = stave::data::loadDataYaml(yaml.toStdString());
    QVERIFY(spec.ok());
    std::multiset<std::tuple<QString, int, QString>> expected, listed;
    for (const char* split : {"train", "val"}) {
      stave::data::ScanOptions o;
      o.useCache = false;
      auto ix = stave::data::scanSplit(spec.value(), split, o);
      QVERIFY(ix.ok());
      for (const auto& p : ix->problems)
        expected.insert({QString::fromStdString(p.file), p.line, QString::fromStdString(p.kind)});
    }
    for (int r = 0; r < page.problems()->rowCount(); ++r) {
      const auto& row = page.problems()->row(r);
      listed.insert({row.file, row.line, row.kind});
    }
    QVERIFY(expected.size() >= 4);
    QVERIFY(listed == expected);
    auto find = [&](const QString& kind, const QString& file, int line) {
      for (int r = 0; r < page.problems()->rowCount(); ++r) {
        const auto& row = page.problems()->row(r);
        if (row.kind == kind && row.file.endsWith(file) && row.line == line) return r;
      }
      return -1;
    };
    const int classRow = find("label-class", "labels/train/bad.txt", 2);
    QVERIFY(classRow >= 0);
    const int rangeRow = find("label-range", "labels/train/bad.txt", 3);
    QVERIFY(rangeRow >= 0);
    const int columnsRow = find("label-columns", "labels/train/bad.txt", 4);
    QVERIFY(columnsRow >= 0);
    const int brokenRow = find("image-unreadable", "images/train/broken.png", 0);
    QVERIFY(brokenRow >= 0);
    // Histogram: 8 clean images × (2 cat + 1 dog), plus bad.png's one good cat row.
    auto* bars = qobject_cast<QCPBars*>(page.histogram()->plottable(0));
    QVERIFY(bars);
    QCOMPARE(bars->data()->size(), 2);
    QCOMPARE(bars->data()->at(0)->value, 17.0);
    QCOMPARE(bars->data()->at(1)->value, 8.0);
    auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(page.histogram()->xAxis->ticker());
    QVERIFY(ticker);
    QCOMPARE(ticker->ticks().values(), (QList<QString>{"cat", "dog"}));
    // Counts: train has 5 usable images (broken.png is left out), val 4.
    QCOMPARE(page.countsTable()->rowCount(), 2);
    QCOMPARE(page.countsTable()->item(0, 1)->text(), QString("5"));
    QCOMPARE(page.countsTable()->item(0, 5)->text(), QString("1"));
    QCOMPARE(page.countsTable()->item(1, 1)->text(), QString("4"));

    // Clicking a problem opens its image with the offending row drawn in red and named.
    page.tabs()->setCurrentIndex(1);
    QTest::qWait(50);
    auto* view = page.problemView();
    const QRect cell = view->visualRect(page.problems()->index(classRow, 1));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, cell.center());
    QVERIFY2(page.previewText().contains("bad.txt:2"), qPrintable(page.previewText()));
    QTRY_VERIFY(page.previewImage().endsWith("images/train/bad.png"));
    QVERIFY(!page.problemPreview()->image().isNull());
    int highlighted = 0;
    for (const auto& b : page.problemPreview()->boxes()) {
      if (!b.highlight) continue;
      ++highlighted;
      QVERIFY2(b.tag.contains("line 2"), qPrintable(b.tag));
    }
    QCOMPARE(highlighted, 1);
    // The coordinate beyond 1: the row is drawn where it says, highlighted.
    page.showProblem(rangeRow);
    QVERIFY(page.previewText().contains("bad.txt:3"));
    QTRY_VERIFY(page.previewImage().endsWith("images/train/bad.png"));
    bool found = false;
    for (const auto& b : page.problemPreview()->boxes())
      found = found || (b.highlight && qAbs(b.rect.center().y() - 1.7) < 1e-6);
    QVERIFY(found);
    QVERIFY2(page.previewText().contains("Line 3's box lies outside the image"),
             qPrintable(page.previewText()));
    // A row of four columns has no box: said so, the image still shown.
    page.showProblem(columnsRow);
    QVERIFY2(page.previewText().contains("Line 4 has no box to draw"),
             qPrintable(page.previewText()));
    QTRY_VERIFY(page.previewImage().endsWith("images/train/bad.png"));
    // An unreadable image says so.
    page.showProblem(brokenRow);
    QTRY_VERIFY2(page.previewText().contains("Cannot read"), qPrintable(page.previewText()));
    QVERIFY(page.previewImage().isEmpty());
    QVERIFY(page.problemPreview()->image().isNull());
    // Rescan: the scan cache answers.
    page.rescan();
    QTRY_VERIFY_WITH_TIMEOUT(!page.scanning(), 30000);
    QVERIFY2(page.messageLabel()->text().contains("cache"),
             qPrintable(page.messageLabel()->text()));
  }

  void unreadableDataYaml_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("expected");
    QTest::newRow("removed") << QByteArray() << "data.yaml";
    QTest::newRow("unparseable") << QByteArray("train: [unclosed\nnames: {") << "data.yaml";
  }
  void unreadableDataYaml() {
    QFETCH(QByteArray, content);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const QString yaml = plantedDataset(dir);
    const QString proj = makeProject(dir, yaml);
    QVERIFY(!proj.isEmpty());
    if (content.isEmpty())
      QVERIFY(QFile::remove(yaml));
    else
      writeFile(yaml, content);
    stave::studio::ProjectDocument doc;
    DatasetPage page(&doc);
    QVERIFY(doc.open(proj));
    QTRY_VERIFY_WITH_TIMEOUT(
        !page.scanning() && page.messageLabel()->text().contains("Cannot read"), 30000);
    QVERIFY2(page.messageLabel()->text().contains(expected),
             qPrintable(page.messageLabel()->text()));
    QCOMPARE(page.problems()->rowCount(), 0);
    QCOMPARE(page.gallery()->model()->rowCount(), 0);
    QVERIFY(!page.augmentation()->button()->isEnabled());
  }

  void imagesWithoutLabels() {
    QTemporaryDir dir;
    const QString root = dir.filePath("set");
    QImage img(32, 32, QImage::Format_RGB888);
    img.fill(Qt::darkGreen);
    for (const QString split : {"train", "val"}) {
      QDir().mkpath(root + "/images/" + split);
      for (int i = 0; i < 3; ++i)
        QVERIFY(img.save(QString("%1/images/%2/%3.png").arg(root, split).arg(i)));
    }
    writeFile(root + "/data.yaml", "path: .\ntrain: images/train\nval: images/val\nnames: [a]\n");
    const QString proj = makeProject(dir, root + "/data.yaml");
    stave::studio::ProjectDocument doc;
    DatasetPage page(&doc);
    QVERIFY(doc.open(proj));
    QTRY_VERIFY_WITH_TIMEOUT(!page.scanning() && !page.summary().splits.isEmpty(), 30000);
    QVERIFY2(page.messageLabel()->text().contains("No image has a label"),
             qPrintable(page.messageLabel()->text()));
    bool missing = false;
    for (int r = 0; r < page.problems()->rowCount(); ++r)
      missing = missing || page.problems()->row(r).kind == "labels-missing";
    QVERIFY(missing);
  }

  // Issue 29, defect 10: with no problems the Problems tab was an empty table without a word.
  void noProblemsSaysSo() {
    QTemporaryDir dir;
    const QString root = dir.filePath("set");
    QImage img(32, 32, QImage::Format_RGB888);
    for (const QString split : {"train", "val"}) {
      QDir().mkpath(root + "/images/" + split);
      QDir().mkpath(root + "/labels/" + split);
      for (int i = 0; i < 2; ++i) {
        img.fill(QColor(40 * i + 20, 80, split == "train" ? 10 : 200));  // no duplicates
        QVERIFY(img.save(QString("%1/images/%2/%3.png").arg(root, split).arg(i)));
        writeFile(QString("%1/labels/%2/%3.txt").arg(root, split).arg(i), "0 0.5 0.5 0.2 0.2\n");
      }
    }
    writeFile(root + "/data.yaml", "path: .\ntrain: images/train\nval: images/val\nnames: [a]\n");
    const QString proj = makeProject(dir, root + "/data.yaml");
    stave::studio::ProjectDocument doc;
    DatasetPage page(&doc);
    QVERIFY(doc.open(proj));
    QTRY_VERIFY_WITH_TIMEOUT(!page.scanning() && !page.summary().splits.isEmpty(), 30000);
    QCOMPARE(page.problems()->rowCount(), 0);
    auto* info = page.findChild<QLabel*>("previewInfo");
    QVERIFY(info);
    QVERIFY2(info->text().startsWith("No problems"), qPrintable(info->text()));
    QVERIFY(page.findChild<QTableView*>("problemView")->isHidden());
    auto* tabs = page.findChild<QTabWidget*>();
    QVERIFY(tabs);
    bool titled = false;
    for (int i = 0; i < tabs->count(); ++i) titled = titled || tabs->tabText(i) == "Problems (0)";
    QVERIFY(titled);
  }

  // Runs before any scan of the large set, so nothing is cached yet.
  void cancelStopsAScan() {
    stave::studio::DatasetScan scan;
    QSignalSpy progress(&scan, &stave::studio::DatasetScan::progress);
    QSignalSpy finished(&scan, &stave::studio::DatasetScan::finished);
    scan.start(m_set.yaml, /*useCache=*/false);
    QVERIFY(scan.isRunning());
    // Cancelled straight away: waiting for a progress report first would race the scan (QTRY
    // polls every 50 ms; a fast machine scans much of the set in that time).
    scan.cancel();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
    QVERIFY(!scan.isRunning());
    QVERIFY(scan.summary()->cancelled);
    if (!progress.isEmpty())
      QVERIFY(progress.last().at(1).toLongLong() < progress.last().at(2).toLongLong());
    // No cache was written for the cancelled split.
    QVERIFY(QDir(m_big.filePath("set/.stave-cache"))
                .entryList({"scan-train-*"}, QDir::Files)
                .isEmpty());

    // The page: Cancel right after the project opens.
    stave::studio::ProjectDocument doc;
    DatasetPage page(&doc);
    page.show();
    QVERIFY(doc.open(m_bigProject));
    QVERIFY(page.scanning());
    QVERIFY(page.cancelButton()->isVisible());
    QTest::mouseClick(page.cancelButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!page.scanning(), 10000);
    QVERIFY2(page.messageLabel()->text().contains("cancelled"),
             qPrintable(page.messageLabel()->text()));
    QVERIFY(!page.progressBar()->isVisible());
  }

  void galleryOnTenThousandImages() {
    stave::studio::ProjectDocument doc;
    DatasetPage page(&doc);
    page.resize(1280, 860);
    page.show();
    QElapsedTimer scanTime;
    scanTime.start();
    QVERIFY(doc.open(m_bigProject));
    QTRY_VERIFY_WITH_TIMEOUT(!page.scanning(), 120000);
    qInfo("scanned %d images in %lld ms", kTrain + kVal + 1, scanTime.elapsed());
    QVERIFY2(page.summary().error.isEmpty(), qPrintable(page.summary().error));
    auto* gallery = page.gallery();
    QCOMPARE(gallery->model()->rowCount(), kTrain + kVal + 1);  // broken.jpg is shown too

    // The first screen of thumbnails: from showing the tab until every visible cell has one.
    QElapsedTimer t;
    t.start();
    page.tabs()->setCurrentWidget(gallery);
    QTRY_VERIFY_WITH_TIMEOUT(
        gallery->visibleCells() > 0 && gallery->missingVisibleThumbnails() == 0, 30000);
    const qint64 firstScreen = t.elapsed();
    const int cells = gallery->visibleCells();
    qInfo("first screen of thumbnails: %d cells in %lld ms (%lld decoded)", cells, firstScreen,
          gallery->thumbnails()->decodedCount());
    QVERIFY(cells >= 8);
    QVERIFY2(firstScreen < 5000, qPrintable(QString::number(firstScreen)));
    // Only what is on screen (and a little around it) was decoded, not 10 000 images.
    QVERIFY(gallery->thumbnails()->decodedCount() < 4 * cells + 64);
    // Far down: the screen there fills as quickly.
    t.restart();
    gallery->view()->scrollToBottom();
    QTRY_VERIFY_WITH_TIMEOUT(gallery->missingVisibleThumbnails() == 0, 30000);
    qInfo("after scrolling to the bottom: %lld ms", t.elapsed());

    // Filters.
    auto choose = [](QComboBox* box, const QVariant& data) {
      const int i = box->findData(data);
      QVERIFY(i >= 0);
      box->setCurrentIndex(i);
    };
    auto* f = gallery->filter();
    choose(gallery->splitBox(), QString("val"));
    QCOMPARE(f->rowCount(), kVal);
    choose(gallery->splitBox(), QString("train"));
    QCOMPARE(f->rowCount(), kTrain + 1);
    choose(gallery->splitBox(), QString());
    for (int c = 0; c < 3; ++c) {
      choose(gallery->classBox(), c);
      QCOMPARE(f->rowCount(), m_set.withClass[c]);
    }
    choose(gallery->splitBox(), QString("val"));
    choose(gallery->classBox(), 0);
    QCOMPARE(f->rowCount(), m_set.valWithClass0);
    choose(gallery->splitBox(), QString());
    choose(gallery->classBox(), -1);
    choose(gallery->problemBox(), QString("label-class"));
    QCOMPARE(f->rowCount(), m_set.labelClassProblems);
    choose(gallery->problemBox(), GalleryFilterModel::kAnyProblem);
    QCOMPARE(f->rowCount(), m_set.labelClassProblems + 1);
    // The unreadable image: a "cannot read" thumbnail, and the preview says why.
    choose(gallery->problemBox(), QString("image-unreadable"));
    QCOMPARE(f->rowCount(), 1);
    const QString broken = f->index(0, 0).data(GalleryModel::PathRole).toString();
    QVERIFY(broken.endsWith("broken.jpg"));
    QTRY_VERIFY(gallery->thumbnails()->cached(broken));
    QVERIFY(!gallery->thumbnails()->cached(broken)->ok());
    gallery->view()->setCurrentIndex(f->index(0, 0));
    QTRY_VERIFY(gallery->preview()->message().contains("Cannot read"));
    // A usable image: shown large with its boxes; hiding a class hides its boxes.
    choose(gallery->problemBox(), QString());
    gallery->select(4);  // img00004: boxes of classes 1, 2
    QTRY_VERIFY(gallery->previewPath().endsWith("img00004.jpg"));
    QCOMPARE(gallery->preview()->boxes().size(), 2);
    gallery->classToggles()->item(1)->setCheckState(Qt::Unchecked);
    QCOMPARE(gallery->preview()->boxes().size(), 2);  // kept, drawn without class 1
  }

  void augmentationPreview() {
    QTemporaryDir dir;
    const QString yaml = plantedDataset(dir);
    const QString proj = makeProject(dir, yaml);
    stave::studio::ProjectDocument doc;
    DatasetPage page(&doc);
    page.resize(1000, 700);
    page.show();
    QVERIFY(doc.open(proj));
    QTRY_VERIFY_WITH_TIMEOUT(!page.scanning() && !page.summary().splits.isEmpty(), 30000);
    auto* aug = page.augmentation();
    page.tabs()->setCurrentWidget(aug);
    QVERIFY(aug->button()->isEnabled());
    QSignalSpy shown(aug, &stave::widgets::AugmentView::batchShown);
    QTest::mouseClick(aug->button(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 60000);
    const auto& p = aug->preview();
    QVERIFY2(p.error.isEmpty(), qPrintable(p.error));
    QCOMPARE(p.images.size(), 5);  // five usable train images, batch 16
    QCOMPARE(aug->grid()->imageCount(), 5);
    int boxes = 0;
    for (const auto& im : p.images) {
      QCOMPARE(im.width, 640);  // the default config's imgsz
      QCOMPARE(im.height, 640);
      QCOMPARE(im.rgb.size(), qsizetype(640 * 640 * 3));
      for (const auto& b : im.boxes) {
        ++boxes;
        QVERIFY(b.cls == 0 || b.cls == 1);
        QVERIFY(b.rect.left() >= -1e-3 && b.rect.right() <= 1 + 1e-3);
        QVERIFY(b.rect.top() >= -1e-3 && b.rect.bottom() <= 1 + 1e-3);
      }
    }
    QVERIFY(boxes > 0);
    QCOMPARE(qint64(boxes), p.targets);
    QVERIFY(aug->infoLabel()->text().contains("mosaic"));
    QCOMPARE(aug->button()->text(), QString("Another batch"));
    // Another batch: a different draw.
    QTest::mouseClick(aug->button(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 2, 60000);
    QCOMPARE(aug->preview().epoch, 1);
  }

  // A box's tag stays on top of every box's line: the red offending row's box, drawn over the
  // others, crossed the tag of the box beside it ("circle" read "ircle" on the Problems tab).
  void tagsOverEveryBox() {
    using stave::widgets::DrawnBox;
    QImage image(300, 300, QImage::Format_RGB32);
    image.fill(Qt::black);
    DrawnBox beside(QRectF(0.4, 0.5, 0.3, 0.3), 0);      // its tag above it: y 150 - h .. 150
    DrawnBox offending(QRectF(0.45, 0.2, 0.4, 0.7), 9);  // left edge x 135, across that tag
    offending.highlight = true;
    offending.tag = QStringLiteral("line 5: 9");
    int tagMiddle = 0;
    {
      QPainter painter(&image);
      tagMiddle = 150 - (painter.fontMetrics().height() + 2) / 2;
      stave::widgets::paintBoxes(painter, QRectF(0, 0, 300, 300), {beside, offending},
                                 {QStringLiteral("circle")});
    }
    // The offending box's line is red where it runs free, and not on the tag.
    QCOMPARE(image.pixelColor(135, 220), QColor(255, 0, 0));
    QVERIFY2(image.pixelColor(135, tagMiddle) != QColor(255, 0, 0),
             qPrintable(image.pixelColor(135, tagMiddle).name()));
  }
};

QTEST_MAIN(TestDatasetPage)
#include "tst_dataset_page.moc"
