#pragma once
// A generator of long runs: the events.jsonl that an N-hour, R-rank run writes, through
// core/telemetry's codec, at the rates the engine really writes them — a step event per rank
// every `stepPeriodS`, a gpu_sample (with the node's GPUs) and a system_sample per node every
// `samplePeriodS`, and per epoch an epoch_end, a validation and checkpoints, with a straggler
// report and a doctor diagnosis now and then. The benchmarks and the scale tests of the store
// and the studio use it; since it encodes with encodeEvent, a change of the format changes it.
#include <cstdint>
#include <functional>
#include <string>

namespace stave::bench {

struct LongRunOptions {
  double hours = 1;           ///< simulated length written by writeLongRun
  double plannedHours = 0;    ///< the run's planned length (epochs, schedule); 0: `hours`
  int ranks = 8;              ///< world size (one node holds them all unless nodes > 1)
  int nodes = 1;              ///< machines: each writes its own gpu_sample / system_sample
  int cores = 32;             ///< CPU cores per node in system_sample
  double stepPeriodS = 0.5;   ///< one step event per rank this often
  double samplePeriodS = 0.5; ///< one gpu_sample and one system_sample per node this often
  double epochMinutes = 30;   ///< length of an epoch
  double startTime = 1.8e9;   ///< unix time of run_start
  bool finished = true;       ///< end with a finished event
  uint32_t seed = 1;
  std::string name = "long";  ///< the run's name in run_start's config
};

/// What was written.
struct LongRunStats {
  int64_t events = 0;
  int64_t bytes = 0;
  int64_t steps = 0;   ///< rank 0's step events
  int epochs = 0;      ///< epochs ended
  double endTime = 0;  ///< time of the last event
};

/// Writes the run's events to `path` (replaced). Errors name the file.
bool writeLongRun(const LongRunOptions& options, const std::string& path, LongRunStats* stats,
                  std::string* error);

/// Appends events in real time from `from` (the time after the last written event) to `path`
/// until `keepGoing()` returns false (asked once per tick of 0.5 s): what a live run writes.
/// With `realTime` false the ticks follow each other without waiting. Returns the events
/// appended.
int64_t appendLive(const LongRunOptions& options, const std::string& path, double from,
                   const std::function<bool()>& keepGoing, bool realTime = true);

/// The reference the benchmarks measure against: one plain read of `path` in 16 MB chunks,
/// counting its lines. Seconds taken.
double plainReadSeconds(const std::string& path, int64_t* lines = nullptr);

}  // namespace stave::bench
