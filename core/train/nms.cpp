#include "core/train/nms.h"

#include <algorithm>

#include "core/base/result.h"

namespace stave::train {

namespace {

// Greedy NMS over candidates sorted by score (rows x1, y1, x2, y2, score, cls; CPU float).
// Comparing classes directly is what offsetting each box by cls x (coordinate range) achieves
// for a class-blind kernel (Ultralytics + torchvision), without the float rounding that large
// offsets cause. Stops once maxDet boxes are kept, so the cost is O(candidates x maxDet).
torch::Tensor greedyNms(const torch::Tensor& sorted, double iouThr, int maxDet, bool agnostic) {
  const int64_t n = sorted.size(0);
  auto a = sorted.accessor<float, 2>();
  std::vector<uint8_t> suppressed(n, 0);
  std::vector<float> area(n);
  for (int64_t i = 0; i < n; ++i) area[i] = (a[i][2] - a[i][0]) * (a[i][3] - a[i][1]);
  const float thr = static_cast<float>(iouThr);
  std::vector<int64_t> keep;
  for (int64_t i = 0; i < n && static_cast<int>(keep.size()) < maxDet; ++i) {
    if (suppressed[i]) continue;
    keep.push_back(i);
    for (int64_t j = i + 1; j < n; ++j) {
      if (suppressed[j] || (!agnostic && a[j][5] != a[i][5])) continue;
      const float w = std::max(0.0f, std::min(a[i][2], a[j][2]) - std::max(a[i][0], a[j][0]));
      const float h = std::max(0.0f, std::min(a[i][3], a[j][3]) - std::max(a[i][1], a[j][1]));
      const float inter = w * h;
      // As torchvision: suppress when IoU > threshold (ties survive).
      if (inter / (area[i] + area[j] - inter) > thr) suppressed[j] = 1;
    }
  }
  return sorted.index_select(0, torch::tensor(keep, torch::kLong));
}

}  // namespace

std::vector<torch::Tensor> nonMaxSuppression(const torch::Tensor& preds, double conf, double iou,
                                             int maxDet, bool agnostic, bool multiLabel,
                                             int64_t maxNms) {
  STAVE_CHECK(preds.dim() == 3 && preds.size(2) > 4,
              "preds must be (B, N, 4 + nc), got " << preds.sizes());
  torch::NoGradGuard noGrad;
  const auto device = preds.device();
  const auto empty = torch::zeros({0, 6}, torch::dtype(torch::kFloat).device(device));
  std::vector<torch::Tensor> out;
  out.reserve(preds.size(0));
  for (int64_t b = 0; b < preds.size(0); ++b) {
    if (maxDet <= 0 || preds.size(1) == 0) {
      out.push_back(empty);
      continue;
    }
    // Filtering and the top-maxNms cut run on the tensor's device; only the survivors (a few
    // thousand rows at most) travel to the CPU for the sequential greedy pass.
    const torch::Tensor x = preds[b].to(torch::kFloat);
    const torch::Tensor probs = x.slice(1, 4);
    torch::Tensor cand;
    if (multiLabel && probs.size(1) > 1) {
      // Every (box, class) above the threshold, in box-then-class order as torch.where gives.
      const torch::Tensor ij = (probs > conf).nonzero();
      const torch::Tensor i = ij.select(1, 0), j = ij.select(1, 1);
      cand = torch::cat({x.slice(1, 0, 4).index_select(0, i), probs.index({i, j}).unsqueeze(1),
                         j.unsqueeze(1).to(torch::kFloat)},
                        1);
    } else {
      auto [score, cls] = probs.max(1);
      cand = torch::cat({x.slice(1, 0, 4), score.unsqueeze(1), cls.unsqueeze(1).to(torch::kFloat)},
                        1)
                 .index({score > conf});
    }
    if (cand.size(0) == 0) {
      out.push_back(empty);
      continue;
    }
    const torch::Tensor order =
        std::get<1>(cand.select(1, 4).sort(/*stable=*/true, /*dim=*/0, /*descending=*/true));
    cand = cand.index_select(0, order.slice(0, 0, std::max<int64_t>(maxNms, 0)));
    const torch::Tensor kept = greedyNms(cand.to(torch::kCPU).contiguous(), iou, maxDet, agnostic);
    out.push_back(kept.to(device));
  }
  return out;
}

std::vector<Detection> toDetections(const torch::Tensor& kept) {
  STAVE_CHECK(kept.dim() == 2 && kept.size(1) == 6, "expected (K, 6), got " << kept.sizes());
  const torch::Tensor cpu = kept.detach().to(torch::kCPU, torch::kFloat).contiguous();
  auto a = cpu.accessor<float, 2>();
  std::vector<Detection> out;
  out.reserve(cpu.size(0));
  for (int64_t i = 0; i < cpu.size(0); ++i) {
    out.push_back({a[i][0], a[i][1], a[i][2], a[i][3], a[i][4], static_cast<int>(a[i][5])});
  }
  return out;
}

}  // namespace stave::train
