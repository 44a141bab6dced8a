#include "core/cluster/mirror.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "core/base/atomic_file.h"
#include "core/cluster/remote_shell.h"

namespace stave::cluster {
namespace {

namespace fs = std::filesystem;

/// Files larger than this are not copied unasked (a run's small files are far smaller).
constexpr int64_t kMaxAutoCopy = int64_t{64} << 20;

struct Listed {
  std::string path;
  int64_t size = 0;
  std::string stamp;  ///< "size mtime"
};

/// Splits the listing (records "SIZE MTIME PATH\0", then an empty record) from the events'
/// bytes after it. False when the answer has no end of listing.
bool parseAnswer(const std::string& out, std::vector<Listed>* files, std::string* events) {
  size_t pos = 0;
  while (pos < out.size()) {
    const size_t end = out.find('\0', pos);
    if (end == std::string::npos) return false;
    if (end == pos) {  // the empty record: the listing ends
      *events = out.substr(end + 1);
      return true;
    }
    const std::string rec = out.substr(pos, end - pos);
    pos = end + 1;
    const size_t a = rec.find(' '), b = a == std::string::npos ? a : rec.find(' ', a + 1);
    if (b == std::string::npos) continue;
    Listed l;
    l.size = std::strtoll(rec.substr(0, a).c_str(), nullptr, 10);
    l.stamp = rec.substr(0, b);
    l.path = rec.substr(b + 1);
    if (l.path.compare(0, 2, "./") == 0) l.path.erase(0, 2);
    files->push_back(l);
  }
  return false;
}

int64_t fileSize(const std::string& path) {
  std::error_code ec;
  const auto n = fs::file_size(path, ec);
  return ec ? 0 : static_cast<int64_t>(n);
}

Text cannotWrite(const std::string& path, const std::string& why) {
  return Text("mirror.cannot_write", {{"path", path}, {"reason", why}});
}

/// Appends `bytes` to `path` and makes them durable before the offset moves on.
TextParts appendDurably(const std::string& path, const char* bytes, size_t n) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return {cannotWrite(path, std::strerror(errno))};
  size_t done = 0;
  while (done < n) {
    const ssize_t w = ::write(fd, bytes + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const std::string why = std::strerror(errno);
      // Whole lines only: a partial append is cut back so the offset stays a line boundary.
      if (::ftruncate(fd, static_cast<off_t>(fileSize(path) - static_cast<int64_t>(done))) != 0) {}
      ::close(fd);
      return {cannotWrite(path, why)};
    }
    done += static_cast<size_t>(w);
  }
  ::fdatasync(fd);
  ::close(fd);
  return {};
}

/// The poll's problem, in English and as catalog messages.
void say(MirrorPoll* p, TextParts text) {
  p->error = english(text);
  p->errorText = std::move(text);
}

}  // namespace

