// SystemSampler on a folder laid out like /proc: CPU per core and in all from two readings,
// memory, a rank's RSS and CPU (a command name with spaces and parentheses), the dataset
// disk's read rate; unreadable or odd files leave values unknown. And the sample events'
// round trip through the codec (-1 travels as null).
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <unistd.h>

#include <cmath>
#include <fstream>

#include "core/telemetry/events.h"
#include "core/telemetry/system_sampler.h"

using namespace stave::telemetry;

namespace {
void put(const QString& path, const std::string& text) {
  QDir().mkpath(QFileInfo(path).absolutePath());
  std::ofstream(path.toStdString()) << text;
}
}  // namespace

class TestSystemSampler : public QObject {
  Q_OBJECT
 private slots:
  void ratesFromTwoReadings() {
    QTemporaryDir root;
    const QString r = root.path();
    put(r + "/stat", "cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 50 0 50 400 0 0 0 0 0 0\n"
                     "cpu1 50 0 50 400 0 0 0 0 0 0\nintr 1 2 3\n");
    put(r + "/meminfo", "MemTotal:       16000000 kB\nMemFree:         1000 kB\n"
                        "MemAvailable:    4000000 kB\n");
    put(r + "/42/status", "Name:\tstave\nVmRSS:\t  204800 kB\n");
    // utime 100, stime 50 (fields 14, 15); the name has a space and a parenthesis.
    put(r + "/42/stat", "42 (stave (w) 1) S 1 1 1 0 -1 0 0 0 0 0 100 50 0 0 20 0 4 0\n");
    put(r + "/diskstats", "   8       0 sda 10 0 2000 5 0 0 0 0 0 0 0\n");
    SystemSampler s(r.toStdString());
    s.setDiskName("sda");
    const auto first = s.sample({{0, 42}}, 10.0);
    QVERIFY(first.cpu.empty());  // no rate yet
    QCOMPARE(first.cpuTotal, -1.0);
    QCOMPARE(first.memTotal, 16000000.0 * 1024);
    QCOMPARE(first.memUsed, 12000000.0 * 1024);
    QCOMPARE(first.ranks.size(), size_t(1));
    QCOMPARE(first.ranks[0].rss, 204800.0 * 1024);
    QCOMPARE(first.ranks[0].cpu, -1.0);
    QCOMPARE(first.diskReadBps, -1.0);

    // 2 s later: cpu0 fully busy, cpu1 idle; the process used 1 s of CPU (100 ticks at 100/s
    // over 2 s = 50 %) when ticks are 100 per second; 4096 sectors = 2 MiB read.
    put(r + "/stat", "cpu  300 0 100 1000 0 0 0 0 0 0\ncpu0 250 0 50 400 0 0 0 0 0 0\n"
                     "cpu1 50 0 50 600 0 0 0 0 0 0\n");
    const long ticks = sysconf(_SC_CLK_TCK);
    put(r + "/42/stat", "42 (stave (w) 1) S 1 1 1 0 -1 0 0 0 0 0 " + std::to_string(100 + ticks) +
                            " 50 0 0 20 0 4 0\n");
    put(r + "/diskstats", "   8       0 sda 20 0 6096 5 0 0 0 0 0 0 0\n");
    const auto second = s.sample({{0, 42}, {1, 43}}, 12.0);
    QCOMPARE(second.cpu.size(), size_t(2));
    QCOMPARE(second.cpu[0], 100.0);
    QCOMPARE(second.cpu[1], 0.0);
    QCOMPARE(second.cpuTotal, 50.0);
    QVERIFY(std::abs(second.ranks[0].cpu - 50.0) < 1e-9);
    QCOMPARE(second.diskReadBps, 4096.0 * 512 / 2);
    // A process that is gone: its values unknown, no error.
    QCOMPARE(second.ranks[1].pid, 43);
    QCOMPARE(second.ranks[1].rss, -1.0);
    QCOMPARE(second.ranks[1].cpu, -1.0);
  }

  void oddFilesLeaveValuesUnknown() {
    QTemporaryDir root;
    put(root.path() + "/42/status", "VmRSS: garbage\n");
    put(root.path() + "/42/stat", "not a stat line");
    SystemSampler s(root.path().toStdString());
    const auto a = s.sample({{0, 42}}, 1.0);
    QCOMPARE(a.memTotal, -1.0);
    QCOMPARE(a.ranks[0].rss, -1.0);
    QVERIFY(a.cpu.empty());
  }

  void realProcReadsSomething() {
    SystemSampler s;
    s.setDiskPath("/");
    s.sample({{0, int(getpid())}}, 0.0);
    volatile double x = 0;
    for (int i = 0; i < 20000000; ++i) x = x + i;
    const auto b = s.sample({{0, int(getpid())}}, 0.2);
    QVERIFY(b.memTotal > 0);
    QVERIFY(!b.cpu.empty());
    QVERIFY(b.ranks[0].rss > 0);
    QVERIFY(b.ranks[0].cpu >= 0);
  }

  void eventsRoundTrip() {
    GpuSampleEvent g;
    GpuReading a;
    a.index = 3;
    a.name = "GPU X";
    a.util = 87;
    a.memUsed = 1.5e9;
    g.gpus.push_back(a);
    const auto e = decodeEvent(encodeEvent(toEvent(g, -1))).value();
    QCOMPARE(e.type, std::string(event_type::kGpuSample));
    QVERIFY(e.data["gpus"][0]["power_w"].is_null());  // unknown travels as null
    const auto back = gpuSampleFromEvent(e).value();
    QCOMPARE(back.gpus[0].index, 3);
    QCOMPARE(back.gpus[0].util, 87.0);
    QCOMPARE(back.gpus[0].powerW, -1.0);

    SystemSampleEvent s;
    s.cpu = {10, 20};
    s.cpuTotal = 15;
    s.ranks.push_back({1, 99, 1e6, -1});
    const auto sb = systemSampleFromEvent(decodeEvent(encodeEvent(toEvent(s, -1))).value()).value();
    QCOMPARE(sb.cpu, (std::vector<double>{10, 20}));
    QCOMPARE(sb.ranks[0].rank, 1);
    QCOMPARE(sb.ranks[0].cpu, -1.0);
    QCOMPARE(sb.diskReadBps, -1.0);
    // A malformed one names the field.
    Event bad = toEvent(s, -1);
    bad.data["ranks"] = nlohmann::json::array({5});
    auto err = systemSampleFromEvent(bad);
    QVERIFY(!err.ok());
    QVERIFY2(err.errorText().find("ranks[0]") != std::string::npos, err.errorText().c_str());
  }
};

QTEST_APPLESS_MAIN(TestSystemSampler)
#include "tst_system_sampler.moc"
