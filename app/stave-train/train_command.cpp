#include "app/stave-train/train_command.h"
#include "core/telemetry/node_telemetry.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "core/base/atomic_file.h"
#include "core/config/project.h"
#include "core/config/run_config.h"
#include "core/config/run_lock.h"
#include "core/data/dataset.h"
#include "core/telemetry/event_sink.h"
#include "core/telemetry/run_monitor.h"
#include "core/train/checkpoint.h"
#include "app/stave-train/launch_bridge.h"
#include "core/train/trainer.h"

namespace fs = std::filesystem;

namespace stave::cli {
using namespace stave::train;  // the engine this command drives
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

int printErrors(const std::string& what, const std::vector<Error>& errors) {
  std::cerr << "stave-train " << what << ": " << errors.size()
            << (errors.size() == 1 ? " problem" : " problems") << ":\n";
  for (const auto& e : errors) std::cerr << "  " << e.toString() << "\n";
  return 2;
}

/// Whether the command line asks to resume: `resume=...` parses as every bool setting does
/// (true/false, yes/no, 1/0; an unreadable value is an error naming the key), a bare `resume`
/// means true.
Result<bool> wantsResume(const std::vector<std::string>& overrides) {
  config::RunConfig probe = config::RunConfig::defaults();
  std::vector<std::string> resumeOnly;
  for (const auto& o : overrides)
    if (o.rfind("resume=", 0) == 0) resumeOnly.push_back(o);
  if (auto s = config::applyOverrides(probe, resumeOnly); !s) return s.errors();
  return probe.getBool("resume");
}

std::vector<std::string> withoutBareResume(const std::vector<std::string>& overrides) {
  std::vector<std::string> out;
  for (const auto& o : overrides) out.push_back(o == "resume" ? "resume=true" : o);
  return out;
}


/// The doctor and the metrics endpoint of a run whose event log this process keeps itself (no
/// launcher): fed every event the sink writes, a diagnosis every report period from its own
/// thread and, from finish(), the final report.
class SingleProcessMonitor {
 public:
  Status start(const config::RunConfig& cfg, const std::string& runDir, telemetry::EventSink& sink,
               int rank) {
    auto m = telemetry::RunMonitor::create(runMonitorOptions(cfg, runDir, rank));
    if (!m) return m.errors();
    m_monitor = std::move(m.value());
    m_sink = &sink;
    if (m_monitor->server())
      std::cerr << "metrics on " << m_monitor->server()->url() << "\n";
    telemetry::RunMonitor* monitor = m_monitor.get();
    sink.setObserver([monitor](const telemetry::Event& e) { monitor->observe(e); });
    m_monitor->startTimer([&sink](const telemetry::Event& e) { sink.write(e); });
    return Ok{};
  }
  /// Writes the final report; the endpoint keeps serving until destruction.
  void finish() {
    if (!m_monitor) return;
    m_monitor->stopTimer();
    m_sink->write(m_monitor->finalReport());
  }
  ~SingleProcessMonitor() {
    if (m_sink) m_sink->setObserver(nullptr);
  }

