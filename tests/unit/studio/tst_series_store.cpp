// SeriesStore: a run's chart points by series id, filled from its decoded events (the ranks'
// samples/s summed at rank 0's step, the samples' x from the run's first event), from what the
// history store holds (moved in), with a detail window; what changed announced once per batch.
// And the session's store shared by two views of one run without the run being read again.
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "common/session_events.h"
#include "core/studio/models/run_event.h"
#include "core/studio/models/series_store.h"
#include "core/studio/models/stored_run.h"
#include "core/studio/run/run_controller.h"
#include "core/studio/run/run_session.h"
#include "core/telemetry/events.h"

using stave::studio::LodSeries;
using stave::studio::RunChart;
using stave::studio::RunEvent;
using stave::studio::RunSession;
using stave::studio::RunSessions;
using stave::studio::SeriesId;
using stave::studio::SeriesStore;
namespace tel = stave::telemetry;

Q_DECLARE_METATYPE(QVector<stave::studio::SeriesId>)

namespace {

tel::Event step(double t, int iter, int rank, double sps, double box = 1.0) {
  tel::StepEvent s;
  s.iter = iter;
  s.itersPerEpoch = 100;
  s.samplesPerSec = sps;
  s.boxLoss = box;
  auto e = tel::toEvent(s, rank);
  e.time = t;
  return e;
}

tel::Event gpuSample(double t, int node, int nodes, double util) {
  tel::GpuSampleEvent g;
  g.node = node;
  g.nodes = nodes;
  tel::GpuReading r;
  r.index = 1;
  r.util = util;
  g.gpus.push_back(r);
  auto e = tel::toEvent(g, -1);
  e.time = t;
  return e;
}

std::vector<RunEvent> decoded(const std::vector<tel::Event>& events) {
  std::vector<RunEvent> out;
  for (const auto& e : events) out.push_back(stave::studio::decodeRunEvent(e));
  return out;
}

void append(const QString& dir, const std::vector<tel::Event>& events) {
  QDir().mkpath(dir);
  QFile f(dir + "/events.jsonl");
  QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Append));
  for (const auto& e : events) f.write(QByteArray::fromStdString(tel::encodeEvent(e) + "\n"));
}

const SeriesId kBox{RunChart::Losses, 0};
const SeriesId kSpeed{RunChart::Speed, 0};

}  // namespace

