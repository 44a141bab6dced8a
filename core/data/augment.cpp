#include "core/data/augment.h"
#include "core/base/clock.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <opencv2/imgproc.hpp>

namespace stave::data {
namespace {
constexpr double kPi = 3.14159265358979323846;
const cv::Scalar kGrey(114, 114, 114);

// Beta(a, a) from two gammas (Marsaglia-Tsang), drawn only from our Rng.
double gammaSample(Rng& rng, double a) {
  const double d = a - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      // Box-Muller normal.
      const double u1 = std::max(rng.uniform(), 1e-300), u2 = rng.uniform();
      x = std::sqrt(-2.0 * std::log(u1)) * std::cos(2 * kPi * u2);
      v = 1.0 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = rng.uniform();
    if (u < 1 - 0.0331 * x * x * x * x) return d * v;
    if (std::log(std::max(u, 1e-300)) < 0.5 * x * x + d * (1 - v + std::log(v))) return d * v;
  }
}
double betaSample(Rng& rng, double a, double b) {
  const double x = gammaSample(rng, a), y = gammaSample(rng, b);
  return x / (x + y);
}

void clipBoxes(std::vector<PixBox>& boxes, float x0, float y0, float x1, float y1) {
  std::vector<PixBox> out;
  for (auto b : boxes) {
    b.x1 = std::clamp(b.x1, x0, x1);
    b.x2 = std::clamp(b.x2, x0, x1);
    b.y1 = std::clamp(b.y1, y0, y1);
    b.y2 = std::clamp(b.y2, y0, y1);
    if (b.x2 > b.x1 && b.y2 > b.y1) out.push_back(b);
  }
  boxes.swap(out);
}

// Ultralytics' _mosaic4 as a composition of four tiles on a 2S x 2S canvas (painted only by
// the slow path). Boxes are clipped to the part of their tile that is pasted (Ultralytics clips
// only to the canvas, which lets a cut box spill into a neighbour).
Composition mosaic4(const AugmentContext& ctx, int64_t index,
                    const std::function<int64_t(Rng&)>& companion, Rng& rng, StageTimes& times) {
  const int s = ctx.imgsz;
  const int yc = static_cast<int>(rng.uniform(0.5 * s, 1.5 * s));
  const int xc = static_cast<int>(rng.uniform(0.5 * s, 1.5 * s));
  int64_t ids[4] = {index, companion(rng), companion(rng), companion(rng)};
  Composition comp;
  comp.canvas = cv::Size(2 * s, 2 * s);
  for (int i = 0; i < 4; ++i) {
    auto li = ctx.load(ids[i], times);
    const int w = li->img.cols, h = li->img.rows;
    int x1a, y1a, x2a, y2a, x1b, y1b, x2b, y2b;
    if (i == 0) {
      x1a = std::max(xc - w, 0), y1a = std::max(yc - h, 0), x2a = xc, y2a = yc;
      x1b = w - (x2a - x1a), y1b = h - (y2a - y1a), x2b = w, y2b = h;
    } else if (i == 1) {
      x1a = xc, y1a = std::max(yc - h, 0), x2a = std::min(xc + w, 2 * s), y2a = yc;
      x1b = 0, y1b = h - (y2a - y1a), x2b = std::min(w, x2a - x1a), y2b = h;
    } else if (i == 2) {
      x1a = std::max(xc - w, 0), y1a = yc, x2a = xc, y2a = std::min(2 * s, yc + h);
      x1b = w - (x2a - x1a), y1b = 0, x2b = w, y2b = std::min(y2a - y1a, h);
    } else {
      x1a = xc, y1a = yc, x2a = std::min(xc + w, 2 * s), y2a = std::min(2 * s, yc + h);
      x1b = 0, y1b = 0, x2b = std::min(w, x2a - x1a), y2b = std::min(y2a - y1a, h);
    }
    if (x2a <= x1a || y2a <= y1a) continue;
    Tile t;
    t.src = cv::Rect(x1b, y1b, x2b - x1b, y2b - y1b);
    t.dst = cv::Rect(x1a, y1a, x2a - x1a, y2a - y1a);
    const float padw = float(x1a - x1b), padh = float(y1a - y1b);
    t.boxes = toPixels((*ctx.records)[static_cast<size_t>(ids[i])].boxes, w, h);
    for (auto& b : t.boxes) {
      b.x1 += padw, b.x2 += padw, b.y1 += padh, b.y2 += padh;
    }
    clipBoxes(t.boxes, float(x1a), float(y1a), float(x2a), float(y2a));
    t.image = std::move(li);
    comp.tiles.push_back(std::move(t));
  }
  return comp;
}

// One image letterboxed into an S x S canvas, as a single tile.
Composition letterboxed(const AugmentContext& ctx, int64_t index, StageTimes& times) {
  const int s = ctx.imgsz;
  auto li = ctx.load(index, times);
  Composition comp;
  comp.canvas = cv::Size(s, s);
  Tile t;
  t.boxes = toPixels((*ctx.records)[static_cast<size_t>(index)].boxes, li->img.cols, li->img.rows);
  if (std::max(li->img.cols, li->img.rows) == s) {
    // Already long side S: only padding, which the renderers give for free.
    const int px = static_cast<int>(std::lround((s - li->img.cols) / 2.0 - 0.1));
    const int py = static_cast<int>(std::lround((s - li->img.rows) / 2.0 - 0.1));
    t.src = cv::Rect(0, 0, li->img.cols, li->img.rows);
    t.dst = cv::Rect(px, py, li->img.cols, li->img.rows);
    for (auto& b : t.boxes) {
      b.x1 += px, b.x2 += px, b.y1 += py, b.y2 += py;
    }
    t.image = std::move(li);
  } else {
    float r, px, py;
    auto boxed = std::make_shared<LoadedImage>();
    boxed->img = letterbox(li->img, cv::Size(s, s), true, &r, &px, &py);
    for (auto& b : t.boxes) {
      b.x1 = b.x1 * r + px, b.x2 = b.x2 * r + px, b.y1 = b.y1 * r + py, b.y2 = b.y2 * r + py;
    }
    t.src = t.dst = cv::Rect(0, 0, s, s);
    t.image = std::move(boxed);
  }
  comp.tiles.push_back(std::move(t));
  return comp;
}

// Mosaic or letterbox and the random perspective drawn for it (Ultralytics' pre_transform,
// also used for the second image of mixup); rendering comes later.
struct Base {
  Composition comp;
  cv::Matx33d M;
  double scale = 1;
  bool scaleOnly = false;  // M is scale + translation: the fast renderer applies
};

Base baseDraw(const AugmentContext& ctx, int64_t index, bool mosaicOn,
              const std::function<int64_t(Rng&)>& companion, Rng& rng, StageTimes& times) {
  const int s = ctx.imgsz;
  const bool useMosaic = mosaicOn && rng.uniform() < ctx.aug.mosaic;
  Base b;
  b.comp = useMosaic ? mosaic4(ctx, index, companion, rng, times) : letterboxed(ctx, index, times);
  b.M = randomPerspectiveMatrix(rng, ctx.aug, b.comp.canvas, cv::Size(s, s), &b.scale);
  b.scaleOnly =
      b.M(0, 1) == 0 && b.M(1, 0) == 0 && b.M(2, 0) == 0 && b.M(2, 1) == 0 && b.M(2, 2) == 1;
  return b;
}

// The base as a BGR image (imgsz x imgsz).
Sample renderBase(const AugmentContext& ctx, const Base& b, StageTimes& times) {
  const double t0 = monotonicSeconds();
  const cv::Size out(ctx.imgsz, ctx.imgsz);
  Sample smp = b.scaleOnly ? renderScaled(b.comp, b.M, out, b.scale, ctx.fused)
                           : renderWarped(b.comp, b.M, out, b.scale);
  times.augment += monotonicSeconds() - t0;
  return smp;
}
}  // namespace

