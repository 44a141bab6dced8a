#include "core/telemetry/event_sink.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace stave::telemetry {

EventSink::EventSink(std::FILE* stream, int rank) : m_stream(stream), m_rank(rank) {}

EventSink::~EventSink() {
  closeFile();
}

void EventSink::setStream(std::FILE* stream) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_stream = stream;
}

Status EventLogFile::open(const std::string& path) {
  std::error_code ec;
  const auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  std::FILE* f = std::fopen(path.c_str(), "abe");
  if (!f)
    return Error{path, 0, "", std::string("cannot open for appending: ") + std::strerror(errno)};
  close();
  m_file = f;
  m_path = path;
  return Ok{};
}

void EventLogFile::close() {
  if (m_file) std::fclose(m_file);
  m_file = nullptr;
}

void EventLogFile::reopenIfReplaced(int rank) {
  // One stat per line (against an fwrite and an fflush that the line costs anyway).
  struct stat onDisk {}, open {};
  const bool same = ::stat(m_path.c_str(), &onDisk) == 0 && ::fstat(::fileno(m_file), &open) == 0 &&
                    onDisk.st_ino == open.st_ino && onDisk.st_dev == open.st_dev;
  if (same) return;
  std::FILE* f = std::fopen(m_path.c_str(), "abe");
  if (!f) return;  // the write below fails and is counted
  std::fclose(m_file);
  m_file = f;
  ++m_recreated;
  const std::string why =
      m_path +
      " was deleted or replaced while the run was writing it; it was recreated and goes on "
      "from here: the events before are not in it (the project's history database may still "
      "hold them)";
  std::fprintf(stderr, "warning: %s\n", why.c_str());
  const std::string warning = encodeEvent(toEvent(WarningEvent{why, "events"}, rank)) + "\n";
  std::fwrite(warning.data(), 1, warning.size(), m_file);
}

bool EventLogFile::writeLine(const std::string& line, int rank) {
  if (!m_file) return false;
  reopenIfReplaced(rank);
  // One fwrite per line, flushed: a reader sees each line whole as soon as it is written.
  const std::string buffer = line + '\n';
  return std::fwrite(buffer.data(), 1, buffer.size(), m_file) == buffer.size() &&
         std::fflush(m_file) == 0;
}

Status EventSink::openFile(const std::string& path) {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_file.open(path);
}

void EventSink::closeFile() {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_file.close();
}

Status EventSink::openTensorBoard(const std::string& dir) {
  auto tb = TensorBoardWriter::open(dir);
  if (!tb) return tb.errors();
  std::lock_guard<std::mutex> lock(m_mutex);
  m_tb = std::move(tb.value());
  return Ok{};
}

void EventSink::setRank(int rank) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_rank = rank;
}

int EventSink::rank() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_rank;
}

void EventSink::setObserver(std::function<void(const Event&)> observer) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_observer = std::move(observer);
}

void EventSink::setForward(std::function<void(const std::string&)> forward) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_forward = std::move(forward);
}

void EventSink::write(const Event& event) {
  writeLine(encodeEvent(event), event);
  std::function<void(const Event&)> observer;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    observer = m_observer;
  }
  if (observer) observer(event);
}

void EventSink::writeLine(const std::string& line, const Event& event) {
  std::lock_guard<std::mutex> lock(m_mutex);
  // With the mutex, lines of different threads never interleave.
  if (m_stream) {
    const std::string buffer = line + '\n';
    if (std::fwrite(buffer.data(), 1, buffer.size(), m_stream) != buffer.size() ||
        std::fflush(m_stream) != 0)
      ++m_failures;
  }
  if (m_file.isOpen() && !m_file.writeLine(line, m_rank)) ++m_failures;
  if (m_tb) m_tb->writeEvent(event);
  if (m_forward) m_forward(line);
  ++m_lines;
}

int64_t EventSink::fileRecreations() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_file.recreations();
}

int64_t EventSink::linesWritten() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_lines;
}

int64_t EventSink::writeFailures() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_failures;
}

}  // namespace stave::telemetry
