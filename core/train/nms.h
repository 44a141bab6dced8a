#pragma once
// Non-maximum suppression of decoded YOLO predictions, as Ultralytics' non_max_suppression does
// it for detection (one label per box, or one per class above the threshold for validation):
// confidence filter, at most maxNms candidates by score, greedy class-aware NMS, at most maxDet
// boxes per image.

#include <torch/torch.h>

#include <vector>

#include "core/train/metrics.h"

namespace stave::train {

/// Candidates kept per image before NMS (highest scores), as Ultralytics' max_nms.
constexpr int64_t kMaxNmsCandidates = 30000;

/// `preds` (B, N, 4 + nc): x1, y1, x2, y2 in pixels, then class probabilities. Per image a
/// (K, 6) float tensor x1, y1, x2, y2, score, cls on preds' device, best score first, K <= maxDet.
/// A box is a candidate when its best class probability is > conf; with `multiLabel` (and more
/// than one class) a box is a candidate once for every class whose probability is > conf, as
/// Ultralytics' validator counts it. A candidate is suppressed by a kept one of the same class
/// (any class when `agnostic`) with IoU > iou. Images without candidates give (0, 6).
std::vector<torch::Tensor> nonMaxSuppression(const torch::Tensor& preds, double conf, double iou,
                                             int maxDet, bool agnostic = false,
                                             bool multiLabel = false,
                                             int64_t maxNms = kMaxNmsCandidates);

/// The rows of one image's nonMaxSuppression output (K, 6) as Detections for the evaluator.
std::vector<Detection> toDetections(const torch::Tensor& kept);

}  // namespace stave::train
