#pragma once
// Mixed precision: the run's precision, an autocast scope, and a small dynamic loss scaler
// for fp16 (grow / back off, skip the optimiser step on inf or NaN gradients).

#include <torch/torch.h>

#include <string>
#include <vector>

#include "core/base/result.h"

namespace stave::train {

/// Numeric precision of forward and backward.
enum class Precision { Fp32, Bf16, Fp16 };

/// "fp32", "bf16" or "fp16".
const char* precisionName(Precision p);

/// Resolves the `precision` key ("auto", "fp32", "bf16", "fp16") with `amp` for `device`:
/// auto is bf16 on GPUs that compute it natively (from Ampere on), fp16 with the loss scaler
/// on older GPUs, fp32 on a CPU (bf16 there is faster but learned less; precision=bf16 asks);
/// amp=false forces fp32. fp16 on the CPU is an error naming the key and the alternatives.
Result<Precision> resolvePrecision(const std::string& precision, bool amp,
                                   const torch::Device& device);

/// Resolves the `channels_last` key ("auto", "true", "false") for `device`: auto is on for the
/// CPU (oneDNN's convolutions run without layout reorders) and off on CUDA.
bool resolveChannelsLast(const std::string& channelsLast, const torch::Device& device);

/// Enables autocast for its lifetime (nothing for fp32) and restores the previous state.
class AutocastScope {
 public:
  AutocastScope(Precision precision, const torch::Device& device);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool m_active = false;
  bool m_cuda = false;
  bool m_prevEnabled = false;
  at::ScalarType m_prevDtype = at::kFloat;
};

/// Settings of the dynamic loss scaler (PyTorch's GradScaler defaults).
struct GradScalerOptions {
  bool enabled = false;           ///< on for fp16 only
  double initScale = 65536.0;     ///< starting scale
  double growthFactor = 2.0;      ///< multiply after growthInterval good steps
  double backoffFactor = 0.5;     ///< multiply on a step with inf/NaN gradients
  int64_t growthInterval = 2000;  ///< good steps before growing
};

/// The total L2 norm the gradients are clipped to before each optimiser step (Ultralytics'
/// max_norm): the trainer's and the training benchmark's step.
constexpr double kMaxGradNorm = 10.0;

/// Dynamic loss scaling: scale the loss, unscale and clip the gradients, skip bad steps.
class GradScaler {
 public:
  explicit GradScaler(GradScalerOptions options = {});
  bool enabled() const { return m_options.enabled; }
  /// loss * scale when enabled, loss otherwise.
  torch::Tensor scale(const torch::Tensor& loss) const;
  /// Divides the gradients by the scale (when enabled), then clips their total L2 norm to
  /// `maxNorm`. Returns the norm before clipping; a non-finite norm means: skip this step.
  double unscaleAndClip(const std::vector<torch::Tensor>& params, double maxNorm);
  /// The same without reading anything back to the host (for CUDA, where a read waits for the
  /// whole step): the clip factor is computed on the device, and a non-finite norm zeroes
  /// every gradient instead of skipping the step on the host. Returns a 0-dim tensor on the
  /// gradients' device, 1 when the norm was finite, else 0. Only for a disabled scaler (fp16's
  /// dynamic scale needs the outcome on the host, as PyTorch's GradScaler reads it too).
  torch::Tensor clipOnDevice(const std::vector<torch::Tensor>& params, double maxNorm) const;
  /// Records a step's outcome: back off after inf/NaN, grow after growthInterval good steps.
  void update(bool foundInf);
  double scaleValue() const { return m_scale; }
  int64_t growthTracker() const { return m_growthTracker; }
  /// Restores the state saved in a checkpoint.
  void setState(double scale, int64_t growthTracker);

 private:
  GradScalerOptions m_options;
  double m_scale;
  int64_t m_growthTracker = 0;
};

}  // namespace stave::train
