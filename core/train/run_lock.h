#pragma once
// One live run per run folder. A run holds an advisory lock (flock) on <run>/run.lock for its
// whole life; the kernel drops it when the process ends, however it ends, so a lock is never
// stale. Every command that writes into a run folder (train, resume, exist_ok, the studio, the
// queue) takes it first or refuses, naming the process that holds it.

#include <optional>
#include <string>

#include "core/base/result.h"

namespace stave {

/// Who holds a run folder's lock, as it wrote itself into run.lock.
struct RunLockHolder {
  long pid = 0;           ///< process id (on `host`)
  std::string host;       ///< host name
  std::string started;    ///< UTC time the lock was taken, ISO 8601
  std::string command;    ///< what holds it ("stave-train train", ...)
  /// "pid 1234 on host (stave-train train, since 2026-12-05T09:00:00Z)".
  std::string describe() const;
};

/// The lock of one run folder, held until destruction (move-only).
class RunFolderLock {
 public:
  /// The lock file inside `runDir`.
  static std::string lockPath(const std::string& runDir);
  /// Takes the lock of `runDir` (which must exist) for `command`. Fails without waiting when a
  /// live process holds it: the error names the folder and that process.
  static Result<RunFolderLock> acquire(const std::string& runDir, const std::string& command);
  /// The live process holding `runDir`'s lock, or nullopt when none does (no lock file, or
  /// its holder has ended). Takes nothing.
  static std::optional<RunLockHolder> holder(const std::string& runDir);

  RunFolderLock() = default;
  RunFolderLock(RunFolderLock&& o) noexcept;
  RunFolderLock& operator=(RunFolderLock&& o) noexcept;
  RunFolderLock(const RunFolderLock&) = delete;
  RunFolderLock& operator=(const RunFolderLock&) = delete;
  ~RunFolderLock();
  /// Whether a lock is held.
  bool held() const { return m_fd >= 0; }
  /// Releases the lock now.
  void release();

 private:
  int m_fd = -1;
};

}  // namespace stave
