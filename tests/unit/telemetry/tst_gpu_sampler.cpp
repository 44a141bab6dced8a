// GpuSampler: the NVML-absent path (as on CPU machines) and, through a fake libnvidia-ml with
// two GPUs, the loaded path: unit conversions, unsupported readings, device selection, init
// failure, the polling thread and a callback that throws.

#include <QtTest>

#include <atomic>
#include <stdexcept>

#include "core/telemetry/gpu_sampler.h"

using namespace stave::telemetry;

class TestGpuSampler : public QObject {
  Q_OBJECT

 private slots:
  void absentLibrary() {
    GpuSamplerOptions o;
    o.library = "libnvidia-ml-that-does-not-exist.so.1";
    GpuSampler s(o);
    QVERIFY(!s.available());
    QVERIFY2(s.unavailableReason().find("NVML not found") != std::string::npos,
             s.unavailableReason().c_str());
    QVERIFY(s.unavailableReason().find("libnvidia-ml-that-does-not-exist.so.1") !=
            std::string::npos);
    QCOMPARE(s.deviceCount(), 0);
    QVERIFY(s.deviceNames().empty());
    QVERIFY(s.sampleOnce().empty());
    QVERIFY(!s.start([](const std::vector<GpuSample>&) {}));
    QVERIFY(!s.running());
    s.stop();  // harmless
  }

  void realLibraryOnThisMachine() {
    GpuSampler s;  // libnvidia-ml.so.1
    if (s.available()) {
      QVERIFY(s.unavailableReason().empty());
      const auto samples = s.sampleOnce();
      QCOMPARE(int(samples.size()), s.deviceCount());
      for (const auto& g : samples) QVERIFY(g.memoryTotal > 0);
    } else {
      QVERIFY(!s.unavailableReason().empty());
      QCOMPARE(s.deviceCount(), 0);
    }
  }

  void fakeDevices() {
    GpuSamplerOptions o;
    o.library = STAVE_FAKE_NVML;
    GpuSampler s(o);
    QVERIFY2(s.available(), s.unavailableReason().c_str());
    QCOMPARE(s.deviceCount(), 2);
    QCOMPARE(s.deviceNames(), (std::vector<std::string>{"Fake GPU A", "Fake GPU B"}));
    const auto samples = s.sampleOnce();
    QCOMPARE(int(samples.size()), 2);
    const GpuSample& a = samples[0];
    QCOMPARE(a.index, 0);
    QCOMPARE(a.name, std::string("Fake GPU A"));
    QCOMPARE(a.utilization, 90.0);
    QCOMPARE(a.memoryUtilization, 40.0);
    QCOMPARE(a.memoryUsed, int64_t(10) << 30);
    QCOMPARE(a.memoryTotal, int64_t(80) << 30);
    QCOMPARE(a.powerW, 350.5);  // milliwatts -> watts
    QCOMPARE(a.powerLimitW, 700.0);
    QCOMPARE(a.temperatureC, 61.0);
    QCOMPARE(a.smClockMHz, 1980.0);
    QVERIFY(a.time > 1.6e9);
    const GpuSample& b = samples[1];
    QCOMPARE(b.index, 1);
    QCOMPARE(b.utilization, 91.0);
    QCOMPARE(b.memoryUsed, int64_t(11) << 30);
    QCOMPARE(b.smClockMHz, -1.0);  // not supported on this device: left at -1
  }

  void deviceSelection() {
    GpuSamplerOptions o;
    o.library = STAVE_FAKE_NVML;
    o.devices = {1};
    GpuSampler s(o);
    QVERIFY(s.available());
    const auto samples = s.sampleOnce();
    QCOMPARE(int(samples.size()), 1);
    QCOMPARE(samples[0].index, 1);
    QCOMPARE(samples[0].name, std::string("Fake GPU B"));

    o.devices = {5};
    GpuSampler bad(o);
    QVERIFY(!bad.available());
    QVERIFY2(bad.unavailableReason().find("GPU 5 does not exist (NVML sees 2 devices)") !=
                 std::string::npos,
             bad.unavailableReason().c_str());
  }

  void initFailure() {
    qputenv("FAKE_NVML_INIT_FAIL", "1");
    GpuSamplerOptions o;
    o.library = STAVE_FAKE_NVML;
    GpuSampler s(o);
    qunsetenv("FAKE_NVML_INIT_FAIL");
    QVERIFY(!s.available());
    QVERIFY2(s.unavailableReason().find("nvmlInit failed: Driver Not Loaded") != std::string::npos,
             s.unavailableReason().c_str());
  }

  void polling() {
    GpuSamplerOptions o;
    o.library = STAVE_FAKE_NVML;
    o.periodSeconds = 0.01;
    GpuSampler s(o);
    QVERIFY(s.available());
    std::atomic<int> rounds{0};
    std::atomic<int> devices{0};
    QVERIFY(s.start([&](const std::vector<GpuSample>& samples) {
      devices = int(samples.size());
      ++rounds;
    }));
    QVERIFY(s.running());
    QVERIFY(!s.start([](const std::vector<GpuSample>&) {}));  // already running
    QTRY_VERIFY_WITH_TIMEOUT(rounds.load() >= 3, 5000);
    s.stop();
    QVERIFY(!s.running());
    QCOMPARE(devices.load(), 2);
    const int after = rounds.load();
    QTest::qWait(50);
    QCOMPARE(rounds.load(), after);  // really stopped
    QVERIFY(!s.callbackError());
  }

  void callbackThrows() {
    GpuSamplerOptions o;
    o.library = STAVE_FAKE_NVML;
    o.periodSeconds = 0.01;
    GpuSampler s(o);
    QVERIFY(s.start([](const std::vector<GpuSample>&) { throw std::runtime_error("boom"); }));
    QTRY_VERIFY_WITH_TIMEOUT(!s.running(), 5000);
    QVERIFY(s.callbackError());
    try {
      std::rethrow_exception(s.callbackError());
    } catch (const std::runtime_error& e) {
      QCOMPARE(std::string(e.what()), std::string("boom"));
    }
    // It can be started again after the failure.
    std::atomic<int> rounds{0};
    QVERIFY(s.start([&](const std::vector<GpuSample>&) { ++rounds; }));
    QTRY_VERIFY_WITH_TIMEOUT(rounds.load() >= 1, 5000);
    s.stop();
  }
};

QTEST_GUILESS_MAIN(TestGpuSampler)
#include "tst_gpu_sampler.moc"
