#pragma once
// The experiment history of one project: an SQLite database (<project dir>/stave.db) that
// indexes the runs' events.jsonl files, the durable record. It can always be rebuilt from them.
// No Qt, no torch: the studio, `stave-train history` and the tests use it alike.

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/store/session_time.h"

struct sqlite3;

namespace stave::store {

/// Schema version written by this build (PRAGMA user_version). Older databases are migrated
/// in place; newer ones are refused.
constexpr int kSchemaVersion = 6;

/// The metric of every rank's samples/s summed at each of rank 0's steps (runs of 2 ranks or
/// more; one rank's is step/samples_per_s).
constexpr const char* kTotalSamplesPerSecKey = "step/samples_per_s_all";

/// The launcher's samples are kept as buckets (count, min, max, mean) at these resolutions:
/// what a chart of any range needs without reading every value (docs/history.md).
constexpr int kSampleLevels = 3;
constexpr double kSampleBucketSeconds[kSampleLevels] = {10, 120, 1800};

/// The run folder's copy of the user's title, tags and notes (JSON), read back when a run
/// enters a store that does not know it yet (a rebuild, another machine).
constexpr const char* kAnnotationsFile = "annotations.json";

/// One run as the history shows it.
struct RunRecord {
  int64_t id = 0;             ///< database id
  std::string name;           ///< folder name under runs/ (unique within the project)
  std::string title;          ///< the user's display name ("" = the folder name)
  std::string dir;            ///< absolute run folder
  std::string status;         ///< running, completed, stopped, failed, early_stopped, unknown
  std::string message;        ///< the finished or error event's message
  TextParts messageText;      ///< `message` as catalog messages (empty: English only)
  std::string configJson;     ///< resolved config (key -> value) from run_start
  std::string configHash;     ///< hashHex of configJson, to group identical configs
  std::string dataset;        ///< data.yaml of the run
  std::string datasetHash;    ///< content hash of the images and boxes it used ("" = unknown)
  std::string host;           ///< rank 0's host
  std::string model;          ///< model key of the config
  int64_t imgsz = 0;          ///< imgsz of the config
  int64_t batch = 0;          ///< per-rank batch of the config
  int worldSize = 1;          ///< ranks
  std::string devices;        ///< device names, comma separated
  std::string version;        ///< Stave version that trained it
  double started = 0;         ///< unix seconds of run_start (0 = unknown)
  double finished = 0;        ///< unix seconds of finished (0 = not finished)
  double lastEvent = 0;       ///< unix seconds of the newest event ingested
  int epochs = 0;             ///< planned epochs
  int epochsDone = 0;         ///< epochs with an epoch_end
  double bestMap50 = 0;       ///< best validation mAP50 seen
  double bestMap5095 = 0;     ///< best validation mAP50-95 seen
  int bestEpoch = -1;         ///< epoch of bestMap5095 (0-based), -1 when none
  double samplesPerSec = 0;   ///< mean samples/s of the run: all ranks' summed (one rank's alone
                              ///< in databases filled before 2026-12-06: `history --rebuild`)
  std::vector<std::string> tags;  ///< user tags
  std::string notes;          ///< user notes
  int64_t badLines = 0;       ///< events.jsonl lines that could not be decoded (skipped)
  int64_t ingestedBytes = 0;  ///< how far events.jsonl has been read
  int64_t ingestedLines = 0;  ///< lines of events.jsonl read so far
  /// What the run trained with where the config leaves it to Stave (run_start's `resolved`:
  /// optimizer=auto's choice, the scaled lr0 and weight decay, accumulate, precision, ...).
  std::string resolvedJson = "{}";
  /// The run's story: one entry per process that trained it (a start, then each resume), how
  /// that one ended: completed, stopped, failed, early_stopped, crashed (a later start with no
  /// end before it) or running (the last one, not ended yet).
  std::vector<std::string> sessions;
  /// The times of each ended session of `sessions` (same index; shorter when the last ones
  /// have not ended, -1 where the finished event did not say). A resumed run's training time
  /// is their sum (totalTime), never the last session's alone.
  std::vector<SessionTime> sessionTimes;
};

/// The `sessions` column of a run: each session's status, with its times where known
/// ({"status", "train_s", "val_s", "wall_s"}; a bare status string in older databases).
std::string sessionsJson(const RunRecord& run);

/// Adds one event to a run's story (`sessions`): a run_start opens a session (an open one
/// before it crashed), a finished event ends the open one with its status, an error fails it.
void addToStory(std::vector<std::string>& sessions, const std::string& type,
                const std::string& finishedStatus = {});

/// One point of a metric curve.
struct MetricPoint {
  int64_t step = 0;  ///< global iteration (epoch metrics: the epoch's last iteration)
  int epoch = 0;     ///< 0-based epoch
  double value = 0;  ///< the metric
  double time = 0;   ///< unix seconds of the event
};

/// One bucket of a launcher sample series (gpu_sample, system_sample): the values of one key
/// from one rank within a bucket of time.
struct SamplePoint {
  int rank = 0;        ///< the event's rank (-1: the launcher)
  double time = 0;     ///< unix seconds: the mean time of the bucket's values
  double value = 0;    ///< their mean
  double lo = 0;       ///< their minimum (a one-sample dip stays visible at every level)
  double hi = 0;       ///< their maximum
  int64_t count = 0;   ///< how many values
};

/// One event as the store keeps it: its line in events.jsonl (1-based) and its JSON.
struct StoredEvent {
  int64_t line = 0;
  std::string json;
};

/// What one ingestion did.
struct IngestReport {
  int runsSeen = 0;          ///< run folders looked at
  int runsUpdated = 0;       ///< run folders with new events
  int64_t events = 0;        ///< events stored
  int64_t metricRows = 0;    ///< metric rows stored
  std::vector<std::string> warnings;  ///< e.g. lines skipped, naming file and line
  /// Each warning as catalog messages, in the same order (empty parts: English only).
  std::vector<TextParts> warningTexts;
  /// Adds a warning in English and as a catalog message.
  void warn(const Text& text) {
    warnings.push_back(english(text));
    warningTexts.push_back({text});
  }
  /// Adds the warnings of `other`, in order.
  void addWarnings(const IngestReport& other) {
    for (size_t i = 0; i < other.warnings.size(); ++i) {
      warnings.push_back(other.warnings[i]);
      warningTexts.push_back(i < other.warningTexts.size() ? other.warningTexts[i] : TextParts{});
    }
  }
  bool stopped = false;  ///< the stop flag ended it early (what was read is kept)
};

/// The history database of one project folder. Not thread-safe; open one per thread. Other
/// processes may read while it writes (WAL).
class Store {
 public:
  /// Opens (creating or migrating) `dbPath`. Errors name the file: not an SQLite database, a
  /// newer schema (both versions named), corruption (integrity check), or a read-only folder.
  static Result<std::unique_ptr<Store>> open(const std::string& dbPath);
  /// `<projectDir>/stave.db`.
  static std::string defaultPath(const std::string& projectDir);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  /// Reads new events of one run folder (from where the last ingestion stopped) in one
  /// transaction; a half-written last line is left for the next call.
  Result<IngestReport> ingestRun(const std::string& runDir);
  /// ingestRun for every `<runsDir>/*/events.jsonl`.
  Result<IngestReport> ingestRuns(const std::string& runsDir);
  /// Runs whose last session is still `running` but whose folder no live process holds
  /// (`holdsFolder(dir)` false: RunFolderLock::holder, where the caller links it) ended without
  /// a final event (killed, or their machine went down): their status and last session become
  /// `crashed`, with a message saying so. A resume of such a run is `running` again (its
  /// run_start). How many runs it settled.
  Result<int> settleEndedRuns(const std::function<bool(const std::string& runDir)>& holdsFolder);

