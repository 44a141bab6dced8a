// The studio on a generated long run (tests/bench/long_run_src: 8 ranks, 2 h, an epoch every
// 15 min): the Run page reads it off the GUI thread piece by piece and ends up with the whole
// run on its charts — the first and the last epoch, the first and the last iteration, GPU
// samples from the first minute to the last — while the controller keeps only the low-rate
// events. History lists the run. A smoke test of the studio benchmark: no timing is asserted.
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include "common/project_fixture.h"
#include "core/studio/history_model.h"
#include "long_run.h"
#include "stall_probe.h"
#include "widgets/history_page.h"
#include "widgets/live_chart.h"
#include "widgets/main_window.h"
#include "widgets/run_page.h"

class TstLongRun : public QObject {
  Q_OBJECT
 private slots:
  void wholeRunOnTheCharts() {
    QTemporaryDir dir;
    const QString project = stave::testing::makeProject(dir);
    stave::bench::LongRunOptions o;
    o.hours = 2;
    o.epochMinutes = 15;
    o.name = "long";
    const QString run = dir.filePath("runs/long");
    QDir().mkpath(run);
    stave::bench::LongRunStats stats;
    std::string error;
    QVERIFY2(stave::bench::writeLongRun(o, (run + "/events.jsonl").toStdString(), &stats, &error), error.c_str());
    QCOMPARE(stats.epochs, 8);

    // The event loop's longest stall while the run is read (reported, not asserted).
    stave::bench::StallProbe probe;
    QElapsedTimer t;
    t.start();
    stave::widgets::MainWindow w;
    QVERIFY(w.openProject(project));
    auto* page = w.runPage();
    w.showPage(3);
    auto* metrics = page->chart("metrics");
    // map50 is series 2 on the metrics chart; its points are the epochs (1-based).
    QTRY_VERIFY_WITH_TIMEOUT(metrics->seriesCount() >= 4 && metrics->pointCount(2) == 8, 120000);
    const qint64 loaded = t.elapsed();
    QCOMPARE(metrics->points(2).x(0), 1.0);
    QCOMPARE(metrics->points(2).x(7), 8.0);
    auto* losses = page->chart("losses");
    QCOMPARE(losses->pointCount(0), int(stats.steps));  // every iteration, the first to the last
    QCOMPARE(losses->points(0).x(0), 0.0);
    QCOMPARE(losses->points(0).x(losses->points(0).size() - 1), double(stats.steps - 1));
    auto* gpu = page->chart("gpuUtil");
    QCOMPARE(gpu->seriesCount(), 8);
    const auto& g3 = gpu->points(3);
    QVERIFY(g3.x(0) < 60);
    QVERIFY(g3.x(g3.size() - 1) > 2 * 3600 - 60);
    QCOMPARE(g3.minY(), 0.0);  // its one-sample dips are there
    // The controller keeps the low-rate events only.
    QVERIFY(page->controller()->events().size() < 200);
    qInfo("2 h x 8 ranks (%lld events, %.0f MB): charts whole after %lld ms; longest event-loop stall %lld ms",
          static_cast<long long>(stats.events), stats.bytes / 1e6, static_cast<long long>(loaded),
          static_cast<long long>(probe.worst()));
    // A finished run: no GPU bars in the status bar (they are the GPUs now, only while live).
    auto* bars = w.findChild<QWidget*>("statusGpus");
    QVERIFY(bars);
    QVERIFY(!bars->isVisibleTo(&w));
    // The time axis reads in hours, the iteration axis in thousands.
    gpu->replot();
    QVERIFY2(gpu->xAxis->tickVectorLabels().last().contains(':'), qPrintable(gpu->xAxis->tickVectorLabels().join(' ')));
    losses->replot();
    QVERIFY2(losses->xAxis->tickVectorLabels().last().endsWith('k'), qPrintable(losses->xAxis->tickVectorLabels().join(' ')));
    // History lists it.
    w.showPage(4);
    QTRY_COMPARE_WITH_TIMEOUT(w.historyPage()->model()->rowCount(), 1, 60000);
  }
};

QTEST_MAIN(TstLongRun)
#include "tst_long_run.moc"
