// The GPU inventory through a fake libnvidia-ml (two GPUs joined by four NVLinks): versions,
// per-device facts, NVLink ends, the topology matrix as nvidia-smi topo -m prints it, P2P
// status; the paths without a GPU (no library, nvmlInit failing, no device), a driver too old
// for the inventory's queries, links through an NVSwitch. And the host: CPUs, NUMA nodes and
// memory from a folder laid out like /proc and /sys.

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "core/telemetry/gpu_inventory.h"
#include "core/telemetry/host_info.h"

using namespace stave::telemetry;
namespace fs = std::filesystem;

namespace {
GpuInventory fake(const char* library = STAVE_FAKE_NVML) {
  GpuInventoryOptions o;
  o.library = library;
  return readGpuInventory(o);
}
void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}
}  // namespace

class TestGpuInventory : public QObject {
  Q_OBJECT

 private slots:
  void cleanup() {
    qunsetenv("FAKE_NVML_INIT_FAIL");
    qunsetenv("FAKE_NVML_DEVICE_COUNT");
    qunsetenv("FAKE_NVML_NVSWITCH");
  }

  void absentLibrary() {
    const auto inv = fake("libnvidia-ml-that-does-not-exist.so.1");
    QVERIFY(!inv.available);
    QVERIFY2(inv.reason.find("NVML not found") != std::string::npos, inv.reason.c_str());
    QVERIFY(inv.reason.find("libnvidia-ml-that-does-not-exist.so.1") != std::string::npos);
    QVERIFY(inv.devices.empty());
    QVERIFY(inv.pairs.empty());
    QCOMPARE(inv.pair(0, 1).label(), std::string("?"));
  }

  void initFails() {
    qputenv("FAKE_NVML_INIT_FAIL", "1");
    const auto inv = fake();
    QVERIFY(!inv.available);
    QCOMPARE(inv.reason, std::string("nvmlInit failed: Driver Not Loaded (NVML 9)"));
    QVERIFY(inv.devices.empty());
  }

  void noDevice() {
    qputenv("FAKE_NVML_DEVICE_COUNT", "0");
    const auto inv = fake();
    QVERIFY(inv.available);
    QCOMPARE(inv.reason, std::string("NVML lists no device"));
    QCOMPARE(inv.driverVersion, std::string("560.35.03"));
    QVERIFY(inv.devices.empty());
    QCOMPARE(inv.worstLink(), LinkKind::Self);
  }

  void twoGpus() {
    const auto inv = fake();
    QVERIFY2(inv.available, inv.reason.c_str());
    QCOMPARE(inv.reason, std::string());
    QCOMPARE(inv.driverVersion, std::string("560.35.03"));
    QCOMPARE(inv.cudaDriverVersion, std::string("12.6"));  // 12060
    QCOMPARE(inv.nvmlVersion, std::string("12.560.35.03"));
    QCOMPARE(int(inv.devices.size()), 2);
    const GpuDeviceInfo& a = inv.devices[0];
    const GpuDeviceInfo& b = inv.devices[1];
    QCOMPARE(a.index, 0);
    QCOMPARE(a.name, std::string("Fake GPU A"));
    QCOMPARE(b.name, std::string("Fake GPU B"));
    QCOMPARE(a.uuid, std::string("GPU-fa4e0000-0000-4000-8000-000000000000"));
    QCOMPARE(a.pciBusId, std::string("00000000:07:00.0"));
    QCOMPARE(b.pciBusId, std::string("00000000:0A:00.0"));
    QCOMPARE(a.memoryTotal, int64_t(80) << 30);
    QCOMPARE(a.pcieGen, 4);
    QCOMPARE(a.pcieGenMax, 4);
    QCOMPARE(a.pcieWidth, 16);
    QCOMPARE(b.pcieWidth, 8);
    QCOMPARE(b.pcieWidthMax, 16);
    QCOMPARE(a.ccMajor, 9);
    QCOMPARE(a.ccMinor, 0);
    QCOMPARE(a.powerLimitW, 700.0);
    QCOMPARE(a.maxSmClockMHz, 1980.0);
    QCOMPARE(cpuListText(a.cpus), std::string("0-7"));
    QCOMPARE(cpuListText(b.cpus), std::string("8-15"));
    QCOMPARE(a.numaNode, 0);
    QCOMPARE(b.numaNode, 1);
    // Links 0..5 exist, 0..3 are up and end at the other GPU.
    QCOMPARE(int(a.nvlinks.size()), 6);
    QCOMPARE(a.activeNvLinks(), 4);
    for (int l = 0; l < 6; ++l) {
      QCOMPARE(a.nvlinks[size_t(l)].link, l);
      QCOMPARE(a.nvlinks[size_t(l)].active, l < 4);
      QCOMPARE(a.nvlinks[size_t(l)].version, 4);
      QCOMPARE(a.nvlinks[size_t(l)].remoteDevice, l < 4 ? 1 : -1);
      QCOMPARE(b.nvlinks[size_t(l)].remoteDevice, l < 4 ? 0 : -1);
    }
    QCOMPARE(a.nvlinks[0].remoteBusId, std::string("00000000:0A:00.0"));
    // The matrix: X on the diagonal, NV4 between them; PCIe alone would cross the sockets.
    QCOMPARE(int(inv.pairs.size()), 2);
    QCOMPARE(inv.pair(0, 0).label(), std::string("X"));
    QCOMPARE(inv.pair(1, 1).label(), std::string("X"));
    for (auto [x, y] : {std::pair{0, 1}, std::pair{1, 0}}) {
      const GpuPair p = inv.pair(x, y);
      QCOMPARE(p.kind, LinkKind::NVLink);
      QCOMPARE(p.nvlinks, 4);
      QCOMPARE(p.label(), std::string("NV4"));
      QCOMPARE(p.pcie, LinkKind::SYS);
      QCOMPARE(p.p2pRead, P2pStatus::Ok);
    }
    QCOMPARE(inv.pair(0, 2).kind, LinkKind::Unknown);  // out of range
    QCOMPARE(inv.worstLink(), LinkKind::NVLink);
    QCOMPARE(std::string(p2pLevelFor(inv.worstLink())), std::string("NVL"));
  }

