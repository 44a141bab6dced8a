#pragma once
// `stave-train export-weights --format ultralytics`: a Stave checkpoint's weights as a checkpoint
// that Ultralytics' YOLO("model.pt") loads, validates, predicts with and exports (ONNX, TensorRT,
// OpenVINO) unchanged. Stave's layers carry the published YOLOv8 and YOLO11 names, so the
// tensors go across one for one.

#include <string>

#include "core/base/result.h"

namespace stave::train {

/// What exportUltralyticsWeights wrote.
struct UltralyticsExport {
  std::string modelYaml;  ///< the Ultralytics architecture, e.g. "yolo11n.yaml"
  int64_t tensors = 0;    ///< parameters and buffers written
  int nc = 0;             ///< classes
};

/// Writes `checkpoint`'s EMA weights (those Stave validates and predicts with) to `out`,
/// atomically, as an Ultralytics checkpoint: a torch.save() archive whose `model` is
/// ultralytics.nn.tasks.DetectionModel built from the same network and class count (by
/// Ultralytics' own code when it loads the file) with these weights, the class names as its
/// `names`, and `train_args` holding task, data, imgsz and single_cls. Loading it runs
/// Ultralytics' constructor, as loading any Ultralytics checkpoint does (a full pickle, not a
/// weights-only one). Errors name the file.
Result<UltralyticsExport> exportUltralyticsWeights(const std::string& checkpoint,
                                                   const std::string& out);

}  // namespace stave::train