std::vector<PixBox> toPixels(const std::vector<Box>& boxes, int w, int h) {
  std::vector<PixBox> out;
  out.reserve(boxes.size());
  for (const auto& b : boxes)
    out.push_back({b.cls, (b.cx - b.w / 2) * w, (b.cy - b.h / 2) * h, (b.cx + b.w / 2) * w,
                   (b.cy + b.h / 2) * h});
  return out;
}

Sample renderWarped(const Composition& comp, const cv::Matx33d& M, cv::Size out, double scale) {
  cv::Mat canvas(comp.canvas, CV_8UC3, kGrey);
  std::vector<PixBox> boxes;
  for (const auto& t : comp.tiles) {
    t.image->img(t.src).copyTo(canvas(t.dst));
    boxes.insert(boxes.end(), t.boxes.begin(), t.boxes.end());
  }
  Sample smp;
  smp.img = warpImage(canvas, M, out);
  smp.boxes = transformBoxes(boxes, M, out, scale);
  return smp;
}

ScaledLayout scaledLayout(const Composition& comp, const cv::Matx33d& M, cv::Size out) {
  STAVE_CHECK(M(0, 1) == 0 && M(1, 0) == 0 && M(2, 0) == 0 && M(2, 1) == 0,
              "scaledLayout needs scale+translate");
  const double sx = M(0, 0), sy = M(1, 1), tx = M(0, 2), ty = M(1, 2);
  ScaledLayout lay;
  for (const auto& t : comp.tiles) {
    // The tile's visible part in whole output pixels, and the whole source pixels that map there.
    const int u1 =
        static_cast<int>(std::lround(std::clamp(t.dst.x * sx + tx, 0.0, double(out.width))));
    const int u2 =
        static_cast<int>(std::lround(std::clamp(t.dst.br().x * sx + tx, 0.0, double(out.width))));
    const int v1 =
        static_cast<int>(std::lround(std::clamp(t.dst.y * sy + ty, 0.0, double(out.height))));
    const int v2 =
        static_cast<int>(std::lround(std::clamp(t.dst.br().y * sy + ty, 0.0, double(out.height))));
    if (u2 <= u1 || v2 <= v1) continue;
    const int cx1 =
        std::clamp(static_cast<int>(std::lround((u1 - tx) / sx)), t.dst.x, t.dst.br().x - 1);
    const int cx2 =
        std::clamp(static_cast<int>(std::lround((u2 - tx) / sx)), cx1 + 1, t.dst.br().x);
    const int cy1 =
        std::clamp(static_cast<int>(std::lround((v1 - ty) / sy)), t.dst.y, t.dst.br().y - 1);
    const int cy2 =
        std::clamp(static_cast<int>(std::lround((v2 - ty) / sy)), cy1 + 1, t.dst.br().y);
    const cv::Rect src(t.src.x + cx1 - t.dst.x, t.src.y + cy1 - t.dst.y, cx2 - cx1, cy2 - cy1);
    lay.tiles.push_back({t.image->img(src), cv::Rect(u1, v1, u2 - u1, v2 - v1)});
    // Boxes follow the mapping actually used (whole pixels), so labels match the pixels.
    const double kx = double(u2 - u1) / (cx2 - cx1), ky = double(v2 - v1) / (cy2 - cy1);
    const double ox = u1 - cx1 * kx, oy = v1 - cy1 * ky;
    for (const auto& o : t.boxes) {
      const double x1 = std::clamp(std::max<double>(o.x1, cx1) * kx + ox, 0.0, double(out.width));
      const double x2 = std::clamp(std::min<double>(o.x2, cx2) * kx + ox, 0.0, double(out.width));
      const double y1 = std::clamp(std::max<double>(o.y1, cy1) * ky + oy, 0.0, double(out.height));
      const double y2 = std::clamp(std::min<double>(o.y2, cy2) * ky + oy, 0.0, double(out.height));
      // box_candidates against the whole box at this scale.
      const double w1 = (o.x2 - o.x1) * kx, h1 = (o.y2 - o.y1) * ky, w2 = x2 - x1, h2 = y2 - y1,
                   eps = 1e-16;
      const double ar = std::max(w2 / (h2 + eps), h2 / (w2 + eps));
      if (w2 > 2 && h2 > 2 && w2 * h2 / (w1 * h1 + eps) > 0.1 && ar < 100)
        lay.boxes.push_back({o.cls, float(x1), float(y1), float(x2), float(y2)});
    }
  }
  return lay;
}

