#pragma once
// Reads the studio keeps off the GUI thread, counted where they happen: a test does what a user
// does (opens a project, selects runs in History) and checks that none of them ran on the
// application's main thread — as decodeCounts() does for the run's events.

#include <cstdint>

namespace stave::studio {

/// What was read.
enum class OffGuiRead {
  RunFolders,       ///< listRunFolders: the Run page's and the queue's listing of runs/
  RunSummaries,     ///< listRunSummaries: the runs with their results.csv and checkpoints
  HistoryRunQuery,  ///< History's queries of the selected runs (metric keys, curves)
  RunProcess,       ///< RunController's looks at its run's process: launcher.json, exit_status,
                    ///< wrapper.pid, /proc, launcher.log; on attach the folder and events.jsonl's size
  RunStart,         ///< a run's start or resume: its folder made, old records removed, the
                    ///< process started, launcher.json written
  RunStop,          ///< a run's stop: launcher.json read and the process signalled
  ClusterRecord,    ///< whether a followed run folder holds a cluster job record
  HistoryStore,     ///< History's store: opened, runs/ ingested, its rows and their folders read
  Count
};

/// How many reads of one kind happened, in all and on the application's main (GUI) thread.
struct OffGuiReadCount {
  uint64_t total = 0;
  uint64_t onMainThread = 0;
};

/// Counts one read of `what` on the calling thread (called by the reading function itself).
void countRead(OffGuiRead what);
/// The counts of `what` since the program started.
OffGuiReadCount readCount(OffGuiRead what);

}  // namespace stave::studio
