#include "core/train/assigner.h"

#include <algorithm>
#include <cmath>

namespace stave::train {

using torch::indexing::Slice;

torch::Tensor bboxIou(const torch::Tensor& box1, const torch::Tensor& box2, bool ciou, double eps) {
  auto b1x1 = box1.select(-1, 0), b1y1 = box1.select(-1, 1), b1x2 = box1.select(-1, 2),
       b1y2 = box1.select(-1, 3);
  auto b2x1 = box2.select(-1, 0), b2y1 = box2.select(-1, 1), b2x2 = box2.select(-1, 2),
       b2y2 = box2.select(-1, 3);
  auto w1 = b1x2 - b1x1, h1 = b1y2 - b1y1 + eps;
  auto w2 = b2x2 - b2x1, h2 = b2y2 - b2y1 + eps;
  auto inter = (torch::min(b1x2, b2x2) - torch::max(b1x1, b2x1)).clamp_min(0) *
               (torch::min(b1y2, b2y2) - torch::max(b1y1, b2y1)).clamp_min(0);
  auto uni = w1 * h1 + w2 * h2 - inter + eps;
  auto iou = inter / uni;
  if (!ciou) return iou;
  auto cw = torch::max(b1x2, b2x2) - torch::min(b1x1, b2x1);  // enclosing box
  auto ch = torch::max(b1y2, b2y2) - torch::min(b1y1, b2y1);
  auto c2 = cw.pow(2) + ch.pow(2) + eps;
  auto rho2 = ((b2x1 + b2x2 - b1x1 - b1x2).pow(2) + (b2y1 + b2y2 - b1y1 - b1y2).pow(2)) / 4.0;
  const double k = 4.0 / (M_PI * M_PI);
  auto v = k * (torch::atan(w2 / h2) - torch::atan(w1 / h1)).pow(2);
  // The trade-off weight is a constant for the gradient (CIoU paper, Ultralytics).
  auto alpha = (v / (v - iou + (1.0 + eps))).detach();
  return iou - (rho2 / c2 + v * alpha);
}

torch::Tensor candidatesInGts(const torch::Tensor& ancPoints, const torch::Tensor& gtBboxes,
                              double eps, double minSide) {
  auto lt = gtBboxes.narrow(-1, 0, 2);  // (B, M, 2)
  auto rb = gtBboxes.narrow(-1, 2, 2);
  if (minSide > 0) {
    auto centre = (lt + rb) / 2.0;
    auto half = ((rb - lt).clamp_min(minSide)) / 2.0;
    lt = centre - half;
    rb = centre + half;
  }
  auto deltas = torch::cat({ancPoints - lt.unsqueeze(2), rb.unsqueeze(2) - ancPoints},
                           -1);  // (B, M, A, 4)
  return std::get<0>(deltas.min(-1)) > eps;
}

TaskAlignedAssigner::TaskAlignedAssigner(AssignerOptions options) : m_options(options) {}

Assignment TaskAlignedAssigner::operator()(const torch::Tensor& pdScoresIn,
                                           const torch::Tensor& pdBboxesIn,
                                           const torch::Tensor& ancPoints,
                                           const torch::Tensor& gtLabels,
                                           const torch::Tensor& gtBboxes,
                                           const torch::Tensor& maskGtIn) const {
  torch::NoGradGuard noGrad;
  const int64_t b = pdScoresIn.size(0), a = pdScoresIn.size(1), nc = pdScoresIn.size(2);
  const int64_t m = gtBboxes.size(1);
  const auto fopts = pdScoresIn.options().dtype(torch::kFloat);
  const auto lopts = fopts.dtype(torch::kLong);
  Assignment out;
  if (m == 0) {
    out.targetLabels = torch::zeros({b, a}, lopts);
    out.targetBboxes = torch::zeros({b, a, 4}, fopts);
    out.targetScores = torch::zeros({b, a, nc}, fopts);
    out.fgMask = torch::zeros({b, a}, fopts.dtype(torch::kBool));
    out.targetGtIdx = torch::zeros({b, a}, lopts);
    return out;
  }
  auto pdScores = pdScoresIn.to(torch::kFloat);
  auto pdBboxes = pdBboxesIn.to(torch::kFloat);
  auto gtB = gtBboxes.to(torch::kFloat);
  auto maskGt = maskGtIn.to(torch::kBool).view({b, m, 1});
  // Labels outside 0..nc-1 cannot come from a validated dataset; clamp rather than crash the run.
  auto labels = gtLabels.to(torch::kLong).view({b, m}).clamp(0, nc - 1);

  // Alignment metric for every (box, candidate anchor) pair.
  auto maskIn = candidatesInGts(ancPoints.to(torch::kFloat), gtB, m_options.eps,
                                m_options.minSide);  // (B, M, A)
  auto maskCand = maskIn & maskGt;
  auto bboxScores = pdScores.transpose(1, 2).gather(1, labels.unsqueeze(-1).expand({b, m, a}));
  bboxScores = bboxScores * maskCand;
  auto overlaps = torch::zeros({b, m, a}, fopts);
  if (useDenseMasks(m_options.masks, pdScoresIn.device())) {
    // CIoU of every (box, anchor) pair, kept where the pair is a candidate; in slices of boxes
    // so the temporaries stay bounded for crowded images.
    constexpr int64_t kMaxPairs = int64_t(1) << 24;
    const int64_t chunk = std::max<int64_t>(1, kMaxPairs / std::max<int64_t>(1, b * a));
    for (int64_t j0 = 0; j0 < m; j0 += chunk) {
      const int64_t n = std::min(chunk, m - j0);
      auto gt = gtB.narrow(1, j0, n).unsqueeze(2).expand({b, n, a, 4});
      auto pd = pdBboxes.unsqueeze(1).expand({b, n, a, 4});
      auto iou = bboxIou(gt, pd, true).clamp_min(0);
      overlaps.narrow(1, j0, n).copy_(torch::where(maskCand.narrow(1, j0, n), iou, 0.0));
    }
  } else {
    // CIoU only for candidate pairs, as a full (B, M, A) CIoU would dominate memory for crowded
    // images.
    auto pd = pdBboxes.unsqueeze(1).expand({b, m, a, 4}).index({maskCand});
    auto gt = gtB.unsqueeze(2).expand({b, m, a, 4}).index({maskCand});
    overlaps.index_put_({maskCand}, bboxIou(gt, pd, true).clamp_min(0));
  }
  auto alignMetric = bboxScores.pow(m_options.alpha) * overlaps.pow(m_options.beta);

  // Top-k anchors per box, then keep those inside the box.
  const int64_t k = std::min<int64_t>(m_options.topk, a);
  auto topkIdx = std::get<1>(alignMetric.topk(k, -1, true, true));
  auto maskPos = torch::zeros({b, m, a}, fopts).scatter_(-1, topkIdx, 1.0) * maskIn * maskGt;

  // An anchor claimed by several boxes goes to the one it overlaps most (done unconditionally: no
  // device sync, and identical when nothing is claimed twice).
  auto fg = maskPos.sum(1);  // (B, A)
  auto multi = (fg.unsqueeze(1) > 1).expand({b, m, a});
  auto isMax = torch::zeros_like(maskPos).scatter_(1, overlaps.argmax(1, true), 1.0);
  maskPos = torch::where(multi, isMax, maskPos);
  fg = maskPos.sum(1);
  auto targetGtIdx = maskPos.argmax(1);  // (B, A)

  auto flatIdx = targetGtIdx + torch::arange(b, lopts).unsqueeze(1) * m;
  auto targetLabels = labels.flatten().index({flatIdx});   // (B, A)
  auto targetBboxes = gtB.view({-1, 4}).index({flatIdx});  // (B, A, 4)
  auto fgMask = fg > 0;

  // Normalise: per box, the best aligned anchor gets the box's best IoU.
  alignMetric = alignMetric * maskPos;
  auto posAlign = std::get<0>(alignMetric.max(-1, true));              // (B, M, 1)
  auto posOverlaps = std::get<0>((overlaps * maskPos).max(-1, true));  // (B, M, 1)
  auto norm = std::get<0>((alignMetric * posOverlaps / (posAlign + m_options.eps)).max(1))
                  .unsqueeze(-1);  // (B, A, 1)
  // One-hot at the label, scaled by the normalised metric, zero off the foreground: a single
  // scatter instead of several passes over the (B, A, nc) tensor.
  auto value = norm * fgMask.unsqueeze(-1);
  out.targetScores = torch::zeros({b, a, nc}, fopts).scatter_(2, targetLabels.unsqueeze(-1), value);
  out.targetLabels = targetLabels;
  out.targetBboxes = targetBboxes;
  out.fgMask = fgMask;
  out.targetGtIdx = targetGtIdx;
  return out;
}

}  // namespace stave::train
