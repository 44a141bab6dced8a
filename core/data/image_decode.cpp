// Image decoding for the data pipeline: libjpeg straight to BGR (and back), OpenCV for the
// other formats, and loadImage, which reads, decodes, orients and resizes one image (the
// caches live in image_cache.cpp, the thread-safe provider in image_source.cpp).
#include "core/base/clock.h"
#include "core/base/bounded_read.h"
#include "core/data/image_source.h"
#include "core/data/png_check.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <thread>

#ifdef STAVE_HAVE_IMGCODECS
#include <opencv2/imgcodecs.hpp>
#endif
#include <opencv2/imgproc.hpp>

#include <jpeglib.h>

namespace stave::data {

namespace {

// libjpeg reports fatal errors through error_exit, which must not return: jump back to
// decodeJpegBgr. Warnings (e.g. a missing end marker) are not printed.
struct JpegError {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
};
[[noreturn]] void jpegErrorExit(j_common_ptr c) {
  std::longjmp(reinterpret_cast<JpegError*>(c->err)->jump, 1);
}
void jpegQuiet(j_common_ptr, int) {}

void applyOrientation(cv::Mat& m, int o) {
  switch (o) {
    case 2:
      cv::flip(m, m, 1);
      break;
    case 3:
      cv::rotate(m, m, cv::ROTATE_180);
      break;
    case 4:
      cv::flip(m, m, 0);
      break;
    case 5:
      cv::transpose(m, m);
      break;
    case 6:
      cv::rotate(m, m, cv::ROTATE_90_CLOCKWISE);
      break;
    case 7:
      cv::transpose(m, m);
      cv::flip(m, m, -1);
      break;
    case 8:
      cv::rotate(m, m, cv::ROTATE_90_COUNTERCLOCKWISE);
      break;
    default:
      break;
  }
}

bool sameShape(const cv::Size& a, int w, int h) {
  return a.width == w && a.height == h;
}
}  // namespace

cv::Size loadedSize(int w0, int h0, int imgsz) {
  if (imgsz <= 0) return {w0, h0};
  const double r = double(imgsz) / std::max(w0, h0);
  if (w0 == imgsz || h0 == imgsz) {
    if (std::max(w0, h0) == imgsz) return {w0, h0};
  }
  const int w = std::max(1, std::min(static_cast<int>(std::ceil(w0 * r - 1e-9)), imgsz));
  const int h = std::max(1, std::min(static_cast<int>(std::ceil(h0 * r - 1e-9)), imgsz));
  return {w, h};
}

cv::Mat decodeJpegBgr(const uint8_t* data, size_t size, int scaleDenom) {
#ifdef JCS_EXTENSIONS
  if (size < 4 || size > 0xFFFFFFFFu) return {};
  jpeg_decompress_struct d{};
  JpegError err{};
  d.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = jpegErrorExit;
  err.mgr.emit_message = jpegQuiet;
  // The image lives on the heap: an automatic object changed between setjmp and longjmp would
  // have an indeterminate value after the jump (and its destructor would run on it).
  const auto img = std::make_unique<cv::Mat>();
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&d);
    return {};
  }
  jpeg_create_decompress(&d);
  jpeg_mem_src(&d, data, static_cast<unsigned long>(size));
  jpeg_read_header(&d, TRUE);
  if (d.jpeg_color_space == JCS_CMYK || d.jpeg_color_space == JCS_YCCK) {
    jpeg_destroy_decompress(&d);  // rare: left to OpenCV, which converts CMYK
    return {};
  }
  // Straight to BGR: OpenCV 4.6 as Debian builds it decodes to RGB and swaps the channels in a
  // scalar loop, a fifth of its decode time.
  d.out_color_space = JCS_EXT_BGR;
  d.scale_num = 1;
  d.scale_denom = static_cast<unsigned int>(scaleDenom);
  jpeg_start_decompress(&d);
  try {
    img->create(static_cast<int>(d.output_height), static_cast<int>(d.output_width), CV_8UC3);
  } catch (...) {
    jpeg_destroy_decompress(&d);
    throw;
  }
  while (d.output_scanline < d.output_height) {
    JSAMPROW row = img->ptr<uint8_t>(static_cast<int>(d.output_scanline));
    jpeg_read_scanlines(&d, &row, 1);
  }
  jpeg_finish_decompress(&d);
  jpeg_destroy_decompress(&d);
  return *img;
