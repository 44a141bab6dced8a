#pragma once
// Ultralytics checkpoints (yolov8n.pt, yolo11n.pt, a run's last.pt / best.pt) read in C++:
// the model's architecture (its yaml), class names, strides and every parameter and buffer by
// its dotted name, plus what the file says about its training. Nothing is executed: the file
// is read by Stave's restricted unpickler (pickle_reader.h, torch_archive.h).

#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/base/result.h"
#include "core/train/pickle_reader.h"

namespace stave::train {

/// What an Ultralytics checkpoint holds, as Stave uses it.
struct UltralyticsCheckpoint {
  std::string path;
  /// "ema" when the file's EMA was taken (a file saved mid-training), else "model".
  std::string source;
  /// The model object's class, e.g. "ultralytics.nn.tasks.DetectionModel".
  std::string modelClass;
  /// The architecture (the model's `yaml` dict: nc, scales / depth_multiple, backbone, head...).
  nlohmann::json yaml;
  /// Class names by index (from the model's `names`, a dict {0: "person", ...} or a list).
  std::vector<std::string> names;
  /// The model's strides (e.g. [8, 16, 32]); empty when the file has none.
  std::vector<double> stride;
  /// Every module's `_parameters` and persistent `_buffers` by dotted name ("model.0.conv.weight",
  /// "model.0.bn.num_batches_tracked"), in the order of the model's state_dict(). CPU tensors in
  /// the dtype they were saved in (Ultralytics saves float16; counters int64): call .to().
  std::vector<std::pair<std::string, torch::Tensor>> tensors;
  /// The classes of every module met, each once, in order of first appearance
  /// ("ultralytics.nn.modules.block.C3k2", "torch.nn.modules.conv.Conv2d", ...).
  std::vector<std::string> moduleClasses;
  std::string version;           ///< Ultralytics' version that wrote it ("8.3.40"); "" when absent
  std::string date;              ///< ISO date it was saved; "" when absent
  nlohmann::json trainArgs;      ///< `train_args` (or the model's `args`); null when absent
  std::optional<int64_t> epoch;  ///< `epoch` (-1 in a final, stripped file)
  std::optional<double> bestFitness;  ///< `best_fitness` when a number
  bool hasOptimizer = false;          ///< `optimizer` holds state (a file saved mid-training)

  /// The tensor named `name`, or an undefined tensor.
  torch::Tensor find(const std::string& name) const;
};

/// Reads an Ultralytics checkpoint (a torch.save archive): the EMA when present and not None,
/// else `model`. Errors name the file (and the byte offset in data.pkl where one applies):
/// a file that is not a torch.save archive, a hostile or damaged one, one with no model.
Result<UltralyticsCheckpoint> readUltralyticsCheckpoint(const std::string& path);

/// The plain values of a pickle as JSON: None, bool, int, float, str, list/tuple/set (arrays),
/// dicts (keys as strings), namespaces and records with a dict state (their attributes),
/// pathlib paths (a string), numpy scalars already are numbers. Tensors, bytes and other
/// records become a short description string ("<tensor float16 [16, 3, 3, 3]>"). At most
/// `maxNodes` values are visited (a value reached twice counts twice).
Result<nlohmann::json> pickleToJson(const PickleValue& v, const std::string& file,
                                    size_t maxNodes = 1000000);

}  // namespace stave::train
