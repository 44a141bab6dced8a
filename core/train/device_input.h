#pragma once
// The input side of a training step on a CUDA device: loader batches (uint8, pinned host
// memory) copied on a side stream so the copy overlaps the previous step's compute, then
// normalised and laid out on the device. On the CPU it is batchImages().

#include <torch/torch.h>

#include <memory>

#include "core/data/loader.h"

namespace stave::train {

/// Feeds a model's input from loader batches (one per trainer; not thread-safe).
class DeviceFeeder {
 public:
  explicit DeviceFeeder(const torch::Device& device);
  ~DeviceFeeder();
  DeviceFeeder(const DeviceFeeder&) = delete;
  DeviceFeeder& operator=(const DeviceFeeder&) = delete;

  /// The batch as float (N, 3, H, W) in 0..1 on the device (channels_last when asked or when
  /// the batch is NHWC). On CUDA the uint8 copy runs on a side stream with non_blocking; the
  /// current stream waits for it on the device (the host does not), and the batch's pinned
  /// memory is kept until the copy has finished.
  torch::Tensor images(const data::Batch& batch, bool channelsLast);
  /// Batches whose copy may still be in flight (for tests and diagnostics).
  size_t inFlight() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m;
};

/// True when `device` is a CUDA device that computes in bfloat16 natively (compute
/// capability 8.0 or newer); false for the CPU or a build without CUDA.
bool cudaBf16Supported(const torch::Device& device);

/// Waits until `device` has finished all queued work (no-op on the CPU).
void synchronizeDevice(const torch::Device& device);

/// The caching allocator's peak of allocated bytes on a CUDA device since the last reset
/// (0 on the CPU), and its reset.
int64_t cudaPeakAllocatedBytes(const torch::Device& device);
void cudaResetPeak(const torch::Device& device);

/// Lets cuDNN pick the fastest convolution algorithms for the (static) input shapes.
void setCudnnBenchmark(bool on);

/// multi_scale: Ultralytics' resize of a batch (N, 3, H, W, float) to a size drawn from
/// [0.5, 1.5] x imgsz in steps of the stride, the long side to that size and the other in
/// proportion, rounded up to the stride (bilinear). Targets are normalised and the loss takes the
/// size from the features, so nothing else changes. The size depends only on (seed, iteration):
/// every rank trains the same size at a step, and a resumed run draws what it would have.
torch::Tensor multiScaleResize(const torch::Tensor& images, int64_t imgsz, uint64_t seed,
                               int64_t iteration);

}  // namespace stave::train
