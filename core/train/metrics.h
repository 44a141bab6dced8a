#pragma once
// Detection metrics computed as pycocotools' COCOeval computes bbox AP, so numbers can be compared
// with published ones: IoU thresholds .50:.05:.95, 101 recall points, greedy matching by score
// within each image and category, precision made monotone, area range "all", detections capped
// per image and category at maxDet (as COCOeval does with useCats=1), categories without ground
// truth left out of the mean. P and R are reported at the confidence that maximises the mean F1
// over classes, as Ultralytics reports them. No torch here: the validator converts tensors.
// ApRule::Ultralytics scores the same detections with Ultralytics' own validator instead
// (match_predictions + ap_per_class of Ultralytics 8.4): it reads mAP50-95 about .01 lower.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace stave::train {

/// How AP is computed from the matched detections.
enum class ApRule {
  /// pycocotools' COCOeval: precision at the first rank reaching each of 101 recall points,
  /// averaged; ties in IoU go to the later ground truth; maxDet per image and class.
  Coco,
  /// Ultralytics' validator (8.4): IoU in float32 with its 1e-7 in the union, ties in IoU to the
  /// earlier ground truth, no cap but NMS's; the precision envelope over
  /// [0, recall..., last recall, 1] / [1, precision..., 0, 0] read by linear interpolation at
  /// 101 recall points and integrated with the trapezoid rule; a class without predictions 0.
  Ultralytics,
};
/// "coco" or "ultralytics".
const char* apRuleName(ApRule rule);
/// The rule named "coco" or "ultralytics"; nullopt for anything else.
std::optional<ApRule> parseApRule(const std::string& name);

/// One predicted box in pixels (x2 > x1, y2 > y1 expected).
struct Detection {
  float x1, y1, x2, y2;  ///< corners, pixels
  float score;           ///< confidence
  int cls;               ///< class index
};

/// One ground-truth box in pixels.
struct GroundTruth {
  float x1, y1, x2, y2;  ///< corners, pixels
  int cls;               ///< class index
};

/// Metrics of one class.
struct ClassMetrics {
  int cls = 0;            ///< class index
  int64_t images = 0;     ///< images with at least one box of the class
  int64_t instances = 0;  ///< ground-truth boxes of the class
  double precision = 0;   ///< P at the operating point (0 when no ground truth)
  double recall = 0;      ///< R at the operating point (0 when no ground truth)
  double ap50 = -1;       ///< AP at IoU .5; -1 when the class has no ground truth
  double ap75 = -1;       ///< AP at IoU .75; -1 when the class has no ground truth
  double ap5095 = -1;     ///< AP averaged over IoU .50:.05:.95; -1 without ground truth
};

/// The curves behind Ultralytics' P_curve, R_curve, F1_curve and PR_curve plots, per class with
/// ground truth: precision, recall and F1 over the confidence grid (as the operating point is
/// found), and precision over recall at IoU .5 (COCOeval's monotone precision at the 101 recall
/// points, whose mean is AP50).
struct ClassCurves {
  int cls = 0;
  std::vector<double> precision, recall, f1;  ///< over DetectionCurves::conf
  std::vector<double> prPrecision;            ///< over cocoRecallThresholds(); 0 unreachable
  double bestF1 = 0, bestF1Conf = 0;          ///< this class's F1 peak and where it is
};
struct DetectionCurves {
  std::vector<double> conf;          ///< the confidence grid, 0..1
  std::vector<ClassCurves> classes;  ///< classes with ground truth, by class index
  std::vector<double> meanF1;        ///< mean F1 over those classes (before smoothing)
};

/// Metrics of a whole evaluation.
struct DetectionMetrics {
  double precision = 0;      ///< mean P over classes with ground truth, at the operating point
  double recall = 0;         ///< mean R over classes with ground truth, at the operating point
  double map50 = 0;          ///< COCO AP at IoU .5 (0 when nothing has ground truth)
  double map75 = 0;          ///< COCO AP at IoU .75
  double map5095 = 0;        ///< COCO AP at IoU .50:.05:.95
  double operatingConf = 0;  ///< the confidence where mean F1 peaks (P and R are read there)
  int64_t images = 0;        ///< images evaluated
  int64_t instances = 0;     ///< ground-truth boxes
  int64_t detections = 0;    ///< detections added (before the maxDet cap)
  int classesWithGt = 0;     ///< classes that count in the means
  std::vector<ClassMetrics> perClass;  ///< one per class, index = class
  DetectionCurves curves;              ///< filled by compute(gridPoints > 0)

