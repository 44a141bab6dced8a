// The Dataset page's scan reduced to a summary: counts, histogram, sampled scatters, problems
// tied to their images, unusable images in the gallery list; DatasetScan's progress, result and
// cancel on its own thread.
#include <sys/stat.h>

#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <set>

#include "core/data/image_source.h"
#include "core/studio/models/dataset_scan.h"

using stave::studio::DatasetScan;
using stave::studio::DatasetSummary;

namespace {
void writeBytes(const QString& path, const void* data, size_t n) {
  QDir().mkpath(QFileInfo(path).absolutePath());
  std::ofstream(path.toStdString(), std::ios::binary)
      .write(static_cast<const char*>(data), std::streamsize(n));
}
void writeText(const QString& path, const QByteArray& text) {
  writeBytes(path, text.constData(), size_t(text.size()));
}

// `train` images of 40 x 20 with `boxes` boxes each (class b % 2), 2 val images; train/bad.jpg
// is not an image and train/0.txt has a class id out of range on line 2.
QString writeSet(const QTemporaryDir& dir, int train, int boxes) {
  const QString root = dir.filePath("set");
  cv::Mat m(20, 40, CV_8UC3, cv::Scalar(30, 120, 200));
  const auto jpeg = stave::data::encodeJpegBgr(m, 80);
  QByteArray label;
  for (int b = 0; b < boxes; ++b)
    label += QByteArray::number(b % 2) + " " + QByteArray::number(0.3 + 0.01 * b) + " 0.5 0.2 0." +
             QByteArray::number(1 + b % 8) + "\n";
  for (int i = 0; i < train; ++i) {
    writeBytes(QString("%1/images/train/%2.jpg").arg(root).arg(i), jpeg.data(), jpeg.size());
    writeText(QString("%1/labels/train/%2.txt").arg(root).arg(i),
              i == 0 ? QByteArray("0 0.5 0.5 0.2 0.2\n4 0.5 0.5 0.2 0.2\n") : label);
  }
  for (int i = 0; i < 2; ++i)
    writeBytes(QString("%1/images/val/%2.jpg").arg(root).arg(i), jpeg.data(), jpeg.size());
  writeText(root + "/images/train/bad.jpg", "not a jpeg");
  writeText(root + "/data.yaml", "path: .\ntrain: images/train\nval: images/val\nnames: [a, b]\n");
  return root + "/data.yaml";
}
}  // namespace

class TestDatasetScan : public QObject {
  Q_OBJECT
 private slots:
  void summary() {
    QTemporaryDir dir;
    // 1 + 899 x 25 boxes > 20 000: the scatters are sampled.
    const QString yaml = writeSet(dir, 900, 25);
    QStringList splits;
    const DatasetSummary s =
        stave::studio::scanDataset(yaml, nullptr, [&](const QString& split, qint64, qint64) {
          if (!splits.contains(split)) splits << split;
        });
    QVERIFY2(s.error.isEmpty(), qPrintable(s.error));
    QVERIFY(!s.cancelled);
    QCOMPARE(splits, (QStringList{"train", "val"}));
    QCOMPARE(s.names, (QStringList{"a", "b"}));
    QCOMPARE(s.splits.size(), 2);
    QCOMPARE(s.splits[0].images, qint64(900));
    QCOMPARE(s.splits[0].labelled, qint64(900));
    QCOMPARE(s.splits[0].skipped, qint64(1));
    QCOMPARE(s.splits[1].images, qint64(2));
    QCOMPARE(s.splits[1].background, qint64(2));
    const qint64 total = 1 + 899 * 25;
    QCOMPARE(s.boxes, total);
    QCOMPARE(s.splits[0].instances, total);
    QCOMPARE(s.instancesPerClass.size(), 2);
    QCOMPARE(s.instancesPerClass[0], qint64(1 + 899 * 13));
    QCOMPARE(s.instancesPerClass[1], qint64(899 * 12));
    // A sample of about half (stride 2), never more than kMaxPoints, spread over the heights.
    QVERIFY(s.boxSizes.size() <= DatasetSummary::kMaxPoints);
    QVERIFY2(s.boxSizes.size() > total / 2 - 1000 && s.boxSizes.size() < total / 2 + 1000,
             qPrintable(QString::number(s.boxSizes.size())));
    QCOMPARE(s.boxAspects.size(), s.boxSizes.size());
    std::set<int> heights;
    for (const auto& p : s.boxSizes) heights.insert(qRound(p.y() * 10));
    QVERIFY(heights.size() >= 8);
    // Aspects in pixels: a 0.2 x h box of a 40 x 20 image is 8 x 20h pixels.
    for (int i = 0; i < s.boxSizes.size(); ++i)
      QVERIFY(qAbs(s.boxAspects[i] - 8.0 / (20.0 * s.boxSizes[i].y())) < 1e-3);
    QCOMPARE(s.imageSizes.size(), 902);
    QCOMPARE(s.imageSizes.front(), QPointF(40, 20));
    // Gallery list: every usable image plus bad.jpg, which is marked unusable.
    QCOMPARE(int(s.images->size()), 903);
    int unusable = -1;
    for (size_t i = 0; i < s.images->size(); ++i)
      if (!(*s.images)[i].usable) unusable = int(i);
    QVERIFY(unusable >= 0);
    QVERIFY((*s.images)[size_t(unusable)].path.endsWith("bad.jpg"));
    // Problems point at their images.
    bool classProblem = false, unreadable = false;
    for (const auto& p : s.problems) {
      if (p.kind == "label-class") {
        classProblem = true;
        QCOMPARE(p.line, 2);
        QVERIFY(p.image >= 0);
        QVERIFY((*s.images)[size_t(p.image)].path.endsWith("train/0.jpg"));
        QVERIFY((*s.images)[size_t(p.image)].problemKinds.contains("label-class"));
      }
      if (p.kind == "image-unreadable") {
        unreadable = true;
        QCOMPARE(p.image, unusable);
      }
    }
    QVERIFY(classProblem && unreadable);
    QVERIFY(s.problemKinds.contains("label-class"));
    QVERIFY(s.problemKinds.contains("image-unreadable"));
    QVERIFY(s.train && s.train->images.size() == 900);
    QVERIFY(!s.fromCache());
    // Again: the cache answers.
    QVERIFY(stave::studio::scanDataset(yaml).fromCache());
  }

