#include "core/data/png_check.h"

#include <zlib.h>

#include <cstring>
#include <memory>

namespace stave::data {
namespace {

uint32_t be32(const uint8_t* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

bool chunkName(const uint8_t* p) {
  for (int i = 0; i < 4; ++i)
    if (!((p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= 'a' && p[i] <= 'z'))) return false;
  return true;
}

/// Bytes of the filtered image data the header promises (each row: a filter byte, then its
/// pixels), over the 7 Adam7 passes when interlaced; 0 for a header libpng refuses.
uint64_t expectedBytes(uint32_t width, uint32_t height, int depth, int colour, int interlace) {
  int channels = 0;
  bool depthOk = false;
  switch (colour) {
    case 0:
      channels = 1, depthOk = depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16;
      break;
    case 2:
      channels = 3, depthOk = depth == 8 || depth == 16;
      break;
    case 3:
      channels = 1, depthOk = depth == 1 || depth == 2 || depth == 4 || depth == 8;
      break;
    case 4:
      channels = 2, depthOk = depth == 8 || depth == 16;
      break;
    case 6:
      channels = 4, depthOk = depth == 8 || depth == 16;
      break;
    default:
      return 0;
  }
  if (!depthOk || width == 0 || height == 0 || width > 0x7fffffffu || height > 0x7fffffffu ||
      interlace > 1)
    return 0;
  const uint64_t bits = uint64_t(channels) * uint64_t(depth);
  auto rows = [&](uint64_t w, uint64_t h) { return w && h ? h * (1 + (w * bits + 7) / 8) : 0; };
  if (interlace == 0) return rows(width, height);
  static const int kPass[7][4] = {{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4},
                                  {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}};
  uint64_t total = 0;
  for (const auto& p : kPass) {
    const uint64_t w = width > uint32_t(p[0]) ? (width - p[0] + p[2] - 1) / p[2] : 0;
    const uint64_t h = height > uint32_t(p[1]) ? (height - p[1] + p[3] - 1) / p[3] : 0;
    total += rows(w, h);
  }
  return total;
}

/// Inflates the IDAT stream as it comes, keeping nothing but the count of bytes it yields.
class Inflater {
 public:
  Inflater() { m_ok = inflateInit(&m_z) == Z_OK; }
  ~Inflater() {
    if (m_ok) inflateEnd(&m_z);
  }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
  /// Feeds one IDAT's bytes; "" or zlib's complaint.
  std::string feed(const uint8_t* data, size_t size, uint64_t enough) {
    if (!m_ok) return "cannot start zlib";
    m_z.next_in = const_cast<Bytef*>(data);
    m_z.avail_in = static_cast<uInt>(size);
    while (m_z.avail_in > 0 && !m_ended && m_out < enough) {
      m_z.next_out = m_buf;
      m_z.avail_out = sizeof m_buf;
      const int rc = inflate(&m_z, Z_NO_FLUSH);
      m_out += sizeof m_buf - m_z.avail_out;
      if (rc == Z_STREAM_END)
        m_ended = true;
      else if (rc != Z_OK)
        return m_z.msg ? m_z.msg : "zlib error " + std::to_string(rc);
    }
    return {};
  }
  uint64_t out() const { return m_out; }
  bool ended() const { return m_ended; }

 private:
  z_stream m_z{};
  bool m_ok = false, m_ended = false;
  uint64_t m_out = 0;
  Bytef m_buf[64 * 1024];
};

}  // namespace

bool isPng(const uint8_t* data, size_t size) {
  return size >= 8 && std::memcmp(data, "\x89PNG\r\n\x1a\n", 8) == 0;
}

std::string pngProblem(const uint8_t* d, size_t n) {
  if (!isPng(d, n)) return "not a PNG file (no PNG signature)";
  size_t at = 8;
  uint64_t expected = 0;
  bool palette = false, havePalette = false, inIdat = false, idatDone = false, end = false;
  bool sawIdat = false;
  auto inflater = std::make_unique<Inflater>();
  for (bool first = true; !end; first = false) {
    const std::string where = " at byte " + std::to_string(at);
    if (at == n) return "the PNG ends before its IEND chunk (truncated)";
    if (n - at < 12) return "the PNG is cut off inside a chunk" + where + " (truncated)";
    const uint32_t length = be32(d + at);
    const uint8_t* type = d + at + 4;
    if (!chunkName(type)) return "damaged PNG: no chunk name" + where;
    const std::string name(reinterpret_cast<const char*>(type), 4);
    if (length > 0x7fffffffu || length > n - at - 12)
      return "PNG chunk " + name + where + " claims " + std::to_string(length) +
             " bytes, more than the file holds (truncated or damaged)";
    const uint8_t* body = type + 4;
    if (crc32(crc32(0, nullptr, 0), type, length + 4) != be32(body + length))
      return "damaged PNG: chunk " + name + where + " fails its CRC check";
    if (first != (name == "IHDR"))
      return first ? "damaged PNG: the first chunk is " + name + ", not IHDR"
                   : "damaged PNG: a second IHDR" + where;
    if (inIdat && name != "IDAT") idatDone = true, inIdat = false;
    if (name == "IHDR") {
      if (length != 13)
        return "damaged PNG: IHDR holds " + std::to_string(length) + " bytes, not 13";
      expected = expectedBytes(be32(body), be32(body + 4), body[8], body[9], body[12]);
      if (expected == 0 || body[10] != 0 || body[11] != 0)
        return "damaged PNG: its header (IHDR) describes no image libpng reads (" +
               std::to_string(be32(body)) + "x" + std::to_string(be32(body + 4)) + ", bit depth " +
               std::to_string(body[8]) + ", colour type " + std::to_string(body[9]) + ")";
      palette = body[9] == 3;
    } else if (name == "PLTE") {
      havePalette = true;
    } else if (name == "IDAT") {
      if (idatDone) return "damaged PNG: IDAT chunks apart from each other" + where;
      if (palette && !havePalette) return "damaged PNG: a palette image without PLTE before IDAT";
      inIdat = sawIdat = true;
      if (std::string why = inflater->feed(body, length, expected); !why.empty())
        return "damaged PNG: its image data (IDAT" + where + ") does not decompress: " + why;
    } else if (name == "IEND") {
      end = true;
    }
    at += 12 + size_t(length);
  }
  if (!sawIdat) return "damaged PNG: no image data (IDAT)";
  if (inflater->out() < expected)
    return "damaged PNG: its image data ends after " + std::to_string(inflater->out()) + " of " +
           std::to_string(expected) + " bytes (cut off or damaged)";
  return {};
}

}  // namespace stave::data
