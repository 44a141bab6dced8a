#include "core/train/device_input.h"

#include <cmath>
#include <random>
#include <utility>

#include "core/base/result.h"
#include "core/cuda/runtime.h"
#include "core/train/validator.h"

namespace stave::train {

struct DeviceFeeder::Impl {
  torch::Device device;
  std::unique_ptr<cuda::InputCopier> copier;  // CUDA devices only
  explicit Impl(const torch::Device& d) : device(d) {}
};

DeviceFeeder::DeviceFeeder(const torch::Device& device) : m(std::make_unique<Impl>(device)) {
  if (device.is_cuda()) {
    const auto* rt = cuda::runtime();
    STAVE_CHECK(rt, "a CUDA device without the CUDA module: " << cuda::unavailableReason());
    m->copier = rt->makeInputCopier(device.index() < 0 ? 0 : device.index());
  }
}

DeviceFeeder::~DeviceFeeder() = default;

size_t DeviceFeeder::inFlight() const { return m->copier ? m->copier->inFlight() : 0; }

torch::Tensor DeviceFeeder::images(const data::Batch& batch, bool channelsLast) {
  if (m->copier) {
    auto x = m->copier->upload(batchPixels(batch), batch.pixels).to(torch::kFloat).div_(255.0);
    if (channelsLast && !batch.channelsLast) x = x.contiguous(torch::MemoryFormat::ChannelsLast);
    return x;
  }
  return batchImages(batch, m->device, channelsLast);
}

namespace {
int indexOf(const torch::Device& device) { return device.index() < 0 ? 0 : device.index(); }
}  // namespace

bool cudaBf16Supported(const torch::Device& device) {
  if (!device.is_cuda() || !cuda::runtime()) return false;
  return cuda::runtime()->bf16Supported(indexOf(device));
}

void synchronizeDevice(const torch::Device& device) {
  if (device.is_cuda() && cuda::runtime()) cuda::runtime()->synchronize(indexOf(device));
}

int64_t cudaPeakAllocatedBytes(const torch::Device& device) {
  if (!device.is_cuda() || !cuda::runtime()) return 0;
  return cuda::runtime()->peakAllocatedBytes(indexOf(device));
}

void cudaResetPeak(const torch::Device& device) {
  if (device.is_cuda() && cuda::runtime()) cuda::runtime()->resetPeak(indexOf(device));
}

void setCudnnBenchmark(bool on) {
  at::globalContext().setBenchmarkCuDNN(on);
}

torch::Tensor multiScaleResize(const torch::Tensor& images, int64_t imgsz, uint64_t seed,
                               int64_t iteration) {
  constexpr int64_t kStride = 32;
  const int64_t lo = imgsz / 2, hi = imgsz + imgsz / 2 + kStride;  // Python's randrange(lo, hi)
  std::mt19937_64 gen(seed * 1000003ULL + static_cast<uint64_t>(iteration));
  const int64_t drawn = std::uniform_int_distribution<int64_t>(lo, hi - 1)(gen);
  const int64_t sz = std::max<int64_t>(kStride, drawn / kStride * kStride);
  const int64_t h = images.size(2), w = images.size(3);
  const double sf = static_cast<double>(sz) / static_cast<double>(std::max(h, w));
  if (sf == 1.0) return images;
  auto side = [&](int64_t x) {
    return static_cast<int64_t>(std::ceil(static_cast<double>(x) * sf / kStride)) * kStride;
  };
  namespace F = torch::nn::functional;
  return F::interpolate(images, F::InterpolateFuncOptions()
                                    .size(std::vector<int64_t>{side(h), side(w)})
                                    .mode(torch::kBilinear)
                                    .align_corners(false));
}

}  // namespace stave::train
