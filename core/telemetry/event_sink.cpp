#include "core/telemetry/event_sink.h"

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

int64_t EventSink::linesWritten() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_lines;
}

int64_t EventSink::writeFailures() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_failures;
}

}  // namespace stave::telemetry
