#pragma once
// Evaluating predictions made by any tool (`stave-train eval-preds`): a CSV with one box per row,
//   image,cls,conf,x1,y1,x2,y2        (pixels; an optional header row)
// matched to the images of a dataset split by path or file stem, scored with DetectionEvaluator.
// No torch and no dataset code here: the command turns the scanned split into EvalImages.

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/result.h"
#include "core/train/metrics.h"

namespace stave::train {

/// One image of the split with its ground truth in pixels.
struct EvalImage {
  std::vector<std::string> keys;    ///< names a CSV row may use: relative and absolute paths
  std::string stem;                 ///< file name without folder and extension
  std::vector<GroundTruth> truths;  ///< ground truth, pixels
};

/// One CSV row.
struct PredictionRow {
  int line = 0;       ///< 1-based line in the CSV
  std::string image;  ///< as written in the CSV
  Detection det;      ///< the box, pixels
};

/// The header line of a predictions CSV (`stave-train predict`, `val --save-preds`).
inline constexpr const char* kPredictionsCsvHeader = "image,cls,conf,x1,y1,x2,y2\n";

/// Writes one predictions CSV row (pixels) with the stream's precision; an image name holding a
/// comma, quote or line break is quoted, quotes doubled (RFC 4180), as parsePredictionsCsv
/// reads it.
void writePredictionRow(std::ostream& out, const std::string& image, int cls, double conf,
                        double x1, double y1, double x2, double y2);

/// Parses the CSV text. Every malformed row is an error naming file:line and the column
/// (wrong column count, not a number, NaN, class outside [0, nc), x2 < x1 or y2 < y1, empty image).
/// A first row starting with "image" is a header. Fields may be quoted ("a,b.jpg").
Result<std::vector<PredictionRow>> parsePredictionsCsv(const std::string& text,
                                                       const std::string& fileName, int nc);

/// Normalises a path the way keys are compared: '\' -> '/', leading "./" removed.
std::string normaliseImageKey(const std::string& path);

/// What evaluatePredictions found.
struct PredEvalResult {
  DetectionMetrics metrics;           ///< the scores
  int64_t predictions = 0;            ///< rows used
  int64_t imagesWithPredictions = 0;  ///< images named by at least one row
};

/// The image each row names, in row order: an exact key, else (a name without '/') a unique file
/// stem, with or without its extension. Rows naming no image, or a stem shared by several
/// images, are errors with csvName:line.
Result<std::vector<int>> matchRowsToImages(const std::vector<EvalImage>& images,
                                           const std::vector<PredictionRow>& rows,
                                           const std::string& csvName);

/// Matches rows to images (matchRowsToImages) and evaluates with `maxDet` per image
/// and class. Rows naming no image of the split, or a stem shared by several images, are
/// errors with csvName:line. Images without rows count with their ground truth (misses).
Result<PredEvalResult> evaluatePredictions(const std::vector<EvalImage>& images,
                                           const std::vector<PredictionRow>& rows,
                                           const std::string& csvName, int nc, int maxDet);

/// The Ultralytics-style table: "Class Images Instances P R mAP50 mAP50-95", "all" first, then
/// each class with ground truth.
std::string formatMetricsTable(const DetectionMetrics& m, const std::vector<std::string>& names);

/// The metrics as JSON: precision, recall, map50, map75, map50_95, fitness, counts, per_class.
nlohmann::json metricsToJson(const DetectionMetrics& m, const std::vector<std::string>& names);

}  // namespace stave::train
