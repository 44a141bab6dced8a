#pragma once
// YOLOv8 detection loss: task-aligned assignment, CIoU + DFL box loss, BCE class loss.

#include <torch/torch.h>

#include <vector>

#include "core/config/schema.h"

#include "core/model/yolo.h"
#include "core/train/assigner.h"

namespace stave::train {

/// Loss weights and assigner settings (Ultralytics' names and defaults).
struct LossOptions {
  /// weight of the CIoU box loss
  double box = config::defaultNumber("box");
  /// weight of the BCE class loss
  double cls = config::defaultNumber("cls");
  /// weight of the distribution focal loss
  double dfl = config::defaultNumber("dfl");
  int topk = 10;                    ///< assigner: candidates per ground-truth box
  double alpha = 0.5;               ///< assigner: score exponent
  double beta = 6.0;                ///< assigner: IoU exponent
  MaskMode masks = MaskMode::Auto;  ///< foreground selection: gather (CPU) or dense (CUDA)
};

/// The loss of one batch.
struct LossOutput {
  torch::Tensor
      total;  ///< scalar to backward: (box + cls + dfl, each weighted) x batch size, as Ultralytics
  torch::Tensor
      items;  ///< (3) detached weighted box, cls, dfl losses (per image, what gets logged)
  /// The assignment, for comparisons with other implementations (detached; no host sync):
  torch::Tensor foreground;       ///< (B, A) anchors assigned a ground-truth box
  torch::Tensor targetScores;     ///< (B, A, nc) their soft class targets
  torch::Tensor targetScoresSum;  ///< scalar the three losses are divided by
};

/// Distribution focal loss: predLogits (N, 4, regMax) over bins, target (N, 4) distances in bins
/// (0 .. regMax-1-0.01). Cross-entropy to the two bins around the target, weighted by closeness,
/// averaged over the 4 sides: (N).
torch::Tensor distributionFocalLoss(const torch::Tensor& predLogits, const torch::Tensor& target);

/// Target rows (T, 6) = batchIdx, cls, cx, cy, w, h normalised to the image -> (B, M, 5) per image
/// cls, x1, y1, x2, y2 in pixels (imgW x imgH), zero padded, plus the (B, M, 1) mask of real rows.
std::pair<torch::Tensor, torch::Tensor> targetsPerImage(const torch::Tensor& targets,
                                                        int64_t batchSize, double imgW,
                                                        double imgH);

/// The YOLOv8 detection loss for a model's raw outputs.
class DetectionLoss {
 public:
  /// Reads nc, regMax and strides from the model.
  DetectionLoss(const model::YoloImpl& model, LossOptions options = {});
  /// feats: the model's outputs (any float dtype: computed in float32, autocast off);
  /// targets: (T, 6) rows batchIdx, cls, cx, cy, w, h normalised to the batch image, any device.
  LossOutput operator()(const std::vector<torch::Tensor>& feats, const torch::Tensor& targets,
                        int64_t batchSize) const;
  /// The options it was built with.
  const LossOptions& options() const { return m_options; }

 private:
  LossOptions m_options;
  int64_t m_nc, m_regMax;
  std::vector<int64_t> m_strides;
  TaskAlignedAssigner m_assigner;
};

}  // namespace stave::train