 private:
  std::unique_ptr<telemetry::RunMonitor> m_monitor;
  telemetry::EventSink* m_sink = nullptr;
};

/// `data` given relative to the config file is found beside it (as users expect when they move
/// a config and its dataset together); otherwise it stays relative to the working directory.
void resolveDataPath(config::RunConfig& cfg, const std::string& configPath) {
  std::string data = cfg.getString("data");
  if (data.empty() || fs::path(data).is_absolute()) return;
  if (!configPath.empty()) {
    fs::path beside = fs::path(configPath).parent_path() / data;
    if (fs::exists(beside)) {
      cfg.set("data", fs::absolute(beside).lexically_normal().string());
      return;
    }
  }
  if (fs::exists(data)) cfg.set("data", fs::absolute(data).lexically_normal().string());
}

/// The files that show a folder already holds a run.
bool holdsRun(const fs::path& dir) {
  std::error_code ec;
  for (const char* f : {"events.jsonl", "config.yaml", "results.csv", "weights/last.pt",
                        "weights/best.pt"})
    if (fs::exists(dir / f, ec)) return true;
  return false;
}

/// Renames a folder that holds a run to <folder>-replaced-<UTC time> beside it, so a new run
/// starts empty and nothing of the old one is overwritten or mixed in.
Result<std::string> moveRunAside(const fs::path& dir) {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  fs::path target = dir.string() + "-replaced-" + stamp;
  for (int i = 2; fs::exists(target); ++i)
    target = dir.string() + "-replaced-" + stamp + "-" + std::to_string(i);
  std::error_code ec;
  fs::rename(dir, target, ec);
  if (ec) return Error{dir.string(), 0, "exist_ok", "cannot move the old run aside: " + ec.message()};
  return target.string();
}

/// A resume continues the run its checkpoint holds: refused when the request changes a key that
/// cannot change mid-run (the list names each with both values), or asks for no more epochs
/// than are done. Reads only; nothing is written before the run is accepted.
Status checkResume(const config::RunConfig& requested, const fs::path& runDir) {
  const std::string ckpt = (runDir / "weights" / "last.pt").string();
  auto meta = readCheckpointMeta(ckpt);
  if (!meta) {
    // Never fall back silently: say which other checkpoint of the run is intact, if any.
    std::vector<Error> errors = meta.errors();
    std::string intact;
    std::error_code ec;
    for (fs::directory_iterator it(runDir / "weights", ec), end; !ec && it != end;
         it.increment(ec)) {
      const fs::path p = it->path();
      if (p.extension() != ".pt" || p.filename() == "last.pt") continue;
      if (auto m = readCheckpointMeta(p.string()))
        intact += (intact.empty() ? "" : ", ") + p.filename().string() + " (epoch " +
                  std::to_string(m->epoch + 1) + ")";
    }
    errors.push_back(Error{
        ckpt, 0, "resume",
        intact.empty()
            ? "cannot resume: no other checkpoint of this run is intact"
            : "cannot resume from it; intact in " + (runDir / "weights").string() + ": " + intact +
                  ". To continue from one, move last.pt aside, copy that file to last.pt and "
                  "resume again (training since that epoch is lost)"});
    return errors;
  }
  auto saved = config::parseRunConfigYaml(meta->configYaml, ckpt + " (its run config)");
  if (!saved) return saved.errors();
  std::vector<std::string> changed;
  for (const auto& p : config::runConfigSchema()) {
    if (config::resumeMayChange(p.name)) continue;
    const auto& a = saved->get(p.name);
    const auto& b = requested.get(p.name);
    if (p.name == std::string("model") &&
        config::modelScale(std::get<std::string>(a)) == config::modelScale(std::get<std::string>(b)))
      continue;
    if (a != b)
      changed.push_back(std::string(p.name) + " (" + config::formatValue(a) + " -> " +
                        config::formatValue(b) + ")");
  }
  if (!meta->scale.empty() &&
      config::modelScale(meta->scale) != config::modelScale(requested.getString("model")))
    changed.push_back("model architecture (checkpoint: yolov8" + config::modelScale(meta->scale) +
                      ")");
  if (!changed.empty()) {
    std::string list;
    for (const auto& c : changed) list += (list.empty() ? "" : ", ") + c;
    return Error{(runDir / "config.yaml").string(), 0, "resume",
                 "a resumed run cannot change " + list +
                     "; only epochs, time, patience, validation, checkpoint, loader and "
                     "rendezvous settings may change (start a new run for the rest)"};
  }
  // The dataset's class count is the model's head: a changed one cannot be resumed (LibTorch
  // refused it with a backtrace when the weights were loaded).
  if (auto spec = data::loadDataYaml(requested.getString("data")); spec && meta->nc > 0) {
    const int64_t nc = requested.getBool("single_cls") ? 1 : spec->nc();
    if (nc != meta->nc)
      return Error{requested.getString("data"), 0, "names",
                   "the dataset now has " + std::to_string(nc) + " classes, the run was trained "
                   "with " + std::to_string(meta->nc) + " (" + ckpt +
                       "); a resumed run keeps its classes: start a new run (pretrained=" +
                       ckpt + " transfers the matching weights)"};
  }
  if (meta->epoch + 1 >= requested.getInt("epochs"))
    return Error{(runDir / "config.yaml").string(), 0, "epochs",
                 "the run already trained " + std::to_string(meta->epoch + 1) + " of " +
                     std::to_string(requested.getInt("epochs")) +
                     " epochs; resume with a larger epochs=N to extend it"};
  return Ok{};
}

}  // namespace

