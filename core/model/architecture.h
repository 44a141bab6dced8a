#pragma once
// The architecture of a YOLO detector as data: Ultralytics' model description (the dict of
// yolov8.yaml / yolo11.yaml, or the `yaml` a checkpoint carries) resolved layer by layer with
// parse_model's rules into everything a builder needs: channels, repeats, kernel sizes, strides.
// The LibTorch builder (yolo.h), the analytic size (model_info.h) and the ONNX graph writer all
// read the same LayerSpecs, so no one re-derives the network. No torch here.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/result.h"

namespace stave::model {

/// One layer of the network (model.<index>), resolved: channels after the width multiplier,
/// repeats after the depth multiplier, 'from' as absolute layer indices.
struct LayerSpec {
  int index = 0;  ///< position in the model's layer list (the N of "model.N.")
  /// Absolute indices of the layers whose outputs it takes, in order; {-1} for layer 0 (the
  /// image). More than one for Concat and Detect.
  std::vector<int> from;
  /// Ultralytics' module name: "Conv", "C2f", "C3k2", "SPPF", "C2PSA", "nn.Upsample", "Concat",
  /// "Detect".
  std::string module;
  int repeats = 1;  ///< blocks inside C2f / C3k2 (bottlenecks) and C2PSA (PSABlocks), else 1
  int64_t c1 = 0;   ///< input channels (of the first input for Concat and Detect)
  std::vector<int64_t> inChannels;  ///< channels of each input, in `from` order
  int64_t c2 = 0;   ///< output channels (Concat: their sum; Detect: 4 * regMax + nc per level)
  int kernel = 1;   ///< Conv's kernel, SPPF's pooling kernel
  int stride = 1;   ///< Conv's stride; nn.Upsample's integer scale factor
  int groups = 1;   ///< Conv's groups; the bottleneck groups g of C2f / C3k2
  bool act = true;  ///< Conv: SiLU after the BatchNorm (false: identity)
  bool shortcut = false;   ///< C2f / C3k2: residual adds in the bottlenecks
  bool c3k = false;        ///< C3k2: its blocks are C3k (two bottlenecks) instead of Bottlenecks
  double expansion = 0.5;  ///< e of C2f / C3k2 / C2PSA: hidden channels int(c2 * e)
  int outStride = 1;       ///< how many input pixels one output cell spans (8 for P3)
  /// The module's constructor arguments as parse_model resolves them ([c1, c2, n, ...] for a
  /// block, [nc, reg_max, end2end, [ch...]] for Detect), for display and exports.
  nlohmann::json args;
};

/// A whole detector: the layers in order, the last one Detect.
struct Architecture {
  std::string family;       ///< "yolov8" (C2f, the legacy head) or "yolo11" (C3k2, C2PSA, DW head)
  char scale = 0;           ///< 'n', 's', 'm', 'l' or 'x'; 0 for a description without scales
  std::string name;         ///< family + scale, e.g. "yolo11n" (the family alone without a scale)
  int nc = 80;              ///< classes
  int regMax = 16;          ///< DFL bins per box side
  double depth = 1.0;       ///< the depth multiplier used
  double width = 1.0;       ///< the width multiplier used
  int64_t maxChannels = 0;  ///< the channel cap used (0: none)
  /// Detect's class branch: true = Conv 3x3, Conv 3x3, Conv2d (YOLOv3/5/8/9: "legacy" in
  /// Ultralytics); false = (DWConv 3x3, Conv 1x1) twice, Conv2d (YOLO11 and later).
  bool legacyHead = true;
  std::vector<LayerSpec> layers;  ///< model.0 .. model.N, Detect last
  std::vector<int> detectFrom;    ///< the layers Detect reads (P3, P4, P5)
  std::vector<int64_t> strides;   ///< their strides, {8, 16, 32}
  /// Layers whose outputs a later layer other than the next one reads (Ultralytics' `save`),
  /// sorted: the forward pass keeps only these.
  std::vector<int> save;
  /// The Ultralytics-style description it came from, with nc and scale as resolved: keys nc,
  /// scales, backbone, head, scale, yaml_file, channels (what a checkpoint's model.yaml holds).
  nlohmann::json yaml;

  /// Index of the Detect layer (= the number of layers before it, the largest useful freeze).
  int detectIndex() const { return static_cast<int>(layers.size()) - 1; }
  /// The Detect layer.
  const LayerSpec& detect() const { return layers.back(); }
};

/// The model names architectureFor() knows, in family and size order: yolov8n .. yolov8x,
/// yolo11n .. yolo11x.
const std::vector<std::string>& architectureNames();

/// The built-in architecture of `model`: "n".."x" (YOLOv8, as old Stave checkpoints name their
/// scale), "yolov8n".."yolov8x" or "yolo11n".."yolo11x", each optionally with ".yaml" (or ".pt":
/// the name only, weights are the caller's matter). nc >= 1. An Error (key "model") naming the
/// valid values otherwise. Goes through architectureFromYaml().
Result<Architecture> architectureFor(const std::string& model, int nc);

/// Resolves an Ultralytics model description (the dict of a model yaml, or a checkpoint's
/// model.yaml) with parse_model's rules of Ultralytics 8.4: multipliers and channel cap from
/// scales[scale] (or depth_multiple / width_multiple), channels make_divisible(min(c2, max) *
/// width, 8), repeats max(round(n * depth), 1) for n > 1, C3k2's c3k forced on at scales m/l/x,
/// Detect's head legacy unless a C3k2 precedes it. nc >= 1 overrides the description's nc; 0
/// keeps it. Accepts the keys a checkpoint carries (nc, scale, scales, backbone, head,
/// yaml_file, ch / channels, reg_max, inplace, ...). An Error (file `what`) for a module Stave
/// does not build (Segment, Pose, RTDETRDecoder, C2fAttn, ...) naming the module and the layer
/// index, for module arguments it does not build (YOLO26's SPPF and attention C3k2), for an
/// end-to-end head, another input channel count than 3, or a malformed description.
Result<Architecture> architectureFromYaml(const nlohmann::json& yaml, int nc,
                                          const std::string& what);

/// The built-in Ultralytics description of a family ("yolov8" or "yolo11"), as its yaml file
/// reads (without a scale key); null json for another name.
nlohmann::json builtinYaml(const std::string& family);

/// Ultralytics' make_divisible: the smallest multiple of `divisor` >= x.
int64_t makeDivisible(double x, int64_t divisor);

}  // namespace stave::model
