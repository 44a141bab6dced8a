#include "core/train/settings.h"

#include "core/data/loader_config.h"

namespace stave::train {

TrainSettings trainSettings(const config::RunConfig& cfg) {
  auto i = [&cfg](const char* key) { return static_cast<int>(cfg.getInt(key)); };
  TrainSettings s;
  s.threads = i("threads");
  s.seed = static_cast<uint64_t>(cfg.getInt("seed"));
  s.deterministic = cfg.getBool("deterministic");
  s.precision = cfg.getString("precision");
  s.amp = cfg.getBool("amp");
  s.devices = cfg.getString("devices");
  s.pinMemory = cfg.getBool("pin_memory");

  s.data = cfg.getString("data");
  s.singleCls = cfg.getBool("single_cls");
  s.fraction = cfg.getFloat("fraction");
  s.maxBadImages = cfg.getFloat("max_bad_images");
  s.trainLoader = data::loaderOptionsFromConfig(cfg, true);
  s.valLoader = data::loaderOptionsFromConfig(cfg, false);

  s.model = cfg.getString("model");
  s.pretrained = cfg.getString("pretrained");
  s.freeze = i("freeze");
  s.channelsLast = cfg.getString("channels_last");
  s.box = cfg.getFloat("box");
  s.cls = cfg.getFloat("cls");
  s.dfl = cfg.getFloat("dfl");
  s.imgsz = i("imgsz");
  s.batch = cfg.getInt("batch");

  s.epochs = i("epochs");
  s.nbs = cfg.getInt("nbs");
  s.lrf = cfg.getFloat("lrf");
  s.warmupEpochs = cfg.getFloat("warmup_epochs");
  s.warmupMomentum = cfg.getFloat("warmup_momentum");
  s.cosLr = cfg.getBool("cos_lr");
  s.closeMosaic = i("close_mosaic");
  s.multiScale = cfg.getBool("multi_scale");
  s.patience = i("patience");
  s.timeHours = cfg.getFloat("time");
  s.resume = cfg.getBool("resume");

  s.val = cfg.getBool("val");
  s.valPeriod = i("val_period");
  s.conf = cfg.getFloat("conf");
  s.iou = cfg.getFloat("iou");
  s.maxDet = i("max_det");
  s.savePeriod = i("save_period");

  s.nnodes = i("nnodes");
  s.syncBn = cfg.getBool("sync_bn");
  s.bucketMb = cfg.getFloat("bucket_mb");
  s.ncclP2pLevel = cfg.getString("nccl_p2p_level");
  s.ncclDebug = cfg.getString("nccl_debug");
  s.ncclShmDisable = cfg.getBool("nccl_shm_disable");
  s.ncclTimeoutS = static_cast<double>(cfg.getInt("nccl_timeout_s"));
  return s;
}

nlohmann::json toJson(const data::LoaderOptions& o) {
  const auto& a = o.aug;
  const char* cache = o.cache == data::CacheMode::Ram    ? "ram"
                      : o.cache == data::CacheMode::Disk ? "disk"
                                                         : "none";
  return {{"imgsz", o.imgsz},
          {"batch", o.batch},
          {"workers", o.workers},
          {"persistent_workers", o.persistentWorkers},
          {"prefetch", o.prefetch},
          {"augment", o.augment},
          {"shuffle", o.shuffle},
          {"channels_last", o.channelsLast},
          {"rect", o.rect},
          {"seed", o.seed},
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
          {"aug",
           {{"hsv_h", a.hsv_h},
            {"hsv_s", a.hsv_s},
            {"hsv_v", a.hsv_v},
            {"degrees", a.degrees},
            {"translate", a.translate},
            {"scale", a.scale},
            {"shear", a.shear},
            {"perspective", a.perspective},
            {"flipud", a.flipud},
            {"fliplr", a.fliplr},
            {"mosaic", a.mosaic},
            {"mixup", a.mixup}}}};
}

nlohmann::json toJson(const TrainSettings& s) {
  return {{"threads", s.threads},
          {"seed", s.seed},
          {"deterministic", s.deterministic},
          {"precision", s.precision},
          {"amp", s.amp},
          {"devices", s.devices},
          {"pin_memory", s.pinMemory},
          {"data", s.data},
          {"single_cls", s.singleCls},
          {"fraction", s.fraction},
          {"max_bad_images", s.maxBadImages},
          {"train_loader", toJson(s.trainLoader)},
          {"val_loader", toJson(s.valLoader)},
          {"model", s.model},
          {"pretrained", s.pretrained},
          {"freeze", s.freeze},
          {"channels_last", s.channelsLast},
          {"box", s.box},
          {"cls", s.cls},
          {"dfl", s.dfl},
          {"imgsz", s.imgsz},
          {"batch", s.batch},
          {"epochs", s.epochs},
          {"nbs", s.nbs},
          {"lrf", s.lrf},
          {"warmup_epochs", s.warmupEpochs},
          {"warmup_momentum", s.warmupMomentum},
          {"cos_lr", s.cosLr},
          {"close_mosaic", s.closeMosaic},
          {"multi_scale", s.multiScale},
          {"patience", s.patience},
          {"time_h", s.timeHours},
          {"resume", s.resume},
          {"val", s.val},
          {"val_period", s.valPeriod},
          {"conf", s.conf},
          {"iou", s.iou},
          {"max_det", s.maxDet},
          {"save_period", s.savePeriod},
          {"nnodes", s.nnodes},
          {"sync_bn", s.syncBn},
          {"bucket_mb", s.bucketMb},
          {"nccl_p2p_level", s.ncclP2pLevel},
          {"nccl_debug", s.ncclDebug},
          {"nccl_shm_disable", s.ncclShmDisable},
          {"nccl_timeout_s", s.ncclTimeoutS}};
}

}  // namespace stave::train
