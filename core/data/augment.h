#pragma once
// Training augmentation with box transforms, as Ultralytics defines it: mosaic, random
// perspective with box filtering, HSV, flips, mixup; letterbox for validation. All randomness
// comes from the Rng passed in, so a sample depends only on (seed, epoch, index).

#include <functional>
#include <memory>
#include <vector>

#include <opencv2/core.hpp>

#include "core/config/schema.h"
#include "core/data/dataset.h"
#include "core/data/resample.h"
#include "core/data/rng.h"

namespace stave::data {

/// Augmentation hyperparameters; names, meanings and defaults are Ultralytics' (the defaults
/// come from the run-config schema, core/config/schema.cpp, as every engine option's do).
struct AugmentOptions {
  /// hue gain, fraction (0..1)
  double hsv_h = config::defaultNumber("hsv_h");
  /// saturation gain, fraction (0..1)
  double hsv_s = config::defaultNumber("hsv_s");
  /// value gain, fraction (0..1)
  double hsv_v = config::defaultNumber("hsv_v");
  /// rotation, +/- degrees
  double degrees = config::defaultNumber("degrees");
  /// translation, +/- fraction of the image
  double translate = config::defaultNumber("translate");
  /// scale gain, +/- fraction
  double scale = config::defaultNumber("scale");
  /// shear, +/- degrees
  double shear = config::defaultNumber("shear");
  /// perspective, +/- fraction (0..0.001)
  double perspective = config::defaultNumber("perspective");
  /// probability of a vertical flip
  double flipud = config::defaultNumber("flipud");
  /// probability of a horizontal flip
  double fliplr = config::defaultNumber("fliplr");
  /// probability of a 4-image mosaic
  double mosaic = config::defaultNumber("mosaic");
  /// probability of mixing with a second sample
  double mixup = config::defaultNumber("mixup");
};

/// A box in pixels of the image it belongs to.
struct PixBox {
  int cls;
  float x1, y1, x2, y2;
};

/// An image as the pipeline starts from it: decoded to BGR and resized so that its long side
/// is imgsz (Ultralytics' load_image), with its original size.
struct LoadedImage {
  cv::Mat img;  ///< CV_8UC3 BGR
  int w0 = 0;   ///< original width (after EXIF orientation)
  int h0 = 0;   ///< original height
};

/// How a validation image was placed in the batch image, to map predictions back:
/// original = (batch - pad) / scale.
struct ImageMeta {
  int origWidth = 0;   ///< original image width
  int origHeight = 0;  ///< original image height
  float scale = 1;     ///< batch pixels per original pixel
  float padX = 0;      ///< left padding in batch pixels
  float padY = 0;      ///< top padding in batch pixels
};

/// One augmented sample before collation.
struct Sample {
  cv::Mat img;                ///< CV_8UC3 BGR
  std::vector<PixBox> boxes;  ///< in pixels of img
  ImageMeta meta;
};

/// Accumulated seconds per stage, summed over samples.
struct StageTimes {
  double read = 0, decode = 0, augment = 0, collate = 0;
};

/// Gives the loaded image of a dataset index (from a cache or by decoding) and adds the
/// time it took to `times`.
using ImageProvider =
    std::function<std::shared_ptr<const LoadedImage>(int64_t index, StageTimes& times)>;

/// Boxes of a record converted to pixels of an image of size (w, h).
std::vector<PixBox> toPixels(const std::vector<Box>& boxes, int w, int h);

/// Ultralytics' LetterBox (centred): resize to fit `shape` (never up unless `scaleup`), pad
/// with grey 114. Returns the image; `ratio`, `padX`, `padY` say how boxes move.
cv::Mat letterbox(const cv::Mat& img, cv::Size shape, bool scaleup, float* ratio, float* padX,
                  float* padY);

/// The random perspective matrix (3x3, double) for an input of `inSize` producing `outSize`,
/// as Ultralytics' random_perspective draws it; `scaleOut` receives the random scale.
cv::Matx33d randomPerspectiveMatrix(Rng& rng, const AugmentOptions& aug, cv::Size inSize,
                                    cv::Size outSize, double* scaleOut);

/// Transforms boxes by `M` (corners, then their bounding box, clipped to `outSize`) and drops
/// those that become too small, too thin or lose most of their area (Ultralytics'
/// box_candidates: w, h > 2 px, area ratio > 0.1 of the scaled original, aspect < 100).
std::vector<PixBox> transformBoxes(const std::vector<PixBox>& boxes, const cv::Matx33d& M,
                                   cv::Size outSize, double scale);

/// Warps `img` by `M` into `outSize` (affine when the perspective row is (0, 0, 1)), grey 114.
cv::Mat warpImage(const cv::Mat& img, const cv::Matx33d& M, cv::Size outSize);

/// Ultralytics' RandomHSV lookup for the gains r_h, r_s, r_v (each drawn as U(-1, 1) x gain): a
/// 1 x 256 CV_8UC3 table over OpenCV's 8-bit HSV, hue (x + 180 r_h) mod 180, saturation and
/// value x (1 + r) clipped to [0, 255], each truncated to a byte as numpy's astype(uint8) does.
cv::Mat hsvLookupTable(double rh, double rs, double rv);

/// Applies an hsvLookupTable in place to an 8-bit 3-channel image (BGR, or RGB with `rgb`): to
/// HSV, through the table, and back, as Ultralytics' RandomHSV does.
void applyHsvLookup(cv::Mat& img, const cv::Mat& table, bool rgb = false);

/// Random HSV augmentation in place, gains drawn as Ultralytics' RandomHSV draws them
/// (r = U(-1, 1) x gain, hue then saturation then value) and applied through hsvLookupTable.
void augmentHsv(cv::Mat& img, Rng& rng, double hgain, double sgain, double vgain);

/// A part of a source image pasted onto a canvas (a mosaic quarter, or a letterboxed image).
struct Tile {
  std::shared_ptr<const LoadedImage> image;  ///< source pixels
  cv::Rect src;                              ///< the part of image->img that is pasted
  cv::Rect dst;                              ///< where it goes on the canvas (same size)
  std::vector<PixBox> boxes;                 ///< its boxes in canvas pixels, clipped to dst
};

/// Tiles on a grey (114) canvas, before the random perspective.
struct Composition {
  cv::Size canvas;          ///< canvas size (2S x 2S for mosaic, S x S otherwise)
  std::vector<Tile> tiles;  ///< non-overlapping tiles
};

/// The slow, general renderer: paints the canvas and warps it by M (any perspective).
Sample renderWarped(const Composition& comp, const cv::Matx33d& M, cv::Size outSize, double scale);

/// The visible part of each tile of a composition under M = scale + translation, as tiles to
/// resample straight into the output (no canvas, no general warp), and the boxes that follow.
struct ScaledLayout {
  std::vector<ResampleTile> tiles;  ///< source views and where they land
  std::vector<PixBox> boxes;        ///< in output pixels, filtered like transformBoxes
};

/// Lays out a composition for M = scale + translation (the default hyperparameters). Boxes
/// follow the whole-pixel mapping actually used, so they match the pixels exactly.
ScaledLayout scaledLayout(const Composition& comp, const cv::Matx33d& M, cv::Size outSize);

/// The fast renderer for M = scale + translation: scaledLayout resampled (renderRgb with AVX2
/// and `fused`, else cv::resize per tile), as a BGR image. It differs from renderWarped by at
/// most about one pixel of position.
Sample renderScaled(const Composition& comp, const cv::Matx33d& M, cv::Size outSize, double scale,
                    bool fused = true);

/// Where a training sample's pixels go instead of Sample::img: its slot in a batch, RGB planes
/// (or interleaved RGB with channelsLast), as renderRgb writes them.
struct PixelSink {
  uint8_t* data = nullptr;    ///< 3 x imgsz x imgsz bytes
  bool channelsLast = false;  ///< interleaved RGB rows instead of planes
};

/// Everything a training sample needs.
struct AugmentContext {
  const std::vector<ImageRecord>* records = nullptr;  ///< the split's images and labels
  ImageProvider load;                                 ///< decoded, resized images
  int imgsz = 640;                                    ///< output size (square)
  AugmentOptions aug;                                 ///< hyperparameters
  /// The one-pass renderer (renderRgb) for the default path when the CPU has AVX2; otherwise,
  /// or when false, OpenCV's passes (cv::resize, cv::transform, split), whose SSE2 / NEON code
  /// beats the portable scalar kernel by about 4x.
  bool fused = true;
};

/// A training sample of dataset index `index`: mosaic (with probability aug.mosaic when
/// `mosaicOn`, companions from `companion`) or letterbox, then random perspective, mixup (only
/// when `mosaicOn`: close_mosaic ends both, as in Ultralytics), HSV and flips. Output is
/// imgsz x imgsz. With a `sink` the pixels are written there and Sample::img stays empty: for
/// the default hyperparameters (no rotation, shear, perspective or mixup in this sample, and
/// ctx.fused on a CPU with AVX2) the resampling, flips and layout are one pass (renderRgb),
/// followed by HSV on the result; otherwise the sample is made as a BGR image with OpenCV and
/// copied. Without a sink, Sample::img holds the same pixels as BGR.
Sample makeTrainSample(const AugmentContext& ctx, int64_t index, bool mosaicOn,
                       const std::function<int64_t(Rng&)>& companion, Rng& rng, StageTimes& times,
                       const PixelSink* sink = nullptr);

/// A validation sample: the loaded image letterboxed into `shape` (no augmentation).
Sample makeValSample(const AugmentContext& ctx, int64_t index, cv::Size shape, StageTimes& times);

}  // namespace stave::data
