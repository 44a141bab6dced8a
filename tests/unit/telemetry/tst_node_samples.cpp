// Every node's samples in one events.jsonl: a gpu_sample / system_sample names its node (index,
// host, the run's node count); logs written before samples named their node read as node 0
// with the keys they always had; another node's keys carry node/<K>/ in flattenNumbers and in
// the store's scanner alike; GPUs are named "GPU 3" in a run of one node and "node 1 GPU 3" in
// a run of several; the doctor's findings name the node and GPU their numbers come from.
#include <QtTest/QtTest>

#include <algorithm>

#include "core/telemetry/doctor.h"
#include "core/telemetry/events.h"
#include "core/telemetry/hardware_names.h"
#include "doctor_fixture.h"

using namespace stave::telemetry;
using namespace stave::telemetry::test;

namespace {

using Leaves = std::vector<std::pair<std::string, double>>;

Leaves flattened(const Event& e) {
  Leaves out;
  flattenNumbers(e.data, "", out);
  std::sort(out.begin(), out.end());
  return out;
}

Leaves scanned(const std::string& line, ScannedEvent* out) {
  if (!scanEventLeaves(line, out)) qFatal("scan failed: %s", line.c_str());
  Leaves l = out->leaves;
  std::sort(l.begin(), l.end());
  return l;
}

bool hasKey(const Leaves& leaves, const std::string& key) {
  return std::any_of(leaves.begin(), leaves.end(), [&](const auto& l) { return l.first == key; });
}

GpuSampleEvent twoGpus(int node, int nodes, double util, double memShare = 0.5) {
  GpuSampleEvent g;
  g.node = node;
  g.nodes = nodes;
  g.host = "host-" + std::to_string(node);
  for (int i = 0; i < 2; ++i) {
    GpuReading r;
    r.index = i;
    r.name = "GPU";
    r.util = util + i;
    r.memTotal = 80e9;
    r.memUsed = memShare * 80e9;
    g.gpus.push_back(r);
  }
  return g;
}

}  // namespace

class TstNodeSamples : public QObject {
  Q_OBJECT
 private slots:
  // Lines as the launcher wrote them before samples named their node: node 0 of one node, no
  // host, and the keys the store and the charts always used.
  void oldLogsReadAsNodeZero() {
    const std::string gpuLine =
        R"({"data":{"gpus":[{"index":0,"mem_total":8e10,"mem_used":4e10,"name":"GPU","util":91}],"source":"launcher"},"rank":-1,"time":1764680000.5,"type":"gpu_sample","version":1})";
    const std::string sysLine =
        R"({"data":{"cpu":[10,20],"cpu_total":15,"disk":"","disk_read_bps":null,"mem_total":8e9,"mem_used":2e9,"ranks":[]},"rank":-1,"time":1764680000.5,"type":"system_sample","version":1})";
    auto g = gpuSampleFromEvent(decodeEvent(gpuLine).value());
    QVERIFY2(bool(g), g.errorText().c_str());
    QCOMPARE(g->node, 0);
    QCOMPARE(g->nodes, 1);
    QCOMPARE(g->host, std::string());
    QCOMPARE(g->gpus.size(), size_t(1));
    auto s = systemSampleFromEvent(decodeEvent(sysLine).value());
    QVERIFY2(bool(s), s.errorText().c_str());
    QCOMPARE(s->node, 0);
    QCOMPARE(s->nodes, 1);
    ScannedEvent sc;
    const Leaves leaves = scanned(gpuLine, &sc);
    QCOMPARE(sc.node, 0);
    QCOMPARE(sc.nodes, 1);
    QCOMPARE(leaves, flattened(decodeEvent(gpuLine).value()));
    QVERIFY(hasKey(leaves, "gpus/0/util"));
    QVERIFY(hasKey(scanned(sysLine, &sc), "cpu_total"));
    QVERIFY(hasKey(scanned(sysLine, &sc), "mem_used"));
  }

