// A stop request (SIGTERM) to a run whose rank cannot act on it ends within a bounded time, not
// after the launcher's 600 s: 2 Gloo ranks under the real launcher, rank 1 frozen (SIGSTOP, as
// a peer that is gone but whose connection stays open), then SIGTERM. Rank 0, blocked in the
// gradient all-reduce, ends after the stop grace (STAVE_STOP_GRACE_S, here 2 s) with a
// `stopped` finished event that says why; the launcher kills the frozen rank 10 s after rank 0
// ended and the run ends `stopped`.
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QtTest/QtTest>

#include <signal.h>

#include "e2e/train_e2e_util.h"

using namespace stave::e2e;

namespace {

/// The pid of the launcher's worker with RANK=`rank` (its children, read from /proc).
qint64 rankPid(qint64 launcher, int rank) {
  const QDir proc("/proc");
  for (const QString& entry : proc.entryList(QDir::Dirs)) {
    bool number = false;
    const qint64 pid = entry.toLongLong(&number);
    if (!number) continue;
    const QString stat = readText(proc.filePath(entry + "/stat"));
    const QStringList fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
    if (fields.size() < 2 || fields[1].toLongLong() != launcher) continue;  // the parent pid
    QFile env(proc.filePath(entry + "/environ"));
    if (!env.open(QIODevice::ReadOnly)) continue;
    if (env.readAll().split('\0').contains("RANK=" + QByteArray::number(rank))) return pid;
  }
  return 0;
}

}  // namespace

class TstStopGrace : public QObject {
  Q_OBJECT
 private slots:
  void blockedRankEndsWithinTheGrace() {
    QTemporaryDir dir;
    const QString data = makeDemoDataset(dir.filePath("demo"), 16, 4, 64, 4);
    QVERIFY(!data.isEmpty());
    const QString cfg = dir.filePath("run.yaml");
    QVERIFY(writeTinyConfig(cfg, data, 64, 500, 2,
                            {"threads: 1", "workers: 1", "val: false", "warmup_epochs: 0"}));
    const QString run = dir.filePath("runs/frozen");
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("STAVE_STOP_GRACE_S", "2");
    p.setProcessEnvironment(env);
    p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    p.start(QStringLiteral(STAVE_TRAIN_EXE), {"train", cfg, "--run-dir", run, "--nproc", "2"});
    QVERIFY(p.waitForStarted(20000));
    // Training: step events of both ranks.
    QElapsedTimer t;
    t.start();
    QString out;
    auto stepsOf = [&](int rank) {
      int n = 0;
      for (const auto& e : eventsOf(parseEvents(out), "step")) n += e["rank"].toInt() == rank;
      return n;
    };
    while ((stepsOf(0) < 2 || stepsOf(1) < 2) && t.elapsed() < 180000 &&
           p.state() == QProcess::Running) {
      p.waitForReadyRead(200);
      out += QString::fromUtf8(p.readAllStandardOutput());
    }
    QVERIFY2(stepsOf(0) >= 2 && stepsOf(1) >= 2, qPrintable(out.right(2000)));
    const qint64 rank1 = rankPid(p.processId(), 1);
    QVERIFY(rank1 > 0);
    QCOMPARE(::kill(static_cast<pid_t>(rank1), SIGSTOP), 0);
    QTest::qWait(500);
    t.restart();
    p.terminate();  // the stop request, forwarded to both ranks
    const bool ended = p.waitForFinished(60000);
    const qint64 took = t.elapsed();
    if (!ended) {  // without the bound: the launcher waits 600 s
      ::kill(static_cast<pid_t>(rank1), SIGKILL);
      p.kill();
      p.waitForFinished(10000);
    }
    QVERIFY2(ended, "the run did not end within 60 s of the stop request");
    QVERIFY2(took < 40000, qPrintable(QString("took %1 ms").arg(took)));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 0);  // stopped
    const auto events = parseEvents(readText(run + "/events.jsonl"));
    const auto finished = eventsOf(events, "finished");
    QCOMPARE(finished.size(), 1);
    const QJsonObject f = finished[0]["data"].toObject();
    QCOMPARE(f["status"].toString(), QString("stopped"));
    QVERIFY2(f["message"].toString().contains("rank 0 was asked to stop but made no progress") &&
                 f["message"].toString().contains("ended without writing a checkpoint"),
             qPrintable(f["message"].toString()));
    bool killedSaid = false;
    for (const auto& w : eventsOf(events, "warning"))
      killedSaid = killedSaid || w["data"].toObject()["message"].toString().contains(
                                     "rank 0 has stopped; rank(s) 1");
    QVERIFY(killedSaid);
    QVERIFY(::kill(static_cast<pid_t>(rank1), 0) != 0);  // gone
  }
};

QTEST_GUILESS_MAIN(TstStopGrace)
#include "tst_stop_grace.moc"
