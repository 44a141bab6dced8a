// scripts/gpu-check --dry-run: the GPU check's steps (check-device, bench train in three
// settings, the summary table) on the CPU with tiny sizes, so the script a GPU machine runs
// once is exercised on every CI run.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "e2e/e2e_util.h"

class TestGpuCheck : public QObject {
  Q_OBJECT

 private slots:
  void checkDeviceOnCpu() {
    auto r = stave::e2e::runStaveTrain({"check-device", "--device", "cpu"}, {}, 300000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    const auto j = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QVERIFY(j.value("ok").toBool());
    QStringList names;
    for (const auto& c : j.value("checks").toArray()) {
      names << c.toObject().value("name").toString();
      QVERIFY2(c.toObject().value("ok").toBool(), qPrintable(r.out));
    }
    QCOMPARE(names, (QStringList{"loss_and_assigner", "nms", "clip_and_scaler", "foreach_step",
                                 "process_group"}));
    QVERIFY(r.out.contains("gloo group of one rank"));
  }

  void dryRun() {
    QTemporaryDir out;
    QProcess p;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("OUT", out.path());
    env.insert("STAVE_BUILD_DIR", STAVE_BINARY_DIR);
    p.setProcessEnvironment(env);
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start("bash", {QStringLiteral(STAVE_SOURCE_DIR "/scripts/gpu-check"), "--dry-run"});
    QVERIFY(p.waitForFinished(600000));
    const QString log = QString::fromUtf8(p.readAll());
    QVERIFY2(p.exitCode() == 0, qPrintable(log));
    for (const char* f : {"check_device.json", "bench_fp32.json", "bench_bf16.json",
                          "bench_fp32_workers2.json", "summary.txt"}) {
      QVERIFY2(QFile::exists(QDir(out.path()).filePath(f)), f);
    }
    QFile bench(QDir(out.path()).filePath("bench_bf16.json"));
    QVERIFY(bench.open(QIODevice::ReadOnly));
    const auto j = QJsonDocument::fromJson(bench.readAll()).object();
    QCOMPARE(j.value("precision").toString(), QString("bf16"));
    QVERIFY(j.value("end_to_end_samples_per_s").toDouble() > 0);
    QVERIFY(j.value("split_s_per_step").toObject().contains("forward_backward"));
    QVERIFY2(log.contains("fp32 / bf16 end to end"), qPrintable(log));
  }
};

QTEST_APPLESS_MAIN(TestGpuCheck)
#include "tst_gpu_check.moc"