int runTrainCommand(const TrainCommand& cmd) {
  const auto overrides = withoutBareResume(cmd.overrides);
  const auto wanted = wantsResume(overrides);
  if (!wanted) return printErrors("train", wanted.errors());
  const bool resume = wanted.value();
  config::RunConfig cfg = config::RunConfig::defaults();
  std::string beside = ".";
  if (resume) {
    // A resumed run keeps the config it was started with; key=value may change e.g. epochs.
    if (cmd.runDir.empty()) {
      return printErrors(
          "train", {Error{"command line", 0, "resume", "resuming needs --run-dir runs/<id>"}});
    }
    auto r = config::loadRunConfigWithOverrides((fs::path(cmd.runDir) / "config.yaml").string(),
                                                overrides);
    if (!r) return printErrors("train", r.errors());
    cfg = r.value();
  } else if (!cmd.projectPath.empty()) {
    auto project = config::loadProject(cmd.projectPath);
    if (!project) return printErrors("train", project.errors());
    auto r = config::resolveProjectConfig(project.value(), cmd.configName, overrides);
    if (!r) return printErrors("train", r.errors());
    cfg = r.value();
    beside = project->folder();
  } else if (cmd.configPath.empty()) {
    // Ultralytics' form: `train data=coco.yaml model=yolov8s epochs=50`: the schema's defaults
    // and the overrides, the run folder under ./runs (train, train2, ...).
    if (overrides.empty()) {
      return printErrors(
          "train", {Error{"command line", 0, "",
                          "give a CONFIG.yaml, --project FILE, key=value settings (at least "
                          "data=path/to/data.yaml), or --run-dir with resume=true"}});
    }
    if (auto s = config::applyOverrides(cfg, overrides); !s) return printErrors("train", s.errors());
    resolveDataPath(cfg, "");
  } else {
    auto r = config::loadRunConfigWithOverrides(cmd.configPath, overrides);
    if (!r) return printErrors("train", r.errors());
    cfg = r.value();
    resolveDataPath(cfg, cmd.configPath);
    beside = fs::path(cmd.configPath).parent_path().string();
    if (beside.empty()) beside = ".";
  }
  if (cmd.nproc > 0) cfg.set("nproc", int64_t{cmd.nproc});
  if (cmd.nnodes > 0) cfg.set("nnodes", int64_t{cmd.nnodes});
  if (cmd.nodeRank >= 0) cfg.set("node_rank", int64_t{cmd.nodeRank});
  if (!cmd.masterAddr.empty()) cfg.set("master_addr", cmd.masterAddr);
  if (cmd.masterPort >= 0) cfg.set("master_port", int64_t{cmd.masterPort});
  if (auto errors = config::validate(cfg); !errors.empty()) return printErrors("train", errors);
  if (cfg.getString("data").empty()) {
    return printErrors(
        "train", {Error{cmd.configPath.empty() ? "command line" : cmd.configPath, 0, "data", "no dataset: set data=path/to/data.yaml"}});
  }

  std::string runDir = cmd.runDir.empty() ? chooseRunDir(cfg, beside) : cmd.runDir;
  runDir = fs::absolute(runDir).lexically_normal().string();
  // The run folder belongs to this process for the run's life (released by the kernel when
  // the process ends, however it ends); a folder that a live run holds is refused whatever
  // was asked (resume, exist_ok, a fresh run into the same --run-dir).
  RunFolderLock lock;
  const std::string lockCommand = resume ? "stave-train train resume=true" : "stave-train train";
  if (resume) {
    auto l = RunFolderLock::acquire(runDir, lockCommand);
    if (!l) return printErrors("train", l.errors());
    lock = std::move(l.value());
    if (auto s = checkResume(cfg, runDir); !s) return printErrors("train", s.errors());
  } else if (holdsRun(runDir)) {
    if (auto live = RunFolderLock::holder(runDir))
      return printErrors("train", {Error{runDir, 0, "run-dir",
                                         "is in use by a live run: " + live->describe() +
                                             "; neither exist_ok nor a new run may take a live "
                                             "run's folder. Stop that run first, or choose "
                                             "another folder"}});
    // Never mix a second run into a folder that holds one (its last.pt, best.pt, events).
    if (!cfg.getBool("exist_ok")) {
      return printErrors(
          "train", {Error{runDir, 0, "run-dir",
                          "already holds a run; resume it with resume=true, choose another "
                          "folder, or pass exist_ok=true to move the old run aside and start "
                          "afresh"}});
    }
    auto moved = moveRunAside(runDir);
    if (!moved) return printErrors("train", moved.errors());
    std::cerr << "exist_ok=true: the previous run in " << runDir << " was moved to "
              << moved.value() << "\n";
  }
  std::error_code ec;
  fs::create_directories(fs::path(runDir) / "weights", ec);
  if (ec)
    return printErrors("train",
                       {Error{runDir, 0, "", "cannot create the run folder: " + ec.message()}});
  if (!lock.held()) {
    // Two fresh runs into one empty --run-dir: the second one to get here is refused.
    auto l = RunFolderLock::acquire(runDir, lockCommand);
    if (!l) return printErrors("train", l.errors());
    lock = std::move(l.value());
  }
  std::cerr << "run folder: " << runDir << "\n";

  const int nproc = static_cast<int>(cfg.getInt("nproc"));
  const int nnodes = static_cast<int>(cfg.getInt("nnodes"));
  if (nproc > 1 || nnodes > 1) {
    // Scan (and cache) the dataset once, so that no rank waits in a collective while another
    // scans, then hand over to the launcher.
    auto spec = data::loadDataYaml(cfg.getString("data"));
    if (!spec) return printErrors("train", spec.errors());
    for (const char* split : {"train", "val"}) {
      auto scan = data::scanSplit(spec.value(), split);
      if (!scan) return printErrors("train", scan.errors());
    }
    auto s = writeFileAtomic((fs::path(runDir) / "config.yaml").string(), config::toYaml(cfg));
    if (!s) return printErrors("train", s.errors());
    return launchRanks(cfg, runDir, cmd.executable, cmd.stopAfter);
  }

  installStopHandlers();
  telemetry::EventSink sink(stdout, 0);
  if (auto s = sink.openFile((fs::path(runDir) / "events.jsonl").string()); !s) {
    return printErrors("train", s.errors());
  }
  if (cfg.getBool("tensorboard")) {
    if (auto s = sink.openTensorBoard((fs::path(runDir) / "tb").string()); !s)
      return printErrors("train", s.errors());
  }
  // The node's GPU and system samples go into the same event log (no launcher here).
  SingleProcessMonitor monitor;
  if (auto s = monitor.start(cfg, runDir, sink, 0); !s) return printErrors("train", s.errors());
  telemetry::NodeTelemetry node(nodeTelemetryOptions(cfg), [&sink](telemetry::Event e) { sink.write(e); });
  node.setProcesses({{0, static_cast<int>(getpid())}});
  node.start();
  TrainOptions options;
  options.config = cfg;
  options.runDir = runDir;
  options.sink = &sink;
  options.stopAfter = cmd.stopAfter;
  options.stopRequested = &g_stop;
  options.atRendezvous = &g_atRendezvous;
  options.version = cmd.version;
  Trainer trainer(options);
  const int rc = trainer.run();
  node.stop();
  monitor.finish();
  return rc;
}

