#pragma once
// The YOLO detection networks (YOLOv8, YOLO11) in LibTorch, built by one builder from an
// Architecture (architecture.h). Module and parameter names follow the published Ultralytics
// models ("model.22.cv2.0.0.conv.weight"), so parameter counts and weight names can be compared
// with them.

#include <torch/torch.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/model/architecture.h"
#include "core/model/model_info.h"
#include "core/model/yolo_blocks.h"

namespace stave::model {

/// What to build.
struct ModelOptions {
  /// The model's name as architectureFor() reads it: n, s, m, l, x (YOLOv8), yolov8n..yolov8x,
  /// yolo11n..yolo11x (".yaml" allowed). Ignored when `architecture` is set.
  std::string scale = "n";
  int nc = 80;      ///< number of classes (ignored when `architecture` is set: its nc)
  int regMax = 16;  ///< DFL bins per box side (ignored when `architecture` is set: its regMax)
  /// An explicit architecture (e.g. from a checkpoint's model.yaml); when set it wins over
  /// scale, nc and regMax.
  std::shared_ptr<const Architecture> architecture;
};

/// A whole detector: layers model.0 ... model.N (Detect last), built from its Architecture.
class YoloImpl : public torch::nn::Module {
 public:
  /// Builds the network in layer order; throws stave::InternalError on an unknown model name
  /// (callers validate user input with architectureFor() first), nc < 1 or regMax < 2.
  explicit YoloImpl(const ModelOptions& options);
  /// x: float NCHW, values 0..1, H and W multiples of the largest stride (32). Returns one map
  /// per level (strides 8, 16, 32), each (B, 4*regMax + nc, H/s, W/s) of raw logits.
  std::vector<torch::Tensor> forward(torch::Tensor x);
  /// The levels' strides, {8, 16, 32}.
  const std::vector<int64_t>& strides() const { return m_strides; }
  /// Number of classes.
  int nc() const { return m_arch->nc; }
  /// DFL bins per box side.
  int regMax() const { return m_arch->regMax; }
  /// The options it was built with (nc and regMax as built).
  const ModelOptions& options() const { return m_options; }
  /// The architecture it was built from.
  const Architecture& architecture() const { return *m_arch; }
  /// Shared handle of the architecture (to build a twin, e.g. the EMA).
  std::shared_ptr<const Architecture> architecturePtr() const { return m_arch; }
  /// Index of the Detect layer = the number of layers before it (freeze() takes 0 .. this).
  int detectIndex() const { return m_arch->detectIndex(); }
  /// Freezes the parameters of the first n layers (model.0 .. model.{n-1}); the DFL weights are
  /// always frozen.
  void freeze(int n);
  /// Makes every Conv's BatchNorm a SyncBatchNorm over `sync` in training mode (null: plain
  /// BatchNorm again). Eval mode always uses the running statistics.
  void setBatchNormSync(std::shared_ptr<BatchNormSync> sync);
  /// foldBatchNorm() on every Conv, for inference (eval mode) until unfoldBatchNorm().
  void foldBatchNorm();
  /// unfoldBatchNorm() on every Conv.
  void unfoldBatchNorm();
  /// The detection head (for its DFL and strides).
  const Detect& detect() const { return m_detect; }

 private:
  /// One layer other than Detect, with the typed handle forward() calls.
  struct Layer {
    const LayerSpec* spec = nullptr;
    Conv conv{nullptr};
    C2f c2f{nullptr};
    SPPF sppf{nullptr};
    C2PSA c2psa{nullptr};
    torch::nn::Upsample upsample{nullptr};
    Concat concat{nullptr};
    bool keep = false;  ///< a later layer other than the next reads its output
  };

  ModelOptions m_options;
  std::shared_ptr<const Architecture> m_arch;
  std::vector<int64_t> m_strides;
  torch::nn::ModuleList m_layers{nullptr};
  std::vector<Layer> m_run;
  Detect m_detect{nullptr};
};
TORCH_MODULE(Yolo);

/// Anchor points at cell centres (x + 0.5, y + 0.5) in grid units of each level, concatenated over
/// levels: (A, 2), and the stride of each anchor: (A, 1). Same device/dtype as feats[0] (float).
std::pair<torch::Tensor, torch::Tensor> makeAnchors(const std::vector<torch::Tensor>& feats,
                                                    const std::vector<int64_t>& strides,
                                                    double offset = 0.5);

/// Distances (..., 4) as left, top, right, bottom from anchor points (..., 2) to xyxy boxes (...,
/// 4).
torch::Tensor distToBbox(const torch::Tensor& distance, const torch::Tensor& anchorPoints);

/// Raw head outputs -> (B, N, 4 + nc): xyxy boxes in input pixels, class probabilities (sigmoid).
/// N is the number of anchors over the three levels. Computed in float32 with autocast off.
torch::Tensor decodePredictions(const YoloImpl& model, const std::vector<torch::Tensor>& feats);

}  // namespace stave::model
