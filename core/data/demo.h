#pragma once
// The embedded demo dataset: synthetic shapes on textured, noisy backgrounds, with exact YOLO
// labels. Deterministic: the same options give the same bytes (on the same OpenCV/libjpeg).

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/result.h"

namespace stave::data {

/// What make-demo writes.
struct DemoOptions {
  std::string out;  ///< output folder (created): data.yaml, images/{train,val}, labels/{train,val}
  int train = 256;  ///< training images
  int val = 64;     ///< validation images
  int imgsz = 256;  ///< long side of every image in pixels (the short side is 75-100% of it)
  uint64_t seed = 0;   ///< same seed, same bytes
  int quality = 90;    ///< JPEG quality 1..100
  int threads = 0;     ///< worker threads (0 = hardware concurrency); does not change the output
  int minObjects = 1;  ///< objects per image, at least
  int maxObjects = 8;  ///< objects per image, at most
};

/// The five demo classes: circle, rectangle, triangle, ellipse, cross.
const std::vector<std::string>& demoClassNames();

/// Writes the dataset. Errors name the folder or option that is wrong (with its valid range).
Status makeDemo(const DemoOptions& options);

/// Renders one demo image (BGR bytes, row-major, `width`x`height`x3) and its label text.
/// Exposed for tests; makeDemo calls it per image with a seed derived from (seed, split, index).
struct DemoImage {
  int width = 0, height = 0;
  std::vector<uint8_t> bgr;
  std::string labels;  ///< YOLO rows "cls cx cy w h"
};
DemoImage renderDemoImage(uint64_t imageSeed, int imgsz, int minObjects, int maxObjects);

}  // namespace stave::data
