// ChildProcess, the studio's one kind of child process. Attached (a job's): stop() ends a
// process with SIGTERM, or with SIGKILL after the grace period when it ignores SIGTERM;
// destroying it with a process running ends that process too (and waits), without a signal
// reaching whoever connected to it. Detached (a run's): the process outlives its ChildProcess,
// its folder tells who runs it and how it ended, stop() from a ChildProcess made later ends it
// with SIGTERM or, past the grace period, SIGKILL of its whole group. One outcome mapping.

#include <QDir>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QSignalSpy>
#include <QtTest>

#include <csignal>

#include "core/studio/run/child_process.h"

using stave::studio::ChildProcess;
using stave::studio::ProcessOutcome;
using Lifetime = ChildProcess::Lifetime;

class TestChildProcess : public QObject {
  Q_OBJECT

  static qint64 pidOf(QProcess* p) { return p->processId(); }
  static bool alive(qint64 pid) { return ::kill(static_cast<pid_t>(pid), 0) == 0; }

 private slots:
  void stopSendsTermFirst() {
    ChildProcess child(Lifetime::Attached, 5000);
    QProcess* p = child.newProcess();
    QSignalSpy finished(p, &QProcess::finished);
    p->start("sleep", {"30"});
    QVERIFY(p->waitForStarted());
    QVERIFY(child.running());
    QElapsedTimer t;
    t.start();
    child.stop();
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 4000);
    QVERIFY(t.elapsed() < 4000);  // SIGTERM ended it, not the 5 s SIGKILL
    QCOMPARE(p->exitStatus(), QProcess::CrashExit);
    QVERIFY(!child.running());
    QVERIFY(child.stopRequested());
    QCOMPARE(child.outcome(p->exitCode(), p->exitStatus()), ProcessOutcome::Stopped);
  }

  void killAfterGraceWhenTermIsIgnored() {
    ChildProcess child(Lifetime::Attached, 300);
    QProcess* p = child.newProcess();
    QSignalSpy finished(p, &QProcess::finished);
    p->start("sh", {"-c", "trap '' TERM; echo ready; sleep 30"});
    QVERIFY(p->waitForReadyRead(5000));  // the trap is set
    QElapsedTimer t;
    t.start();
    child.stop();
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 5000);
    QVERIFY(t.elapsed() >= 250);  // not before the grace period
  }

  void destroyingEndsTheProcessSilently() {
    qint64 pid = 0;
    int heard = 0;
    {
      ChildProcess child(Lifetime::Attached, 300);
      QProcess* p = child.newProcess();
      connect(p, &QProcess::finished, this, [&] { ++heard; });
      p->start("sh", {"-c", "trap '' TERM; echo ready; sleep 30"});
      QVERIFY(p->waitForReadyRead(5000));
      pid = pidOf(p);
      QVERIFY(alive(pid));
    }
    QVERIFY(!alive(pid));
    QCOMPARE(heard, 0);
  }

  void aNewProcessReplacesTheOld() {
    ChildProcess child(Lifetime::Attached, 1000);
    QProcess* a = child.newProcess();
    a->start("true", {});
    QVERIFY(a->waitForFinished());
    QPointer<QProcess> old(a);
    QProcess* b = child.newProcess();
    QVERIFY(b != a);
    QTRY_VERIFY(old.isNull());  // deleted later
    QVERIFY(!child.running());
    QVERIFY(!child.stopRequested());
  }

  void oneOutcomeMapping() {
    QCOMPARE(ChildProcess::outcomeOf(0, false, false), ProcessOutcome::Completed);
    QCOMPARE(ChildProcess::outcomeOf(2, false, false), ProcessOutcome::Failed);
    QCOMPARE(ChildProcess::outcomeOf(1, false, false, {0, 1}), ProcessOutcome::Completed);
    QCOMPARE(ChildProcess::outcomeOf(0, true, false), ProcessOutcome::Crashed);
    QCOMPARE(ChildProcess::outcomeOf(0, true, true), ProcessOutcome::Stopped);
  }

  void detachedOutlivesAndIsStoppedLater() {
    QTemporaryDir dir;
    const QString folder = dir.filePath("run");
    qint64 pid = 0;
    {
      ChildProcess child(Lifetime::Detached, 5000);
      QString error;
      QVERIFY2(child.startDetached("/bin/sleep", {"30"}, folder, &error), qPrintable(error));
      QVERIFY(child.running());  // starting, then alive
      QTRY_VERIFY_WITH_TIMEOUT(!child.starting(), 5000);
      QVERIFY(QFileInfo::exists(QDir(folder).filePath("launcher.json")));
      const auto rec = ChildProcess::readRecord(folder);
      QVERIFY(rec.valid && rec.startTicks > 0);
      pid = rec.pid;
      QVERIFY(ChildProcess::alive(folder));
    }
    QVERIFY(ChildProcess::alive(folder));  // its ChildProcess is gone; the process is not
    QVERIFY(!ChildProcess::readExit(folder).known);
    // A studio opened later stops it from the folder: SIGTERM ends it, the shell records how.
    ChildProcess later(Lifetime::Detached, 5000);
    later.setFolder(folder);
    QVERIFY(later.running());
    QVERIFY(later.stop());
    QVERIFY(later.stopRequested());
    QTRY_VERIFY_WITH_TIMEOUT(ChildProcess::readExit(folder).known, 4000);
    QVERIFY(!ChildProcess::alive(folder));
    QCOMPARE(ChildProcess::readExit(folder).signal, SIGTERM);
    QVERIFY(!alive(pid));
    QString error;
    QVERIFY(!later.stop(&error));  // nothing left to stop
    QVERIFY(!error.isEmpty());
  }

  void detachedGroupKilledAfterGrace() {
    QTemporaryDir dir;
    const QString folder = dir.filePath("run");
    ChildProcess child(Lifetime::Detached, 300);
    QSignalSpy killed(&child, &ChildProcess::killed);
    QVERIFY(child.startDetached("/bin/sh", {"-c", "trap '' TERM; while true; do sleep 1; done"}, folder));
    QTRY_VERIFY_WITH_TIMEOUT(!child.starting() && ChildProcess::alive(folder), 5000);
    QVERIFY(child.stop());
    QTRY_COMPARE_WITH_TIMEOUT(killed.size(), 1, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(!ChildProcess::alive(folder), 5000);
    // The shell that would write the exit status went with its group: no status, none waited for.
    QTRY_VERIFY_WITH_TIMEOUT(!ChildProcess::readExit(folder).shellWaiting, 5000);
    QVERIFY(!ChildProcess::readExit(folder).known);
  }

  void detachedStartRefused() {
    QTemporaryDir dir;
    ChildProcess child(Lifetime::Detached, 300);
    QString error;
    QVERIFY(!child.startDetached(dir.filePath("no-such-program"), {}, dir.filePath("run"), &error));
    QVERIFY(error.contains("not found"));
    QVERIFY(!child.running());
  }
};

QTEST_GUILESS_MAIN(TestChildProcess)
#include "tst_child_process.moc"
