// Two hosts: two network namespaces joined by a veth pair (addresses of this test's own,
// nothing else contacted), one launcher in each (nnodes=2, 2 Gloo ranks per node = 4 ranks).
// The run completes and its weights equal a 4-rank run on one host; each node keeps what
// docs/distributed.md says (node 0's events.jsonl every rank's events and every node's GPU and
// system samples, labelled by node, through the relay; the GPUs from the fake NVML); a
// slowed rank on node 1 is named with its node by the straggler detector and the doctor; a real
// Prometheus scrapes both nodes' launchers and sees series of both, by their `node` label; a
// Slurm with one slurmd per host runs the exported two-node sbatch file (node 1's samples reach
// node 0's events.jsonl from its first rank, as no launcher runs there); socket_ifname picks the interface where node 1 has two; kill -9 of
// node 1's launcher ends node 0 at once with an error naming node 1, its address and ranks (the
// transport's text only in the log), and leaves no rank behind on either side. Needs root (for
// the namespaces): skipped with that reason otherwise.
#include <QtTest/QtTest>

#include <unistd.h>

#include <csignal>

#include "e2e/train_e2e_util.h"

#ifndef STAVE_FAKE_NVML
#define STAVE_FAKE_NVML ""
#endif

using namespace stave::e2e;

namespace {

/// Runs `ip` with `args`; true when it exits 0 (its stderr in `err`).
bool ip(const QStringList& args, QString* err = nullptr) {
  QProcess p;
  p.start("ip", args);
  if (!p.waitForStarted(10000) || !p.waitForFinished(20000)) return false;
  if (err) *err = QString::fromUtf8(p.readAllStandardError()).trimmed();
  return p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

/// Processes whose command line mentions `needle` (the test's run folders), as "pid args".
QStringList processesMentioning(const QString& needle) {
  QStringList found;
  for (const auto& entry : QDir("/proc").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
    bool ok = false;
    entry.toLongLong(&ok);
    if (!ok) continue;
    QFile f("/proc/" + entry + "/cmdline");
    if (!f.open(QIODevice::ReadOnly)) continue;
    const QString cmd = QString::fromUtf8(f.readAll()).replace(QChar('\0'), ' ');
    if (cmd.contains(needle) && !cmd.contains("tst_train_two_hosts")) found << entry + " " + cmd;
  }
  return found;
}

}  // namespace

class TstTrainTwoHosts : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    if (::geteuid() != 0) QSKIP("network namespaces need root; this machine runs the tests as a user");
    QVERIFY(m_dir.isValid());
    // Names and a /24 of this test's own (the pid keeps parallel runs apart).
    const int tag = static_cast<int>(::getpid() % 200) + 20;
    m_ns = {QString("stave%1a").arg(::getpid()), QString("stave%1b").arg(::getpid())};
    m_addr = {QString("10.213.%1.1").arg(tag), QString("10.213.%1.2").arg(tag)};
    QString err;
    if (!ip({"netns", "add", m_ns[0]}, &err))
      QSKIP(qPrintable("this machine refuses network namespaces: " + err));
    m_made = true;
    QVERIFY2(ip({"netns", "add", m_ns[1]}, &err), qPrintable(err));
    // One veth pair, each end called stave0 inside its namespace.
    const QString a = QString("sv%1a").arg(::getpid()), b = QString("sv%1b").arg(::getpid());
    QVERIFY2(ip({"link", "add", a, "type", "veth", "peer", "name", b}, &err), qPrintable(err));
    for (int n = 0; n < 2; ++n) {
      const QString end = n == 0 ? a : b;
      QVERIFY2(ip({"link", "set", end, "netns", m_ns[n]}, &err), qPrintable(err));
      QVERIFY2(ip({"-n", m_ns[n], "link", "set", end, "name", "stave0"}, &err), qPrintable(err));
      QVERIFY2(ip({"-n", m_ns[n], "addr", "add", m_addr[n] + "/24", "dev", "stave0"}, &err),
               qPrintable(err));
      QVERIFY2(ip({"-n", m_ns[n], "link", "set", "stave0", "up"}, &err), qPrintable(err));
      QVERIFY2(ip({"-n", m_ns[n], "link", "set", "lo", "up"}, &err), qPrintable(err));
    }
    // Node 1 has a second interface that does not reach the master: socket_ifname names the
    // one that does.
    QVERIFY2(ip({"-n", m_ns[1], "link", "add", "stave1", "type", "veth", "peer", "name", "stave1p"},
                &err),
             qPrintable(err));
    QVERIFY2(ip({"-n", m_ns[1], "addr", "add", QString("10.214.%1.2/24").arg(tag), "dev", "stave1"},
                &err),
             qPrintable(err));
    QVERIFY2(ip({"-n", m_ns[1], "link", "set", "stave1", "up"}, &err), qPrintable(err));

