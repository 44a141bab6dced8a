#include "core/data/loader_config.h"

namespace stave::data {

AugmentOptions augmentOptionsFromConfig(const config::RunConfig& cfg) {
  AugmentOptions a;
  a.hsv_h = cfg.getFloat("hsv_h");
  a.hsv_s = cfg.getFloat("hsv_s");
  a.hsv_v = cfg.getFloat("hsv_v");
  a.degrees = cfg.getFloat("degrees");
  a.translate = cfg.getFloat("translate");
  a.scale = cfg.getFloat("scale");
  a.shear = cfg.getFloat("shear");
  a.perspective = cfg.getFloat("perspective");
  a.flipud = cfg.getFloat("flipud");
  a.fliplr = cfg.getFloat("fliplr");
  a.mosaic = cfg.getFloat("mosaic");
  a.mixup = cfg.getFloat("mixup");
  return a;
}

LoaderOptions loaderOptionsFromConfig(const config::RunConfig& cfg, bool train) {
  LoaderOptions lo;
  lo.imgsz = static_cast<int>(cfg.getInt("imgsz"));
  lo.batch = static_cast<int>(cfg.getInt("batch"));
  lo.workers = static_cast<int>(cfg.getInt("workers"));
  lo.prefetch = static_cast<int>(cfg.getInt("prefetch"));
  lo.persistentWorkers = cfg.getBool("persistent_workers");
  lo.augment = train;
  lo.shuffle = train;
  // channels_last=auto depends on the device; the trainer resolves it (resolveChannelsLast).
  lo.channelsLast = cfg.getString("channels_last") == "true";
  lo.rect = !train && cfg.getBool("rect");
  lo.seed = static_cast<uint64_t>(cfg.getInt("seed"));
  lo.aug = augmentOptionsFromConfig(cfg);
  if (auto cache = parseCacheMode(cfg.getString("cache"))) lo.cache = cache.value();
  return lo;
}

}  // namespace stave::data
