#pragma once
// Bounded reads of files the user (or another machine) controls. A small file — a project, a
// run's config.yaml, cluster_job.json, val/*.json — is read whole, but only when it is a
// regular file and only up to a cap: a FIFO would block the reader for good, /dev/zero or a
// huge file would grow it until it runs out of memory. Lines of an event log are read one at a
// time, a line longer than the cap skipped without ever being held whole.

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "core/base/result.h"

namespace stave {

/// The most bytes read from one small file of Stave's own (project, config, record, val/*.json).
constexpr size_t kSmallFileCap = size_t{64} << 20;
/// The longest event line read; a longer one is not an event Stave wrote and is skipped.
constexpr size_t kMaxEventLineBytes = size_t{16} << 20;

/// Reads the whole of `path`, at most `maxBytes` of it. Opened without blocking (O_NONBLOCK) and
/// refused unless it is a regular file (a folder, FIFO, device or socket is named as such, never
/// read); the cap counts the bytes actually read, not the size the file claims. Every error
/// names the path.
Result<std::string> readFileCapped(const std::string& path, size_t maxBytes = kSmallFileCap);

/// Opens `path` for reading only when it is a regular file, without ever waiting on it (a FIFO
/// with no writer, a device): the descriptor (blocking reads from here on), or -1 with what is
/// wrong in `why` ("is a FIFO (named pipe), not a regular file; not read", or the system's
/// reason). The caller closes it.
int openRegularFile(const std::string& path, std::string* why = nullptr);

/// readFileCapped for binary data (images): the bytes of `path`, at most `maxBytes`, read into a
/// buffer sized once from the file's size.
Result<std::vector<uint8_t>> readFileBytesCapped(const std::string& path, size_t maxBytes);

/// Reads lines from a stream, each without its '\n' (as std::getline). A line longer than
/// `maxLine` bytes is read past and dropped as it goes (memory stays bounded whatever the
/// file holds, a sparse 10 GB hole included) and reported as TooLong.
class CappedLineReader {
 public:
  enum class Got {
    Line,     ///< `line` holds the next line
    TooLong,  ///< the next line was longer than the cap and was skipped; `line` is empty
    End,      ///< nothing more (end of the stream)
  };
  explicit CappedLineReader(std::istream& in, size_t maxLine = kMaxEventLineBytes)
      : m_in(in), m_maxLine(maxLine) {}
  /// The next line; lineNo() is then its 1-based number.
  Got next(std::string* line);
  /// The number of the line returned last (1-based; 0 before the first).
  int64_t lineNo() const { return m_lineNo; }
  /// The cap this reader was made with.
  size_t maxLine() const { return m_maxLine; }

 private:
  bool fill();
  std::istream& m_in;
  size_t m_maxLine;
  int64_t m_lineNo = 0;
  std::string m_buf;
  size_t m_pos = 0;
};

}  // namespace stave
