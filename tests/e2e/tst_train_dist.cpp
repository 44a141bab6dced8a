// Two CPU ranks on Gloo: the real detector trains, validates and writes one results.csv;
// kill -9 of rank 1 stops the run within 60 s with an error naming rank 1 and SIGKILL, and
// resume=true completes the run from its checkpoint. sync_bn=true trains through SyncBatchNorm.
#include <QtTest/QtTest>

#include <cmath>
#include <csignal>

#include <sys/socket.h>
#include <unistd.h>

#include "common/loopback.h"
#include "e2e/train_e2e_util.h"

using namespace stave::e2e;

namespace {
/// The pid of the child of `parent` whose environment has RANK=<rank>, or 0.
qint64 findRankPid(qint64 parent, int rank) {
  const QString want = QString("RANK=%1").arg(rank);
  for (const auto& entry : QDir("/proc").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
    bool ok = false;
    const qint64 pid = entry.toLongLong(&ok);
    if (!ok) continue;
    const QString stat = readText("/proc/" + entry + "/stat");
    const int close = stat.lastIndexOf(')');
    if (close < 0) continue;
    const QStringList fields = stat.mid(close + 2).split(' ');
    if (fields.size() < 2 || fields[1].toLongLong() != parent) continue;
    QFile env("/proc/" + entry + "/environ");
    if (!env.open(QIODevice::ReadOnly)) continue;
    for (const auto& var : env.readAll().split('\0')) {
      if (QString::fromUtf8(var) == want) return pid;
    }
  }
  return 0;
}
}  // namespace

