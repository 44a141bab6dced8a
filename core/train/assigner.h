#pragma once
// Task-aligned label assignment (TOOD, as YOLOv8 uses it) and the box overlap measures it needs.

#include <torch/torch.h>

namespace stave::train {

/// IoU, or CIoU when `ciou`, of xyxy boxes; box1 and box2 (..., 4) broadcast against each other.
/// Returns (...) (the last dimension dropped). eps guards empty boxes as Ultralytics does (1e-7).
torch::Tensor bboxIou(const torch::Tensor& box1, const torch::Tensor& box2, bool ciou = false,
                      double eps = 1e-7);

/// Hyperparameters of the assigner (Ultralytics' defaults).
/// How the assigner and the loss select candidate / foreground anchors. Gather picks them
/// with boolean masks (few elements, but the count is read back to the host: a device sync on
/// CUDA); Dense computes over every anchor and masks arithmetically (more work, no sync).
/// Auto: Dense on CUDA, Gather on the CPU. Both give the same values (tests).
enum class MaskMode { Auto, Gather, Dense };

/// Whether `mode` means dense selection for tensors on `device`.
inline bool useDenseMasks(MaskMode mode, const torch::Device& device) {
  return mode == MaskMode::Dense || (mode == MaskMode::Auto && device.is_cuda());
}

struct AssignerOptions {
  int topk = 10;        ///< candidates kept per ground-truth box
  int numClasses = 80;  ///< nc
  double alpha = 0.5;   ///< exponent of the class score in the alignment metric
  double beta = 6.0;    ///< exponent of the IoU in the alignment metric
  double eps = 1e-9;    ///< guards divisions and the inside-the-box test
  MaskMode masks = MaskMode::Auto;  ///< candidate selection (see MaskMode)
  /// For the inside-the-box test only, a box side shorter than this is widened to it about the
  /// box's centre, so that small objects still get candidate anchors (Ultralytics: the middle
  /// stride, 16 px). 0 = test the boxes as they are.
  double minSide = 0;
};

/// What each anchor should learn. B images, A anchors, nc classes.
struct Assignment {
  torch::Tensor targetLabels;  ///< (B, A) int64 class of the assigned box (0 for background)
  torch::Tensor targetBboxes;  ///< (B, A, 4) xyxy of the assigned box, in the units of gtBboxes
  torch::Tensor
      targetScores;           ///< (B, A, nc) soft one-hot: normalised alignment metric at the class
  torch::Tensor fgMask;       ///< (B, A) bool, anchors assigned to some box
  torch::Tensor targetGtIdx;  ///< (B, A) int64 index of the assigned box within its image
};

/// Task-aligned assigner: candidates are anchors whose centre lies inside a ground-truth box; each
/// box keeps its top-k candidates by score^alpha * CIoU^beta; an anchor claimed by several boxes
/// goes to the one it overlaps most; target scores are the metric normalised per box so that the
/// best anchor of a box gets that box's best IoU.
class TaskAlignedAssigner {
 public:
  /// Options as above.
  explicit TaskAlignedAssigner(AssignerOptions options = {});
  /// pdScores (B, A, nc) probabilities; pdBboxes (B, A, 4) xyxy; ancPoints (A, 2) anchor centres in
  /// the same units as the boxes; gtLabels (B, M, 1); gtBboxes (B, M, 4) xyxy; maskGt (B, M, 1)
  /// 1 for real boxes, 0 for padding. Computed without gradients.
  Assignment operator()(const torch::Tensor& pdScores, const torch::Tensor& pdBboxes,
                        const torch::Tensor& ancPoints, const torch::Tensor& gtLabels,
                        const torch::Tensor& gtBboxes, const torch::Tensor& maskGt) const;
  /// The options it was built with.
  const AssignerOptions& options() const { return m_options; }

 private:
  AssignerOptions m_options;
};

/// (B, M, A) bool: anchor centre strictly inside the box (by more than eps on every side), the
/// box's sides first widened to at least `minSide` about its centre.
torch::Tensor candidatesInGts(const torch::Tensor& ancPoints, const torch::Tensor& gtBboxes,
                              double eps = 1e-9, double minSide = 0);

}  // namespace stave::train
