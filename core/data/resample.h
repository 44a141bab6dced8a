#pragma once
// The last geometric step of a training sample in one pass: bilinear resampling of image tiles,
// the flips and the BGR -> RGB planar (or interleaved) layout, written straight into the
// sample's slot of a batch. Separate OpenCV passes (resize, flip, split) cost about twice as much,
// most of it in reading the source images twice and in the resize's per-pixel work; see
// docs/benchmarks.md.

#include <cstdint>
#include <vector>

#include <opencv2/core.hpp>

namespace stave::data {

/// A source image (or a view of one) resampled onto a rectangle of the output.
struct ResampleTile {
  cv::Mat src;   ///< CV_8UC3 BGR, any stride (a view is fine); never read outside it
  cv::Rect dst;  ///< where it lands in the output, before the flips; tiles must not overlap
};

/// Which implementation renderRgb uses (tests compare them; Auto picks the fastest).
enum class ResampleKernel { Auto, Scalar, Avx2 };

/// What to render: tiles on a grey canvas, then flips.
struct RgbRender {
  cv::Size out;                     ///< output size
  std::vector<ResampleTile> tiles;  ///< resampled like cv::resize(INTER_LINEAR) does
  bool flipLR = false;              ///< mirror left-right
  bool flipUD = false;              ///< mirror top-bottom
  uint8_t grey = 114;               ///< canvas value where no tile lands
  ResampleKernel kernel = ResampleKernel::Auto;
};

/// Whether this CPU runs the AVX2 kernel.
bool resampleHasAvx2();

/// Renders `r` into `dst` as RGB: three planes of out.area() bytes (R, G, B) or, with
/// `channelsLast`, interleaved RGB rows. Bilinear with pixel centres aligned as cv::resize
/// aligns them, 8-bit weights; the result differs from the same passes done in float
/// (cv::resize, cv::transform, one rounding) by at most one level (tested). Thread-safe
/// (scratch memory is per thread).
void renderRgb(const RgbRender& r, uint8_t* dst, bool channelsLast);

/// Copies a BGR image into `dst` in the layout renderRgb writes (RGB planes, or interleaved
/// RGB with `channelsLast`), with OpenCV's SIMD split / conversion.
void copyBgrToRgb(const cv::Mat& bgr, uint8_t* dst, bool channelsLast);

/// The planar RGB image (as renderRgb writes it) as a BGR cv::Mat, for tests and for the
/// paths that keep working on a Mat.
cv::Mat planarRgbToBgr(const uint8_t* planes, cv::Size size);

}  // namespace stave::data
