#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <utime.h>

#include "common/project_fixture.h"
#include "core/studio/models/recent_summary.h"

// The start screen's line for a recent project: its dataset and its newest training run.
class TestRecentSummary : public QObject {
  Q_OBJECT
  static void write(const QString& path, const QByteArray& text) {
    QDir().mkpath(QFileInfo(path).path());
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
  }
  // A folder's modification time: the order the start screen sorts runs in.
  static void touch(const QString& dir, const QDateTime& when) {
    const utimbuf times{when.toSecsSinceEpoch(), when.toSecsSinceEpoch()};
    QCOMPARE(::utime(QFile::encodeName(dir).constData(), &times), 0);
  }

 private slots:
  void noRunsYet() {
    QTemporaryDir dir;
    const QString path = stave::testing::makeProject(dir);
    const auto info = stave::studio::describeRecentProjects({path});
    QCOMPARE(info.size(), 1);
    QVERIFY(info[0].exists);
    QVERIFY2(info[0].summary.endsWith(" · no runs yet"), qPrintable(info[0].summary));
  }

  // Issue 43 §5.4: Predict's output (runs/detect/predict) was called the newest run
  // ("last run detect (0 epochs)").
  void predictOutputIsNotARun() {
    QTemporaryDir dir;
    const QString path = stave::testing::makeProject(dir);
    const QString runs = dir.filePath("runs");
    write(runs + "/run-a/events.jsonl", "{\"type\":\"run_start\"}\n");
    write(runs + "/run-a/results.csv", "epoch,loss\n1,0.5\n2,0.4\n3,0.3\n");
    write(runs + "/detect/predict/predictions.json", "[]");
    const QDateTime now = QDateTime::currentDateTime();
    touch(runs + "/run-a", now.addSecs(-3600));
    touch(runs + "/detect", now);  // newer than the run
    auto info = stave::studio::describeRecentProjects({path});
    QVERIFY2(info[0].summary.contains("last run run-a (3 epochs"), qPrintable(info[0].summary));
    QVERIFY2(!info[0].summary.contains("detect"), qPrintable(info[0].summary));

    // Only Predict's output: no runs yet.
    QVERIFY(QDir(runs + "/run-a").removeRecursively());
    info = stave::studio::describeRecentProjects({path});
    QVERIFY2(info[0].summary.endsWith(" · no runs yet"), qPrintable(info[0].summary));

    // A run just started (only its config and launcher file yet) counts.
    write(runs + "/run-b/config.yaml", "epochs: 3\n");
    touch(runs + "/run-b", now.addSecs(-60));
    info = stave::studio::describeRecentProjects({path});
    QVERIFY2(info[0].summary.contains("last run run-b (0 epochs"), qPrintable(info[0].summary));
  }
};

QTEST_GUILESS_MAIN(TestRecentSummary)
#include "tst_recent_summary.moc"
