#include "core/studio/models/augment_preview.h"

#include <QCoreApplication>

#include <algorithm>
#include <cstring>

#include "core/data/loader.h"
#include "core/data/loader_config.h"
#include "core/data/rng.h"
#include "core/studio/engine_text.h"

namespace stave::studio {

AugmentPreview buildAugmentPreview(const data::SplitIndex& train, const config::RunConfig& cfg,
                                   int draw, int maxImages) {
  AugmentPreview out;
  try {
    if (train.images.empty()) {
      out.error = QCoreApplication::translate("stave::studio::AugmentPreview",
                                              "the train split has no usable images");
      return out;
    }
    data::LoaderOptions lo = data::loaderOptionsFromConfig(cfg, /*train=*/true);
    // A preview on the caller's thread: no worker threads, no RAM or disk cache to build, and
    // nothing process-wide changed (malloc tuning, OpenCV's thread count).
    lo.workers = 0;
    lo.prefetch = 0;
    lo.batch = std::clamp(lo.batch, 1, std::max(1, maxImages));
    lo.cache = data::CacheMode::None;
    lo.tuneMalloc = false;
    lo.sequentialOpenCv = false;
    data::Loader loader(train, lo);
    const int64_t batches = std::max<int64_t>(1, loader.batchesPerEpoch());
    out.epoch = draw;
    out.batch = int64_t(data::mixSeed(lo.seed, uint64_t(draw), 0x5eedu) % uint64_t(batches));
    const data::Batch b = loader.buildBatch(out.epoch, /*mosaicOn=*/true, out.batch);
    const int w = b.width, h = b.height;
    const size_t plane = size_t(w) * size_t(h);
    const uint8_t* px = b.pixels.get();
    for (int i = 0; i < b.n; ++i) {
      AugmentPreview::Image im;
      im.width = w;
      im.height = h;
      im.path = i < int(b.paths.size()) ? QString::fromStdString(b.paths[size_t(i)]) : QString();
      im.rgb.resize(qsizetype(plane * 3));
      auto* dst = reinterpret_cast<uint8_t*>(im.rgb.data());
      const uint8_t* src = px + size_t(i) * plane * 3;
      if (b.channelsLast) {
        std::memcpy(dst, src, plane * 3);
      } else {
        for (size_t p = 0; p < plane; ++p) {
          dst[3 * p] = src[p];
          dst[3 * p + 1] = src[plane + p];
          dst[3 * p + 2] = src[2 * plane + p];
        }
      }
      out.images.push_back(std::move(im));
    }
    for (int64_t t = 0; t < b.numTargets(); ++t) {
      const float* r = &b.targets[size_t(t) * 6];
      const int i = int(r[0]);
      if (i < 0 || i >= out.images.size()) continue;
      out.images[i].boxes.push_back(
          {int(r[1]), QRectF(r[2] - r[4] / 2, r[3] - r[5] / 2, r[4], r[5])});
    }
    out.targets = b.numTargets();
  } catch (const std::exception& e) {
    out.images.clear();
    // The loader's own words kept, in a sentence of the studio's language.
    out.error = engineText(Text("data.preview_failed", {{"reason", e.what()}}));
  }
  return out;
}

}  // namespace stave::studio