Sample renderScaled(const Composition& comp, const cv::Matx33d& M, cv::Size out, double scale,
                    bool fused) {
  ScaledLayout lay = scaledLayout(comp, M, out);
  Sample smp;
  if (fused && resampleHasAvx2()) {
    RgbRender r;
    r.out = out;
    r.tiles = std::move(lay.tiles);
    std::vector<uint8_t> planes(size_t(3) * size_t(out.area()));
    renderRgb(r, planes.data(), false);
    smp.img = planarRgbToBgr(planes.data(), out);
  } else {
    smp.img = cv::Mat(out, CV_8UC3, kGrey);
    for (const auto& t : lay.tiles) {
      cv::Mat roi = smp.img(t.dst);
      cv::resize(t.src, roi, roi.size(), 0, 0, cv::INTER_LINEAR);
    }
  }
  smp.boxes = std::move(lay.boxes);
  (void)scale;  // the tile mapping's own scale is used, which differs only by rounding
  return smp;
}

cv::Mat letterbox(const cv::Mat& img, cv::Size shape, bool scaleup, float* ratio, float* padX,
                  float* padY) {
  double r = std::min(double(shape.height) / img.rows, double(shape.width) / img.cols);
  if (!scaleup) r = std::min(r, 1.0);
  const int nw = static_cast<int>(std::lround(img.cols * r)),
            nh = static_cast<int>(std::lround(img.rows * r));
  const double dw = (shape.width - nw) / 2.0, dh = (shape.height - nh) / 2.0;
  cv::Mat resized = img;
  if (nw != img.cols || nh != img.rows)
    cv::resize(img, resized, cv::Size(nw, nh), 0, 0, cv::INTER_LINEAR);
  const int top = static_cast<int>(std::lround(dh - 0.1)),
            left = static_cast<int>(std::lround(dw - 0.1));
  const int bottom = shape.height - nh - top, right = shape.width - nw - left;
  cv::Mat out;
  if (top || bottom || left || right)
    cv::copyMakeBorder(resized, out, top, bottom, left, right, cv::BORDER_CONSTANT, kGrey);
  else
    out = resized.data == img.data ? img.clone() : resized;
  if (ratio) *ratio = float(r);
  if (padX) *padX = float(left);
  if (padY) *padY = float(top);
  return out;
}

