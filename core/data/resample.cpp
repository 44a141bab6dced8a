#include "core/data/resample.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <opencv2/imgproc.hpp>

#include "core/base/result.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define STAVE_RESAMPLE_X86 1
#include <immintrin.h>
#endif

// Fixed point, shared by both kernels so they give the same bytes:
// - vertical: V = (S0 * (256 - b) + S1 * b) >> 1, b in 1/256 pixel: pixel values x 128 (Q7),
//   which fits a signed 16-bit lane for the horizontal multiply-add;
// - horizontal: H = V0 * (256 - a) + V1 * a: pixel values x 32768, exact in 32 bits and as float;
// - output: each of R, G, B as (m0 * B + m1 * G) + m2 * R in float, m the channel order
//   (B, G, R) -> (R, G, B) scaled by 1/32768, rounded to nearest (ties to even) and clamped to
//   0..255.

namespace stave::data {
namespace {

constexpr int kPad = 16;  // u16 elements readable past the end of a vertical row

// One tile prepared for one render: the destination columns it covers (after the flip) and,
// per destination column, the first source pixel and the weight of the second.
struct TilePlan {
  const ResampleTile* tile = nullptr;
  int d0 = 0, d1 = 0;            // destination columns [d0, d1)
  std::vector<int32_t> off;      // per column: 3 * x0 (u16 elements into the vertical row)
  std::vector<int32_t> a;        // per column: weight of pixel x0 + 1, 0..256
  std::vector<int16_t> weights;  // AVX2 layout: per group of 8 columns, 4 x (2 x 8) i16; the
                                 // last group is the overlapping one for columns n-8..n-1
};

struct Scratch {
  std::vector<TilePlan> plans;
  std::vector<uint16_t> vrow;   // one vertically interpolated source row
  std::vector<uint8_t> rgbRow;  // the output row being made (R, G, B planes), in L1
};

// Where destination position `i` of a size-`dn` axis samples a size-`sn` source, as
// cv::resize(INTER_LINEAR) places it: first pixel and the second's weight in 1/256.
// (Called for every column and row of every tile: floor and round are written out because on
// baseline x86-64 std::floor and std::lround are library calls, ~0.08 ms per 640 px sample.)
inline void sourcePos(int i, int sn, int dn, int* p0, int* w) {
  const double f = (i + 0.5) * double(sn) / dn - 0.5;
  int x = static_cast<int>(f);  // truncates towards zero: one less for negative fractions
  if (x > f) --x;
  double frac = f - x;
  if (x < 0) x = 0, frac = 0;
  if (x >= sn - 1) x = sn - 1, frac = 0;
  *p0 = x;
  *w = static_cast<int>(frac * 256 + 0.5);  // frac in [0, 1): rounds half up, as lround does
}

void planTile(const ResampleTile& t, int outWidth, bool flipLR, TilePlan& p) {
  const int n = t.dst.width, sw = t.src.cols;
  p.tile = &t;
  p.d0 = flipLR ? outWidth - t.dst.x - n : t.dst.x;
  p.d1 = p.d0 + n;
  p.off.resize(static_cast<size_t>(n));
  p.a.resize(static_cast<size_t>(n));
  const int groups = n / 8;
  p.weights.assign(static_cast<size_t>(groups + 1) * 64, 0);
  // Register q (0..3) of a group holds columns q and q + 4 in its two 128-bit halves.
  const auto setWeights = [&p](size_t group, int col, int w) {
    const size_t base = group * 64 + size_t(col % 4) * 16 + size_t((col % 8) / 4) * 8;
    for (int c = 0; c < 3; ++c) {
      p.weights[base + size_t(2 * c)] = static_cast<int16_t>(256 - w);
      p.weights[base + size_t(2 * c + 1)] = static_cast<int16_t>(w);
    }
  };
  for (int k = 0; k < n; ++k) {
    // Destination column d0 + k shows tile column j.
    const int j = flipLR ? n - 1 - k : k;
    int x0, w;
    sourcePos(j, sw, n, &x0, &w);
    p.off[size_t(k)] = 3 * x0;
    p.a[size_t(k)] = w;
    if (k < groups * 8) setWeights(size_t(k / 8), k, w);
    if (n >= 8 && k >= n - 8) setWeights(size_t(groups), k - (n - 8), w);
  }
}

// Rounds to nearest, ties to even (as the AVX2 kernel's conversion does) and clamps to a byte.
// Adding and subtracting 1.5 x 2^23 rounds a float of magnitude below 2^22 in the FPU's
// default mode without a library call (std::nearbyint is one on baseline x86-64).
inline uint8_t toByte(float v) {
  v = std::min(std::max(v, -1.0f), 256.0f);  // branch-free (minss / maxss)
  const float r = (v + 12582912.0f) - 12582912.0f;
  return static_cast<uint8_t>(static_cast<int>(std::min(std::max(r, 0.0f), 255.0f)));
}

// ---- scalar kernel -------------------------------------------------------------------------

void verticalScalar(const uint8_t* s0, const uint8_t* s1, int n, int b, uint16_t* v) {
  const int w0 = 256 - b;
  for (int i = 0; i < n; ++i) v[i] = static_cast<uint16_t>((s0[i] * w0 + s1[i] * b) >> 1);
}

void horizontalScalar(const uint16_t* v, const TilePlan& p, int from, const float* m, uint8_t* r,
                      uint8_t* g, uint8_t* b) {
  const int n = p.d1 - p.d0;
  for (int k = from; k < n; ++k) {
    const uint16_t* x = v + p.off[size_t(k)];
    const int a1 = p.a[size_t(k)], a0 = 256 - a1;
    const float fb = float(x[0] * a0 + x[3] * a1);
    const float fg = float(x[1] * a0 + x[4] * a1);
    const float fr = float(x[2] * a0 + x[5] * a1);
    r[k] = toByte((m[0] * fb + m[1] * fg) + m[2] * fr);
    g[k] = toByte((m[3] * fb + m[4] * fg) + m[5] * fr);
    b[k] = toByte((m[6] * fb + m[7] * fg) + m[8] * fr);
  }
}

// ---- AVX2 kernel ---------------------------------------------------------------------------
#ifdef STAVE_RESAMPLE_X86
__attribute__((target("avx2"))) void verticalAvx2(const uint8_t* s0, const uint8_t* s1, int n,
                                                  int b, uint16_t* v) {
  const __m256i w0 = _mm256_set1_epi16(static_cast<int16_t>(256 - b));
  const __m256i w1 = _mm256_set1_epi16(static_cast<int16_t>(b));
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i a =
        _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s0 + i)));
    const __m256i c =
        _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s1 + i)));
    const __m256i sum = _mm256_add_epi16(_mm256_mullo_epi16(a, w0), _mm256_mullo_epi16(c, w1));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(v + i), _mm256_srli_epi16(sum, 1));
  }
  verticalScalar(s0 + i, s1 + i, n - i, b, v + i);
}

