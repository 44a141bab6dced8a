#include "core/train/run_entry.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "core/telemetry/event_sink.h"
#include "core/train/checkpoint.h"
#include "core/train/rank_relay.h"

namespace stave::train {
namespace fs = std::filesystem;

namespace {

std::atomic<bool> g_stop{false};
std::atomic<bool> g_atRendezvous{false};

extern "C" void onStopSignal(int sig) {
  // Waiting at the rendezvous for ranks that may never come: nothing to checkpoint, and the
  // wait cannot see a flag, so stop at once. Otherwise the first signal finishes the step,
  // checkpoints and stops; a second stops at once.
  if (g_atRendezvous.load() || g_stop.exchange(true)) std::_Exit(128 + sig);
}

void installStopHandlers() {
  struct sigaction sa {};
  sa.sa_handler = onStopSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
}

/// How long a rank asked to stop may go without progress (no training step, no validation
/// batch) before it ends without a checkpoint: blocked in a collective whose peer is gone, or
/// waiting for a loader that delivers nothing. STAVE_STOP_GRACE_S sets it (seconds > 0).
double stopGraceSeconds() {
  if (const char* v = std::getenv("STAVE_STOP_GRACE_S"); v && *v) {
    char* end = nullptr;
    const double s = std::strtod(v, &end);
    if (end && *end == '\0' && s > 0 && s <= 86400) return s;
  }
  return kStopGraceS;
}

/// After a stop request, watches the rank's progress: work that goes on (steps, validation
/// batches) or the stop agreed by every rank disarms it; `grace` seconds without either end the
/// process with the stopped outcome (128 + SIGTERM, as a stop at the rendezvous), after
/// `onBlocked` said why. A stopped rank so never keeps its launcher, Slurm or the studio
/// waiting for the collective timeout.
class StopWatchdog {
 public:
  StopWatchdog(const std::atomic<bool>& stop, const std::atomic<bool>& agreed,
               const std::atomic<int64_t>& progress, const std::atomic<int>& busy, double grace,
               std::function<void(double)> onBlocked)
      : m_thread([this, &stop, &agreed, &progress, &busy, grace, onBlocked = std::move(onBlocked)] {
          using Clock = std::chrono::steady_clock;
          std::unique_lock<std::mutex> lock(m_mutex);
          std::optional<Clock::time_point> since;  // the stop request, or the last progress
          int64_t seen = 0;
          while (!m_done) {
            m_wake.wait_for(lock, std::chrono::milliseconds(100));
            if (m_done || agreed.load()) return;
            if (!stop.load()) continue;
            const int64_t now = progress.load();
            if (!since || now != seen || busy.load() > 0) since = Clock::now(), seen = now;
            const double idle = std::chrono::duration<double>(Clock::now() - *since).count();
            if (idle >= grace) {
              onBlocked(idle);
              std::_Exit(128 + SIGTERM);
            }
          }
        }) {}
  ~StopWatchdog() {
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_done = true;
    }
    m_wake.notify_all();
    m_thread.join();
  }
  StopWatchdog(const StopWatchdog&) = delete;
  StopWatchdog& operator=(const StopWatchdog&) = delete;

 private:
  std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_done = false;
  std::thread m_thread;  // last: it starts once the members above exist
};

int printErrors(const std::vector<Error>& errors) {
  std::cerr << "stave-train: " << errors.size() << (errors.size() == 1 ? " problem" : " problems")
            << ":\n";
  for (const auto& e : errors) std::cerr << "  " << e.toString() << "\n";
  return kTrainBadInput;
}

/// What the process that keeps a run's log runs beside its rank: the event log's files, the
/// node's samples, the doctor and the metrics endpoint (fed every event the sink writes, a
/// diagnosis every report period from its own thread and, from finish(), the final report).
class RunLogKeeper {
 public:
  RunLogKeeper(const config::RunConfig& config, const dist::DistEnv& env, telemetry::EventSink& sink)
      : m_sink(sink),
        m_node(nodeTelemetryOptions(config, env), [&sink](telemetry::Event e) { sink.write(e); }) {}

