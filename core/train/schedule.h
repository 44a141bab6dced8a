#pragma once
// Learning-rate, momentum and accumulation schedule of a run, as pure functions of the
// iteration. No torch: the trainer applies the numbers to the optimiser's parameter groups.

#include <array>
#include <cstdint>

#include "core/config/run_config.h"
#include "core/config/schema.h"

namespace stave::train {

/// Index of each optimiser parameter group, and so results.csv's lr/pg0..pg2. The order is
/// Ultralytics 8.0-8.3's (biases first); 8.4 lists weights, BatchNorm weights, biases, so its
/// lr/pg0 and lr/pg2 trade places with Stave's during warmup (after warmup all three share one
/// lr). Kept because checkpoints store the optimiser state in this order.
enum ParamGroupIndex : int {
  kGroupBias = 0,       ///< all biases, no weight decay; warms up from warmup_bias_lr
  kGroupWeight = 1,     ///< conv/linear weights, with weight decay
  kGroupNormWeight = 2  ///< BatchNorm weights, no weight decay
};

/// Everything the schedule needs; built from the run's config.
struct ScheduleOptions {
  /// base learning rate (already scaled with the batch if asked)
  double lr0 = config::defaultNumber("lr0");
  /// final lr as a fraction of lr0
  double lrf = config::defaultNumber("lrf");
  /// SGD momentum / Adam beta1 after warmup
  double momentum = config::defaultNumber("momentum");
  /// warmup length in epochs (0 = no warmup)
  double warmupEpochs = config::defaultNumber("warmup_epochs");
  /// momentum at the start of warmup
  double warmupMomentum = config::defaultNumber("warmup_momentum");
  /// bias-group lr at the start of warmup
  double warmupBiasLr = config::defaultNumber("warmup_bias_lr");
  /// cosine one-cycle instead of linear decay
  bool cosine = config::defaultNumber("cos_lr") != 0;
  /// planned epochs (the decay reaches lrf at this epoch)
  int epochs = static_cast<int>(config::defaultNumber("epochs"));
  int64_t itersPerEpoch = 1;       ///< batches per epoch per rank
  int64_t accumulate = 1;          ///< micro-batches per step after warmup (runAccumulate())
  bool momentumWarmup = true;      ///< false for Adam-style optimisers (no 'momentum' key)
};

/// Micro-batches per optimiser step after warmup, as Ultralytics 8.4 sets it: derive()'s
/// `accumulate` (nbs / global batch, rounded), capped at the run's batches (`itersPerEpoch` x
/// `epochs`) so that a run shorter than one accumulation still takes an optimiser step. A run
/// whose length a time limit sets is not capped (its epochs are an estimate).
int64_t runAccumulate(int64_t accumulate, int64_t itersPerEpoch, int epochs, bool timeLimited);

/// Learning rate per group, momentum and accumulation for one iteration.
struct SchedulePoint {
  std::array<double, 3> lr{};  ///< per ParamGroupIndex
  double momentum = 0;         ///< for SGD groups (ignored by AdamW)
  int accumulate = 1;          ///< micro-batches per optimiser step at this iteration
  bool warmup = false;         ///< this iteration is inside warmup
};

/// The schedule: lr(epoch) = lr0 * lf(epoch), with a linear warmup on top.
class Schedule {
 public:
  explicit Schedule(const ScheduleOptions& options);
  /// lf(epoch): linear ((1 - e/epochs)(1 - lrf) + lrf) or cosine one-cycle to lrf.
  double lambda(int epoch) const;
  /// Number of warmup iterations, as Ultralytics 8.4: round(min(warmup_epochs, epochs - 1) *
  /// iters); 0 when off. Iterations 0..warmupIterations() (inclusive) are inside warmup.
  int64_t warmupIterations() const { return m_warmupIters; }
  /// Values for iteration `iter` of `epoch` (0-based).
  SchedulePoint at(int epoch, int64_t iter) const;
  const ScheduleOptions& options() const { return m_options; }

 private:
  ScheduleOptions m_options;
  int64_t m_warmupIters = 0;
};

// optimizer=auto and the lr / weight-decay scaling: config::derive() (core/config/run_config.h).

}  // namespace stave::train