cv::Matx33d randomPerspectiveMatrix(Rng& rng, const AugmentOptions& aug, cv::Size in, cv::Size out,
                                    double* scaleOut) {
  cv::Matx33d C = cv::Matx33d::eye();
  C(0, 2) = -in.width / 2.0;
  C(1, 2) = -in.height / 2.0;
  cv::Matx33d P = cv::Matx33d::eye();
  P(2, 0) = rng.uniform(-aug.perspective, aug.perspective);
  P(2, 1) = rng.uniform(-aug.perspective, aug.perspective);
  const double a = rng.uniform(-aug.degrees, aug.degrees) * kPi / 180;
  const double s = rng.uniform(1 - aug.scale, 1 + aug.scale);
  // cv2.getRotationMatrix2D(center=0, angle=a, scale=s): counter-clockwise in image coords.
  cv::Matx33d R = cv::Matx33d::eye();
  R(0, 0) = s * std::cos(a), R(0, 1) = s * std::sin(a);
  R(1, 0) = -s * std::sin(a), R(1, 1) = s * std::cos(a);
  cv::Matx33d S = cv::Matx33d::eye();
  S(0, 1) = std::tan(rng.uniform(-aug.shear, aug.shear) * kPi / 180);
  S(1, 0) = std::tan(rng.uniform(-aug.shear, aug.shear) * kPi / 180);
  cv::Matx33d T = cv::Matx33d::eye();
  T(0, 2) = rng.uniform(0.5 - aug.translate, 0.5 + aug.translate) * out.width;
  T(1, 2) = rng.uniform(0.5 - aug.translate, 0.5 + aug.translate) * out.height;
  if (scaleOut) *scaleOut = s;
  return T * S * R * P * C;
}

