#include "core/train/device_input.h"

#include <cmath>
#include <deque>
#include <optional>
#include <random>
#include <utility>

#include "core/train/validator.h"

#ifdef STAVE_HAVE_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace stave::train {

struct DeviceFeeder::Impl {
  torch::Device device;
#ifdef STAVE_HAVE_CUDA
  std::optional<c10::cuda::CUDAStream> copyStream;
  // The pinned buffers of copies that may not have finished, with the event that says so.
  std::deque<std::pair<at::cuda::CUDAEvent, std::shared_ptr<uint8_t>>> pending;
#endif
  explicit Impl(const torch::Device& d) : device(d) {}
};

DeviceFeeder::DeviceFeeder(const torch::Device& device) : m(std::make_unique<Impl>(device)) {
#ifdef STAVE_HAVE_CUDA
  if (device.is_cuda()) m->copyStream = c10::cuda::getStreamFromPool(false, device.index());
#endif
}

DeviceFeeder::~DeviceFeeder() {
#ifdef STAVE_HAVE_CUDA
  // Buffers are handed back only once their copies are done.
  for (auto& p : m->pending) p.first.synchronize();
#endif
}

size_t DeviceFeeder::inFlight() const {
#ifdef STAVE_HAVE_CUDA
  return m->pending.size();
#else
  return 0;
#endif
}

torch::Tensor DeviceFeeder::images(const data::Batch& batch, bool channelsLast) {
#ifdef STAVE_HAVE_CUDA
  if (m->device.is_cuda()) {
    auto keep = batch.pixels;
    torch::Tensor host =
        batch.channelsLast
            ? torch::from_blob(keep.get(), {batch.n, batch.height, batch.width, 3}, torch::kUInt8)
                  .permute({0, 3, 1, 2})
            : torch::from_blob(keep.get(), {batch.n, 3, batch.height, batch.width}, torch::kUInt8);
    const auto compute = c10::cuda::getCurrentCUDAStream(m->device.index());
    torch::Tensor u8;
    {
      c10::cuda::CUDAStreamGuard onCopy(*m->copyStream);
      u8 = host.to(m->device, /*non_blocking=*/true);
    }
    at::cuda::CUDAEvent copied;
    copied.record(*m->copyStream);
    copied.block(compute);
    // u8 was allocated on the copy stream; it is used on the compute stream from here on.
    c10::cuda::CUDACachingAllocator::recordStream(u8.storage().data_ptr(), compute);
    while (!m->pending.empty() && m->pending.front().first.query()) m->pending.pop_front();
    m->pending.emplace_back(std::move(copied), std::move(keep));
    auto x = u8.to(torch::kFloat).div_(255.0);
    if (channelsLast && !batch.channelsLast) x = x.contiguous(torch::MemoryFormat::ChannelsLast);
    return x;
  }
#endif
  return batchImages(batch, m->device, channelsLast);
}

bool cudaBf16Supported(const torch::Device& device) {
#ifdef STAVE_HAVE_CUDA
  if (!device.is_cuda()) return false;
  const auto* props = at::cuda::getDeviceProperties(device.index() < 0 ? 0 : device.index());
  return props && props->major >= 8;
#else
  (void)device;
  return false;
#endif
}

void synchronizeDevice(const torch::Device& device) {
#ifdef STAVE_HAVE_CUDA
  if (device.is_cuda()) c10::cuda::device_synchronize();
#else
  (void)device;
#endif
}

int64_t cudaPeakAllocatedBytes(const torch::Device& device) {
#ifdef STAVE_HAVE_CUDA
  if (device.is_cuda()) {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index());
    return stats.allocated_bytes[static_cast<size_t>(c10::CachingAllocator::StatType::AGGREGATE)]
        .peak;
  }
#endif
  (void)device;
  return 0;
}

void cudaResetPeak(const torch::Device& device) {
#ifdef STAVE_HAVE_CUDA
  if (device.is_cuda()) c10::cuda::CUDACachingAllocator::resetPeakStats(device.index());
#endif
  (void)device;
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
