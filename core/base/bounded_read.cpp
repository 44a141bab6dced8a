#include "core/base/bounded_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace stave {

namespace {

Text kindText(mode_t mode) {
  if (S_ISDIR(mode)) return Text("io.is_folder");
  if (S_ISFIFO(mode)) return Text("io.fifo");
  if (S_ISCHR(mode) || S_ISBLK(mode)) return Text("io.device");
  if (S_ISSOCK(mode)) return Text("io.socket");
  return Text("io.not_regular");
}
std::string kindOf(mode_t mode) { return english(kindText(mode)); }

Text mib(size_t bytes) {
  return bytes >= (size_t{1} << 20) ? Text("io.mib", {{"mib", std::to_string(bytes >> 20)}})
                                    : Text("size.bytes", {{"bytes", std::to_string(bytes)}});
}

/// Closes the descriptor on every way out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

Result<std::string> readFileCapped(const std::string& path, size_t maxBytes) {
  // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one; the
  // fstat below then refuses it before a byte is read.
  Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (f.fd < 0) {
    const int err = errno;
    if (err == EISDIR) return textError(path, 0, "", Text("io.is_folder"));
    return textError(path, 0, "", Text("io.cannot_open", {{"reason", std::strerror(err)}}));
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0)
    return textError(path, 0, "", Text("io.cannot_stat", {{"reason", std::strerror(errno)}}));
  if (!S_ISREG(st.st_mode)) return textError(path, 0, "", kindText(st.st_mode));
  if (st.st_size > 0 && static_cast<uint64_t>(st.st_size) > maxBytes)
    return textError(path, 0, "",
                     Text("io.too_large", {{"size", mib(static_cast<size_t>(st.st_size))}, {"max", mib(maxBytes)}}));
  // The size is only a claim (a file still growing, a file system that lies): the cap counts
  // what read() returns.
  std::string out;
  out.reserve(std::min<size_t>(static_cast<size_t>(std::max<off_t>(st.st_size, 0)), maxBytes));
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return textError(path, 0, "", Text("io.cannot_read", {{"reason", std::strerror(errno)}}));
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > maxBytes)
      return textError(path, 0, "", Text("io.grows", {{"max", mib(maxBytes)}}));
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

int openRegularFile(const std::string& path, std::string* why) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    if (why) *why = errno == EISDIR ? "is a folder, not a file" : std::strerror(errno);
    return -1;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (why) *why = kindOf(st.st_mode);
    ::close(fd);
    return -1;
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

Result<std::vector<uint8_t>> readFileBytesCapped(const std::string& path, size_t maxBytes) {
  std::string why;
  Fd f{openRegularFile(path, &why)};
  if (f.fd < 0) return Error{path, 0, "", why};
  struct stat st {};
  ::fstat(f.fd, &st);
  if (st.st_size > 0 && static_cast<uint64_t>(st.st_size) > maxBytes)
    return textError(path, 0, "",
                     Text("io.too_large", {{"size", mib(static_cast<size_t>(st.st_size))}, {"max", mib(maxBytes)}}));
  std::vector<uint8_t> out(static_cast<size_t>(std::max<off_t>(st.st_size, 0)));
  size_t got = 0;
  for (;;) {
    if (got == out.size()) {
      // Full (as fstat said, or grown): one byte tells whether there is more before the buffer
      // doubles — a regular file ends here, and its bytes are not copied into a larger buffer.
      uint8_t probe;
      ssize_t n = ::read(f.fd, &probe, 1);
      while (n < 0 && errno == EINTR) n = ::read(f.fd, &probe, 1);
      if (n < 0) return textError(path, 0, "", Text("io.cannot_read", {{"reason", std::strerror(errno)}}));
      if (n == 0) break;
      // The size was a claim (a file still growing, a size of 0 for a special file):
      // anything beyond the cap is refused.
      if (out.size() >= maxBytes)
        return textError(path, 0, "", Text("io.grows", {{"max", mib(maxBytes)}}));
      out.resize(std::min(maxBytes, std::max<size_t>(out.size() * 2, 65536)));
      out[got++] = probe;
      continue;
    }
    const ssize_t n = ::read(f.fd, out.data() + got, out.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      return textError(path, 0, "", Text("io.cannot_read", {{"reason", std::strerror(errno)}}));
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  out.resize(got);
  return out;
}

bool CappedLineReader::fill() {
  std::streambuf* sb = m_in.rdbuf();
  m_pos = 0;
  m_buf.clear();
  if (!sb) return false;
  // Only what is there without waiting: a live stream (stdin) gives its lines as they come.
  std::streamsize avail = sb->in_avail();
  if (avail <= 0) {
    if (std::char_traits<char>::eq_int_type(sb->sgetc(), std::char_traits<char>::eof())) {
      m_in.setstate(std::ios::eofbit);
      return false;
    }
    avail = std::max<std::streamsize>(1, sb->in_avail());
  }
  m_buf.resize(static_cast<size_t>(std::min<std::streamsize>(avail, 1 << 20)));
  const std::streamsize got = sb->sgetn(m_buf.data(), static_cast<std::streamsize>(m_buf.size()));
  m_buf.resize(static_cast<size_t>(std::max<std::streamsize>(got, 0)));
  return !m_buf.empty();
}

CappedLineReader::Got CappedLineReader::next(std::string* line) {
  line->clear();
  bool any = false, tooLong = false;
  for (;;) {
    if (m_pos >= m_buf.size() && !fill()) {
      if (!any) return Got::End;
      break;  // a last line without '\n'
    }
    any = true;
    const char* begin = m_buf.data() + m_pos;
    const size_t left = m_buf.size() - m_pos;
    const void* nl = std::memchr(begin, '\n', left);
    const size_t take = nl ? static_cast<size_t>(static_cast<const char*>(nl) - begin) : left;
    if (!tooLong) {
      if (line->size() + take > m_maxLine) {
        tooLong = true;  // from here on the line's bytes are only counted past
        line->clear();
        line->shrink_to_fit();
      } else {
        line->append(begin, take);
      }
    }
    m_pos += take;
    if (nl) {
      ++m_pos;
      break;
    }
  }
  ++m_lineNo;
  return tooLong ? Got::TooLong : Got::Line;
}

}  // namespace stave
