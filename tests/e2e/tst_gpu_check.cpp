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
    // LibTorch's CUDA part is in the process exactly when the CUDA module was loaded: never
    // linked in (it costs ~230 MiB resident on a machine without a GPU).
    const auto c = j.value("cuda").toObject();
    QCOMPARE(c.value("mode").toString(), QString("auto"));
    QCOMPARE(c.value("torch_cuda_in_process").toBool(), c.value("module_loaded").toBool());
    QCOMPARE(c.value("torch_cuda_registered").toBool(), c.value("module_loaded").toBool());
    if (!c.value("module_loaded").toBool()) QVERIFY(!c.value("reason").toString().isEmpty());
  }

  // STAVE_CUDA=0 keeps LibTorch's CUDA part out; a value that is not auto, 1 or 0 is an error
  // naming the variable; STAVE_CUDA=1 with a module path that is not there names the path.
  void cudaSwitch() {
    auto off = stave::e2e::runStaveTrain({"check-device", "--device", "cpu"}, {}, 300000,
                                         {"STAVE_CUDA=0"});
    QVERIFY2(off.exitCode == 0, qPrintable(off.out + off.err));
    const auto c = QJsonDocument::fromJson(off.out.toUtf8()).object().value("cuda").toObject();
    QCOMPARE(c.value("mode").toString(), QString("off"));
    QVERIFY(!c.value("module_loaded").toBool());
    QVERIFY(!c.value("torch_cuda_in_process").toBool());
    QVERIFY(c.value("reason").toString().contains("STAVE_CUDA=0"));

    auto bad = stave::e2e::runStaveTrain({"check-device", "--device", "cpu"}, {}, 60000,
                                         {"STAVE_CUDA=maybe"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("STAVE_CUDA='maybe'"), qPrintable(bad.err));

    auto missing = stave::e2e::runStaveTrain(
        {"check-device", "--device", "cpu"}, {}, 60000,
        {"STAVE_CUDA=1", "STAVE_CUDA_MODULE=/nonexistent/libstave_cuda.so"});
    QCOMPARE(missing.exitCode, 2);
    QVERIFY2(missing.err.contains("/nonexistent/libstave_cuda.so"), qPrintable(missing.err));
  }

  // With the module built, STAVE_CUDA=1 opens it without a GPU: libtorch_cuda is mapped, its
  // initialisers registered CUDA with LibTorch (the hooks answer with the CUDA runtime's
  // version), no device is seen, and the CPU checks still pass.
  void cudaModuleLoadsLate() {
#ifndef STAVE_TEST_CUDA_MODULE
    QSKIP("this build's LibTorch has no CUDA: there is no module to load");
#else
    auto r = stave::e2e::runStaveTrain({"check-device", "--device", "cpu"}, {}, 300000,
                                       {"STAVE_CUDA=1"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    const auto j = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QVERIFY(j.value("ok").toBool());
    const auto c = j.value("cuda").toObject();
    QVERIFY2(c.value("module_loaded").toBool(), qPrintable(r.out));
    QVERIFY(c.value("module_path").toString().endsWith("libstave_cuda.so"));
    QVERIFY(c.value("torch_cuda_in_process").toBool());
    QVERIFY(c.value("torch_cuda_registered").toBool());
    QVERIFY(c.value("cuda_runtime").toInt() > 0);
#endif
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
