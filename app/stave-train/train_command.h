#pragma once
// The logic behind `stave-train train` and `stave-train worker`: resolve the config (file,
// project or a run to resume) and take the run folder (core/train/run_folder), then train in
// this process (one rank) or prepare the dataset once and start the launcher (several ranks),
// both through core/train/run_entry. No torch here.

#include <string>
#include <vector>

#include "core/train/trainer.h"

namespace stave::cli {

/// What `stave-train train` was asked to do.
struct TrainCommand {
  std::string configPath;              ///< CONFIG.yaml ("" with a project or a resume)
  std::string projectPath;             ///< --project FILE
  std::string configName;              ///< --config NAME inside the project ("" = active)
  std::vector<std::string> overrides;  ///< key=value
  std::string runDir;      ///< --run-dir ("" = runs/<name> beside the config or project)
  int nproc = 0;           ///< --nproc (0 = the config's)
  int nnodes = 0;          ///< --nnodes (0 = the config's)
  int nodeRank = -1;       ///< --node-rank (-1 = the config's)
  std::string masterAddr;  ///< --master-addr ("" = the config's)
  int masterPort = -1;     ///< --master-port (-1 = the config's)
  train::StopAfter stopAfter;     ///< --stop-after / --stop-after-batches: stop resumably
  std::string version;     ///< Stave's version
  std::string executable;  ///< path of stave-train (the launcher starts workers with it)
};

/// Runs `stave-train train`; returns the process exit code.
int runTrainCommand(const TrainCommand& command);

/// What `stave-train worker` was asked to do (identity comes from the environment).
struct WorkerCommand {
  std::string configPath;  ///< --config: the resolved config (runs/<id>/config.yaml)
  std::string runDir;      ///< --run-dir
  bool resume = false;     ///< --resume: resume=true
  train::StopAfter stopAfter;     ///< --stop-after / --stop-after-batches
  std::string version;     ///< Stave's version
};

/// Runs one rank (`stave-train worker`); returns the process exit code.
int runWorkerCommand(const WorkerCommand& command);

}  // namespace stave::cli
