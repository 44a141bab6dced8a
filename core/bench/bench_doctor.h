#pragma once
// `stave-train bench doctor`: does the doctor's advice work? Trains the same config three
// times: on slow storage with the loader starved (the planted data-bound run), on the same slow
// storage with the doctor's advice from the planted run applied, and on fast storage (the
// reference); reports the fraction of the throughput the slow storage cost that the advice won
// back (target >= 0.8; docs/doctor.md, tests/bench/README.md). No torch.

#include <nlohmann/json.hpp>

#include <functional>
#include <string>

#include "core/base/result.h"

namespace stave::bench {

/// Benchmark settings. Small images and few epochs, the bench's own: storage must be what
/// limits the planted run, and three trainings must take minutes.
struct BenchDoctorOptions {
  std::string executable;  ///< the stave-train binary started for each training run
  std::string data;        ///< data.yaml ("" = a demo dataset of `images` 640 px images)
  std::string out;         ///< keep the runs and their logs here ("" = a temporary folder)
  int images = 600;        ///< training images of the demo dataset
  int imgsz = 64;          ///< training image size
  int epochs = 3;          ///< epochs of each run (the first fills a cache)
  int batch = 16;          ///< images per batch
  int slowMs = 20;         ///< added to every image read of the slow storage
  int threads = 0;         ///< intra-op threads (0 = all cores)
  bool keep = false;       ///< keep the temporary folder of the runs
  /// Told before each training starts, e.g. "planted run (slow storage workers=0 cache=none)".
  std::function<void(const std::string&)> progress;
};

/// The key of benchDoctor's error when its folder could not be made (message "DIR: why").
inline constexpr const char* kDoctorFolderKey = "out";
/// The key of benchDoctor's error when the doctor did not call the planted run data-bound (the
/// benchmark ran, its premise failed; the message says what the doctor found).
inline constexpr const char* kDoctorNotDataBoundKey = "data_bound";

/// Trains the three runs and returns the JSON report: each run's images/s after the first
/// epoch, epoch times, data-wait share and findings, the advice applied, the lost and
/// recovered images/s and whether the target is met. Errors: see the keys above; any other
/// error is bad input (the dataset, a run that failed, its event log).
Result<nlohmann::json> benchDoctor(const BenchDoctorOptions& options);

}  // namespace stave::bench
