#pragma once
// StoredRun: what the project's history store holds of one run, read for the Run page. A
// day-long run on eight GPUs writes a gigabyte of events.jsonl; decoding it again each time
// the run is shown took half a minute. The store has read it once (incrementally: only what
// is new is read here), and keeps what the charts need: rank 0's per-iteration losses, the
// ranks' summed samples/s, the launcher's samples as 10 s buckets with their minimum and
// maximum, and every low-rate event (epochs, validation, warnings, the doctor). The Run page
// shows those, then follows events.jsonl from where the store stopped, at full resolution.
// The series come ready for the charts (LodSeries built here, off the GUI thread). No Qt.
#include <cstdint>
#include <string>
#include <vector>

#include "core/config/result.h"
#include "core/store/store.h"
#include "core/studio/lod_series.h"
#include "core/telemetry/events.h"

namespace stave::studio {

struct StoredRun {
  /// The run's events but step and *_sample, in file order.
  std::vector<telemetry::Event> events;
  /// The last step event of each rank before `offset` (the per-rank split, the progress).
  std::vector<telemetry::Event> lastSteps;
  /// Lines or stored events that could not be read, naming the file and line.
  std::vector<std::string> warnings;
  /// One per-iteration curve of rank 0 (x: global iteration).
  struct Curve {
    std::string key;  ///< store::Store::curve keys: step/box_loss, step/samples_per_s_all, ...
    LodSeries points;
  };
  std::vector<Curve> curves;
  /// One launcher sample series, in the units the Run page draws: GPU memory in GiB, the
  /// node's memory in % of its total, the rest as sampled. x: seconds since `t0`; each bucket
  /// drawn as its minimum and its maximum (one value: that value), so a one-sample dip shows.
  struct Samples {
    std::string key;  ///< gpus/<i>/util, gpus/<i>/mem_used, gpus/<i>/power_w, cpu_total, mem_used
    int gpu = -1;     ///< the GPU's index (gpus/<i>/index; i when not sampled), -1 for the node
    LodSeries points;
  };
  std::vector<Samples> samples;
  /// Unix time of the run's first event (x = 0 of the time charts).
  double t0 = 0;
  int worldSize = 1;
  int64_t offset = 0;  ///< bytes of events.jsonl the store has read (whole lines)
  int64_t lineNo = 0;  ///< lines of it

  Curve* curve(const std::string& key);
  const Samples* sample(const std::string& key) const;
};

/// Below this size events.jsonl is read directly (every sample at full resolution); above it
/// the Run page opens the run from the store (docs/run-page.md).
constexpr int64_t kStoredRunBytes = 64 << 20;

/// How long a reader of the store on a thread of its own waits for another one's write (the
/// History page and the Run page may both bring a long run's history up to date).
constexpr int kBackgroundBusyMs = 10 * 60 * 1000;
/// The page cache of the studio's connections to the store (nothing mapped: mapped pages
/// count in the studio's resident memory).
constexpr int64_t kStudioStoreCache = 16 << 20;

/// Brings the store at `dbPath` up to date with `runDir` (only what is new is read) and reads
/// what the Run page shows of it. Errors name the database or the file.
Result<StoredRun> loadStoredRun(const std::string& dbPath, const std::string& runDir);

}  // namespace stave::studio
