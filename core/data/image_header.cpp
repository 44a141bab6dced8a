#include "core/data/image_header.h"

#include <unistd.h>

#include "core/base/bounded_read.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include <opencv2/imgcodecs.hpp>

namespace stave::data {
namespace {

/// The header cannot be read: why, in English and as a catalog message.
void fail(ImageHeader& h, Text why) {
  h.error = english(why);
  h.errorText = std::move(why);
}

uint16_t be16(const uint8_t* p) {
  return static_cast<uint16_t>((p[0] << 8) | p[1]);
}
uint32_t be32(const uint8_t* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}
uint16_t le16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}
uint32_t le32(const uint8_t* p) {
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
}

// EXIF orientation from an APP1 payload ("Exif\0\0" + TIFF). Returns 1 when absent or broken.
int exifOrientation(const uint8_t* p, size_t n) {
  if (n < 14 || std::memcmp(p, "Exif\0\0", 6) != 0) return 1;
  const uint8_t* t = p + 6;
  const size_t tn = n - 6;
  bool little;
  if (t[0] == 'I' && t[1] == 'I')
    little = true;
  else if (t[0] == 'M' && t[1] == 'M')
    little = false;
  else
    return 1;
  auto u16 = [&](size_t off) { return little ? le16(t + off) : be16(t + off); };
  auto u32 = [&](size_t off) { return little ? le32(t + off) : be32(t + off); };
  const uint32_t ifd = u32(4);
  if (ifd + 2 > tn) return 1;
  const uint16_t count = u16(ifd);
  for (uint32_t i = 0; i < count; ++i) {
    const size_t e = ifd + 2 + size_t(i) * 12;
    if (e + 12 > tn) break;
    if (u16(e) == 0x0112) {
      const int v = u16(e + 8);
      return (v >= 1 && v <= 8) ? v : 1;
    }
  }
  return 1;
}

ImageHeader parseJpeg(const uint8_t* d, size_t n, bool whole) {
  ImageHeader h;
  h.format = "jpeg";
  size_t i = 2;
  while (i + 4 <= n) {
    if (d[i] != 0xFF) {
      fail(h, Text("data.header.jpeg_markers"));
      return h;
    }
    const uint8_t m = d[i + 1];
    if (m == 0xFF) {  // fill byte
      ++i;
      continue;
    }
    if (m == 0xD8 || (m >= 0xD0 && m <= 0xD7) || m == 0x01) {
      i += 2;
      continue;
    }
    const size_t len = be16(d + i + 2);
    if (len < 2) {
      fail(h, Text("data.header.jpeg_length"));
      return h;
    }
    if (m == 0xE1 && i + 4 + len - 2 <= n) h.orientation = exifOrientation(d + i + 4, len - 2);
    const bool sof = m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC;
    if (sof) {
      if (i + 9 > n) break;
      h.height = be16(d + i + 5);
      h.width = be16(d + i + 7);
      if (h.width <= 0 || h.height <= 0) {
        fail(h, Text("data.header.jpeg_zero"));
        return h;
      }
      h.ok = true;
      break;
    }
    if (m == 0xDA || m == 0xD9) break;  // scan data before any frame header
    i += 2 + len;
  }
  if (!h.ok) {
    if (h.error.empty()) fail(h, Text("data.header.jpeg_incomplete"));
    return h;
  }
  if (whole) {
    // A complete JPEG ends with EOI (FFD9); a cut-off download does not.
    size_t end = n;
    while (end > 2 && d[end - 1] == 0) --end;  // tolerate zero padding
    h.truncated = !(end >= 2 && d[end - 2] == 0xFF && d[end - 1] == 0xD9);
  }
  return h;
}

ImageHeader parsePng(const uint8_t* d, size_t n, bool whole) {
  ImageHeader h;
  h.format = "png";
  if (n < 24 || std::memcmp(d + 12, "IHDR", 4) != 0) {
    fail(h, Text("data.header.png_incomplete"));
    return h;
  }
  h.width = static_cast<int>(be32(d + 16));
  h.height = static_cast<int>(be32(d + 20));
  if (h.width <= 0 || h.height <= 0) {
    fail(h, Text("data.header.png_zero"));
    return h;
  }
  h.ok = true;
  if (whole) h.truncated = !(n >= 12 && std::memcmp(d + n - 8, "IEND", 4) == 0);
  return h;
}

ImageHeader parseBmp(const uint8_t* d, size_t n, bool whole) {
  ImageHeader h;
  h.format = "bmp";
  if (n < 26) {
    fail(h, Text("data.header.bmp_incomplete"));
    return h;
  }
  const uint32_t dib = le32(d + 14);
  if (dib == 12) {
    h.width = le16(d + 18);
    h.height = le16(d + 20);
  } else {
    h.width = static_cast<int32_t>(le32(d + 18));
    h.height = std::abs(static_cast<int32_t>(le32(d + 22)));
  }
  if (h.width <= 0 || h.height <= 0) {
    fail(h, Text("data.header.bmp_zero"));
    return h;
  }
  h.ok = true;
  if (whole) h.truncated = n < le32(d + 2);
  return h;
}

}  // namespace

