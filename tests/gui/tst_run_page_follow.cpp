// Following a live run on the Run page (issue 43 §2): the charts of a page that is not shown
// are not redrawn while the run's points arrive (they are drawn once it is shown again, with
// every point that came meanwhile), and the per-rank split is redrawn at most once a second,
// not once per batch of events; every event the page shows was decoded by the run's reader,
// none on the GUI thread (issue 43 §1). The run is a generated 2-rank run
// (tests/bench/long_run_src) that the test goes on appending to.
#include <qcustomplot.h>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include "common/project_fixture.h"
#include "core/studio/models/run_event.h"
#include "long_run.h"
#include "widgets/chart_clock.h"
#include "widgets/live_chart.h"
#include "widgets/main_window.h"
#include "widgets/run_page.h"

namespace {

/// The generator's run: 3 minutes of 2 ranks, an epoch a minute, still running.
stave::bench::LongRunOptions liveRun() {
  stave::bench::LongRunOptions o;
  o.hours = 0.05;
  o.plannedHours = 1;
  o.ranks = 2;
  o.epochMinutes = 1;
  o.finished = false;
  o.name = "live";
  return o;
}

}  // namespace

class TstRunPageFollow : public QObject {
  Q_OBJECT
 private slots:
  void hiddenChartsWaitAndTheSplitOnceASecond() {
    QTemporaryDir dir;
    const QString project = stave::testing::makeProject(dir);
    const auto o = liveRun();
    const QString run = dir.filePath("runs/live");
    QDir().mkpath(run);
    const std::string log = (run + "/events.jsonl").toStdString();
    stave::bench::LongRunStats stats;
    std::string error;
    QVERIFY2(stave::bench::writeLongRun(o, log, &stats, &error), error.c_str());
    // Appends `ticks` half-seconds of the run at once (no waiting).
    double from = stats.endTime;
    const auto append = [&](int ticks) {
      int left = ticks;
      stave::bench::appendLive(
          o, log, from, [&] { return left-- > 0; }, false);
      from += 0.5 * ticks;
    };

    stave::widgets::MainWindow w;
    w.resize(1200, 800);
    w.show();
    QVERIFY(w.openProject(project));
    w.showPage(3);
    auto* page = w.runPage();
    QVERIFY(page->showRun(run));
    auto* losses = page->chart("losses");
    auto* clock = page->chartClock();
    QTRY_VERIFY_WITH_TIMEOUT(
        losses->seriesCount() == 3 && losses->pointCount(0) == int(stats.steps), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(
        clock->pending() == 0 && losses->drawnCount(0) == losses->pointCount(0), 30000);

    // Another page shown: the points arrive, the charts are not redrawn.
    w.showPage(4);
    QVERIFY(!losses->isVisible());
    const int refreshes = clock->refreshes();
    const int before = losses->pointCount(0);
    append(8);
    QTRY_VERIFY_WITH_TIMEOUT(losses->pointCount(0) >= before + 8, 30000);
    QTRY_COMPARE_WITH_TIMEOUT(clock->pending(), 0, 30000);  // asked, and passed over
    QCOMPARE(clock->refreshes(), refreshes);
    QVERIFY(losses->drawnCount(0) < losses->pointCount(0));

    // Shown again: drawn, with every point that came meanwhile.
    w.showPage(3);
    QTRY_VERIFY_WITH_TIMEOUT(clock->refreshes() > refreshes, 30000);
    QTRY_COMPARE_WITH_TIMEOUT(losses->drawnCount(0), losses->pointCount(0), 30000);

    // A batch of events every tenth of a second (the reader polls five times a second): the
    // split is redrawn at most once a second, not once per batch.
    auto* split = page->splitChart();
    int splitReplots = 0;
    connect(split, &QCustomPlot::afterReplot, this, [&] { ++splitReplots; });
    const int steps = losses->pointCount(0);
    QElapsedTimer t;
    t.start();
    int appended = 0;
    QTimer feed;
    connect(&feed, &QTimer::timeout, this, [&] {
      if (appended < 30) {
        append(1);
        ++appended;
      }
    });
    feed.start(100);
    QTRY_VERIFY_WITH_TIMEOUT(appended == 30 && losses->pointCount(0) >= steps + 30, 60000);
    feed.stop();
    const qint64 ms = t.elapsed();
    QVERIFY2(splitReplots >= 1, "the split follows the run");
    QVERIFY2(splitReplots <= ms / 1000 + 2,
             qPrintable(QString("%1 replots of the split in %2 ms").arg(splitReplots).arg(ms)));

    // Every step drawn came decoded from the reader's thread: the GUI thread decoded nothing.
    const auto decodes = stave::studio::decodeCounts();
    QVERIFY2(decodes.total >= stats.steps,
             qPrintable(QString("%1 events decoded for %2 steps").arg(decodes.total).arg(stats.steps)));
    QCOMPARE(decodes.onMainThread, uint64_t(0));
  }
};

QTEST_MAIN(TstRunPageFollow)
#include "tst_run_page_follow.moc"
