#pragma once
// A YOLO detector (YOLOv8, YOLO11: whatever core/model's Architecture describes) as an ONNX
// model, built natively with ONNX's own protobuf types by walking the architecture layer by
// layer, and checked with ONNX's checker (full shape inference) before the file is written. No
// torch here: LibTorch carries other protobuf headers of its own, so the trainer hands the
// weights over as plain arrays (core/train/onnx_export.h) and this library never sees a tensor.
//
// The output keeps Ultralytics' detection layout, so deployment code written for Ultralytics'
// ONNX files takes Stave's unchanged: input "images" (batch, 3, height, width), RGB, values 0..1;
// output "output0" (batch, 4 + nc, anchors): centre x, centre y, width, height in input pixels,
// then the class scores after the sigmoid; Ultralytics' metadata (names, stride, imgsz, task,
// batch) as metadata_props.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/base/result.h"
#include "core/model/architecture.h"

namespace stave::onnx {

/// A float array with its shape (row-major).
struct Array {
  std::vector<int64_t> shape;
  std::vector<float> values;
};

/// Opsets the builder writes (Split, Unsqueeze, Softmax and Resize as ONNX 13 defines them).
constexpr int kMinOpset = 13;
constexpr int kMaxOpset = 17;

/// What to build.
struct DetectorGraph {
  /// The network: its layers in order (modules, channels, kernels, strides, repeats), classes
  /// (nc), DFL bins (regMax), the detection levels' strides and Detect's class branch (legacy or
  /// depthwise). model::architectureFor() or a loaded model's architecture().
  model::Architecture architecture;
  /// Weights by module name as Ultralytics names the layers ("model.0", "model.2.m.0.cv1",
  /// "model.10.m.0.attn.qkv", "model.23.cv3.0.0.0", "model.22.dfl.conv"): "<module>.weight"
  /// (out, in / groups, k, k) and "<module>.bias" (out). A Conv block's BatchNorm is folded into
  /// its convolution.
  std::map<std::string, Array> weights;
  std::vector<std::string> names;     ///< class names ("0", "1", ... where missing)
  int64_t batch = 1;                  ///< fixed batch (ignored when dynamic)
  int64_t height = 640, width = 640;  ///< fixed input size, multiples of the largest stride
  bool dynamic = false;               ///< batch, height and width named, not fixed
  bool half = false;                  ///< float16 input, weights and output
  int opset = kMaxOpset;              ///< kMinOpset .. kMaxOpset
  /// More metadata_props (e.g. the checkpoint it came from), after Ultralytics' keys.
  std::vector<std::pair<std::string, std::string>> metadata;
};

/// What writeDetectorOnnx wrote.
struct GraphReport {
  int64_t nodes = 0;         ///< graph nodes
  int64_t initializers = 0;  ///< weight and constant tensors
  int64_t parameters = 0;    ///< their elements
  int64_t bytes = 0;         ///< file size
  std::string input;         ///< e.g. "images float32 (1, 3, 640, 640)"
  std::string output;        ///< e.g. "output0 float32 (1, 84, 8400)"
};

/// Builds the graph, runs ONNX's checker with full shape inference on it, and writes it to `path`
/// atomically (nothing is written when any step fails). Errors name the missing or misshapen
/// weight, the bad option, the checker's verdict or the file.
Result<GraphReport> writeDetectorOnnx(const DetectorGraph& graph, const std::string& path);

/// ONNX's checker, with full shape inference, on a serialised model; `what` names it in the
/// error ("M.onnx: the ONNX checker rejects the model: ...").
Status checkOnnxModel(const std::string& bytes, const std::string& what);

/// checkOnnxModel on a file's contents; the error names the file.
Status checkOnnxFile(const std::string& path);

/// IEEE 754 binary16 bits of `value`, rounded to nearest even (inf and NaN kept).
uint16_t floatToHalf(float value);

}  // namespace stave::onnx
