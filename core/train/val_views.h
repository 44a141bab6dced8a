#pragma once
// The files behind Ultralytics' validation plots, written Qt-free into a folder (a run's val/,
// or `stave-train val --plots DIR`), each atomically:
//   confusion_matrix.json  counts [predicted][true] with background, the images behind cells
//   curves.json            P, R, F1 over confidence per class (best F1 marked), PR at IoU .5
//   per_class.csv          the per-class table (images, instances, P, R, mAP50, mAP50-95)
//   images.json            the images the matrix and the gallery refer to, with their boxes
//   gallery/NN_labels.jpg, gallery/NN_pred.jpg   a few images with labels / predictions drawn
// docs/validation.md describes them.

#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/train/validator.h"

namespace stave::train {

/// The file format version written in every JSON file ("version").
constexpr int kValidationViewsVersion = 1;

/// Writes `views` into `dir` (created). `paths` are the split's image paths by index, `names`
/// the class names. Errors name the file.
Status writeValidationViews(const ValidationViews& views, const std::string& dir,
                            const std::vector<std::string>& paths,
                            const std::vector<std::string>& names);

}  // namespace stave::train
