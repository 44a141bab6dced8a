#include "core/base/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace stave {
namespace {
std::atomic<bool> g_failBeforeRename{false};

// "what: strerror", with `what` a catalog message (id) whose {reason} is the system's words.
Error sysError(const std::string& path, Text what) {
  what.args.emplace_back("reason", std::strerror(errno));
  return textError(path, 0, "", std::move(what));
}
}  // namespace

namespace testing {
void setFailBeforeRename(bool fail) {
  g_failBeforeRename = fail;
}
}  // namespace testing

Status writeFileAtomic(const std::string& path, const std::string& bytes) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path(), ec);
    if (ec) return textError(path, 0, "", Text("io.cannot_create_folder", {{"reason", ec.message()}}));
  }
  // Unique temporary name in the same folder, so the rename stays on one file system.
  std::random_device rd;
  std::ostringstream tmpName;
  tmpName << path << ".tmp-" << ::getpid() << '-' << std::hex << rd();
  const std::string tmp = tmpName.str();

  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return sysError(path, Text("io.cannot_create_temp", {{"file", tmp}}));
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      Error e = sysError(path, Text("io.write_failed"));
      ::close(fd);
      ::unlink(tmp.c_str());
      return e;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    Error e = sysError(path, Text("io.fsync_failed"));
    ::close(fd);
    ::unlink(tmp.c_str());
    return e;
  }
  ::close(fd);
  if (g_failBeforeRename) {
    ::unlink(tmp.c_str());
    return Error{path, 0, "", "simulated failure before rename"};
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Error e = sysError(path, Text("io.rename_failed"));
    ::unlink(tmp.c_str());
    return e;
  }
  // Make the rename itself durable.
  const std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return Ok{};
}

Result<std::string> readFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return textError(path, 0, "", Text("io.is_folder"));
  std::ifstream in(path, std::ios::binary);
  if (!in) return textError(path, 0, "", Text("io.cannot_open", {{"reason", std::strerror(errno)}}));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return textError(path, 0, "", Text("io.read_failed"));
  return ss.str();
}

}  // namespace stave
