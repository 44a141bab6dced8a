// PredictJob's file logic without stave-train: predictions.csv read back (names with commas,
// folder and single-image sources, bad rows named by line), the images a source holds, and the
// runs/detect/predict, predict2, ... folder rule of the CLI.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include "core/studio/run/predict_job.h"

using stave::studio::Detection;
using stave::studio::PredictJob;

namespace {
void writeFile(const QString& path, const QByteArray& text) {
  QDir().mkpath(QFileInfo(path).absolutePath());
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(text);
}
}  // namespace

class TestPredictJob : public QObject {
  Q_OBJECT
 private slots:
  void readsAFolderSource() {
    QTemporaryDir dir;
    const QString src = dir.filePath("imgs");
    writeFile(dir.filePath("p.csv"),
              "image,cls,conf,x1,y1,x2,y2\n"
              "a.jpg,0,0.9,1,2,11,22\n"
              "sub/b, c.png,3,0.25,0.5,0.5,4.5,8.5\n"
              "a.jpg,2,0.001,0,0,64,64\n");
    QMap<QString, QVector<Detection>> out;
    QString error;
    QDir().mkpath(src);
    QVERIFY2(PredictJob::readPredictions(dir.filePath("p.csv"), src, &out, &error),
             qPrintable(error));
    QCOMPARE(out.size(), 2);
    const auto a = out.value(QDir(src).filePath("a.jpg"));
    QCOMPARE(a.size(), 2);
    QCOMPARE(a[0].cls, 0);
    QCOMPARE(a[0].conf, 0.9);
    QCOMPARE(a[0].box, QRectF(QPointF(1, 2), QPointF(11, 22)));
    QCOMPARE(a[1].conf, 0.001);
    const auto b = out.value(QDir(src).filePath("sub/b, c.png"));
    QCOMPARE(b.size(), 1);
    QCOMPARE(b[0].cls, 3);
    QCOMPARE(b[0].box, QRectF(0.5, 0.5, 4, 8));
  }

  void readsASingleImageSource() {
    QTemporaryDir dir;
    writeFile(dir.filePath("one.png"), "not decoded here");
    writeFile(dir.filePath("p.csv"), "image,cls,conf,x1,y1,x2,y2\none.png,1,0.5,0,0,1,1\n");
    QMap<QString, QVector<Detection>> out;
    QString error;
    QVERIFY(
        PredictJob::readPredictions(dir.filePath("p.csv"), dir.filePath("one.png"), &out, &error));
    QCOMPARE(out.keys(), QStringList{dir.filePath("one.png")});
  }

  void namesTheBadLine_data() {
    QTest::addColumn<QByteArray>("csv");
    QTest::addColumn<QString>("expected");
    QTest::newRow("header") << QByteArray("name,score\n") << "p.csv:1: not a predictions file";
    QTest::newRow("columns") << QByteArray("image,cls,conf,x1,y1,x2,y2\na.jpg,1,0.5,0,0\n")
                             << "p.csv:2: expected 7 columns";
    QTest::newRow("number") << QByteArray("image,cls,conf,x1,y1,x2,y2\n\na.jpg,1,high,0,0,1,1\n")
                            << "p.csv:3: not a number";
  }
  void namesTheBadLine() {
    QFETCH(QByteArray, csv);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    writeFile(dir.filePath("p.csv"), csv);
    QMap<QString, QVector<Detection>> out;
    QString error;
    QVERIFY(!PredictJob::readPredictions(dir.filePath("p.csv"), dir.path(), &out, &error));
    QVERIFY2(error.contains(expected), qPrintable(error));
    // A missing file is named too.
    QVERIFY(!PredictJob::readPredictions(dir.filePath("none.csv"), dir.path(), &out, &error));
    QVERIFY2(error.contains("none.csv"), qPrintable(error));
  }

  void listsTheImagesStaveTrainReads() {
    QTemporaryDir dir;
    for (const char* name :
         {"b.JPG", "a.png", "sub/c.tiff", "sub/deeper/d.webp", "notes.txt", "labels/a.txt"})
      writeFile(dir.filePath(name), "x");
    const QStringList expected{dir.filePath("a.png"), dir.filePath("b.JPG"),
                               dir.filePath("sub/c.tiff"), dir.filePath("sub/deeper/d.webp")};
    QCOMPARE(PredictJob::sourceImages(dir.path()), expected);
    QCOMPARE(PredictJob::sourceImages(dir.filePath("a.png")), QStringList{dir.filePath("a.png")});
    QVERIFY(PredictJob::sourceImages(dir.filePath("missing")).isEmpty());
  }

  void picksTheNextFreeOutputFolder() {
    QTemporaryDir dir;
    QCOMPARE(PredictJob::freeOutDir(dir.path()), dir.filePath("runs/detect/predict"));
    QVERIFY(QDir(dir.path()).mkpath("runs/detect/predict"));
    QCOMPARE(PredictJob::freeOutDir(dir.path()), dir.filePath("runs/detect/predict2"));
    QVERIFY(QDir(dir.path()).mkpath("runs/detect/predict2"));
    QCOMPARE(PredictJob::freeOutDir(dir.path()), dir.filePath("runs/detect/predict3"));
  }

  void aMissingExecutableFailsToStart() {
    PredictJob job;
    job.setExecutable(QStringLiteral("/nonexistent/stave-train"));
    QString error;
    QVERIFY(!job.start("w.pt", ".", "out", {}, &error));
    QCOMPARE(int(job.outcome()), int(PredictJob::Outcome::FailedToStart));
    QVERIFY2(error.contains("stave-train"), qPrintable(error));
  }
};

QTEST_GUILESS_MAIN(TestPredictJob)
#include "tst_predict_job.moc"
