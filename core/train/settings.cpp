#include "core/train/settings.h"

#include "core/data/loader_config.h"

namespace stave::train {

const std::vector<config::FieldBinding<TrainSettings>>& trainSettingBindings() {
  using S = TrainSettings;
  static const std::vector<config::FieldBinding<S>> table{
      // Runtime.
      {"threads", &S::threads},
      {"seed", &S::seed},
      {"deterministic", &S::deterministic},
      {"precision", &S::precision},
      {"amp", &S::amp},
      {"devices", &S::devices},
      {"pin_memory", &S::pinMemory},
      // Data (the loaders' keys: data::loaderBindings()).
      {"data", &S::data},
      {"single_cls", &S::singleCls},
      {"fraction", &S::fraction},
      {"max_bad_images", &S::maxBadImages},
      // Model.
      {"model", &S::model},
      {"pretrained", &S::pretrained},
      {"freeze", &S::freeze},
      {"channels_last", &S::channelsLast},
      {"box", &S::box},
      {"cls", &S::cls},
      {"dfl", &S::dfl},
      {"imgsz", &S::imgsz},
      {"batch", &S::batch},
      // Schedule.
      {"epochs", &S::epochs},
      {"nbs", &S::nbs},
      {"lrf", &S::lrf},
      {"warmup_epochs", &S::warmupEpochs},
      {"warmup_momentum", &S::warmupMomentum},
      {"cos_lr", &S::cosLr},
      {"close_mosaic", &S::closeMosaic},
      {"multi_scale", &S::multiScale},
      {"patience", &S::patience},
      {"time", &S::timeHours},
      {"resume", &S::resume},
      // Validation and checkpoints.
      {"val", &S::val},
      {"val_period", &S::valPeriod},
      {"conf", &S::conf},
      {"iou", &S::iou},
      {"max_det", &S::maxDet},
      {"save_period", &S::savePeriod},
      // Distributed.
      {"nnodes", &S::nnodes},
      {"sync_bn", &S::syncBn},
      {"bucket_mb", &S::bucketMb},
      {"nccl_p2p_level", &S::ncclP2pLevel},
      {"nccl_debug", &S::ncclDebug},
      {"nccl_shm_disable", &S::ncclShmDisable},
      {"nccl_timeout_s", &S::ncclTimeoutS},
      {"socket_ifname", &S::socketIfname},
  };
  return table;
}

TrainSettings trainSettings(const config::RunConfig& cfg) {
  TrainSettings s;
  config::applyBindings(cfg, trainSettingBindings(), s);
  s.trainLoader = data::loaderOptionsFromConfig(cfg, true);
  s.valLoader = data::loaderOptionsFromConfig(cfg, false);
  return s;
}

nlohmann::json toJson(const data::LoaderOptions& o) {
  const char* cache = o.cache == data::CacheMode::Ram    ? "ram"
                      : o.cache == data::CacheMode::Disk ? "disk"
                                                         : "none";
  nlohmann::json j = config::bindingsJson(data::loaderBindings(), o);
  j.update({{"augment", o.augment},
            {"shuffle", o.shuffle},
            {"channels_last", o.channelsLast},
            {"rect", o.rect},
            {"rank", o.rank},
            {"world_size", o.worldSize},
            {"cache", cache},
            {"disk_cache_path", o.diskCachePath},
            {"ram_budget_bytes", o.ramBudgetBytes},
            {"stride", o.stride},
            {"rect_pad", o.rectPad},
            {"mosaic_lag", o.mosaicLag},
            {"mosaic_window", o.mosaicWindow},
            {"timeout_s", o.timeoutSeconds},
            {"aug", config::bindingsJson(data::augmentBindings(), o.aug)}});
  return j;
}

nlohmann::json toJson(const TrainSettings& s) {
  nlohmann::json j = config::bindingsJson(trainSettingBindings(), s);
  j["train_loader"] = toJson(s.trainLoader);
  j["val_loader"] = toJson(s.valLoader);
  return j;
}

}  // namespace stave::train
