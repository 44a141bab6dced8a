// What a run writes besides its step events: warnings (incl. images that cannot be used),
// run_start with the dataset hash, config.yaml, results.csv and the checkpoints.
#include "core/train/trainer_impl.h"

#include "core/base/hash.h"
#include "core/base/host_name.h"
#include "core/data/label_history.h"

namespace stave::train {

using namespace detail;

void Trainer::Impl::warn(const std::string& message, const std::string& source) {
  if (rank == 0) emit(telemetry::WarningEvent{message, source});
}

void Trainer::Impl::warn(Text text, const std::string& source) {
  if (rank != 0) return;
  telemetry::WarningEvent w{english(text), source};
  w.text = {std::move(text)};
  emit(w);
}

void Trainer::Impl::reportImageProblems(data::Loader& loader, const std::string& split, bool flush) {
  constexpr int64_t kNamed = 10;
  auto& r = imageProblems[split];
  for (const auto& p : loader.takeImageProblems()) {
    if (p.undecodable) ++r.total;
    if (r.named < kNamed) {
      ++r.named;
      const bool named = p.reason.rfind(p.path, 0) == 0;  // decoders often name the file
      const std::string problem = named ? p.reason : p.path + ": " + p.reason;
      // The decoder's own words stay as they are; what Stave did with the image is a message.
      telemetry::WarningEvent w{problem, "data"};
      if (p.undecodable) {
        w.text = {Text("train.image_grey", {{"problem", problem}, {"split", split}})};
        w.message = english(w.text);
      }
      emit(w);
    } else {
      ++r.unnamed;
    }
  }
  if (r.unnamed > 0 && (flush || secondsSince(r.lastSummary) >= 60)) {
    telemetry::WarningEvent w;
    w.source = "data";
    w.text = {Text("train.images_more", {{"count", std::to_string(r.unnamed)},
                                         {"split", split},
                                         {"total", std::to_string(r.total)},
                                         {"rank", std::to_string(rank)}})};
    w.message = english(w.text);
    emit(w);
    r.unnamed = 0;
    r.lastSummary = Clock::now();
  }
  const int64_t n = loader.splitSize();
  if (r.total > 0 && static_cast<double>(r.total) > settings.maxBadImages * static_cast<double>(n))
    throw RunFailure(Text("train.bad_images", {{"bad", std::to_string(r.total)},
                                               {"total", std::to_string(n)},
                                               {"split", split},
                                               {"max", csvNumber(settings.maxBadImages)}}),
                     Text("train.bad_images.hint"));
}

const std::string& Trainer::Impl::datasetHash() {
  if (datasetHashOnce.empty()) datasetHashOnce = computeDatasetHash();
  return datasetHashOnce;
}

std::string Trainer::Impl::computeDatasetHash() const {
  ContentHash h;
  for (const auto* index : {trainIndex.get(), valIndex.get()}) {
    if (!index) continue;
    h.add(index->split);
    for (const auto& im : index->images) {
      const std::string rel = fs::path(im.imagePath).lexically_relative(spec.root).generic_string();
      h.add(rel.data(), rel.size() + 1);
      h.addValue(im.width);
      h.addValue(im.height);
      for (const auto& b : im.boxes) {
        h.addValue(b.cls);
        for (float v : {b.cx, b.cy, b.w, b.h}) h.addValue(v);
      }
    }
  }
  return h.hex();
}

void Trainer::Impl::writeRunStart() {
  if (rank != 0) return;
  telemetry::RunStartEvent e;
  e.versions["stave"] = o.version;
  e.versions["torch"] = TORCH_VERSION;
  if (const auto* rt = cuda::runtime(); rt && device.is_cuda()) {
    const int v = rt->cudaRuntimeVersion();  // 13000 = 13.0
    if (v > 0) e.versions["cuda"] = std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
  }
  e.device = device.is_cuda() ? "cuda" : "cpu";
  e.deviceNames.push_back(device.str());
  e.worldSize = world;
  e.nnodes = settings.nnodes;
  e.dataset.yaml = spec.yamlPath;
  e.dataset.trainImages = static_cast<int64_t>(trainIndex->images.size());
  e.dataset.valImages = static_cast<int64_t>(valIndex->images.size());
  e.dataset.nc = nc;
  e.dataset.names = spec.names;
  e.config = nlohmann::json::parse(config::toJson(cfg));
  // What the run trains with where the config leaves it to Stave: optimizer=auto's choice and
  // its learning rate, the batch-scaled lr and weight decay, accumulation (History's diff and
  // the studio show these beside the config's own values).
  e.resolved = {{"precision", precisionName(precision)},
                {"channels_last", channelsLast},
                {"optimizer", optChoice.sgd ? "SGD" : "AdamW"},
                {"lr0", schedOptions.lr0},
                {"momentum", schedOptions.momentum},
                {"weight_decay", weightDecayUsed},
                {"warmup_bias_lr", schedOptions.warmupBiasLr},
                {"accumulate", schedOptions.accumulate},
                {"global_batch", cfg.getInt("batch") * world},
                {"model", modelName}};
  if (!weightsReport.is_null()) e.resolved["weights"] = weightsReport;
  e.nccl.backend = world > 1 ? (device.is_cuda() ? "nccl" : "gloo") : "";
  e.nccl.p2pLevel = settings.ncclP2pLevel;
  e.nccl.shmDisable = settings.ncclShmDisable;
  e.nccl.debug = settings.ncclDebug;
  e.nccl.timeoutS = settings.ncclTimeoutS;
  e.nccl.bucketMb = settings.bucketMb;
  if (dist) e.nccl.interface = dist->glooDevice();
  e.runDir = o.runDir;
  e.host = hostName();
  e.dataset.contentHash = datasetHash();
  // Where the dataset's label edit log stands: History tells two runs' label files apart by it.
  e.dataset.labelEdits = data::labelEditCount(spec.root);
  emit(e);
}

void Trainer::Impl::writeConfigYaml() {
  if (rank != 0) return;
  auto s = writeFileAtomic(path("config.yaml"), config::toYaml(cfg));
  if (!s)
    throw RunFailure(s.errors(), Text("train.hint.writable"), kTrainBadInput);
}

void Trainer::Impl::writeResults() {
  std::string text = std::string(kCsvHeader) + "\n";
  for (const auto& r : csvRows) text += r + "\n";
  auto s = writeFileAtomic(path("results.csv"), text);
  if (!s) warn(Text("train.results_not_written", {{"reason", s.errorText()}}), "io");
}

CheckpointMeta Trainer::Impl::metaFor(int completedEpoch) {
  CheckpointMeta m = state;
  m.epoch = completedEpoch;
  m.epochs = epochs;
  m.emaUpdates = ema->updates();
  m.scalerScale = scaler.scaleValue();
  m.scalerGrowth = scaler.growthTracker();
  m.nonFiniteTotal = state.nonFiniteTotal;
  m.configYaml = config::toYaml(cfg);
  m.scale = modelName;
  m.nc = nc;
  m.imgsz = settings.imgsz;
  m.names = settings.singleCls ? std::vector<std::string>{"object"} : spec.names;
  m.optimizer = optChoice.sgd ? "SGD" : "AdamW";
  m.optimizerLr0 = optChoice.lr0;
  m.worldSize = world;
  m.epochBatches = 0;  // an epoch boundary unless saveCheckpointAs is told otherwise
  m.epochLoss.clear();
  return m;
}

void Trainer::Impl::saveCheckpointAs(const std::string& rel, int completedEpoch, telemetry::CheckpointKind kind, const EpochProgress* partial) {
  const std::string p = path(rel);
  struct Busy {  // a stopping rank's watchdog waits for the write, however slow the storage
    std::atomic<int>* n;
    explicit Busy(std::atomic<int>* count) : n(count) {
      if (n) ++*n;
    }
    ~Busy() {
      if (n) --*n;
    }
  } busy(o.busy);
  CheckpointMeta meta = metaFor(completedEpoch);
  meta.datasetHash = datasetHash();
  if (partial) {
    meta.epochBatches = partial->batches;
    meta.epochLoss = {partial->loss[0], partial->loss[1], partial->loss[2],
                      static_cast<double>(partial->counted)};
  }
  // last.pt keeps the accumulated gradients too: resuming from it is exact.
  CheckpointParts parts{model.get(), emaModel.get(), optimizer.get()};
  parts.gradients = kind == telemetry::CheckpointKind::Last;
  auto s = saveCheckpoint(p, parts, meta);
  if (!s) throw RunFailure(s.errors(), Text("train.hint.disk_space"));
  emit(telemetry::CheckpointEvent{p, completedEpoch, kind});
}

}  // namespace stave::train
