// stave-train bench ddp: a tiny 2-rank run prints a complete, sane JSON report; bad options
// are usage errors.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>

#include "e2e/e2e_util.h"

namespace {
bool positive(const QJsonObject& o, const char* key) {
  const auto v = o.value(QLatin1String(key));
  return v.isDouble() && std::isfinite(v.toDouble()) && v.toDouble() > 0;
}
}  // namespace

class TestBenchDdp : public QObject {
  Q_OBJECT

 private slots:
  // --bucket-mb 2 splits yolov8n's 12 MB of gradients into several buckets, so some all-reduces
  // start during backward and the wait is measurably below the total (one 25 MB bucket would
  // launch only when backward ends, leaving wait ~ total within timer noise).
  void twoRanks() {
    QElapsedTimer clock;
    clock.start();
    auto r = stave::e2e::runStaveTrain(
        {"bench", "ddp", "--nproc", "2", "--scale", "n", "--imgsz", "64", "--batch", "2", "--steps",
         "4", "--warmup", "1", "--bucket-mb", "2"},
        {}, 120000);
    QVERIFY2(!r.crashed, qPrintable(r.err));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QJsonParseError pe;
    const auto obj = QJsonDocument::fromJson(r.out.toUtf8(), &pe).object();
    QVERIFY2(pe.error == QJsonParseError::NoError, qPrintable(r.out));
    QCOMPARE(obj.value("bench").toString(), QString("ddp"));
    QCOMPARE(obj.value("nproc").toInt(), 2);
    QCOMPARE(obj.value("batch_per_rank").toInt(), 2);
    for (const char* k : {"scaling_efficiency", "cores", "threads_single", "threads_per_rank",
                          "buckets", "params"}) {
      QVERIFY2(positive(obj, k), k);
    }
    QVERIFY(!obj.value("note").toString().isEmpty());

    const auto single = obj.value("single").toObject();
    for (const char* k : {"compute_s", "optimizer_s", "step_s", "samples_per_s"})
      QVERIFY2(positive(single, k), k);

    const auto ddp = obj.value("ddp").toObject();
    for (const char* k :
         {"compute_s", "allreduce_total_s", "optimizer_s", "step_s", "samples_per_s"}) {
      QVERIFY2(positive(ddp, k), k);
    }
    // The wait can be 0 when backward hid all of it; it is never negative nor above the total.
    const double wait = ddp.value("allreduce_wait_s").toDouble(-1);
    const double total = ddp.value("allreduce_total_s").toDouble();
    QVERIFY2(std::isfinite(wait) && wait >= 0 && wait <= total, qPrintable(QString::number(wait)));
    const double overlap = ddp.value("overlap_ratio").toDouble(-1);
    QVERIFY(overlap >= 0 && overlap <= 1);
    QVERIFY(std::abs(overlap - (1 - wait / total)) < 1e-9);
    QVERIFY(ddp.value("step_s").toDouble() >= ddp.value("compute_s").toDouble());

    const auto perRank = ddp.value("per_rank").toArray();
    QCOMPARE(perRank.size(), 2);
    for (const auto& pr : perRank) {
      const auto o = pr.toObject();
      QVERIFY(o.value("allreduce_wait_s").toDouble() <= o.value("allreduce_total_s").toDouble());
      QVERIFY(positive(o, "samples_per_s"));
    }
    const double eff = obj.value("scaling_efficiency").toDouble();
    const double expected =
        ddp.value("samples_per_s").toDouble() / (2 * single.value("samples_per_s").toDouble());
    QVERIFY(std::abs(eff - expected) < 1e-9 * expected);
    QVERIFY2(clock.elapsed() < 60000, qPrintable(QString::number(clock.elapsed())));
  }

  void usageErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::newRow("nproc") << QStringList{"bench", "ddp", "--nproc", "1"};
    QTest::newRow("scale") << QStringList{"bench", "ddp", "--scale", "q"};
    QTest::newRow("imgsz") << QStringList{"bench", "ddp", "--imgsz", "100"};
    QTest::newRow("bucket") << QStringList{"bench", "ddp", "--bucket-mb", "0"};
    QTest::newRow("flag") << QStringList{"bench", "ddp", "--bogus"};
  }
  void usageErrors() {
    QFETCH(QStringList, args);
    auto r = stave::e2e::runStaveTrain(args, {}, 60000);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("bench ddp"), qPrintable(r.err));
  }
};

QTEST_APPLESS_MAIN(TestBenchDdp)
#include "tst_bench_ddp.moc"
