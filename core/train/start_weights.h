#pragma once
// Weights to start from, whoever wrote them: Stave's own checkpoints and Ultralytics' (a
// torch.save archive: yolo11n.pt, yolov8n.pt, an Ultralytics run's best.pt or last.pt), told
// apart by their contents. `model=FILE.pt` takes architecture and weights from the file,
// `pretrained=FILE.pt` the tensors that match by name and shape; val, predict and the exports
// read either kind through loadWeights().

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/model/architecture.h"
#include "core/train/checkpoint.h"

namespace stave::train {

struct UltralyticsCheckpoint;

/// A checkpoint of either kind, read once.
class StartWeights {
 public:
  /// Reads `path`. A name that is no file (yolo11n.pt) is an error saying that Stave does not
  /// download weights and where Ultralytics publishes them; an Ultralytics file whose model
  /// Stave does not build (YOLO26, a segmentation or pose head, RT-DETR, a custom layout) is
  /// refused naming the module and the Ultralytics version that wrote it.
  static Result<StartWeights> open(const std::string& path);

  /// "Stave" or "Ultralytics 8.3.40" ("Ultralytics" when the file does not say its version).
  const std::string& writer() const { return m_writer; }
  /// Whether Ultralytics wrote it.
  bool ultralytics() const { return m_ultra != nullptr; }
  /// The network's name ("yolo11n") and the file's class count and names; for Stave's files
  /// from their meta, for Ultralytics' from the model's yaml and names.
  const std::string& modelName() const { return m_meta.scale; }
  /// The file's meta (Ultralytics: scale, nc, names, imgsz from train_args, epoch; no optimiser
  /// state is taken from it).
  const CheckpointMeta& meta() const { return m_meta; }
  /// "ema" or "model": which of the file's models the weights are.
  const std::string& source() const { return m_source; }

  /// Copies into `model` every parameter and buffer that has a tensor of the same name and
  /// shape in the file (its EMA when it has one), as Ultralytics' intersect_dicts does; the
  /// rest stay as they are, each listed with why. The error names the file.
  Result<WeightTransfer> transferInto(torch::nn::Module& model) const;

 private:
  std::string m_path, m_writer, m_source;
  CheckpointMeta m_meta;
  std::shared_ptr<const CheckpointReader> m_stave;
  std::shared_ptr<const UltralyticsCheckpoint> m_ultra;
};

/// The line the log and the run's warnings carry, as Ultralytics says it: "Transferred 448/499
/// items from pretrained weights (Ultralytics 8.4.190, model); kept 51 as initialised: the
/// head's class branch (80 -> 5 classes)".
/// keptSummary as a catalog message (the studio's language).
Text keptText(const WeightTransfer& t, int64_t fileNc, int64_t modelNc);
std::string transferSummary(const WeightTransfer& t, const StartWeights& from, int64_t modelNc);

/// What a transfer left at its initialisation, in a few words: "the head's class branch (80 -> 5
/// classes)" when only the class branch (cv3) differs, else the first names and why.
std::string keptSummary(const WeightTransfer& t, int64_t fileNc, int64_t modelNc);

/// An Ultralytics file's weights in a Stave model (eval mode, on `device`) with its meta;
/// every tensor of the model must be in the file with its shape. Used by loadWeights().
Result<LoadedWeights> loadUltralyticsWeights(const std::string& path, const torch::Device& device);

/// Whether `arch` is the published network its name says (yolo11n, ...), layer for layer: the
/// only ones a Stave checkpoint can record by name.
bool isPublishedArchitecture(const model::Architecture& arch);

/// The error for a weights path that is not a file: Stave never downloads weights.
Error missingWeightsError(const std::string& path, const std::string& key);

}  // namespace stave::train
