#include "core/data/loader_config.h"

namespace stave::data {

const std::vector<config::FieldBinding<AugmentOptions>>& augmentBindings() {
  using A = AugmentOptions;
  static const std::vector<config::FieldBinding<A>> table{
      {"hsv_h", &A::hsv_h},         {"hsv_s", &A::hsv_s},
      {"hsv_v", &A::hsv_v},         {"degrees", &A::degrees},
      {"translate", &A::translate}, {"scale", &A::scale},
      {"shear", &A::shear},         {"perspective", &A::perspective},
      {"flipud", &A::flipud},       {"fliplr", &A::fliplr},
      {"mosaic", &A::mosaic},       {"mixup", &A::mixup},
  };
  return table;
}

const std::vector<config::FieldBinding<LoaderOptions>>& loaderBindings() {
  using L = LoaderOptions;
  static const std::vector<config::FieldBinding<L>> table{
      {"imgsz", &L::imgsz},
      {"batch", &L::batch},
      {"workers", &L::workers},
      {"prefetch", &L::prefetch},
      {"persistent_workers", &L::persistentWorkers},
      {"seed", &L::seed},
  };
  return table;
}

AugmentOptions augmentOptionsFromConfig(const config::RunConfig& cfg) {
  AugmentOptions a;
  config::applyBindings(cfg, augmentBindings(), a);
  return a;
}

LoaderOptions loaderOptionsFromConfig(const config::RunConfig& cfg, bool train) {
  LoaderOptions lo;
  config::applyBindings(cfg, loaderBindings(), lo);
  lo.augment = train;
  lo.shuffle = train;
  // channels_last=auto depends on the device; the trainer resolves it (resolveChannelsLast).
  lo.channelsLast = cfg.getString("channels_last") == "true";
  lo.rect = !train && cfg.getBool("rect");
  lo.aug = augmentOptionsFromConfig(cfg);
  if (auto cache = parseCacheMode(cfg.getString("cache"))) lo.cache = cache.value();
  return lo;
}

}  // namespace stave::data
