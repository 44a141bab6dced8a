// Launcher failure tier: the real launcher drives fake_worker processes that finish, crash,
// hang, ignore SIGTERM or get killed with SIGKILL.
#include <QtTest>

#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <thread>

#include "core/distributed/launcher.h"
#include "core/telemetry/events.h"
#include "launch_test_util.h"

using namespace stave::dist;
using stave::dist::testing::Captured;
using stave::dist::testing::since;
using stave::dist::testing::testLaunchOptions;
using stave::signalName;

namespace {

LaunchOptions baseOptions(const QTemporaryDir& dir, Captured* cap, std::vector<std::string> modes,
                          int nproc) {
  std::vector<std::string> argv = {STAVE_FAKE_WORKER, "--steps", "4", "--interval-ms", "50",
                                   "--sync", dir.path().toStdString()};
  argv.insert(argv.end(), modes.begin(), modes.end());
  return testLaunchOptions(dir.path().toStdString(), cap, argv, nproc, 2);
}

int countLines(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) n += line.empty() ? 0 : 1;
  return n;
}

}  // namespace

class TstLauncher : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void finishes() {
    QTemporaryDir dir;
    Captured cap;
    auto o = baseOptions(dir, &cap, {"ok", "garbage"}, 2);
    auto r = launch(o);
    QCOMPARE(outcomeName(r.outcome), "finished");
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.masterPort > 0);
    // Every event carries a rank; the ok rank's steps had none and got theirs from the launcher.
    auto steps = cap.ofType("step");
    QCOMPARE(static_cast<int>(steps.size()), 4 + 1);
    for (const auto& s : steps) QVERIFY(s.contains("rank"));
    int rank0Steps = 0;
    for (const auto& s : steps) rank0Steps += s["rank"] == 0 ? 1 : 0;
    QCOMPARE(rank0Steps, 4);
    // Rank variables reached the workers.
    auto hellos = cap.ofType("hello");
    QCOMPARE(static_cast<int>(hellos.size()), 2);
    for (const auto& h : hellos) {
      const auto& env = h["data"]["env"];
      QCOMPARE(env["RANK"].get<std::string>(), std::to_string(h["rank"].get<int>()));
      QCOMPARE(env["WORLD_SIZE"].get<std::string>(), std::string("2"));
      QCOMPARE(env["LOCAL_WORLD_SIZE"].get<std::string>(), std::string("2"));
      QCOMPARE(env["MASTER_PORT"].get<std::string>(), std::to_string(r.masterPort));
    }
    QCOMPARE(static_cast<int>(cap.ofType("rank_exit").size()), 2);
    // events.jsonl holds what was multiplexed; stderr and the stray stdout line are in the logs.
    QCOMPARE(countLines(o.runDir + "/events.jsonl"), static_cast<int>(cap.events.size()));
    std::ifstream log1(o.runDir + "/logs/rank1.log");
    std::string text((std::istreambuf_iterator<char>(log1)), std::istreambuf_iterator<char>());
    QVERIFY(text.find("rank 1: log line 2") != std::string::npos);
    QVERIFY(text.find("[stdout] this is not json") != std::string::npos);
    QVERIFY(text.find("[bad event: version: event version 99") != std::string::npos);
  }

  // The launcher samples the node: a fake NVML with two GPUs gives gpu_sample events (both
  // GPUs, by index), /proc gives system_sample events naming each rank's process. Without NVML
  // there is one "no NVIDIA GPU" status and no error.
  void samplesTheNode() {
    QTemporaryDir dir;
    Captured cap;
    auto o = baseOptions(dir, &cap, {"--steps", "8", "--interval-ms", "100", "ok", "ok"}, 2);
    o.samplePeriodS = 0.1;
    o.nvmlLibrary = STAVE_FAKE_NVML;
    o.diskPath = dir.path().toStdString();
    auto r = launch(o);
    QCOMPARE(outcomeName(r.outcome), "finished");
    const auto gpu = cap.ofType("gpu_sample");
    QVERIFY2(gpu.size() >= 3, qPrintable(QString::number(gpu.size())));
    for (const auto& g : gpu) {
      QCOMPARE(g["rank"].get<int>(), -1);
      QCOMPARE(static_cast<int>(g["data"]["gpus"].size()), 2);
      QCOMPARE(g["data"]["gpus"][1]["index"].get<int>(), 1);
      QVERIFY(g["data"]["gpus"][0]["util"].is_number());
      QCOMPARE(g["data"]["gpus"][1]["pcie_rx_bps"].get<double>(), 2000.0 * 2 * 1024);
    }
    const auto sys = cap.ofType("system_sample");
    QVERIFY(sys.size() >= 3);
    const auto& last = sys[sys.size() / 2];
    QVERIFY(last["data"]["mem_total"].get<double>() > 0);
    QVERIFY(!last["data"]["cpu"].empty());
    QCOMPARE(static_cast<int>(last["data"]["ranks"].size()), 2);
    QVERIFY(last["data"]["ranks"][0]["rss"].get<double>() > 0);
    // Decoded by the one codec, as every reader does.
    auto typed = stave::telemetry::systemSampleFromEvent(stave::telemetry::decodeEvent(last.dump()).value());
    QVERIFY2(typed.ok(), typed.errorText().c_str());
    QCOMPARE(static_cast<int>(typed->ranks.size()), 2);

    QTemporaryDir dir2;
    Captured cap2;
    auto o2 = baseOptions(dir2, &cap2, {"ok"}, 1);
    o2.samplePeriodS = 0.1;
    o2.nvmlLibrary = "/nonexistent/libnvidia-ml.so.1";
    QCOMPARE(outcomeName(launch(o2).outcome), "finished");
    const auto none = cap2.ofType("gpu_sample");
    QCOMPARE(static_cast<int>(none.size()), 1);
    QVERIFY(none[0]["data"]["status"].get<std::string>().rfind("no NVIDIA GPU", 0) == 0);
    QVERIFY(cap2.ofType("error").empty());
    QVERIFY(!cap2.ofType("system_sample").empty());
  }

  void killedRankStopsRun() {
    // Rank 1 is killed with SIGKILL from outside; rank 0 plays a survivor blocked in a
    // collective that ignores SIGTERM, so only the SIGKILL escalation ends it.
    QTemporaryDir dir;
    Captured cap;
    auto o = baseOptions(dir, &cap, {"blocked", "forever"}, 2);
    auto inner = o.onEvent;
    std::atomic<bool> killed{false};
    o.onEvent = [&](const std::string& line) {
      inner(line);
      auto j = nlohmann::json::parse(line);
      if (j["type"] == "step" && j["rank"] == 1 && !killed.exchange(true)) {
        std::lock_guard<std::mutex> lock(cap.mutex);
        for (const auto& e : cap.events)
          if (e["type"] == "hello" && e["rank"] == 1) kill(e["data"]["pid"].get<int>(), SIGKILL);
      }
    };
    const auto t0 = std::chrono::steady_clock::now();
    auto r = launch(o);
    const double elapsed = since(t0);
    QVERIFY(killed.load());
    QCOMPARE(outcomeName(r.outcome), "crashed");
    QVERIFY(r.exitCode != 0);
    QCOMPARE(r.failedRank, 1);
    QVERIFY2(elapsed < 60, std::to_string(elapsed).c_str());
    QVERIFY2(elapsed < o.graceS + 10, std::to_string(elapsed).c_str());
    auto errors = cap.ofType("error");
    QCOMPARE(static_cast<int>(errors.size()), 1);
    const auto& e = errors[0];
    QCOMPARE(e["rank"].get<int>(), 1);
    const std::string msg = e["data"]["message"];
    QVERIFY2(msg.find("rank 1") != std::string::npos, msg.c_str());
    QVERIFY2(msg.find("SIGKILL") != std::string::npos, msg.c_str());
    QCOMPARE(e["data"]["signal"].get<int>(), static_cast<int>(SIGKILL));
    QCOMPARE(e["data"]["signal_name"].get<std::string>(), std::string("SIGKILL"));
    QVERIFY(!e["data"]["log_tail"].empty());
    QVERIFY(e["data"]["log_tail"].dump().find("rank 1: log line") != std::string::npos);
  }

  void failingExitCode() {
    QTemporaryDir dir;
    Captured cap;
    auto o = baseOptions(dir, &cap, {"forever", "exit3"}, 2);
    auto r = launch(o);
    QCOMPARE(outcomeName(r.outcome), "failed");
    QCOMPARE(r.exitCode, 1);
    QCOMPARE(r.failedRank, 1);
    QVERIFY(r.message.find("exit code 3") != std::string::npos);
    // Without an error event, the message quotes the rank's last log line.
    QVERIFY2(r.message.find("fatal: something broke") != std::string::npos, r.message.c_str());
    auto errors = cap.ofType("error");
    QCOMPARE(static_cast<int>(errors.size()), 1);
    QVERIFY(errors[0]["data"]["log_tail"].dump().find("fatal: something broke") !=
            std::string::npos);
    // Rank 0 handled the forwarded SIGTERM and exited cleanly.
    auto finished = cap.ofType("finished");
    QCOMPARE(static_cast<int>(finished.size()), 1);
  }

  // The rank's own error (here a full disk) is the cause the launcher reports, not only
  // "ended with exit code 1".
  void failingRankCarriesItsCause() {
    QTemporaryDir dir;
    Captured cap;
    auto o = baseOptions(dir, &cap, {"forever", "diskfull"}, 2);
    auto r = launch(o);
    QCOMPARE(outcomeName(r.outcome), "failed");
    QCOMPARE(r.failedRank, 1);
    QVERIFY2(r.message.find("exit code 1") != std::string::npos, r.message.c_str());
    QVERIFY2(r.message.find("No space left on device") != std::string::npos, r.message.c_str());
    bool launcherErrorHasCause = false;
    for (const auto& e : cap.ofType("error")) {
      const std::string m = e["data"]["message"].get<std::string>();
      if (m.find("ended with exit code 1") != std::string::npos)
        launcherErrorHasCause = m.find("No space left on device") != std::string::npos;
    }
    QVERIFY(launcherErrorHasCause);
  }

  void sigtermStopsGracefully() {
    QTemporaryDir dir;
    Captured cap;
    auto o = baseOptions(dir, &cap, {"forever"}, 2);
    o.handleSignals = true;
    LaunchResult r;
    std::thread runner([&] { r = launch(o); });
    // Once both ranks are stepping, stop the run the way a user or the GUI does.
    const auto t0 = std::chrono::steady_clock::now();
    while (cap.ofType("step").size() < 4 && since(t0) < 20)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    kill(getpid(), SIGTERM);
    runner.join();
    QCOMPARE(outcomeName(r.outcome), "stopped");
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(static_cast<int>(cap.ofType("finished").size()), 2);
    QCOMPARE(static_cast<int>(cap.ofType("error").size()), 0);
  }

  void secondSignalKills() {
    QTemporaryDir dir;
    Captured cap;
    auto o = baseOptions(dir, &cap, {"blocked"}, 2);
    o.handleSignals = true;
    LaunchResult r;
    std::thread runner([&] { r = launch(o); });
    const auto t0 = std::chrono::steady_clock::now();
    while (cap.ofType("hello").size() < 2 && since(t0) < 20)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    kill(getpid(), SIGINT);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    kill(getpid(), SIGINT);
    runner.join();
    QVERIFY(since(t0) < 20);
    QCOMPARE(outcomeName(r.outcome), "killed");
    QVERIFY(r.exitCode != 0);
  }

  void hangIsReported() {
    QTemporaryDir dir;
    Captured cap;
    auto o = baseOptions(dir, &cap, {"forever", "hang"}, 2);
    o.hangTimeoutS = 1.5;
    const auto t0 = std::chrono::steady_clock::now();
    auto r = launch(o);
    QVERIFY(since(t0) < 15);
    QCOMPARE(outcomeName(r.outcome), "timed_out");
    QCOMPARE(r.failedRank, 1);
    auto errors = cap.ofType("error");
    QCOMPARE(static_cast<int>(errors.size()), 1);
    const std::string msg = errors[0]["data"]["message"];
    QVERIFY2(msg.find("rank 1") != std::string::npos && msg.find("hung") != std::string::npos,
             msg.c_str());
  }

  // A rank stopped with SIGSTOP was silent for the whole nccl_timeout_s (30 min) without a
  // word: it is named (with its state) after 20 of its step intervals.
  void stoppedRankIsNamedEarly() {
    QTemporaryDir dir;
    Captured cap;
    auto o = baseOptions(dir, &cap, {"forever", "sigstop"}, 2);
    o.hangTimeoutS = 8;
    o.graceS = 1;
    o.silenceWarnMinS = 0.5;
    auto r = launch(o);
    QCOMPARE(outcomeName(r.outcome), "timed_out");
    bool named = false;
    for (const auto& w : cap.ofType("warning")) {
      const std::string m = w["data"]["message"];
      named = named || (m.find("rank 1") != std::string::npos &&
                        m.find("is stopped (SIGSTOP") != std::string::npos);
    }
    QVERIFY(named);
  }

  void stragglerNamed() {
    QTemporaryDir dir;
    Captured cap;
    auto o = baseOptions(dir, &cap, {"ok", "slowdata"}, 2);
    o.workerArgv = {STAVE_FAKE_WORKER, "--steps", "12", "--interval-ms", "50", "ok", "slowdata"};
    o.reportPeriodS = 0.25;
    auto r = launch(o);
    QCOMPARE(r.exitCode, 0);
    auto reports = cap.ofType("straggler");
    QVERIFY(!reports.empty());
    bool named = false;
    for (const auto& s : reports)
      named = named || (s["rank"] == 1 && s["data"]["slow_rank"] == 1 &&
                        s["data"]["waits_on"] == "data_wait");
    QVERIFY2(named, reports.front().dump().c_str());
  }

  void missingWorker() {
    QTemporaryDir dir;
    Captured cap;
    auto o = baseOptions(dir, &cap, {}, 1);
    o.workerArgv = {"/nonexistent/stave-worker"};
    auto r = launch(o);
    QCOMPARE(outcomeName(r.outcome), "failed");
    QVERIFY(r.message.find("could not be executed") != std::string::npos);
  }

  // A launch that cannot start its ranks says why in the run folder's events.jsonl (an error
  // of rank -1 and a failed final event, with catalog ids), not only in its result.
  void startFailureIsWrittenToEvents() {
    QTemporaryDir dir;
    Captured cap;
    auto o = baseOptions(dir, &cap, {}, 1);
    o.nnodes = 2;
    o.nodeRank = 0;
    o.masterPort = 0;  // "pick a free port" cannot work across nodes
    QVERIFY(QDir().mkpath(QString::fromStdString(o.runDir)));  // made by the train command
    const auto r = launch(o);
    QCOMPARE(outcomeName(r.outcome), "failed_to_start");
    QCOMPARE(r.text.size(), size_t(2));  // "master_port: " and the reason
    QCOMPARE(r.text[1].id, std::string("launcher.port_zero_nodes"));
    std::ifstream in(o.runDir + "/events.jsonl");
    std::vector<nlohmann::json> events;
    for (std::string line; std::getline(in, line);) events.push_back(nlohmann::json::parse(line));
    QCOMPARE(events.size(), size_t(2));
    QCOMPARE(events[0]["type"].get<std::string>(), std::string("error"));
    QCOMPARE(events[0]["data"]["outcome"].get<std::string>(), std::string("failed_to_start"));
    QCOMPARE(events[0]["data"]["message"].get<std::string>(), r.message);
    QCOMPARE(events[0]["data"]["message_text"][1]["msg_id"].get<std::string>(), std::string("launcher.port_zero_nodes"));
    QCOMPARE(events[1]["type"].get<std::string>(), std::string("finished"));
    QCOMPARE(events[1]["data"]["status"].get<std::string>(), std::string("failed"));
  }

  void freePorts() {
    auto a = findFreePort();
    auto b = findFreePort();
    QVERIFY(a.ok() && b.ok());
    QVERIFY(a.value() > 0 && b.value() > 0);
    QCOMPARE(QString::fromStdString(signalName(SIGKILL)), QString("SIGKILL"));
  }
};

QTEST_GUILESS_MAIN(TstLauncher)
#include "tst_launcher.moc"
