// Reading the validation views for the studio: the hand-made files of validation_fixture.h
// read back exactly (matrix, normalised columns, the images behind cells, curves and their
// means, per-class rows, boxes, gallery paths); no folder is "not validated yet", not an
// error; broken files are named with the line or key at fault, and what could be read is kept.
#include <sys/stat.h>

#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include "common/validation_fixture.h"
#include "core/studio/models/validation_data.h"

using namespace stave::studio;

class TstValidationData : public QObject {
  Q_OBJECT

  static QString views(const QTemporaryDir& dir) { return dir.filePath(QStringLiteral("val")); }
  static QStringList images(const QTemporaryDir& dir) {
    return {dir.filePath("a.jpg"), dir.filePath("b.jpg"), dir.filePath("c.jpg")};
  }

 private slots:
  void readsTheHandMadeViews() {
    QTemporaryDir dir;
    QVERIFY(stave::testing::writeValidationViews(views(dir), images(dir)));
    const auto d = readValidationData(views(dir));
    QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
    QVERIFY(d.present);
    QCOMPARE(d.names, QStringList({"cat", "dog", "background"}));
    QCOMPARE(d.classCount(), 2);
    QCOMPARE(d.matrixConf, 0.25);
    QCOMPARE(d.matrixIou, 0.45);
    QCOMPARE(d.counts[0], QVector<double>({3, 1, 1}));
    QCOMPARE(d.counts[2], QVector<double>({1, 0, 0}));
    // Normalised per true class: cat column 3/4 and 1/4, dog column 1/3 and 2/3.
    const auto n = normalisedColumns(d.counts);
    QCOMPARE(n[0][0], 0.75);
    QCOMPARE(n[2][0], 0.25);
    QVERIFY(qAbs(n[0][1] - 1.0 / 3) < 1e-12);
    QVERIFY(qAbs(n[1][1] - 2.0 / 3) < 1e-12);
    QCOMPARE(n[0][2], 1.0);
    QCOMPARE(n[1][0], 0.0);
    // The images behind the cells.
    QCOMPARE(d.cellImages.value({0, 0}), QVector<qint64>({0, 1}));
    QCOMPARE(d.cellImages.value({2, 0}), QVector<qint64>({2}));
    QVERIFY(!d.cellImages.contains({1, 0}));
    // Curves, their means and the best mean F1.
    QCOMPARE(d.curves.size(), 2);
    QCOMPARE(d.curves[1].name, QString("dog"));
    QCOMPARE(d.curves[0].bestF1, 0.77);
    QCOMPARE(d.curves[0].map50, 0.8);
    const auto meanP = d.meanCurve("precision");
    QVERIFY(qAbs(meanP[1] - 0.7) < 1e-12);
    const auto pr = d.meanPr();
    QVERIFY(qAbs(pr[1] - 0.8) < 1e-12);
    QVERIFY(qAbs(pr[2] - 0.4) < 1e-12);
    const auto best = d.bestMeanF1();
    QCOMPARE(best.first, 0.7);
    QCOMPARE(best.second, 0.5);
    // Per class, boxes, gallery.
    QCOMPARE(d.perClass.size(), 2);
    QCOMPARE(d.perClass[0].instances, qint64(4));
    QCOMPARE(d.perClass[1].map5095, 0.4);
    QCOMPARE(d.images.size(), 3);
    QCOMPARE(d.images[1].path, dir.filePath("b.jpg"));
    QCOMPARE(d.images[0].labels.size(), 2);
    QCOMPARE(d.images[0].predictions[0].conf, 0.9);
    QCOMPARE(d.images[0].labels[1].rect, QRectF(QPointF(50, 20), QPointF(90, 70)));
    QCOMPARE(d.gallery.size(), 1);
    QCOMPARE(d.gallery[0].predictionsPath, QDir(views(dir)).filePath("gallery/00_pred.jpg"));
  }

  void noFolderIsNotAnError() {
    QTemporaryDir dir;
    const auto d = readValidationData(dir.filePath("nowhere"));
    QVERIFY(!d.present);
    QVERIFY(d.error.isEmpty());
  }

  void brokenJsonNamesFileAndLine() {
    QTemporaryDir dir;
    QVERIFY(stave::testing::writeValidationViews(views(dir), images(dir)));
    QVERIFY(stave::testing::writeText(views(dir) + "/curves.json", "{\n \"version\": 1,\n \"conf\": [0.1,\n"));
    const auto d = readValidationData(views(dir));
    QVERIFY(d.present);
    QVERIFY2(d.error.startsWith("curves.json: line 4"), qPrintable(d.error));
    QVERIFY(d.curves.isEmpty());
    QCOMPARE(d.counts.size(), 3);  // the matrix is still shown
    QCOMPARE(d.perClass.size(), 2);
  }