  void missingYamlNamesTheFile() {
    const DatasetSummary s = stave::studio::scanDataset("/nonexistent/data.yaml");
    QVERIFY(s.error.contains("/nonexistent/data.yaml"));
    QVERIFY(s.images && s.images->empty());
  }

  // A label file that is a FIFO no writer opens blocked the scan for good (and the window,
  // whose next scan joined it); one linked to /dev/zero filled the memory. Both are named as
  // label-unreadable, their images left out, and the scan ends.
  void unreadableLabelsAreNamed() {
    QTemporaryDir dir;
    const QString yaml = writeSet(dir, 4, 1);
    const QString fifo = dir.filePath("set/labels/train/1.txt");
    const QString zero = dir.filePath("set/labels/train/2.txt");
    QVERIFY(QFile::remove(fifo) && QFile::remove(zero));
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    QVERIFY(QFile::link("/dev/zero", zero));
    DatasetScan scan;
    QSignalSpy finished(&scan, &DatasetScan::finished);
    scan.start(yaml, /*useCache=*/false);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
    const auto s = scan.summary();
    QVERIFY(s && s->error.isEmpty());
    QStringList unreadable;
    for (const auto& p : s->problems)
      if (p.kind == "label-unreadable") unreadable << QFileInfo(p.file).fileName() + ": " + p.message;
    unreadable.sort();
    QCOMPARE(unreadable.size(), 2);
    QVERIFY2(unreadable[0].startsWith("1.txt: is a FIFO"), qPrintable(unreadable[0]));
    QVERIFY2(unreadable[1].startsWith("2.txt: is a device"), qPrintable(unreadable[1]));
    QCOMPARE(s->splits[0].skipped, qint64(3));  // bad.jpg and the two images
  }

  void scanOnItsThreadAndCancel() {
    QTemporaryDir dir;
    const QString yaml = writeSet(dir, 3000, 1);
    DatasetScan scan;
    QSignalSpy progress(&scan, &DatasetScan::progress);
    QSignalSpy finished(&scan, &DatasetScan::finished);
    scan.start(yaml, /*useCache=*/false);
    QVERIFY(scan.isRunning());
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
    QVERIFY(!scan.isRunning());
    QVERIFY(scan.summary() && scan.summary()->error.isEmpty());
    QCOMPARE(scan.summary()->splits[0].images, qint64(3000));
    QVERIFY(!progress.isEmpty());
    // The last train report is 3001 of 3001 (bad.jpg is checked too).
    qint64 lastTrain = 0;
    for (const auto& args : progress)
      if (args.at(0).toString() == "train") lastTrain = args.at(1).toLongLong();
    QCOMPARE(lastTrain, qint64(3001));

    // Cancel straight after the start: a cancelled summary, the previous one replaced. (Waiting
    // for the first progress report first is a race: QTRY polls every 50 ms, and a fast machine
    // scans 3000 images within that.) Scanning 3000 files takes far longer than the two calls.
    progress.clear();
    scan.start(yaml, /*useCache=*/false);
    scan.cancel();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 30000);
    QVERIFY(scan.summary()->cancelled);
    QVERIFY(scan.summary()->splits.isEmpty());

    // A new start while one runs: only the newest finishes.
    scan.start(yaml, false);
    scan.start(yaml, true);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 3, 30000);
    QTest::qWait(100);
    QCOMPARE(finished.count(), 3);
    QVERIFY(!scan.summary()->cancelled);

    // Destroyed while scanning: the destructor cancels it (and would let a scan that does not
    // end go after a bounded wait).
    auto scan2 = std::make_unique<DatasetScan>();
    scan2->start(yaml, false);
    scan2.reset();
  }
};

QTEST_GUILESS_MAIN(TestDatasetScan)
#include "tst_dataset_scan.moc"