  ApRule rule = ApRule::Coco;  ///< how AP was computed

  /// Ultralytics' fitness used to pick best.pt: 0.1 mAP50 + 0.9 mAP50-95.
  double fitness() const { return 0.1 * map50 + 0.9 * map5095; }
};

/// Collects detections and ground truth image by image and computes DetectionMetrics.
class DetectionEvaluator {
 public:
  /// `nc` classes; `maxDet` detections kept per image and class (COCO: 100).
  explicit DetectionEvaluator(int nc, int maxDet = 100);

  /// Adds one image's detections and ground truth (pixels). Adding the same id again appends.
  /// Boxes whose class is outside [0, nc) are ignored and counted in ignoredBoxes().
  void add(int imageId, std::vector<Detection> detections, std::vector<GroundTruth> truths);
  /// Adds everything `other` holds (e.g. gathered from another rank).
  void merge(const DetectionEvaluator& other);

  /// Flat encoding of everything added, for gathering across ranks as one float tensor:
  /// per image [id, nDet, nGt, nDet x (x1,y1,x2,y2,score,cls), nGt x (x1,y1,x2,y2,cls)].
  /// Image ids must be exactly representable as float (below 2^24).
  std::vector<float> pack() const;
  /// Adds what pack() produced; false (adding nothing) when `packed` is malformed.
  bool addPacked(const std::vector<float>& packed);

  /// Images added so far.
  int64_t imageCount() const { return static_cast<int64_t>(m_images.size()); }
  /// Boxes dropped because their class was out of range.
  int64_t ignoredBoxes() const { return m_ignored; }
  int nc() const { return m_nc; }
  int maxDet() const { return m_maxDet; }

  /// Computes the metrics (AP by `rule`, Ultralytics' operating point for P and R, from the
  /// detections the rule counts as true positives at IoU .5). With `curvePoints` > 0 the curves
  /// are kept too, at that many points of the 1000-point grid. maxDet applies to ApRule::Coco
  /// only (Ultralytics caps detections per image in NMS).
  DetectionMetrics compute(int curvePoints = 0, ApRule rule = ApRule::Coco) const;

 private:
  struct ImageData {
    std::vector<Detection> detections;
    std::vector<GroundTruth> truths;
  };
  int m_nc;
  int m_maxDet;
  int64_t m_ignored = 0;
  std::map<int, ImageData> m_images;  // ordered by id: COCOeval accumulates in image id order
};

/// Ultralytics' confusion matrix (ConfusionMatrix.process_batch for detection): detections
/// above `conf` are matched to ground truth by IoU above `iou` regardless of class, each
/// detection and each truth at most once (highest IoU first); a matched pair counts at
/// [predicted class][true class], an unmatched truth at [background][true class], an unmatched
/// detection at [predicted class][background]. Background is index nc. Each cell keeps the ids
/// of up to `keepImages` images that put counts in it.
class ConfusionMatrix {
 public:
  explicit ConfusionMatrix(int nc, double conf = 0.25, double iou = 0.45, int keepImages = 12);
  void add(int64_t imageId, const std::vector<Detection>& detections,
           const std::vector<GroundTruth>& truths);
  int nc() const { return m_nc; }
  /// Count at [predicted][true], both 0..nc (nc = background).
  int64_t count(int predicted, int truth) const;
  /// Images behind a cell (at most keepImages, in the order added).
  const std::vector<int64_t>& images(int predicted, int truth) const;
  double conf() const { return m_conf; }
  double iou() const { return m_iou; }

 private:
  int m_nc;
  double m_conf, m_iou;
  size_t m_keep;
  std::vector<int64_t> m_counts;
  std::vector<std::vector<int64_t>> m_images;
};

/// The ten IoU thresholds .50:.05:.95, computed as numpy.linspace computes them.
const std::vector<double>& cocoIouThresholds();
/// The 101 recall thresholds 0:.01:1, computed as numpy.linspace computes them.
const std::vector<double>& cocoRecallThresholds();
/// IoU of two boxes as pycocotools computes it for bbox (areas w*h on continuous coordinates).
double cocoIou(float ax1, float ay1, float ax2, float ay2, float bx1, float by1, float bx2,
               float by2);

}  // namespace stave::train
