#pragma once
// The training loop of one rank: data, model, loss, optimiser, AMP, EMA, validation,
// checkpoints, results.csv and events. Single process or one rank of a distributed run.
// No torch in this header, so the command files that drive it compile quickly.

#include <atomic>
#include <memory>
#include <string>

#include "core/base/result.h"
#include "core/config/run_config.h"
#include "core/distributed/dist_env.h"

namespace stave::telemetry {
class EventSink;
}

namespace stave::train {

/// How to run one rank's training.
/// Resumable stops a run can be asked for: after this many epochs or batches trained by this
/// process (0 = no limit); the run ends with status stopped and resume=true continues it.
struct StopAfter {
  int epochs = 0;   ///< --stop-after N
  int batches = 0;  ///< --stop-after-batches N
};

struct TrainOptions {
  config::RunConfig config = config::RunConfig::defaults();  ///< resolved run config
  std::string runDir;                    ///< runs/<id>: config.yaml, results.csv, weights/, events
  telemetry::EventSink* sink = nullptr;  ///< where events go (not owned); nullptr = nowhere
  /// Who this process is: rank, world size, rank and ranks on this machine (the GPU it takes,
  /// how threads=0 divides the cores) and the rendezvous address (world size > 1).
  dist::DistEnv dist;
  StopAfter stopAfter;  ///< resumable stops asked for (--stop-after, --stop-after-batches)
  const std::atomic<bool>* stopRequested = nullptr;  ///< set by SIGTERM/SIGINT: stop gracefully
  /// True while the rank waits at the rendezvous for the others (a node that may never come):
  /// it cannot act on a stop request there and has nothing to checkpoint, so the signal
  /// handler ends the process at once.
  std::atomic<bool>* atRendezvous = nullptr;
  /// Counted up at every training step and validation batch: what a stop request's watchdog
  /// watches to tell a rank that works towards the stop from one that is blocked.
  std::atomic<int64_t>* progress = nullptr;
  /// Above 0 while a checkpoint is written (work that counts no step or batch, however long
  /// the storage takes).
  std::atomic<int>* busy = nullptr;
  /// Set once every rank agreed to stop (the checkpoint and the finished event come next).
  std::atomic<bool>* stopAgreed = nullptr;
  std::string version;                               ///< Stave's version, for run_start
};

/// Exit codes of Trainer::run (stave::cli's values).
enum TrainExit : int {
  kTrainOk = 0,        ///< completed, early-stopped or stopped on request
  kTrainFailed = 1,    ///< the run failed (error event written)
  kTrainBadInput = 2,  ///< config or dataset unusable (error event written)
};

/// Fitness used for early stopping: 0.1 mAP50 + 0.9 mAP50-95 (Ultralytics).
inline double fitness(double map50, double map5095) {
  return 0.1 * map50 + 0.9 * map5095;
}

/// One rank's training run.
class Trainer {
 public:
  explicit Trainer(TrainOptions options);
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;
  /// Runs to the end (or stop / failure); every outcome is also a `finished` or `error` event.
  int run();

 private:
  struct Impl;
  std::unique_ptr<Impl> m;
};

}  // namespace stave::train