class TestSeriesStore : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

 private slots:
  void initTestCase() { qRegisterMetaType<QVector<SeriesId>>(); }

  void eventsBecomePointsAndEachBatchIsAnnouncedOnce() {
    SeriesStore store;
    QSignalSpy changed(&store, &SeriesStore::seriesChanged);
    QSignalSpy cleared(&store, &SeriesStore::cleared);
    const double t = 1000;
    auto events = decoded({stave::test::runStart(t), step(t, 0, 1, 30), step(t, 0, 0, 10, 2.5),
                           gpuSample(t + 4, 1, 2, 87)});
    store.apply(events, 0);
    QCOMPARE(cleared.count(), 1);  // a run from its start
    QCOMPARE(changed.count(), 1);  // one batch, one signal
    const auto ids = changed[0][0].value<QVector<SeriesId>>();
    QVERIFY(ids.contains(kBox));
    QVERIFY(ids.contains(kSpeed));
    QCOMPARE(std::count(ids.begin(), ids.end(), kBox), 1);
    QVERIFY(store.find(kBox));
    QCOMPARE(store.find(kBox)->size(), size_t(1));
    QCOMPARE(store.find(kBox)->y(0), 2.5);
    // Rank 0's step carries the ranks' latest samples/s, summed.
    QCOMPARE(store.find(kSpeed)->y(0), 40.0);
    // A sample's x: seconds since the run's first event; node 1 of 2 named by its node.
    const SeriesId gpu{RunChart::GpuUtil, 1, 1};
    QVERIFY(store.find(gpu));
    QCOMPARE(store.find(gpu)->x(0), 4.0);
    QCOMPARE(store.nodes(), 2);
    QCOMPARE(store.t0(), t);

    // The next batch names only what it changed; nothing new, no signal.
    events.push_back(stave::studio::decodeRunEvent(step(t + 1, 1, 0, 12)));
    store.apply(events, events.size() - 1);
    QCOMPARE(changed.count(), 2);
    const auto next = changed[1][0].value<QVector<SeriesId>>();
    QVERIFY(next.contains(kBox));
    QVERIFY(!next.contains(gpu));
    QCOMPARE(store.find(kBox)->size(), size_t(2));
    QCOMPARE(store.find(kSpeed)->y(1), 42.0);
    store.apply(events, events.size());
    QCOMPARE(changed.count(), 2);
    QCOMPARE(cleared.count(), 1);
  }

  void aStoredRunsSeriesAreMovedInAndReplacedOnesGetANewGeneration() {
    SeriesStore store;
    stave::studio::StoredRun run;
    run.t0 = 500;
    run.worldSize = 1;
    run.bucketsUntil = 3600;
    stave::studio::StoredRun::Curve c;
    c.key = "step/box_loss";
    for (int i = 0; i < 100; ++i) c.points.append(i, 1.0 / (i + 1));
    run.curves.push_back(std::move(c));
    stave::studio::StoredRun::Samples s;
    s.key = "gpus/0/util";
    s.id = {RunChart::GpuUtil, 0};
    for (int i = 0; i < 10; ++i) s.points.append(i * 10, 50);
    run.samples.push_back(std::move(s));
    const auto events = decoded({stave::test::runStart(600)});
    store.apply(events, 0, &run);
    QVERIFY(store.find(kBox));
    QCOMPARE(store.find(kBox)->size(), size_t(100));
    QCOMPARE(store.find({RunChart::GpuUtil, 0})->size(), size_t(10));
    QCOMPARE(store.t0(), 500.0);  // the stored run's, not the first event read after it
    QCOMPARE(store.bucketsUntil(), 3600.0);
    QCOMPARE(store.points(), size_t(110));
    // A zoomed range read again: drawn from there, the series' own points kept.
    const auto before = store.generation(kBox);
    QSignalSpy changed(&store, &SeriesStore::seriesChanged);
    LodSeries detail;
    detail.append(20, 1);
    detail.append(21, 2);
    store.setDetail({RunChart::GpuUtil, 0}, 20, 21, std::move(detail));
    QCOMPARE(changed.count(), 0);  // announced by the batch's flush
    store.flush();
    QCOMPARE(changed.count(), 1);
    QVERIFY(store.find({RunChart::GpuUtil, 0})->detailCovers(20, 21));
    LodSeries replaced;
    replaced.append(0, 3);
    store.setPoints(kBox, std::move(replaced));
    QVERIFY(store.generation(kBox) != before);
    // Read again from the start: everything dropped, and a series made again is a new one.
    const auto gen = store.generation(kBox);
    store.reset();
    QVERIFY(store.ids().empty());
    QVERIFY(!store.find(kBox));
    store.append(kBox, 0, 1);
    QVERIFY(store.generation(kBox) != gen);
  }

  void twoViewsOfARunShareItsSeriesWithoutASecondRead() {
    const QString dir = m_dir.filePath("runs/shared");
    const double t = tel::unixTimeNow();
    append(dir, {stave::test::runStart(t), step(t, 0, 0, 10), step(t, 1, 0, 10),
                 gpuSample(t + 1, 0, 1, 40)});
    RunSessions sessions;
    sessions.setPollInterval(20);
    QObject page, second;
    int firstReads = 0;  // eventsAppended(0): the run read from its first event
    connect(&sessions, &RunSessions::sessionAdded, this, [&](RunSession* made) {
      connect(made->controller(), &stave::studio::RunController::eventsAppended, this,
              [&](int first) { firstReads += first == 0; });
    });
    RunSession* a = sessions.follow(dir, &page, RunSessions::Need::Charts);
    QVERIFY(a);
    QTRY_VERIFY_WITH_TIMEOUT(a->controller()->caughtUp() && a->series()->find(kBox) &&
                                 a->series()->find(kBox)->size() == 2,
                             10000);
    QCOMPARE(firstReads, 1);
    // A second view of the charts: the same session, the same store, nothing read again.
    QSignalSpy cleared(a->series(), &SeriesStore::cleared);
    RunSession* b = sessions.follow(dir, &second, RunSessions::Need::Charts);
    QCOMPARE(b, a);
    QCOMPARE(b->series(), a->series());
    QCOMPARE(b->series()->find(kBox)->size(), size_t(2));
    QVERIFY(b->series()->find({RunChart::GpuUtil, 1}));  // GPU index 1
    QCOMPARE(a->replays(), 0);
    // The run goes on: both see each new point, read once.
    QSignalSpy changed(a->series(), &SeriesStore::seriesChanged);
    append(dir, {step(t + 2, 2, 0, 10)});
    QTRY_COMPARE_WITH_TIMEOUT(b->series()->find(kBox)->size(), size_t(3), 10000);
    QVERIFY(changed.count() >= 1);
    QCOMPARE(firstReads, 1);
    QCOMPARE(a->replays(), 0);
    QCOMPARE(cleared.count(), 0);
    sessions.release(a, &page);
    sessions.release(b, &second);
    QVERIFY(sessions.sessions().isEmpty());
  }

  void aZoomedRangeIsReadIntoTheStoreForEveryView() {
    // A run opened from the history store holds its samples as 10 s buckets: a zoomed range
    // is read again from the log into the session's store, at full resolution.
    const QString dir = m_dir.filePath("runs/zoomed");
    const double t = tel::unixTimeNow() - 600;
    std::vector<tel::Event> events{stave::test::runStart(t)};
    for (int i = 0; i < 480; ++i)
      events.push_back(gpuSample(t + 0.5 * i, 0, 1, i % 7 == 0 ? 0 : 80));
    append(dir, events);
    RunSessions sessions;
    sessions.setPollInterval(20);
    sessions.setStorePath(m_dir.filePath("stave.db"));
    sessions.setStoredRunBytes(1);  // opened from the store whatever its size
    QObject page;
    RunSession* s = sessions.follow(dir, &page, RunSessions::Need::Charts);
    QVERIFY(s);
    const SeriesId gpu{RunChart::GpuUtil, 1};
    QTRY_VERIFY_WITH_TIMEOUT(
        s->controller()->stored() && !s->controller()->loadingStored() && s->series()->find(gpu),
        20000);
    QVERIFY(s->series()->bucketsUntil() > 100);
    const auto inRange = [&] {
      std::vector<double> x, y;
      s->series()->find(gpu)->query(60, 80, 1000, x, y);
      return std::count_if(x.begin(), x.end(), [](double v) { return v >= 60 && v <= 80; });
    };
    QVERIFY2(inRange() < 10, qPrintable(QString::number(inRange())));  // buckets: two a 10 s
    QSignalSpy changed(s->series(), &SeriesStore::seriesChanged);
    s->wantDetail(60, 80, 1000);
    QVERIFY(s->detailLoading());
    QTRY_VERIFY_WITH_TIMEOUT(!s->detailLoading() && changed.count() > 0, 20000);
    QVERIFY(s->series()->find(gpu)->detailCovers(60, 80));
    QVERIFY2(inRange() >= 40, qPrintable(QString::number(inRange())));  // every half second
    // Read already: a range inside it is not read again.
    s->wantDetail(65, 75, 1000);
    QVERIFY(!s->detailLoading());
    sessions.release(s, &page);
  }

  void aViewAfterTheQueueAloneGetsTheStepsReadAgain() {
    // The queue's session skipped steps: the first view of its charts has it read again.
    const QString dir = m_dir.filePath("runs/queued");
    const double t = tel::unixTimeNow();
    append(dir, {stave::test::runStart(t), step(t, 0, 0, 10), step(t, 1, 0, 10)});
    RunSessions sessions;
    sessions.setPollInterval(20);
    QObject queue, page;
    RunSession* s = sessions.follow(dir, &queue, RunSessions::Need::State);
    QTRY_VERIFY_WITH_TIMEOUT(s->controller()->caughtUp(), 10000);
    QVERIFY(!s->series()->find(kBox));
    QCOMPARE(sessions.follow(dir, &page, RunSessions::Need::Charts), s);
    QCOMPARE(s->replays(), 1);
    QTRY_VERIFY_WITH_TIMEOUT(s->series()->find(kBox) && s->series()->find(kBox)->size() == 2,
                             10000);
  }
};

QTEST_GUILESS_MAIN(TestSeriesStore)
#include "tst_series_store.moc"
