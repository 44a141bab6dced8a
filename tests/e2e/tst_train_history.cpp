// stave-train history on a real project: two tiny runs trained headless, then the table as
// JSON, the comparison (config diff with equal keys hidden), CSV, and a rebuild that gives the
// same history. Tags set in the database survive re-ingestion.
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

#include <cmath>
#include <QtTest/QtTest>

#include "e2e/train_e2e_util.h"

using namespace stave::e2e;

class TstTrainHistory : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    const QString data = makeDemoDataset(m_dir.filePath("data"), 8, 4, 64, 9);
    QVERIFY(!data.isEmpty());
    auto p = runStaveTrain({"new-project", m_dir.filePath("proj"), "--name", "proj", "--data",
                            data, "imgsz=64", "batch=8", "epochs=1", "devices=cpu", "workers=2",
                            "warmup_epochs=0", "threads=1"},
                           {}, 60000);
    QVERIFY2(p.exitCode == 0, qPrintable(p.err));
    m_project = m_dir.filePath("proj/proj.stave");
    for (const QString lr : {"0.01", "0.02"}) {
      auto r = runStaveTrain({"train", "--project", m_project, "lr0=" + lr}, {}, 300000);
      QVERIFY2(r.exitCode == 0, qPrintable(r.err.right(2000)));
    }
  }

  void tableAsJson() {
    auto r = runStaveTrain({"history", m_project, "--json"}, {}, 60000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const auto runs = QJsonDocument::fromJson(r.out.toUtf8()).array();
    QCOMPARE(runs.size(), 2);
    QStringList names;
    for (const auto& v : runs) {
      const auto o = v.toObject();
      names << o["name"].toString();
      QCOMPARE(o["status"].toString(), QString("completed"));
      QCOMPARE(o["epochs_done"].toInt(), 1);
      QCOMPARE(o["model"].toString(), QString("yolov8n"));
      QVERIFY(o["samples_per_s"].toDouble() > 0);
      QVERIFY(o["best_map50_95"].toDouble() >= 0);
    }
    names.sort();
    QCOMPARE(names, (QStringList{"train", "train2"}));
    QVERIFY(QFile::exists(m_dir.filePath("proj/stave.db")));
  }

  void compareShowsOnlyDifferences() {
    auto r = runStaveTrain({"history", m_project, "--compare", "train", "train2", "--json"}, {},
                           60000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const auto j = QJsonDocument::fromJson(r.out.toUtf8()).object();
    const auto diff = j["config_diff"].toObject();
    QVERIFY2(diff.contains("lr0"), qPrintable(r.out));
    QVERIFY(!diff.contains("epochs") && !diff.contains("model"));
    QCOMPARE(diff["lr0"].toArray()[1].toString(), QString("0.02"));
    auto text = runStaveTrain({"history", m_project, "--compare", "train", "train2"}, {}, 60000);
    QVERIFY(text.out.contains("config keys that differ") && text.out.contains("lr0"));
    auto amb = runStaveTrain({"history", m_project, "--compare", "tr", "train2"}, {}, 60000);
    QCOMPARE(amb.exitCode, 2);
    QVERIFY2(amb.err.contains("several runs"), qPrintable(amb.err));
  }

  // Each run wrote TensorBoard files that TensorBoard's own reader reads: the epoch's loss
  // and mAP equal results.csv's.
  void tensorBoardFiles() {
    const QString tb = m_dir.filePath("proj/runs/train/tb");
    QVERIFY2(!QDir(tb).entryList({"events.out.tfevents.*"}).isEmpty(), qPrintable(tb));
    QProcess py;
    py.start(STAVE_TEST_PYTHON, {STAVE_SOURCE_DIR "/tests/tools/read_tensorboard.py", tb});
    QVERIFY(py.waitForFinished(60000));
    QVERIFY2(py.exitCode() == 0, py.readAllStandardError().constData());
    const auto all = QJsonDocument::fromJson(py.readAllStandardOutput()).object();
    for (const char* tag : {"train/box_loss", "metrics/mAP50-95(B)", "lr/pg0", "step/samples_per_s"})
      QVERIFY2(all.contains(tag), tag);
    // results.csv: header, then one row for epoch 1.
    const QStringList rows = readText(m_dir.filePath("proj/runs/train/results.csv")).split('\n');
    const QStringList head = rows[0].split(','), row = rows[1].split(',');
    const int col = head.indexOf("train/box_loss");
    QVERIFY(col >= 0);
    const auto point = all["train/box_loss"].toArray()[0].toArray();
    QCOMPARE(point[0].toInt(), 1);
    QVERIFY2(std::abs(point[1].toDouble() - row[col].toDouble()) < 1e-4,
             qPrintable(QString("%1 vs %2").arg(point[1].toDouble()).arg(row[col])));
  }

  void csvAndRebuild() {
    const QString csv = m_dir.filePath("runs.csv");
    auto r = runStaveTrain({"history", m_project, "--csv", csv}, {}, 60000);
    QCOMPARE(r.exitCode, 0);
    const QString text = readText(csv);
    QVERIFY(text.startsWith("name,status,"));
    QCOMPARE(text.count('\n'), 3);
    // A file named stave.db that is not a database: a clear error; --rebuild mends it.
    {
      QFile db(m_dir.filePath("proj/stave.db"));
      QVERIFY(db.open(QIODevice::WriteOnly | QIODevice::Truncate));
      db.write(QByteArray(4096, 'x'));
    }
    QFile::remove(m_dir.filePath("proj/stave.db-wal"));
    QFile::remove(m_dir.filePath("proj/stave.db-shm"));
    auto broken = runStaveTrain({"history", m_project}, {}, 60000);
    QCOMPARE(broken.exitCode, 2);
    QVERIFY2(broken.err.contains("stave.db") && broken.err.contains("not an SQLite database"),
             qPrintable(broken.err));
    auto rebuilt = runStaveTrain({"history", m_project, "--rebuild", "--json"}, {}, 60000);
    QVERIFY2(rebuilt.exitCode == 0, qPrintable(rebuilt.err));
    QCOMPARE(QJsonDocument::fromJson(rebuilt.out.toUtf8()).array().size(), 2);
    QVERIFY(!QDir(m_dir.filePath("proj")).entryList({"stave.db.broken-*"}).isEmpty());
  }

 private:
  QTemporaryDir m_dir;
  QString m_project;
};

QTEST_GUILESS_MAIN(TstTrainHistory)
#include "tst_train_history.moc"
