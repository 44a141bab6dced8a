#pragma once
// StoredRun: what the project's history store holds of one run, read for the Run page. A
// day-long run on eight GPUs writes a gigabyte of events.jsonl; decoding it again each time
// the run is shown took half a minute. The store has read it once (incrementally: only what
// is new is read here), and keeps what the charts need: rank 0's per-iteration losses, the
// ranks' summed samples/s, the launcher's samples as 10 s buckets with their minimum and
// maximum, and every low-rate event (epochs, validation, warnings, the doctor). The Run page
// shows those, then follows events.jsonl from where the store stopped, at full resolution.
// The series come ready for the charts (LodSeries built here, off the GUI thread), the events
// decoded. No Qt in its interface.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/store/store.h"
#include "core/studio/models/lod_series.h"
#include "core/studio/models/run_event.h"
#include "core/studio/models/run_series.h"
#include "core/telemetry/events.h"

namespace stave::studio {

struct StoredRun {
  /// The run's events but step and *_sample, in file order, decoded (where this is read).
  std::vector<RunEvent> events;
  /// The last step event of each rank before `offset` (the per-rank split, the progress).
  std::vector<RunEvent> lastSteps;
  /// Lines or stored events that could not be read, naming the file and line.
  std::vector<std::string> warnings;
  /// Each warning as catalog messages, in the same order (empty parts: English only).
  std::vector<TextParts> warningTexts;
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
    SeriesId id;      ///< GPU charts: the GPU's index (gpus/<i>/index; i when not sampled)
    LodSeries points;
  };
  std::vector<Samples> samples;
  /// x of the last stored sample bucket (seconds since t0): the samples after it are read
  /// from the file at full resolution; the ones before are buckets.
  double bucketsUntil = 0;
  /// Unix time of the run's first event (x = 0 of the time charts).
  double t0 = 0;
  int worldSize = 1;
  int64_t offset = 0;  ///< bytes of events.jsonl the store has read (whole lines)
  int64_t lineNo = 0;  ///< lines of it
  /// A first look (previewRun): every `sampleEvery`-th step of rank 0 and launcher sample, read
  /// from the file while the store reads it whole.
  bool preview = false;
  int64_t sampleEvery = 1;
  /// Bytes of events.jsonl after the store's part that were decoded for this (the un-ingested
  /// tail; 0 when the store was current or read the file first).
  int64_t tailBytes = 0;
  /// The store holds less of the run than this shows (the tail was decoded from the file, not
  /// stored): catchUpStore brings it up to date, on a thread of its own, for the next open.
  bool storeBehind = false;

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

/// The launcher's samples of [lo, hi] (seconds since `t0`) at full resolution, read from the
/// run's events.jsonl before byte `end` (the part the store holds as buckets), keyed as
/// StoredRun::samples: what a chart zoomed into the stored part draws instead of the buckets.
/// The first line is found by bisecting the file by the samples' times (a few reads of 64 kB);
/// from there at most `maxBytes` are read, step and rank lines skipped undecoded (told by the
/// type at the line's end). `hi` comes back lowered to the last sample read when the budget
/// ended the read first. Errors name the file.
struct SampleDetail {
  double lo = 0, hi = 0;
  std::vector<StoredRun::Samples> samples;
  int64_t bytesRead = 0;
};
/// The bytes readSampleDetail reads at most (about 2.5 h of a run on eight GPUs).
constexpr int64_t kSampleDetailBytes = 96 << 20;
Result<SampleDetail> readSampleDetail(const std::string& eventsPath, double t0, double lo, double hi,
                                      int64_t end, int64_t maxBytes = kSampleDetailBytes);

/// What the Run page shows of a run from the store at `dbPath`. When the store holds a part of
/// `runDir`'s events.jsonl, that part is drawn at once (the per-iteration curves, the sample
/// buckets, the low-rate events) and only the file after it, the un-ingested tail, is decoded:
/// every event of a tail up to `tailBytes` (the result is then complete, with storeBehind set
/// when the tail was not empty: the store is not written here, see catchUpStore). A longer
/// tail, or a run the store has not read at all, is brought into the store first (the store's
/// first read of a day-long run takes ~15 s); `preview`, when given, is then called (on the
/// same thread) with a first look before the store reads on: the store's part and every S-th
/// step and sample of the tail (S = its size / `tailBytes`), or previewRun's when the store
/// holds nothing of the run and is more than kStoredRunBytes behind. Errors name the database
/// or the file. `stop` (when set) ends it early with an error, keeping in the store what was
/// read (BackgroundJob::stopFlag).
Result<StoredRun> loadStoredRun(const std::string& dbPath, const std::string& runDir,
                                const std::atomic<bool>* stop = nullptr,
                                const std::function<void(StoredRun)>& preview = {},
                                int64_t tailBytes = kStoredRunBytes);

/// Brings the store at `dbPath` up to date with `runDir` (only what is new is read): after
/// loadStoredRun drew a tail it did not store. Errors name the database or the file; `stop`
/// ends it early, keeping what was read.
Result<store::IngestReport> catchUpStore(const std::string& dbPath, const std::string& runDir,
                                         const std::atomic<bool>* stop = nullptr);

/// A first look at a long run read straight from its events.jsonl in about a second a
/// gigabyte: every low-rate event (the whole file is scanned; step and sample lines are told by
/// the type and rank at the line's end and skipped undecoded), and every S-th of rank 0's steps
/// and of the launcher's samples, S = the file's size / 64 MB (a day on eight GPUs: every 20th,
/// about 9,000 points a series); the samples/s of all ranks summed at those steps as the store
/// sums them. The whole run is on the charts at once; the store's complete series replace it.
/// `bytesPerStride`: S is the file's size over it (tests make it small).
Result<StoredRun> previewRun(const std::string& runDir, const std::atomic<bool>* stop = nullptr,
                             int64_t bytesPerStride = 64 << 20);

}  // namespace stave::studio