std::vector<PixBox> transformBoxes(const std::vector<PixBox>& boxes, const cv::Matx33d& M,
                                   cv::Size out, double scale) {
  std::vector<PixBox> res;
  const bool persp = M(2, 0) != 0 || M(2, 1) != 0;
  for (const auto& b : boxes) {
    const double xs[4] = {b.x1, b.x2, b.x1, b.x2}, ys[4] = {b.y1, b.y1, b.y2, b.y2};
    double x1 = 1e30, y1 = 1e30, x2 = -1e30, y2 = -1e30;
    for (int k = 0; k < 4; ++k) {
      double x = M(0, 0) * xs[k] + M(0, 1) * ys[k] + M(0, 2);
      double y = M(1, 0) * xs[k] + M(1, 1) * ys[k] + M(1, 2);
      if (persp) {
        const double z = M(2, 0) * xs[k] + M(2, 1) * ys[k] + M(2, 2);
        x /= z;
        y /= z;
      }
      x1 = std::min(x1, x), x2 = std::max(x2, x), y1 = std::min(y1, y), y2 = std::max(y2, y);
    }
    x1 = std::clamp(x1, 0.0, double(out.width));
    x2 = std::clamp(x2, 0.0, double(out.width));
    y1 = std::clamp(y1, 0.0, double(out.height));
    y2 = std::clamp(y2, 0.0, double(out.height));
    // box_candidates: keep boxes > 2 px, > 10% of their scaled area, aspect < 100.
    const double w1 = (b.x2 - b.x1) * scale, h1 = (b.y2 - b.y1) * scale;
    const double w2 = x2 - x1, h2 = y2 - y1, eps = 1e-16;
    const double ar = std::max(w2 / (h2 + eps), h2 / (w2 + eps));
    if (w2 > 2 && h2 > 2 && w2 * h2 / (w1 * h1 + eps) > 0.1 && ar < 100)
      res.push_back({b.cls, float(x1), float(y1), float(x2), float(y2)});
  }
  return res;
}

cv::Mat warpImage(const cv::Mat& img, const cv::Matx33d& M, cv::Size out) {
  cv::Mat dst;
  if (M(2, 0) != 0 || M(2, 1) != 0) {
    cv::warpPerspective(img, dst, cv::Mat(M), out, cv::INTER_LINEAR, cv::BORDER_CONSTANT, kGrey);
  } else {
    const cv::Matx23d A(M(0, 0), M(0, 1), M(0, 2), M(1, 0), M(1, 1), M(1, 2));
    cv::warpAffine(img, dst, cv::Mat(A), out, cv::INTER_LINEAR, cv::BORDER_CONSTANT, kGrey);
  }
  return dst;
}

cv::Mat hsvLookupTable(double rh, double rs, double rv) {
  cv::Mat table(1, 256, CV_8UC3);
  auto* t = table.ptr<cv::Vec3b>();
  const auto clipped = [](double v) { return static_cast<uint8_t>(std::clamp(v, 0.0, 255.0)); };
  for (int x = 0; x < 256; ++x) {
    double h = std::fmod(x + rh * 180.0, 180.0);
    if (h < 0) h += 180.0;  // numpy's % takes the divisor's sign
    t[x] = cv::Vec3b(static_cast<uint8_t>(h), clipped(x * (rs + 1)), clipped(x * (rv + 1)));
  }
  return table;
}

