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

Status EventSink::openFile(const std::string& path) {
  std::error_code ec;
  const auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  std::FILE* f = std::fopen(path.c_str(), "ab");
  if (!f)
    return Error{path, 0, "", std::string("cannot open for appending: ") + std::strerror(errno)};
  std::lock_guard<std::mutex> lock(m_mutex);
  if (m_file) std::fclose(m_file);
  m_file = f;
  m_filePath = path;
  return Ok{};
}

void EventSink::closeFile() {
  std::lock_guard<std::mutex> lock(m_mutex);
  if (m_file) {
    std::fclose(m_file);
    m_file = nullptr;
  }
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

void EventSink::write(const Event& event) {
  writeLine(encodeEvent(event));
  std::function<void(const Event&)> observer;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    observer = m_observer;
  }
  if (observer) observer(event);
}

void EventSink::writeLine(const std::string& line) {
  std::string buffer = line;
  buffer += '\n';
  std::lock_guard<std::mutex> lock(m_mutex);
  if (m_file) {
    // The durable record must not go on into a deleted file (it would vanish at the end of
    // the run): when the path no longer names the open file, start it afresh and say so.
    struct stat onDisk {}, open {};
    const bool same = ::stat(m_filePath.c_str(), &onDisk) == 0 &&
                      ::fstat(::fileno(m_file), &open) == 0 && onDisk.st_ino == open.st_ino &&
                      onDisk.st_dev == open.st_dev;
    if (!same) {
      if (std::FILE* f = std::fopen(m_filePath.c_str(), "ab")) {
        std::fclose(m_file);
        m_file = f;
        ++m_recreated;
        const std::string why =
            m_filePath +
            " was deleted or replaced while the run was writing it; it was recreated and "
            "goes on from here: the events before are not in it (the project's history "
            "database may still hold them)";
        std::fprintf(stderr, "warning: %s\n", why.c_str());
        const std::string warning = encodeEvent(toEvent(WarningEvent{why, "events"}, m_rank)) + "\n";
        std::fwrite(warning.data(), 1, warning.size(), m_file);
      }
    }
  }
  // One fwrite per line: with the mutex, lines of different threads never interleave, and the
  // flush makes each line visible to the reader at once.
  for (std::FILE* f : {m_stream, m_file}) {
    if (!f) continue;
    const bool ok =
        std::fwrite(buffer.data(), 1, buffer.size(), f) == buffer.size() && std::fflush(f) == 0;
    if (!ok) ++m_failures;
  }
  if (m_tb) m_tb->writeLine(line);
  ++m_lines;
}

int64_t EventSink::fileRecreations() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_recreated;
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
