#pragma once
// Size and cost of a YOLO detection network (YOLOv8, YOLO11), computed from its Architecture
// without building it (no torch here), so the CLI and the studio can show them instantly.

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/model/architecture.h"

namespace stave::model {

/// The multipliers that turn a family's base architecture into one scale.
struct ScaleSpec {
  double depth = 0.33;     ///< repeats of each C2f / C3k2 block are round(n * depth), at least 1
  double width = 0.25;     ///< channels are min(c, maxChannels) * width, rounded up to 8
  int maxChannels = 1024;  ///< channel cap applied before the width multiplier
};

/// The scale letters Stave knows, in size order: n, s, m, l, x.
const std::vector<std::string>& modelScales();

/// The multipliers of `scale` (any name architectureFor() takes: "n".."x", "yolov8n".."yolov8x",
/// "yolo11n".."yolo11x"); an Error naming the valid values otherwise.
Result<ScaleSpec> scaleSpec(const std::string& scale);

/// Output channels of a layer whose base width is `channels`, at this scale.
int64_t scaledChannels(const ScaleSpec& spec, int64_t channels);

/// Number of repeats of a block whose base depth is `repeats`, at this scale.
int64_t scaledDepth(const ScaleSpec& spec, int64_t repeats);

/// Parameter count, cost and module count of one model.
struct ModelInfo {
  int64_t params =
      0;  ///< every parameter, trainable or not (the fixed DFL weights too), as Ultralytics counts
  /// 2 x multiply-accumulates of the convolutions and attention products for one image of
  /// imgsz x imgsz (what Ultralytics 8.4 reports for the fused model, within 0.003 GFLOPs)
  double gflops = 0;
  /// every module once, containers included, as Ultralytics up to 8.3 counted layers (225 for
  /// yolov8n, 319 for yolo11n)
  int layers = 0;
  /// modules without children, as Ultralytics 8.4's model.info() counts layers (129 for yolov8n,
  /// 181 for yolo11n)
  int leafLayers = 0;
  /// parameters after Ultralytics' fuse() (BatchNorms folded into conv biases), as its fused
  /// summary prints them (3,151,904 for yolov8n, 2,616,248 for yolo11n)
  int64_t fusedParams = 0;
  /// leafLayers after fuse() (72 for yolov8n, 100 for yolo11n)
  int fusedLeafLayers = 0;
};

/// Analytic size of the network `arch` for square input `imgsz` (a multiple of its largest
/// stride). FLOPs follow thop as Ultralytics uses it: convolutions only (bias add included where
/// a conv has a bias; grouped convolutions by their groups) and the attention's matrix products;
/// BN, activations, softmax, pooling and upsampling free. Throws stave::InternalError on a bad
/// imgsz.
ModelInfo modelInfo(const Architecture& arch, int imgsz = 640);

/// modelInfo() of architectureFor(scale, nc). Throws stave::InternalError on an unknown name or
/// nc < 1; callers validate user input with architectureFor() (or scaleSpec()) first.
ModelInfo modelInfo(const std::string& scale, int nc, int imgsz = 640);

}  // namespace stave::model
