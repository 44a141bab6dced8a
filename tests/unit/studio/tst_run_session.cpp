// RunSession and its registry: one session (one reader) per run folder whatever follows it, the
// run's state read off the GUI thread, a view that comes mid-run given the run from its start,
// a session nobody holds ended, and the events handed on decoded on the reader's thread. The
// run folder is a fake one the test appends events to.
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "common/session_events.h"
#include "core/studio/hardware/hardware_advice.h"
#include "core/studio/run/run_controller.h"
#include "core/studio/models/run_event.h"
#include "core/studio/run/run_session.h"
#include "core/telemetry/events.h"

using stave::studio::RunController;
using stave::studio::RunOutcome;
using stave::studio::RunSession;
using stave::studio::RunSessions;
namespace tel = stave::telemetry;

namespace {

tel::Event step(double t, int iter) {
  tel::StepEvent s;
  s.iter = iter;
  s.itersPerEpoch = 100;
  s.samplesPerSec = 10;
  s.boxLoss = 1.0;
  auto e = tel::toEvent(s, 0);
  e.time = t;
  return e;
}

/// Appends `events` to the run folder's log (as a run writes it: whole lines at the end).
void append(const QString& dir, const std::vector<tel::Event>& events) {
  QDir().mkpath(dir);
  QFile f(dir + "/events.jsonl");
  QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Append));
  for (const auto& e : events) f.write(QByteArray::fromStdString(tel::encodeEvent(e) + "\n"));
}

/// Counts a controller's step events as it hands them on (they are dropped after).
struct StepCounter : QObject {
  int steps = 0;
  int rereads = 0;  ///< eventsAppended(0): the run from its first event
  void watch(RunController* c) {
    connect(c, &RunController::eventsAppended, this, [this, c](int first) {
      if (first == 0) {
        ++rereads;
        steps = 0;
      }
      for (size_t i = static_cast<size_t>(first); i < c->events().size(); ++i)
        steps += c->events()[i].type == tel::event_type::kStep;
    });
  }
};

}  // namespace

