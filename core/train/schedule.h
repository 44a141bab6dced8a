#pragma once
// Learning-rate, momentum and accumulation schedule of a run, as pure functions of the
// iteration. No torch: the trainer applies the numbers to the optimiser's parameter groups.

#include <array>
#include <cstdint>

namespace stave::train {

/// Index of each optimiser parameter group. The order is Ultralytics' (biases first), so
/// results.csv's lr/pg0..pg2 mean the same thing as theirs.
enum ParamGroupIndex : int {
  kGroupBias = 0,       ///< all biases, no weight decay; warms up from warmup_bias_lr
  kGroupWeight = 1,     ///< conv/linear weights, with weight decay
  kGroupNormWeight = 2  ///< BatchNorm weights, no weight decay
};

/// Everything the schedule needs; built from the run's config.
struct ScheduleOptions {
  double lr0 = 0.01;               ///< base learning rate (already scaled with the batch if asked)
  double lrf = 0.01;               ///< final lr as a fraction of lr0
  double momentum = 0.937;         ///< SGD momentum / Adam beta1 after warmup
  double warmupEpochs = 3.0;       ///< warmup length in epochs (0 = no warmup)
  double warmupMomentum = 0.8;     ///< momentum at the start of warmup
  double warmupBiasLr = 0.1;       ///< bias-group lr at the start of warmup
  bool cosine = false;             ///< cosine one-cycle instead of linear decay
  int epochs = 100;                ///< planned epochs (the decay reaches lrf at this epoch)
  int64_t itersPerEpoch = 1;       ///< batches per epoch per rank
  double nominalAccumulate = 1.0;  ///< nbs / global batch (accumulation after warmup)
  bool momentumWarmup = true;      ///< false for Adam-style optimisers (no 'momentum' key)
};

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
  /// Number of warmup iterations: max(round(warmup_epochs * iters), 100), or -1 when off.
  int64_t warmupIterations() const { return m_warmupIters; }
  /// Values for iteration `iter` of `epoch` (0-based).
  SchedulePoint at(int epoch, int64_t iter) const;
  const ScheduleOptions& options() const { return m_options; }

 private:
  ScheduleOptions m_options;
  int64_t m_warmupIters = -1;
};

/// Weight decay scaled as Ultralytics does: weight_decay * batch * accumulate / nbs.
double scaledWeightDecay(double weightDecay, int64_t globalBatch, int64_t accumulate, int64_t nbs);

/// What optimizer=auto resolves to.
struct OptimizerChoice {
  bool sgd = true;          ///< SGD (Nesterov) when true, AdamW otherwise
  double lr0 = 0.01;        ///< learning rate to use
  double momentum = 0.9;    ///< momentum / beta1
  bool autoChosen = false;  ///< picked by 'auto' (then warmup_bias_lr is forced to 0)
};

/// Resolves `optimizer` ("auto", "SGD", "AdamW", case-insensitive) as Ultralytics documents:
/// auto with more than 10000 iterations -> SGD lr 0.01 momentum 0.9, else AdamW with
/// lr = round(0.002 * 5 / (4 + nc), 6), momentum 0.9. `iterations` = ceil(images /
/// max(global batch, nbs)) * epochs. Throws InternalError on an unknown name (validated earlier).
OptimizerChoice chooseOptimizer(const char* name, double lr0, double momentum, int64_t iterations,
                                int nc);

}  // namespace stave::train