  void wrongTypesNameTheKey() {
    QTemporaryDir dir;
    QVERIFY(stave::testing::writeValidationViews(views(dir), images(dir)));
    QVERIFY(stave::testing::writeText(
        views(dir) + "/confusion_matrix.json",
        "{\"names\": [\"a\", \"background\"], \"conf\": 0.25, \"iou\": 0.45, \"counts\": [[1, 0], [0, \"x\"]]}"));
    auto d = readValidationData(views(dir));
    QVERIFY2(d.error.contains("confusion_matrix.json") && d.error.contains("counts[1]"), qPrintable(d.error));
    QVERIFY(d.names.isEmpty());  // nothing half-read
    QVERIFY(d.counts.isEmpty());

    QVERIFY(stave::testing::writeText(views(dir) + "/confusion_matrix.json",
                                      "{\"names\": [\"a\", \"background\"], \"conf\": \"high\", \"iou\": 0.45, \"counts\": []}"));
    d = readValidationData(views(dir));
    QVERIFY2(d.error.contains("key conf has the wrong type"), qPrintable(d.error));

    QVERIFY(stave::testing::writeText(views(dir) + "/confusion_matrix.json",
                                      "{\"names\": [\"a\", \"background\"], \"conf\": 0.2, \"iou\": 0.45, \"counts\": [[1, 0]]}"));
    d = readValidationData(views(dir));
    QVERIFY2(d.error.contains("has 1 rows for 2 names"), qPrintable(d.error));
  }

  void galleryStaysInsideTheFolder() {
    QTemporaryDir dir;
    QVERIFY(stave::testing::writeValidationViews(views(dir), images(dir)));
    QVERIFY(stave::testing::writeText(
        views(dir) + "/images.json",
        "{\"images\": {}, \"gallery\": [{\"image\": 0, \"labels\": \"../../secret.jpg\", \"predictions\": \"gallery/x.jpg\"}]}"));
    const auto d = readValidationData(views(dir));
    QVERIFY2(d.error.contains("gallery[0].labels points outside the folder"), qPrintable(d.error));
    QVERIFY(d.gallery.isEmpty());
  }

  void malformedCsvNamesTheLine() {
    QTemporaryDir dir;
    QVERIFY(stave::testing::writeValidationViews(views(dir), images(dir)));
    QVERIFY(stave::testing::writeText(views(dir) + "/per_class.csv",
                                      "class,name,images,instances,precision,recall,mAP50,mAP50-95\n"
                                      "0,cat,3,4,0.8,0.75,0.8,0.5\n1,dog,one,3,0.6,0.66,0.6,0.4\n"));
    const auto d = readValidationData(views(dir));
    QVERIFY2(d.error.startsWith("per_class.csv: line 3"), qPrintable(d.error));
    QCOMPARE(d.perClass.size(), 1);
  }

  // A number no double holds (1e999) ended the studio: nlohmann's out_of_range was caught
  // nowhere. It is an error naming the file, the line and the key; the other files are read.
  void numberOutOfRangeNamesFileLineAndKey() {
    QTemporaryDir dir;
    QVERIFY(stave::testing::writeValidationViews(views(dir), images(dir)));
    QVERIFY(stave::testing::writeText(views(dir) + "/curves.json",
                                      "{\n \"version\": 1,\n \"conf\": [0.1, 1e999]\n}\n"));
    const auto d = readValidationData(views(dir));
    QVERIFY(d.present);
    QVERIFY2(d.error.startsWith("curves.json: line 3: key conf[1]: number out of range '1e999'"),
             qPrintable(d.error));
    QVERIFY(d.curves.isEmpty());
    QCOMPARE(d.counts.size(), 3);  // the matrix is still shown
  }

  // A FIFO (no writer ever opens it) or a link to /dev/zero in place of a view: refused at once
  // naming the file, never waited on or read without end; the other files are read.
  void notRegularFilesAreRefused_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<bool>("fifo");
    QTest::newRow("images.json a FIFO") << "images.json" << true;
    QTest::newRow("per_class.csv a FIFO") << "per_class.csv" << true;
    QTest::newRow("curves.json linked to /dev/zero") << "curves.json" << false;
  }
  void notRegularFilesAreRefused() {
    QFETCH(QString, file);
    QFETCH(bool, fifo);
    QTemporaryDir dir;
    QVERIFY(stave::testing::writeValidationViews(views(dir), images(dir)));
    const QString path = views(dir) + "/" + file;
    QVERIFY(QFile::remove(path));
    if (fifo)
      QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
    else
      QVERIFY(QFile::link("/dev/zero", path));
    QElapsedTimer t;
    t.start();
    const auto d = readValidationData(views(dir));
    QVERIFY(t.elapsed() < 10000);
    QVERIFY2(d.error.startsWith(file + ": is a"), qPrintable(d.error));
    QVERIFY2(d.error.contains(fifo ? "FIFO" : "device"), qPrintable(d.error));
    QCOMPARE(d.counts.size(), 3);
  }

  void csvQuotes() {
    QStringList f;
    QVERIFY(splitCsvLine("1,\"dog, \"\"big\"\"\",2", &f));
    QCOMPARE(f, QStringList({"1", "dog, \"big\"", "2"}));
    QVERIFY(!splitCsvLine("1,\"open", &f));
  }
};

QTEST_GUILESS_MAIN(TstValidationData)
#include "tst_validation_data.moc"
