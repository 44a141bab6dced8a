#pragma once
// Internal to core/data: the disk cache file's header and the two helpers that both
// image_cache.cpp (which builds the file) and image_source.cpp (which maps it) use. Not a
// public header.

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/data/dataset.h"

namespace stave::data::detail {

/// The first 64 bytes of a disk cache file; the table of DiskCacheEntry follows, then pixels.
struct DiskHeader {
  char magic[8];
  uint64_t key;
  uint64_t count;
  uint64_t dataBytes;
  uint32_t imgsz;
  uint32_t flags;
  uint64_t reserved[3];
};
static_assert(sizeof(DiskHeader) == 64, "disk cache header is 64 bytes");

/// The key a split's disk cache is valid for: the format version, imgsz and every image's
/// path, size, mtime and orientation.
uint64_t diskKey(const SplitIndex& index, int imgsz);

/// Maps a valid cache file read-only and sets `size`; returns nullptr (and leaves nothing
/// mapped) when it is stale or absent.
const uint8_t* mapCache(const std::string& path, uint64_t key, size_t count, int imgsz,
                        size_t* size);

}  // namespace stave::data::detail
