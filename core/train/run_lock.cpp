#include "core/train/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <sstream>

#include "core/base/host_name.h"

namespace fs = std::filesystem;

namespace stave {
namespace {

std::string readAll(int fd) {
  std::string s;
  char buf[512];
  if (::lseek(fd, 0, SEEK_SET) != 0) return s;
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0 && s.size() < 4096;) s.append(buf, n);
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
  }
  return h;
}

std::string thisHost() {
  const std::string host = hostName();
  return host.empty() ? "?" : host;
}

}  // namespace

std::string RunLockHolder::describe() const {
  std::string s = "pid " + (pid > 0 ? std::to_string(pid) : std::string("?"));
  if (!host.empty()) s += " on " + host;
  std::string extra = command;
  if (!started.empty()) extra += (extra.empty() ? "" : ", ") + std::string("since ") + started;
  if (!extra.empty()) s += " (" + extra + ")";
  return s;
}

std::string RunFolderLock::lockPath(const std::string& runDir) {
  return (fs::path(runDir) / "run.lock").string();
}

Result<RunFolderLock> RunFolderLock::acquire(const std::string& runDir, const std::string& command) {
  const std::string path = lockPath(runDir);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return Error{path, 0, "", std::string("cannot open the run folder's lock: ") + std::strerror(errno)};
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    const RunLockHolder h = parseHolder(readAll(fd));
    ::close(fd);
    if (err == EWOULDBLOCK)
      return Error{runDir, 0, "run-dir",
                   "is in use by a live run: " + h.describe() +
                       "; a run folder belongs to one run at a time. Stop that run first "
                       "(kill -TERM " + std::to_string(h.pid) +
                       " checkpoints and stops it), or choose another folder"};
    return Error{path, 0, "", std::string("cannot lock the run folder: ") + std::strerror(err)};
  }
  char started[32];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", &tm);
  const std::string text = "pid=" + std::to_string(::getpid()) + "\nhost=" + thisHost() +
                           "\nstarted=" + started + "\ncommand=" + command + "\n";
  // Informational only (the flock is the lock): a failed write leaves an anonymous holder.
  if (::ftruncate(fd, 0) == 0 && ::lseek(fd, 0, SEEK_SET) == 0) {
    [[maybe_unused]] const ssize_t n = ::write(fd, text.data(), text.size());
  }
  RunFolderLock lock;
  lock.m_fd = fd;
  return lock;
}

std::optional<RunLockHolder> RunFolderLock::holder(const std::string& runDir) {
  const std::string path = lockPath(runDir);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<RunLockHolder> out;
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) out = parseHolder(readAll(fd));
  }
  ::close(fd);  // also drops the shared lock when it was taken
  return out;
}

RunFolderLock::RunFolderLock(RunFolderLock&& o) noexcept : m_fd(o.m_fd) { o.m_fd = -1; }

RunFolderLock& RunFolderLock::operator=(RunFolderLock&& o) noexcept {
  if (this != &o) {
    release();
    m_fd = o.m_fd;
    o.m_fd = -1;
  }
  return *this;
}

RunFolderLock::~RunFolderLock() { release(); }

void RunFolderLock::release() {
  if (m_fd >= 0) ::close(m_fd);
  m_fd = -1;
}

}  // namespace stave
