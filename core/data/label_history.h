#pragma once
// Which label files two runs' datasets differ in, from the dataset's edit log (label_edits.h):
// each run records where the log stood when it started (run_start's dataset.label_edits), and
// the files whose content changed between those two positions are the ones that differ — so
// History can say "the mAP went up after fixing 37 labels". Runs recorded before the position
// was fall back to the edits' times between the two runs' starts.

#include <cstdint>
#include <string>
#include <vector>

#include "core/data/label_edits.h"

namespace stave::data {

/// The edit log of the dataset at `root`: its path (<root>/.stave/label-edits.jsonl).
std::string labelEditLogPath(const std::string& root);
/// How many edits the log of the dataset at `root` holds now (0 when it has none): the position
/// a run records at its start.
int64_t labelEditCount(const std::string& root);

/// The label files (as the log names them, sorted) whose content after the first `to` edits of
/// `edits` differs from their content after the first `from` (either order): a file edited and
/// then reverted in between is not one of them.
std::vector<std::string> labelFilesChanged(const std::vector<LabelEdit>& edits, int64_t from,
                                           int64_t to);
/// The same for the edits made between two times (seconds since 1970): after `from`, up to and
/// including `to` (either order).
std::vector<std::string> labelFilesChangedBetween(const std::vector<LabelEdit>& edits, double from,
                                                  double to);

/// What a run recorded about its dataset.
struct RunDataset {
  std::string dataYaml;     ///< its data.yaml (absolute, or relative to the working folder)
  std::string contentHash;  ///< content hash of its images and boxes ("" = unknown)
  int64_t labelEdits = -1;  ///< the edit log's position at its start (-1 = not recorded)
  double started = 0;       ///< when it started (seconds since 1970; 0 = unknown)
};

/// Which label files two runs' datasets differ in, and how that was found.
struct LabelFilesDiff {
  enum class Basis {
    SameContent,   ///< the content hashes are equal: no label file differs
    LogPositions,  ///< the edits between the two runs' recorded log positions
    EditTimes,     ///< a position was not recorded: the edits between the two runs' starts
    Unknown,       ///< cannot tell (see `why`)
  };
  enum class Why {
    None,
    OtherDatasets,  ///< the runs trained on datasets with different roots
    NoDataset,      ///< a data.yaml cannot be read (named in `error`)
    NoTimes,        ///< no recorded position and no start time
    BadLog,         ///< the log holds fewer edits than a run recorded (replaced or cut)
  };
  Basis basis = Basis::Unknown;
  Why why = Why::None;
  std::vector<std::string> files;  ///< the label files that differ, relative to the root
  /// The content hashes differ but the log shows no label file changed between the runs: the
  /// datasets differ in ways the log does not record (images added, files edited elsewhere).
  bool outsideLog = false;
  std::string root;   ///< the dataset's root (when read)
  std::string error;  ///< why the dataset could not be read (NoDataset)
};

/// Compares the datasets of runs `a` and `b`, reading their data.yaml and the edit log (file
/// work: call it off a window's thread).
LabelFilesDiff labelFilesDiffBetweenRuns(const RunDataset& a, const RunDataset& b);

}  // namespace stave::data
