#include "app/stave-train/launch_bridge.h"
#include "app/stave-train/train_command.h"

#include <filesystem>
#include <iostream>

#if __has_include("core/distributed/launcher.h")
#include "core/distributed/dist_env.h"
#include "core/distributed/launcher.h"
#define STAVE_TRAIN_HAVE_DIST 1
#endif

namespace stave::cli {
using namespace stave::train;  // the engine this command drives

#ifdef STAVE_TRAIN_HAVE_DIST

Result<WorkerIdentity> workerIdentity() {
  auto env = dist::DistEnv::fromEnvironment();
  if (!env) return env.errors();
  WorkerIdentity id;
  id.rank = env->rank;
  id.localRank = env->localRank;
  id.worldSize = env->worldSize;
  id.localWorldSize = env->localWorldSize;
  id.masterAddr = env->masterAddr;
  id.masterPort = env->masterPort;
  return id;
}

dist::LaunchOptions launchOptions(const config::RunConfig& config, const std::string& runDir,
                                  const std::string& executable, const StopAfter& stopAfter) {
  dist::LaunchOptions lo;
  lo.workerArgv = {executable,  "worker",
                   "--config",  (std::filesystem::path(runDir) / "config.yaml").string(),
                   "--run-dir", runDir};
  for (const auto& [flag, n] : {std::pair{"--stop-after", stopAfter.epochs},
                                std::pair{"--stop-after-batches", stopAfter.batches}}) {
    if (n <= 0) continue;
    lo.workerArgv.push_back(flag);
    lo.workerArgv.push_back(std::to_string(n));
  }
  lo.nproc = static_cast<int>(config.getInt("nproc"));
  lo.nnodes = static_cast<int>(config.getInt("nnodes"));
  lo.nodeRank = static_cast<int>(config.getInt("node_rank"));
  lo.masterAddr = config.getString("master_addr");
  lo.masterPort = static_cast<int>(config.getInt("master_port"));
  lo.runDir = runDir;
  lo.tensorboard = config.getBool("tensorboard");
  // Telemetry, doctor and metrics endpoint as a single-process run would take them.
  const auto node = nodeTelemetryOptions(config);
  lo.samplePeriodS = node.periodS;
  lo.diskPath = node.diskPath;
  lo.env["STAVE_LAUNCHER"] = "1";  // the launcher keeps events.jsonl, not rank 0
  lo.hangTimeoutS = static_cast<double>(config.getInt("nccl_timeout_s"));
  const auto monitor = runMonitorOptions(config, runDir, 0);
  lo.reportPeriodS = monitor.reportPeriodS;
  lo.metricsPort = monitor.metricsPort;
  lo.metricsAddress = monitor.metricsAddress;
  return lo;
}

int launchRanks(const config::RunConfig& config, const std::string& runDir,
                const std::string& executable, const StopAfter& stopAfter) {
  return dist::runLauncher(launchOptions(config, runDir, executable, stopAfter));
}

#else  // no core/distributed in this build

Result<WorkerIdentity> workerIdentity() {
  return WorkerIdentity{};
}

int launchRanks(const config::RunConfig&, const std::string&, const std::string&, int) {
  std::cerr
      << "stave-train train: several ranks need the launcher, which this build does not have\n";
  return 1;
}

#endif

}  // namespace stave::cli
