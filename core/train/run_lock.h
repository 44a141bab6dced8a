#pragma once
// One live run per run folder. A run holds an advisory lock (flock) on the run folder itself —
// its directory, not a file in it — for its whole life; the kernel drops it when the process
// ends, however it ends, and no file can be deleted or replaced to take it away. Every command
// that writes into a run folder (train, resume, exist_ok, the studio, the queue) takes it first
// or refuses, naming the process that holds it.
//
// <run>/run.lock only describes the holder (pid, host, start time, command). It is written as
// a new file renamed into place (a link named run.lock is replaced, never followed) and removed
// when the lock is released normally. Where the lock is local to one host (a folder on NFS is
// locked per client), the description is what a second host sees: a run.lock that names a
// process on another host is taken as held, and one that names a process of this host counts
// while that process (same pid, same start time, same boot) lives.

#include <optional>
#include <string>

#include "core/base/result.h"

namespace stave {

/// Who holds a run folder's lock, as it wrote itself into run.lock.
struct RunLockHolder {
  long pid = 0;         ///< process id (on `host`)
  std::string host;     ///< host name
  std::string started;  ///< UTC time the lock was taken, ISO 8601
  std::string command;  ///< what holds it ("stave-train train", ...)
  /// The process's start on its host (/proc/PID/stat field 22); 0 = not recorded.
  unsigned long long startTicks = 0;
  std::string bootId;    ///< the host's boot id when it was taken ("" = not recorded)
  std::string slurmJob;  ///< the Slurm job it ran in (SLURM_JOB_ID), "" outside Slurm
  /// holder(): a process of another host, counted as live on its record alone (the folder is
  /// not locked here); remoteHint() says how to take the folder over if it has ended.
  bool remote = false;
  /// "pid 1234 on host (stave-train train, since 2026-12-05T09:00:00Z, Slurm job 42)".
  std::string describe() const;
  /// "if it has ended (check pid 1234 on host, or squeue -j 42), remove RUNDIR/run.lock and
  /// try again".
  std::string remoteHint(const std::string& runDir) const;
};

/// The lock of one run folder, held until destruction (move-only).
class RunFolderLock {
 public:
  /// The holder's description inside `runDir` (run.lock).
  static std::string lockPath(const std::string& runDir);
  /// Takes the lock of `runDir` (which must exist) for `command`. Fails without waiting when a
  /// live process holds it, or run.lock names a process on another host that may still run:
  /// the error names the folder and that process (and how to override where only the record
  /// speaks). A run.lock that names an ended process of this host is taken over.
  static Result<RunFolderLock> acquire(const std::string& runDir, const std::string& command);
  /// The process holding `runDir`'s lock, as acquire() would judge it (the folder locked here,
  /// or run.lock naming a process that may live), or nullopt when none does. Takes nothing and
  /// never waits.
  static std::optional<RunLockHolder> holder(const std::string& runDir);

  RunFolderLock() = default;
  RunFolderLock(RunFolderLock&& o) noexcept;
  RunFolderLock& operator=(RunFolderLock&& o) noexcept;
  RunFolderLock(const RunFolderLock&) = delete;
  RunFolderLock& operator=(const RunFolderLock&) = delete;
  ~RunFolderLock();
  /// Whether a lock is held.
  bool held() const { return m_fd >= 0; }
  /// Releases the lock now; run.lock is removed (it no longer describes a holder).
  void release();

 private:
  int m_fd = -1;                        ///< the run folder, locked
  unsigned long long m_startTicks = 0;  ///< what this process wrote into run.lock
};

}  // namespace stave