__attribute__((target("avx2"))) inline __m256i pixelPair(const uint16_t* v, int o0, int o1,
                                                         __m256i shuffle, const int16_t* w) {
  const __m256i x = _mm256_inserti128_si256(
      _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(v + o0))),
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(v + o1)), 1);
  // (B0 G0 R0 B1 G1 R1 ..) -> (B0 B1 G0 G1 R0 R1 0 0), then B0*w0 + B1*w1 per channel.
  return _mm256_madd_epi16(_mm256_shuffle_epi8(x, shuffle),
                           _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w)));
}

// One output channel (the channel-order map above), rounded to nearest.
__attribute__((target("avx2"))) inline __m256i mixRow(const __m256* mm, int row, __m256 fb,
                                                      __m256 fg, __m256 fr) {
  return _mm256_cvtps_epi32(_mm256_add_ps(
      _mm256_add_ps(_mm256_mul_ps(mm[3 * row], fb), _mm256_mul_ps(mm[3 * row + 1], fg)),
      _mm256_mul_ps(mm[3 * row + 2], fr)));
}

// Eight destination columns from `o` (offsets) and `w` (their weight group) into r, g, b.
__attribute__((target("avx2"))) inline void group8(const uint16_t* v, const int32_t* o,
                                                   const int16_t* w, const __m256* mm, uint8_t* r,
                                                   uint8_t* g, uint8_t* b) {
  const __m256i shuffle =
      _mm256_setr_epi8(0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11, -128, -128, -128, -128,  //
                       0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11, -128, -128, -128, -128);
  // Register q: columns q (low half) and q + 4 (high half), each (B, G, R, 0) in i32.
  const __m256i x0 = pixelPair(v, o[0], o[4], shuffle, w);
  const __m256i x1 = pixelPair(v, o[1], o[5], shuffle, w + 16);
  const __m256i x2 = pixelPair(v, o[2], o[6], shuffle, w + 32);
  const __m256i x3 = pixelPair(v, o[3], o[7], shuffle, w + 48);
  const __m256i t0 = _mm256_unpacklo_epi32(x0, x1);  // B0 B1 G0 G1 | B4 B5 G4 G5
  const __m256i t1 = _mm256_unpackhi_epi32(x0, x1);  // R0 R1 0 0   | R4 R5 0 0
  const __m256i t2 = _mm256_unpacklo_epi32(x2, x3);
  const __m256i t3 = _mm256_unpackhi_epi32(x2, x3);
  const __m256 fb = _mm256_cvtepi32_ps(_mm256_unpacklo_epi64(t0, t2));  // B0..B3 | B4..B7
  const __m256 fg = _mm256_cvtepi32_ps(_mm256_unpackhi_epi64(t0, t2));
  const __m256 fr = _mm256_cvtepi32_ps(_mm256_unpacklo_epi64(t1, t3));
  const __m256i ir = mixRow(mm, 0, fb, fg, fr), ig = mixRow(mm, 1, fb, fg, fr),
                ib = mixRow(mm, 2, fb, fg, fr);
  // Saturating packs clamp to 0..255: R0-3 G0-3 B0-3 B0-3 | R4-7 G4-7 B4-7 B4-7.
  const __m256i bytes =
      _mm256_packus_epi16(_mm256_packus_epi32(ir, ig), _mm256_packus_epi32(ib, ib));
  const __m256i rgb = _mm256_permutevar8x32_epi32(  // R0-7 G0-7 B0-7 B0-7
      bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  const __m128i lo = _mm256_castsi256_si128(rgb);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(r), lo);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(g), _mm_unpackhi_epi64(lo, lo));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(b), _mm256_extracti128_si256(rgb, 1));
}