#else
  (void)data, (void)size, (void)scaleDenom;
  return {};  // a libjpeg without BGR output: OpenCV decodes
#endif
}

std::vector<uint8_t> encodeJpegBgr(const cv::Mat& bgrIn, int quality) {
  STAVE_CHECK(bgrIn.type() == CV_8UC3, "encodeJpegBgr needs 8-bit BGR");
  const cv::Mat bgr = bgrIn.isContinuous() ? bgrIn : bgrIn.clone();
  jpeg_compress_struct c{};
  JpegError err{};
  c.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = jpegErrorExit;
  err.mgr.emit_message = jpegQuiet;
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  if (setjmp(err.jump)) {
    jpeg_destroy_compress(&c);
    std::free(buffer);
    throw std::runtime_error("JPEG encoding failed");
  }
  jpeg_create_compress(&c);
  jpeg_mem_dest(&c, &buffer, &size);
  c.image_width = static_cast<JDIMENSION>(bgr.cols);
  c.image_height = static_cast<JDIMENSION>(bgr.rows);
  c.input_components = 3;
#ifdef JCS_EXTENSIONS
  c.in_color_space = JCS_EXT_BGR;
#else
  c.in_color_space = JCS_RGB;
#endif
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, std::clamp(quality, 1, 100), TRUE);
  jpeg_start_compress(&c, TRUE);
#ifndef JCS_EXTENSIONS
  std::vector<uint8_t> rgb(static_cast<size_t>(bgr.cols) * 3);
#endif
  while (c.next_scanline < c.image_height) {
    const uint8_t* src = bgr.ptr<uint8_t>(static_cast<int>(c.next_scanline));
#ifdef JCS_EXTENSIONS
    JSAMPROW row = const_cast<uint8_t*>(src);
#else
    for (int x = 0; x < bgr.cols; ++x) {
      rgb[3 * x] = src[3 * x + 2];
      rgb[3 * x + 1] = src[3 * x + 1];
      rgb[3 * x + 2] = src[3 * x];
    }
    JSAMPROW row = rgb.data();
#endif
    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  jpeg_destroy_compress(&c);
  std::vector<uint8_t> out(buffer, buffer + size);
  std::free(buffer);
  return out;
}

bool haveImageCodecs() {
#ifdef STAVE_HAVE_IMGCODECS
  return true;
#else
  return false;
#endif
}

bool readFileBytes(const std::string& path, std::vector<uint8_t>& out) {
  // Only a regular file, opened without waiting (a FIFO in a dataset would block for good), and
  // at most kMaxImageFileBytes of it.
  auto bytes = readFileBytesCapped(path, kMaxImageFileBytes);
  if (!bytes) return false;
  out = std::move(bytes.value());
  return true;
}