  void nodeTravelsAndRoundTrips() {
    const GpuSampleEvent g = twoGpus(1, 2, 40);
    const Event e = toEvent(g, -1);
    QCOMPARE(e.data["node"].get<int>(), 1);
    QCOMPARE(e.data["nodes"].get<int>(), 2);
    QCOMPARE(e.data["host"].get<std::string>(), std::string("host-1"));
    auto back = gpuSampleFromEvent(decodeEvent(encodeEvent(e)).value());
    QVERIFY(bool(back));
    QCOMPARE(back->node, 1);
    QCOMPARE(back->nodes, 2);
    QCOMPARE(back->host, std::string("host-1"));
    QCOMPARE(back->gpus.size(), size_t(2));

    SystemSampleEvent sys;
    sys.cpuTotal = 50;
    sys.node = 3;
    sys.nodes = 4;
    sys.host = "gpu-d";
    auto sysBack = systemSampleFromEvent(decodeEvent(encodeEvent(toEvent(sys, -1))).value());
    QVERIFY(bool(sysBack));
    QCOMPARE(sysBack->node, 3);
    QCOMPARE(sysBack->nodes, 4);
    QCOMPARE(sysBack->host, std::string("gpu-d"));

    // A run of one node writes node 0 and no count.
    const Event one = toEvent(twoGpus(0, 1, 40), -1);
    QCOMPARE(one.data["node"].get<int>(), 0);
    QVERIFY(!one.data.contains("nodes"));
  }

  void aBadNodeIsNamed() {
    Event e = toEvent(twoGpus(1, 2, 40), -1);
    e.data["node"] = -2;
    auto g = gpuSampleFromEvent(e);
    QVERIFY(!g);
    QVERIFY2(g.errorText().find("data.node") != std::string::npos, g.errorText().c_str());
    e.data["node"] = "one";
    QVERIFY(!gpuSampleFromEvent(e));
    e.data["node"] = 1;
    e.data["nodes"] = 0;
    auto n = gpuSampleFromEvent(e);
    QVERIFY(!n);
    QVERIFY2(n.errorText().find("data.nodes") != std::string::npos, n.errorText().c_str());
  }

  // Another node's GPU 0 is not node 0's: its keys carry node/<K>/, in the tree and in the
  // scanner the store reads with; node 0's keys are as in a run of one node.
  void anotherNodesKeysCarryItsNode() {
    for (int node : {0, 1, 12}) {
      Event gpu = toEvent(twoGpus(node, 13, 40), -1);
      SystemSampleEvent s;
      s.cpu = {10, 30};
      s.cpuTotal = 20;
      s.memUsed = 1e9;
      s.ranks = {{4, 100, 2e9, 150}};
      s.node = node;
      s.nodes = 13;
      Event sys = toEvent(s, -1);
      for (Event* e : {&gpu, &sys}) {
        e->time = 5.5;
        const std::string line = encodeEvent(*e);
        ScannedEvent sc;
        const Leaves leaves = scanned(line, &sc);
        QCOMPARE(leaves, flattened(decodeEvent(line).value()));
        QCOMPARE(sc.node, node);
        QCOMPARE(sc.nodes, 13);
        const std::string prefix = node == 0 ? "" : "node/" + std::to_string(node) + "/";
        QCOMPARE(nodeKeyPrefix(node), prefix);
        for (const auto& [key, value] : leaves) {
          QVERIFY2(key.rfind(prefix, 0) == 0, key.c_str());
          QVERIFY2(key.find("nodes") == std::string::npos, key.c_str());  // identities, not values
          QCOMPARE(splitNodeKey(key).first, node);
        }
        QVERIFY(hasKey(leaves, prefix + (e == &gpu ? "gpus/1/util" : "cpu_total")));
      }
    }
    QCOMPARE(splitNodeKey("node/7/gpus/0/util"), std::make_pair(7, std::string_view("gpus/0/util")));
    QCOMPARE(splitNodeKey("gpus/0/util"), std::make_pair(0, std::string_view("gpus/0/util")));
    QCOMPARE(splitNodeKey("node/x/util").first, 0);  // not a node prefix
    QCOMPARE(splitNodeKey("node/3").first, 0);
  }

