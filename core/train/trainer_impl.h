#pragma once
// Internal to core/train: the trainer's state (Trainer::Impl) and the helpers its chapters
// share. trainer.cpp runs the epochs; trainer_setup.cpp sets the run up (device, data, model,
// optimiser, resume); trainer_epoch.cpp trains one epoch and validates; trainer_outputs.cpp
// writes run_start, results.csv, checkpoints and the data warnings. Not a public header.

#include "core/train/trainer.h"
#include "core/base/clock.h"

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

#include "core/base/atomic_file.h"
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
#include "core/train/train_step.h"
#include "core/train/pickle_writer.h"
#include "core/train/start_weights.h"
#include "core/train/schedule.h"
#include "core/train/settings.h"
#include "core/train/trainer_dist.h"
#include "core/train/validator.h"

namespace stave::train {

namespace fs = std::filesystem;

namespace detail {

using Clock = std::chrono::steady_clock;

constexpr int kMaxNonFiniteInARow = 5;
constexpr double kStepEventInterval = 0.5;  // seconds between step events of a rank

/// Fault injection for the doctor's tests (docs/doctor.md): STAVE_FAULT_SLOW_DATA_MS=M makes
/// the rank STAVE_FAULT_SLOW_DATA_RANK (every rank when unset) wait M ms more for each batch, as
/// a starved loader would. 0 when not asked for this rank.
inline int slowDataMs(int rank) {
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
inline std::string recordBatchesDir() {
  const char* dir = std::getenv("STAVE_DEBUG_RECORD_BATCHES");
  return dir && *dir ? dir : "";
}

inline void recordBatch(const std::string& dir, int rank, int64_t ni, const data::Batch& b) {
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
  /// The message and hint as catalog messages (the studio's language), their English beside.
  RunFailure(const Text& message, const Text& hint_, int code_ = kTrainFailed)
      : std::runtime_error(english(message)), hint(english(hint_)), code(code_),
        text{message}, hintText{hint_} {}
  /// Input errors (file, line, key) as the message, in catalog form where they have one.
  RunFailure(const std::vector<Error>& errors, const Text& hint_, int code_ = kTrainFailed)
      : std::runtime_error(joinErrors(errors)), hint(english(hint_)), code(code_),
        text(textOfErrors(errors)), hintText{hint_} {}
  std::string hint;
  int code;
  TextParts text;      ///< what() as catalog messages (empty: English only)
  TextParts hintText;  ///< `hint` as catalog messages (empty: English only)
};

inline const char* const kCsvHeader =
    "epoch,train/box_loss,train/cls_loss,train/dfl_loss,metrics/precision(B),metrics/recall(B),"
    "metrics/mAP50(B),metrics/mAP50-95(B),val/box_loss,val/cls_loss,val/dfl_loss,lr/pg0,lr/pg1,lr/"
    "pg2";

inline std::string csvNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

inline bool isOutOfMemory(const std::exception& e) {
  if (dynamic_cast<const c10::OutOfMemoryError*>(&e)) return true;
  const std::string what = e.what();
  return what.find("out of memory") != std::string::npos ||
         what.find("CUDA out of memory") != std::string::npos;
}

}  // namespace detail

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
  detail::Clock::time_point runStart = detail::Clock::now();
  data::DataSpec spec;
  std::unique_ptr<data::SplitIndex> trainIndex, valIndex;
  std::unique_ptr<data::Loader> trainLoader, valLoader;
  int nc = 0;
  model::Yolo model{nullptr}, emaModel{nullptr};
  std::unique_ptr<ModelEma> ema;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  config::OptimizerChoice optChoice;  // as resolved (checkpoints record it)
  double weightDecayUsed = 0;         // weight_decay scaled by batch and accumulate
  std::unique_ptr<DetectionLoss> loss;
  ScheduleOptions schedOptions;
  std::unique_ptr<Schedule> schedule;
  GradScaler scaler;
  std::vector<torch::Tensor> params;
  std::unique_ptr<DistContext> dist;
  std::unique_ptr<DeviceFeeder> feeder;
  detail::LossTracker losses;
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
  std::string datasetHashOnce;  // what checkpoints record (the data does not change mid-run)
  bool stoppedBeforeStart = false;  // a stop request came before the rendezvous
  // Images that could not be decoded (or whose cache entry was damaged), per split: named one
  // by one at first, then in a summary at most once a minute.
  struct ImageProblemReport {
    int64_t named = 0, unnamed = 0, total = 0;
    detail::Clock::time_point lastSummary = detail::Clock::now();
  };
  std::map<std::string, ImageProblemReport> imageProblems;
  Text pretrainedSummary;          // what pretrained= transferred, when partly (a warning event)
  std::string modelName;           // the network built: "yolo11n" (model=FILE.pt resolved)
  std::shared_ptr<const StartWeights> startWeights;  // model=/pretrained= file, read once
  std::string startWeightsPath;                      // its path
  nlohmann::json weightsReport;    // run_start's resolved.weights: what was transferred
  std::optional<CheckpointReader> resumeFrom;  // weights/last.pt while a resume sets up

  explicit Impl(TrainOptions opts)
      : o(std::move(opts)),
        cfg(o.config),
        settings(trainSettings(o.config)),
        rank(o.dist.rank),
        world(o.dist.worldSize) {}

