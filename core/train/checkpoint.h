#pragma once
// Checkpoints (weights/last.pt, best.pt): model, EMA, optimiser, loss scaler, progress, RNG
// state and the resolved config, in one torch archive written atomically.

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/config/member_table.h"
#include "core/model/yolo.h"

namespace stave::train {

/// Everything in a checkpoint besides the tensors of model, EMA and optimiser.
struct CheckpointMeta {
  int64_t epoch = -1;         ///< last completed epoch (0-based); -1 = none
  int64_t epochs = 0;         ///< planned epochs when it was written
  int64_t iteration = 0;      ///< micro-batches trained so far (Ultralytics' ni of the next)
  int64_t lastOptStep = -1;   ///< ni of the last optimiser step (-1: none yet)
  double bestFitness = -1.0;  ///< best fitness so far (0.1 mAP50 + 0.9 mAP50-95)
  int64_t bestEpoch = -1;     ///< epoch of bestFitness (patience counts from here)
  double bestMap50 = 0.0;     ///< mAP50 of best.pt
  double bestMap5095 = -1.0;  ///< mAP50-95 of best.pt (best.pt is chosen by it); -1 = none
  int64_t bestMapEpoch = -1;  ///< epoch of best.pt
  std::vector<double>
      lastMetrics;               ///< P, R, mAP50, mAP50-95, val box/cls/dfl of the last validation
  int64_t emaUpdates = 0;        ///< EMA update count (drives its decay ramp)
  double scalerScale = 65536.0;  ///< GradScaler scale
  int64_t scalerGrowth = 0;      ///< GradScaler good-step counter
  int64_t nonFiniteTotal = 0;    ///< skipped non-finite steps so far
  std::string configYaml;        ///< the resolved run config
  std::string scale = "n";       ///< model scale
  int64_t nc = 0;                ///< number of classes
  int64_t imgsz = 640;           ///< training image size
  std::vector<std::string> names;  ///< class names
  bool hasOptimizer = false;       ///< optimiser state present (false for exported weights)
  /// The optimiser the run uses, "SGD" or "AdamW", and its base lr0 (before batch scaling):
  /// optimizer=auto must keep them on resume, even when a longer run would pick another.
  /// Empty in checkpoints written before this was recorded.
  std::string optimizer;
  double optimizerLr0 = 0.0;
  /// Batches of epoch `epoch + 1` already trained when the run stopped inside it (0: at an
  /// epoch boundary), and that partial epoch's mean box, cls, dfl loss and the number of steps
  /// they average: a resumed run continues with the next batch.
  int64_t epochBatches = 0;
  std::vector<double> epochLoss;
  /// Content hash of the data the run trained on when this was written (run_start's
  /// dataset.content_hash); a resume on changed data says so. Empty in older checkpoints.
  std::string datasetHash;
  /// Ranks of the run when this was written (0: not recorded, older checkpoints): a resume with
  /// another number adapts the accumulation and the step counters.
  int64_t worldSize = 0;
};

/// The checkpoint's metadata records, each bound to its CheckpointMeta member (the class names
/// and has_optimizer are not in it: they are converted by hand). Optional rows are records added
/// later in format 1, absent from older checkpoints.
const config::MemberTable<CheckpointMeta>& checkpointMetaTable();

/// The live objects a checkpoint reads or writes; null members are skipped.
struct CheckpointParts {
  torch::nn::Module* model = nullptr;            ///< the trained model
  torch::nn::Module* ema = nullptr;              ///< its EMA
  torch::optim::Optimizer* optimizer = nullptr;  ///< the optimiser (3 groups)
  /// Also the model's gradients: accumulated micro-batches not yet applied by an optimiser
  /// step (gradient accumulation crosses epoch ends), so that a resumed run is exact. Written
  /// only when some are non-zero; loading leaves the gradients alone when none were written.
  bool gradients = false;
};

/// Serialises parts and meta (plus the CPU RNG state; YOLO training draws no random numbers on
/// a GPU: augmentation runs on the CPU with its own seeded generators) and writes them
/// atomically.
Status saveCheckpoint(const std::string& path, const CheckpointParts& parts,
                      const CheckpointMeta& meta);

/// What CheckpointReader::transferMatching copied into a model.
struct WeightTransfer {
  int64_t transferred = 0;            ///< tensors (parameters and buffers) copied
  int64_t total = 0;                  ///< tensors of the model
  std::vector<std::string> skipped;   ///< the others: "name (why)", in model order
};

/// A checkpoint read from disk once: its meta at once, the parts when asked (a resumed run
/// needs the meta to build the optimiser the state belongs to before restoring it).
class CheckpointReader {
 public:
  /// Reads and parses the file (tensors go to `device`). The error names the file.
  static Result<CheckpointReader> open(const std::string& path,
                                       const torch::Device& device = torch::kCPU);
  /// Progress, best metrics, config and model description.
  const CheckpointMeta& meta() const { return m_meta; }
  /// Restores `parts` (which must have the same structure) and, with `restoreRng`, the CPU RNG
  /// state. The error names the file.
  Status restore(const CheckpointParts& parts, bool restoreRng) const;
  /// Ultralytics' weight transfer (`pretrained`): copies into `model` every parameter and
  /// buffer of the checkpoint's EMA (its model when it has none) that has the same name and
  /// shape, and leaves the rest as they are (e.g. the class outputs of a head for another
  /// number of classes). The error names the file.
  Result<WeightTransfer> transferMatching(torch::nn::Module& model) const;

 private:
  std::string m_path;
  std::shared_ptr<torch::serialize::InputArchive> m_archive;
  CheckpointMeta m_meta;
};

/// Reads a checkpoint into the given parts (which must have the same structure) and returns
/// its meta. Restores the CPU RNG state when `restoreRng`. The error names the file.
Result<CheckpointMeta> loadCheckpoint(const std::string& path, const CheckpointParts& parts,
                                      bool restoreRng, const torch::Device& device = torch::kCPU);

/// Reads only the meta of a checkpoint (to build the matching model first).
Result<CheckpointMeta> readCheckpointMeta(const std::string& path);

/// Whether LibTorch's C++ backtrace of an unreadable checkpoint also goes to stderr, for a
/// developer (the error itself is one line either way). Off by default, where stderr is the
/// user's terminal; on with STAVE_DEBUG set, and for a rank under the launcher, whose stderr
/// is its log file (rankMain).
void setCheckpointBacktraces(bool toStderr);

/// A checkpoint's EMA weights (what validation, prediction and the exports use, as the
/// trainer's validation does) in a Yolo of its scale and classes, on `device`, in eval mode.
struct LoadedWeights {
  model::Yolo model{nullptr};
  CheckpointMeta meta;
};
/// Reads `path` into a LoadedWeights. The error names the file; a checkpoint whose class names
/// are not as many as its head's class outputs (nc) is refused, naming both numbers.
Result<LoadedWeights> loadWeights(const std::string& path,
                                  const torch::Device& device = torch::kCPU);

/// `export-weights --format stave`: `checkpoint`'s EMA weights and meta (classes, names, image
/// size, config) as a Stave checkpoint without optimiser state, as Ultralytics' strip_optimizer
/// does: about a third of the size; val, predict, the exports and `pretrained` read it, resume
/// refuses it. Written atomically; the error names the file.
Status exportStaveWeights(const std::string& checkpoint, const std::string& out);

}  // namespace stave::train
