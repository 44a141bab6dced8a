#pragma once
// Using trained weights: validate them on a dataset split (`stave-train val`) and predict on
// images (`stave-train predict`: annotated images and a CSV in the eval-preds format). No torch.

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <torch/torch.h>

#include <string>

#include "core/base/result.h"
#include "core/train/metrics.h"

namespace stave::train {

/// Draws one box in its class's colour (as `predict` draws them), with `label` above it when
/// not empty.
void drawLabelledBox(cv::Mat& bgr, double x1, double y1, double x2, double y2, int cls,
                     const std::string& label);

/// `stave-train val` options.
struct ValRequest {
  std::string weights;             ///< a Stave checkpoint (last.pt, best.pt)
  std::string data;                ///< data.yaml
  std::string split = "val";       ///< split to evaluate
  int batch = 16;                  ///< images per batch
  int imgsz = 0;                   ///< 0 = the training image size
  int workers = 4;                 ///< loader threads
  double conf = 0.001;             ///< confidence threshold
  double iou = 0.7;                ///< NMS IoU threshold
  int maxDet = 300;                ///< detections per image
  bool rect = true;                ///< rectangular batches (as Ultralytics validates); else squares
  std::string device;              ///< "" auto, "cpu", "0"
  std::string precision = "auto";  ///< the `precision` key's values (resolvePrecision)
  std::string channelsLast = "auto";  ///< the `channels_last` key's values (resolveChannelsLast)
  /// When not empty: every kept detection written here as CSV (image,cls,conf,x1,y1,x2,y2 in
  /// original pixels, what `stave-train eval-preds` reads), atomically.
  std::string savePreds;
  /// When not empty: the validation views (val_views.h) are written into this folder.
  std::string plots;
  /// How AP is computed: COCOeval's rule (pycocotools' numbers) or Ultralytics' own validator's.
  ApRule apRule = ApRule::Coco;
};

/// Metrics of the weights' EMA model on the split: {precision, recall, map50, map5095, ap_rule,
/// images, seconds, per_class: [...], compute: {precision, channels_last} (what auto became)}.
Result<nlohmann::json> validateWeights(const ValRequest& request);

/// `stave-train predict` options.
struct PredictRequest {
  std::string weights;  ///< a Stave checkpoint
  std::string source;   ///< an image file or a folder of images
  std::string outDir;   ///< annotated images and predictions.csv go here
  double conf = 0.25;   ///< confidence threshold
  double iou = 0.7;     ///< NMS IoU threshold
  int maxDet = 300;     ///< detections per image
  int imgsz = 0;        ///< 0 = the training image size
  std::string device;   ///< "" auto, "cpu", "0"
};

/// An image as predict feeds it to the network: letterboxed into imgsz x imgsz (aspect ratio
/// kept, resized bilinearly, centred on grey 114), RGB, float 0..1, (1, 3, imgsz, imgsz) on the
/// CPU; `ratio` and the padding map boxes back to the image's pixels ((x - padX) / ratio).
struct PredictInput {
  torch::Tensor x;
  double ratio = 1.0;
  int padX = 0, padY = 0;
};
PredictInput letterboxForPredict(const cv::Mat& bgr, int imgsz);

/// Predicts every image; writes <outDir>/<image name> with boxes and class names drawn and
/// <outDir>/predictions.csv (image,cls,conf,x1,y1,x2,y2 in original pixels; image = path
/// relative to the source folder, or the file name). Returns {images, detections, seconds,
/// csv}. Unreadable images are reported in "problems" and skipped.
Result<nlohmann::json> predictImages(const PredictRequest& request);

/// Largest absolute difference between the tensors of two checkpoints of the same model:
/// {model_max_abs_diff, ema_max_abs_diff, tensors}. Errors when the structures differ.
Result<nlohmann::json> compareWeights(const std::string& a, const std::string& b);
/// The L2 norm of every model and EMA tensor of a checkpoint (in the state's order, computed in
/// double), their totals and the epoch: a fingerprint of trained weights that a test can keep.
Result<nlohmann::json> weightNorms(const std::string& path);

}  // namespace stave::train