__attribute__((target("avx2"))) void horizontalAvx2(const uint16_t* v, const TilePlan& p,
                                                    const float* m, uint8_t* r, uint8_t* g,
                                                    uint8_t* b) {
  const int n = p.d1 - p.d0;
  __m256 mm[9];
  for (int i = 0; i < 9; ++i) mm[i] = _mm256_set1_ps(m[i]);
  const int groups = n / 8;
  for (int q = 0; q < groups; ++q)
    group8(v, p.off.data() + 8 * q, p.weights.data() + 64 * q, mm, r + 8 * q, g + 8 * q, b + 8 * q);
  if (n % 8 == 0) return;
  if (n < 8) {
    horizontalScalar(v, p, 0, m, r, g, b);
    return;
  }
  // The last columns as one more group that overlaps the previous one (same values).
  const int k = n - 8;
  group8(v, p.off.data() + k, p.weights.data() + 64 * groups, mm, r + k, g + k, b + k);
}
#endif

void prefetchRow(const uint8_t* p, int n) {
  for (int i = 0; i < n; i += 64) __builtin_prefetch(p + i, 0, 3);
  __builtin_prefetch(p + n - 1, 0, 3);
}

// Copies a finished row to the batch. The batch is read by the trainer much later, so on x86
// the copy bypasses the cache (non-temporal stores): no read-for-ownership of the destination
// and no eviction of the source images the next rows need.
void streamCopy(uint8_t* dst, const uint8_t* src, int n) {
#ifdef STAVE_RESAMPLE_X86
  int i = 0;
  while (i < n && (reinterpret_cast<uintptr_t>(dst + i) & 15) != 0) dst[i] = src[i], ++i;
  for (; i + 16 <= n; i += 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
  for (; i < n; ++i) dst[i] = src[i];
#else
  std::memcpy(dst, src, size_t(n));
#endif
}

bool useAvx2(ResampleKernel k) {
  if (k == ResampleKernel::Scalar) return false;
  const bool have = resampleHasAvx2();
  STAVE_CHECK(k != ResampleKernel::Avx2 || have,
              "the AVX2 kernel was asked for on a CPU without AVX2");
  return have;
}

// Checks every tile against the output and plans the non-empty ones into scratch.plans; sizes
// and clears the vertical row for the widest source. Returns how many tiles were planned.
size_t planTiles(const RgbRender& r, int W, int H, Scratch& scratch) {
  auto& plans = scratch.plans;
  plans.resize(r.tiles.size());
  size_t maxRow = 0;
  size_t used = 0;
  for (const auto& t : r.tiles) {
    STAVE_CHECK(t.src.type() == CV_8UC3, "renderRgb: tiles must be 8-bit BGR");
    STAVE_CHECK(t.dst.x >= 0 && t.dst.y >= 0 && t.dst.br().x <= W && t.dst.br().y <= H,
                "renderRgb: tile " << t.dst << " outside " << r.out);
    if (t.dst.empty() || t.src.empty()) continue;
    planTile(t, W, r.flipLR, plans[used++]);
    maxRow = std::max(maxRow, size_t(3) * size_t(t.src.cols));
  }
  scratch.vrow.resize(maxRow + kPad);
  std::fill(scratch.vrow.begin(), scratch.vrow.end(), uint16_t(0));
  return used;
}

// Fills the row with grey unless the tiles cover destination row `v` whole.
void greyUncovered(const std::vector<TilePlan>& plans, size_t used, int v, int W, uint8_t grey,
                   uint8_t* pr, uint8_t* pg, uint8_t* pb) {
  int covered = 0;  // tiles do not overlap: a row they cover whole needs no grey
  for (size_t q = 0; q < used; ++q)
    if (v >= plans[q].tile->dst.y && v < plans[q].tile->dst.br().y)
      covered += plans[q].d1 - plans[q].d0;
  if (covered < W) {
    std::memset(pr, grey, size_t(W));
    std::memset(pg, grey, size_t(W));
    std::memset(pb, grey, size_t(W));
  }
}

// Renders tile plan `p`'s part of destination row `v` into the row's planes (when it covers v).
void renderTileRow(const TilePlan& p, int v, bool flipUD, bool avx2, const float* m, uint16_t* vrow,
                   uint8_t* pr, uint8_t* pg, uint8_t* pb) {
  const ResampleTile& t = *p.tile;
  if (v < t.dst.y || v >= t.dst.br().y) return;
  int y0, b;
  sourcePos(v - t.dst.y, t.src.rows, t.dst.height, &y0, &b);
  const int y1 = std::min(y0 + 1, t.src.rows - 1);
  const int n = 3 * t.src.cols;
  // The source rows are cold (a cache or an image decoded a while ago) and each output
  // row jumps to new ones: fetch those of the row after next while this one is computed.
  const int ahead = (flipUD ? -4 : 4) + v - t.dst.y;
  if (ahead >= 0 && ahead < t.dst.height) {
    int ya, bw;
    sourcePos(ahead, t.src.rows, t.dst.height, &ya, &bw);
    prefetchRow(t.src.ptr<uint8_t>(ya), n);
    if (ya + 1 < t.src.rows) prefetchRow(t.src.ptr<uint8_t>(ya + 1), n);
  }
#ifdef STAVE_RESAMPLE_X86
  if (avx2) {
    verticalAvx2(t.src.ptr<uint8_t>(y0), t.src.ptr<uint8_t>(y1), n, b, vrow);
    horizontalAvx2(vrow, p, m, pr + p.d0, pg + p.d0, pb + p.d0);
    return;
  }
#endif
  (void)avx2;
  verticalScalar(t.src.ptr<uint8_t>(y0), t.src.ptr<uint8_t>(y1), n, b, vrow);
  horizontalScalar(vrow, p, 0, m, pr + p.d0, pg + p.d0, pb + p.d0);
}

// Writes finished output row `row` (planes pr, pg, pb of W bytes) to the batch.
void writeRow(uint8_t* dst, int row, int W, int H, bool channelsLast, uint8_t* pr, uint8_t* pg,
              uint8_t* pb) {
  const size_t plane = size_t(W) * H;
  if (channelsLast) {
    // Interleave with OpenCV's SIMD merge, straight into the batch row.
    const cv::Mat planes[3] = {cv::Mat(1, W, CV_8U, pr), cv::Mat(1, W, CV_8U, pg),
                               cv::Mat(1, W, CV_8U, pb)};
    cv::Mat out(1, W, CV_8UC3, dst + size_t(row) * W * 3);
    cv::merge(planes, 3, out);
    STAVE_CHECK(out.data == dst + size_t(row) * W * 3, "cv::merge reallocated a row");
  } else {
    uint8_t* o = dst + size_t(row) * W;
    streamCopy(o, pr, W);
    streamCopy(o + plane, pg, W);
    streamCopy(o + 2 * plane, pb, W);
  }
}
}  // namespace