bool mirroredName(const std::string& rel) {
  if (rel.empty() || rel.front() == '/' || rel == "events.jsonl") return false;
  if (rel == "cluster_job.json" || rel == ".cluster_job.lock" || rel == ".stave_mirror" || rel == ".stave_submit.lock")
    return false;
  if (rel.compare(0, 8, "weights/") == 0 || rel.compare(0, 3, "tb/") == 0) return false;
  size_t start = 0;
  while (start <= rel.size()) {
    size_t end = rel.find('/', start);
    if (end == std::string::npos) end = rel.size();
    const std::string part = rel.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  for (const unsigned char c : rel)
    if (c < ' ') return false;
  return true;
}

RemoteRunner sshRunner(const SshEndpoint& endpoint) {
  return [endpoint](const std::string& line, const ProcessOptions& o) { return runRemoteLine(endpoint, line, o); };
}

Mirror::Mirror(RemoteRunner runner, std::string remoteDir, std::string localDir)
    : m_run(std::move(runner)), m_remote(std::move(remoteDir)), m_local(std::move(localDir)) {
  std::error_code ec;
  fs::create_directories(m_local, ec);
}

int64_t Mirror::offset() const { return fileSize(m_local + "/events.jsonl"); }

MirrorPoll Mirror::poll() {
  std::lock_guard<std::mutex> lock(m_mutex);
  MirrorPoll p;
  const std::string events = m_local + "/events.jsonl";
  std::vector<Listed> files;
  bool first = true;
  // A line longer than a read is read again with a larger one (up to 256 MiB: an event is far
  // smaller), so the offset never stalls in front of it.
  int64_t chunk = m_chunk;
  // Several reads while the cluster has more than one chunk (a studio opened on a long run).
  for (int round = 0; round < 64; ++round) {
    const int64_t off = offset();
    const std::string fmt = "%s %T@ %p\\0";
    // The listing (top files, and val/), an empty record, then the new bytes from the offset.
    std::string line = "cd " + shellWord(m_remote) + " && " +
                       shellCommand({"find", ".", "-maxdepth", "1", "-type", "f", "-printf", fmt}).value() +
                       " && { [ ! -d val ] || " +
                       shellCommand({"find", "val", "-type", "f", "-printf", fmt}).value() +
                       "; } && printf '\\000' && { [ ! -f events.jsonl ] || " +
                       shellCommand({"dd", "if=events.jsonl", "iflag=skip_bytes,count_bytes", "skip=" + std::to_string(off),
                                     "count=" + std::to_string(chunk), "bs=1M", "status=none"})
                           .value() +
                       "; }";
    ProcessOptions o;
    o.timeoutMs = 60000;
    o.maxOutBytes = static_cast<size_t>(chunk) + (size_t{16} << 20);
    RemoteResult r = m_run(line, o);
    if (!r.reached() || !r.process.ok()) {
      p.failure = r;
      if (!r.reached()) {
        p.error = r.message;
        p.errorText = r.text;
      } else {
        say(&p, {Text("mirror.folder_unreadable", {{"folder", m_remote},
                                                   {"how", describeEndText(r.process)},
                                                   {"said", r.process.err.substr(0, 500)}})});
      }
      if (r.reached() && r.process.end == ProcessEnd::TimedOut) p.failure.failure = SshFailure::Unreachable;
      return p;
    }
    p.reached = true;
    std::vector<Listed> now;
    std::string bytes;
    if (!parseAnswer(r.process.out, &now, &bytes)) {
      say(&p, {Text("mirror.cut_short", {{"folder", m_remote}})});
      p.reached = false;
      p.failure.failure = SshFailure::Unreachable;
      return p;
    }
    if (first) files = now;
    first = false;
    for (const auto& f : now)
      if (f.path == "events.jsonl") p.remoteEventsSize = f.size;
    if (p.remoteEventsSize >= 0 && p.remoteEventsSize < off) {
      say(&p, {Text("mirror.replaced", {{"file", events},
                                        {"offset", std::to_string(off)},
                                        {"size", std::to_string(p.remoteEventsSize)}})});
      return p;
    }
    // Whole lines only: the half line at the end is read again next time, once it is whole.
    const size_t cut = bytes.rfind('\n');
    if (cut != std::string::npos) {
      if (TextParts why = appendDurably(events, bytes.data(), cut + 1); !why.empty()) {
        say(&p, std::move(why));
        return p;
      }
      p.eventBytes += static_cast<int64_t>(cut + 1);
    }
    if (static_cast<int64_t>(bytes.size()) < chunk) break;  // all there is
    if (cut == std::string::npos) {
      if (chunk >= (int64_t{256} << 20)) break;
      chunk *= 2;
    } else {
      chunk = m_chunk;
    }
  }
  for (const auto& f : files) {
    if (!mirroredName(f.path) || f.size > kMaxAutoCopy) continue;
    const std::string local = m_local + "/" + f.path;
    if (m_seen[f.path] == f.stamp && fs::exists(local)) continue;
    ProcessOptions o;
    o.timeoutMs = 120000;
    RemoteResult r = m_run(shellCommand({"cat", m_remote + "/" + f.path}).value(), o);
    if (!r.reached()) {
      p.failure = r;
      p.error = r.message;
      p.errorText = r.text;
      p.reached = false;
      return p;
    }
    if (!r.process.ok()) continue;  // gone since the listing: the next poll sees
    if (auto st = writeFileAtomic(local, r.process.out); !st) {
      p.error = st.errorText();
      p.errorText = textOfErrors(st.errors());
      continue;
    }
    m_seen[f.path] = f.stamp;
    ++p.filesCopied;
  }
  return p;
}

std::string Mirror::fetchFile(const std::string& rel, const std::atomic<bool>* stop) {
  return english(fetchFileText(rel, stop));
}

TextParts Mirror::fetchFileText(const std::string& rel, const std::atomic<bool>* stop) {
  std::lock_guard<std::mutex> lock(m_mutex);
  if (rel.empty() || rel.front() == '/' || rel.find("..") != std::string::npos)
    return {Text("mirror.not_in_run", {{"file", rel}})};
  const std::string local = m_local + "/" + rel;
  std::error_code ec;
  fs::create_directories(fs::path(local).parent_path(), ec);
  const std::string part = local + ".part";
  ProcessOptions o;
  o.timeoutMs = 3600 * 1000;
  o.outFile = part;
  o.stop = stop;
  RemoteResult r = m_run(shellCommand({"cat", m_remote + "/" + rel}).value(), o);
  if (!r.ok()) {
    fs::remove(part, ec);
    if (!r.reached())
      return r.text.empty() ? TextParts{Text("plain", {{"text", r.message}})} : r.text;
    return {Text("mirror.file_unreadable", {{"file", m_remote + "/" + rel},
                                            {"how", describeEndText(r.process)},
                                            {"said", r.process.err.substr(0, 500)}})};
  }
  fs::rename(part, local, ec);
  if (ec) return {cannotWrite(local, ec.message())};
  return {};
}

std::string followMirror(Mirror& mirror, int periodMs, const std::function<bool()>& done,
                         const std::function<void(const MirrorPoll&)>& onPoll, const std::atomic<bool>* stop) {
  int backoffS = 1;
  const auto sleepMs = [&](int64_t ms) {
    for (int64_t t = 0; t < ms && !(stop && stop->load()); t += 100)
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min<int64_t>(100, ms - t)));
  };
  while (!(stop && stop->load())) {
    const bool ending = done();  // asked before the poll: that poll then sees the last lines
    MirrorPoll p = mirror.poll();
    if (onPoll) onPoll(p);
    if (!p.reached) {
      if (!p.failure.retryable()) return p.error;
      sleepMs(int64_t{backoffS} * 1000);
      backoffS = std::min(backoffS * 2, 30);
      continue;
    }
    backoffS = 1;
    if (!p.error.empty() && p.eventBytes == 0 && p.remoteEventsSize >= 0 && p.remoteEventsSize < mirror.offset())
      return p.error;
    if (ending && p.eventBytes == 0) return {};
    sleepMs(periodMs);
  }
  return {};
}

}  // namespace stave::cluster