cv::Mat decodeImageBgr(const std::vector<uint8_t>& bytes, int scaleDenom, std::string* why) {
  const bool jpeg = bytes.size() > 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF;
  cv::Mat m;
  if (jpeg) m = decodeJpegBgr(bytes.data(), bytes.size(), scaleDenom);
#ifdef STAVE_HAVE_IMGCODECS
  if (isPng(bytes.data(), bytes.size())) {
    // libpng prints its errors to stderr, naming no file: a damaged PNG stops here.
    if (std::string problem = pngProblem(bytes.data(), bytes.size()); !problem.empty()) {
      if (why) *why = problem;
      return m;
    }
  }
  if (m.empty() && !bytes.empty()) {
    // Everything else, and JPEGs libjpeg refused (OpenCV then names the problem or fails too).
    int flags = cv::IMREAD_COLOR;
    if (scaleDenom == 2) flags = cv::IMREAD_REDUCED_COLOR_2;
    if (scaleDenom == 4) flags = cv::IMREAD_REDUCED_COLOR_4;
    if (scaleDenom == 8) flags = cv::IMREAD_REDUCED_COLOR_8;
    flags |= cv::IMREAD_IGNORE_ORIENTATION;
    m = cv::imdecode(
        cv::Mat(1, static_cast<int>(bytes.size()), CV_8U, const_cast<uint8_t*>(bytes.data())),
        flags);
  }
#endif
  return m;
}

/// Fault injection for the doctor's tests and benchmark (docs/doctor.md):
/// STAVE_FAULT_SLOW_READ_MS=M adds M ms of latency to every image read from storage (not from a
/// cache), as a slow network filesystem would. 0 when unset.
int slowReadMs() {
  static const int ms = [] {
    const char* v = std::getenv("STAVE_FAULT_SLOW_READ_MS");
    return v && *v ? std::max(0, std::atoi(v)) : 0;
  }();
  return ms;
}

LoadedImage loadImage(const ImageRecord& rec, int imgsz, LoadResize resize, StageTimes& times) {
  double t0 = monotonicSeconds();
  std::vector<uint8_t> bytes;
  if (const int ms = slowReadMs(); ms > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  {
    auto read = readFileBytesCapped(rec.imagePath, kMaxImageFileBytes);
    if (!read) throw std::runtime_error(read.errorText());
    bytes = std::move(read.value());
    if (bytes.empty()) throw std::runtime_error(rec.imagePath + ": empty file (0 bytes)");
  }
  const double t1 = monotonicSeconds();
  times.read += t1 - t0;
  const cv::Size target = loadedSize(rec.width, rec.height, imgsz);
  const bool jpeg = bytes.size() > 3 && bytes[0] == 0xFF && bytes[1] == 0xD8;
  const int longSide = std::max(rec.width, rec.height);
  // libjpeg's DCT scaling: decode at 1/k when the result is still at least the target size.
  int denom = 1;
  if (jpeg && imgsz > 0 && resize == LoadResize::Preview) {
    if (longSide >= 8 * imgsz)
      denom = 8;
    else if (longSide >= 4 * imgsz)
      denom = 4;
    else if (longSide >= 2 * imgsz)
      denom = 2;
  }
  (void)jpeg;
  std::string why;
  cv::Mat m = decodeImageBgr(bytes, denom, &why);
  if (m.empty()) {
    throw std::runtime_error(rec.imagePath +
                             (!why.empty() ? ": cannot decode image: " + why
                              : jpeg || haveImageCodecs()
                                  ? std::string(": cannot decode image")
                                  : std::string(": only JPEG images can be decoded by this "
                                                "build (it has no OpenCV imgcodecs)")));
  }
  if (m.depth() != CV_8U) m.convertTo(m, CV_8U, 1.0 / 256);
  if (m.channels() == 1)
    cv::cvtColor(m, m, cv::COLOR_GRAY2BGR);
  else if (m.channels() == 4)
    cv::cvtColor(m, m, cv::COLOR_BGRA2BGR);
  applyOrientation(m, rec.orientation);
  if (!sameShape(m.size(), target.width, target.height)) {
    const bool shrink = target.width < m.cols;
    const bool area = resize == LoadResize::Preview && shrink;
    cv::resize(m, m, target, 0, 0, area ? cv::INTER_AREA : cv::INTER_LINEAR);
  }
  times.decode += monotonicSeconds() - t1;
  LoadedImage li;
  li.img = m;
  li.w0 = rec.width;
  li.h0 = rec.height;
  return li;
}

}  // namespace stave::data
