// stave-train eval-preds end to end: a tiny dataset of BMP images with known sizes, predictions
// written from its labels (perfect, then with misses), and malformed CSVs reported with
// file:line.

#include <QtTest>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "e2e/e2e_util.h"

namespace {

// A 24-bit BMP of w x h grey pixels (rows padded to 4 bytes).
void writeBmp(const QString& path, int w, int h) {
  const int row = (w * 3 + 3) / 4 * 4;
  const int size = 54 + row * h;
  QByteArray b(size, '\0');
  auto put32 = [&](int at, quint32 v) {
    for (int i = 0; i < 4; ++i) b[at + i] = char((v >> (8 * i)) & 0xff);
  };
  auto put16 = [&](int at, quint16 v) {
    b[at] = char(v & 0xff);
    b[at + 1] = char(v >> 8);
  };
  b[0] = 'B';
  b[1] = 'M';
  put32(2, size);
  put32(10, 54);
  put32(14, 40);
  put32(18, w);
  put32(22, h);
  put16(26, 1);
  put16(28, 24);
  put32(34, row * h);
  for (int i = 54; i < size; ++i) b[i] = char(128);
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
  f.write(b);
}

void writeText(const QString& path, const QString& text) {
  QDir().mkpath(QFileInfo(path).absolutePath());
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
  f.write(text.toUtf8());
}

struct Gt {
  QString image;  // relative to images/val
  int w, h;       // image size
  int cls;
  double x1, y1, x2, y2;  // pixels
};

// Val images: a.bmp 200x100 (two boxes), sub/b.bmp 64x64 (one box), c.bmp 80x40 (background).
const QList<Gt> kTruth = {{"a.bmp", 200, 100, 0, 20, 10, 60, 50},
                          {"a.bmp", 200, 100, 1, 100, 20, 180, 90},
                          {"sub/b.bmp", 64, 64, 1, 8, 16, 40, 48}};

QString makeDataset(const QString& root) {
  QDir().mkpath(root + "/images/train");
  QDir().mkpath(root + "/images/val/sub");
  writeBmp(root + "/images/train/t.bmp", 32, 32);
  writeText(root + "/labels/train/t.txt", "0 0.5 0.5 0.5 0.5\n");
  writeBmp(root + "/images/val/a.bmp", 200, 100);
  writeBmp(root + "/images/val/sub/b.bmp", 64, 64);
  writeBmp(root + "/images/val/c.bmp", 80, 40);
  QMap<QString, QString> labels;
  for (const auto& g : kTruth) {
    labels[g.image] += QString("%1 %2 %3 %4 %5\n")
                           .arg(g.cls)
                           .arg((g.x1 + g.x2) / 2 / g.w)
                           .arg((g.y1 + g.y2) / 2 / g.h)
                           .arg((g.x2 - g.x1) / g.w)
                           .arg((g.y2 - g.y1) / g.h);
  }
  for (auto it = labels.begin(); it != labels.end(); ++it) {
    QString label = it.key();
    label.replace(".bmp", ".txt");
    writeText(root + "/labels/val/" + label, it.value());
  }
  writeText(root + "/labels/val/c.txt", "");
  writeText(root + "/data.yaml",
            "path: .\ntrain: images/train\nval: images/val\nnames:\n  0: cat\n  1: dog\n");
  return root + "/data.yaml";
}

QJsonObject runJson(const QStringList& args, const QString& dir) {
  const auto r = stave::e2e::runStaveTrain(args + QStringList{"--json"}, dir, 120000);
  if (r.exitCode != 0) qWarning("stderr: %s", qPrintable(r.err));
  return QJsonDocument::fromJson(r.out.toUtf8()).object();
}

}  // namespace

class TestEvalPreds : public QObject {
  Q_OBJECT

 private slots:
  void perfectPredictions() {
    QTemporaryDir dir;
    const QString yaml = makeDataset(dir.path());
    // Rows name images by path relative to the split root, by stem, and with "./".
    QString csv = "image,cls,conf,x1,y1,x2,y2\n";
    csv += "a.bmp,0,0.9,20,10,60,50\n";
    csv += "a,1,0.8,100,20,180,90\n";
    csv += "./sub/b.bmp,1,0.7,8,16,40,48\n";
    csv += "c,0,0.05,0,0,10,10\n";  // a low-scored false positive on the background image
    writeText(dir.path() + "/p.csv", csv);
    const auto j =
        runJson({"eval-preds", "--data", yaml, "--split", "val", "--preds", dir.path() + "/p.csv"},
                dir.path());
    QCOMPARE(j.value("map50").toDouble(), 1.0);
    QCOMPARE(j.value("map50_95").toDouble(), 1.0);
    QCOMPARE(j.value("images").toInt(), 3);
    QCOMPARE(j.value("instances").toInt(), 3);
    QCOMPARE(j.value("predictions").toInt(), 4);
    QCOMPARE(j.value("max_det").toInt(), 100);
    QCOMPARE(j.value("per_class").toArray().size(), 2);
  }

