#include "core/train/trainer.h"
#include "core/config/clock.h"

#include <unistd.h>

#include <torch/torch.h>
#include <torch/version.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>

#include "core/config/atomic_file.h"
#include "core/cuda/runtime.h"
#include "core/data/dataset.h"
#include "core/data/loader.h"
#include "core/model/yolo.h"
#include "core/telemetry/event_sink.h"
#include "core/telemetry/events.h"
#include "core/train/amp.h"
#include "core/train/checkpoint.h"
#include "core/train/device_input.h"
#include "core/train/loss.h"
#include "core/train/optimizer.h"
#include "core/train/pickle_writer.h"
#include "core/train/schedule.h"
#include "core/train/settings.h"
#include "core/train/trainer_dist.h"
#include "core/train/validator.h"

namespace fs = std::filesystem;

namespace stave::train {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kMaxNonFiniteInARow = 5;
constexpr double kMaxGradNorm = 10.0;
constexpr double kStepEventInterval = 0.5;  // seconds between step events of a rank

/// Fault injection for the doctor's tests (docs/doctor.md): STAVE_FAULT_SLOW_DATA_MS=M makes
/// the rank STAVE_FAULT_SLOW_DATA_RANK (every rank when unset) wait M ms more for each batch, as
/// a starved loader would. 0 when not asked for this rank.
int slowDataMs(int rank) {
  const char* ms = std::getenv("STAVE_FAULT_SLOW_DATA_MS");
  if (!ms || !*ms) return 0;
  const char* only = std::getenv("STAVE_FAULT_SLOW_DATA_RANK");
  if (only && *only && std::atoi(only) != rank) return 0;
  return std::max(0, std::atoi(ms));
}
/// Diagnostics for the paired benchmark's trajectory test (tests/bench/ultralytics trajectory):
/// STAVE_DEBUG_RECORD_BATCHES=DIR writes every batch this rank trains on, as the loader made
/// it (uint8 RGB pixels NCHW, targets: image, class, cx, cy, w, h normalised), to
/// DIR/batch-r<rank>-<ni>.pt in torch.save() format, so that another trainer can be fed exactly
/// the same data. Before multi_scale's resize. Empty when not asked for.
std::string recordBatchesDir() {
  const char* dir = std::getenv("STAVE_DEBUG_RECORD_BATCHES");
  return dir && *dir ? dir : "";
}

void recordBatch(const std::string& dir, int rank, int64_t ni, const data::Batch& b) {
  PickleWriter w;
  w.beginDict();
  w.string("ni");
  w.integer(ni);
  w.string("epoch");
  w.integer(b.epoch);
  w.string("pixels");
  w.tensor(batchPixels(b).contiguous());
  w.string("targets");
  w.tensor(batchTargets(b, torch::kCPU));
  w.endDict();
  char name[64];
  std::snprintf(name, sizeof name, "batch-r%d-%06lld.pt", rank, static_cast<long long>(ni));
  const std::string file = (fs::path(dir) / name).string();
  if (auto s = writeFileAtomic(file, w.archive()); !s)
    throw std::runtime_error("STAVE_DEBUG_RECORD_BATCHES: " + s.errorText());
}

// On CUDA the ranks agree on a stop request every this many steps (a collective read back to
// the host waits for the whole step); on the CPU, where nothing runs ahead, at every step.
constexpr int64_t kCudaStopCheckEvery = 8;

/// The epoch's running mean losses and the non-finite counts, kept on the training device so
/// that a step reads nothing back; flush() brings them to the host in one small copy. The
/// running mean is updated exactly as a host loop would (same formula, in double).
class LossTracker {
 public:
  /// Counts read back by flush(); nonFinite and skipped are the steps since the last flush.
  struct Snapshot {
    std::array<double, 3> mean{0, 0, 0};
    int64_t counted = 0;
    int64_t consecutiveNonFinite = 0;
    int64_t nonFinite = 0;
    int64_t skipped = 0;
  };
  void reset(const torch::Device& device, const std::array<double, 3>& mean, int64_t counted,
             int64_t consecutive) {
    m_state = torch::tensor({mean[0], mean[1], mean[2], static_cast<double>(counted),
                             static_cast<double>(consecutive), 0.0, 0.0},
                            torch::kDouble)
                  .to(device);
  }
  /// One step's loss items (3 values on the device).
  void add(const torch::Tensor& items) {
    torch::NoGradGuard noGrad;
    auto it = items.detach().to(torch::kDouble).reshape({3});
    auto finite = torch::isfinite(it).all();
    auto mean = m_state.narrow(0, 0, 3), count = m_state.narrow(0, 3, 1);
    auto updated = (mean * count + it) / (count + 1.0);
    mean.copy_(torch::where(finite, updated, mean));
    const auto f = finite.to(torch::kDouble);
    count.add_(f);
    auto consecutive = m_state.narrow(0, 4, 1);
    consecutive.copy_((consecutive + 1.0) * (1.0 - f));
    m_state.narrow(0, 5, 1).add_(1.0 - f);
  }
  /// One optimiser step's finite flag from GradScaler::clipOnDevice (0 = neutralised).
  void addStepOutcome(const torch::Tensor& finite) { m_state.narrow(0, 6, 1).add_(1.0 - finite); }
  Snapshot flush() {
    const auto h = m_state.to(torch::kCPU);
    const double* v = h.data_ptr<double>();
    Snapshot s;
    s.mean = {v[0], v[1], v[2]};
    s.counted = static_cast<int64_t>(v[3]);
    s.consecutiveNonFinite = static_cast<int64_t>(v[4]);
    s.nonFinite = static_cast<int64_t>(v[5]);
    s.skipped = static_cast<int64_t>(v[6]);
    if (s.nonFinite || s.skipped) m_state.narrow(0, 5, 2).zero_();
    return s;
  }