    m_data = makeDemoDataset(m_dir.filePath("demo"), 32, 8, 96);
    QVERIFY(!m_data.isEmpty());
    m_cfg = m_dir.filePath("two.yaml");
    QVERIFY(writeTinyConfig(m_cfg, m_data, 64, 2, 2,
                            {"seed: 3", "threads: 1", "workers: 1", "val: false",
                             "optimizer: SGD", "warmup_epochs: 0", "nbs: 8",
                             "socket_ifname: stave0"}));
  }

  void cleanupTestCase() {
    if (!m_made) return;
    for (const auto& ns : m_ns) ip({"netns", "del", ns});  // takes the veth pairs along
  }

  // 2 nodes x 2 ranks complete; the weights equal 4 ranks on one host, exactly: the same ranks
  // read the same shards and Gloo sums the gradients of 4 ranks in the same order whichever
  // host a rank is on, so there is nothing to round differently (tolerance 0).
  void twoNodesTrainLikeOneHost() {
    const int port = 29000 + static_cast<int>(::getpid() % 1000);
    // One run folder for both nodes, as on a cluster's shared storage (the namespaces share
    // this machine's file system).
    const QString r0 = m_dir.filePath("runs/two");
    // Each node samples its (fake, two-GPU) NVML, as a GPU node's launcher does.
    const QStringList nvml{"STAVE_NVML_LIBRARY=" STAVE_FAKE_NVML};
    auto n0 = startNode(0, r0, port, m_cfg, nvml);
    auto n1 = startNode(1, r0, port, m_cfg, nvml);
    QVERIFY2(n0->waitForFinished(600000), "node 0 did not finish");
    QVERIFY2(n1->waitForFinished(120000), "node 1 did not finish");
    QVERIFY2(n0->exitCode() == 0,
             qPrintable(n0->readAllStandardError().right(3000) +
                        readText(r0 + "/logs/rank0.log").right(2000)));
    QVERIFY2(n1->exitCode() == 0, qPrintable(n1->readAllStandardError().right(3000)));

    // Node 0 keeps the run: config, results, checkpoints, events.jsonl with every rank's
    // events; node 1 adds its ranks' logs and its own config and events under logs/.
    QCOMPARE(readResults(r0 + "/results.csv").size(), 2);
    QVERIFY(QFile::exists(r0 + "/weights/last.pt"));
    for (int r = 0; r < 4; ++r) QVERIFY(QFile::exists(r0 + QString("/logs/rank%1.log").arg(r)));
    QVERIFY(QFile::exists(r0 + "/logs/node1.config.yaml"));
    const auto events0 = parseEvents(readText(r0 + "/events.jsonl"));
    const auto start = eventsOf(events0, "run_start");
    QCOMPARE(start.size(), 1);
    QCOMPARE(start[0]["data"].toObject()["world_size"].toInt(), 4);
    QCOMPARE(eventsOf(events0, "finished").size(), 1);
    // Node 0's events.jsonl has every rank's step events (node 1's through the event relay).
    QSet<int> stepRanks;
    for (const auto& s : eventsOf(events0, "step")) stepRanks.insert(s["rank"].toInt());
    QCOMPARE(stepRanks, QSet<int>({0, 1, 2, 3}));
    const auto steps1 = eventsOf(parseEvents(readText(r0 + "/logs/node1.events.jsonl")), "step");
    QVERIFY(!steps1.isEmpty());
    for (const auto& s : steps1) QVERIFY(s["rank"].toInt() >= 2);
    nodeOneSamplesReachNodeZero(r0);
    // socket_ifname: Gloo ran over stave0, not node 1's other interface.
    QCOMPARE(start[0]["data"].toObject()["nccl"].toObject()["interface"].toString(),
             QString("stave0"));

    // The same run as 4 ranks on one host (loopback; socket_ifname lo there).
    const QString one = m_dir.filePath("runs/one");
    auto r = runStaveTrain({"train", m_cfg, "--run-dir", one, "--nproc", "4",
                            "socket_ifname=lo"},
                           {}, 600000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err.right(3000)));
    auto cmp = runStaveTrain({"compare-weights", r0 + "/weights/last.pt", one + "/weights/last.pt",
                              "--json"});
    QVERIFY2(cmp.exitCode == 0, qPrintable(cmp.err));
    const auto diff = QJsonDocument::fromJson(cmp.out.toUtf8()).object();
    QVERIFY2(diff["model_max_abs_diff"].toDouble() == 0.0 && diff["ema_max_abs_diff"].toDouble() == 0.0,
             qPrintable(cmp.out));
  }

  // A slowed rank on node 1 (the loader fault switch) is named with its node by the launcher's
  // straggler detector and by the doctor, both on node 0.
  void slowRankOnNodeOneIsNamed() {
    const QString cfg = m_dir.filePath("slow.yaml");
    // Reports every 4 s: the detector judges a rank on 3 or more step events in a period.
    QVERIFY(writeTinyConfig(cfg, m_data, 64, 8, 2,
                            {"seed: 3", "threads: 1", "workers: 1", "val: false",
                             "report_period_s: 4", "socket_ifname: stave0"}));
    const int port = 31000 + static_cast<int>(::getpid() % 1000);
    const QString r0 = m_dir.filePath("runs/slow0");
    auto n0 = startNode(0, r0, port, cfg);
    auto n1 = startNode(1, r0, port, cfg,
                        {"STAVE_FAULT_SLOW_DATA_MS=250", "STAVE_FAULT_SLOW_DATA_RANK=3"});
    QVERIFY(n0->waitForFinished(600000) && n1->waitForFinished(60000));
    QCOMPARE(n0->exitCode(), 0);
    const auto events = parseEvents(readText(r0 + "/events.jsonl"));
    bool straggler = false, doctor = false;
    for (const auto& e : eventsOf(events, "straggler")) {
      const auto d = e["data"].toObject();
      straggler |= d["slow_rank"].toInt() == 3 && d["slow_node"].toInt() == 1 &&
                   d["message"].toString().startsWith("rank 3 on node 1");
    }
    for (const auto& e : eventsOf(events, "diagnosis"))
      doctor |= QJsonDocument(e).toJson().contains("rank 3 on node 1");
    QVERIFY2(straggler, "a straggler event naming rank 3 on node 1");
    QVERIFY2(doctor, "a diagnosis naming rank 3 on node 1");
  }

  // Each node's launcher exports its own ranks and node with a `node` label; a real Prometheus
  // in node 0's namespace scrapes both every second, and a query over its HTTP API returns
  // series of both nodes.
  void prometheusSeesBothNodes() {
    if (QStandardPaths::findExecutable("prometheus").isEmpty() ||
        QStandardPaths::findExecutable("promtool").isEmpty())
      QSKIP("prometheus is not installed (scripts/setup installs Debian's prometheus)");
    const int port = 32000 + static_cast<int>(::getpid() % 1000);
    const int metrics = port + 10, web = port + 11;
    const QString cfg = m_dir.filePath("metrics.yaml");
    QVERIFY(writeTinyConfig(cfg, m_data, 64, 200, 2,
                            {"seed: 3", "threads: 1", "workers: 1", "val: false",
                             "socket_ifname: stave0", "metrics_addr: 0.0.0.0",
                             QString("metrics_port: %1").arg(metrics)}));
    const QString prom = m_dir.filePath("prometheus");
    QVERIFY(QDir().mkpath(prom + "/data"));
    {
      QFile f(prom + "/prometheus.yml");
      QVERIFY(f.open(QIODevice::WriteOnly));
      QTextStream(&f) << "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                      << "scrape_configs:\n  - job_name: stave\n    static_configs:\n"
                      << "      - targets: ['" << m_addr[0] << ":" << metrics << "', '"
                      << m_addr[1] << ":" << metrics << "']\n";
    }
    QProcess server;
    server.start("ip", {"netns", "exec", m_ns[0], "prometheus",
                        "--config.file=" + prom + "/prometheus.yml",
                        "--storage.tsdb.path=" + prom + "/data",
                        QString("--web.listen-address=%1:%2").arg(m_addr[0]).arg(web)});
    QVERIFY(server.waitForStarted(10000));
    const QString r0 = m_dir.filePath("runs/metrics");
    auto n0 = startNode(0, r0, port, cfg);
    auto n1 = startNode(1, r0, port, cfg);
    // Both nodes' series, by node, once Prometheus has scraped the training.
    auto nodesSeen = [&]() {
      QProcess q;
      q.start("ip", {"netns", "exec", m_ns[0], "promtool", "query", "instant",
                     QString("http://%1:%2").arg(m_addr[0]).arg(web),
                     "count by (node) (stave_train_samples_per_second)"});
      q.waitForFinished(20000);
      const QString out = QString::fromUtf8(q.readAllStandardOutput());
      return out.contains("node=\"0\"") && out.contains("node=\"1\"");
    };
    QTRY_VERIFY_WITH_TIMEOUT(nodesSeen(), 180000);
    for (QProcess* p : {n0.get(), n1.get(), &server}) p->kill();
    for (QProcess* p : {n0.get(), n1.get(), &server}) p->waitForFinished(20000);
  }

  // Slurm over the two hosts: a slurmd in each namespace (slurmctld in node 0's), the exported
  // sbatch file of a CPU config with --nodes 2 (one task each) runs one rank per host to the end.
  // The nodes' names (stn0, stn1) resolve nowhere, so the job is told node 0's address
  // (STAVE_MASTER_ADDR, which the export reads before it asks Slurm for the first host's name).
  void slurmOverTwoNodes() {
    if (QStandardPaths::findExecutable("slurmctld", {"/usr/sbin", "/usr/bin"}).isEmpty() ||
        QStandardPaths::findExecutable("munged", {"/usr/sbin", "/usr/bin"}).isEmpty())
      QSKIP("slurm-wlm and munge are not installed (scripts/setup installs them)");
    const QString cluster = m_dir.filePath("slurm2"), jobs = m_dir.filePath("slurm2-jobs");
    QVERIFY(QDir().mkpath(jobs));
    const int base = 33000 + static_cast<int>(::getpid() % 1000);
    auto inNs0 = [&](const QStringList& cmd, const QStringList& env = {}) {
      QProcess p;
      QStringList e = QProcess::systemEnvironment();
      e << "SLURM_CONF=" + cluster + "/slurm.conf" << env;
      p.setEnvironment(e);
      p.setWorkingDirectory(jobs);
      p.start("nsenter", QStringList{"--net=/var/run/netns/" + m_ns[0]} + cmd);
      p.waitForFinished(60000);
      return std::make_pair(p.exitCode(), QString::fromUtf8(p.readAllStandardOutput() +
                                                            p.readAllStandardError()));
    };
    QProcess up;
    up.start(STAVE_SOURCE_DIR "/tests/e2e/slurm_cluster.sh",
             {"up", cluster, QString::number(base), QString::number(base + 1),
              m_ns[0] + "=" + m_addr[0], m_ns[1] + "=" + m_addr[1]});
    QVERIFY(up.waitForFinished(60000));
    struct Down {
      QString dir;
      ~Down() { QProcess::execute(STAVE_SOURCE_DIR "/tests/e2e/slurm_cluster.sh", {"down", dir}); }
    } down{cluster};
    QVERIFY2(up.exitCode() == 0, qPrintable(up.readAllStandardError()));

    const QString cfg = m_dir.filePath("slurm2.yaml");
    QVERIFY(writeTinyConfig(cfg, m_data, 64, 2, 2,
                            {"seed: 3", "threads: 1", "workers: 1", "val: false", "nproc: 1"}));
    const QString file = jobs + "/two.sbatch";
    auto ex = runStaveTrain({"export", cfg, "--format", "slurm", "--out", file, "--nodes", "2",
                             "--cpus-per-task", "1", "--time", "00:20:00"});
    QVERIFY2(ex.exitCode == 0, qPrintable(ex.err));
    const auto [rc, out] =
        inNs0({"sbatch", "--parsable", "--chdir=" + jobs, "--output=" + jobs + "/slurm-%j.out", file},
              {"STAVE_TRAIN=" STAVE_TRAIN_EXE, "STAVE_MASTER_ADDR=" + m_addr[0],
               "STAVE_NVML_LIBRARY=" STAVE_FAKE_NVML});
    QVERIFY2(rc == 0, qPrintable(out));
    const QString id = out.trimmed().section(';', 0, 0);
    QTRY_VERIFY_WITH_TIMEOUT(inNs0({"squeue", "-h", "-j", id}).second.trimmed().isEmpty(), 300000);
    const QString run = jobs + "/runs/slurm-" + id;
    QVERIFY2(readResults(run + "/results.csv").size() == 2,
             qPrintable(readText(jobs + "/slurm-" + id + ".out").right(3000)));
    const auto events = parseEvents(readText(run + "/events.jsonl"));
    QCOMPARE(eventsOf(events, "run_start")[0]["data"].toObject()["world_size"].toInt(), 2);
    QCOMPARE(eventsOf(events, "finished").last()["data"].toObject()["status"].toString(),
             QString("completed"));
    // No launcher samples node 1 under srun: its first rank does, and sends the samples to rank
    // 0 over the event relay, labelled with node 1 (the fake NVML's two GPUs on each node).
    QMap<int, int> gpuSamples, systemSamples;
    for (const auto& e : eventsOf(events, "gpu_sample")) {
      const auto d = e["data"].toObject();
      QCOMPARE(e["rank"].toInt(), -1);
      QCOMPARE(d["nodes"].toInt(), 2);
      QCOMPARE(d["gpus"].toArray().size(), 2);
      ++gpuSamples[d["node"].toInt()];
    }
    for (const auto& e : eventsOf(events, "system_sample"))
      ++systemSamples[e["data"].toObject()["node"].toInt()];
    QVERIFY2(gpuSamples.value(1) > 0, "node 1's GPU samples in node 0's events.jsonl");
    QVERIFY2(systemSamples.value(1) > 0, "node 1's system samples in node 0's events.jsonl");
    QCOMPARE(QSet<int>(gpuSamples.keyBegin(), gpuSamples.keyEnd()), QSet<int>({0, 1}));
    for (const auto& w : eventsOf(events, "warning"))  // nothing refused on the way
      QVERIFY2(!w["data"].toObject()["message"].toString().contains("dropped"),
               qPrintable(w["data"].toObject()["message"].toString()));
  }

  // kill -9 of node 1's launcher: node 0 ends within the bound with an error naming node 1,
  // its address and ranks; the transport's own text stays in the rank's log; no rank is left.
  void nodeLossIsNamed() {
    const QString cfg = m_dir.filePath("long.yaml");
    QVERIFY(writeTinyConfig(cfg, m_data, 64, 200, 2,
                            {"seed: 3", "threads: 1", "workers: 1", "val: false",
                             "socket_ifname: stave0"}));
    const int port = 30000 + static_cast<int>(::getpid() % 1000);
    const QString r0 = m_dir.filePath("runs/lost");
    auto n0 = startNode(0, r0, port, cfg);
    auto n1 = startNode(1, r0, port, cfg);
    // Training is under way once an epoch is checkpointed.
    QTRY_VERIFY_WITH_TIMEOUT(
        !eventsOf(parseEvents(readText(r0 + "/events.jsonl")), "checkpoint").isEmpty(), 300000);
    relayLetsInOnlyTheRun(r0, port + 1, n0.get());
    QElapsedTimer lost;
    lost.start();
    QCOMPARE(::kill(static_cast<pid_t>(n1->processId()), SIGKILL), 0);
    QVERIFY2(n0->waitForFinished(60000), "node 0 must end within 60 s of losing node 1");
    const qint64 ms = lost.elapsed();
    qInfo("node 0 ended %lld ms after node 1's launcher was killed", ms);
    QCOMPARE(n0->exitCode(), 1);
    n1->waitForFinished(10000);

    const auto errors = eventsOf(parseEvents(readText(r0 + "/events.jsonl")), "error");
    QVERIFY(!errors.isEmpty());
    bool named = false;
    for (const auto& e : errors) {
      const QString msg = e["data"].toObject()["message"].toString();
      QVERIFY2(!msg.contains("pair.cc") && !msg.contains("gloo/transport"),
               qPrintable("raw transport text in the message: " + msg));
      named |= msg.contains("node 1 (" + m_addr[1]) && msg.contains("ranks 2-3");
    }
    QVERIFY2(named, qPrintable(readText(r0 + "/events.jsonl").right(3000)));
    QVERIFY2(readText(r0 + "/logs/rank0.log").contains("Connection closed by peer") ||
                 readText(r0 + "/logs/rank0.log").contains("reset by peer"),
             "the transport's text belongs in the rank's log");
    // No orphans: every rank of both nodes is gone.
    QTRY_VERIFY_WITH_TIMEOUT(processesMentioning(r0).isEmpty(), 20000);

    // resume=true on both nodes continues from the last checkpoint to the end.
    const int done = readResults(r0 + "/results.csv").size();
    QVERIFY(done >= 1);
    const QStringList more{"resume=true", QString("epochs=%1").arg(done + 1)};
    auto m0 = startNode(0, r0, port + 2, "", {}, more);
    auto m1 = startNode(1, r0, port + 2, "", {}, more);
    QVERIFY(m0->waitForFinished(600000) && m1->waitForFinished(60000));
    QVERIFY2(m0->exitCode() == 0, qPrintable(m0->readAllStandardError().right(3000)));
    QVERIFY2(m1->exitCode() == 0, qPrintable(m1->readAllStandardError().right(3000)));
    QCOMPARE(readResults(r0 + "/results.csv").size(), done + 1);
  }

 private:
  // Every node's telemetry in node 0's events.jsonl: node 1's GPU and system samples came over
  // the event relay, labelled with its node and host, exactly as node 1 wrote them into its
  // own log; node 0's are labelled node 0; both say the run has two nodes.
  void nodeOneSamplesReachNodeZero(const QString& r0) {
    const auto events0 = parseEvents(readText(r0 + "/events.jsonl"));
    QMap<int, int> gpuSamples, systemSamples;
    for (const auto& e : eventsOf(events0, "gpu_sample")) {
      const auto d = e["data"].toObject();
      QVERIFY2(d.contains("node") && !d["host"].toString().isEmpty(),
               qPrintable(QJsonDocument(e).toJson()));
      QCOMPARE(d["nodes"].toInt(), 2);
      QCOMPARE(d["gpus"].toArray().size(), 2);  // the fake's two GPUs
      ++gpuSamples[d["node"].toInt()];
    }
    for (const auto& e : eventsOf(events0, "system_sample"))
      ++systemSamples[e["data"].toObject()["node"].toInt()];
    QVERIFY2(gpuSamples.value(1) > 0, "node 1's GPU samples in node 0's events.jsonl");
    QVERIFY(gpuSamples.value(0) > 0);
    QVERIFY2(systemSamples.value(1) > 0, "node 1's system samples in node 0's events.jsonl");
    QCOMPARE(QSet<int>(gpuSamples.keyBegin(), gpuSamples.keyEnd()), QSet<int>({0, 1}));
    // Relayed as written: node 1's first GPU sample line is in both logs.
    const QString log1 = readText(r0 + "/logs/node1.events.jsonl");
    QString first1;
    for (const auto& line : log1.split('\n'))
      if (line.contains("\"type\":\"gpu_sample\"")) {
        first1 = line;
        break;
      }
    QVERIFY(first1.contains("\"node\":1"));
    QVERIFY2(readText(r0 + "/events.jsonl").contains(first1), qPrintable(first1));
  }

  // The event relay (node 0, master_port + 1) takes only what this run's launchers send. A
  // process that is no part of the run — on another host, or on node 0's host — writes a fake
  // result there: refused, nothing of it in events.jsonl. The relay is not on node 0's
  // loopback (it listens on the master's address only). A peer that knows the run's key but
  // sends an overflowing number, or a lifecycle event that only node 0 writes: that line is
  // dropped with a warning naming the peer, and the run goes on.
  void relayLetsInOnlyTheRun(const QString& runDir, int relay, QProcess* node0) {
    const QString fake =
        R"({"type":"validation","version":1,"rank":0,"time":1764680000,"data":{"epoch":45,"map50":0.991,"map50_95":0.9}})"
        "\n"
        R"({"type":"finished","version":1,"rank":0,"time":1764680001,"data":{"status":"completed","epochs_done":200}})"
        "\n";
    const auto sendRaw = [&](const QString& ns, const QString& addr) {
      QProcess p;
      // bash's /dev/tcp: a plain connection, as any process could open; the relay's greeting
      // is read and ignored.
      p.start("ip", {"netns", "exec", ns, "bash", "-c",
                     QString("exec 3<>/dev/tcp/%1/%2 || exit 3; printf '%s' \"$0\" >&3; "
                             "timeout 8 cat <&3 >/dev/null; exit 0")
                         .arg(addr)
                         .arg(relay),
                     fake});
      p.waitForFinished(30000);
      return p.exitCode();
    };
    QCOMPARE(sendRaw(m_ns[1], m_addr[0]), 0);  // another host
    QCOMPARE(sendRaw(m_ns[0], m_addr[0]), 0);  // node 0's own host
    QCOMPARE(sendRaw(m_ns[0], "127.0.0.1"), 3);  // not listening on loopback: refused to connect
    // A peer with the key: an overflowing number, a lifecycle event; then a good line.
    QProcess probe;
    probe.start("ip", {"netns", "exec", m_ns[1], QStringLiteral(STAVE_RELAY_PROBE), m_addr[0],
                       QString::number(relay), "node", "1", runDir,
                       R"({"type":"step","version":1,"rank":2,"time":1764680000,"data":{"loss":1e999}})",
                       R"({"type":"finished","version":1,"rank":2,"time":1764680000,"data":{"status":"completed"}})"});
    QVERIFY(probe.waitForFinished(60000));
    QVERIFY2(probe.exitCode() == 0, qPrintable(probe.readAllStandardError()));

    const auto warnedAbout = [&](const QString& text) {
      for (const auto& w : eventsOf(parseEvents(readText(runDir + "/events.jsonl")), "warning"))
        if (w["data"].toObject()["message"].toString().contains(text)) return true;
      return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(warnedAbout("refused " + m_addr[1] + ":"), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(warnedAbout("refused " + m_addr[0] + ":"), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(warnedAbout("node 1 (" + m_addr[1]) && warnedAbout("data.loss: not JSON: number out of range") &&
                                 warnedAbout("'finished' is written by node 0 only"),
                             30000);
    const QString log = readText(runDir + "/events.jsonl");
    QVERIFY2(!log.contains("0.991"), "a fake validation reached events.jsonl");
    QVERIFY(eventsOf(parseEvents(log), "finished").isEmpty());
    // The run goes on: node 0 alive, and node 1's ranks still reach it (its launcher connects
    // again after the probe took its place).
    QCOMPARE(node0->state(), QProcess::Running);
    const int before = eventsOf(parseEvents(log), "step").size();
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
          int fromNode1 = 0;
          const auto steps = eventsOf(parseEvents(readText(runDir + "/events.jsonl")), "step");
          for (int i = before; i < steps.size(); ++i) fromNode1 += steps[i]["rank"].toInt() >= 2;
          return fromNode1 > 0;
        }(),
        120000);
    // The key is private to the run's user.
    QCOMPARE(QFile(runDir + "/relay.key").permissions() &
                 (QFile::ReadGroup | QFile::ReadOther | QFile::WriteGroup | QFile::WriteOther),
             QFileDevice::Permissions());
  }

  // Node `node`'s launcher: `cfg` (or "" when resuming), then `extra` key=value overrides.
  std::unique_ptr<QProcess> startNode(int node, const QString& runDir, int port,
                                      const QString& cfg, const QStringList& env = {},
                                      const QStringList& extra = {}) {
    auto p = std::make_unique<QProcess>();
    if (!env.isEmpty()) p->setEnvironment(QProcess::systemEnvironment() + env);
    QStringList args{"netns", "exec", m_ns[node], QStringLiteral(STAVE_TRAIN_EXE), "train"};
    if (!cfg.isEmpty()) args << cfg;
    args << "--run-dir" << runDir << "--nproc" << "2" << "--nnodes" << "2" << "--node-rank"
         << QString::number(node) << "--master-addr" << m_addr[0] << "--master-port"
         << QString::number(port) << extra;
    p->start("ip", args);
    p->waitForStarted(20000);
    return p;
  }

  QTemporaryDir m_dir;
  QStringList m_ns, m_addr;
  bool m_made = false;
  QString m_data, m_cfg;
};

QTEST_GUILESS_MAIN(TstTrainTwoHosts)
#include "tst_train_two_hosts.moc"
