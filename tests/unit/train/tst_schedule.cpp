// Schedule, weight-decay scaling and optimizer=auto, against values worked by hand from
// Ultralytics' formulas (see the comments in each table row).
#include <QtTest/QtTest>

#include <cmath>

#include "core/train/schedule.h"

using namespace stave::train;
using stave::config::chooseOptimizer;
using stave::config::scaledWeightDecay;

class TstSchedule : public QObject {
  Q_OBJECT
 private slots:
  void lambda_data() {
    QTest::addColumn<bool>("cosine");
    QTest::addColumn<int>("epoch");
    QTest::addColumn<double>("expected");
    // linear: (1 - e/100)(1 - 0.01) + 0.01
    QTest::newRow("linear 0") << false << 0 << 1.0;
    QTest::newRow("linear 50") << false << 50 << 0.505;
    QTest::newRow("linear 100") << false << 100 << 0.01;
    // cosine: ((1 - cos(e pi / 100)) / 2)(0.01 - 1) + 1
    QTest::newRow("cos 0") << true << 0 << 1.0;
    QTest::newRow("cos 25") << true << 25 << 1.0 - 0.99 * (1.0 - std::sqrt(0.5)) / 2.0;
    QTest::newRow("cos 50") << true << 50 << 0.505;
    QTest::newRow("cos 100") << true << 100 << 0.01;
  }
  void lambda() {
    QFETCH(bool, cosine);
    QFETCH(int, epoch);
    QFETCH(double, expected);
    ScheduleOptions o;
    o.epochs = 100;
    o.lrf = 0.01;
    o.cosine = cosine;
    QVERIFY(std::abs(Schedule(o).lambda(epoch) - expected) < 1e-12);
  }

  void warmupIterations_data() {
    QTest::addColumn<double>("warmupEpochs");
    QTest::addColumn<int>("iters");
    QTest::addColumn<int>("epochs");
    QTest::addColumn<int>("expected");
    // Ultralytics 8.4's rule (8.0-8.3 had a minimum of 100 iterations: 100 for the first row).
    QTest::newRow("no minimum") << 3.0 << 25 << 30 << 75;
    QTest::newRow("epochs x iters") << 3.0 << 50 << 100 << 150;
    QTest::newRow("half to even") << 0.5 << 301 << 100 << 150;  // round(150.5) = 150
    QTest::newRow("last epoch left") << 3.0 << 10 << 3 << 20;  // min(3, epochs - 1) = 2
    QTest::newRow("one epoch: none") << 3.0 << 10 << 1 << 0;
    QTest::newRow("off") << 0.0 << 50 << 100 << 0;
  }
  void warmupIterations() {
    QFETCH(double, warmupEpochs);
    QFETCH(int, iters);
    QFETCH(int, epochs);
    QFETCH(int, expected);
    ScheduleOptions o;
    o.warmupEpochs = warmupEpochs;
    o.itersPerEpoch = iters;
    o.epochs = epochs;
    QCOMPARE(Schedule(o).warmupIterations(), int64_t(expected));
  }

  void points() {
    ScheduleOptions o;
    o.lr0 = 0.01;
    o.lrf = 0.01;
    o.epochs = 100;
    o.itersPerEpoch = 100;  // warmup: 300 iterations
    o.accumulate = 4;
    const Schedule s(o);
    // Start of warmup: bias lr at warmup_bias_lr, others at 0, momentum at warmup_momentum.
    auto p = s.at(0, 0);
    QVERIFY(p.warmup);
    QCOMPARE(p.lr[kGroupBias], 0.1);
    QCOMPARE(p.lr[kGroupWeight], 0.0);
    QCOMPARE(p.momentum, 0.8);
    QCOMPARE(p.accumulate, 1);
    // Half-way (ni 150 of 300) in epoch 1: target = 0.01 * (0.99 * 0.99 + 0.01) = 0.009901.
    p = s.at(1, 50);
    QVERIFY(std::abs(p.lr[kGroupBias] - (0.1 + (0.009901 - 0.1) * 0.5)) < 1e-12);
    QVERIFY(std::abs(p.lr[kGroupWeight] - 0.009901 * 0.5) < 1e-12);
    QVERIFY(std::abs(p.lr[kGroupNormWeight] - 0.009901 * 0.5) < 1e-12);
    QVERIFY(std::abs(p.momentum - (0.8 + 0.137 * 0.5)) < 1e-12);
    QCOMPARE(p.accumulate, 2);  // interp 1..4 = 2.5, rounded half to even
    // After warmup: lr0 * lf(epoch) everywhere, full accumulation, final momentum.
    p = s.at(5, 0);
    QVERIFY(!p.warmup);
    for (double lr : p.lr) QVERIFY(std::abs(lr - 0.01 * (0.95 * 0.99 + 0.01)) < 1e-12);
    QCOMPARE(p.momentum, 0.937);
    QCOMPARE(p.accumulate, 4);
    // Adam-style optimisers keep their momentum through warmup.
    o.momentumWarmup = false;
    QCOMPARE(Schedule(o).at(0, 0).momentum, 0.937);
  }