void applyHsvLookup(cv::Mat& img, const cv::Mat& table, bool rgb) {
  STAVE_CHECK(img.type() == CV_8UC3, "applyHsvLookup: needs an 8-bit 3-channel image");
  cv::Mat hsv;
  cv::cvtColor(img, hsv, rgb ? cv::COLOR_RGB2HSV : cv::COLOR_BGR2HSV);
  cv::LUT(hsv, table, hsv);
  uint8_t* before = img.data;
  cv::cvtColor(hsv, img, rgb ? cv::COLOR_HSV2RGB : cv::COLOR_HSV2BGR);
  STAVE_CHECK(img.data == before, "applyHsvLookup reallocated the image");
}

namespace {
struct HsvGains {
  double h = 0, s = 0, v = 0;  // r = U(-1, 1) x gain
  bool on = false;
};

HsvGains drawHsv(Rng& rng, double hgain, double sgain, double vgain) {
  // Drawn as Ultralytics' RandomHSV draws them (r = U(-1, 1) * gain per channel).
  HsvGains g;
  g.h = rng.uniform(-1, 1) * hgain;
  g.s = rng.uniform(-1, 1) * sgain;
  g.v = rng.uniform(-1, 1) * vgain;
  g.on = !(hgain == 0 && sgain == 0 && vgain == 0);
  return g;
}

// Boxes of an s x s sample after the flips.
void flipBoxes(std::vector<PixBox>& boxes, int s, bool ud, bool lr) {
  for (auto& b : boxes) {
    if (ud) {
      const float y1 = s - b.y2, y2 = s - b.y1;
      b.y1 = y1, b.y2 = y2;
    }
    if (lr) {
      const float x1 = s - b.x2, x2 = s - b.x1;
      b.x1 = x1, b.x2 = x2;
    }
  }
}

void colourAndMirror(cv::Mat& img, const HsvGains& g, bool mirror) {
  if (g.on) applyHsvLookup(img, hsvLookupTable(g.h, g.s, g.v));
  if (mirror) cv::flip(img, img, 1);
}
}  // namespace

void augmentHsv(cv::Mat& img, Rng& rng, double hgain, double sgain, double vgain) {
  colourAndMirror(img, drawHsv(rng, hgain, sgain, vgain), false);
}

