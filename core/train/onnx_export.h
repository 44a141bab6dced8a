#pragma once
// `stave-train export-weights --format onnx`: a checkpoint's EMA weights (those Stave validates
// and predicts with) as an ONNX model that ONNX Runtime, TensorRT and OpenVINO load, in
// Ultralytics' detection layout. The graph is built by core/onnx from the model's architecture
// description (any family: YOLOv8, YOLO11), with every Conv block's BatchNorm folded into its
// convolution.

#include <string>

#include "core/base/result.h"
#include "core/onnx/detector_graph.h"

namespace stave::train {

/// export-weights' ONNX options.
struct OnnxOptions {
  int imgsz = 0;                ///< input size (square); 0 = the checkpoint's training size
  int batch = 1;                ///< fixed batch (ignored with dynamic)
  bool dynamic = false;         ///< batch, height and width left free
  int opset = onnx::kMaxOpset;  ///< ONNX opset, onnx::kMinOpset .. kMaxOpset
  /// Float16 weights, input and output. Checked before anything is written: the network runs in
  /// float16 (CUDA autocast) against float32 on the GPU, and an overflow is an error; there is
  /// no such check without a CUDA device, so there it is refused.
  bool half = false;
};

/// What exportOnnx wrote.
struct OnnxExport {
  onnx::GraphReport graph;
  std::string model;  ///< the architecture's name, e.g. "yolo11n"
  std::string scale;  ///< model scale, e.g. "n" (empty for a description without scales)
  int nc = 0;         ///< classes
  int imgsz = 0;      ///< the input size used
  /// With half: the largest difference of a class score between float16 and float32 on the
  /// check images; -1 without half.
  double halfMaxScoreDiff = -1;
};

/// Writes `checkpoint`'s EMA weights to `out` as ONNX (checked by ONNX's checker, written
/// atomically; nothing is written on any error). Errors name the checkpoint, the option or
/// the checker's verdict.
Result<OnnxExport> exportOnnx(const std::string& checkpoint, const std::string& out,
                              const OnnxOptions& options);

}  // namespace stave::train