  /// Every run, newest first.
  std::vector<RunRecord> runs() const;
  /// The run named `nameOrPrefix` exactly, else the one run whose name starts with it; the
  /// error lists the candidates when the prefix is ambiguous.
  Result<RunRecord> findRun(const std::string& nameOrPrefix) const;
  /// The run whose folder is `runDir` (absolute or relative to the working folder).
  Result<RunRecord> runByDir(const std::string& runDir) const;
  /// A run's events but the high-rate ones (step, *_sample), in file order, as stored.
  std::vector<StoredEvent> events(int64_t runId) const;
  /// One metric of one run in step order (keys as in results.csv: train/box_loss,
  /// metrics/mAP50-95(B), lr/pg0, ...; step-level ones prefixed step/).
  std::vector<MetricPoint> curve(int64_t runId, const std::string& key) const;
  /// Iterations per epoch of a run, from its step curve (rank 0's step/box_loss): the first
  /// step of epoch 1 or later over its epoch, else the one epoch's steps; 0 without steps.
  double itersPerEpoch(int64_t runId) const;
  /// The metric keys a run has, in order.
  std::vector<std::string> metricKeys(int64_t runId) const;

  /// One key of a run's sample events ("gpus/0/util", "mem_used") in time order, between
  /// `from` and `to` (unix seconds), at the finest resolution that draws the range in at most
  /// `maxPoints` buckets per rank (0: the finest, 10 s).
  std::vector<SamplePoint> samples(int64_t runId, const std::string& key, int maxPoints = 0,
                                   double from = 0, double to = 1e12) const;
  /// The sample keys a run has.
  std::vector<std::string> sampleKeys(int64_t runId) const;

