#pragma once
// Size and cost of the YOLOv8 detection network, computed from its architecture without building
// it (no torch here), so the CLI and the studio can show them instantly.

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/result.h"

namespace stave::model {

/// The multipliers that turn the YOLOv8 base architecture into one scale.
struct ScaleSpec {
  double depth = 0.33;     ///< repeats of each C2f block are round(n * depth), at least 1
  double width = 0.25;     ///< channels are min(c, maxChannels) * width, rounded up to 8
  int maxChannels = 1024;  ///< channel cap applied before the width multiplier
};

/// The scale letters Stave knows, in size order: n, s, m, l, x.
const std::vector<std::string>& modelScales();

/// The multipliers of `scale` ("n".."x", or "yolov8n".."yolov8x"); an Error naming the valid values
/// otherwise.
Result<ScaleSpec> scaleSpec(const std::string& scale);

/// Output channels of a layer whose base width is `channels`, at this scale.
int64_t scaledChannels(const ScaleSpec& spec, int64_t channels);

/// Number of repeats of a block whose base depth is `repeats`, at this scale.
int64_t scaledDepth(const ScaleSpec& spec, int64_t repeats);

/// Parameter count, cost and module count of one model.
struct ModelInfo {
  int64_t params =
      0;  ///< every parameter, trainable or not (the fixed DFL weights too), as Ultralytics counts
  double gflops =
      0;           ///< 2 x multiply-accumulates of the convolutions for one image of imgsz x imgsz
  int layers = 0;  ///< modules as Ultralytics counts them (225 for yolov8n)
};

/// Analytic size of the network at `scale` with `nc` classes for square input `imgsz` (a multiple
/// of 32). FLOPs follow thop as Ultralytics uses it: convolutions only (bias add included where a
/// conv has a bias), BN, activations, pooling and upsampling free. Throws stave::InternalError on
/// an unknown scale or nc < 1; callers validate user input with scaleSpec() first.
ModelInfo modelInfo(const std::string& scale, int nc, int imgsz = 640);

}  // namespace stave::model
