// A resumed run's times (issue 43 §5.5): each session's finished event says its own training
// and validation time in its message; the studio shows their sum and each session's, on the Run
// page and in History (the store keeps them with the run's sessions). And a run whose process
// is seen ended before its final event was read is not called crashed for a moment, and a look
// at a process made for a run left is not taken for the next run's.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QtTest>

#include "core/store/session_time.h"
#include "core/store/store.h"
#include "core/studio/gui_thread_reads.h"
#include "core/studio/run/run_controller.h"
#include "core/studio/run_times.h"
#include "common/session_events.h"
#include "core/telemetry/events.h"

using stave::store::SessionTime;
using stave::studio::RunController;
using stave::studio::RunOutcome;
namespace tel = stave::telemetry;

namespace {

using stave::test::finished;
using stave::test::runStart;

/// Appends `events` to `dir`/events.jsonl.
void write(const QString& dir, const std::vector<tel::Event>& events) {
  QFile f(dir + "/events.jsonl");
  QVERIFY(f.open(QIODevice::Append));
  for (const auto& e : events) f.write(QByteArray::fromStdString(tel::encodeEvent(e) + "\n"));
}

/// The fixture: stopped after epoch 1 (2 min 7 s of training), resumed and completed (24 s).
std::vector<tel::Event> twoSessions() {
  return {runStart(1000),
          finished(1100, tel::RunStatus::Stopped, 1, "stopped on request; training 2 min 7 s, validation 4.2 s", 140),
          runStart(2000),
          finished(2030, tel::RunStatus::Completed, 3, "training 24 s, validation 1.9 s", 28)};
}

}  // namespace

class TestRunTimes : public QObject {
  Q_OBJECT

