// LiveChart drawing series it does not own: two charts given series ids of one SeriesStore draw
// the store's points (no copy of their own), replot only when the store names one of their
// series, follow a replaced series' moving average, show nothing once the store is cleared, and
// outlive the store (a run's session ended while a chart still shows it).
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <memory>

#include "core/studio/models/series_store.h"
#include "widgets/chart_clock.h"
#include "widgets/live_chart.h"

using stave::studio::LodSeries;
using stave::studio::RunChart;
using stave::studio::SeriesId;
using stave::studio::SeriesStore;
using stave::widgets::ChartClock;
using stave::widgets::LiveChart;

namespace {
const SeriesId kBox{RunChart::Losses, 0};
const SeriesId kGpu{RunChart::GpuUtil, 0};
}  // namespace

class TestChartStore : public QObject {
  Q_OBJECT
 private slots:
  void twoChartsDrawOneStoresSeries() {
    SeriesStore store;
    ChartClock clock;
    LiveChart losses("losses"), gpus("gpus");
    for (LiveChart* c : {&losses, &gpus}) {
      c->resize(600, 300);
      c->setClock(&clock);
      c->setStore(&store);
    }
    const int a = losses.bind(kBox, "box", Qt::blue);
    const int b = gpus.bind(kGpu, "GPU 0", Qt::red);
    const int b2 = gpus.bind(kBox, "box", Qt::blue);
    QCOMPARE(losses.bind(kBox, "box again", Qt::green), a);  // one series per id
    QCOMPARE(gpus.seriesOf(kBox), b2);
    QCOMPARE(losses.seriesOf(kGpu), -1);
    for (int i = 0; i < 500; ++i) store.append(kBox, i, 1.0 / (i + 1));
    store.flush();
    // The points are the store's, not a copy.
    QCOMPARE(losses.pointCount(a), 500);
    QCOMPARE(&losses.points(a), store.find(kBox));
    QCOMPARE(&gpus.points(b2), store.find(kBox));
    QCOMPARE(gpus.pointCount(b), 0);
    QTRY_COMPARE_WITH_TIMEOUT(clock.pending(), 0, 10000);
    QVERIFY(losses.drawnCount(a) > 0);
    QVERIFY(!losses.isEmptyShown());

    // The store names the GPU series only: the chart drawing it replots, the other does not.
    store.append(kGpu, 0, 40);
    store.append(kGpu, 1, 60);
    store.flush();
    QCOMPARE(clock.pending(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(clock.pending(), 0, 10000);
    QCOMPARE(gpus.drawnCount(b), 2);
    QCOMPARE(gpus.points(b).y(1), 60.0);

    // Nothing in the store changed: nothing to draw.
    store.flush();
    QCOMPARE(clock.pending(), 0);

    // Read again from the start: the charts keep their series and show nothing until points
    // come again.
    store.reset();
    QCOMPARE(losses.pointCount(a), 0);
    QTRY_COMPARE_WITH_TIMEOUT(clock.pending(), 0, 10000);
    QVERIFY(losses.isEmptyShown());
    store.append(kBox, 0, 2);
    store.flush();
    QTRY_COMPARE_WITH_TIMEOUT(losses.drawnCount(a), 1, 10000);
  }

  void theMovingAverageFollowsTheStore() {
    SeriesStore store;
    LiveChart c("losses");
    c.resize(600, 300);
    c.setStore(&store);
    c.setSmoothing(0.5);
    const int s = c.bind(kBox, "box", Qt::blue);
    store.append(kBox, 0, 4);
    store.append(kBox, 1, 0);
    store.flush();
    QCOMPARE(c.smoothedPoints(s).size(), size_t(2));
    QCOMPARE(c.smoothedPoints(s).y(0), 4.0);  // debiased: the first value itself
    // Half of 4, then half of that and of 0, debiased (points hold y as float).
    QVERIFY(std::abs(c.smoothedPoints(s).y(1) - (0.5 * 0.5 * 4) / (1 - 0.25)) < 1e-5);
    store.append(kBox, 2, 0);  // appended: the average goes on
    store.flush();
    QCOMPARE(c.smoothedPoints(s).size(), size_t(3));
    // Replaced (a run opened from the history store): averaged again from its first point.
    LodSeries other;
    other.append(0, 10);
    other.append(1, 10);
    store.setPoints(kBox, std::move(other));
    store.flush();
    QCOMPARE(c.smoothedPoints(s).size(), size_t(2));
    QCOMPARE(c.smoothedPoints(s).y(1), 10.0);
  }

  void aChartOutlivesItsStore() {
    auto store = std::make_unique<SeriesStore>();
    LiveChart c("gpus");
    c.resize(600, 300);
    c.setStore(store.get());
    const int s = c.bind(kGpu, "GPU 0", Qt::red);
    store->append(kGpu, 0, 1);
    store->flush();
    QCOMPARE(c.pointCount(s), 1);
    store.reset();  // the session ended
    QCOMPARE(c.pointCount(s), 0);
    c.refresh();
    QVERIFY(c.isEmptyShown());
    QString error;
    QTemporaryDir dir;
    QVERIFY2(c.exportCsv(dir.filePath("gpus.csv"), &error), qPrintable(error));
  }
};

QTEST_MAIN(TestChartStore)
#include "tst_chart_store.moc"
