#include "core/train/validator.h"

#include <set>

#include <ATen/detail/CUDAHooksInterface.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "core/data/loader.h"
#include "core/model/yolo.h"
#include "core/train/loss.h"
#include "core/train/metrics.h"
#include "core/train/nms.h"

namespace stave::train {
namespace {
// One gathered row: image id, kind (0 detection, 1 ground truth), x1, y1, x2, y2, score, cls.
constexpr size_t kRow = 8;
}  // namespace

torch::Tensor batchPixels(const data::Batch& batch) {
  auto keep = batch.pixels;  // the tensor borrows the loader's buffer and keeps it alive
  if (batch.channelsLast) {
    return torch::from_blob(
               keep.get(), {batch.n, batch.height, batch.width, 3}, [keep](void*) {},
               torch::kUInt8)
        .permute({0, 3, 1, 2});
  }
  return torch::from_blob(
      keep.get(), {batch.n, 3, batch.height, batch.width}, [keep](void*) {}, torch::kUInt8);
}

torch::Tensor batchImages(const data::Batch& batch, const torch::Device& device,
                          bool channelsLast) {
  const torch::Tensor u8 = batchPixels(batch);
  // uint8 travels to the device (4x less than float) and is normalised there.
  auto x = device.is_cpu() ? u8 : u8.to(device, /*non_blocking=*/true);
  x = x.to(torch::kFloat).div_(255.0);
  if (channelsLast && !batch.channelsLast) x = x.contiguous(torch::MemoryFormat::ChannelsLast);
  return x;
}

std::function<std::shared_ptr<uint8_t>(size_t)> pinnedHostAllocator() {
  return [](size_t bytes) -> std::shared_ptr<uint8_t> {
    if (at::detail::getCUDAHooks().hasCUDA()) {
      auto* allocator = at::detail::getCUDAHooks().getPinnedMemoryAllocator();
      auto holder = std::make_shared<at::DataPtr>(allocator->allocate(bytes));
      return std::shared_ptr<uint8_t>(holder, static_cast<uint8_t*>(holder->get()));
    }
    return std::shared_ptr<uint8_t>(new uint8_t[bytes], std::default_delete<uint8_t[]>());
  };
}

torch::Tensor batchTargets(const data::Batch& batch, const torch::Device& device) {
  const int64_t rows = static_cast<int64_t>(batch.targets.size() / 6);
  auto t =
      torch::from_blob(const_cast<float*>(batch.targets.data()), {rows, 6}, torch::kFloat).clone();
  return device.is_cpu() ? t : t.to(device);
}

namespace {
constexpr size_t kGalleryImages = 8;

// The confusion matrix over every image (in the letterboxed frame, where IoU is unchanged) and
// the images it and the gallery refer to, their boxes mapped back to original pixels.
template <typename Images, typename Placements>
void fillViews(ValidationViews& views, int nc, const Images& images, const Placements& placements) {
  views.matrix = std::make_unique<ConfusionMatrix>(nc);
  std::map<int64_t, int64_t> splitIndexOf;  // validation id -> split index
  for (const auto& [id, p] : placements) splitIndexOf[id] = p.index;
  for (const auto& [id, item] : images) {
    const auto it = splitIndexOf.find(id);
    views.matrix->add(it == splitIndexOf.end() ? -1 : it->second, item.first, item.second);
  }
  std::set<int64_t> wanted;
  for (int p = 0; p <= nc; ++p)
    for (int t = 0; t <= nc; ++t)
      for (int64_t i : views.matrix->images(p, t)) wanted.insert(i);
  std::vector<int64_t> all;
  for (const auto& [id, p] : placements) all.push_back(p.index);
  std::sort(all.begin(), all.end());
  for (size_t k = 0; k < all.size() && k < kGalleryImages; ++k) {
    views.gallery.push_back(all[k]);
    wanted.insert(all[k]);
  }
  for (const auto& [id, p] : placements) {
    if (!wanted.count(p.index)) continue;
    const auto item = images.find(id);
    ViewImage v;
    v.index = p.index;
    v.width = p.width;
    v.height = p.height;
    const float s = p.scale > 0 ? p.scale : 1.f;
    auto bx = [&](float x) { return std::clamp((x - p.padX) / s, 0.f, float(p.width)); };
    auto by = [&](float y) { return std::clamp((y - p.padY) / s, 0.f, float(p.height)); };
    if (item != images.end()) {
      for (const auto& d : item->second.first)
        if (d.score > views.matrix->conf())
          v.detections.push_back({bx(d.x1), by(d.y1), bx(d.x2), by(d.y2), d.score, d.cls});
      for (const auto& g : item->second.second)
        v.truths.push_back({bx(g.x1), by(g.y1), bx(g.x2), by(g.y2), g.cls});
    }
    views.images[p.index] = std::move(v);
  }
}
}  // namespace

namespace {

// Eval mode with the BatchNorms folded into the convolutions for the duration (Ultralytics
// fuses the same way for inference); both undone on every way out.
struct EvalScope {
  model::YoloImpl& m;
  bool wasTraining;
  explicit EvalScope(model::YoloImpl& model) : m(model), wasTraining(model.is_training()) {
    m.eval();
    m.foldBatchNorm();
  }
  ~EvalScope() {
    m.unfoldBatchNorm();
    if (wasTraining) m.train();
  }
  EvalScope(const EvalScope&) = delete;
  EvalScope& operator=(const EvalScope&) = delete;
};

// What one rank's pass over its shard produced: the gathered rows, the loss sums and counts.
struct LocalPass {
  std::vector<float> rows;
  torch::Tensor lossSum = torch::zeros({3}, torch::kDouble);
  int64_t batches = 0;
  int64_t images = 0;
};

// Boxes end at the image's edges, not in the letterbox padding (COCO's JSON holds them in the
// original image, clipped as Ultralytics' scale_boxes clips; Ultralytics 8.4 itself matches
// unclipped boxes in the letterboxed frame).
void clipToImage(at::TensorAccessor<float, 2>& d, int64_t n, const data::ImageMeta& m) {
  const float x0 = m.padX, y0 = m.padY, x1 = m.padX + m.origWidth * m.scale,
              y1 = m.padY + m.origHeight * m.scale;
  for (int64_t k = 0; k < n; ++k) {
    d[k][0] = std::clamp(d[k][0], x0, x1);
    d[k][2] = std::clamp(d[k][2], x0, x1);
    d[k][1] = std::clamp(d[k][1], y0, y1);
    d[k][3] = std::clamp(d[k][3], y0, y1);
  }
}

// Back to the original image: undo the letterbox (original = (batch - pad) / scale), clipped
// to the image as Ultralytics' scale_boxes does.
void saveDetections(std::vector<SavedDetection>& saved, const std::string& path,
                    const data::ImageMeta& m, const at::TensorAccessor<float, 2>& d, int64_t n) {
  const auto back = [&](float v, float pad, int size) {
    return std::clamp((v - pad) / m.scale, 0.f, static_cast<float>(size));
  };
  for (int64_t k = 0; k < n; ++k) {
    saved.push_back(
        SavedDetection{path, static_cast<int>(d[k][5]), d[k][4], back(d[k][0], m.padX, m.origWidth),
                       back(d[k][1], m.padY, m.origHeight), back(d[k][2], m.padX, m.origWidth),
                       back(d[k][3], m.padY, m.origHeight)});
  }
}

// One batch's rows: per real image its placement (for the views), its kept detections and its
// ground truth, all in the letterboxed batch frame. Ids count on from `firstId`.
void appendBatchRows(const data::Batch& batch, const std::vector<torch::Tensor>& kept,
                     const torch::Tensor& targets, int64_t firstId,
                     const ValidationOptions& options, std::vector<float>& rows) {
  // Metrics are computed in the letterboxed batch frame: letterboxing scales and shifts boxes
  // uniformly, which leaves every IoU unchanged.
  const float w = static_cast<float>(batch.width), h = static_cast<float>(batch.height);
  auto tacc = targets.accessor<float, 2>();
  // Images the sampler repeated to pad this rank are not scored twice (their loss is kept:
  // a few repeated images in a mean).
  const int64_t real = batch.n - batch.padded;
  for (int64_t j = 0; j < real; ++j) {
    const float id = static_cast<float>(firstId + j);
    const auto& m = batch.meta[static_cast<size_t>(j)];
    if (options.views && static_cast<size_t>(j) < batch.indices.size()) {
      // Where the image is in the split and how it was letterboxed, for the views (row kind 2).
      rows.insert(rows.end(), {id, 2.f, static_cast<float>(batch.indices[static_cast<size_t>(j)]),
                               m.scale, m.padX, m.padY, static_cast<float>(m.origWidth),
                               static_cast<float>(m.origHeight)});
    }
    auto det = kept[static_cast<size_t>(j)].to(torch::kCPU, torch::kFloat).contiguous();
    auto d = det.accessor<float, 2>();
    if (options.apRule == ApRule::Coco) clipToImage(d, det.size(0), m);
    for (int64_t k = 0; k < det.size(0); ++k) {
      rows.insert(rows.end(), {id, 0.f, d[k][0], d[k][1], d[k][2], d[k][3], d[k][4], d[k][5]});
    }
    if (options.savedDetections) {
      saveDetections(*options.savedDetections, batch.paths[static_cast<size_t>(j)], m, d,
                     det.size(0));
    }
    for (int64_t r = 0; r < tacc.size(0); ++r) {
      if (static_cast<int64_t>(tacc[r][0]) != j) continue;
      const float cx = tacc[r][2] * w, cy = tacc[r][3] * h, bw = tacc[r][4] * w,
                  bh = tacc[r][5] * h;
      rows.insert(rows.end(),
                  {id, 1.f, cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2, 1.f, tacc[r][1]});
    }
  }
}

// One epoch of `loader` through the model (in eval mode, without grad): loss, NMS and the rows.
LocalPass runLocalPass(model::YoloImpl& model, data::Loader& loader,
                       const ValidationOptions& options, const DetectionLoss* loss) {
  LocalPass pass;
  loader.startEpoch(0, /*mosaicOn=*/false);
  while (auto batch = loader.next()) {
    if (options.progress) options.progress->fetch_add(1);
    auto images = batchImages(*batch, options.device, options.channelsLast);
    std::vector<torch::Tensor> feats;
    {
      AutocastScope autocast(options.precision, options.device);
      feats = model.forward(images);
    }
    for (auto& f : feats) f = f.to(torch::kFloat);
    auto targets = batchTargets(*batch, torch::kCPU);
    if (options.singleCls) targets.select(1, 1).zero_();
    if (loss) {
      auto out = (*loss)(feats, targets.to(options.device), batch->n);
      pass.lossSum += out.items.to(torch::kCPU, torch::kDouble);
      ++pass.batches;
    }
    auto preds = model::decodePredictions(model, feats);
    auto kept = nonMaxSuppression(preds, options.conf, options.iou, options.maxDet,
                                  /*agnostic=*/false, options.multiLabel);
    appendBatchRows(*batch, kept, targets, pass.images, options, pass.rows);
    pass.images += batch->n - batch->padded;
  }
  return pass;
}

// This rank's share of the gather: a header row (images, batches, loss sums), its rows and an
// end marker row.
std::vector<float> packLocalPass(const LocalPass& pass) {
  std::vector<float> header = {static_cast<float>(pass.images),
                               static_cast<float>(pass.batches),
                               static_cast<float>(pass.lossSum[0].item<double>()),
                               static_cast<float>(pass.lossSum[1].item<double>()),
                               static_cast<float>(pass.lossSum[2].item<double>()),
                               0.f,
                               0.f,
                               0.f};
  std::vector<float> mine = header;
  mine.insert(mine.end(), pass.rows.begin(), pass.rows.end());
  mine.push_back(-1.f);  // end marker row
  mine.resize(mine.size() + kRow - 1, 0.f);
  return mine;
}

struct Placement {
  int64_t index;
  float scale, padX, padY;
  int width, height;
};

// Every rank's rows read back: images by id (unique across ranks), placements, loss totals.
struct Gathered {
  double lossTotals[3] = {0, 0, 0};
  int64_t batchTotal = 0;
  int64_t imageCount = 0;
  std::map<int64_t, std::pair<std::vector<Detection>, std::vector<GroundTruth>>> images;
  std::map<int64_t, Placement> placements;
};

Gathered unpackGathered(const std::vector<float>& all) {
  Gathered g;
  size_t pos = 0;
  int64_t idBase = 0;  // each rank's ids are prefixed with its position
  while (pos + kRow <= all.size()) {
    const int64_t count = static_cast<int64_t>(all[pos]);
    g.batchTotal += static_cast<int64_t>(all[pos + 1]);
    for (int c = 0; c < 3; ++c) g.lossTotals[c] += all[pos + 2 + c];
    pos += kRow;
    for (int64_t i = 0; i < count; ++i) g.images[idBase + i];
    while (pos + kRow <= all.size() && all[pos] >= 0.f) {
      const float* r = &all[pos];
      const int64_t id = idBase + static_cast<int64_t>(r[0]);
      if (r[1] == 2.f) {
        g.placements[id] =
            Placement{static_cast<int64_t>(r[2]), r[3], r[4], r[5], static_cast<int>(r[6]),
                      static_cast<int>(r[7])};
      } else if (r[1] == 0.f) {
        g.images[id].first.push_back(
            Detection{r[2], r[3], r[4], r[5], r[6], static_cast<int>(r[7])});
      } else {
        g.images[id].second.push_back(GroundTruth{r[2], r[3], r[4], r[5], static_cast<int>(r[7])});
      }
      pos += kRow;
    }
    pos += kRow;  // the end marker row
    idBase += count;
  }
  g.imageCount = idBase;
  return g;
}

}  // namespace

ValidationOutput validate(model::YoloImpl& model, data::Loader& loader, int nc,
                          const ValidationOptions& options, const DetectionLoss* loss,
                          const GatherFloats& gather) {
  const auto start = std::chrono::steady_clock::now();
  EvalScope evalScope(model);
  torch::NoGradGuard noGrad;
  const std::vector<float> mine = packLocalPass(runLocalPass(model, loader, options, loss));
  const std::vector<float> all = gather ? gather(mine) : mine;
  Gathered g = unpackGathered(all);

  DetectionEvaluator evaluator(nc, options.maxDet);
  ValidationOutput out;
  if (options.views) fillViews(*options.views, nc, g.images, g.placements);
  for (auto& [id, item] : g.images)
    evaluator.add(static_cast<int>(id), std::move(item.first), std::move(item.second));
  const auto m = evaluator.compute(options.views ? 101 : 0, options.apRule);
  if (options.views) {
    options.views->curves = m.curves;
    options.views->operatingConf = m.operatingConf;
  }
  out.precision = m.precision;
  out.recall = m.recall;
  out.map50 = m.map50;
  out.map5095 = m.map5095;
  for (const auto& c : m.perClass) {
    out.perClass.push_back(
        ClassResult{c.cls, c.images, c.instances, c.precision, c.recall, c.ap50, c.ap5095});
  }
  if (g.batchTotal > 0) {
    for (int c = 0; c < 3; ++c)
      out.loss[static_cast<size_t>(c)] = g.lossTotals[c] / static_cast<double>(g.batchTotal);
  }
  out.images = g.imageCount;
  if (options.views) options.views->perClass = out.perClass;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace stave::train
