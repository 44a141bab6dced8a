#include "app/stave-train/train_command.h"

#include <filesystem>
#include <iostream>

#include "core/base/atomic_file.h"
#include "core/config/project.h"
#include "core/config/run_config.h"
#include "core/data/dataset.h"
#include "core/train/run_entry.h"
#include "core/train/run_folder.h"

namespace fs = std::filesystem;

namespace stave::cli {
using namespace stave::train;  // the engine this command drives
namespace {

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

/// Scans (and caches) the dataset once before the launcher starts the ranks, so that no rank
/// waits in a collective while another scans.
Status scanDatasetOnce(const config::RunConfig& cfg) {
  auto spec = data::loadDataYaml(cfg.getString("data"));
  if (!spec) return spec.errors();
  for (const char* split : {"train", "val"}) {
    auto scan = data::scanSplit(spec.value(), split);
    if (!scan) return scan.errors();
  }
  return Ok{};
}

/// Where this node's process stands in the run folder: node 0 (or a single node) takes it —
/// the lock, the run-folder and resume rules; a node other than 0 joins node 0's folder and
/// only needs its logs/ (run_entry.h: joinsNodeZero).
Status takeOrJoin(const config::RunConfig& cfg, const std::string& runDir, bool resume,
                  RunFolderLock& lock) {
  if (joinsNodeZero(cfg)) {
    std::error_code ec;
    fs::create_directories(fs::path(runDir) / "logs", ec);
    if (ec) return Error{runDir, 0, "", "cannot create logs/: " + ec.message()};
    std::cerr << "run folder: " << runDir << " (node " << cfg.getInt("node_rank")
              << " joins node 0's run there)\n";
    return Ok{};
  }
  auto taken = takeRunFolder(cfg, runDir, resume,
                             resume ? "stave-train train resume=true" : "stave-train train");
  if (!taken) return taken.errors();
  if (!taken->movedAside.empty())
    std::cerr << "exist_ok=true: the previous run in " << runDir << " was moved to "
              << taken->movedAside << "\n";
  std::cerr << "run folder: " << runDir << "\n";
  lock = std::move(taken->lock);
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
  RunFolderLock lock;  // held for the run's life
  if (auto s = takeOrJoin(cfg, runDir, resume, lock); !s) return printErrors("train", s.errors());

  const int nproc = static_cast<int>(cfg.getInt("nproc"));
  const int nnodes = static_cast<int>(cfg.getInt("nnodes"));
  if (nproc > 1 || nnodes > 1) {
    if (auto scanned = scanDatasetOnce(cfg); !scanned) return printErrors("train", scanned.errors());
    // Node 0's config.yaml, or logs/nodeK.config.yaml on a joining node: what its workers read.
    auto s = writeFileAtomic(nodeConfigPath(cfg, runDir), config::toYaml(cfg));
    if (!s) return printErrors("train", s.errors());
    return launchRun(cfg, runDir, cmd.executable, cmd.stopAfter);
  }

  return rankMain({cfg, runDir, dist::DistEnv{}, cmd.stopAfter, cmd.version});
}

int runWorkerCommand(const WorkerCommand& cmd) {
  auto cfg = config::loadRunConfig(cmd.configPath);
  if (!cfg) return printErrors("worker", cfg.errors());
  if (cmd.resume) cfg->set("resume", true);
  auto env = dist::DistEnv::fromEnvironment();
  if (!env) return printErrors("worker", env.errors());
  // Without the launcher (srun, torchrun) rank 0 keeps the run's event log and holds the run
  // folder (the launcher holds it otherwise).
  RunFolderLock lock;
  if (env->keepsRunLog()) {
    auto l = createAndLockRunFolder(cmd.runDir, "stave-train worker");
    if (!l) return printErrors("worker", l.errors());
    lock = std::move(l.value());
    // The run-folder rules of `train resume=true`, checked once (the other ranks wait for rank
    // 0 at the rendezvous and end with it when it refuses).
    if (cmd.resume)
      if (auto s = checkResume(cfg.value(), cmd.runDir, env->worldSize); !s)
        return printErrors("worker", s.errors());
  }
  return rankMain({cfg.value(), cmd.runDir, env.value(), cmd.stopAfter, cmd.version});
}

}  // namespace stave::cli
