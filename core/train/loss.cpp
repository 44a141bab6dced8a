#include "core/train/loss.h"

namespace stave::train {

torch::Tensor distributionFocalLoss(const torch::Tensor& predLogits, const torch::Tensor& target) {
  auto tl = target.to(torch::kLong);  // targets are >= 0, so truncation is floor
  auto tr = tl + 1;
  auto wl = tr.to(target.dtype()) - target;
  auto wr = 1.0 - wl;
  auto logp = torch::log_softmax(predLogits, -1);
  // One-hot products instead of gather: gather's backward is a scatter-add, which CUDA's
  // deterministic mode may refuse; the one-hots are tiny (K x 4 x regMax).
  const int64_t bins = predLogits.size(-1);
  auto ceL = -(logp * torch::one_hot(tl, bins).to(logp.dtype())).sum(-1);
  auto ceR = -(logp * torch::one_hot(tr, bins).to(logp.dtype())).sum(-1);
  return (ceL * wl + ceR * wr).mean(-1);
}

std::pair<torch::Tensor, torch::Tensor> targetsPerImage(const torch::Tensor& targetsIn,
                                                        int64_t batchSize, double imgW,
                                                        double imgH) {
  auto targets = targetsIn.to(torch::kFloat).view({-1, 6});
  const auto fopts = targets.options();
  const int64_t t = targets.size(0);
  if (t == 0)
    return {torch::zeros({batchSize, 0, 5}, fopts),
            torch::zeros({batchSize, 0, 1}, fopts.dtype(torch::kBool))};
  auto idx = targets.select(1, 0).to(torch::kLong);
  STAVE_CHECK(idx.min().item<int64_t>() >= 0 && idx.max().item<int64_t>() < batchSize,
              "targetsPerImage: a target's image index is outside the batch");
  auto counts = torch::bincount(idx, {}, batchSize);
  const int64_t m = counts.max().item<int64_t>();
  auto [sortedIdx, perm] = torch::sort(idx, /*stable=*/true, /*dim=*/0, /*descending=*/false);
  auto offsets = counts.cumsum(0) - counts;
  auto pos = torch::arange(t, idx.options()) - offsets.index({sortedIdx});
  auto rows = targets.index({perm}).narrow(1, 1, 5).clone();
  auto scale = torch::tensor({imgW, imgH, imgW, imgH}, fopts);
  auto xywh = rows.narrow(1, 1, 4) * scale;
  auto xy = xywh.narrow(1, 0, 2), wh = xywh.narrow(1, 2, 2);
  rows = torch::cat({rows.narrow(1, 0, 1), xy - wh / 2, xy + wh / 2}, 1);
  auto out = torch::zeros({batchSize, m, 5}, fopts);
  out.index_put_({sortedIdx, pos}, rows);
  auto mask = torch::zeros({batchSize, m}, fopts.dtype(torch::kBool));
  mask.index_put_({sortedIdx, pos}, torch::ones({t}, mask.options()));
  return {out, mask.unsqueeze(-1)};
}

DetectionLoss::DetectionLoss(const model::YoloImpl& model, LossOptions options)
    : m_options(options),
      m_nc(model.nc()),
      m_regMax(model.regMax()),
      m_strides(model.strides()),
      m_assigner(AssignerOptions{options.topk, model.nc(), options.alpha, options.beta, 1e-9,
                                 options.masks,
                                 // Ultralytics' floor for small boxes: the middle stride.
                                 static_cast<double>(model.strides().size() > 1
                                                         ? model.strides()[1]
                                                         : model.strides()[0])}) {}

LossOutput DetectionLoss::operator()(const std::vector<torch::Tensor>& feats,
                                     const torch::Tensor& targets, int64_t batchSize) const {
  model::AutocastOff autocastOff;  // the loss runs in float32 whatever the caller's autocast state
  STAVE_CHECK(feats.size() == m_strides.size(),
              "DetectionLoss: expected one feature map per stride");
  const int64_t b = feats[0].size(0);
  STAVE_CHECK(b == batchSize, "DetectionLoss: batchSize differs from the feature maps' batch");
  const int64_t r = m_regMax, no = 4 * m_regMax + m_nc;
  std::vector<torch::Tensor> flat;
  for (const auto& f : feats) flat.push_back(f.to(torch::kFloat).reshape({b, no, -1}));
  auto x = torch::cat(flat, 2);                                             // (B, no, A)
  auto predDistri = x.narrow(1, 0, 4 * r).transpose(1, 2).contiguous();     // (B, A, 4R)
  auto predScores = x.narrow(1, 4 * r, m_nc).transpose(1, 2).contiguous();  // (B, A, nc)
  const int64_t a = x.size(2);
  const auto fopts = x.options();

  const double imgH = static_cast<double>(feats[0].size(2) * m_strides[0]);
  const double imgW = static_cast<double>(feats[0].size(3) * m_strides[0]);
  auto [anchors, strideT] =
      model::makeAnchors(feats, m_strides, 0.5);  // grid units, (A, 2) and (A, 1)
  // Padding the targets per image is bookkeeping on a few rows: done on the CPU (no device syncs,
  // no bincount, which CUDA's deterministic mode refuses), then moved.
  auto [gtCpu, maskCpu] = targetsPerImage(targets.to(torch::kCPU), b, imgW, imgH);
  // On CUDA through pinned memory without waiting (a pageable copy would wait for the stream).
  auto toDevice = [&](const torch::Tensor& t) {
    return x.device().is_cuda() ? t.pin_memory().to(x.device(), /*non_blocking=*/true) : t;
  };
  auto gt = toDevice(gtCpu);
  auto maskGt = toDevice(maskCpu);
  auto gtLabels = gt.narrow(2, 0, 1), gtBboxes = gt.narrow(2, 1, 4);

  auto proj = torch::arange(r, fopts);
  auto dist =
      predDistri.view({b, a, 4, r}).softmax(3).matmul(proj);  // (B, A, 4) in bins = grid units
  auto predBboxes = model::distToBbox(dist, anchors);         // (B, A, 4) grid units

  Assignment as = m_assigner(predScores.detach().sigmoid(), predBboxes.detach() * strideT,
                             anchors * strideT, gtLabels, gtBboxes, maskGt);
  auto targetScoresSum = as.targetScores.sum().clamp_min(1.0);

  auto lossCls = torch::binary_cross_entropy_with_logits(predScores, as.targetScores, {}, {},
                                                         at::Reduction::Sum) /
                 targetScoresSum;

  // Box losses over foreground anchors, each weighted by its target score.
  auto fg = as.fgMask;
  auto targetBboxes = as.targetBboxes / strideT;
  auto targetLtrb =
      torch::cat({anchors - targetBboxes.narrow(-1, 0, 2), targetBboxes.narrow(-1, 2, 2) - anchors},
                 -1)
          .clamp(0, static_cast<double>(r - 1) - 0.01);
  torch::Tensor lossBox, lossDfl;
  if (useDenseMasks(m_options.masks, x.device())) {
    // Every anchor, weighted by zero off the foreground: no boolean indexing, so no device
    // sync. Background anchors are scored against their own (detached) prediction, which keeps
    // their terms finite, so zero weights give zero gradients (0 * NaN would not).
    auto weight = as.targetScores.sum(-1) * fg;  // (B, A)
    auto safeTarget = torch::where(fg.unsqueeze(-1), targetBboxes, predBboxes.detach());
    auto iou = bboxIou(predBboxes, safeTarget, true);
    lossBox = ((1.0 - iou) * weight).sum() / targetScoresSum;
    auto dfl = distributionFocalLoss(predDistri.view({-1, 4, r}), targetLtrb.view({-1, 4}));
    lossDfl = (dfl.view({b, a}) * weight).sum() / targetScoresSum;
  } else {
    auto weight = as.targetScores.sum(-1).index({fg});  // (K)
    auto iou = bboxIou(predBboxes.index({fg}), targetBboxes.index({fg}), true);
    lossBox = ((1.0 - iou) * weight).sum() / targetScoresSum;
    auto dfl =
        distributionFocalLoss(predDistri.index({fg}).view({-1, 4, r}), targetLtrb.index({fg}));
    lossDfl = (dfl * weight).sum() / targetScoresSum;
  }

  auto weighted =
      torch::stack({lossBox * m_options.box, lossCls * m_options.cls, lossDfl * m_options.dfl});
  LossOutput out;
  out.total = weighted.sum() * static_cast<double>(batchSize);
  out.items = weighted.detach();
  out.foreground = as.fgMask.detach();
  out.targetScores = as.targetScores.detach();
  out.targetScoresSum = targetScoresSum.detach();
  return out;
}

}  // namespace stave::train
