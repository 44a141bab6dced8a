#pragma once
// The launcher: torchrun for one node. Starts N worker processes with the rank variables,
// multiplexes their JSON-lines events, keeps their logs and supervises them (a dead or hung
// rank stops the run within a bounded time; SIGTERM/SIGINT stop it gracefully). No torch.

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/base/signal_name.h"

namespace stave::dist {

/// How a run ended.
enum class RunOutcome {
  FailedToStart,  ///< a worker could not be started (or bad options)
  Finished,       ///< every rank exited 0
  Stopped,        ///< stopped on request (SIGTERM/SIGINT) and every rank ended cleanly
  Failed,         ///< a rank exited with a non-zero code
  Crashed,        ///< a rank was ended by a signal it did not ask for (e.g. SIGKILL, SIGSEGV)
  TimedOut,       ///< a rank sent no event for hangTimeoutS (hung), or did not stop in time
  Killed,         ///< a second SIGTERM/SIGINT killed every rank at once
};

/// "finished", "stopped", "failed", "crashed", "timed_out", "killed", "failed_to_start".
const char* outcomeName(RunOutcome outcome);

/// Options of one launch.
struct LaunchOptions {
  std::vector<std::string> workerArgv;     ///< one worker's command line; argv[0] looked up in PATH
  int nproc = 1;                           ///< ranks on this node
  int nnodes = 1;                          ///< nodes in the run
  int nodeRank = 0;                        ///< this node's index (global rank = nodeRank*nproc+k)
  std::string masterAddr = "127.0.0.1";    ///< rendezvous host (rank 0's node)
  int masterPort = 0;                      ///< rendezvous port; 0 = pick a free one (1 node only)
  std::string runDir;                      ///< gets events.jsonl and logs/rank<k>.log ("" = none)
  std::string eventsFile;                  ///< where the events go ("" = runDir/events.jsonl)
  bool tensorboard = false;                ///< also write runDir/tb/ (TensorBoard event files)
  double samplePeriodS = 0;                ///< gpu_sample / system_sample every this long (0 = off)
  std::string nvmlLibrary = "libnvidia-ml.so.1";  ///< NVML to load for gpu_sample (tests: a fake)
  std::string diskPath;                    ///< system_sample reports the reads of this path's disk
  std::map<std::string, std::string> env;  ///< extra environment of every rank
  double hangTimeoutS = 1800;              ///< a rank silent this long is hung (nccl_timeout_s)
  /// A training rank silent for 20 of its step intervals, and at least this long, is named in
  /// a warning event (once per silence) long before hangTimeoutS.
  double silenceWarnMinS = 30;
  /// With several nodes: a rank that has not started training (no run_start) this long after
  /// its launch is named in a warning: usually a node that has not joined the rendezvous.
  double startWarnS = 60;
  double graceS = 10;                      ///< SIGTERM to SIGKILL when stopping after a failure
  double stopTimeoutS = 600;               ///< after a forwarded stop request, SIGKILL after this
  double reportPeriodS = 30;               ///< straggler and diagnosis period (0 = final only)
  bool doctor = true;                      ///< diagnosis events every period and at the end
  int metricsPort = 0;                     ///< serve Prometheus metrics here (0 = off)
  std::string metricsAddress = "127.0.0.1";  ///< address of the metrics port
  int logTailLines = 20;                   ///< log lines quoted in an error event
  bool echoStdout = true;                  ///< write every event line to stdout
  bool handleSignals = true;               ///< catch SIGTERM/SIGINT while running (then restore)
  std::function<void(const std::string&)> onEvent;  ///< called with each event line (tests, GUI)
};

/// The outcome of a launch.
struct LaunchResult {
  RunOutcome outcome = RunOutcome::FailedToStart;  ///< how it ended
  int exitCode = 1;                                ///< 0 for finished and stopped, else 1
  int failedRank = -1;  ///< the rank that failed, crashed or hung, else -1
  std::string message;  ///< the cause in words ("" when finished)
  TextParts text;       ///< `message` as catalog messages where it has them (a failed start)
  int masterPort = 0;   ///< the port the ranks used
};

/// Runs the workers to the end and reports how it went. Events written by the launcher
/// itself: rank_exit (each rank), error (the failing rank, its exit code or signal name and
/// its last log lines), warning (stop requested), straggler and diagnosis (every reportPeriodS),
/// a final diagnosis at the end. A metrics port that cannot be bound fails the launch before
/// any rank starts.
LaunchResult launch(const LaunchOptions& options);

/// launch() and return its exit code.
int runLauncher(const LaunchOptions& options);

/// A port that is free on `host` now (the kernel's choice for bind(port 0)).
Result<int> findFreePort(const std::string& host = "127.0.0.1");

}  // namespace stave::dist
