#pragma once
// `stave-train bench ddp`: data-parallel training speed. A 1-rank reference runs in this
// process, then N ranks run as worker processes (core/distributed's launcher, Gloo on CPU) with
// overlapped gradient all-reduce; both train the same model on a synthetic batch already in
// memory, so the difference is communication and sharing the machine. No torch.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "core/base/result.h"

namespace stave::bench {

/// Benchmark settings (batch is per rank, as everywhere in Stave).
struct BenchDdpOptions {
  std::string scale = "n";  ///< model scale n..x
  int imgsz = 320;          ///< square input size, a multiple of 32
  int batch = 8;            ///< images per rank and step
  int steps = 20;           ///< measured steps
  int warmup = 3;           ///< unmeasured steps first
  int nproc = 2;            ///< ranks of the distributed run
  double bucketMb = 25;     ///< gradient bucket size in MiB (bucket_mb)
  int threads = 0;          ///< intra-op threads per rank (0 = max(1, cores / nproc))
  std::vector<std::string> workerCommand;  ///< command line that starts one rank, before the
                                           ///< options (e.g. {exe, "bench", "ddp", "--worker"})
};

/// Intra-op threads on which this process may run (its CPU affinity).
int benchCores();

/// The worker command line for `o`: workerCommand followed by every option as --flag value.
std::vector<std::string> benchDdpWorkerArgv(const BenchDdpOptions& o);

/// The key of benchDdp's error when the distributed run failed (a rank's last log lines in the
/// message); any other key names a bad option.
inline constexpr const char* kDdpRunFailedKey = "run";

/// Runs the 1-rank reference in this process, then o.nproc ranks through the launcher, and
/// returns the JSON report: per-step compute (forward+backward), all-reduce total and wait,
/// overlap ratio, optimiser and step time, samples/s of both runs, scaling efficiency, thread
/// counts and a note. Errors: bad options, a rank that failed (key kDdpRunFailedKey).
Result<nlohmann::json> benchDdp(const BenchDdpOptions& o);

/// One rank of the distributed run (identity from RANK/WORLD_SIZE/MASTER_* as the launcher
/// sets them): trains with GradientSync and prints one `bench_ddp_rank` event line with its
/// timings on stdout. Returns the process exit code (errors go to stderr, exit 1).
int benchDdpWorker(const BenchDdpOptions& o);

}  // namespace stave::bench