  void missesAndTable() {
    QTemporaryDir dir;
    const QString yaml = makeDataset(dir.path());
    // The dog in sub/b.bmp is missed: cat AP 1; dog recall 1/2 at precision 1 -> AP 51/101.
    // mAP = (1 + 51/101) / 2 at every IoU threshold.
    writeText(dir.path() + "/p.csv", "a.bmp,0,0.9,20,10,60,50\na.bmp,1,0.8,100,20,180,90\n");
    const auto j =
        runJson({"eval-preds", "--data", yaml, "--preds", dir.path() + "/p.csv"}, dir.path());
    const double expected = (1 + 51.0 / 101) / 2;
    QVERIFY(qAbs(j.value("map50").toDouble() - expected) < 1e-9);
    QVERIFY(qAbs(j.value("map50_95").toDouble() - expected) < 1e-9);
    const auto r = stave::e2e::runStaveTrain(
        {"eval-preds", "--data", yaml, "--preds", dir.path() + "/p.csv"}, dir.path(), 120000);
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("mAP50-95") && r.out.contains("dog"), qPrintable(r.out));
  }

  void malformedCsv() {
    QTemporaryDir dir;
    const QString yaml = makeDataset(dir.path());
    writeText(dir.path() + "/bad.csv",
              "image,cls,conf,x1,y1,x2,y2\na.bmp,0,0.9,20,10,60,50\na.bmp,zero,0.9,1,1,2,2\n"
              "a.bmp,0,0.9,1,1,2\nnope.bmp,0,0.9,1,1,2,2\n");
    const auto r = stave::e2e::runStaveTrain(
        {"eval-preds", "--data", yaml, "--preds", dir.path() + "/bad.csv"}, dir.path(), 120000);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("bad.csv:3: cls: 'zero' is not a number"), qPrintable(r.err));
    QVERIFY2(r.err.contains("bad.csv:4: expected 7 columns"), qPrintable(r.err));
    // Unknown images are found once the rows parse.
    writeText(dir.path() + "/unknown.csv", "a.bmp,0,0.9,20,10,60,50\nnope.bmp,0,0.9,1,1,2,2\n");
    const auto u = stave::e2e::runStaveTrain(
        {"eval-preds", "--data", yaml, "--preds", dir.path() + "/unknown.csv"}, dir.path(), 120000);
    QCOMPARE(u.exitCode, 2);
    QVERIFY2(u.err.contains("unknown.csv:2: image: 'nope.bmp' is not an image of this split"),
             qPrintable(u.err));
    // Missing arguments are usage errors.
    QCOMPARE(stave::e2e::runStaveTrain({"eval-preds", "--data", yaml}, dir.path()).exitCode, 2);
    QCOMPARE(stave::e2e::runStaveTrain(
                 {"eval-preds", "--data", yaml, "--preds", "x.csv", "--max-det", "0"}, dir.path())
                 .exitCode,
             2);
  }

  // A confidence must be a probability; an empty file (or a header alone) is an error, not a
  // silent mAP of 0.
  void confidenceRangeAndEmptyFiles_data() {
    QTest::addColumn<QString>("csv");
    QTest::addColumn<QString>("message");
    QTest::newRow("above-1") << "a.bmp,0,1.5,20,10,60,50\n"
                             << "p.csv:1: conf: '1.5' is outside [0, 1]";
    QTest::newRow("negative") << "image,cls,conf,x1,y1,x2,y2\na.bmp,0,-0.1,20,10,60,50\n"
                              << "p.csv:2: conf: '-0.1' is outside [0, 1]";
    QTest::newRow("percent") << "a.bmp,0,90,20,10,60,50\n" << "p.csv:1: conf: '90' is outside";
    QTest::newRow("empty") << "" << "p.csv: is empty";
    QTest::newRow("blank-lines") << "\n\n" << "p.csv: is empty";
    QTest::newRow("header-only") << "image,cls,conf,x1,y1,x2,y2\n"
                                 << "p.csv: has a header but no prediction rows";
  }
  void confidenceRangeAndEmptyFiles() {
    QFETCH(QString, csv);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString yaml = makeDataset(dir.path());
    writeText(dir.path() + "/p.csv", csv);
    const auto r = stave::e2e::runStaveTrain(
        {"eval-preds", "--data", yaml, "--preds", dir.path() + "/p.csv"}, dir.path(), 120000);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY(!r.out.contains("mAP"));
  }
};

QTEST_GUILESS_MAIN(TestEvalPreds)
#include "tst_eval_preds.moc"
