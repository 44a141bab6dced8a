// stave-train bench train: a tiny CPU run prints a complete JSON report, with and without
// warm-up steps (without, the compute-only window trains on the first timed batch); bad options
// and a bad dataset are usage errors naming the command.
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

class TestBenchTrain : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    auto r = stave::e2e::runStaveTrain(
        {"make-demo", "--out", m_dir.filePath("d"), "--train", "16", "--val", "4", "--imgsz", "96"},
        {}, 120000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  }

  void report_data() {
    QTest::addColumn<QString>("warmup");
    QTest::newRow("warm-up") << "1";
    QTest::newRow("no warm-up") << "0";
  }
  void report() {
    QFETCH(QString, warmup);
    auto r =
        stave::e2e::runStaveTrain({"bench", "train", "--data", m_dir.filePath("d/data.yaml"),
                                   "--device", "cpu", "--imgsz", "64", "--batch", "2", "--steps",
                                   "2", "--warmup", warmup, "--workers", "1", "--threads", "1"},
                                  {}, 300000);
    QVERIFY2(!r.crashed, qPrintable(r.err));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QJsonParseError pe;
    const auto obj = QJsonDocument::fromJson(r.out.toUtf8(), &pe).object();
    QVERIFY2(pe.error == QJsonParseError::NoError, qPrintable(r.out));
    QCOMPARE(obj.value("bench").toString(), QString("train"));
    QCOMPARE(obj.value("device").toString(), QString("cpu"));
    QCOMPARE(obj.value("model").toString(), QString("yolov8n"));
    QCOMPARE(obj.value("batch").toInt(), 2);
    QCOMPARE(obj.value("workers").toInt(), 1);
    for (const char* k : {"end_to_end_samples_per_s", "compute_only_samples_per_s", "ratio"})
      QVERIFY2(positive(obj, k), k);
    const double ratio = obj.value("end_to_end_samples_per_s").toDouble() /
                         obj.value("compute_only_samples_per_s").toDouble();
    QVERIFY(std::abs(obj.value("ratio").toDouble() - ratio) < 1e-9 * ratio);
    QCOMPARE(obj.value("meets_target").toBool(), ratio >= 0.9);
    const double wait = obj.value("data_wait_fraction").toDouble(-1);
    QVERIFY2(wait >= 0 && wait <= 1, qPrintable(QString::number(wait)));
    const auto split = obj.value("split_s_per_step").toObject();
    for (const char* k : {"data_wait", "h2d", "forward_backward", "optimizer"})
      QVERIFY2(split.value(k).isDouble() && split.value(k).toDouble() >= 0, k);
    QVERIFY(positive(split, "forward_backward"));
    QVERIFY(!obj.contains("peak_memory_mb"));  // CUDA only
  }

  void usageErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("says");
    QTest::newRow("model") << QStringList{"bench", "train", "--model", "zz"} << "unknown model";
    QTest::newRow("data") << QStringList{"bench", "train", "--data", "/nonexistent/d.yaml"}
                          << "/nonexistent/d.yaml";
    QTest::newRow("steps") << QStringList{"bench", "train", "--steps", "0"} << "--steps";
  }
  void usageErrors() {
    QFETCH(QStringList, args);
    QFETCH(QString, says);
    auto r = stave::e2e::runStaveTrain(args, {}, 60000);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("stave-train bench train") && r.err.contains(says), qPrintable(r.err));
  }

 private:
  QTemporaryDir m_dir;
};

QTEST_APPLESS_MAIN(TestBenchTrain)
#include "tst_bench_train.moc"