  /// User annotations. Written to the run folder's annotations.json (atomically) and to the
  /// database, so they survive re-ingestion, a rebuild and a copy of the project.
  Status setTitle(int64_t runId, const std::string& title);
  Status setTags(int64_t runId, const std::vector<std::string>& tags);
  Status setNotes(int64_t runId, const std::string& notes);
  /// Removes a run's rows (not its folder).
  Status removeRun(int64_t runId);

  /// The database file.
  const std::string& path() const { return m_path; }
  /// How long a write waits for another connection's (default 5 s). A reader on a thread of
  /// its own waits longer: the first ingestion of a day-long run holds the database ~15 s.
  void setBusyTimeout(int ms);
  /// Memory this connection may map and cache (defaults: 256 MB mapped, 32 MB cache). The
  /// studio's connections map nothing: mapped pages count in its resident memory.
  void setMemory(int64_t mmapBytes, int64_t cacheBytes);
  /// A flag another thread sets when this connection's work is no longer wanted (the studio
  /// closes, another run is shown): an ingestion then ends at its next 16 MB piece, keeping
  /// what it read (the next one goes on from there), and a wait for another connection's lock
  /// ends at once. nullptr: none.
  void setStopFlag(const std::atomic<bool>* stop);
  bool stopRequested() const { return m_stop && m_stop->load(); }

  /// For tests: caps the database at `pages` pages (0 = no cap), as a full disk would.
  void limitPagesForTesting(int64_t pages);
  int64_t pageCountForTesting() const;

 private:
  /// One try of open(); open() tries again while another connection holds the file.
  static Result<std::unique_ptr<Store>> openOnce(const std::string& dbPath);
  Store() = default;
  Status exec(const std::string& sql);
  Status migrateToV2();
  Status migrateToV3();
  Status migrateToV4();
  Status migrateToV5();
  Status migrateToV6();
  Status annotate(int64_t runId, const std::string* title, const std::vector<std::string>* tags,
                  const std::string* notes);
  static int onBusy(void* self, int tries);
  sqlite3* m_db = nullptr;
  std::string m_path;
  const std::atomic<bool>* m_stop = nullptr;
  int m_busyMs = 5000;
};

/// Moves `dbPath` (and its -wal/-shm) aside to <dbPath>.broken-<time> if it exists and creates
/// a fresh store filled from `<runsDir>/*/events.jsonl`: what `history --rebuild` does.
Result<std::unique_ptr<Store>> rebuildStore(const std::string& dbPath, const std::string& runsDir,
                                            IngestReport* report = nullptr);

/// Keys whose values differ between two resolved configs (JSON objects key -> value), with
/// both values as text; keys equal in both are left out.
std::vector<std::array<std::string, 3>> configDiff(const std::string& configJsonA,
                                                   const std::string& configJsonB);

}  // namespace stave::store
