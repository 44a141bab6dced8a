#pragma once
// The loader benchmark behind `stave-train bench loader`: samples per second with and without
// mosaic, with cache none and ram, against the plain decode rate of the same files.

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/base/result.h"

namespace stave::bench {

/// What to measure.
struct LoaderBenchOptions {
  std::string data;             ///< data.yaml
  std::string split = "train";  ///< split to read
  int imgsz = 640;              ///< loader image size
  int batch = 16;               ///< batch size
  int workers = 2;              ///< loader threads, and threads of the plain decode
  int batches = 20;             ///< batches timed per configuration
  /// Batches run before timing; -1 = enough to fill the loader's recent-image buffer (where
  /// mosaic draws its companions), so the timed batches show the steady state of a long
  /// epoch rather than the first batches of a run, which allocate fresh memory per image.
  int warmup = -1;
  uint64_t seed = 0;  ///< loader seed
};

/// Runs every configuration and returns the numbers as JSON (rates in samples or images per
/// second, per-stage seconds per sample, and the two target ratios with pass/fail).
Result<nlohmann::json> benchLoader(const LoaderBenchOptions& options);

}  // namespace stave::bench
