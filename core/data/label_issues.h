#pragma once
// Label issues from a model (`stave-train label-issues`, docs/labels.md): a dataset's label boxes
// compared with a model's out-of-sample predictions on the same images, every disagreement that
// looks like a labelling error scored in 0..1 (higher = more likely an error), images ranked by
// their worst issue. No torch: the predictions come in as plain boxes.
//
// The ideas follow cleanlab's object-detection scores (ObjectLab): a prediction counts only when
// the model is confident of it, boxes are compared by IoU and by how far apart their centres are,
// and what "confident" means is set per class from the model's own behaviour on the split. Here
// the per-class threshold is the confidence where the class's F1 on the split is highest, and
// each score is weighted by how reliable the model is for that class there (its precision for
// predictions that claim an object, its recall for labels it fails to confirm).

#include <string>
#include <vector>

#include "core/base/result.h"

namespace stave::data {

/// A label box of an image, in pixels.
struct IssueLabel {
  int cls = 0;
  double x1 = 0, y1 = 0, x2 = 0, y2 = 0;
};

/// A model's prediction on an image, in pixels.
struct IssuePrediction {
  int cls = 0;
  double conf = 0;  ///< 0..1
  double x1 = 0, y1 = 0, x2 = 0, y2 = 0;
};

/// One image: its name (as written in the CSV), labels and predictions.
struct IssueImage {
  std::string name;
  std::vector<IssueLabel> labels;
  std::vector<IssuePrediction> predictions;
};

/// The kinds of label issue.
enum class IssueKind {
  Overlooked,    ///< a confident prediction that no label box covers (a missing label)
  Swapped,       ///< a label box a confident prediction of another class covers better
  BadlyLocated,  ///< a label box whose best prediction of its class overlaps it poorly
  Spurious,      ///< a label box that no prediction supports (nothing there, or a duplicate)
};

/// "overlooked", "swapped", "badly_located", "spurious".
const char* issueKindName(IssueKind kind);

/// How issues are found. The defaults are documented in docs/labels.md.
struct LabelIssueOptions {
  /// Confidence from which a prediction counts as the model's claim, the same for every class;
  /// below 0 (the default): per class, the confidence where the class's F1 on these images is
  /// highest (boxes matched at `matchIou`), kept in [minConfident, maxConfident].
  double confident = -1;
  double minConfident = 0.1;  ///< lower bound of a per-class threshold
  double maxConfident = 0.9;  ///< upper bound of a per-class threshold
  /// A class with fewer label boxes than this takes the threshold and reliability of all classes
  /// pooled (too few boxes to estimate its own).
  int minClassBoxes = 8;
  double matchIou = 0.5;   ///< IoU from which a prediction and a label box are the same object
  double coverIou = 0.3;   ///< a prediction overlapping no label box this much is not covered
  double locIou = 0.6;     ///< a label box whose best prediction of its class overlaps less is
                           ///< badly located (down to `minLocIou`)
  double minLocIou = 0.1;  ///< overlaps below this are another object, not a badly placed box
  /// Weight of IoU against centre distance when choosing which prediction a label box belongs
  /// to: similarity = alpha x IoU + (1 - alpha) x exp(-centre distance / label box diagonal).
  double alpha = 0.8;
  double minScore = 0.0;  ///< issues scoring below this are left out
};

/// Checks the options' ranges; errors name the option (as `--name`) and its valid range.
Status checkLabelIssueOptions(const LabelIssueOptions& options);

/// One issue.
struct LabelIssue {
  int image = 0;  ///< index into the images given
  IssueKind kind = IssueKind::Spurious;
  int labelClass = -1;                    ///< the label box's class (-1 for overlooked)
  int predictedClass = -1;                ///< the prediction's class (-1 for spurious)
  double score = 0;                       ///< 0..1, higher = more likely a labelling error
  double x1 = 0, y1 = 0, x2 = 0, y2 = 0;  ///< the label box, or the prediction (overlooked)
  int labelIndex = -1;       ///< index of the label box in its image (-1 for overlooked)
  int predictionIndex = -1;  ///< index of the prediction involved (-1 for spurious)
};

/// The per-class thresholds and reliabilities the scores used.
struct ClassCalibration {
  double threshold = 0.5;  ///< confidence from which a prediction is the model's claim
  double precision = 0;    ///< share of the claims that match a label box of the class
  double recall = 0;       ///< share of the class's label boxes matched by a claim
  int labels = 0;          ///< label boxes of the class
  bool pooled = false;     ///< too few boxes: the values of all classes pooled
};

/// Everything found.
struct LabelIssueReport {
  /// Issues ordered by image rank (the image's worst issue first), then by score; ties by image
  /// order and box.
  std::vector<LabelIssue> issues;
  std::vector<ClassCalibration> classes;  ///< index = class
  std::vector<double> imageScores;        ///< per image: its worst issue's score, 0 if none
};

/// Scores every label box and every confident prediction of `images` (classes in [0, nc)).
LabelIssueReport findLabelIssues(const std::vector<IssueImage>& images, int nc,
                                 const LabelIssueOptions& options = {});

/// IoU of two boxes (x1, y1, x2, y2); 0 when either is empty.
double boxIou(double ax1, double ay1, double ax2, double ay2, double bx1, double by1, double bx2,
              double by2);

/// The CSV header of the issues file.
inline constexpr const char* kLabelIssuesCsvHeader =
    "image,kind,label_class,predicted_class,score,x1,y1,x2,y2\n";

/// The issues as CSV text (header, one row per issue; classes as ids, -1 where none; image names
/// quoted as RFC 4180 when they hold a comma, quote or line break).
std::string labelIssuesCsv(const LabelIssueReport& report, const std::vector<IssueImage>& images);

}  // namespace stave::data
