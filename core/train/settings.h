#pragma once
// Everything the trainer takes from a run config, resolved once by trainSettings(). The trainer
// reads these fields, never the config's keys, so the per-row test (tests/unit/train/
// tst_every_setting.cpp) can prove that every schema row reaches the engine: a changed value
// changes what trainSettings(), config::derive() or the launcher's options hold.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/binding.h"
#include "core/config/run_config.h"
#include "core/data/loader.h"

namespace stave::train {

/// The trainer's options, from the run config. Only trainSettings() fills them: the schema holds
/// the defaults, so the members here start empty.
struct TrainSettings {
  // Runtime.
  int threads = 0;             ///< torch intra-op threads (0: the rank's share of the cores)
  uint64_t seed = 0;           ///< torch's seed, the loader's and multi-scale's
  bool deterministic = false;  ///< deterministic algorithms, no cuDNN benchmark
  std::string precision;       ///< fp32, fp16, bf16 or auto (resolved with `amp` and the device)
  bool amp = false;             ///< mixed precision allowed
  std::string devices;         ///< "", "cpu" or GPU ids "0,1"
  bool pinMemory = false;       ///< page-locked batches on CUDA

  // Data.
  std::string data;                ///< data.yaml
  bool singleCls = false;          ///< every class as one
  double fraction = 0;           ///< share of the train split used
  double maxBadImages = 0;       ///< undecodable share of a split that fails the run
  data::LoaderOptions trainLoader; ///< before the rank, world and core cap are applied
  data::LoaderOptions valLoader;   ///< likewise

  // Model.
  std::string model;        ///< yolov8n ... or a .yaml
  std::string pretrained;   ///< a Stave checkpoint whose matching tensors start the run
  int freeze = 0;           ///< layers kept frozen
  std::string channelsLast;  ///< auto, true or false (resolveChannelsLast, once the device is known)
  double box = 0, cls = 0, dfl = 0;  ///< loss gains
  int imgsz = 0;
  int64_t batch = 0;       ///< per rank (the out-of-memory hint)

  // Schedule (lr0, momentum, weight decay, warmup bias lr and the optimiser: config::derive).
  int epochs = 0;
  int64_t nbs = 0;
  double lrf = 0, warmupEpochs = 0, warmupMomentum = 0;
  bool cosLr = false;
  int closeMosaic = 0;
  bool multiScale = false;
  int patience = 0;
  double timeHours = 0;  ///< 0: no time budget
  bool resume = false;

  // Validation and checkpoints.
  bool val = false;
  int valPeriod = 0;
  double conf = 0, iou = 0;
  int maxDet = 0;
  int savePeriod = 0;

  // Distributed.
  int nnodes = 0;
  bool syncBn = false;
  double bucketMb = 0;
  std::string ncclP2pLevel, ncclDebug;
  bool ncclShmDisable = false;
  double ncclTimeoutS = 0;
  std::string socketIfname;  ///< GLOO_SOCKET_IFNAME / NCCL_SOCKET_IFNAME ("" = route to master)
};

/// The keys the trainer reads, each bound to its TrainSettings member (the loaders' keys are
/// data::loaderBindings() and data::augmentBindings()).
const std::vector<config::FieldBinding<TrainSettings>>& trainSettingBindings();

/// The trainer's settings from `cfg` (a validated config: every key has its type).
TrainSettings trainSettings(const config::RunConfig& cfg);

/// Every field as JSON (the loaders' options included, their allocator left out): the per-row
/// test compares these.
nlohmann::json toJson(const TrainSettings& s);
nlohmann::json toJson(const data::LoaderOptions& o);

}  // namespace stave::train