  void oneGpu() {
    qputenv("FAKE_NVML_DEVICE_COUNT", "1");
    const auto inv = fake();
    QCOMPARE(int(inv.devices.size()), 1);
    QCOMPARE(inv.pair(0, 0).label(), std::string("X"));
    QCOMPARE(inv.worstLink(), LinkKind::Self);
  }

  void linksThroughNvSwitch() {
    qputenv("FAKE_NVML_NVSWITCH", "1");
    const auto inv = fake();
    QCOMPARE(int(inv.devices.size()), 2);
    QCOMPARE(inv.devices[0].nvlinks[0].remoteDevice, -1);  // a switch, not a GPU
    QCOMPARE(inv.pair(0, 1).label(), std::string("NV4"));
    QCOMPARE(inv.pair(0, 1).pcie, LinkKind::SYS);
  }

  void oldDriver() {
    // A library with only the sampler's entry points: names and memory, everything else unknown.
    const auto inv = fake(STAVE_FAKE_NVML_OLD);
    QVERIFY2(inv.available, inv.reason.c_str());
    QCOMPARE(int(inv.devices.size()), 2);
    QCOMPARE(inv.devices[1].name, std::string("Fake GPU B"));
    QCOMPARE(inv.devices[0].memoryTotal, int64_t(80) << 30);
    QCOMPARE(inv.driverVersion, std::string());
    QCOMPARE(inv.cudaDriverVersion, std::string());
    QCOMPARE(inv.devices[0].uuid, std::string());
    QCOMPARE(inv.devices[0].pcieGen, -1);
    QCOMPARE(inv.devices[0].ccMajor, -1);
    QCOMPARE(inv.devices[0].powerLimitW, 700.0);  // the sampler's entry point is there
    QVERIFY(inv.devices[0].nvlinks.empty());
    QVERIFY(inv.devices[0].cpus.empty());
    QCOMPARE(inv.pair(0, 1).label(), std::string("?"));
    QCOMPARE(inv.pair(0, 1).p2pRead, P2pStatus::Unknown);
    QCOMPARE(inv.worstLink(), LinkKind::Unknown);
  }

  void topologyLevels_data() {
    QTest::addColumn<int>("level");
    QTest::addColumn<QString>("label");
    QTest::addColumn<QString>("p2pLevel");
    QTest::newRow("internal") << 0 << "X" << "";
    QTest::newRow("single") << 10 << "PIX" << "PIX";
    QTest::newRow("multiple") << 20 << "PXB" << "PXB";
    QTest::newRow("hostbridge") << 30 << "PHB" << "PHB";
    QTest::newRow("node") << 40 << "NODE" << "PHB";
    QTest::newRow("system") << 50 << "SYS" << "SYS";
    QTest::newRow("unknown") << 35 << "?" << "";
  }
  void topologyLevels() {
    QFETCH(int, level);
    QFETCH(QString, label);
    QFETCH(QString, p2pLevel);
    const LinkKind k = linkKindOfTopologyLevel(level);
    QCOMPARE(QString::fromLatin1(toString(k)), label);
    QCOMPARE(QString::fromLatin1(p2pLevelFor(k)), p2pLevel);
  }

