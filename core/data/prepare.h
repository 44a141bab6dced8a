#pragma once
// Work that must happen once per machine before distributed ranks start: the dataset scan
// (its cache makes each rank's own scan instant) and, for cache=disk, building the one shared
// image file. Done by the launcher, so a slow scan can never trip a collective's timeout.

#include <string>

#include "core/base/result.h"
#include "core/data/image_source.h"

namespace stave::data {

/// What prepareDataset did.
struct PrepareReport {
  int64_t trainImages = 0;     ///< usable training images
  int64_t valImages = 0;       ///< usable validation images
  int64_t problems = 0;        ///< problems found by the scans (see check-dataset)
  std::string trainDiskCache;  ///< cache=disk: the training cache file ("" otherwise)
  std::string valDiskCache;    ///< cache=disk: the validation cache file ("" otherwise)
};

/// Scans train and val of `dataYaml` (writing the scan cache) and, when `cache` is Disk,
/// builds both disk caches at `imgsz` (train with augmentation's resize, val without).
/// Errors: data.yaml problems, an empty train or val split, a disk cache that cannot be
/// written. A RAM cache is only checked (each rank fills its own).
Result<PrepareReport> prepareDataset(const std::string& dataYaml, int imgsz, CacheMode cache,
                                     int threads = 0, int64_t ramBudgetBytes = 0);

}  // namespace stave::data