 private:
  torch::Tensor m_state;  // box, cls, dfl mean; counted; consecutive non-finite; deltas
};

/// A user-facing failure with a hint; becomes an error event.
struct RunFailure : std::runtime_error {
  RunFailure(const std::string& message, std::string hint_, int code_ = kTrainFailed)
      : std::runtime_error(message), hint(std::move(hint_)), code(code_) {}
  std::string hint;
  int code;
};

const char* kCsvHeader =
    "epoch,train/box_loss,train/cls_loss,train/dfl_loss,metrics/precision(B),metrics/recall(B),"
    "metrics/mAP50(B),metrics/mAP50-95(B),val/box_loss,val/cls_loss,val/dfl_loss,lr/pg0,lr/pg1,lr/"
    "pg2";

std::string csvNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

bool isOutOfMemory(const std::exception& e) {
  if (dynamic_cast<const c10::OutOfMemoryError*>(&e)) return true;
  const std::string what = e.what();
  return what.find("out of memory") != std::string::npos ||
         what.find("CUDA out of memory") != std::string::npos;
}

}  // namespace

std::string chooseRunDir(const config::RunConfig& config, const std::string& besideFolder) {
  std::string project = config.getString("project");
  fs::path base = project.empty() ? fs::path(besideFolder) / "runs" : fs::path(project);
  std::string name = config.getString("name");
  if (name.empty()) name = "train";
  fs::path dir = base / name;
  // Ultralytics' rule: a taken name gets the next free number (train, train2, ...), unless
  // exist_ok asks for that very folder (the caller then moves an old run aside).
  if (config.getBool("exist_ok")) return dir.lexically_normal().string();
  for (int i = 2; fs::exists(dir); ++i) dir = base / (name + std::to_string(i));
  return dir.lexically_normal().string();
}

struct Trainer::Impl {
  TrainOptions o;
  // The config as given: written into config.yaml, run_start and the checkpoints, and handed to
  // config::derive() for the optimiser; every other value comes from `settings`.
  const config::RunConfig& cfg;
  const TrainSettings settings;  // what the trainer takes from cfg
  torch::Device device{torch::kCPU};
  Precision precision = Precision::Fp32;
  bool channelsLast = false;  ///< channels_last resolved for the device
  int rank = 0, world = 1;
  Clock::time_point runStart = Clock::now();

  data::DataSpec spec;
  std::unique_ptr<data::SplitIndex> trainIndex, valIndex;
  std::unique_ptr<data::Loader> trainLoader, valLoader;
  int nc = 0;

  model::Yolo model{nullptr}, emaModel{nullptr};
  std::unique_ptr<ModelEma> ema;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  config::OptimizerChoice optChoice;  // as resolved (checkpoints record it)
  std::unique_ptr<DetectionLoss> loss;
  ScheduleOptions schedOptions;
  std::unique_ptr<Schedule> schedule;
  GradScaler scaler;
  std::vector<torch::Tensor> params;
  std::unique_ptr<DistContext> dist;
  std::unique_ptr<DeviceFeeder> feeder;
  LossTracker losses;

  int epochs = 0;
  int64_t nb = 0;
  CheckpointMeta state;  // progress: what goes into last.pt
  std::vector<std::string> csvRows;
  int consecutiveNonFinite = 0;
  int64_t skippedSteps = 0;
  double trainSeconds = 0, valSeconds = 0;
  int epochsThisProcess = 0;  // epochs this process trained (--stop-after counts them)
  std::vector<double> epochTimes;

  /// How far the current epoch got: batches done, running mean loss and the steps in it.
  struct EpochProgress {
    int64_t batches = 0;
    std::array<double, 3> loss{0, 0, 0};
    int64_t counted = 0;
  };
  int64_t batchesThisProcess = 0;
  std::string datasetHashOnce;
  bool stoppedBeforeStart = false;  // a stop request came before the rendezvous  // what checkpoints record (the data does not change mid-run)
  // Images that could not be decoded (or whose cache entry was damaged), per split: named one
  // by one at first, then in a summary at most once a minute.
  struct ImageProblemReport {
    int64_t named = 0, unnamed = 0, total = 0;
    Clock::time_point lastSummary = Clock::now();
  };
  std::map<std::string, ImageProblemReport> imageProblems;
  std::string pretrainedSummary;   // what pretrained= transferred, when partly (a warning event)
  std::optional<CheckpointReader> resumeFrom;  // weights/last.pt while a resume sets up

  explicit Impl(TrainOptions opts)
      : o(std::move(opts)),
        cfg(o.config),
        settings(trainSettings(o.config)),
        rank(o.rank),
        world(o.worldSize) {}

  template <typename Typed>
  void emit(const Typed& e) {
    if (o.sink) o.sink->write(telemetry::toEvent(e, rank));
  }
  void warn(const std::string& message, const std::string& source) {
    if (rank == 0) emit(telemetry::WarningEvent{message, source});
  }
  std::string path(const std::string& rel) const { return (fs::path(o.runDir) / rel).string(); }

  /// Warns about the images `loader` could not use since the last call (each rank its own),
  /// and fails the run when more than max_bad_images of the split could not be decoded: a
  /// run that trains on grey stand-ins must not end "completed" without a word.
  void reportImageProblems(data::Loader& loader, const std::string& split, bool flush) {
    constexpr int64_t kNamed = 10;
    auto& r = imageProblems[split];
    for (const auto& p : loader.takeImageProblems()) {
      if (p.undecodable) ++r.total;
      if (r.named < kNamed) {
        ++r.named;
        const bool named = p.reason.rfind(p.path, 0) == 0;  // decoders often name the file
        emit(telemetry::WarningEvent{
            (named ? p.reason : p.path + ": " + p.reason) +
                (p.undecodable ? "; used as a grey " + split + " image without boxes" : ""),
            "data"});
      } else {
        ++r.unnamed;
      }
    }
    if (r.unnamed > 0 && (flush || secondsSince(r.lastSummary) >= 60)) {
      emit(telemetry::WarningEvent{
          std::to_string(r.unnamed) + " more " + split + " images could not be used (" +
              std::to_string(r.total) + " undecodable so far on rank " + std::to_string(rank) +
              "); stave-train check-dataset --verify lists them",
          "data"});
      r.unnamed = 0;
      r.lastSummary = Clock::now();
    }
    const int64_t n = loader.splitSize();
    if (r.total > 0 && static_cast<double>(r.total) > settings.maxBadImages * static_cast<double>(n))
      throw RunFailure(std::to_string(r.total) + " of " + std::to_string(n) + " " + split +
                           " images could not be decoded, more than max_bad_images=" +
                           csvNumber(settings.maxBadImages) + " of the split",
                       "fix or remove the broken files (stave-train check-dataset --verify "
                       "names them), or raise max_bad_images to train on without them");
  }