  Status start(const config::RunConfig& config, const std::string& runDir) {
    if (auto s = m_sink.openFile((fs::path(runDir) / "events.jsonl").string()); !s) return s;
    if (config.getBool("tensorboard"))
      if (auto s = m_sink.openTensorBoard((fs::path(runDir) / "tb").string()); !s) return s;
    auto m = telemetry::RunMonitor::create(runMonitorOptions(config, runDir, 0));
    if (!m) return m.errors();
    m_monitor = std::move(m.value());
    if (m_monitor->server()) std::cerr << "metrics on " << m_monitor->server()->url() << "\n";
    telemetry::RunMonitor* monitor = m_monitor.get();
    m_sink.setObserver([monitor](const telemetry::Event& e) { monitor->observe(e); });
    m_monitor->startTimer([this](const telemetry::Event& e) { m_sink.write(e); });
    m_node.setProcesses({{0, static_cast<int>(getpid())}});
    m_node.start();
    return Ok{};
  }

  /// Shows the doctor and the metrics an event written as it came (another rank's, relayed).
  /// Another node's samples (rank -1, from that node's first rank) reach the doctor only: this
  /// process's metrics endpoint exports its own node's gauges, which they would overwrite.
  void observe(const telemetry::Event& e) {
    if (m_monitor) m_monitor->observe(e, e.rank >= 0);
  }

  /// Stops sampling and writes the final report; the endpoint keeps serving until destruction.
  void finish() {
    if (!m_monitor) return;
    m_node.stop();
    m_monitor->stopTimer();
    m_sink.write(m_monitor->finalReport());
  }

  ~RunLogKeeper() {
    if (m_monitor) m_sink.setObserver(nullptr);
  }

 private:
  telemetry::EventSink& m_sink;
  telemetry::NodeTelemetry m_node;
  std::unique_ptr<telemetry::RunMonitor> m_monitor;
};

}  // namespace

int rankMain(const RankStart& start) {
  installStopHandlers();
  // Under the launcher stderr is this rank's log file: LibTorch's backtraces belong there.
  if (start.env.underLauncher()) setCheckpointBacktraces(true);
  const std::string runDir = fs::absolute(start.runDir).lexically_normal().string();
  telemetry::EventSink sink(stdout, start.env.rank);
  RunLogKeeper keeper(start.config, start.env, sink);
  if (start.env.keepsRunLog())
    if (auto s = keeper.start(start.config, runDir); !s) return printErrors(s.errors());
  // srun or torchrun: the other ranks' events reach rank 0's events.jsonl through the relay,
  // and so do the other nodes' samples, taken by each node's first rank.
  RankRelay relay;
  std::optional<telemetry::NodeTelemetry> otherNode;
  if (RankRelay::needed(start.env)) {
    if (start.env.rank == 0) {
      relay.serve(start.env, runDir, sink,
                  [&keeper](const telemetry::Event& e) { keeper.observe(e); });
    } else {
      relay.sendFrom(start.env, runDir, sink);
      if (start.env.samplesOtherNode()) {
        otherNode.emplace(nodeTelemetryOptions(start.config, start.env),
                          [&sink](telemetry::Event e) { sink.write(e); });
        otherNode->setProcesses({{start.env.rank, static_cast<int>(getpid())}});
        otherNode->start();
      }
    }
  }
  TrainOptions options;
  options.config = start.config;
  options.runDir = runDir;
  options.sink = &sink;
  options.dist = start.env;
  options.stopAfter = start.stopAfter;
  options.stopRequested = &g_stop;
  options.atRendezvous = &g_atRendezvous;
  std::atomic<int64_t> progress{0};
  std::atomic<bool> stopAgreed{false};
  std::atomic<int> busy{0};
  options.progress = &progress;
  options.busy = &busy;
  options.stopAgreed = &stopAgreed;
  options.version = start.version;
  Trainer trainer(options);
  int rc = kTrainOk;
  {
    const int rank = start.env.rank;
    StopWatchdog watchdog(
        g_stop, stopAgreed, progress, busy, stopGraceSeconds(), [&sink, rank](double idle) {
          const Text msg("train.stop_blocked", {{"rank", std::to_string(rank)},
                                                {"seconds", std::to_string(static_cast<int>(idle + 0.5))}});
          std::fprintf(stderr, "%s\n", english(msg).c_str());
          if (rank == 0) {
            telemetry::FinishedEvent f;
            f.status = telemetry::RunStatus::Stopped;
            f.text = {msg};
            f.message = english(msg);
            sink.write(telemetry::toEvent(f, 0));
          } else {
            telemetry::WarningEvent w{english(msg), "stop"};
            w.text = {msg};
            sink.write(telemetry::toEvent(w, rank));
          }
        });
    rc = trainer.run();
  }
  if (otherNode) otherNode->stop();  // its last sample still goes out with the relay's queue
  relay.stop();  // the other ranks' last events first: the final report sees them
  keeper.finish();
  return rc;
}

