// libstave_cuda.so: the engine's CUDA calls (streams, events, device properties, allocator
// statistics, and the NCCL group from core/distributed/cuda), behind stave::cuda::Runtime. Linked
// against libtorch_cuda and opened by stave::cuda::load() only where a GPU driver is; nothing
// in here calls into Stave's own libraries, so the executable exports nothing to it.
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <deque>
#include <utility>

#include "core/cuda/runtime.h"
#include "core/cuda/module/nccl_backend.h"

namespace stave::cuda {
namespace {

class CudaInputCopier final : public InputCopier {
 public:
  explicit CudaInputCopier(int device)
      : m_device(static_cast<c10::DeviceIndex>(device)),
        m_stream(c10::cuda::getStreamFromPool(false, m_device)) {}
  ~CudaInputCopier() override {
    // Host buffers are handed back only once their copies are done.
    for (auto& p : m_pending) p.first.synchronize();
  }

  torch::Tensor upload(const torch::Tensor& host, std::shared_ptr<void> keep) override {
    const auto compute = c10::cuda::getCurrentCUDAStream(m_device);
    torch::Tensor u8;
    {
      c10::cuda::CUDAStreamGuard onCopy(m_stream);
      u8 = host.to(torch::Device(torch::kCUDA, m_device), /*non_blocking=*/true);
    }
    at::cuda::CUDAEvent copied;
    copied.record(m_stream);
    copied.block(compute);
    // u8 was allocated on the copy stream; it is used on the compute stream from here on.
    c10::cuda::CUDACachingAllocator::recordStream(u8.storage().data_ptr(), compute);
    while (!m_pending.empty() && m_pending.front().first.query()) m_pending.pop_front();
    m_pending.emplace_back(std::move(copied), std::move(keep));
    return u8;
  }

  size_t inFlight() const override { return m_pending.size(); }

 private:
  c10::DeviceIndex m_device;
  c10::cuda::CUDAStream m_stream;
  std::deque<std::pair<at::cuda::CUDAEvent, std::shared_ptr<void>>> m_pending;
};

class CudaRuntime final : public Runtime {
 public:
  std::unique_ptr<InputCopier> makeInputCopier(int device) const override {
    return std::make_unique<CudaInputCopier>(device);
  }
  bool bf16Supported(int device) const override {
    const auto* props = at::cuda::getDeviceProperties(device < 0 ? 0 : device);
    return props && props->major >= 8;
  }
  void synchronize(int device) const override {
    c10::cuda::CUDAGuard g(static_cast<c10::DeviceIndex>(device < 0 ? 0 : device));
    c10::cuda::device_synchronize();
  }
  void setDevice(int device) const override {
    c10::cuda::set_device(static_cast<c10::DeviceIndex>(device));
  }
  int64_t peakAllocatedBytes(int device) const override {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(
        static_cast<c10::DeviceIndex>(device));
    return stats.allocated_bytes[static_cast<size_t>(c10::CachingAllocator::StatType::AGGREGATE)]
        .peak;
  }
  void resetPeak(int device) const override {
    c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(device));
  }
  int cudaRuntimeVersion() const override {
    int v = 0;
    if (cudaRuntimeGetVersion(&v) != cudaSuccess) return 0;
    return v;
  }
  bool hasNccl() const override { return nccl::kHaveNccl; }
  c10::intrusive_ptr<c10d::Backend> makeNccl(const c10::intrusive_ptr<c10d::Store>& store,
                                             int rank, int size,
                                             std::chrono::milliseconds timeout) const override {
    return nccl::makeNccl(store, rank, size, timeout);
  }
};

}  // namespace
}  // namespace stave::cuda

extern "C" __attribute__((visibility("default"))) const stave::cuda::Runtime*
stave_cuda_runtime_v1() {
  static const stave::cuda::CudaRuntime runtime;
  return &runtime;
}
