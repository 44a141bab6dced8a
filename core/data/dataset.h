#pragma once
// YOLO datasets as Ultralytics users have them: data.yaml, image folders or list files, one
// label .txt per image. The scan is multi-threaded, reads sizes from image headers, records
// every problem (file and line) and goes on, and caches its result beside the dataset.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/base/result.h"

namespace stave::data {

/// One object: class id and box, normalised to the image (centre x/y, width, height).
struct Box {
  int cls;
  float cx, cy, w, h;
};

/// One usable image of a split with its objects (no boxes = background image).
struct ImageRecord {
  std::string imagePath;   ///< absolute path of the image
  std::string labelPath;   ///< where its label file is (or would be)
  int width = 0;           ///< displayed width (after EXIF orientation)
  int height = 0;          ///< displayed height (after EXIF orientation)
  std::vector<Box> boxes;  ///< valid objects; rows with problems are left out
  int orientation = 1;     ///< EXIF orientation 1..8 to apply after decoding
};

/// A parsed data.yaml: resolved paths and class names.
struct DataSpec {
  std::string yamlPath;            ///< the data.yaml itself
  std::string root;                ///< `path` resolved against the yaml's folder
  std::vector<std::string> names;  ///< class names, index = class id
  std::vector<std::string> train;  ///< resolved sources: folders, .txt lists or image files
  std::vector<std::string> val;    ///< as train
  std::vector<std::string> test;   ///< as train (may be empty)
  /// Number of classes.
  int nc() const { return static_cast<int>(names.size()); }
  /// The sources of "train", "val" or "test" (nullptr for another name).
  const std::vector<std::string>* sources(const std::string& split) const;
};

/// Reads data.yaml. Errors name the file, line and key: missing `train`/`val`, a `names` that
/// is neither a list nor an {id: name} map, an `nc` that disagrees, a path that does not exist.
Result<DataSpec> loadDataYaml(const std::string& path);

/// One problem found by the scan. Problems never stop the scan.
struct Problem {
  std::string file;         ///< the image, label or list file
  int line = 0;             ///< 1-based line in `file` (label rows), 0 when not a line
  std::string kind;         ///< short id: image-unreadable, image-truncated, image-too-large,
                            ///< image-duplicate, label-columns, label-number, label-nan,
                            ///< label-class, label-range, label-zero-area, label-duplicate,
                            ///< label-orphan, labels-missing, split-empty
  std::string message;      ///< what is wrong, with the valid range where there is one
  bool skipsImage = false;  ///< the whole image is left out of training (else a row or nothing)
  TextParts text = {};      ///< `message` as catalog messages, for the studio (empty: English only)
  /// "file:line: kind: message".
  std::string toString() const;
};

/// A problem whose message is the catalog message `text` (its English is `message`).
inline Problem textProblem(std::string file, int line, std::string kind, TextParts text,
                           bool skipsImage) {
  Problem p{std::move(file), line, std::move(kind), english(text), skipsImage};
  p.text = std::move(text);
  return p;
}

/// How to scan a split.
struct ScanOptions {
  int threads = 0;               ///< worker threads (0 = hardware concurrency)
  bool verify = false;           ///< fully decode every image to find corrupt ones
  bool useCache = true;          ///< read and write the scan cache beside the dataset
  double coordTolerance = 0.01;  ///< how far outside [0, 1] a coordinate may stray (clipped)
  int64_t maxPixels = int64_t(1) << 30;  ///< larger images are reported and left out
  /// Called with (images done, images to check) as the scan goes: from the scan's threads, one
  /// call at a time, a few hundred times per split at most; (n, n) when the cache answers.
  std::function<void(int64_t done, int64_t total)> progress;
  /// When set and it turns true, the scan stops soon and fails with "cancelled" (no cache
  /// is written).
  const std::atomic<bool>* cancel = nullptr;
};

/// The result of scanning one split: usable images and every problem found.
struct SplitIndex {
  std::string split;                ///< "train", "val" or "test"
  std::string root;                 ///< the dataset root (DataSpec::root); caches live below it
  std::vector<ImageRecord> images;  ///< usable images, in source order
  std::vector<Problem> problems;    ///< everything wrong, in source order
  int64_t listed = 0;               ///< image entries found in the sources (with duplicates)
  int64_t skippedImages = 0;        ///< entries left out (unreadable, duplicate, too large)
  int64_t droppedRows = 0;          ///< label rows left out
  bool fromCache = false;           ///< the result came from the scan cache
  std::string cachePath;            ///< where the scan cache is ("" when not written)
};

/// Scans one split of `spec` ("train", "val" or "test"). Fails only when the split is not in
/// the spec, a source cannot be listed at all, or `options.cancel` was set ("cancelled"); an
/// empty split gives a split-empty problem.
Result<SplitIndex> scanSplit(const DataSpec& spec, const std::string& split,
                             const ScanOptions& options = {});

/// Keeps the first round(n * fraction) images (Ultralytics' `fraction`, in (0, 1]).
void applyFraction(SplitIndex& index, double fraction);

/// Makes every box class 0 (Ultralytics' `single_cls`).
void makeSingleClass(SplitIndex& index);

/// Ultralytics' pairing: the last "/images/" becomes "/labels/", the extension ".txt".
std::string labelPathFor(const std::string& imagePath);

/// Boxes and problems from the text of one label file (`file` names it in problems).
struct LabelParse {
  std::vector<Box> boxes;
  std::vector<Problem> problems;
  int64_t droppedRows = 0;
};
/// Parses label text: `cls cx cy w h` rows, polygon rows (`cls x1 y1 ... xn yn`, n >= 3, so
/// 7, 9, 11... columns) become their bounding box; rows with another column count, non-numbers,
/// NaN/inf, class ids outside [0, nc), coordinates outside [0, 1] by more than `tolerance`, or
/// zero area are dropped with a problem; exact duplicate rows are dropped with a problem.
LabelParse parseLabelText(const std::string& text, const std::string& file, int nc,
                          double tolerance);

}  // namespace stave::data
