#pragma once
// Overlapped gradient all-reduce, as PyTorch DDP does it: gradients are packed into buckets
// (reverse registration order, about bucket_mb each); autograd hooks mark each parameter's
// gradient ready during backward and a bucket's all-reduce starts as soon as it is full, while
// backward goes on. wait() before the optimiser step waits for the rest.

#include <torch/torch.h>

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/distributed/process_group.h"

namespace stave::dist {

/// Timing of gradient synchronisation, cumulative since construction plus the last step.
struct SyncStats {
  int64_t syncSteps = 0;           ///< wait() calls that all-reduced
  int buckets = 0;                 ///< number of buckets
  int64_t launchedInBackward = 0;  ///< bucket all-reduces started by hooks during backward
  int64_t launchedInWait = 0;      ///< started in wait() (unused parameters, no backward)
  double lastAllreduceS = 0;       ///< last step: first launch to last completion
  double lastWaitS = 0;            ///< last step: time wait() blocked on all-reduces
  double totalAllreduceS = 0;      ///< sum of lastAllreduceS over steps
  double totalWaitS = 0;           ///< sum of lastWaitS over steps

  /// Share of all-reduce time hidden behind backward: 1 - wait / all-reduce, in [0, 1].
  double overlapRatio() const {
    if (totalAllreduceS <= 0) return 0;
    double r = 1.0 - totalWaitS / totalAllreduceS;
    return r < 0 ? 0 : (r > 1 ? 1 : r);
  }
};

/// Averages gradients over the ranks of a ProcessGroup with communication overlapping
/// backward. Usage per optimiser step:
///   for each micro-step: setSyncEnabled(last); prepareForBackward(); loss.backward();
///   double waitS = sync.wait(); optimizer.step();
/// Every rank must register the same parameters in the same order (identical models).
class GradientSync {
 public:
  /// Buckets `params` (those requiring grad; leaf tensors) of about `bucketMb` MiB each, in
  /// reverse order, and installs the readiness hooks.
  GradientSync(ProcessGroup& group, std::vector<torch::Tensor> params, double bucketMb = 25.0);
  /// Size of the first bucket (the first gradients backward produces), capped by bucketMb.
  static constexpr double kFirstBucketMb = 1.0;
  /// Removes the hooks and stops the completion watcher.
  ~GradientSync();
  GradientSync(const GradientSync&) = delete;
  GradientSync& operator=(const GradientSync&) = delete;

  /// False on gradient-accumulation micro-steps: hooks do nothing and gradients accumulate
  /// locally; the micro-step with sync enabled all-reduces the accumulated gradient.
  void setSyncEnabled(bool enabled);
  /// Whether the next backward synchronises.
  bool syncEnabled() const;
  /// Resets per-step readiness; call before each backward (it is also reset by wait()).
  void prepareForBackward();
  /// Launches buckets whose gradients never became ready (unused parameters count as zero),
  /// waits for every bucket, copies the averaged gradients back into param.grad() and returns
  /// the seconds spent blocked. Returns 0 without communicating when sync is disabled.
  double wait();
  /// Timing so far.
  SyncStats stats() const;
  /// Number of buckets and the parameter indices (registration order) of each, for tests.
  std::vector<std::vector<size_t>> bucketLayout() const;

 private:
  struct Bucket;
  struct Launch;
  class ReadyHook;
  friend class ReadyHook;

  void markReady(size_t paramIndex);
  void fillSlot(size_t paramIndex);
  void launchInOrderLocked(bool fromHook);
  void resetStepLocked();
  void watchLoop();

  ProcessGroup& m_group;
  std::vector<torch::Tensor> m_params;
  std::vector<std::unique_ptr<Bucket>> m_buckets;
  std::vector<size_t> m_bucketOf, m_slotOf;
  std::vector<bool> m_ready;
  std::vector<std::shared_ptr<torch::autograd::Node>> m_accumulators;
  std::vector<uintptr_t> m_hookKeys;
  size_t m_nextBucket = 0;
  bool m_syncEnabled = true;
  SyncStats m_stats;
  mutable std::mutex m_mutex;

  // The watcher records when each launched all-reduce completes, so the all-reduce time is
  // measured independently of when wait() happens to look.
  std::mutex m_watchMutex;
  std::condition_variable m_watchCv, m_doneCv;
  std::deque<std::shared_ptr<Launch>> m_watchQueue;
  size_t m_launched = 0, m_completed = 0;
  bool m_stop = false;
  std::thread m_watcher;
};

}  // namespace stave::dist