Sample makeTrainSample(const AugmentContext& ctx, int64_t index, bool mosaicOn,
                       const std::function<int64_t(Rng&)>& companion, Rng& rng, StageTimes& times,
                       const PixelSink* sink) {
  const int s = ctx.imgsz;
  const cv::Size out(s, s);
  const Base base = baseDraw(ctx, index, mosaicOn, companion, rng, times);
  // close_mosaic turns mixup off too, as Ultralytics does; the draw happens either way so the
  // rest of the sample's randomness stays aligned.
  const bool mix = rng.uniform() < ctx.aug.mixup && mosaicOn;
  Sample smp;
  if (!mix && base.scaleOnly && ctx.fused && resampleHasAvx2()) {
    // The default path: one pass from the source images to the batch (renderRgb). Draws in
    // Ultralytics' order: HSV gains, flipud, fliplr.
    const double t0 = monotonicSeconds();
    ScaledLayout lay = scaledLayout(base.comp, base.M, out);
    const HsvGains hsv = drawHsv(rng, ctx.aug.hsv_h, ctx.aug.hsv_s, ctx.aug.hsv_v);
    RgbRender r;
    r.out = out;
    r.tiles = std::move(lay.tiles);
    r.flipUD = rng.uniform() < ctx.aug.flipud;
    r.flipLR = rng.uniform() < ctx.aug.fliplr;
    smp.boxes = std::move(lay.boxes);
    flipBoxes(smp.boxes, s, r.flipUD, r.flipLR);
    // HSV after the flips (a per-pixel map: the order does not matter), on the rendered sample:
    // in place on interleaved rows, through a BGR copy for planes.
    if (sink && (sink->channelsLast || !hsv.on)) {
      renderRgb(r, sink->data, sink->channelsLast);
      if (hsv.on) {
        cv::Mat rgb(out, CV_8UC3, sink->data);
        applyHsvLookup(rgb, hsvLookupTable(hsv.h, hsv.s, hsv.v), /*rgb=*/true);
      }
    } else {
      std::vector<uint8_t> planes(size_t(3) * size_t(out.area()));
      renderRgb(r, planes.data(), false);
      smp.img = planarRgbToBgr(planes.data(), out);
      if (hsv.on) applyHsvLookup(smp.img, hsvLookupTable(hsv.h, hsv.s, hsv.v));
      if (sink) {
        copyBgrToRgb(smp.img, sink->data, false);
        smp.img = cv::Mat();
      }
    }
    smp.meta = ImageMeta{s, s, 1.0f, 0.0f, 0.0f};
    times.augment += monotonicSeconds() - t0;
    return smp;
  }
  smp = renderBase(ctx, base, times);
  if (mix) {
    Rng sub(rng.next());
    const int64_t other = companion(rng);
    const Base second = baseDraw(ctx, other, mosaicOn, companion, sub, times);
    const Sample secondSample = renderBase(ctx, second, times);
    const double t0 = monotonicSeconds();
    const double r = betaSample(rng, 32.0, 32.0);
    cv::addWeighted(smp.img, r, secondSample.img, 1 - r, 0, smp.img);
    smp.boxes.insert(smp.boxes.end(), secondSample.boxes.begin(), secondSample.boxes.end());
    times.augment += monotonicSeconds() - t0;
  }
  const double t0 = monotonicSeconds();
  // Draws in Ultralytics' order (HSV gains, flipud, fliplr); HSV is a per-pixel map, so it
  // commutes with the flips.
  const HsvGains hsv = drawHsv(rng, ctx.aug.hsv_h, ctx.aug.hsv_s, ctx.aug.hsv_v);
  const bool ud = rng.uniform() < ctx.aug.flipud;
  const bool lr = rng.uniform() < ctx.aug.fliplr;
  colourAndMirror(smp.img, hsv, lr);
  if (ud) cv::flip(smp.img, smp.img, 0);
  flipBoxes(smp.boxes, s, ud, lr);
  smp.meta = ImageMeta{s, s, 1.0f, 0.0f, 0.0f};
  if (sink) {
    copyBgrToRgb(smp.img, sink->data, sink->channelsLast);
    smp.img = cv::Mat();
  }
  times.augment += monotonicSeconds() - t0;
  return smp;
}

Sample makeValSample(const AugmentContext& ctx, int64_t index, cv::Size shape, StageTimes& times) {
  const auto li = ctx.load(index, times);
  const double t0 = monotonicSeconds();
  Sample smp;
  float r, px, py;
  smp.img = letterbox(li->img, shape, false, &r, &px, &py);
  smp.boxes =
      toPixels((*ctx.records)[static_cast<size_t>(index)].boxes, li->img.cols, li->img.rows);
  for (auto& b : smp.boxes) {
    b.x1 = b.x1 * r + px, b.x2 = b.x2 * r + px, b.y1 = b.y1 * r + py, b.y2 = b.y2 * r + py;
  }
  const float loadScale = li->w0 > 0 ? float(li->img.cols) / li->w0 : 1.0f;
  smp.meta = ImageMeta{li->w0, li->h0, loadScale * r, px, py};
  times.augment += monotonicSeconds() - t0;
  return smp;
}

}  // namespace stave::data