class TestRunSession : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

 private slots:
  void twoViewsShareOneReader() {
    const QString dir = m_dir.filePath("runs/shared");
    const double t = tel::unixTimeNow();
    append(dir, {stave::test::runStart(t), step(t, 0), step(t, 1)});
    RunSessions sessions;
    sessions.setPollInterval(20);
    QObject page, queue;
    int replays = 0;  // counted from the session's making on
    connect(&sessions, &RunSessions::sessionAdded, this, [&replays](RunSession* made) {
      connect(made, &RunSession::replayed, made, [&replays] { ++replays; });
    });
    RunSession* a = sessions.follow(dir, &page, RunSessions::Need::Charts);
    QVERIFY(a);
    StepCounter counted;
    counted.watch(a->controller());
    RunSession* b = sessions.follow(dir + "/", &queue, RunSessions::Need::State);
    QCOMPARE(b, a);  // the same folder, however written: the same session
    QCOMPARE(sessions.sessions().size(), 1);
    QCOMPARE(a->holders(), 2);
    // The first read is on the reader's thread; the run's state comes from it.
    QTRY_VERIFY_WITH_TIMEOUT(a->controller()->caughtUp(), 10000);
    QTRY_COMPARE_WITH_TIMEOUT(counted.steps, 2, 10000);
    QCOMPARE(a->controller()->outcome(), RunOutcome::Running);  // recent events, not started here
    // The run goes on: one reader hands each new step on once, to every view.
    append(dir, {step(t + 1, 2), step(t + 1, 3), step(t + 1, 4)});
    QTRY_COMPARE_WITH_TIMEOUT(counted.steps, 5, 10000);
    QCOMPARE(counted.rereads, 1);
    QCOMPARE(replays, 0);  // opened for the page's charts: read once, never again
    append(dir, {stave::test::finished(t + 2, tel::RunStatus::Completed, 3, "training 2 s", 2)});
    QTRY_COMPARE_WITH_TIMEOUT(b->controller()->outcome(), RunOutcome::Completed, 10000);
    QCOMPARE(counted.steps, 5);
    // Both let go: the session ends (the run itself is not the studio's to stop).
    QSignalSpy removed(&sessions, &RunSessions::sessionRemoved);
    sessions.release(a, &page);
    QCOMPARE(sessions.sessions().size(), 1);
    sessions.release(b, &queue);
    QCOMPARE(removed.count(), 1);
    QVERIFY(sessions.sessions().isEmpty());
    QVERIFY(sessions.find(dir) == nullptr);
  }

  void aViewThatComesMidRunGetsTheRunFromItsStart() {
    const QString dir = m_dir.filePath("runs/midrun");
    const double t = tel::unixTimeNow();
    append(dir, {stave::test::runStart(t), step(t, 0), step(t, 1), step(t, 2)});
    RunSessions sessions;
    sessions.setPollInterval(20);
    // The queue follows the run's state only: steps are not decoded for it.
    QObject queue;
    RunSession* s = sessions.follow(dir, &queue, RunSessions::Need::State);
    QVERIFY(s);
    QVERIFY(!s->chartsWanted());
    QTRY_VERIFY_WITH_TIMEOUT(s->controller()->caughtUp(), 10000);
    append(dir, {step(t + 1, 3)});
    QTRY_VERIFY_WITH_TIMEOUT(s->controller()->caughtUp(), 10000);
    // A page shows it now: the same session reads the run again from its first event, with
    // every step, and goes on from there.
    auto page = std::make_unique<QObject>();
    StepCounter counted;
    counted.watch(s->controller());
    QSignalSpy replayed(s, &RunSession::replayed);
    QCOMPARE(sessions.follow(dir, page.get(), RunSessions::Need::Charts), s);
    QCOMPARE(replayed.count(), 1);
    QVERIFY(s->chartsWanted());
    QTRY_COMPARE_WITH_TIMEOUT(counted.steps, 4, 10000);
    QVERIFY(counted.rereads >= 1);
    const int rereads = counted.rereads;
    append(dir, {step(t + 2, 4)});
    QTRY_COMPARE_WITH_TIMEOUT(counted.steps, 5, 10000);
    QCOMPARE(counted.rereads, rereads);  // followed on from there, not read again
    QCOMPARE(s->controller()->outcome(), RunOutcome::Running);
    // The page goes away: the queue's session stays, and no longer decodes steps.
    page.reset();
    QCOMPARE(sessions.sessions().size(), 1);
    QCOMPARE(s->holders(), 1);
    QVERIFY(!s->chartsWanted());
  }

  void aFolderThatIsNotOneIsRefused() {
    RunSessions sessions;
    QObject view;
    QString error;
    QVERIFY(sessions.follow(m_dir.filePath("runs/none"), &view, RunSessions::Need::Charts,
                            &error) == nullptr);
    QVERIFY2(error.contains("runs/none"), qPrintable(error));
    QVERIFY(sessions.sessions().isEmpty());
  }

  void eventsComeDecodedFromTheReadersThread() {
    const QString dir = m_dir.filePath("runs/typed");
    const double t = tel::unixTimeNow();
    tel::DiagnosisEvent d;
    d.summary = "data-bound";
    tel::Finding f;
    f.rule = "data_bound";
    f.message = "the loader is slow";
    f.advice.push_back({"workers", "8"});
    d.findings.push_back(f);
    auto diagnosis = tel::toEvent(d, -1);
    diagnosis.time = t;
    tel::Event bad = diagnosis;
    bad.data["findings"] = "not a list";
    append(dir, {stave::test::runStart(t), step(t, 0), step(t, 7), diagnosis, bad});
    const auto before = stave::studio::decodeCounts();
    RunSessions sessions;
    sessions.setPollInterval(20);
    QObject page;
    // The views' handlers see the step's values, decoded (the steps are dropped after).
    std::vector<int> iters;
    stave::studio::DoctorAdvice advice;
    connect(&sessions, &RunSessions::sessionAdded, this, [&](RunSession* made) {
      connect(made->controller(), &RunController::eventsAppended, this, [&, made](int first) {
        const auto& events = made->controller()->events();
        for (size_t i = static_cast<size_t>(first); i < events.size(); ++i)
          if (const auto* st = events[i].as<tel::StepEvent>()) iters.push_back(st->iter);
        advice.consider(events, static_cast<size_t>(first));
      });
    });
    RunSession* s = sessions.follow(dir, &page, RunSessions::Need::Charts);
    QVERIFY(s);
    QTRY_COMPARE_WITH_TIMEOUT(iters.size(), size_t(2), 10000);
    QCOMPARE(iters, (std::vector<int>{0, 7}));
    QTRY_VERIFY_WITH_TIMEOUT(advice.hasDiagnosis() && !advice.problem().isEmpty(), 10000);
    QCOMPARE(advice.findings().size(), size_t(1));
    QCOMPARE(advice.findings()[0].rule, std::string("data_bound"));
    QVERIFY2(advice.problem().contains("findings"), qPrintable(advice.problem()));
    QVERIFY(advice.baseIsRunConfig());  // run_start's config, read by the reader
    QCOMPARE(advice.baseConfig(nullptr).getInt("epochs"), int64_t(3));
    const auto after = stave::studio::decodeCounts();
    QCOMPARE(after.total - before.total, uint64_t(5));
    QCOMPARE(after.onMainThread, before.onMainThread);  // none here

    // The same folder read here, on this thread, is counted as such (what the count tells).
    RunController here;
    QVERIFY(here.attach(dir, nullptr, RunController::FirstRead::Here));
    QCOMPARE(stave::studio::decodeCounts().onMainThread - after.onMainThread, uint64_t(5));
  }
};

QTEST_MAIN(TestRunSession)
#include "tst_run_session.moc"