class TstTrainDist : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_data = makeDemoDataset(m_dir.filePath("demo"), 96, 32, 128);
    QVERIFY(!m_data.isEmpty());
  }

  void twoRanksTrain() {
    const QString cfg = m_dir.filePath("dist.yaml");
    // Global batch 8 as in the single-process test (4 per rank), same schedule, one step per batch.
    QVERIFY(writeTinyConfig(cfg, m_data, 128, 10, 4,
                            {"seed: 1", "lr0: 0.01", "optimizer: SGD", "warmup_epochs: 0", "nbs: 8",
                             "close_mosaic: 2", "threads: 1", "workers: 1"}));
    const QString run = m_dir.filePath("runs/dist");
    auto r = runStaveTrain({"train", cfg, "--run-dir", run, "--nproc", "2"}, {}, 600000);
    QVERIFY2(r.exitCode == 0 && !r.crashed,
             qPrintable(r.err.right(3000) + readText(run + "/logs/rank1.log").right(2000)));
    const auto rows = readResults(run + "/results.csv");
    QCOMPARE(rows.size(), 10);
    for (const auto& row : rows)
      qInfo("epoch %2d  cls %.3f  mAP50 %.3f", int(row["epoch"]), row["train/cls_loss"],
            row["metrics/mAP50(B)"]);
    QVERIFY(rows.last()["metrics/mAP50(B)"] > 0.002);  // as the single-process test
    QVERIFY(rows.last()["train/cls_loss"] < rows.first()["train/cls_loss"]);
    const auto events = parseEvents(readText(run + "/events.jsonl"));
    bool rank0 = false, rank1 = false, overlapSeen = false;
    for (const auto& e : eventsOf(events, "step")) {
      rank0 |= e["rank"].toInt() == 0;
      rank1 |= e["rank"].toInt() == 1;
      overlapSeen |= e["data"].toObject()["timing"].toObject()["allreduce_wait"].toDouble() >= 0;
    }
    QVERIFY(rank0 && rank1 && overlapSeen);
    QCOMPARE(eventsOf(events, "finished").size(), 1);
  }

  void twoRanksSyncBn() {
    // sync_bn=true: every BN all-reduces in forward and backward; the run must neither deadlock
    // (collectives in step across ranks, validation in eval mode without them) nor diverge.
    const QString cfg = m_dir.filePath("syncbn.yaml");
    QVERIFY(writeTinyConfig(cfg, m_data, 64, 2, 2,
                            {"seed: 1", "sync_bn: true", "threads: 1", "workers: 1", "nbs: 4",
                             "warmup_epochs: 0"}));
    const QString run = m_dir.filePath("runs/syncbn");
    auto r = runStaveTrain({"train", cfg, "--run-dir", run, "--nproc", "2"}, {}, 300000);
    QVERIFY2(r.exitCode == 0 && !r.crashed,
             qPrintable(r.err.right(3000) + readText(run + "/logs/rank1.log").right(2000)));
    const auto rows = readResults(run + "/results.csv");
    QCOMPARE(rows.size(), 2);
    for (const auto& row : rows)
      QVERIFY(std::isfinite(row["train/box_loss"]) && std::isfinite(row["train/cls_loss"]));
    QCOMPARE(eventsOf(parseEvents(readText(run + "/events.jsonl")), "finished").size(), 1);
  }

  void killRankOneThenResume() {
    const QString cfg = m_dir.filePath("kill.yaml");
    QVERIFY(writeTinyConfig(cfg, m_data, 64, 40, 4,
                            {"threads: 1", "workers: 1", "val: false", "nbs: 8"}));
    const QString run = m_dir.filePath("runs/kill");
    QProcess p;
    p.start(QStringLiteral(STAVE_TRAIN_EXE), {"train", cfg, "--run-dir", run, "--nproc", "2"});
    QVERIFY(p.waitForStarted(20000));
    // Wait for the first checkpoint, then kill rank 1 mid-epoch.
    QElapsedTimer t;
    t.start();
    while (!QFile::exists(run + "/weights/last.pt") && t.elapsed() < 300000 &&
           p.state() == QProcess::Running) {
      p.waitForReadyRead(500);
    }
    QVERIFY2(QFile::exists(run + "/weights/last.pt"), qPrintable(p.readAllStandardError()));
    QTest::qWait(1500);
    const qint64 victim = findRankPid(p.processId(), 1);
    QVERIFY(victim > 0);
    QElapsedTimer k;
    k.start();
    QCOMPARE(::kill(static_cast<pid_t>(victim), SIGKILL), 0);
    QVERIFY2(p.waitForFinished(60000), "the launcher must end within 60 s of a rank's death");
    qInfo("launcher ended %.1f s after kill -9", k.elapsed() / 1000.0);
    QVERIFY(p.exitCode() != 0);
    const auto events = parseEvents(QString::fromUtf8(p.readAllStandardOutput()));
    bool named = false;
    for (const auto& e : eventsOf(events, "error")) {
      const auto d = e["data"].toObject();
      named |= d["rank"].toInt() == 1 && d["signal"].toInt() == SIGKILL &&
               d["message"].toString().contains("SIGKILL");
    }
    QVERIFY2(named, "an error event must name rank 1 and SIGKILL");
    const int doneEpochs = readResults(run + "/results.csv").size();
    QVERIFY(doneEpochs >= 1);

    // Resume completes the run (one more epoch than the checkpoint holds).
    auto r = runStaveTrain(
        {"train", "--run-dir", run, "resume=true", QString("epochs=%1").arg(doneEpochs + 1)}, {},
        300000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err.right(3000)));
    QCOMPARE(readResults(run + "/results.csv").size(), doneEpochs + 1);
  }

  // Resume on another shape: 4 ranks stopped inside epoch 1 continue with 2 (a lost node) to
  // the end. The per-rank batch, nbs and the schedule stay, accumulation adapts (global batch 8
  // -> 4: 1 -> 2 steps), the 4 batches of 4 ranks done count as 8 of 2, and the run's events
  // say what changed. The weights cannot equal a run of 2 ranks from the start (its first epoch
  // paired other images in each rank's BatchNorm batch), so the test checks the bookkeeping.
  void resumeOnAnotherShape() {
    const QString cfg = m_dir.filePath("shape.yaml");
    QVERIFY(writeTinyConfig(cfg, m_data, 64, 2, 2,
                            {"seed: 3", "threads: 1", "workers: 1", "val: false", "nbs: 8",
                             "optimizer: SGD", "warmup_epochs: 0"}));
    const QString run = m_dir.filePath("runs/shape");
    auto first = runStaveTrain(
        {"train", cfg, "--run-dir", run, "--nproc", "4", "--stop-after-batches", "4"}, {}, 600000);
    QVERIFY2(first.exitCode == 0, qPrintable(first.err.right(3000)));
    auto again = runStaveTrain({"train", "--run-dir", run, "resume=true", "--nproc", "2"}, {},
                               600000);
    QVERIFY2(again.exitCode == 0, qPrintable(again.err.right(3000)));
    QCOMPARE(readResults(run + "/results.csv").size(), 2);
    const auto events = parseEvents(readText(run + "/events.jsonl"));
    bool said = false;
    for (const auto& w : eventsOf(events, "warning")) {
      const QString m = w["data"].toObject()["message"].toString();
      said |= m.contains("resumed with 2 ranks") && m.contains("written by 4") &&
              m.contains("accumulated over 2 steps (was 1)");
    }
    QVERIFY2(said, "a warning must say what the new shape changed");
    const auto starts = eventsOf(events, "run_start");
    QCOMPARE(starts.size(), 2);
    QCOMPARE(starts[0]["data"].toObject()["world_size"].toInt(), 4);
    QCOMPARE(starts[1]["data"].toObject()["world_size"].toInt(), 2);
    QCOMPARE(starts[1]["data"].toObject()["resolved"].toObject()["accumulate"].toInt(), 2);
    const auto finished = eventsOf(events, "finished");
    QCOMPARE(finished.last()["data"].toObject()["status"].toString(), QString("completed"));
  }

  // nnodes=2 with the second node absent waited silently and ignored SIGTERM (the stop was
  // forced after the 600 s stop timeout): a rank at the rendezvous now ends at once, and the
  // run's record says it was stopped before training.
  void absentNodeStopsAtOnce() {
    const QString cfg = m_dir.filePath("absent.yaml");
    QVERIFY(writeTinyConfig(cfg, m_data, 64, 1, 4, {"threads: 1", "workers: 1"}));
    const QString run = m_dir.filePath("runs/absent");
    QProcess p;
    p.start(QStringLiteral(STAVE_TRAIN_EXE),
            {"train", cfg, "--run-dir", run, "--nproc", "1", "--nnodes", "2", "--node-rank", "0",
             "--master-addr", "127.0.0.1", "--master-port",
             QString::number(stave::test::freeLoopbackPort())});
    QVERIFY(p.waitForStarted(20000));
    QTRY_VERIFY_WITH_TIMEOUT(findRankPid(p.processId(), 0) > 0, 60000);
    QTest::qWait(3000);  // rank 0 is at the rendezvous now, waiting for node 1
    QCOMPARE(::kill(static_cast<pid_t>(p.processId()), SIGTERM), 0);
    QVERIFY2(p.waitForFinished(30000), "the launcher must end soon after SIGTERM");
    QCOMPARE(p.exitCode(), 0);
    const auto finished = eventsOf(parseEvents(readText(run + "/events.jsonl")), "finished");
    QCOMPARE(finished.size(), 1);
    QCOMPARE(finished[0]["data"].toObject()["status"].toString(), QString("stopped"));
    QVERIFY(eventsOf(parseEvents(readText(run + "/events.jsonl")), "error").isEmpty());
  }

  // Ranks that no launcher gathers (torchrun's variables here, srun's alike) send their events
  // to rank 0 over the event relay, which listens on loopback for a run on one host and lets in
  // only processes that prove they know the run's key. A process that is no rank writes a fake
  // result there: refused (a warning names it), nothing of it in events.jsonl; from another
  // network namespace, joined to this host by a veth pair, the relay cannot even be reached. A
  // peer with the key that sends an overflowing number or a `finished` line costs that line
  // (a warning naming rank 1), never the run: rank 1's events keep coming and the run stops
  // cleanly on SIGTERM.
  void relayLetsInOnlyTheRunsRanks() {
    const QString cfg = m_dir.filePath("relay.yaml");
    QVERIFY(writeTinyConfig(cfg, m_data, 64, 200, 4, {"seed: 2", "threads: 1", "workers: 1", "val: false"}));
    const QString run = m_dir.filePath("runs/relay");
    const int port = stave::test::freeLoopbackPort();
    std::vector<std::unique_ptr<QProcess>> ranks;
    for (int r = 0; r < 2; ++r) {
      auto p = std::make_unique<QProcess>();
      QStringList env = QProcess::systemEnvironment();
      env << QString("RANK=%1").arg(r) << QString("LOCAL_RANK=%1").arg(r) << "WORLD_SIZE=2"
          << "LOCAL_WORLD_SIZE=2" << "MASTER_ADDR=127.0.0.1" << QString("MASTER_PORT=%1").arg(port);
      p->setEnvironment(env);
      p->start(QStringLiteral(STAVE_TRAIN_EXE), {"worker", "--config", cfg, "--run-dir", run});
      QVERIFY(p->waitForStarted(20000));
      ranks.push_back(std::move(p));
    }
    const auto events = [&] { return parseEvents(readText(run + "/events.jsonl")); };
    const auto rankOneSteps = [&] {
      int n = 0;
      for (const auto& e : eventsOf(events(), "step")) n += e["rank"].toInt() == 1;
      return n;
    };
    QTRY_VERIFY_WITH_TIMEOUT(rankOneSteps() > 0, 300000);  // the relay carries rank 1's steps

    // A process that is no rank: plain lines on the relay's port.
    const QByteArray fake =
        R"({"type":"validation","version":1,"rank":0,"time":1764680000,"data":{"epoch":45,"map50":0.991,"map50_95":0.9}})"
        "\n"
        R"({"type":"finished","version":1,"rank":0,"time":1764680001,"data":{"status":"completed","epochs_done":200}})"
        "\n";
    {
      const int fd = stave::test::connectLoopback(port + 1);
      QVERIFY(fd >= 0);
      QVERIFY(::send(fd, fake.data(), static_cast<size_t>(fake.size()), MSG_NOSIGNAL) > 0);
      char buf[256];
      // The relay closes the connection after its refusal.
      QTRY_VERIFY_WITH_TIMEOUT(::recv(fd, buf, sizeof buf, MSG_DONTWAIT) == 0, 20000);
      ::close(fd);
    }
    // From another network namespace (root only): the host's relay is not reachable there.
    if (::geteuid() == 0) checkRelayUnreachableFromAnotherNamespace(port + 1);

    // A peer with the key, as rank 1: an overflowing number and a lifecycle event.
    QProcess probe;
    probe.start(QStringLiteral(STAVE_RELAY_PROBE),
                {"127.0.0.1", QString::number(port + 1), "rank", "1", run,
                 R"({"type":"step","version":1,"rank":1,"time":1764680000,"data":{"loss":1e999}})",
                 R"({"type":"finished","version":1,"rank":1,"time":1764680000,"data":{"status":"completed"}})"});
    QVERIFY(probe.waitForFinished(60000));
    QVERIFY2(probe.exitCode() == 0, qPrintable(probe.readAllStandardError()));
    const auto warnedAbout = [&](const QString& text) {
      for (const auto& w : eventsOf(events(), "warning"))
        if (w["data"].toObject()["message"].toString().contains(text)) return true;
      return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(warnedAbout("event relay: refused 127.0.0.1:"), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(warnedAbout("rank 1 (127.0.0.1:") && warnedAbout("data.loss: not JSON: number out of range") &&
                                 warnedAbout("'finished' is written by node 0 only"),
                             20000);
    QVERIFY2(!readText(run + "/events.jsonl").contains("0.991"), "a fake result reached events.jsonl");
    QVERIFY(eventsOf(events(), "finished").isEmpty());
    // The run goes on: rank 1 connects again and its steps keep coming.
    const int before = rankOneSteps();
    QTRY_VERIFY_WITH_TIMEOUT(rankOneSteps() > before, 120000);
    for (auto& p : ranks) QCOMPARE(p->state(), QProcess::Running);

    for (auto& p : ranks) ::kill(static_cast<pid_t>(p->processId()), SIGTERM);
    for (auto& p : ranks) {
      QVERIFY2(p->waitForFinished(120000), "a rank did not stop");
      QVERIFY2(p->exitCode() == 0, qPrintable(p->readAllStandardError().right(2000)));
    }
    const auto finished = eventsOf(events(), "finished");
    QCOMPARE(finished.size(), 1);
    QCOMPARE(finished[0]["data"].toObject()["status"].toString(), QString("stopped"));
  }

 private:
  /// A network namespace of this test's own, joined to this host by a veth pair with addresses
  /// of its own: a connection from there to the host's side at `port` must fail (the relay
  /// listens on loopback only; before, on every interface, it was reachable).
  void checkRelayUnreachableFromAnotherNamespace(int port) {
    const auto ip = [](const QStringList& args) {
      QProcess p;
      p.start("ip", args);
      return p.waitForFinished(20000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
    };
    const QString ns = QString("stave%1r").arg(::getpid());
    const QString host = QString("stv%1h").arg(::getpid() % 100000);
    const QString peer = QString("stv%1p").arg(::getpid() % 100000);
    const int tag = static_cast<int>(::getpid() % 200) + 20;
    const QString hostAddr = QString("10.214.%1.1").arg(tag), nsAddr = QString("10.214.%1.2").arg(tag);
    if (!ip({"netns", "add", ns})) {
      qInfo("network namespaces are refused here: the namespace half of the relay check skipped");
      return;
    }
    const bool made = ip({"link", "add", host, "type", "veth", "peer", "name", peer}) &&
                      ip({"link", "set", peer, "netns", ns}) &&
                      ip({"addr", "add", hostAddr + "/24", "dev", host}) &&
                      ip({"link", "set", host, "up"}) &&
                      ip({"netns", "exec", ns, "ip", "addr", "add", nsAddr + "/24", "dev", peer}) &&
                      ip({"netns", "exec", ns, "ip", "link", "set", peer, "up"}) &&
                      ip({"netns", "exec", ns, "ip", "link", "set", "lo", "up"});
    QProcess p;
    if (made) {
      // Reachable at all: the veth answers (a refused connection, not a timeout) ...
      p.start("ip", {"netns", "exec", ns, "bash", "-c",
                     QString("exec 3<>/dev/tcp/%1/%2 && echo connected").arg(hostAddr).arg(port)});
      p.waitForFinished(30000);
    }
    const QString out = QString::fromUtf8(p.readAllStandardOutput());
    ip({"link", "del", host});
    ip({"netns", "del", ns});
    QVERIFY2(made, "could not set up the test's namespace and veth pair");
    QVERIFY2(!out.contains("connected"), "the relay was reachable from another network namespace");
  }

  QTemporaryDir m_dir;
  QString m_data;
};

QTEST_GUILESS_MAIN(TstTrainDist)
#include "tst_train_dist.moc"