const std::vector<config::FieldBinding<telemetry::NodeTelemetryOptions>>& nodeTelemetryBindings() {
  using O = telemetry::NodeTelemetryOptions;
  static const std::vector<config::FieldBinding<O>> table{{"sample_period_s", &O::periodS}};
  return table;
}

const std::vector<config::FieldBinding<telemetry::RunMonitorOptions>>& runMonitorBindings() {
  using O = telemetry::RunMonitorOptions;
  static const std::vector<config::FieldBinding<O>> table{
      {"report_period_s", &O::reportPeriodS},
      {"metrics_port", &O::metricsPort},
      {"metrics_addr", &O::metricsAddress},
  };
  return table;
}

const std::vector<config::FieldBinding<dist::LaunchOptions>>& launchBindings() {
  using O = dist::LaunchOptions;
  static const std::vector<config::FieldBinding<O>> table{
      {"nproc", &O::nproc},
      {"nnodes", &O::nnodes},
      {"node_rank", &O::nodeRank},
      {"master_addr", &O::masterAddr},
      {"master_port", &O::masterPort},
      {"tensorboard", &O::tensorboard},
      {"nccl_timeout_s", &O::hangTimeoutS},
  };
  return table;
}

telemetry::NodeTelemetryOptions nodeTelemetryOptions(const config::RunConfig& config,
                                                     const dist::DistEnv& env) {
  telemetry::NodeTelemetryOptions o;
  config::applyBindings(config, nodeTelemetryBindings(), o);
  o.diskPath = fs::path(config.getString("data")).parent_path().string();
  o.node = env.node;
  o.nodes = env.nodes;
  return o;
}

telemetry::RunMonitorOptions runMonitorOptions(const config::RunConfig& config,
                                               const std::string& runDir, int rank) {
  telemetry::RunMonitorOptions mo;
  config::applyBindings(config, runMonitorBindings(), mo);
  mo.runName = fs::path(runDir).filename().string();
  mo.rank = rank;
  return mo;
}

bool joinsNodeZero(const config::RunConfig& config) {
  return config.getInt("nnodes") > 1 && config.getInt("node_rank") > 0;
}

std::string nodeConfigPath(const config::RunConfig& config, const std::string& runDir) {
  if (!joinsNodeZero(config)) return (fs::path(runDir) / "config.yaml").string();
  return (fs::path(runDir) / "logs" /
          ("node" + std::to_string(config.getInt("node_rank")) + ".config.yaml"))
      .string();
}

dist::LaunchOptions launchOptions(const config::RunConfig& config, const std::string& runDir,
                                  const std::string& executable, const StopAfter& stopAfter) {
  dist::LaunchOptions lo;
  lo.workerArgv = {executable, "worker", "--config", nodeConfigPath(config, runDir),
                   "--run-dir", runDir};
  for (const auto& [flag, n] : {std::pair{"--stop-after", stopAfter.epochs},
                                std::pair{"--stop-after-batches", stopAfter.batches}}) {
    if (n <= 0) continue;
    lo.workerArgv.push_back(flag);
    lo.workerArgv.push_back(std::to_string(n));
  }
  config::applyBindings(config, launchBindings(), lo);
  lo.runDir = runDir;
  if (joinsNodeZero(config)) {
    // Node 0 keeps the run's events.jsonl and tb/ (this node's rank events reach it through the
    // relay); this node's own copy goes beside its rank logs.
    lo.eventsFile = (fs::path(runDir) / "logs" /
                     ("node" + std::to_string(lo.nodeRank) + ".events.jsonl"))
                        .string();
    lo.tensorboard = false;
  }
  // Telemetry, doctor and metrics endpoint as a single-process run takes them.
  const auto node = nodeTelemetryOptions(config);
  lo.samplePeriodS = node.periodS;
  lo.diskPath = node.diskPath;
  const auto monitor = runMonitorOptions(config, runDir, 0);
  lo.reportPeriodS = monitor.reportPeriodS;
  lo.metricsPort = monitor.metricsPort;
  lo.metricsAddress = monitor.metricsAddress;
  return lo;
}

int launchRun(const config::RunConfig& config, const std::string& runDir,
              const std::string& executable, const StopAfter& stopAfter) {
  return dist::runLauncher(launchOptions(config, runDir, executable, stopAfter));
}

}  // namespace stave::train
