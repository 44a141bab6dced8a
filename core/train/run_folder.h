#pragma once
// The rules of a run folder, in one place: where a new run goes (train, train2, ...), when a
// folder may be taken (one live run each, never a second run mixed into one, exist_ok moves
// the old run aside), and what a resume may change. No torch in the interface.

#include <string>

#include "core/base/result.h"
#include "core/config/run_config.h"
#include "core/train/run_lock.h"

namespace stave::train {

/// The run folder for a config: <project or config folder>/runs/<name or "train"> with a
/// numeric suffix when taken (train, train2, ...), or that very folder with exist_ok. Does not
/// create it.
std::string chooseRunDir(const config::RunConfig& config, const std::string& besideFolder);

/// Whether `dir` already holds a run (its events, config, results or weights).
bool holdsRun(const std::string& dir);

/// Whether a resume with `requested` may continue the run in `runDir`: refused when its
/// weights/last.pt is unreadable (naming the run's intact checkpoints), when the request
/// changes a key that cannot change mid-run (each named with both values) or the dataset's
/// class count, when the run stopped inside an epoch after images that are no whole number of
/// the new shape's global batches (`worldSize` ranks; 0 = nproc x nnodes of `requested`), or
/// asks for no more epochs than are done. Reads only.
Status checkResume(const config::RunConfig& requested, const std::string& runDir,
                   int worldSize = 0);

/// Creates `runDir` when it is missing and takes its lock for `command` (a rank that keeps the
/// run's folder without the launcher). A folder this call created is removed again when the
/// lock cannot be taken and nothing else is in it.
Result<RunFolderLock> createAndLockRunFolder(const std::string& runDir, const std::string& command);

/// A run folder taken for one run: its lock, and where an old run was moved (exist_ok).
struct TakenRunFolder {
  RunFolderLock lock;      ///< held for the run's life
  std::string movedAside;  ///< the old run's new folder, or ""
};

/// Takes `runDir` (absolute) for a new run of `config` or, with `resume`, for continuing the
/// run in it, on behalf of `command` (what run.lock says holds it). Refused, with nothing
/// written, when a live process holds the folder, when a new run would land in a folder that
/// holds a run (unless exist_ok, which moves it aside), or when the resume is refused
/// (checkResume). Creates the folder and its weights/; when the lock of a folder it created
/// cannot be taken (e.g. a file system without locks), the folder is removed again.
Result<TakenRunFolder> takeRunFolder(const config::RunConfig& config, const std::string& runDir,
                                     bool resume, const std::string& command);

}  // namespace stave::train