  template <typename Typed>
  void emit(const Typed& e) {
    if (o.sink) o.sink->write(telemetry::toEvent(e, rank));
  }
  void warn(const std::string& message, const std::string& source);
  void warn(Text text, const std::string& source);  ///< a catalog message (English beside it)
  std::string path(const std::string& rel) const { return (fs::path(o.runDir) / rel).string(); }

  /// Warns about the images `loader` could not use since the last call (each rank its own),
  /// and fails the run when more than max_bad_images of the split could not be decoded: a
  /// run that trains on grey stand-ins must not end "completed" without a word.
  void reportImageProblems(data::Loader& loader, const std::string& split, bool flush);

  // ---------------------------------------------------------------- setup
  void setupRuntime();
  torch::Device resolveDevice();
  data::LoaderOptions loaderOptions(bool train) const;
  void setupData();
  void applyFraction(data::SplitIndex& index) const;

  /// pretrained=CKPT: the checkpoint's tensors that match this model by name and shape (a new
  /// run only; a resume restores everything from its own last.pt). Every rank reads the same
  /// file, so the ranks start equal.
  void transferPretrained();
  /// modelName from model= (a name, or the architecture of a model=FILE.pt).
  void resolveModel();
  void setupModel();
  void setupOptimizer();
  void replan(int newEpochs);

  // weights/last.pt, read once: setupOptimizer needs its meta, resumeIfAsked the rest.
  void openResumeCheckpoint();
  void resumeIfAsked();
  /// A resume with another number of ranks than the checkpoint's: rescales the step counters
  /// and says what changed (the accumulation adapts through the schedule).
  void adaptToWorldSize();

  // The content hash (32 hex digits) of what the run trains and validates on: each image's
  // path below the dataset root, its size and its boxes. Two runs with the same hash saw the
  // same data.
  std::string computeDatasetHash() const;
  /// computeDatasetHash(), computed once (run_start, every checkpoint and a resume use it).
  const std::string& datasetHash();
  void writeRunStart();

  // ---------------------------------------------------------------- outputs
  void writeConfigYaml();
  void writeResults();
  CheckpointMeta metaFor(int completedEpoch);
  void saveCheckpointAs(const std::string& rel, int completedEpoch, telemetry::CheckpointKind kind, const EpochProgress* partial = nullptr);

  // ---------------------------------------------------------------- training
  bool stopRequested();

  /// Brings the device-side loss statistics to the host: the epoch's running mean, warnings
  /// for non-finite steps, and the run's failure after too many in a row.
  void flushLosses(EpochProgress& progress, int epoch, int64_t i);

  /// One epoch of training from batch `progress.batches` (non-zero when resuming inside the
  /// epoch), updating `progress`; returns false when stopped part-way.
  bool trainEpoch(int epoch, EpochProgress& progress);
  /// The epoch's loader (mosaic closed for the last close_mosaic epochs), train mode, losses.
  void startTrainEpoch(int epoch, const EpochProgress& progress);
  /// One batch to the device, forward and backward (gradients synchronised on `optStep`).
  void forwardBackward(const data::Batch& batch, int64_t ni, bool optStep,
                       telemetry::StepTiming& timing);
  /// Clip, optimiser step (skipped when the gradients are not finite), zero grad, EMA.
  void optimizerStep(int64_t ni, telemetry::StepTiming& timing);
  /// The parts train_step.h's functions work on: this run's model, loss, scaler, optimiser.
  StepParts stepParts() { return StepParts{model, *loss, scaler, *optimizer, params, precision, device}; }
  /// The step event of the steps since the last one (`acc`: their summed timing).
  void emitStepEvent(int epoch, int64_t i, const std::array<double, 3>& tloss,
                     const telemetry::StepTiming& acc, int accSteps, int64_t accImages, bool last);
  ValidationOutput runValidation();

  // ---------------------------------------------------------------- the run, step by step
  /// How an epoch ended the run, if it did: the finished event's status and message.
  struct Outcome {
    bool ends = false;
    telemetry::RunStatus status = telemetry::RunStatus::Completed;
    Text text;  ///< why it ended (no id: it ran to its last epoch)
  };
  static Outcome endsWith(telemetry::RunStatus status, Text text);
  int run();
  void setup();

  /// A run resumed inside an epoch continues with that epoch's next batch and running losses.
  EpochProgress resumedProgress();

  /// Trains, validates when due, writes the epoch's outputs; says whether the run ends here.
  Outcome runEpoch(int epoch, EpochProgress& progress);
  void emitEpochEnd(int epoch, const std::array<double, 3>& loss, double epochTime, const std::array<double, 3>& lrs);

  /// Validates when the period, the last epoch or a possible early stop asks for it, keeps the
  /// best metrics, and says whether patience ran out.
  bool validateIfDue(int epoch);
  telemetry::ValidationEvent validationEvent(int epoch, const ValidationOutput& v) const;

  /// results.csv's row and the checkpoints of the epoch (rank 0).
  void writeEpochOutputs(int epoch, const std::array<double, 3>& loss, const std::array<double, 3>& lrs);

  /// time=H: re-plans the number of epochs from the mean epoch time (every rank the same);
  /// true when the budget ends the run after this epoch.
  bool followTimeBudget(int epoch);
  void emitFinished(const Outcome& outcome);
};

}  // namespace stave::train