  // ---------------------------------------------------------------- setup
  void setupRuntime() {
    int threads = settings.threads;
    if (threads <= 0) {
      const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
      threads = std::max(1, cores / std::max(1, o.localWorldSize));
    }
    torch::set_num_threads(threads);
    const uint64_t seed = settings.seed;
    torch::manual_seed(seed);
    if (settings.deterministic) {
      at::globalContext().setDeterministicAlgorithms(true, /*warn_only=*/true);
      at::globalContext().setDeterministicCuDNN(true);
      at::globalContext().setBenchmarkCuDNN(false);
    }
    device = resolveDevice();
    feeder = std::make_unique<DeviceFeeder>(device);
    // Static input shapes (multi-scale aside): let cuDNN time its algorithms once.
    if (device.is_cuda() && !settings.deterministic) setCudnnBenchmark(true);
    auto p = resolvePrecision(settings.precision, settings.amp, device);
    if (!p)
      throw RunFailure(p.errorText(), "set precision=fp32 or bf16 on the CPU", kTrainBadInput);
    precision = p.value();
    channelsLast = resolveChannelsLast(settings.channelsLast, device);
    GradScalerOptions so;
    so.enabled = precision == Precision::Fp16;
    scaler = GradScaler(so);
  }

  torch::Device resolveDevice() {
    const std::string devices = settings.devices;
    if (devices == "cpu") return torch::kCPU;
    if (!cuda::available()) {
      if (devices.empty()) return torch::kCPU;
      throw RunFailure("devices=" + devices + " asks for GPUs, but there is no CUDA device: " +
                           cuda::unavailableReason(),
                       "use devices=cpu, or run where an NVIDIA GPU and its driver are",
                       kTrainBadInput);
    }
    std::vector<int> ids;
    std::stringstream ss(devices);
    for (std::string item; std::getline(ss, item, ',');) {
      if (!item.empty()) ids.push_back(std::stoi(item));
    }
    const int count = cuda::deviceCount();
    if (ids.empty()) {
      for (int i = 0; i < count; ++i) ids.push_back(i);
    }
    const int id = ids[static_cast<size_t>(o.localRank) % ids.size()];
    if (id < 0 || id >= count) {
      throw RunFailure("devices: GPU " + std::to_string(id) + " does not exist (" +
                           std::to_string(count) + " visible)",
                       "list GPUs 0.." + std::to_string(count - 1), kTrainBadInput);
    }
    return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(id));
  }

  data::LoaderOptions loaderOptions(bool train) const {
    data::LoaderOptions lo = train ? settings.trainLoader : settings.valLoader;
    // Ultralytics' cap: no more loader threads than this rank's share of the CPU cores (more
    // only compete with each other and with the model's threads).
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    lo.workers = std::min(lo.workers, std::max(1, cores / std::max(1, o.localWorldSize)));
    lo.rank = rank;
    lo.worldSize = world;
    lo.channelsLast = channelsLast;
    if (device.is_cuda() && settings.pinMemory) lo.allocate = pinnedHostAllocator();
    return lo;
  }

  void setupData() {
    auto specR = data::loadDataYaml(settings.data);
    if (!specR)
      throw RunFailure(specR.errorText(), "check the `data` key and the dataset's data.yaml",
                       kTrainBadInput);
    spec = specR.value();
    nc = settings.singleCls ? 1 : spec.nc();
    data::ScanOptions so;
    auto scan = [&](const std::string& split) {
      auto r = data::scanSplit(spec, split, so);
      if (!r)
        throw RunFailure(r.errorText(), "run `stave-train check-dataset` on the data.yaml",
                         kTrainBadInput);
      if (r->images.empty()) {
        throw RunFailure("the " + split + " split of " + spec.yamlPath + " has no usable images",
                         "run `stave-train check-dataset` to see why", kTrainBadInput);
      }
      if (!r->problems.empty()) {
        warn(std::to_string(r->problems.size()) + " problems in the " + split + " split (first: " +
                 r->problems.front().toString() + "); see `stave-train check-dataset`",
             "data");
      }
      return std::make_unique<data::SplitIndex>(std::move(r.value()));
    };
    trainIndex = scan("train");
    valIndex = scan("val");
    applyFraction(*trainIndex);
    trainLoader = std::make_unique<data::Loader>(*trainIndex, loaderOptions(true));
    valLoader = std::make_unique<data::Loader>(*valIndex, loaderOptions(false));
    nb = trainLoader->batchesPerEpoch();
    if (nb <= 0)
      throw RunFailure("the train split gives no batches", "use a smaller batch", kTrainBadInput);
  }

  void applyFraction(data::SplitIndex& index) const {
    const double fraction = settings.fraction;
    if (fraction >= 1.0) return;
    const size_t keep = std::max<size_t>(
        1, static_cast<size_t>(fraction * static_cast<double>(index.images.size())));
    index.images.resize(std::min(keep, index.images.size()));
  }

  /// pretrained=CKPT: the checkpoint's tensors that match this model by name and shape (a new
  /// run only; a resume restores everything from its own last.pt). Every rank reads the same
  /// file, so the ranks start equal.
  void transferPretrained() {
    const std::string path = settings.pretrained;
    if (path.empty() || settings.resume) return;
    const std::string hint = "pretrained takes a Stave checkpoint (.pt), e.g. runs/<id>/weights/best.pt";
    auto reader = CheckpointReader::open(path);
    if (!reader) throw RunFailure(reader.errorText(), hint, kTrainBadInput);
    auto t = reader->transferMatching(*model);
    if (!t) throw RunFailure(t.errorText(), hint, kTrainBadInput);
    if (t->transferred == 0)
      throw RunFailure(path + ": no tensor of it matches this model (" + settings.model +
                           ", " + std::to_string(nc) + " classes)",
                       hint, kTrainBadInput);
    std::string text = "pretrained: transferred " + std::to_string(t->transferred) + "/" +
                       std::to_string(t->total) + " tensors from " + path;
    if (!t->skipped.empty()) {
      text += "; kept " + std::to_string(t->skipped.size()) + " as initialised, e.g. " +
              t->skipped.front();
      if (t->skipped.size() > 1) text += ", " + t->skipped[1];
    }
    if (!t->skipped.empty()) pretrainedSummary = text;
    if (rank == 0) std::cerr << text << "\n";
  }

  void setupModel() {
    model::ModelOptions mo;
    mo.scale = settings.model;
    mo.nc = nc;
    model = model::Yolo(mo);
    emaModel = model::Yolo(mo);
    transferPretrained();
    const int freeze = settings.freeze;
    if (freeze > 0) model->freeze(freeze);
    model->to(device);
    emaModel->to(device);
    if (channelsLast) {
      toChannelsLast(*model);
      toChannelsLast(*emaModel);
    }
    ema = std::make_unique<ModelEma>(emaModel.ptr());
    ema->reset(*model);
    for (auto& p : model->parameters()) {
      if (p.requires_grad()) params.push_back(p);
    }
    LossOptions lo;
    lo.box = settings.box;
    lo.cls = settings.cls;
    lo.dfl = settings.dfl;
    loss = std::make_unique<DetectionLoss>(*model, lo);
  }

  void setupOptimizer() {
    // The optimiser, its learning rate (optimizer=auto resolved, batch scaling) and the weight
    // decay come from derive(), as the form and show-project display them.
    config::DatasetSize size;
    size.trainImages = static_cast<int64_t>(trainIndex->images.size());
    size.nc = nc;
    const auto derived = config::derive(cfg, world, size);
    bool sgd = derived.optimizer == "SGD";
    double lr0 = derived.lr0;
    if (derived.autoChosen && settings.resume) {
      // optimizer=auto decides by the run's length; a resumed run keeps what it started with
      // (its state in last.pt belongs to that optimiser), even when epochs grew.
      const CheckpointMeta* meta = resumeFrom ? &resumeFrom->meta() : nullptr;
      if (meta && !meta->optimizer.empty()) {
        const bool saved = meta->optimizer == "SGD";
        if (saved != sgd && rank == 0)
          warn("optimizer=auto keeps " + meta->optimizer + " (lr0 " +
                   std::to_string(meta->optimizerLr0) +
                   ") from the checkpoint; a new run of this length would pick " +
                   (sgd ? "SGD" : "AdamW"),
               "optimizer");
        sgd = saved;
        lr0 = meta->optimizerLr0 * derived.lrScale;
      }
    }
    optChoice.sgd = sgd;
    optChoice.lr0 = lr0 / derived.lrScale;  // the base lr0 a checkpoint records
    optChoice.momentum = derived.momentum;
    optChoice.autoChosen = derived.autoChosen;
    OptimizerSpec spec;
    spec.sgd = sgd;
    spec.lr0 = lr0;
    spec.momentum = derived.momentum;
    spec.weightDecay = derived.weightDecay;
    optimizer = buildOptimizer(splitParameters(*model), spec);
    schedOptions.lr0 = lr0;
    schedOptions.lrf = settings.lrf;
    schedOptions.momentum = derived.momentum;
    schedOptions.warmupEpochs = settings.warmupEpochs;
    schedOptions.warmupMomentum = settings.warmupMomentum;
    schedOptions.warmupBiasLr = derived.warmupBiasLr;
    schedOptions.cosine = settings.cosLr;
    schedOptions.itersPerEpoch = nb;
    // Ultralytics' integer accumulate (warmup ramps to it, not to the unrounded nbs / batch),
    // capped at the run's batches.
    schedOptions.accumulate = runAccumulate(derived.accumulate, nb, epochs, settings.timeHours > 0);
    schedOptions.momentumWarmup = sgd;
    replan(epochs);
    if (rank == 0) {
      std::ostringstream msg;
      msg << "optimizer: " << (spec.sgd ? "SGD" : "AdamW") << "(lr=" << lr0
          << ", momentum=" << spec.momentum
          << ") with parameter groups: biases, weights (weight_decay=" << spec.weightDecay
          << "), norm weights" << (optChoice.autoChosen ? " (chosen by optimizer=auto)" : "");
      std::fprintf(stderr, "%s\n", msg.str().c_str());
    }
  }

  void replan(int newEpochs) {
    epochs = newEpochs;
    schedOptions.epochs = newEpochs;
    schedule = std::make_unique<Schedule>(schedOptions);
  }

  // weights/last.pt, read once: setupOptimizer needs its meta, resumeIfAsked the rest.
  void openResumeCheckpoint() {
    if (!settings.resume) return;
    auto reader = CheckpointReader::open(path("weights/last.pt"), device);
    if (!reader)
      throw RunFailure(reader.errorText(), "resume needs the run's weights/last.pt (--run-dir)",
                       kTrainBadInput);
    resumeFrom = std::move(reader.value());
  }

  void resumeIfAsked() {
    if (!resumeFrom) return;
    CheckpointParts parts{model.get(), emaModel.get(), optimizer.get()};
    parts.gradients = true;
    if (auto s = resumeFrom->restore(parts, true); !s)
      throw RunFailure(s.errorText(), "resume needs the run's weights/last.pt (--run-dir)",
                       kTrainBadInput);
    state = resumeFrom->meta();
    resumeFrom.reset();  // the archive's tensors are no longer needed
    if (!state.datasetHash.empty() && state.datasetHash != datasetHash())
      warn("the dataset changed since " + path("weights/last.pt") + " was written (content hash " +
               state.datasetHash + " -> " + datasetHash() + ": images added, removed or "
               "relabelled); the run continues on the data as it is now",
           "data");
    ema->setUpdates(state.emaUpdates);
    scaler.setState(state.scalerScale, state.scalerGrowth);
    // results.csv keeps the rows of the epochs the checkpoint holds.
    if (auto text = readFile(path("results.csv"))) {
      std::istringstream is(text.value());
      std::string line;
      std::getline(is, line);
      while (std::getline(is, line)) {
        if (line.empty()) continue;
        const int epochNumber = std::atoi(line.c_str());
        if (epochNumber <= state.epoch + 1) csvRows.push_back(line);
      }
    }
    if (state.epochs != epochs && rank == 0) {
      emit(telemetry::ScheduleReplannedEvent{
          static_cast<int>(state.epochs), epochs, static_cast<int>(state.epoch + 1),
          epochs > state.epochs ? "resume_extended" : "resume_shortened", 0.0});
    }
    if (state.epoch + 1 >= epochs) {
      throw RunFailure("the run in " + o.runDir + " already trained " +
                           std::to_string(state.epoch + 1) + " of " + std::to_string(epochs) +
                           " epochs",
                       "resume with a larger epochs=N to extend it", kTrainBadInput);
    }
  }

  // FNV-1a over what the run trains and validates on: each image's path below the dataset
  // root and size, and its boxes. Two runs with the same hash saw the same data.
  std::string datasetHash() const {
    uint64_t h = 1469598103934665603ull;
    auto mix = [&](const void* p, size_t n) {
      const auto* b = static_cast<const unsigned char*>(p);
      for (size_t i = 0; i < n; ++i) {
        h ^= b[i];
        h *= 1099511628211ull;
      }
    };
    for (const auto* index : {trainIndex.get(), valIndex.get()}) {
      if (!index) continue;
      mix(index->split.data(), index->split.size());
      for (const auto& im : index->images) {
        const std::string rel = fs::path(im.imagePath).lexically_relative(spec.root).generic_string();
        mix(rel.data(), rel.size() + 1);
        mix(&im.width, sizeof im.width);
        mix(&im.height, sizeof im.height);
        for (const auto& b : im.boxes) mix(&b, sizeof b);
      }
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
  }

  void writeRunStart() {
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
    e.resolved = {{"precision", precisionName(precision)}, {"channels_last", channelsLast}};
    e.nccl.backend = world > 1 ? (device.is_cuda() ? "nccl" : "gloo") : "";
    e.nccl.p2pLevel = settings.ncclP2pLevel;
    e.nccl.shmDisable = settings.ncclShmDisable;
    e.nccl.debug = settings.ncclDebug;
    e.nccl.timeoutS = settings.ncclTimeoutS;
    e.nccl.bucketMb = settings.bucketMb;
    e.runDir = o.runDir;
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) == 0) e.host = host;
    e.dataset.contentHash = datasetHash();
    emit(e);
  }

  // ---------------------------------------------------------------- outputs
  void writeConfigYaml() {
    if (rank != 0) return;
    auto s = writeFileAtomic(path("config.yaml"), config::toYaml(cfg));
    if (!s)
      throw RunFailure(s.errorText(), "check that the run folder is writable", kTrainBadInput);
  }

  void writeResults() {
    std::string text = std::string(kCsvHeader) + "\n";
    for (const auto& r : csvRows) text += r + "\n";
    auto s = writeFileAtomic(path("results.csv"), text);
    if (!s) warn("could not write results.csv: " + s.errorText(), "io");
  }

  CheckpointMeta metaFor(int completedEpoch) {
    CheckpointMeta m = state;
    m.epoch = completedEpoch;
    m.epochs = epochs;
    m.emaUpdates = ema->updates();
    m.scalerScale = scaler.scaleValue();
    m.scalerGrowth = scaler.growthTracker();
    m.nonFiniteTotal = state.nonFiniteTotal;
    m.configYaml = config::toYaml(cfg);
    m.scale = settings.model;
    m.nc = nc;
    m.imgsz = settings.imgsz;
    m.names = settings.singleCls ? std::vector<std::string>{"object"} : spec.names;
    m.optimizer = optChoice.sgd ? "SGD" : "AdamW";
    m.optimizerLr0 = optChoice.lr0;
    m.epochBatches = 0;  // an epoch boundary unless saveCheckpointAs is told otherwise
    m.epochLoss.clear();
    return m;
  }

  void saveCheckpointAs(const std::string& rel, int completedEpoch, telemetry::CheckpointKind kind,
                        const EpochProgress* partial = nullptr) {
    const std::string p = path(rel);
    CheckpointMeta meta = metaFor(completedEpoch);
    if (datasetHashOnce.empty()) datasetHashOnce = datasetHash();  // one pass over the index
    meta.datasetHash = datasetHashOnce;
    if (partial) {
      meta.epochBatches = partial->batches;
      meta.epochLoss = {partial->loss[0], partial->loss[1], partial->loss[2],
                        static_cast<double>(partial->counted)};
    }
    // last.pt keeps the accumulated gradients too: resuming from it is exact.
    CheckpointParts parts{model.get(), emaModel.get(), optimizer.get()};
    parts.gradients = kind == telemetry::CheckpointKind::Last;
    auto s = saveCheckpoint(p, parts, meta);
    if (!s) throw RunFailure(s.errorText(), "check free disk space in the run folder");
    emit(telemetry::CheckpointEvent{p, completedEpoch, kind});
  }

  // ---------------------------------------------------------------- training
  bool stopRequested() {
    bool local = o.stopRequested && o.stopRequested->load();
    return dist ? dist->anyRank(local) : local;
  }

  /// Brings the device-side loss statistics to the host: the epoch's running mean, warnings
  /// for non-finite steps, and the run's failure after too many in a row.
  void flushLosses(EpochProgress& progress, int epoch, int64_t i) {
    const auto s = losses.flush();
    progress.loss = s.mean;
    progress.counted = s.counted;
    consecutiveNonFinite = static_cast<int>(s.consecutiveNonFinite);
    skippedSteps += s.skipped;
    if (s.nonFinite > 0) {
      state.nonFiniteTotal += s.nonFinite;
      if (consecutiveNonFinite >= kMaxNonFiniteInARow) {
        throw RunFailure("the loss was not finite (inf or NaN) in " +
                             std::to_string(consecutiveNonFinite) + " steps in a row (epoch " +
                             std::to_string(epoch) + ", iteration " + std::to_string(i) +
                             "); the run cannot recover",
                         "lower lr0, use precision=bf16 instead of fp16, and check the labels "
                         "(stave-train check-dataset)");
      }
      if (rank == 0) {
        warn(s.nonFinite == 1 ? "non-finite loss at epoch " + std::to_string(epoch) +
                                    " iteration " + std::to_string(i) + ": step skipped"
                              : std::to_string(s.nonFinite) +
                                    " non-finite losses up to epoch " + std::to_string(epoch) +
                                    " iteration " + std::to_string(i) + ": steps skipped",
             "amp");
      }
    }
  }

  /// One epoch of training from batch `progress.batches` (non-zero when resuming inside the
  /// epoch), updating `progress`; returns false when stopped part-way.
  bool trainEpoch(int epoch, EpochProgress& progress) {
    const int closeMosaic = settings.closeMosaic;
    const bool mosaicOn = closeMosaic <= 0 || epoch < epochs - closeMosaic;
    if (rank == 0 && closeMosaic > 0 && epoch == epochs - closeMosaic) {
      std::fprintf(stderr, "closing mosaic for the last %d epochs\n", closeMosaic);
    }
    trainLoader->startEpoch(epoch, mosaicOn, progress.batches);
    model->train();
    const std::array<double, 3>& tloss = progress.loss;
    losses.reset(device, progress.loss, progress.counted, consecutiveNonFinite);
    // On the CPU every step is read back at once (nothing runs ahead); on CUDA only when an
    // event is written, so the host keeps queueing work.
    const bool readEveryStep = !device.is_cuda();
    const bool clipOnDevice = device.is_cuda() && !scaler.enabled();
    const int64_t stopCheckEvery = device.is_cuda() ? kCudaStopCheckEvery : 1;
    telemetry::StepTiming acc;
    int accSteps = 0;
    int64_t accImages = 0;
    auto lastEvent = Clock::now();
    const bool worldScale = world > 1;
    const bool singleCls = settings.singleCls;
    const bool multiScale = settings.multiScale;
    const int faultMs = slowDataMs(rank);
    const std::string recordDir = recordBatchesDir();
    if (!recordDir.empty()) {
      std::error_code ec;  // a folder that cannot be made fails at the first write, naming it
      fs::create_directories(recordDir, ec);
    }
    int64_t i = progress.batches;
    for (;; ++i) {
      auto t0 = Clock::now();
      if (faultMs > 0) std::this_thread::sleep_for(std::chrono::milliseconds(faultMs));
      auto batch = trainLoader->next();
      if (!batch) break;
      telemetry::StepTiming timing;
      timing.dataWait = secondsSince(t0);
      const int64_t ni = i + nb * static_cast<int64_t>(epoch);
      if (!recordDir.empty()) recordBatch(recordDir, rank, ni, *batch);
      const auto point = schedule->at(epoch, i);
      applySchedulePoint(*optimizer, point);

      auto t1 = Clock::now();
      auto images = feeder->images(*batch, channelsLast);
      if (multiScale) {
        images = multiScaleResize(images, settings.imgsz,
                                  settings.seed, ni);
        if (channelsLast) images = images.contiguous(torch::MemoryFormat::ChannelsLast);
      }
      // The loss pads the targets per image on the CPU and moves them itself.
      auto targets = batchTargets(*batch, torch::kCPU);
      if (singleCls) targets.select(1, 1).zero_();
      timing.h2d = secondsSince(t1);

      auto t2 = Clock::now();
      const bool optStep = ni - state.lastOptStep >= point.accumulate;
      if (dist) dist->beforeBackward(optStep);
      std::vector<torch::Tensor> feats;
      {
        AutocastScope autocast(precision, device);
        feats = model->forward(images);
      }
      auto out = (*loss)(feats, targets, batch->n);
      auto total = worldScale ? out.total * static_cast<double>(world) : out.total;
      scaler.scale(total).backward();
      losses.add(out.items);
      timing.fwdBwd = secondsSince(t2);
      if (readEveryStep) flushLosses(progress, epoch, i);

      if (optStep) {
        if (dist) timing.allreduceWait = dist->waitGradients();
        auto t3 = Clock::now();
        if (clipOnDevice) {
          // No read-back: a non-finite step's gradients are zeroed on the device.
          losses.addStepOutcome(scaler.clipOnDevice(params, kMaxGradNorm));
          foreachStep(*optimizer);
          zeroGradients(*optimizer);
          ema->update(*model);
        } else {
          const double norm = scaler.unscaleAndClip(params, kMaxGradNorm);
          const bool finite = std::isfinite(norm);
          if (finite) {
            foreachStep(*optimizer);
          } else {
            ++skippedSteps;
          }
          scaler.update(!finite);
          zeroGradients(*optimizer);
          if (finite) ema->update(*model);
        }
        state.lastOptStep = ni;
        timing.optimizer = secondsSince(t3);
      }
      state.iteration = ni + 1;
      timing.total = secondsSince(t0);
      acc = acc + timing;
      ++accSteps;
      accImages += batch->n;

      const bool last = i + 1 >= nb;
      if (secondsSince(lastEvent) >= kStepEventInterval || last) {
        if (!readEveryStep) flushLosses(progress, epoch, i);
        telemetry::StepEvent e;
        e.epoch = epoch;
        e.iter = static_cast<int>(i);
        e.itersPerEpoch = static_cast<int>(nb);
        e.boxLoss = tloss[0];
        e.clsLoss = tloss[1];
        e.dflLoss = tloss[2];
        e.lr = groupLr(*optimizer, 0);
        e.timing = acc * (1.0 / accSteps);
        e.samplesPerSec = acc.total > 0 ? static_cast<double>(accImages) / acc.total : 0.0;
        emit(e);
        reportImageProblems(*trainLoader, "train", last);
        acc = {};
        accSteps = 0;
        accImages = 0;
        lastEvent = Clock::now();
      }
      progress.batches = i + 1;
      ++batchesThisProcess;
      // A collective: every rank asks at the same steps.
      const bool stop = (i + 1) % stopCheckEvery == 0 && stopRequested();
      if (stop || (o.stopAfter.batches > 0 && batchesThisProcess >= o.stopAfter.batches)) {
        if (!readEveryStep) flushLosses(progress, epoch, i);
        return false;
      }
    }
    if (!readEveryStep) flushLosses(progress, epoch, i);
    return true;
  }

  ValidationOutput runValidation() {
    ValidationOptions vo;
    vo.conf = settings.conf;
    vo.iou = settings.iou;
    vo.maxDet = settings.maxDet;
    vo.precision = precision;
    vo.device = device;
    vo.channelsLast = channelsLast;
    vo.singleCls = settings.singleCls;
    DetectionLoss valLoss(*emaModel, loss->options());
    GatherFloats gather;
    if (dist) gather = [this](const std::vector<float>& v) { return dist->gatherFloats(v); };
    auto out = validate(*emaModel, *valLoader, nc, vo, &valLoss, gather);
    reportImageProblems(*valLoader, "val", true);
    return out;
  }

  // ---------------------------------------------------------------- the run, step by step
  /// How an epoch ended the run, if it did: the finished event's status and message.
  struct Outcome {
    bool ends = false;
    telemetry::RunStatus status = telemetry::RunStatus::Completed;
    std::string message;
  };
  static Outcome endsWith(telemetry::RunStatus status, std::string message) {
    return {true, status, std::move(message)};
  }

  int run() {
    setup();
    if (stoppedBeforeStart) {
      // The launcher writes the run's finished event when no rank does.
      std::fprintf(stderr, "rank %d: stopped on request before the rendezvous\n", rank);
      return kTrainOk;
    }
    EpochProgress progress = resumedProgress();
    Outcome outcome;
    for (int epoch = static_cast<int>(state.epoch + 1); epoch < epochs && !outcome.ends;
         ++epoch, progress = EpochProgress{})
      outcome = runEpoch(epoch, progress);
    emitFinished(outcome);
    if (dist) dist->finish();
    return kTrainOk;
  }

  void setup() {
    epochs = settings.epochs;
    setupRuntime();
    if (world > 1) {
      if (o.atRendezvous) o.atRendezvous->store(true);
      // A stop that came before the flag was up would never be seen inside the wait.
      if (o.stopRequested && o.stopRequested->load()) {
        stoppedBeforeStart = true;
        return;
      }
      dist = std::make_unique<DistContext>(o, settings, device);
      if (o.atRendezvous) o.atRendezvous->store(false);
    }
    // A resumed run's config.yaml is rewritten only once its checkpoint was accepted.
    if (!settings.resume) writeConfigYaml();
    setupData();
    setupModel();
    if (dist) dist->attach(*model, params, settings);
    openResumeCheckpoint();
    setupOptimizer();
    resumeIfAsked();
    if (settings.resume) writeConfigYaml();
    writeRunStart();
    if (!pretrainedSummary.empty()) warn(pretrainedSummary, "pretrained");
    if (!state.lastMetrics.empty() && state.lastMetrics.size() != 7) state.lastMetrics.clear();
    if (state.lastMetrics.empty()) state.lastMetrics.assign(7, 0.0);
  }

  /// A run resumed inside an epoch continues with that epoch's next batch and running losses.
  EpochProgress resumedProgress() {
    EpochProgress progress;
    if (state.epochBatches > 0) {
      progress.batches = state.epochBatches;
      if (state.epochLoss.size() == 4) {
        progress.loss = {state.epochLoss[0], state.epochLoss[1], state.epochLoss[2]};
        progress.counted = static_cast<int64_t>(state.epochLoss[3]);
      }
      state.epochBatches = 0;
      state.epochLoss.clear();
    }
    return progress;
  }

  /// Trains, validates when due, writes the epoch's outputs; says whether the run ends here.
  Outcome runEpoch(int epoch, EpochProgress& progress) {
    auto epochStart = Clock::now();
    const bool complete = trainEpoch(epoch, progress);
    if (dist) {
      dist->syncBuffers(*model);
      dist->syncBuffers(*emaModel);
      // Gradients accumulated for the next optimiser step go into last.pt (rank 0's). Every
      // rank has the same step schedule, so they agree whether any are pending.
      if (state.lastOptStep < state.iteration - 1) dist->averageGradients(params);
    }
    const double epochTime = secondsSince(epochStart);
    trainSeconds += epochTime;
    if (!complete) {
      // Stopped part-way: the checkpoint says how far this epoch got; resume continues there.
      if (rank == 0)
        saveCheckpointAs("weights/last.pt", epoch - 1, telemetry::CheckpointKind::Last,
                         &progress);
      return endsWith(telemetry::RunStatus::Stopped,
                      "stopped during epoch " + std::to_string(epoch + 1) + " after " +
                          std::to_string(progress.batches) + " of " + std::to_string(nb) +
                          " batches; resume=true continues");
    }
    const std::array<double, 3> lrs{groupLr(*optimizer, 0), groupLr(*optimizer, 1),
                                    groupLr(*optimizer, 2)};
    emitEpochEnd(epoch, progress.loss, epochTime, lrs);
    const bool earlyStop = validateIfDue(epoch);
    writeEpochOutputs(epoch, progress.loss, lrs);
    state.epoch = epoch;
    ++epochsThisProcess;
    epochTimes.push_back(secondsSince(epochStart));

    const int patience = settings.patience;
    if (earlyStop)
      return endsWith(telemetry::RunStatus::EarlyStopped,
                      "no improvement for " + std::to_string(patience) + " epochs (best epoch " +
                          std::to_string(state.bestEpoch + 1) + "); stopped early");
    if (followTimeBudget(epoch))
      return endsWith(telemetry::RunStatus::Completed,
                      "time budget of " + csvNumber(settings.timeHours) + " h reached");
    if (stopRequested())
      return endsWith(telemetry::RunStatus::Stopped,
                      "stopped on request after epoch " + std::to_string(epoch + 1) +
                          "; resume=true continues");
    if (o.stopAfter.epochs > 0 && epochsThisProcess >= o.stopAfter.epochs && epoch + 1 < epochs)
      return endsWith(telemetry::RunStatus::Stopped,
                      "stopped after " + std::to_string(epochsThisProcess) +
                          " epochs as asked; resume=true continues");
    return {};
  }

  void emitEpochEnd(int epoch, const std::array<double, 3>& loss, double epochTime,
                    const std::array<double, 3>& lrs) {
    if (rank != 0) return;
    telemetry::EpochEndEvent ee;
    ee.epoch = epoch;
    ee.epochs = epochs;
    ee.boxLoss = loss[0];
    ee.clsLoss = loss[1];
    ee.dflLoss = loss[2];
    ee.epochTime = epochTime;
    ee.lr = {lrs[0], lrs[1], lrs[2]};
    emit(ee);
  }

  /// Validates when the period, the last epoch or a possible early stop asks for it, keeps the
  /// best metrics, and says whether patience ran out.
  bool validateIfDue(int epoch) {
    const int patience = settings.patience;
    const int valPeriod = std::max<int>(1, settings.valPeriod);
    const bool finalEpoch = epoch + 1 == epochs;
    const bool possibleStop =
        patience > 0 && state.bestEpoch >= 0 && epoch - state.bestEpoch + 1 >= patience;
    if (!((settings.val && (epoch + 1) % valPeriod == 0) || finalEpoch || possibleStop))
      return false;
    auto v = runValidation();
    valSeconds += v.seconds;
    state.lastMetrics = {v.precision, v.recall, v.map50, v.map5095, v.loss[0], v.loss[1], v.loss[2]};
    if (rank == 0) emit(validationEvent(epoch, v));
    const double fit = fitness(v.map50, v.map5095);
    if (fit >= state.bestFitness || state.bestEpoch < 0) {
      state.bestFitness = fit;
      state.bestEpoch = epoch;
    }
    if (v.map5095 > state.bestMap5095) {
      state.bestMap5095 = v.map5095;
      state.bestMap50 = v.map50;
      state.bestMapEpoch = epoch;
    }
    return patience > 0 && epoch - state.bestEpoch >= patience;
  }

  telemetry::ValidationEvent validationEvent(int epoch, const ValidationOutput& v) const {
    telemetry::ValidationEvent ve;
    ve.epoch = epoch;
    ve.precision = v.precision;
    ve.recall = v.recall;
    ve.map50 = v.map50;
    ve.map5095 = v.map5095;
    ve.boxLoss = v.loss[0];
    ve.clsLoss = v.loss[1];
    ve.dflLoss = v.loss[2];
    ve.valTime = v.seconds;
    for (const auto& c : v.perClass) {
      telemetry::ClassMetricsRow row;
      row.cls = c.cls;
      row.name =
          c.cls < static_cast<int>(spec.names.size()) ? spec.names[static_cast<size_t>(c.cls)] : "";
      row.images = c.images;
      row.instances = c.instances;
      row.precision = c.precision;
      row.recall = c.recall;
      row.map50 = c.map50;
      row.map5095 = c.map5095;
      ve.perClass.push_back(row);
    }
    return ve;
  }

  /// results.csv's row and the checkpoints of the epoch (rank 0).
  void writeEpochOutputs(int epoch, const std::array<double, 3>& loss,
                         const std::array<double, 3>& lrs) {
    if (rank != 0) return;
    std::string row = std::to_string(epoch + 1);
    for (double v : loss) row += "," + csvNumber(v);
    for (double v : state.lastMetrics) row += "," + csvNumber(v);
    for (double v : lrs) row += "," + csvNumber(v);
    csvRows.push_back(row);
    writeResults();
    saveCheckpointAs("weights/last.pt", epoch, telemetry::CheckpointKind::Last);
    if (state.bestMapEpoch == epoch)
      saveCheckpointAs("weights/best.pt", epoch, telemetry::CheckpointKind::Best);
    const int savePeriod = settings.savePeriod;
    if (savePeriod > 0 && (epoch + 1) % savePeriod == 0)
      saveCheckpointAs("weights/epoch" + std::to_string(epoch + 1) + ".pt", epoch,
                       telemetry::CheckpointKind::Periodic);
  }

  /// time=H: re-plans the number of epochs from the mean epoch time (every rank the same);
  /// true when the budget ends the run after this epoch.
  bool followTimeBudget(int epoch) {
    const double timeBudget = settings.timeHours * 3600.0;
    if (timeBudget <= 0 || epoch + 1 == epochs) return false;
    const double elapsed = secondsSince(runStart);
    double mean = 0;
    for (double t : epochTimes) mean += t;
    mean /= static_cast<double>(epochTimes.size());
    int planned = std::max(epoch + 1, static_cast<int>(std::ceil(timeBudget / std::max(mean, 1e-9))));
    if (dist) planned = dist->broadcastInt(planned);
    if (elapsed >= timeBudget) planned = epoch + 1;
    if (planned != epochs) {
      if (rank == 0)
        emit(telemetry::ScheduleReplannedEvent{epochs, planned, epoch + 1, "time_budget", mean});
      replan(planned);
    }
    return epoch + 1 >= epochs;
  }

  void emitFinished(const Outcome& outcome) {
    telemetry::FinishedEvent fe;
    fe.status = outcome.status;
    fe.epochsCompleted = static_cast<int>(state.epoch + 1);
    fe.epochs = epochs;
    fe.bestEpoch = static_cast<int>(state.bestMapEpoch);
    fe.bestMap50 = state.bestMap50;
    fe.bestMap5095 = std::max(0.0, state.bestMap5095);
    fe.totalTime = secondsSince(runStart);
    std::ostringstream msg;
    msg << outcome.message << (outcome.message.empty() ? "" : "; ") << "train "
        << csvNumber(trainSeconds) << " s, val " << csvNumber(valSeconds) << " s";
    if (state.nonFiniteTotal > 0 || skippedSteps > 0) {
      msg << "; " << state.nonFiniteTotal << " non-finite losses, " << skippedSteps
          << " optimiser steps skipped";
    }
    fe.message = msg.str();
    if (rank == 0) emit(fe);
  }
};