 private slots:
  void durationWords_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<double>("seconds");  // -1: not a duration
    QTest::newRow("tenths") << "0.7 s" << 0.7;
    QTest::newRow("seconds") << "42 s" << 42.0;
    QTest::newRow("minutes") << "12 min 5 s" << 725.0;
    QTest::newRow("hours") << "3 h 12 min" << 11520.0;
    QTest::newRow("words") << "a while" << -1.0;
    QTest::newRow("no unit") << "42" << -1.0;
  }
  void durationWords() {
    QFETCH(QString, text);
    QFETCH(double, seconds);
    const auto parsed = stave::store::parseDurationWords(text.toStdString());
    QCOMPARE(parsed.has_value(), seconds >= 0);
    if (parsed) QCOMPARE(*parsed, seconds);
    // The studio says them as the trainer does.
    if (seconds >= 0) QCOMPARE(stave::studio::durationWords(seconds), text);
  }

  void sessionFromMessage_data() {
    QTest::addColumn<QString>("message");
    QTest::addColumn<double>("train");
    QTest::addColumn<double>("val");
    QTest::newRow("alone") << "training 5.2 s, validation 0.8 s" << 5.2 << 0.8;
    QTest::newRow("after the outcome") << "stopped on request; training 1 min 20 s, validation 4.2 s" << 80.0 << 4.2;
    QTest::newRow("before the counts") << "training 2 h 3 min, validation 10 min 0 s; 3 non-finite losses, 1 optimiser steps skipped"
                                       << 7380.0 << 600.0;
    QTest::newRow("none") << "out of memory" << -1.0 << -1.0;
    QTest::newRow("not the trainer's") << "training 5 minutes, validation soon" << -1.0 << -1.0;
  }
  void sessionFromMessage() {
    QFETCH(QString, message);
    QFETCH(double, train);
    QFETCH(double, val);
    const SessionTime t = stave::store::sessionTimeFromFinished(message.toStdString(), 12.5);
    QCOMPARE(t.train, train);
    QCOMPARE(t.val, val);
    QCOMPARE(t.wall, 12.5);
  }

  void totalOfTwoSessions() {
    const auto sessions = stave::studio::sessionTimes(twoSessions());
    QCOMPARE(sessions.size(), size_t(2));
    const SessionTime sum = stave::store::totalTime(sessions);
    QCOMPARE(sum.train, 151.0);
    QCOMPARE(sum.val, 6.1);
    QCOMPARE(sum.wall, 168.0);
    QCOMPARE(stave::studio::sessionTimesText(sessions),
             QString("training 2 min 31 s, validation 6.1 s in 2 sessions (training 2 min 7 s + 24 s, "
                     "validation 4.2 s + 1.9 s)"));
    QCOMPARE(stave::studio::sessionTimesText({sessions.back()}), QString("training 24 s, validation 1.9 s"));
    // A session that did not say its times: the sum of those that did, the other a "?".
    QCOMPARE(stave::studio::sessionTimesText({SessionTime{}, sessions.back()}),
             QString("training 24 s, validation 1.9 s in 2 sessions (training ? + 24 s, validation ? + 1.9 s)"));
    QCOMPARE(stave::studio::sessionTimesText({SessionTime{}}), QString());
  }

  void storeKeepsEachSession() {
    QTemporaryDir dir;
    const QString run = dir.filePath("runs/r1");
    QVERIFY(QDir().mkpath(run));
    write(run, twoSessions());
    auto store = stave::store::Store::open(dir.filePath("stave.db").toStdString());
    QVERIFY(store);
    QVERIFY(store.value()->ingestRun(run.toStdString()));
    auto rec = store.value()->runByDir(run.toStdString());
    QVERIFY(rec);
    QCOMPARE(rec->sessions, (std::vector<std::string>{"stopped", "completed"}));
    QCOMPARE(rec->sessionTimes.size(), size_t(2));
    QCOMPARE(rec->sessionTimes[0].train, 127.0);
    QCOMPARE(rec->sessionTimes[1].val, 1.9);
    QCOMPARE(rec->sessionTimes[1].wall, 28.0);
    // The last message is the last session's; the sum is History's to say.
    QCOMPARE(rec->message, std::string("training 24 s, validation 1.9 s"));
    // A third session appended later: read on from where the store stopped.
    write(run, {runStart(3000), finished(3010, tel::RunStatus::Completed, 3, "training 6.0 s, validation 1.0 s", 8)});
    QVERIFY(store.value()->ingestRun(run.toStdString()));
    rec = store.value()->runByDir(run.toStdString());
    QCOMPARE(rec->sessionTimes.size(), size_t(3));
    QCOMPARE(stave::store::totalTime(rec->sessionTimes).train, 157.0);
  }

  void storeReadsBareStatuses() {
    // A database written before the times were kept: statuses alone, no times.
    stave::store::RunRecord r;
    r.sessions = {"stopped", "completed"};
    QCOMPARE(QString::fromStdString(stave::store::sessionsJson(r)), QString(R"(["stopped","completed"])"));
    r.sessionTimes = {SessionTime{80, 4.2, 95}};
    QCOMPARE(QString::fromStdString(stave::store::sessionsJson(r)),
             QString(R"([{"status":"stopped","train_s":80.0,"val_s":4.2,"wall_s":95.0},"completed"])"));
  }

  // The process has ended (exit status 0) and its final event is written after the studio's
  // read: the run is not called crashed in between; with no final event at all, it is.
  void endedProcessWaitsForItsFinalEvent() {
    QTemporaryDir dir;
    const QString run = dir.filePath("r1");
    QVERIFY(QDir().mkpath(run));
    QFile rec(run + "/launcher.json");
    QVERIFY(rec.open(QIODevice::WriteOnly));
    rec.write(QJsonDocument(QJsonObject{{"pid", qint64(QCoreApplication::applicationPid())},
                                        {"start_ticks", 12345},  // not this process's: ended
                                        {"host", QSysInfo::machineHostName()},
                                        {"boot_id", "x"}})
                  .toJson());
    rec.close();
    QFile exit(run + "/exit_status");
    QVERIFY(exit.open(QIODevice::WriteOnly));
    exit.write("0\n");
    exit.close();
    write(run, {runStart(tel::unixTimeNow())});

    RunController c;
    QList<RunOutcome> seen;
    connect(&c, &RunController::stateChanged, this, [&] { seen << c.outcome(); });
    QVERIFY(c.attach(run));
    QVERIFY(c.outcome() != RunOutcome::Crashed);
    write(run, {finished(tel::unixTimeNow(), tel::RunStatus::Completed, 3, "training 5.2 s, validation 0.8 s", 7)});
    c.poll();
    QCOMPARE(c.outcome(), RunOutcome::Completed);
    QVERIFY(!seen.contains(RunOutcome::Crashed));

    // No final event: a read begun after the end was seen found none.
    QFile::remove(run + "/events.jsonl");
    write(run, {runStart(tel::unixTimeNow())});
    RunController d;
    QVERIFY(d.attach(run));
    QVERIFY(d.outcome() != RunOutcome::Crashed);
    d.poll();
    // The process is looked at off this thread: the outcome comes with the look.
    QTRY_COMPARE(d.outcome(), RunOutcome::Crashed);
    QVERIFY2(d.outcomeText().contains("without a final event"), qPrintable(d.outcomeText()));
  }

  // A look at a run's process that comes after the controller moved to another run is dropped:
  // run A's process is alive (this test's own), run B has none and nothing of it was read. Had
  // A's look reached B, B would read as running, then as crashed.
  void lookAtARunLeftIsDropped() {
    QTemporaryDir dir;
    const QString a = dir.filePath("a"), b = dir.filePath("b");
    QVERIFY(QDir().mkpath(a) && QDir().mkpath(b));
    QFile stat("/proc/self/stat");
    QVERIFY(stat.open(QIODevice::ReadOnly));
    const QByteArray text = stat.readAll();
    const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
    QFile boot("/proc/sys/kernel/random/boot_id");
    QVERIFY(boot.open(QIODevice::ReadOnly));
    QFile rec(a + "/launcher.json");
    QVERIFY(rec.open(QIODevice::WriteOnly));
    rec.write(QJsonDocument(QJsonObject{{"pid", qint64(QCoreApplication::applicationPid())},
                                        {"start_ticks", fields.value(19).toLongLong()},  // field 22
                                        {"host", QSysInfo::machineHostName()},
                                        {"boot_id", QString::fromLatin1(boot.readAll().trimmed())}})
                  .toJson());
    rec.close();
    QVERIFY(stave::studio::ChildProcess::alive(a));

    RunController c;
    c.setPollInterval(20);
    QList<RunOutcome> seen;
    connect(&c, &RunController::stateChanged, this, [&] { seen << c.outcome(); });
    const auto before = stave::studio::readCount(stave::studio::OffGuiRead::RunProcess);
    QVERIFY(c.attach(a));  // its look asked for, still in flight
    QVERIFY(c.attach(b));  // B's first look waits for A's to end (one at a time), then comes
    // Looks run one after the other: a third begun means A's and B's first have been handled.
    QTRY_VERIFY(stave::studio::readCount(stave::studio::OffGuiRead::RunProcess).total >= before.total + 3);
    QCOMPARE(c.runDir(), QFileInfo(b).absoluteFilePath());
    QVERIFY(!c.isLive());
    QCOMPARE(c.outcome(), RunOutcome::None);
    QVERIFY(!seen.contains(RunOutcome::Running) && !seen.contains(RunOutcome::Crashed));
    QCOMPARE(stave::studio::readCount(stave::studio::OffGuiRead::RunProcess).onMainThread,
             before.onMainThread);
  }
};

QTEST_MAIN(TestRunTimes)
#include "tst_run_times.moc"
