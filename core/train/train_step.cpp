#include "core/train/train_step.h"

#include <cmath>

#include "core/train/optimizer.h"

namespace stave::train {

LossOutput forwardBackward(StepParts& parts, const torch::Tensor& images,
                           const torch::Tensor& targets, int64_t n, double lossScale) {
  std::vector<torch::Tensor> feats;
  {
    AutocastScope autocast(parts.precision, parts.device);
    feats = parts.model->forward(images);
  }
  auto out = parts.loss(feats, targets, n);
  auto total = lossScale != 1.0 ? out.total * lossScale : out.total;
  parts.scaler.scale(total).backward();
  return out;
}

bool clipsOnDevice(const StepParts& parts) {
  return parts.device.is_cuda() && !parts.scaler.enabled();
}

StepOutcome clipAndStep(StepParts& parts) {
  StepOutcome outcome;
  if (clipsOnDevice(parts)) {
    outcome.onDevice = parts.scaler.clipOnDevice(parts.params, kMaxGradNorm);
    foreachStep(parts.optimizer);
  } else {
    const double norm = parts.scaler.unscaleAndClip(parts.params, kMaxGradNorm);
    outcome.finite = std::isfinite(norm);
    if (outcome.finite) foreachStep(parts.optimizer);
    parts.scaler.update(!outcome.finite);
  }
  zeroGradients(parts.optimizer);
  return outcome;
}

}  // namespace stave::train