bool resampleHasAvx2() {
#ifdef STAVE_RESAMPLE_X86
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return has;
#else
  return false;
#endif
}

void renderRgb(const RgbRender& r, uint8_t* dst, bool channelsLast) {
  const int W = r.out.width, H = r.out.height;
  STAVE_CHECK(W > 0 && H > 0, "renderRgb: empty output");
  const bool avx2 = useAvx2(r.kernel);
  thread_local Scratch scratch;
  const size_t used = planTiles(r, W, H, scratch);
  const auto& plans = scratch.plans;
  uint16_t* vrow = scratch.vrow.data();

  // Rows in output order (R, G, B) over inputs in source order (B, G, R), scaled to the fixed
  // point of the horizontal step.
  float m[9];
  for (int o = 0; o < 3; ++o)
    for (int i = 0; i < 3; ++i) m[3 * o + i] = (i == 2 - o) ? 1.0f / 32768.0f : 0.0f;

  scratch.rgbRow.resize(size_t(3) * W);
  for (int row = 0; row < H; ++row) {
    const int v = r.flipUD ? H - 1 - row : row;
    // The row is made in a small buffer that stays in L1, then written out once.
    uint8_t* pr = scratch.rgbRow.data();
    uint8_t* pg = pr + W;
    uint8_t* pb = pg + W;
    greyUncovered(plans, used, v, W, r.grey, pr, pg, pb);
    for (size_t q = 0; q < used; ++q)
      renderTileRow(plans[q], v, r.flipUD, avx2, m, vrow, pr, pg, pb);
    writeRow(dst, row, W, H, channelsLast, pr, pg, pb);
  }
#ifdef STAVE_RESAMPLE_X86
  _mm_sfence();  // the streaming stores are visible before the batch is handed on
#endif
}

