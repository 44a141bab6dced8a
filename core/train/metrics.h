#pragma once
// Detection metrics computed as pycocotools' COCOeval computes bbox AP, so numbers can be compared
// with published ones: IoU thresholds .50:.05:.95, 101 recall points, greedy matching by score
// within each image and category, precision made monotone, area range "all", detections capped
// per image and category at maxDet (as COCOeval does with useCats=1), categories without ground
// truth left out of the mean. P and R are reported at the confidence that maximises the mean F1
// over classes, as Ultralytics reports them. No torch here: the validator converts tensors.

#include <cstdint>
#include <map>
#include <vector>

namespace stave::train {

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

  /// Computes the metrics (COCOeval for AP, Ultralytics' operating point for P and R).
  DetectionMetrics compute() const;

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

/// The ten IoU thresholds .50:.05:.95, computed as numpy.linspace computes them.
const std::vector<double>& cocoIouThresholds();
/// The 101 recall thresholds 0:.01:1, computed as numpy.linspace computes them.
const std::vector<double>& cocoRecallThresholds();
/// IoU of two boxes as pycocotools computes it for bbox (areas w*h on continuous coordinates).
double cocoIou(float ax1, float ay1, float ax2, float ay2, float bx1, float by1, float bx2,
               float by2);

}  // namespace stave::train