  // Ultralytics 8.4: accumulate = round(nbs / batch), capped at the run's batches unless a time
  // limit sets the length; warmup ramps to that integer.
  void accumulation() {
    QCOMPARE(runAccumulate(4, 25, 30, false), int64_t(4));
    QCOMPARE(runAccumulate(4, 1, 3, false), int64_t(3));  // 3 batches in all: one step at the end
    QCOMPARE(runAccumulate(4, 1, 3, true), int64_t(4));
    QCOMPARE(runAccumulate(0, 5, 2, false), int64_t(1));
    QCOMPARE(runAccumulate(4, 0, 2, false), int64_t(1));
    // batch 24, nbs 64: derive() rounds 2.67 to 3, and the warmup ramps 1 -> 3 (at 80% of it
    // interp gives 2.6 -> 3; ramping to the unrounded 2.67 would give 2.33 -> 2).
    auto cfg = stave::config::RunConfig::defaults();
    QVERIFY(cfg.set("batch", int64_t(24)).ok());
    const auto d = stave::config::derive(cfg, 1, stave::config::DatasetSize{});
    QCOMPARE(d.accumulate, int64_t(3));
    ScheduleOptions o;
    o.epochs = 30;
    o.itersPerEpoch = 100;  // warmup: 300 iterations
    o.accumulate = runAccumulate(d.accumulate, 100, 30, false);
    QCOMPARE(Schedule(o).at(2, 40).accumulate, 3);
    QCOMPARE(Schedule(o).at(10, 0).accumulate, 3);
  }

  void weightDecay_data() {
    QTest::addColumn<int>("batch");
    QTest::addColumn<int>("accumulate");
    QTest::addColumn<double>("expected");
    QTest::newRow("16x4") << 16 << 4 << 5e-4;
    QTest::newRow("32x2") << 32 << 2 << 5e-4;
    QTest::newRow("48x1") << 48 << 1 << 3.75e-4;
    QTest::newRow("128x1") << 128 << 1 << 1e-3;
  }
  void weightDecay() {
    QFETCH(int, batch);
    QFETCH(int, accumulate);
    QFETCH(double, expected);
    QVERIFY(std::abs(scaledWeightDecay(5e-4, batch, accumulate, 64) - expected) < 1e-15);
  }

  void autoOptimizer_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("iterations");
    QTest::addColumn<int>("nc");
    QTest::addColumn<bool>("sgd");
    QTest::addColumn<double>("lr");
    QTest::addColumn<double>("momentum");
    QTest::newRow("auto long -> SGD") << "auto" << 20000 << 80 << true << 0.01 << 0.9;
    QTest::newRow("auto short nc80 -> AdamW")
        << "auto" << 5000 << 80 << false << 0.000119 << 0.9;  // 0.01/84
    QTest::newRow("auto short nc3 -> AdamW")
        << "auto" << 10000 << 3 << false << 0.001429 << 0.9;  // 0.01/7
    QTest::newRow("explicit SGD") << "SGD" << 10 << 3 << true << 0.02 << 0.937;
    QTest::newRow("explicit AdamW") << "adamw" << 10 << 3 << false << 0.02 << 0.937;
  }
  void autoOptimizer() {
    QFETCH(QString, name);
    QFETCH(int, iterations);
    QFETCH(int, nc);
    QFETCH(bool, sgd);
    QFETCH(double, lr);
    QFETCH(double, momentum);
    const auto c = chooseOptimizer(name.toStdString().c_str(), 0.02, 0.937, iterations, nc);
    QCOMPARE(c.sgd, sgd);
    QVERIFY(std::abs(c.lr0 - lr) < 1e-12);
    QCOMPARE(c.momentum, momentum);
    QCOMPARE(c.autoChosen, name == "auto");
  }
};

QTEST_APPLESS_MAIN(TstSchedule)
#include "tst_schedule.moc"
