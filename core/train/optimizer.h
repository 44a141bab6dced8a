#pragma once
// Optimiser construction with Ultralytics' three parameter groups, and the EMA of weights.

#include <torch/torch.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "core/train/schedule.h"

namespace stave::train {

/// How to build the optimiser (after optimizer=auto is resolved and the decay scaled).
struct OptimizerSpec {
  bool sgd = true;            ///< SGD with Nesterov momentum when true, AdamW otherwise
  /// initial learning rate of every group
  double lr0 = config::defaultNumber("lr0");
  /// SGD momentum or AdamW beta1
  double momentum = config::defaultNumber("momentum");
  /// applied to kGroupWeight only
  double weightDecay = config::defaultNumber("weight_decay");
};

/// A model's parameters split into the three groups (see ParamGroupIndex).
struct ParamGroups {
  std::array<std::vector<torch::Tensor>, 3> params;  ///< indexed by ParamGroupIndex
  std::array<std::vector<std::string>, 3> names;     ///< the matching parameter names
};

/// Splits parameters as Ultralytics does: a name containing "bias" -> biases; a weight of a
/// normalisation module -> norm weights; every other weight -> decayed weights.
ParamGroups splitParameters(torch::nn::Module& model);

/// Builds SGD (Nesterov) or AdamW over `groups`, in ParamGroupIndex order.
std::unique_ptr<torch::optim::Optimizer> buildOptimizer(const ParamGroups& groups,
                                                        const OptimizerSpec& spec);

/// One optimiser step of `optimizer` (built by buildOptimizer: SGD or AdamW) as multi-tensor
/// (foreach) operations, a few kernels per group instead of several per parameter. The
/// arithmetic and the state it keeps (momentum buffers; AdamW's step, exp_avg, exp_avg_sq) are
/// those of LibTorch's own step(), so checkpoints and resumes do not change.
void foreachStep(torch::optim::Optimizer& optimizer);

/// Zeroes the gradients of every parameter in `optimizer` in place (one foreach kernel per
/// dtype). LibTorch 2's zero_grad() drops them instead, which would make every backward
/// allocate them anew and the checkpoint lose pending accumulated gradients.
void zeroGradients(torch::optim::Optimizer& optimizer);

/// Sets every group's lr (and SGD momentum / AdamW beta1) from a schedule point.
void applySchedulePoint(torch::optim::Optimizer& optimizer, const SchedulePoint& point);

/// Current learning rate of group `g`.
double groupLr(const torch::optim::Optimizer& optimizer, int g);

/// Exponential moving average of a model's parameters and floating-point buffers, with the
/// usual ramp: decay = 0.9999 * (1 - exp(-updates / 2000)).
class ModelEma {
 public:
  /// `ema` must have the same structure as the trained model; its weights are replaced by
  /// the model's on the first call of reset().
  explicit ModelEma(std::shared_ptr<torch::nn::Module> ema, double decay = 0.9999,
                    double tau = 2000.0);
  /// Copies the model's weights into the EMA and sets updates to 0.
  void reset(torch::nn::Module& model);
  /// One EMA step after an optimiser step.
  void update(torch::nn::Module& model);
  /// The decay the next update() will use.
  double nextDecay() const;
  int64_t updates() const { return m_updates; }
  void setUpdates(int64_t updates) { m_updates = updates; }
  torch::nn::Module& module() { return *m_ema; }
  std::shared_ptr<torch::nn::Module> modulePtr() const { return m_ema; }

 private:
  std::shared_ptr<torch::nn::Module> m_ema;
  double m_decay;
  double m_tau;
  int64_t m_updates = 0;
  std::vector<torch::Tensor> m_emaFloat, m_emaOther;
};

/// Parameters then buffers of `m`, in a fixed order (names included in `names` when given).
std::vector<torch::Tensor> stateTensors(torch::nn::Module& m,
                                        std::vector<std::string>* names = nullptr);

/// Copies parameters and buffers of `from` into `to` (same structure).
void copyState(torch::nn::Module& from, torch::nn::Module& to);

/// Converts 4-D parameters and buffers to channels_last memory format in place.
void toChannelsLast(torch::nn::Module& m);

}  // namespace stave::train
