#pragma once
// The two things the train/worker commands need from core/distributed, kept apart so that the
// trainer's command logic does not depend on how ranks are started.

#include <string>

#include "core/base/result.h"
#include "core/config/run_config.h"
#include "core/train/trainer.h"
#if __has_include("core/distributed/launcher.h")
#include "core/distributed/launcher.h"
#endif

namespace stave::cli {

/// This worker's place in the run (torchrun variables, then Slurm's, else a single rank).
struct WorkerIdentity {
  int rank = 0, localRank = 0, worldSize = 1, localWorldSize = 1;
  std::string masterAddr = "127.0.0.1";
  int masterPort = 0;
};

/// Reads the identity from the environment; errors name the variable.
Result<WorkerIdentity> workerIdentity();

#if __has_include("core/distributed/launcher.h")
/// What the launcher is given for `runDir`: the worker command line, ranks and rendezvous,
/// telemetry, the doctor's report period, the metrics endpoint and the hang timeout.
dist::LaunchOptions launchOptions(const config::RunConfig& config, const std::string& runDir,
                                  const std::string& executable,
                                  const train::StopAfter& stopAfter);
#endif

/// Starts config.nproc `stave-train worker` processes for `runDir` through the launcher and
/// supervises them; returns the launcher's exit code.
int launchRanks(const config::RunConfig& config, const std::string& runDir,
                const std::string& executable, const train::StopAfter& stopAfter);

}  // namespace stave::cli