  void gpusAreNamedByNodeOnlyInRunsOfSeveral() {
    QCOMPARE(gpuName(0, 3, false), std::string("GPU 3"));
    QCOMPARE(gpuName(1, 3, true), std::string("node 1 GPU 3"));
    QCOMPARE(gpuName(0, 0, true), std::string("node 0 GPU 0"));
    QCOMPARE(stave::english(nodeNameText(2)), std::string("node 2"));
    QCOMPARE(stave::english(nodeNameText(2, "gpu-b")), std::string("node 2 (gpu-b)"));
  }

  // Two nodes' samples in one doctor: the idle GPU, the full one and the busy CPU are named
  // with their node; a run of one node keeps its words.
  void theDoctorNamesTheNode() {
    const auto findingText = [](const DiagnosisEvent& d, const std::string& rule) {
      for (const auto& f : d.findings)
        if (f.rule == rule) return f.message;
      return std::string();
    };
    Doctor d(quick());
    d.add(runStart("cuda", 4, {{"batch", 16}, {"amp", true}, {"channels_last", true}}));
    const Event node0 = toEvent(twoGpus(0, 2, 60, 0.5), -1);
    const Event node1 = toEvent(twoGpus(1, 2, 20, 0.97), -1);
    SystemSampleEvent cpu0, cpu1;
    cpu0.cpu = {30, 30};
    cpu0.cpuTotal = 30;
    cpu1.cpu = {95, 95};
    cpu1.cpuTotal = 95;
    cpu1.node = 1;
    cpu1.nodes = 2;
    for (int i = 0; i < 10; ++i)
      for (const Event& e : {node0, node1, toEvent(cpu0, -1), toEvent(cpu1, -1)}) d.add(e);
    feed(d, {timing(0.01, 0, 0.3, 0.01, 0.02), timing(0.01, 0, 0.3, 0.01, 0.02),
             timing(0.01, 0, 0.3, 0.01, 0.02), timing(0.01, 0, 0.3, 0.01, 0.02)},
         10);
    const DiagnosisEvent report = d.finalReport();
    const std::string underused = findingText(report, "gpu_underused");
    QVERIFY2(underused.find("the least busy is node 1 GPU 0, at 20%") != std::string::npos,
             underused.c_str());
    const std::string oom = findingText(report, "memory_headroom") + findingText(report, "near_oom");
    QVERIFY2(oom.find("the fullest is node 1 GPU 0") != std::string::npos, oom.c_str());
    const DoctorWindow w = d.runWindow();
    QCOMPARE(w.nodes, 2);
    QCOMPARE(w.cpuNode, 1);
    QCOMPARE(w.cpuBusy, 95.0);
    // The catalog form names it too, for the studio's language.
    bool named = false;
    for (const auto& f : report.findings)
      for (const auto& t : f.text) named = named || t.id == "doctor.least_busy_gpu";
    QVERIFY(named);

    // One node: no node in the words.
    Doctor one(quick());
    one.add(runStart("cuda", 2, {{"batch", 16}, {"amp", true}, {"channels_last", true}}));
    for (int i = 0; i < 10; ++i) one.add(gpuSample(20, 0.97));
    feed(one, {timing(0.01, 0, 0.3, 0.01, 0.02), timing(0.01, 0, 0.3, 0.01, 0.02)}, 10);
    const DiagnosisEvent single = one.finalReport();
    QVERIFY(!findingText(single, "gpu_underused").empty());
    for (const auto& f : single.findings) QVERIFY2(f.message.find("node") == std::string::npos, f.message.c_str());
  }
};

QTEST_GUILESS_MAIN(TstNodeSamples)
#include "tst_node_samples.moc"
