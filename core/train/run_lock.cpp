#include "core/train/run_lock.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <sstream>
#include <thread>

#include "core/base/host_name.h"

namespace fs = std::filesystem;

namespace stave {
namespace {

constexpr const char* kRecordName = "run.lock";
constexpr size_t kRecordCap = 4096;  // a record is a few lines; more is not one

std::string thisHost() {
  const std::string host = hostName();
  return host.empty() ? "?" : host;
}

/// A small file read whole (/proc entries), "" when it cannot be.
std::string readSmall(const char* path) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return {};
  std::string s;
  char buf[1024];
  for (ssize_t n; s.size() < kRecordCap && (n = ::read(fd, buf, sizeof buf)) > 0;) s.append(buf, n);
  ::close(fd);
  return s;
}

std::string bootId() {
  std::string s = readSmall("/proc/sys/kernel/random/boot_id");
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

/// Field 22 of /proc/PID/stat (the start time in clock ticks after boot); 0 when the process
/// does not exist. The command name (field 2) may hold spaces and ')': fields are counted
/// after its last ')'.
unsigned long long startTicksOf(long pid) {
  const std::string stat = readSmall(("/proc/" + std::to_string(pid) + "/stat").c_str());
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream in(stat.substr(close + 1));
  std::string field;
  for (int k = 3; k <= 22 && (in >> field); ++k)
    if (k == 22) return std::strtoull(field.c_str(), nullptr, 10);
  return 0;
}

/// run.lock of the open folder `dirFd`, never through a link and never waiting on a FIFO; ""
/// when there is none (or it is no regular file).
std::string readRecord(int dirFd) {
  const int fd =
      ::openat(dirFd, kRecordName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string s;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    char buf[1024];
    for (ssize_t n; s.size() < kRecordCap && (n = ::read(fd, buf, sizeof buf)) > 0;)
      s.append(buf, n);
  }
  ::close(fd);
  return s;
}

RunLockHolder parseHolder(const std::string& text) {
  RunLockHolder h;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string k = line.substr(0, eq), v = line.substr(eq + 1);
    if (k == "pid")
      h.pid = std::strtol(v.c_str(), nullptr, 10);
    else if (k == "host")
      h.host = v;
    else if (k == "started")
      h.started = v;
    else if (k == "command")
      h.command = v;
    else if (k == "start_ticks")
      h.startTicks = std::strtoull(v.c_str(), nullptr, 10);
    else if (k == "boot_id")
      h.bootId = v;
    else if (k == "slurm_job")
      h.slurmJob = v;
  }
  return h;
}

/// A record written before run.lock described its holder only (the lock was a flock on the
/// file, and the file stayed after every run): its holder lives while that flock is held.
bool legacyFileLockHeld(int dirFd) {
  const int fd =
      ::openat(dirFd, kRecordName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // also drops the shared lock when it was taken
  return held;
}

/// Whether the process `h` names may still hold the folder, the folder's own lock being free
/// here. On this host that is known: the same pid with the same start time since the same
/// boot. On another host it is not (the folder may be locked there only), so it counts as live.
bool mayLive(const RunLockHolder& h, int dirFd) {
  if (h.pid <= 0 && h.host.empty()) return false;  // no record, or not one
  if (h.startTicks == 0) return legacyFileLockHeld(dirFd);
  if (h.host != thisHost()) return true;
  if (!h.bootId.empty() && h.bootId != bootId()) return false;
  if (h.pid <= 0 || (::kill(static_cast<pid_t>(h.pid), 0) != 0 && errno == ESRCH)) return false;
  return startTicksOf(h.pid) == h.startTicks;
}

/// flock on the folder; a holder() probing at this moment holds it shared for a few
/// microseconds, so a refusal is only believed after a few tries.
int lockFolder(int dirFd) {
  for (int tries = 0;; ++tries) {
    if (::flock(dirFd, LOCK_EX | LOCK_NB) == 0) return 0;
    const int err = errno;
    if (err != EWOULDBLOCK || tries >= 5) return err;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

/// "slurm_job=ID\n" inside a Slurm job (the studio clears the record of a job Slurm says has
/// ended: a job killed outright leaves it, and another node cannot tell it is stale), else "".
std::string slurmJobLine() {
  const char* id = std::getenv("SLURM_JOB_ID");
  if (!id || !*id || std::strspn(id, "0123456789") != std::strlen(id)) return {};
  return std::string("slurm_job=") + id + "\n";
}

std::string utcNow() {
  char started[32];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return started;
}

/// Writes run.lock as a new file renamed over the old name: whatever was there (a link to a
/// project file, a hard link) is replaced, never written through.
Status writeRecord(int dirFd, const std::string& runDir, const std::string& text) {
  const std::string tmp = ".run.lock." + std::to_string(::getpid()) + ".tmp";
  ::unlinkat(dirFd, tmp.c_str(), 0);  // left by a process of the same pid that died here
  const int fd =
      ::openat(dirFd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  const auto failed = [&](const char* what) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    ::unlinkat(dirFd, tmp.c_str(), 0);
    return Error{
        RunFolderLock::lockPath(runDir), 0, "",
        std::string("cannot ") + what + " the run folder's lock record: " + std::strerror(err)};
  };
  if (fd < 0) return failed("create");
  if (::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    return failed("write");
  if (::close(fd) != 0) return failed("write");
  if (::renameat(dirFd, tmp.c_str(), dirFd, kRecordName) != 0) {
    const int err = errno;
    ::unlinkat(dirFd, tmp.c_str(), 0);
    return Error{RunFolderLock::lockPath(runDir), 0, "",
                 std::string("cannot replace the run folder's lock record: ") + std::strerror(err)};
  }
  return Ok{};
}

Error inUse(const std::string& runDir, const RunLockHolder& h) {
  return Error{runDir, 0, "run-dir",
               "is in use by a live run: " + h.describe() +
                   "; a run folder belongs to one run at a time. Stop that run first (kill -TERM " +
                   (h.pid > 0 ? std::to_string(h.pid) : std::string("PID")) +
                   " checkpoints and stops it), or choose another folder"};
}

}  // namespace

std::string RunLockHolder::describe() const {
  std::string s = "pid " + (pid > 0 ? std::to_string(pid) : std::string("?"));
  if (!host.empty()) s += " on " + host;
  std::string extra = command;
  if (!started.empty()) extra += (extra.empty() ? "" : ", ") + std::string("since ") + started;
  if (!slurmJob.empty())
    extra += (extra.empty() ? "" : ", ") + std::string("Slurm job ") + slurmJob;
  if (!extra.empty()) s += " (" + extra + ")";
  return s;
}

std::string RunLockHolder::remoteHint(const std::string& runDir) const {
  return "If it has ended (check pid " + std::to_string(pid) + " on " + host +
         (slurmJob.empty() ? std::string() : ", or squeue -j " + slurmJob) + "), remove " +
         RunFolderLock::lockPath(runDir) + " and try again";
}

std::string RunFolderLock::lockPath(const std::string& runDir) {
  return (fs::path(runDir) / kRecordName).string();
}

Result<RunFolderLock> RunFolderLock::acquire(const std::string& runDir,
                                             const std::string& command) {
  // The folder itself is locked (a link to it locks the folder it names): deleting or replacing
  // run.lock cannot take the lock from its holder.
  const int dirFd = ::open(runDir.c_str(), O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
  if (dirFd < 0)
    return Error{runDir, 0, "run-dir",
                 std::string("cannot open the run folder to lock it: ") + std::strerror(errno)};
  if (const int err = lockFolder(dirFd); err != 0) {
    const RunLockHolder h = parseHolder(readRecord(dirFd));
    ::close(dirFd);
    if (err == EWOULDBLOCK) return inUse(runDir, h);
    if (err == ENOLCK)
      return Error{
          runDir, 0, "run-dir",
          "cannot lock the run folder: the file system it is on does not support locks "
          "(ENOLCK: e.g. NFS mounted with nolock or without its lock service); put the run "
          "folder on a file system that supports locks, or mount this one with local "
          "locks (local_lock=all)"};
    return Error{runDir, 0, "run-dir",
                 std::string("cannot lock the run folder: ") + std::strerror(err)};
  }
  // The folder's lock is free here. Its record may still name a process that holds it where this
  // host cannot see the lock (another host of a shared file system), or one of this host that
  // lives on: refused. A record of a process that has ended is taken over.
  const RunLockHolder h = parseHolder(readRecord(dirFd));
  if (mayLive(h, dirFd)) {
    ::close(dirFd);
    if (h.startTicks != 0 && h.host != thisHost())
      return Error{runDir, 0, "run-dir",
                   "is taken by a run on another host: " + h.describe() + " (its " +
                       lockPath(runDir) +
                       "); this host cannot see that host's lock, so the run counts as live. " +
                       h.remoteHint(runDir)};
    return inUse(runDir, h);
  }
  RunFolderLock lock;
  lock.m_fd = dirFd;
  lock.m_startTicks = startTicksOf(::getpid());
  const std::string text = "pid=" + std::to_string(::getpid()) + "\nhost=" + thisHost() +
                           "\nstarted=" + utcNow() + "\ncommand=" + command +
                           "\nstart_ticks=" + std::to_string(lock.m_startTicks) +
                           "\nboot_id=" + bootId() + "\n" + slurmJobLine();
  // The record is what another host of a shared file system sees: without it the lock would
  // hold only here, so a record that cannot be written refuses the run.
  if (auto s = writeRecord(dirFd, runDir, text); !s) return s.errors();
  return lock;
}

std::optional<RunLockHolder> RunFolderLock::holder(const std::string& runDir) {
  const int dirFd = ::open(runDir.c_str(), O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
  if (dirFd < 0) return std::nullopt;
  const RunLockHolder h = parseHolder(readRecord(dirFd));
  std::optional<RunLockHolder> out;
  if (::flock(dirFd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK)
    out = h;  // locked here: live, whatever the record says (it may not be written yet)
  else if (mayLive(h, dirFd)) {
    out = h;
    out->remote = h.startTicks != 0 && h.host != thisHost();
  }
  ::close(dirFd);  // also drops the shared lock when it was taken
  return out;
}

RunFolderLock::RunFolderLock(RunFolderLock&& o) noexcept
    : m_fd(o.m_fd), m_startTicks(o.m_startTicks) {
  o.m_fd = -1;
}

RunFolderLock& RunFolderLock::operator=(RunFolderLock&& o) noexcept {
  if (this != &o) {
    release();
    m_fd = o.m_fd;
    m_startTicks = o.m_startTicks;
    o.m_fd = -1;
  }
  return *this;
}

RunFolderLock::~RunFolderLock() {
  release();
}

void RunFolderLock::release() {
  if (m_fd < 0) return;
  // The record goes first, while the folder is still locked: the next run finds nothing that
  // names this process. A record that is not this process's own is left alone.
  const RunLockHolder h = parseHolder(readRecord(m_fd));
  if (h.pid == ::getpid() && h.startTicks == m_startTicks && h.host == thisHost())
    ::unlinkat(m_fd, kRecordName, 0);
  ::close(m_fd);
  m_fd = -1;
}

}  // namespace stave