Trainer::Trainer(TrainOptions options) : m(std::make_unique<Impl>(std::move(options))) {}
Trainer::~Trainer() = default;

int Trainer::run() {
  auto fail = [&](const std::string& message, const std::string& hint, int code) {
    telemetry::ErrorEvent e;
    e.rank = m->rank;
    e.message = message;
    e.hint = hint;
    m->emit(e);
    telemetry::FinishedEvent fe;
    fe.status = telemetry::RunStatus::Failed;
    fe.epochsCompleted = static_cast<int>(m->state.epoch + 1);
    fe.epochs = m->epochs;
    fe.message = message;
    if (m->rank == 0) m->emit(fe);
    std::fprintf(stderr, "rank %d: error: %s%s%s\n", m->rank, message.c_str(),
                 hint.empty() ? "" : "\nhint: ", hint.c_str());
    return code;
  };
  try {
    return m->run();
  } catch (const RunFailure& e) {
    return fail(e.what(), e.hint, e.code);
  } catch (const std::exception& e) {
    if (isOutOfMemory(e)) {
      std::ostringstream msg, hint;
      msg << "out of device memory on " << m->device.str() << " with batch "
          << m->settings.batch << " per rank, imgsz " << m->settings.imgsz
          << ", precision " << precisionName(m->precision) << ", model "
          << m->settings.model;
      hint << "lower batch (e.g. batch=" << std::max<int64_t>(1, m->settings.batch / 2)
           << "; accumulation keeps the nominal batch " << m->settings.nbs
           << "), or imgsz, or use precision=bf16/fp16, or a smaller model; weights/last.pt is "
              "intact";
      return fail(msg.str(), hint.str(), kTrainFailed);
    }
    return fail(std::string("training failed: ") + e.what(), "", kTrainFailed);
  }
}

}  // namespace stave::train
