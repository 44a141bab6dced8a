#pragma once
// A PNG's structure checked before it is decoded: OpenCV hands PNGs to libpng, whose default
// handlers print "libpng error: ..." to stderr and name no file. A PNG that this check passes
// decodes without a libpng error; one it refuses is never given to libpng, and the problem is
// said in Stave's words by the caller, with the file's name.

#include <cstddef>
#include <cstdint>
#include <string>

namespace stave::data {

/// Whether `data` starts with the PNG signature.
bool isPng(const uint8_t* data, size_t size);

/// What is wrong with the PNG in `data` (the whole file), or "" when nothing is: the chunks
/// (lengths within the file, CRCs, IHDR first and sound, PLTE before the image data of a
/// palette image, consecutive IDATs, IEND) and the image data itself (a zlib stream that
/// inflates to at least the rows the header promises). The text names the chunk and its byte.
std::string pngProblem(const uint8_t* data, size_t size);

}  // namespace stave::data