  void p2pStatuses() {
    QCOMPARE(p2pStatusOfNvml(0), P2pStatus::Ok);
    QCOMPARE(p2pStatusOfNvml(1), P2pStatus::ChipsetNotSupported);
    QCOMPARE(p2pStatusOfNvml(4), P2pStatus::DisabledByRegkey);
    QCOMPARE(p2pStatusOfNvml(5), P2pStatus::NotSupported);
    QCOMPARE(p2pStatusOfNvml(6), P2pStatus::Unknown);
    QCOMPARE(p2pStatusOfNvml(-1), P2pStatus::Unknown);
  }

  void cpuLists_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("canonical");
    QTest::addColumn<int>("count");
    QTest::newRow("range") << "0-7" << "0-7" << 8;
    QTest::newRow("ranges") << "0-3,8-11\n" << "0-3,8-11" << 8;
    QTest::newRow("singles") << "1,3,5" << "1,3,5" << 3;
    QTest::newRow("merge") << "0,1,2,4" << "0-2,4" << 4;
    QTest::newRow("empty") << "" << "" << 0;
    QTest::newRow("garbage") << "x,2-1,3-,5" << "5" << 1;
  }
  void cpuLists() {
    QFETCH(QString, text);
    QFETCH(QString, canonical);
    QFETCH(int, count);
    const auto cpus = parseCpuList(text.toStdString());
    QCOMPARE(int(cpus.size()), count);
    QCOMPARE(QString::fromStdString(cpuListText(cpus)), canonical);
  }

  void hostFromFolders() {
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    // Two sockets of two cores with two threads each.
    std::string cpuinfo;
    for (int p = 0; p < 8; ++p) {
      cpuinfo += "processor\t: " + std::to_string(p) + "\n";
      cpuinfo += "model name\t: Fake Xeon 8480\n";
      cpuinfo += "physical id\t: " + std::to_string(p / 4) + "\n";
      cpuinfo += "core id\t\t: " + std::to_string((p / 2) % 2) + "\n\n";
    }
    write(root / "proc/cpuinfo", cpuinfo);
    write(root / "proc/meminfo", "MemTotal:       16384 kB\nMemFree: 1 kB\nMemAvailable:    8192 kB\n");
    write(root / "sys/devices/system/node/node0/cpulist", "0-3\n");
    write(root / "sys/devices/system/node/node0/meminfo",
          "Node 0 MemTotal:        8192 kB\nNode 0 MemFree:         4096 kB\n");
    write(root / "sys/devices/system/node/node1/cpulist", "4-7\n");
    write(root / "sys/devices/system/node/node1/meminfo", "Node 1 MemTotal: garbage\n");
    write(root / "sys/devices/system/node/online", "0-1\n");  // not a node folder
    const auto host = readHostInfo((root / "proc").string(), (root / "sys").string());
    QCOMPARE(host.cpuModel, std::string("Fake Xeon 8480"));
    QCOMPARE(host.logicalCores, 8);
    QCOMPARE(host.physicalCores, 4);
    QCOMPARE(host.sockets, 2);
    QCOMPARE(host.memTotal, int64_t(16384) * 1024);
    QCOMPARE(host.memAvailable, int64_t(8192) * 1024);
    QCOMPARE(host.memFree, int64_t(1) * 1024);
    QCOMPARE(int(host.numa.size()), 2);
    QCOMPARE(host.numa[0].id, 0);
    QCOMPARE(cpuListText(host.numa[0].cpus), std::string("0-3"));
    QCOMPARE(host.numa[0].memTotal, int64_t(8192) * 1024);
    QCOMPARE(host.numa[0].memFree, int64_t(4096) * 1024);
    QCOMPARE(host.numa[1].id, 1);
    QCOMPARE(cpuListText(host.numa[1].cpus), std::string("4-7"));
    QCOMPARE(host.numa[1].memTotal, int64_t(-1));  // unreadable: unknown, not an error
  }

  void hostMissingFiles() {
    const auto host = readHostInfo("/nonexistent/proc", "/nonexistent/sys");
    QCOMPARE(host.logicalCores, 0);
    QCOMPARE(host.physicalCores, -1);
    QCOMPARE(host.memTotal, int64_t(-1));
    QVERIFY(host.numa.empty());
    QVERIFY(host.cpuModel.empty());
  }

  void hostOfThisMachine() {
    const auto host = readHostInfo();
    QVERIFY(host.logicalCores > 0);
    QVERIFY(host.memTotal > 0);
  }
};

QTEST_GUILESS_MAIN(TestGpuInventory)
#include "tst_gpu_inventory.moc"
