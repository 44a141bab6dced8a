#pragma once
// Decoded, resized images for the pipeline: decode with reduced-size JPEG decoding, or take
// them from a RAM cache, a memory-mapped disk cache, or a small buffer of recent images (which
// mosaic draws its companions from, so a mosaic costs about one decode, not four).

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/base/result.h"
#include "core/data/augment.h"
#include "core/data/dataset.h"

namespace stave::data {

/// Where decoded images are kept between uses (Ultralytics' `cache`).
enum class CacheMode { None, Ram, Disk };

/// Parses "none"/"false"/"", "ram"/"true", "disk".
Result<CacheMode> parseCacheMode(const std::string& text);

/// Size of an image of `w0` x `h0` after load_image's resize (long side = imgsz).
cv::Size loadedSize(int w0, int h0, int imgsz);

/// How loadImage brings an image to its size.
enum class LoadResize {
  /// Ultralytics' load_image (8.4): the whole image decoded, then cv::resize INTER_LINEAR to the
  /// long side, for training and validation alike, so a model sees the pixels it will see when
  /// deployed through Ultralytics.
  Ultralytics,
  /// For previews: a JPEG at least twice as large as needed decoded at 1/2, 1/4 or 1/8 scale
  /// (DCT scaling), then INTER_AREA when shrinking. Faster and smoother than Ultralytics', so
  /// never for training or validation.
  Preview,
};

/// Reads and decodes one image to 8-bit BGR (grey, alpha and 16-bit inputs converted), applies
/// its EXIF orientation and resizes it as `resize` says so the long side is `imgsz` (0 = keep).
/// Throws std::runtime_error naming the file when it cannot be read or decoded.
LoadedImage loadImage(const ImageRecord& record, int imgsz, LoadResize resize, StageTimes& times);

/// Decodes a JPEG straight to 8-bit BGR with libjpeg(-turbo), at 1/`scaleDenom` size (1, 2, 4
/// or 8, DCT scaling): the same pixels as cv::imdecode, faster. Returns an empty Mat when libjpeg
/// cannot decode it (corrupt data, CMYK, a libjpeg without BGR output); callers then fall back
/// to OpenCV. Grey JPEGs come out as three equal channels.
cv::Mat decodeJpegBgr(const uint8_t* data, size_t size, int scaleDenom = 1);

/// Encodes 8-bit BGR as a baseline JPEG (libjpeg, 4:2:0) of `quality` 1..100. Throws
/// std::runtime_error when libjpeg fails.
std::vector<uint8_t> encodeJpegBgr(const cv::Mat& bgr, int quality = 95);

/// Decodes any supported image file's bytes to 8-bit BGR at 1/`scaleDenom` size: JPEG through
/// libjpeg, everything else through OpenCV's imgcodecs when the build has it. Returns an empty
/// Mat when the bytes cannot be decoded (or the format needs imgcodecs and the build has none),
/// with `why` (optional) saying why where it is known: a damaged PNG is found by pngProblem and
/// never given to libpng, which would print its own "libpng error" lines.
cv::Mat decodeImageBgr(const std::vector<uint8_t>& bytes, int scaleDenom = 1,
                       std::string* why = nullptr);

/// The largest image file read (a 4000x3000 JPEG is a few MiB; a TIFF of a huge scan more).
inline constexpr size_t kMaxImageFileBytes = size_t{1} << 30;

/// Reads a whole image file (a regular file only, opened without waiting, at most
/// kMaxImageFileBytes); false when it cannot be opened or read.
bool readFileBytes(const std::string& path, std::vector<uint8_t>& out);

/// Whether this build decodes and encodes formats other than JPEG (OpenCV's imgcodecs).
bool haveImageCodecs();

/// Checks that cache=ram fits: the bytes needed (plus 50% headroom) against `budgetBytes`
/// (0 = the machine's available memory). The error names both numbers.
Status checkRamCache(const SplitIndex& index, int imgsz, int64_t budgetBytes = 0);

/// The default disk cache file of a split: <root>/.stave-cache/images-<split>-<imgsz>-<key>.raw.
/// Training and validation load the same pixels, so one file serves both.
std::string defaultDiskCachePath(const SplitIndex& index, int imgsz);

/// Builds the disk cache (one raw file of resized BGR images plus a table) once: returns at
/// once when `path` already holds a cache for the same files (paths, sizes, mtimes) and size.
/// Written to a temporary file and renamed, so readers never see half a cache. Call it before
/// distributed ranks start; every rank then maps the same file read-only (one copy in RAM).
Status buildDiskCache(const SplitIndex& index, int imgsz, const std::string& path = "",
                      int threads = 0);

/// One image in the disk cache file: where its pixels are and its sizes.
struct DiskCacheEntry {
  uint64_t offset;    ///< byte offset of the BGR pixels in the file
  int32_t w, h;       ///< loaded size
  int32_t w0, h0;     ///< original size
  uint64_t checksum;  ///< XXH3-64 of the pixels (checked on first use in each process)
  uint32_t flags;     ///< kDiskEntryUndecodable: grey stand-in, the file did not decode
  uint32_t reserved;
};
/// DiskCacheEntry::flags bit: the image could not be decoded when the cache was built.
inline constexpr uint32_t kDiskEntryUndecodable = 1;

/// Options of an ImageSource.
struct ImageSourceOptions {
  int imgsz = 640;                    ///< long side of loaded images
  CacheMode cache = CacheMode::None;  ///< where decoded images are kept
  std::string diskCachePath;          ///< cache=disk file ("" = defaultDiskCachePath)
  int64_t ramBudgetBytes = 0;         ///< cache=ram budget (0 = available memory)
  size_t recentCapacity = 256;        ///< images kept in the recent buffer (cache=none)
};

/// An image that could not be used as its file says: undecodable (trained as grey without
/// boxes), or a damaged disk-cache entry (decoded from its file instead).
struct ImageProblem {
  int64_t index = -1;       ///< image index in the split
  std::string path;         ///< the image file
  std::string reason;       ///< what failed
  bool undecodable = true;  ///< false: only its cache entry was bad, the image itself is fine
};

/// Counters of an ImageSource.
struct ImageSourceStats {
  int64_t decoded = 0;         ///< images decoded from their files
  int64_t cacheHits = 0;       ///< images served from RAM, disk or the recent buffer
  int64_t decodeFailures = 0;  ///< distinct images that failed to decode (used as grey)
};

/// Thread-safe provider of loaded images for one split.
class ImageSource {
 public:
  /// Throws std::runtime_error with a clear message when a cache cannot be used (RAM budget,
  /// disk cache not writable).
  ImageSource(const SplitIndex& index, ImageSourceOptions options);
  ~ImageSource();
  ImageSource(const ImageSource&) = delete;
  ImageSource& operator=(const ImageSource&) = delete;

