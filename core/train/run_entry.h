#pragma once
// How a run starts in a process, in one place. One rank (rankMain): the single-process run of
// `stave-train train`, a rank started by Stave's launcher, or one started by srun or torchrun;
// they differ only in who keeps the run's event log (DistEnv::keepsRunLog). Several ranks on
// this node (launchRun): Stave's launcher, given what the run config asks for.

#include <string>

#include "core/config/binding.h"
#include "core/config/run_config.h"
#include "core/distributed/dist_env.h"
#include "core/distributed/launcher.h"
#include "core/telemetry/node_telemetry.h"
#include "core/telemetry/run_monitor.h"
#include "core/train/trainer.h"

namespace stave::train {

/// What one rank is started with.
struct RankStart {
  config::RunConfig config = config::RunConfig::defaults();  ///< the resolved run config
  std::string runDir;     ///< the run folder (made absolute here)
  dist::DistEnv env;      ///< who this process is (DistEnv{} for a single-process run)
  StopAfter stopAfter;    ///< --stop-after / --stop-after-batches
  std::string version;    ///< Stave's version, for run_start
};

/// Seconds a rank asked to stop may go without progress (no training step, no validation batch)
/// before it ends without a checkpoint (STAVE_STOP_GRACE_S overrides it).
inline constexpr double kStopGraceS = 60.0;

/// Trains one rank to its end and returns Trainer::run's exit code. SIGTERM and SIGINT become
/// a graceful stop (finish the step, checkpoint, `stopped`; a second signal ends at once); a
/// rank that makes no progress for kStopGraceS after the request (blocked in a collective whose
/// peer is gone, or in the data loader) ends then, rank 0 writing a `stopped` finished event
/// that says so, with exit code 128 + SIGTERM. The
/// rank that keeps the run's log (env.keepsRunLog()) writes events.jsonl and TensorBoard,
/// samples its node and runs the doctor and the metrics endpoint; under the launcher every rank
/// writes its events to stdout for the launcher, and LibTorch's backtraces go to its log file.
int rankMain(const RankStart& start);

/// The run-config keys each option struct below takes as they are (binding tables: a key is
/// read by name in one place; tests/unit/train/tst_every_setting.cpp checks them). What the
/// functions below derive (the dataset's disk, the run's name, the worker command line) is not
/// in them.
const std::vector<config::FieldBinding<telemetry::NodeTelemetryOptions>>& nodeTelemetryBindings();
const std::vector<config::FieldBinding<telemetry::RunMonitorOptions>>& runMonitorBindings();
const std::vector<config::FieldBinding<dist::LaunchOptions>>& launchBindings();

/// A run's node telemetry (sample period, the dataset's disk) from its config; the node's
/// index and the run's node count from `env` (a rank under srun/torchrun).
telemetry::NodeTelemetryOptions nodeTelemetryOptions(const config::RunConfig& config,
                                                     const dist::DistEnv& env = {});

/// A run's doctor and metrics endpoint (report period, port, address) from its config.
telemetry::RunMonitorOptions runMonitorOptions(const config::RunConfig& config,
                                               const std::string& runDir, int rank);

/// True for a node other than node 0 of a multi-node run: it joins node 0's run folder (the
/// same path, on storage the nodes share) rather than taking it — no lock, no config.yaml,
/// events.jsonl or tb/ of its own there; its files are logs/rankN.log and
/// logs/node<K>.{config.yaml,events.jsonl}.
bool joinsNodeZero(const config::RunConfig& config);
/// The config file this node's workers read: config.yaml, or logs/node<K>.config.yaml on a
/// joining node.
std::string nodeConfigPath(const config::RunConfig& config, const std::string& runDir);

/// What the launcher is given for `runDir`: the worker command line (`executable worker
/// --config <runDir>/config.yaml --run-dir <runDir>`), ranks and rendezvous, telemetry, the
/// doctor's report period, the metrics endpoint and the hang timeout.
dist::LaunchOptions launchOptions(const config::RunConfig& config, const std::string& runDir,
                                  const std::string& executable, const StopAfter& stopAfter);

/// Starts this node's ranks of `runDir` (config.nproc `stave-train worker` processes, the
/// config written to <runDir>/config.yaml beforehand) through the launcher and supervises
/// them; returns the launcher's exit code.
int launchRun(const config::RunConfig& config, const std::string& runDir,
              const std::string& executable, const StopAfter& stopAfter);

}  // namespace stave::train
