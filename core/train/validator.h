#pragma once
// Validation of a detector on a letterboxed loader: loss, NMS, COCO-style metrics, with the
// statistics of every rank gathered so that each rank validates its own shard.

#include <torch/torch.h>

#include <array>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/train/amp.h"
#include "core/train/metrics.h"

namespace stave::data {
class Loader;
struct Batch;
}  // namespace stave::data
namespace stave::model {
class YoloImpl;
}

namespace stave::train {

class DetectionLoss;

/// Validation settings (Ultralytics' names: conf, iou, max_det).
/// One detection as `stave-train val --save-preds` writes it (eval-preds' CSV columns).
struct SavedDetection {
  std::string image;  ///< the image's path
  int cls = 0;
  float conf = 0;
  float x1 = 0, y1 = 0, x2 = 0, y2 = 0;  ///< original image pixels, clipped to the image
};

/// One class's metrics (mAP values are -1 for a class without ground truth).
struct ClassResult {
  int cls = 0;
  int64_t images = 0, instances = 0;
  double precision = 0, recall = 0, map50 = 0, map5095 = 0;
};

struct ValidationOptions {
  double conf = 0.001;                    ///< confidence threshold before NMS
  double iou = 0.7;                       ///< NMS IoU threshold
  int maxDet = 300;                       ///< detections kept per image
  Precision precision = Precision::Fp32;  ///< forward precision
  torch::Device device = torch::kCPU;     ///< where the model is
  bool channelsLast = false;              ///< feed channels_last input
  bool singleCls = false;                 ///< every ground-truth box counts as class 0
  /// A box counts once for every class scoring above conf (Ultralytics' validator always does
  /// this; prediction keeps the best class only).
  bool multiLabel = true;
  /// How AP is computed (metrics.h). Under ApRule::Ultralytics the detections are matched as
  /// Ultralytics 8.4 matches them: in the letterboxed frame, not clipped to the image.
  ApRule apRule = ApRule::Coco;
  /// When set, every kept detection in original image pixels (one rank's images only).
  std::vector<SavedDetection>* savedDetections = nullptr;
  /// When set, the data behind Ultralytics' validation plots (all ranks' images) is put here.
  struct ValidationViews* views = nullptr;
  /// When set, counted up at every batch (a stopping rank's watchdog sees the work go on).
  std::atomic<int64_t>* progress = nullptr;
};

/// One validated image as the views keep it: its index in the split and its boxes in original
/// image pixels.
struct ViewImage {
  int64_t index = -1;  ///< in the validation split
  int width = 0, height = 0;
  std::vector<Detection> detections;
  std::vector<GroundTruth> truths;
};

/// The data behind Ultralytics' validation plots: the confusion matrix, the P/R/F1/PR curves
/// and the images they refer to (those behind the matrix's cells, and the first few for a
/// gallery). Image ids in the matrix are ViewImage::index.
struct ValidationViews {
  std::unique_ptr<ConfusionMatrix> matrix;
  DetectionCurves curves;
  std::vector<ClassResult> perClass;
  double operatingConf = 0;
  std::map<int64_t, ViewImage> images;  ///< by split index
  std::vector<int64_t> gallery;         ///< the first images of the split
};



/// What a validation pass measured (identical on every rank).
struct ValidationOutput {
  double precision = 0, recall = 0, map50 = 0, map5095 = 0;  ///< overall
  std::array<double, 3> loss{};       ///< mean val box, cls, dfl loss (0 without a loss)
  double seconds = 0;                 ///< wall time of the pass
  int64_t images = 0;                 ///< images evaluated (all ranks)
  std::vector<ClassResult> perClass;  ///< per class
};

/// Collects float rows from all ranks and returns everyone's rows (all ranks receive all). The
/// default (one rank) returns its input.
using GatherFloats = std::function<std::vector<float>(const std::vector<float>&)>;

/// Runs the model (eval mode, no grad) over one epoch of `loader` and computes the metrics.
/// `loss` may be null. `gather` merges the ranks' statistics.
ValidationOutput validate(model::YoloImpl& model, data::Loader& loader, int nc,
                          const ValidationOptions& options, const DetectionLoss* loss,
                          const GatherFloats& gather = {});

/// A loader batch's uint8 RGB pixels as an (N, 3, H, W) CPU tensor over the loader's buffer
/// (kept alive by the tensor): a permuted view when the batch is NHWC, so strides follow it.
torch::Tensor batchPixels(const data::Batch& batch);

/// A loader batch as a float (N, 3, H, W) tensor on `device`, scaled to 0..1 (channels_last when
/// the batch is NHWC or `channelsLast` is set).
torch::Tensor batchImages(const data::Batch& batch, const torch::Device& device, bool channelsLast);

/// An allocator of page-locked host memory for the loader's batches (fast, asynchronous copies
/// to a CUDA device); plain memory when no CUDA runtime is loaded.
std::function<std::shared_ptr<uint8_t>(size_t)> pinnedHostAllocator();

/// The batch's targets (T, 6) as a float tensor on `device`.
torch::Tensor batchTargets(const data::Batch& batch, const torch::Device& device);

}  // namespace stave::train
