#pragma once
// `stave-train bench train`: training samples/s end to end (loader, augmentation, copy,
// forward, backward, step) against the same model's compute alone on a batch already in
// memory, measured in the same run. No torch.

#include <nlohmann/json.hpp>

#include <string>

#include "core/base/result.h"

namespace stave::bench {

/// Benchmark settings.
struct BenchTrainOptions {
  std::string scale = "n";  ///< the network: n..x (yolov8), yolov8n..x or yolo11n..x
  int imgsz = 320;          ///< training image size
  int batch = 16;           ///< batch size
  int steps = 10;           ///< measured steps per mode
  int warmup = 2;           ///< unmeasured steps first
  int workers = 0;          ///< loader threads (0 = 8, as the config default)
  int threads = 0;          ///< intra-op threads (0 = all cores)
  std::string data;         ///< data.yaml ("" = a demo dataset made in a temporary folder)
  std::string device;       ///< "" auto, "cpu", "0"
  std::string precision =
      "auto";  ///< auto (bf16 where supported on CUDA, fp32 on CPU), fp32, bf16, fp16
  bool channelsLast = false;  ///< channels_last model and input
  /// Where to write a Chrome trace of LibTorch's profiler over the compute-only steps (every
  /// operator with its self time; open in chrome://tracing or Perfetto); "" = no profile.
  std::string profile;
};

/// Runs both measurements; JSON with end_to_end_samples_per_s, compute_only_samples_per_s,
/// ratio (target >= 0.9), the data-wait share of the end-to-end step, and the settings.
Result<nlohmann::json> benchTrain(const BenchTrainOptions& options);

}  // namespace stave::bench
