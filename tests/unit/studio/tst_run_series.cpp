// What the Run page draws of each event (core/studio/run_series): a step of rank 0 gives its
// three losses and the summed samples/s at its global iteration; an epoch its train losses and
// each group's learning rate at the 1-based epoch; a validation its P, R, mAPs and val losses;
// a launcher sample each GPU's utilisation, memory in GiB and power (an unsampled field none)
// and the node's CPU and memory in %. The store's keys map to the same series and back.
#include <QtTest>

#include "core/store/store.h"
#include "core/studio/models/run_series.h"

namespace tel = stave::telemetry;
using stave::studio::RunChart;
using stave::studio::SeriesId;
using stave::studio::SeriesPoint;

namespace {
const SeriesPoint* find(const std::vector<SeriesPoint>& points, SeriesId id) {
  for (const auto& p : points)
    if (p.id == id) return &p;
  return nullptr;
}
}  // namespace

class TstRunSeries : public QObject {
  Q_OBJECT
 private slots:
  void eventsToPoints() {
    tel::StepEvent s;
    s.epoch = 2;
    s.itersPerEpoch = 100;
    s.iter = 7;
    s.boxLoss = 1.5;
    s.clsLoss = 2.5;
    s.dflLoss = 0.5;
    s.samplesPerSec = 40;
    const auto step = stave::studio::seriesPoints(s, 160);
    QCOMPARE(step.size(), size_t(4));
    QCOMPARE(find(step, {RunChart::Losses, 1})->y, 2.5);
    QCOMPARE(find(step, {RunChart::Losses, 1})->x, 207.0);
    QCOMPARE(find(step, {RunChart::Speed, 0})->y, 160.0);  // all ranks, not rank 0's 40

    tel::EpochEndEvent e;
    e.epoch = 0;
    e.boxLoss = 1;
    e.lr = {0.01, 0.02, 0.03};
    const auto epoch = stave::studio::seriesPoints(e);
    QCOMPARE(epoch.size(), size_t(6));
    QCOMPARE(find(epoch, {RunChart::EpochLosses, 0})->x, 1.0);  // epochs count from 1
    QCOMPARE(find(epoch, {RunChart::Lr, 2})->y, 0.03);

    tel::ValidationEvent v;
    v.epoch = 4;
    v.map5095 = 0.4;
    v.dflLoss = 0.9;
    const auto val = stave::studio::seriesPoints(v);
    QCOMPARE(val.size(), size_t(7));
    QCOMPARE(find(val, {RunChart::Metrics, 3})->y, 0.4);
    QCOMPARE(find(val, {RunChart::EpochLosses, 5})->y, 0.9);
    QCOMPARE(find(val, {RunChart::EpochLosses, 5})->x, 5.0);

    tel::GpuSampleEvent g;
    tel::GpuReading a, b;
    a.index = 3;
    a.util = 90;
    a.memUsed = 2.0 * (1 << 30);
    a.powerW = 300;
    b.index = 5;
    b.util = 10;  // memory and power unsampled
    g.gpus = {a, b};
    const auto gpu = stave::studio::seriesPoints(g, 12.5);
    QCOMPARE(gpu.size(), size_t(4));
    QCOMPARE(find(gpu, {RunChart::GpuMem, 3})->y, 2.0);  // GiB
    QCOMPARE(find(gpu, {RunChart::GpuUtil, 5})->x, 12.5);
    QVERIFY(!find(gpu, {RunChart::GpuPower, 5}));

    tel::SystemSampleEvent y;
    y.cpuTotal = 55;
    y.memUsed = 25;
    y.memTotal = 100;
    const auto sys = stave::studio::seriesPoints(y, 1);
    QCOMPARE(find(sys, {RunChart::System, 0})->y, 55.0);
    QCOMPARE(find(sys, {RunChart::System, 1})->y, 25.0);
    y.memTotal = -1;  // no total: no memory %
    QCOMPARE(stave::studio::seriesPoints(y, 1).size(), size_t(1));
  }

  void storeKeys() {
    QVERIFY(stave::studio::curveSeries("step/dfl_loss") == (SeriesId{RunChart::Losses, 2}));
    QVERIFY(stave::studio::curveSeries(stave::store::kTotalSamplesPerSecKey) == (SeriesId{RunChart::Speed, 0}));
    QVERIFY(stave::studio::curveSeries("step/samples_per_s") == (SeriesId{RunChart::Speed, 1}));
    QVERIFY(!stave::studio::curveSeries("step/lr"));
    for (const char* key : {"gpus/0/util", "gpus/7/mem_used", "gpus/12/power_w", "cpu_total", "mem_used"}) {
      const auto id = stave::studio::sampleSeries(key);
      QVERIFY2(id, key);
      QCOMPARE(stave::studio::sampleKey(*id), std::string(key));
    }
    QVERIFY(stave::studio::sampleSeries("gpus/2/util", 6) == (SeriesId{RunChart::GpuUtil, 6}));  // by index
    for (const char* key : {"gpus/0/temp_c", "gpus/x/util", "gpus//util", "ranks/2/rss", "mem_total"})
      QVERIFY2(!stave::studio::sampleSeries(key), key);
  }

  // Another node's samples (issue 45 §2): keyed node/K/... in the store, a series of their own
  // beside node 0's; node 0's keys stay those of a run of one node.
  void otherNodesSeries() {
    for (const char* key : {"node/1/gpus/0/util", "node/1/gpus/3/mem_used", "node/12/gpus/7/power_w",
                            "node/1/cpu_total", "node/3/mem_used"}) {
      const auto id = stave::studio::sampleSeries(key);
      QVERIFY2(id, key);
      QVERIFY(id->node > 0);
      QCOMPARE(stave::studio::sampleKey(*id), std::string(key));
    }
    QVERIFY(stave::studio::sampleSeries("node/1/gpus/3/util") == (SeriesId{RunChart::GpuUtil, 3, 1}));
    QVERIFY(stave::studio::sampleSeries("gpus/3/util") == (SeriesId{RunChart::GpuUtil, 3, 0}));
    QVERIFY(!(SeriesId{RunChart::GpuUtil, 3, 1} == SeriesId{RunChart::GpuUtil, 3, 0}));
    QVERIFY(!stave::studio::sampleSeries("node/1/gpus/0/temp_c"));
    stave::telemetry::GpuSampleEvent g;
    g.node = 1;
    g.nodes = 2;
    stave::telemetry::GpuReading r;
    r.index = 3;
    r.util = 40;
    g.gpus.push_back(r);
    const auto points = stave::studio::seriesPoints(g, 2);
    QCOMPARE(points.size(), size_t(1));
    QVERIFY(points[0].id == (SeriesId{RunChart::GpuUtil, 3, 1}));
    stave::telemetry::SystemSampleEvent y;
    y.cpuTotal = 30;
    y.node = 2;
    QVERIFY(stave::studio::seriesPoints(y, 1)[0].id == (SeriesId{RunChart::System, 0, 2}));
  }
};

QTEST_GUILESS_MAIN(TstRunSeries)
#include "tst_run_series.moc"
