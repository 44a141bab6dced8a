#pragma once
// Image sizes from file headers, without decoding pixels: the dataset scan reads 100k images
// in seconds this way. JPEG (with its EXIF orientation), PNG and BMP are parsed here; other
// formats fall back to a full decode.

#include <cstdint>
#include <string>

#include "core/base/message.h"

namespace stave::data {

/// What a header says about an image.
struct ImageHeader {
  bool ok = false;         ///< the header could be read
  std::string format;      ///< "jpeg", "png", "bmp", or "other" (size from a full decode)
  int width = 0;           ///< stored width in pixels (before EXIF orientation)
  int height = 0;          ///< stored height in pixels
  int orientation = 1;     ///< EXIF orientation 1..8 (JPEG only; 1 = as stored)
  bool truncated = false;  ///< the file ends before its end marker (JPEG EOI, PNG IEND)
  std::string error;       ///< why not ok
  Text errorText;          ///< `error` as a catalog message
  /// Width as displayed, after the EXIF orientation (5..8 swap the axes).
  int displayWidth() const { return orientation >= 5 ? height : width; }
  /// Height as displayed, after the EXIF orientation.
  int displayHeight() const { return orientation >= 5 ? width : height; }
};

/// Reads the header of the image at `path` (full decode only for formats without a parser).
ImageHeader readImageHeader(const std::string& path);

/// Parses a header from bytes in memory: the first bytes of the file, or all of it
/// (`wholeFile`), in which case the end marker is checked too.
ImageHeader parseImageHeader(const uint8_t* data, size_t size, bool wholeFile);

/// True when the lower-case extension of `path` is one Stave reads as an image.
bool hasImageExtension(const std::string& path);

}  // namespace stave::data
