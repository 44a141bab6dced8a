#pragma once
// One training step, shared by the trainer and the benchmarks (bench train times exactly what
// a run does): the autocast forward with the float32 loss and the scaled backward, then the
// clip to kMaxGradNorm and the optimiser step. What is the trainer's alone stays there: the
// multi-scale resize, the DDP hooks around the backward, the EMA, the step events.

#include <optional>
#include <vector>

#include <torch/torch.h>

#include "core/model/yolo.h"
#include "core/train/amp.h"
#include "core/train/loss.h"

namespace stave::train {

/// What a step works on; the caller owns every part.
struct StepParts {
  model::Yolo& model;
  DetectionLoss& loss;
  GradScaler& scaler;
  torch::optim::Optimizer& optimizer;
  const std::vector<torch::Tensor>& params;  ///< the optimiser's parameters, for the clip
  Precision precision;
  torch::Device device;
};

/// Forward under autocast, the loss in float32, backward of the scaled loss times `lossScale`
/// (the world size under DDP, whose all-reduce averages). Returns the loss (unscaled).
LossOutput forwardBackward(StepParts& parts, const torch::Tensor& images,
                           const torch::Tensor& targets, int64_t n, double lossScale = 1.0);

/// How an optimiser step went.
struct StepOutcome {
  /// On CUDA without the loss scaler: the device tensor that says whether the gradients were
  /// finite (nothing read back; a non-finite step's gradients were zeroed on the device).
  std::optional<torch::Tensor> onDevice;
  /// Otherwise: whether the clipped gradient norm was finite (a non-finite step is skipped).
  bool finite = true;
};

/// True where clipAndStep clips on the device: CUDA without the fp16 loss scaler.
bool clipsOnDevice(const StepParts& parts);

/// Clips the gradients to kMaxGradNorm and steps the optimiser (foreach kernels), then zeroes
/// the gradients. On the CPU or with the fp16 scaler: unscale, clip, step only when the norm is
/// finite, update the scaler.
StepOutcome clipAndStep(StepParts& parts);

}  // namespace stave::train