void copyBgrToRgb(const cv::Mat& img, uint8_t* dst, bool channelsLast) {
  const int h = img.rows, w = img.cols;
  if (channelsLast) {
    cv::Mat out(h, w, CV_8UC3, dst);
    cv::cvtColor(img, out, cv::COLOR_BGR2RGB);
    return;
  }
  const size_t plane = size_t(h) * w;
  std::vector<cv::Mat> planes{cv::Mat(h, w, CV_8U, dst + 2 * plane),
                              cv::Mat(h, w, CV_8U, dst + plane), cv::Mat(h, w, CV_8U, dst)};
  cv::split(img, planes);
  STAVE_CHECK(planes[0].data == dst + 2 * plane, "cv::split reallocated a plane");
}

cv::Mat planarRgbToBgr(const uint8_t* planes, cv::Size size) {
  const size_t plane = size_t(size.area());
  // const_cast: cv::merge only reads its inputs.
  auto* p = const_cast<uint8_t*>(planes);
  std::vector<cv::Mat> ch{cv::Mat(size, CV_8U, p + 2 * plane), cv::Mat(size, CV_8U, p + plane),
                          cv::Mat(size, CV_8U, p)};
  cv::Mat out;
  cv::merge(ch, out);
  return out;
}

}  // namespace stave::data
