#include "core/train/amp.h"

#include <ATen/autocast_mode.h>

#include <cmath>

#include "core/train/device_input.h"

namespace stave::train {
namespace {
bool autocastEnabled(bool cuda) {
  return at::autocast::is_autocast_enabled(cuda ? at::kCUDA : at::kCPU);
}
void setAutocast(bool cuda, bool on) {
  at::autocast::set_autocast_enabled(cuda ? at::kCUDA : at::kCPU, on);
}
at::ScalarType autocastDtype(bool cuda) {
  return at::autocast::get_autocast_dtype(cuda ? at::kCUDA : at::kCPU);
}
void setAutocastDtype(bool cuda, at::ScalarType t) {
  at::autocast::set_autocast_dtype(cuda ? at::kCUDA : at::kCPU, t);
}
}  // namespace

const char* precisionName(Precision p) {
  switch (p) {
    case Precision::Fp32:
      return "fp32";
    case Precision::Bf16:
      return "bf16";
    case Precision::Fp16:
      return "fp16";
  }
  return "?";
}

bool resolveChannelsLast(const std::string& channelsLast, const torch::Device& device) {
  if (channelsLast == "true") return true;
  if (channelsLast == "false") return false;
  return !device.is_cuda();
}

Result<Precision> resolvePrecision(const std::string& precision, bool amp,
                                   const torch::Device& device) {
  const bool cuda = device.is_cuda();
  if (!amp || precision == "fp32") return Precision::Fp32;
  // auto: bf16 on GPUs that compute it natively (Ampere and newer), fp16 with the loss scaler
  // on older ones, fp32 on a CPU. Not bf16 on a CPU even where it is native (AVX512-BF16, AMX)
  // and 1.5x faster there: on the paired benchmark it cost 0.03-0.06 mAP50 against float32 at
  // every epoch from 14 on in two of three seeds (docs/benchmarks.md).
  if (precision == "auto" || precision.empty()) {
    if (cuda) return cudaBf16Supported(device) ? Precision::Bf16 : Precision::Fp16;
    return Precision::Fp32;
  }
  if (precision == "bf16") return Precision::Bf16;
  if (precision == "fp16") {
    if (!cuda) {
      return Error{"", 0, "precision",
                   "fp16 needs a CUDA device (autocast on the CPU supports bf16 only); use "
                   "precision=bf16 or fp32"};
    }
    return Precision::Fp16;
  }
  return Error{"", 0, "precision",
               "unknown value '" + precision + "' (valid: auto, fp32, bf16, fp16)"};
}

AutocastScope::AutocastScope(Precision precision, const torch::Device& device) {
  if (precision == Precision::Fp32) return;
  m_active = true;
  m_cuda = device.is_cuda();
  m_prevEnabled = autocastEnabled(m_cuda);
  m_prevDtype = autocastDtype(m_cuda);
  setAutocast(m_cuda, true);
  setAutocastDtype(m_cuda, precision == Precision::Bf16 ? at::kBFloat16 : at::kHalf);
  at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
  if (!m_active) return;
  // The cast-weight cache lives only as long as the outermost autocast region.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  setAutocast(m_cuda, m_prevEnabled);
  setAutocastDtype(m_cuda, m_prevDtype);
}

GradScaler::GradScaler(GradScalerOptions options)
    : m_options(options), m_scale(options.initScale) {}

torch::Tensor GradScaler::scale(const torch::Tensor& loss) const {
  return m_options.enabled ? loss * m_scale : loss;
}

double GradScaler::unscaleAndClip(const std::vector<torch::Tensor>& params, double maxNorm) {
  std::vector<torch::Tensor> grads;
  grads.reserve(params.size());
  for (const auto& p : params) {
    if (p.grad().defined()) grads.push_back(p.grad());
  }
  if (grads.empty()) return 0.0;
  torch::NoGradGuard noGrad;
  if (m_options.enabled) at::_foreach_mul_(grads, 1.0 / m_scale);
  // One norm over all gradients also serves as the inf/NaN check: it is non-finite iff some
  // gradient is (finite fp32 gradients cannot overflow the norm of a detector's size).
  std::vector<torch::Tensor> norms;
  norms.reserve(grads.size());
  for (const auto& g : grads) norms.push_back(g.detach().to(torch::kFloat).norm());
  const double total = torch::stack(norms).norm().item<double>();
  if (std::isfinite(total) && total > maxNorm) {
    at::_foreach_mul_(grads, maxNorm / (total + 1e-6));
  }
  return total;
}

torch::Tensor GradScaler::clipOnDevice(const std::vector<torch::Tensor>& params,
                                       double maxNorm) const {
  STAVE_CHECK(!m_options.enabled, "clipOnDevice needs the loss scaler off (fp16 reads it back)");
  std::vector<torch::Tensor> grads;
  grads.reserve(params.size());
  for (const auto& p : params) {
    if (p.grad().defined()) grads.push_back(p.grad());
  }
  if (grads.empty()) return torch::ones({}, params.empty() ? torch::kCPU : params[0].device());
  torch::NoGradGuard noGrad;
  const auto total = torch::stack(at::_foreach_norm(grads, 2)).to(torch::kFloat).norm();
  const auto finite = torch::isfinite(total);
  // clip factor min(1, maxNorm / norm), and 0 for a non-finite norm (inf * 0 would be NaN, so
  // non-finite entries are zeroed first; for finite gradients that is a no-op).
  auto coef = torch::clamp_max(maxNorm / (total + 1e-6), 1.0);
  coef = torch::where(finite, coef, torch::zeros_like(coef));
  for (auto& g : grads) g.nan_to_num_(0.0, 0.0, 0.0);
  at::_foreach_mul_(grads, coef);
  return finite.to(torch::kFloat);
}

void GradScaler::update(bool foundInf) {
  if (!m_options.enabled) return;
  if (foundInf) {
    m_scale *= m_options.backoffFactor;
    m_growthTracker = 0;
    return;
  }
  if (++m_growthTracker >= m_options.growthInterval) {
    m_scale *= m_options.growthFactor;
    m_growthTracker = 0;
  }
}

void GradScaler::setState(double scale, int64_t growthTracker) {
  m_scale = scale;
  m_growthTracker = growthTracker;
}

}  // namespace stave::train