  /// The loaded image of `index` (never null: an undecodable image becomes grey, counted).
  std::shared_ptr<const LoadedImage> get(int64_t index, StageTimes& times);
  /// Counters so far.
  ImageSourceStats stats() const;
  /// The problems found since the last call, each image once (at most 1000 kept between
  /// calls; decodeFailures counts every one).
  std::vector<ImageProblem> takeProblems();
  /// Images the recent buffer keeps (0 when a cache serves them or there is no buffer).
  size_t recentCapacity() const {
    return m_opt.cache == CacheMode::None ? m_opt.recentCapacity : 0;
  }

 private:
  std::shared_ptr<const LoadedImage> decode(int64_t index, StageTimes& times);
  void report(int64_t index, const std::string& reason, bool undecodable);
  /// cache=disk: the entry's pixels, checked against its checksum on first use; nullptr when
  /// the entry is damaged or the image was undecodable when the cache was built.
  std::shared_ptr<const LoadedImage> fromDiskCache(int64_t index, StageTimes& times);

  const SplitIndex& m_index;
  ImageSourceOptions m_opt;
  // cache=ram
  std::vector<std::shared_ptr<const LoadedImage>> m_ram;
  std::vector<std::mutex> m_ramLocks;
  // cache=disk
  const uint8_t* m_map = nullptr;
  size_t m_mapSize = 0;
  const DiskCacheEntry* m_table = nullptr;
  // recent buffer
  mutable std::mutex m_recentMutex;
  std::unordered_map<int64_t, std::pair<std::shared_ptr<const LoadedImage>, uint64_t>> m_recent;
  uint64_t m_tick = 0;
  std::atomic<int64_t> m_decoded{0}, m_hits{0}, m_failures{0};
  // problems, each image reported once
  std::mutex m_problemMutex;
  std::vector<uint8_t> m_reported;
  std::vector<ImageProblem> m_problems;
  // cache=disk: per entry 0 = unchecked, 1 = checksum ok, 2 = bad
  std::unique_ptr<std::atomic<uint8_t>[]> m_checked;
};

}  // namespace stave::data
