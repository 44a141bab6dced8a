#pragma once
// The YOLOv8 detector as an ONNX model, built natively with ONNX's own protobuf types and checked
// with ONNX's checker (full shape inference) before the file is written. No torch here: LibTorch
// carries other protobuf headers of its own, so the trainer hands the weights over as plain
// arrays (core/train/onnx_export.h) and this library never sees a tensor.
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
  /// Weights by module name as the YOLOv8 layers are named ("model.0", "model.2.m.0.cv1",
  /// "model.22.cv2.0.2", "model.22.dfl.conv"): "<module>.weight" (out, in, k, k) and
  /// "<module>.bias" (out). A Conv block's BatchNorm is folded into its convolution.
  std::map<std::string, Array> weights;
  int nc = 80;                              ///< classes
  int regMax = 16;                          ///< DFL bins per box side
  std::vector<int64_t> strides{8, 16, 32};  ///< of the three detection levels
  std::vector<std::string> names;           ///< class names ("0", "1", ... where missing)
  int64_t batch = 1;                        ///< fixed batch (ignored when dynamic)
  int64_t height = 640, width = 640;        ///< fixed input size, multiples of the largest stride
  bool dynamic = false;                     ///< batch, height and width named, not fixed
  bool half = false;                        ///< float16 input, weights and output
  int opset = kMaxOpset;                    ///< kMinOpset .. kMaxOpset
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
