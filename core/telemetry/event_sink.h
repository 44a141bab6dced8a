#pragma once
// Where a process writes its events: a stream (stdout, read by the launcher or the studio)
// and/or an append-only file (runs/<id>/events.jsonl). One line per event, flushed at once, so a
// reader sees every event as soon as it happens and a crash loses at most a partial line.

#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "core/base/result.h"
#include "core/telemetry/events.h"
#include "core/telemetry/tensorboard.h"

namespace stave::telemetry {

/// The append-only event log of a run (runs/<id>/events.jsonl), as the single-process trainer
/// and the launcher keep it. Each line is written whole and flushed. Before each line it checks
/// that its path still names the open file: a log deleted or replaced while the run writes it
/// (a user's rm, a cleaner) is started afresh, with a warning event as its first line (and on
/// stderr), so the record goes on instead of vanishing with the deleted file. Not thread-safe:
/// its owner serialises the writes.
class EventLogFile {
 public:
  EventLogFile() = default;
  ~EventLogFile() { close(); }
  EventLogFile(const EventLogFile&) = delete;
  EventLogFile& operator=(const EventLogFile&) = delete;

  /// Appends to `path` from now on (created with its folders if missing); the error names the
  /// path and the system's reason.
  Status open(const std::string& path);
  /// Flushes and closes the file.
  void close();
  bool isOpen() const { return m_file != nullptr; }
  /// Writes `line` and a newline; `rank` tags the warning of a recreated log. False when the
  /// write failed (disk full).
  bool writeLine(const std::string& line, int rank);
  /// Times the log was found deleted or replaced and recreated.
  int64_t recreations() const { return m_recreated; }

 private:
  void reopenIfReplaced(int rank);

  std::FILE* m_file = nullptr;
  std::string m_path;
  int64_t m_recreated = 0;
};

/// Thread-safe writer of encoded events. Lines from different threads never interleave.
/// A sink with neither stream nor file discards events (useful in tests and benchmarks).
class EventSink {
 public:
  /// A sink that writes to nothing until setStream/openFile.
  EventSink() = default;
  /// A sink writing to `stream` (not owned, e.g. stdout); `rank` tags typed events.
  explicit EventSink(std::FILE* stream, int rank = 0);
  ~EventSink();
  EventSink(const EventSink&) = delete;
  EventSink& operator=(const EventSink&) = delete;

  /// Writes to `stream` (not owned) from now on; nullptr stops writing to a stream.
  void setStream(std::FILE* stream);
  /// Appends to `path` from now on (created with its folders if missing). The error names the
  /// path and the system's reason.
  Status openFile(const std::string& path);
  /// Stops appending to the file (flushes and closes it).
  void closeFile();
  /// Also writes every event to TensorBoard event files in `dir` (a new file in it); the error
  /// names the path.
  Status openTensorBoard(const std::string& dir);
  /// Called with every event write() wrote, after it was written and outside the sink's lock
  /// (so the observer may write to the sink itself); lines given to writeLine() are not seen.
  /// Set it before other threads write.
  void setObserver(std::function<void(const Event&)> observer);
  /// Also hands every line written (write()'s and writeLine()'s, encoded once) to `forward`,
  /// in order and under the sink's lock (so `forward` must not write to the sink); nullptr stops.
  /// E.g. a rank's events sent to rank 0 over the event relay.
  void setForward(std::function<void(const std::string&)> forward);
  /// Rank used by write() for typed events.
  void setRank(int rank);
  int rank() const;

  /// Encodes and writes one event.
  void write(const Event& event);
  /// Writes one already encoded line (no newline) as it came, e.g. a rank's line relayed to
  /// rank 0; `event` is what the line decodes to (its holder decoded it to read it), which
  /// TensorBoard is given instead of the line.
  void writeLine(const std::string& line, const Event& event);
  /// Builds the event of a typed payload with this sink's rank and writes it.
  template <typename Typed>
  void writeTyped(const Typed& typed) {
    write(toEvent(typed, rank()));
  }

  /// Times the event log was found deleted or replaced and recreated (with a warning event
  /// as its first line, on stderr too).
  int64_t fileRecreations() const;
  /// Lines written since construction.
  int64_t linesWritten() const;
  /// Writes that failed (disk full, closed pipe); they are counted, never thrown. A process
  /// writing to a pipe should ignore SIGPIPE so that a vanished reader lands here.
  int64_t writeFailures() const;

 private:
  mutable std::mutex m_mutex;
  std::FILE* m_stream = nullptr;
  EventLogFile m_file;
  std::unique_ptr<TensorBoardWriter> m_tb;  ///< fed the events, not the lines
  std::function<void(const Event&)> m_observer;
  std::function<void(const std::string&)> m_forward;
  int m_rank = 0;
  int64_t m_lines = 0;
  int64_t m_failures = 0;
};

}  // namespace stave::telemetry
