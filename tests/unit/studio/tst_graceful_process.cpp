// GracefulProcess: stop() ends a process with SIGTERM, or with SIGKILL after the grace period
// when it ignores SIGTERM; destroying it with a process running ends that process too (and
// waits), without a signal reaching whoever connected to it.

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QtTest>

#include <csignal>

#include "core/studio/graceful_process.h"

using stave::studio::GracefulProcess;

class TestGracefulProcess : public QObject {
  Q_OBJECT

  static qint64 pidOf(QProcess* p) { return p->processId(); }
  static bool alive(qint64 pid) { return ::kill(static_cast<pid_t>(pid), 0) == 0; }

 private slots:
  void stopSendsTermFirst() {
    GracefulProcess child(5000);
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
  }

  void killAfterGraceWhenTermIsIgnored() {
    GracefulProcess child(300);
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
      GracefulProcess child(300);
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
    GracefulProcess child(1000);
    QProcess* a = child.newProcess();
    a->start("true", {});
    QVERIFY(a->waitForFinished());
    QPointer<QProcess> old(a);
    QProcess* b = child.newProcess();
    QVERIFY(b != a);
    QTRY_VERIFY(old.isNull());  // deleted later
    QVERIFY(!child.running());
  }
};

QTEST_GUILESS_MAIN(TestGracefulProcess)
#include "tst_graceful_process.moc"