int runWorkerCommand(const WorkerCommand& cmd) {
  auto cfg = config::loadRunConfig(cmd.configPath);
  if (!cfg) return printErrors("worker", cfg.errors());
  auto env = workerIdentity();
  if (!env) return printErrors("worker", env.errors());
  installStopHandlers();
  telemetry::EventSink sink(stdout, env->rank);
  // Without the launcher (e.g. srun) rank 0 keeps the run's event log itself, and holds the
  // run folder (the launcher holds it otherwise).
  RunFolderLock lock;
  if (env->rank == 0 && !std::getenv("STAVE_LAUNCHER")) {
    std::error_code ec;
    fs::create_directories(cmd.runDir, ec);
    auto l = RunFolderLock::acquire(cmd.runDir, "stave-train worker");
    if (!l) return printErrors("worker", l.errors());
    lock = std::move(l.value());
    if (auto s = sink.openFile((fs::path(cmd.runDir) / "events.jsonl").string()); !s) {
      return printErrors("worker", s.errors());
    }
    if (cfg->getBool("tensorboard")) {
      if (auto s = sink.openTensorBoard((fs::path(cmd.runDir) / "tb").string()); !s)
        return printErrors("worker", s.errors());
    }
  }
  // Without the launcher rank 0 also samples its node (the launcher does it otherwise).
  telemetry::NodeTelemetry node(nodeTelemetryOptions(cfg.value()),
                                [&sink](telemetry::Event e) { sink.write(e); });
  SingleProcessMonitor monitor;
  const bool keepsLog = env->rank == 0 && !std::getenv("STAVE_LAUNCHER");
  if (keepsLog) {
    if (auto s = monitor.start(cfg.value(), cmd.runDir, sink, 0); !s)
      return printErrors("worker", s.errors());
    node.setProcesses({{0, static_cast<int>(getpid())}});
    node.start();
  }
  TrainOptions options;
  options.config = cfg.value();
  options.runDir = fs::absolute(cmd.runDir).lexically_normal().string();
  options.sink = &sink;
  options.rank = env->rank;
  options.localRank = env->localRank;
  options.worldSize = env->worldSize;
  options.localWorldSize = env->localWorldSize;
  options.masterAddr = env->masterAddr;
  options.masterPort = env->masterPort;
  options.stopAfter = cmd.stopAfter;
  options.stopRequested = &g_stop;
  options.atRendezvous = &g_atRendezvous;
  options.version = cmd.version;
  Trainer trainer(options);
  const int rc = trainer.run();
  if (keepsLog) {
    node.stop();
    monitor.finish();
  }
  return rc;
}

telemetry::NodeTelemetryOptions nodeTelemetryOptions(const config::RunConfig& cfg) {
  telemetry::NodeTelemetryOptions o;
  o.periodS = cfg.getFloat("sample_period_s");
  o.diskPath = fs::path(cfg.getString("data")).parent_path().string();
  return o;
}

telemetry::RunMonitorOptions runMonitorOptions(const config::RunConfig& cfg,
                                               const std::string& runDir, int rank) {
  telemetry::RunMonitorOptions mo;
  mo.reportPeriodS = cfg.getFloat("report_period_s");
  mo.runName = fs::path(runDir).filename().string();
  mo.metricsPort = static_cast<int>(cfg.getInt("metrics_port"));
  mo.metricsAddress = cfg.getString("metrics_addr");
  mo.rank = rank;
  return mo;
}

}  // namespace stave::cli