bool hasImageExtension(const std::string& path) {
  const auto dot = path.find_last_of('.');
  if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return false;
  std::string ext = path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  static const char* kExt[] = {"jpg", "jpeg", "png", "bmp", "tif", "tiff", "webp"};
  return std::any_of(std::begin(kExt), std::end(kExt), [&](const char* e) { return ext == e; });
}

ImageHeader parseImageHeader(const uint8_t* d, size_t n, bool whole) {
  if (n >= 3 && d[0] == 0xFF && d[1] == 0xD8 && d[2] == 0xFF) return parseJpeg(d, n, whole);
  if (n >= 8 && std::memcmp(d, "\x89PNG\r\n\x1a\n", 8) == 0) return parsePng(d, n, whole);
  if (n >= 2 && d[0] == 'B' && d[1] == 'M') return parseBmp(d, n, whole);
  ImageHeader h;
  fail(h, Text(n == 0 ? "data.header.empty" : "data.header.unknown"));
  return h;
}

ImageHeader readImageHeader(const std::string& path) {
  ImageHeader h;
  // Only a regular file, opened without waiting: a FIFO among the images would block the scan.
  std::string why;
  const int fd = openRegularFile(path, &why);
  FILE* f = fd >= 0 ? ::fdopen(fd, "rb") : nullptr;
  if (!f) {
    if (fd >= 0) ::close(fd);
    fail(h,
         fd < 0 && !why.empty() ? Text("plain", {{"text", why}}) : Text("data.header.cannot_open"));
    return h;
  }
  std::fseek(f, 0, SEEK_END);
  const long size = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  if (size <= 0) {
    std::fclose(f);
    fail(h, Text("data.header.empty"));
    return h;
  }
  // 4 KiB holds the header of almost every file, so a scan reads little of each image; a JPEG
  // whose frame header sits behind a large EXIF thumbnail is read whole below.
  std::vector<uint8_t> buf(std::min<long>(size, 4096));
  size_t got = std::fread(buf.data(), 1, buf.size(), f);
  buf.resize(got);
  bool whole = static_cast<long>(got) == size;
  h = parseImageHeader(buf.data(), buf.size(), whole);
  if (!h.ok && !whole && h.format == "jpeg") {
    buf.resize(static_cast<size_t>(size));
    got += std::fread(buf.data() + got, 1, buf.size() - got, f);
    buf.resize(got);
    whole = true;
    h = parseImageHeader(buf.data(), buf.size(), true);
  }
  if (h.ok && !whole) {
    // Only the tail is needed to tell a complete file from a truncated one.
    uint8_t tail[16] = {0};
    const long t = std::min<long>(size, 16);
    std::fseek(f, size - t, SEEK_SET);
    const size_t tg = std::fread(tail, 1, static_cast<size_t>(t), f);
    if (h.format == "jpeg") {
      size_t end = tg;
      while (end > 2 && tail[end - 1] == 0) --end;
      h.truncated = !(end >= 2 && tail[end - 2] == 0xFF && tail[end - 1] == 0xD9);
    } else if (h.format == "png") {
      h.truncated = !(tg >= 8 && std::memcmp(tail + tg - 8, "IEND", 4) == 0);
    } else if (h.format == "bmp") {
      h.truncated = static_cast<uint32_t>(size) < le32(buf.data() + 2);
    }
  }
  std::fclose(f);
  if (!h.ok && h.format.empty() && h.error != "empty file (0 bytes)" && size > 0) {
    // TIFF, WebP and others: let OpenCV decode the whole image.
    cv::Mat m = cv::imread(path, cv::IMREAD_COLOR | cv::IMREAD_IGNORE_ORIENTATION);
    if (!m.empty()) {
      h = ImageHeader{};
      h.ok = true;
      h.format = "other";
      h.width = m.cols;
      h.height = m.rows;
    } else {
      fail(h, Text("data.header.not_readable"));
    }
  }
  return h;
}

}  // namespace stave::data
