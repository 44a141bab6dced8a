// The edit log of a dataset's label files: rows, the log's JSON lines, and LabelStore's writes
// and reverts (see label_edits.h for the layout on disk).
#include "core/data/label_edits.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#include "core/base/atomic_file.h"
#include "core/base/bounded_read.h"
#include "core/base/hash.h"
#include "core/base/host_name.h"

namespace fs = std::filesystem;

namespace stave::data {

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

std::string joinRows(const std::vector<std::string>& rows) {
  std::string out;
  for (const auto& r : rows) out += r + '\n';
  return out;
}

std::vector<LabelRow> parseLabelRows(const std::string& text) {
  std::vector<LabelRow> rows;
  for (auto& line : splitLines(text)) {
    LabelRow row;
    row.text = line;
    std::istringstream in(line);
    double v[5];
    int n = 0;
    while (n < 5 && in >> v[n]) ++n;
    std::string rest;
    // Exactly five numbers, a whole non-negative class and a positive size: a box. Anything else
    // (a polygon, a comment, a broken row) is kept as it is and left alone.
    if (n == 5 && !(in >> rest) && v[0] >= 0 && v[0] == double(int(v[0])) && v[3] > 0 && v[4] > 0) {
      row.isBox = true;
      row.box = Box{int(v[0]), float(v[1]), float(v[2]), float(v[3]), float(v[4])};
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string formatBoxRow(const Box& b) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "%d %.6f %.6f %.6f %.6f", b.cls, double(b.cx), double(b.cy),
                double(b.w), double(b.h));
  return buf;
}

Result<LabelFileState> readLabelFile(const std::string& path) {
  LabelFileState s;
  s.path = path;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return s;
    return textError(path, 0, "", Text("io.cannot_read", {{"reason", std::strerror(errno)}}));
  }
  auto text = readFileCapped(path, size_t{64} << 20);
  if (!text) return text.errors();
  s.exists = true;
  s.text = std::move(text.value());
  s.hash = hashHex(s.text);
  s.mtimeNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  s.size = int64_t(st.st_size);
  return s;
}

// --- the log's JSON lines ----------------------------------------------------------------------

std::string editToJson(const LabelEdit& e) {
  nlohmann::json j = {{"id", e.id},
                      {"file", e.file},
                      {"old_exists", e.oldExisted},
                      {"old", e.oldLines},
                      {"new_exists", e.newExists},
                      {"new", e.newLines},
                      {"time", e.time},
                      {"host", e.host},
                      {"process", e.process},
                      {"session", e.session}};
  if (!e.revertOf.empty()) j["revert_of"] = e.revertOf;
  // Invalid UTF-8 in a label file (it is the user's text) is replaced rather than thrown on.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<LabelEdit> editFromJson(const std::string& line) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(line);
  } catch (const std::exception&) {
    return Error{"", 0, "", "not JSON"};
  }
  if (!j.is_object()) return Error{"", 0, "", "not a JSON object"};
  auto str = [&](const char* key, bool required, std::string& out) -> std::optional<Error> {
    auto it = j.find(key);
    if (it == j.end()) {
      if (required) return Error{"", 0, key, "missing"};
      return std::nullopt;
    }
    if (!it->is_string()) return Error{"", 0, key, "not a string"};
    out = it->get<std::string>();
    return std::nullopt;
  };
  auto lines = [&](const char* key, std::vector<std::string>& out) -> std::optional<Error> {
    auto it = j.find(key);
    if (it == j.end()) return Error{"", 0, key, "missing"};
    if (!it->is_array()) return Error{"", 0, key, "not a list of lines"};
    for (const auto& l : *it) {
      if (!l.is_string()) return Error{"", 0, key, "not a list of lines"};
      out.push_back(l.get<std::string>());
    }
    return std::nullopt;
  };
  LabelEdit e;
  if (auto err = str("id", true, e.id)) return *err;
  if (auto err = str("file", true, e.file)) return *err;
  if (auto err = str("session", true, e.session)) return *err;
  if (auto err = str("host", false, e.host)) return *err;
  if (auto err = str("process", false, e.process)) return *err;
  if (auto err = str("revert_of", false, e.revertOf)) return *err;
  if (auto err = lines("old", e.oldLines)) return *err;
  if (auto err = lines("new", e.newLines)) return *err;
  auto t = j.find("time");
  if (t == j.end() || !t->is_number()) return Error{"", 0, "time", "missing or not a number"};
  e.time = t->get<double>();
  if (auto it = j.find("old_exists"); it != j.end() && it->is_boolean()) e.oldExisted = *it;
  if (auto it = j.find("new_exists"); it != j.end() && it->is_boolean()) e.newExists = *it;
  if (e.id.empty() || e.file.empty()) return Error{"", 0, "id", "empty id or file"};
  return e;
}

EditLogRead readEditLog(const std::string& logPath, size_t maxLine) {
  EditLogRead out;
  std::string why;
  const int fd = openRegularFile(logPath, &why);
  if (fd < 0) {
    if (errno != ENOENT && fs::exists(logPath)) out.problems.push_back({logPath, 0, "", why});
    return out;
  }
  ::close(fd);
  std::ifstream in(logPath, std::ios::binary);
  CappedLineReader reader(in, maxLine);
  std::string line;
  for (;;) {
    const auto got = reader.next(&line);
    if (got == CappedLineReader::Got::End) break;
    const int lineNo = int(reader.lineNo());
    if (got == CappedLineReader::Got::TooLong) {
      out.problems.push_back(
          {logPath, lineNo, "", "longer than " + std::to_string(maxLine) + " bytes; skipped"});
      continue;
    }
    if (line.empty()) continue;
    auto e = editFromJson(line);
    if (!e) {
      Error err = e.errors().front();
      out.problems.push_back({logPath, lineNo, err.key, err.message + "; line skipped"});
      continue;
    }
    out.edits.push_back(std::move(e.value()));
  }
  return out;
}

std::string newSessionId() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  std::random_device rd;
  char tail[16];
  std::snprintf(tail, sizeof tail, "-%08x", unsigned(rd()));
  return std::string(buf) + tail;
}

// --- LabelStore --------------------------------------------------------------------------------

namespace {

double nowSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The nearest folder of `path` (itself or an ancestor) that exists.
fs::path existingFolder(fs::path p) {
  std::error_code ec;
  while (!p.empty() && !fs::is_directory(p, ec)) {
    if (p == p.parent_path()) break;
    p = p.parent_path();
  }
  return p;
}

// Holds <root>/.stave/label-edits.lock exclusively: two studios (or a studio and the CLI) never
// interleave their check-then-write of one dataset.
class EditLock {
 public:
  explicit EditLock(const std::string& lockPath) {
    m_fd = ::open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (m_fd < 0) {
      m_error = textError(lockPath, 0, "",
                          Text("label.lock_not_opened", {{"reason", std::strerror(errno)}}));
      return;
    }
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
      if (std::chrono::steady_clock::now() > until) {
        m_error = textError(lockPath, 0, "", Text("label.lock_held"));
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    m_locked = true;
  }
  ~EditLock() {
    if (m_fd >= 0) ::close(m_fd);  // closing releases the flock
  }
  EditLock(const EditLock&) = delete;
  EditLock& operator=(const EditLock&) = delete;
  bool ok() const { return m_locked; }
  const Error& error() const { return m_error; }

 private:
  int m_fd = -1;
  bool m_locked = false;
  Error m_error;
};

Text describeVersion(const LabelFileState& s) {
  if (!s.exists) return Text("label.absent");
  return Text("label.bytes", {{"bytes", std::to_string(s.size)}});
}

}  // namespace

LabelStore::LabelStore(std::string root, std::string process, std::string session)
    : m_root(fs::absolute(fs::path(root)).lexically_normal().string()),
      m_process(std::move(process) + " " + std::to_string(::getpid())),
      m_session(session.empty() ? newSessionId() : std::move(session)) {
  while (m_root.size() > 1 && m_root.back() == '/') m_root.pop_back();
}

std::string LabelStore::logPath() const {
  return m_root + "/.stave/label-edits.jsonl";
}

std::string LabelStore::originalsDir() const {
  return m_root + "/.stave/labels-original";
}

std::string LabelStore::relative(const std::string& path) const {
  const std::string abs = fs::absolute(fs::path(path)).lexically_normal().string();
  if (abs.size() > m_root.size() + 1 && abs.compare(0, m_root.size(), m_root) == 0 &&
      abs[m_root.size()] == '/')
    return abs.substr(m_root.size() + 1);
  return abs;
}

std::string LabelStore::absolute(const std::string& file) const {
  if (!file.empty() && file[0] == '/') return file;
  return m_root + "/" + file;
}

Status LabelStore::checkWritable(const std::string& labelPath) const {
  // access() reports a read-only file system (EROFS) even to root, and a folder without write
  // permission to everyone else; checked before anything is written, so nothing is half done.
  for (const fs::path& want : {fs::path(labelPath).parent_path(), fs::path(m_root) / ".stave"}) {
    // A file where a folder should be (or above it) cannot be written past either.
    std::error_code ec;
    for (fs::path p = want; !p.empty() && p != p.parent_path(); p = p.parent_path())
      if (fs::exists(p, ec) && !fs::is_directory(p, ec))
        return textError(p.string(), 0, "", Text("label.not_a_folder"));
    const fs::path dir = existingFolder(want);
    if (::access(dir.c_str(), W_OK) != 0)
      return textError(dir.string(), 0, "",
                       Text("label.not_writable", {{"reason", std::strerror(errno)}}));
  }
  std::error_code ec;
  fs::create_directories(fs::path(m_root) / ".stave", ec);
  if (ec)
    return textError(m_root + "/.stave", 0, "",
                     Text("label.no_history_folder", {{"reason", ec.message()}}));
  return Ok{};
}

Status LabelStore::keepOriginal(const std::string& rel, const LabelFileState& current) {
  std::string keep = rel;
  if (!keep.empty() && keep[0] == '/') keep = "outside" + keep;  // a file outside the root
  const std::string orig = originalsDir() + "/" + keep;
  std::error_code ec;
  if (fs::exists(orig, ec) || fs::exists(orig + ".absent", ec)) return Ok{};
  if (current.exists) return writeFileAtomic(orig, current.text);
  return writeFileAtomic(orig + ".absent", "");
}

Status LabelStore::appendLog(const LabelEdit& edit) {
  const std::string path = logPath();
  const std::string line = editToJson(edit) + "\n";
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return textError(path, 0, "", Text("label.log_not_opened", {{"reason", std::strerror(errno)}}));
  // One write of the whole line with O_APPEND: concurrent appenders never interleave inside it.
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Error e = textError(path, 0, "",
                          Text("label.log_not_appended", {{"reason", std::strerror(errno)}}));
      ::close(fd);
      return e;
    }
    done += size_t(n);
  }
  if (::fsync(fd) != 0) {
    Error e =
        textError(path, 0, "", Text("label.log_not_synced", {{"reason", std::strerror(errno)}}));
    ::close(fd);
    return e;
  }
  ::close(fd);
  return Ok{};
}

Result<LabelEdit> LabelStore::write(LabelFileState& base, const std::string& newText) {
  if (auto w = checkWritable(base.path); !w) return w.errors();
  EditLock lock(m_root + "/.stave/label-edits.lock");
  if (!lock.ok()) return lock.error();
  return writeLocked(base, newText, false, {});
}

Result<LabelEdit> LabelStore::writeLocked(LabelFileState& base, const std::string& newText,
                                          bool remove, const std::string& revertOf) {
  auto current = readLabelFile(base.path);
  if (!current) return current.errors();
  if (current->exists != base.exists || current->hash != base.hash)
    return textError(base.path, 0, "",
                     Text("label.changed_on_disk", {{"then", describeVersion(base)},
                                                    {"now", describeVersion(current.value())}}));
  if (remove ? !current->exists : (current->exists && current->text == newText)) return LabelEdit{};

  const std::string rel = relative(base.path);
  if (auto k = keepOriginal(rel, current.value()); !k) return k.errors();
  if (remove) {
    if (::unlink(base.path.c_str()) != 0)
      return textError(base.path, 0, "",
                       Text("label.cannot_remove", {{"reason", std::strerror(errno)}}));
  } else if (auto w = writeFileAtomic(base.path, newText); !w) {
    return w.errors();
  }
  LabelEdit e;
  e.id = m_session + ":" + std::to_string(++m_seq);
  e.file = rel;
  e.oldExisted = current->exists;
  e.oldLines = splitLines(current->text);
  e.newExists = !remove;
  e.newLines = remove ? std::vector<std::string>{} : splitLines(newText);
  e.time = nowSeconds();
  e.host = hostName();
  e.process = m_process;
  e.session = m_session;
  e.revertOf = revertOf;
  if (auto a = appendLog(e); !a) {
    // An edit that is not in the log must not stay on disk: put the file back as it was.
    if (current->exists)
      writeFileAtomic(base.path, current->text);
    else
      ::unlink(base.path.c_str());
    const TextParts why = textOfErrors(a.errors());
    return textError(base.path, 0, "",
                     Text("label.not_saved", {why.empty() ? Text::Arg("reason", a.errorText())
                                                          : Text::Arg("reason", why)}));
  }
  auto after = readLabelFile(base.path);
  if (after) base = std::move(after.value());
  return e;
}

EditLogRead LabelStore::log() const {
  return readEditLog(logPath());
}

namespace {
// "edit <id> (<host>, <process>)" for a refusal that names who changed a file later.
std::string who(const LabelEdit& e) {
  return "edit " + e.id + " (" + e.host + ", " + e.process + ")";
}

// Whether `s` holds exactly what edit `e` left in its file.
bool holdsResultOf(const LabelFileState& s, const LabelEdit& e) {
  return s.exists == e.newExists && (!s.exists || splitLines(s.text) == e.newLines);
}

// Why the file no longer holds what `last` wrote: a later logged edit, or a change on disk.
std::string changedSince(const EditLogRead& log, const LabelEdit& last) {
  bool after = false;
  const LabelEdit* later = nullptr;
  for (const auto& e : log.edits) {
    if (&e == &last || e.id == last.id) {
      after = true;
      continue;
    }
    if (after && e.file == last.file) later = &e;
  }
  if (later) return "changed since by " + who(*later);
  return "changed on disk since (not through the edit log)";
}
}  // namespace

Result<std::vector<LabelEdit>> LabelStore::revertEdit(const std::string& id) {
  const EditLogRead log = this->log();
  const LabelEdit* edit = nullptr;
  for (const auto& e : log.edits)
    if (e.id == id) edit = &e;
  if (!edit) return Error{logPath(), 0, "", "no edit " + id + " in the log"};
  const std::string path = absolute(edit->file);
  if (auto w = checkWritable(path); !w) return w.errors();
  EditLock lock(m_root + "/.stave/label-edits.lock");
  if (!lock.ok()) return lock.error();
  auto current = readLabelFile(path);
  if (!current) return current.errors();
  if (!holdsResultOf(current.value(), *edit))
    return Error{path, 0, "",
                 "not reverted: " + changedSince(log, *edit) + "; revert the later edit first"};
  auto e = writeLocked(current.value(), joinRows(edit->oldLines), !edit->oldExisted, id);
  if (!e) return e.errors();
  std::vector<LabelEdit> out;
  if (!e->id.empty()) out.push_back(std::move(e.value()));
  return out;
}

Result<std::vector<LabelEdit>> LabelStore::revertSession(const std::string& session) {
  const EditLogRead log = this->log();
  // Per file, in the order first touched: the session's first edit (its old state is the goal)
  // and its last one (what the file must still hold).
  std::vector<std::string> files;
  std::map<std::string, std::pair<const LabelEdit*, const LabelEdit*>> span;
  for (const auto& e : log.edits) {
    if (e.session != session) continue;
    auto it = span.find(e.file);
    if (it == span.end()) {
      files.push_back(e.file);
      span[e.file] = {&e, &e};
    } else {
      it->second.second = &e;
    }
  }
  if (files.empty())
    return Error{logPath(), 0, "", "no edits of session " + session + " in the log"};
  for (const auto& f : files)
    if (auto w = checkWritable(absolute(f)); !w) return w.errors();
  EditLock lock(m_root + "/.stave/label-edits.lock");
  if (!lock.ok()) return lock.error();

  std::vector<LabelFileState> states;
  std::vector<Error> refused;
  for (const auto& f : files) {
    auto current = readLabelFile(absolute(f));
    if (!current) return current.errors();
    const LabelEdit& last = *span[f].second;
    if (!holdsResultOf(current.value(), last))
      refused.push_back({absolute(f), 0, "", changedSince(log, last)});
    states.push_back(std::move(current.value()));
  }
  if (!refused.empty()) {
    refused.push_back({"", 0, "",
                       "session " + session + " not reverted: nothing was written (" +
                           std::to_string(refused.size()) + " of " + std::to_string(files.size()) +
                           " files changed since)"});
    return refused;
  }
  std::vector<LabelEdit> out;
  for (size_t i = 0; i < files.size(); ++i) {
    const LabelEdit& first = *span[files[i]].first;
    auto e = writeLocked(states[i], joinRows(first.oldLines), !first.oldExisted, session);
    if (!e) return e.errors();
    if (!e->id.empty()) out.push_back(std::move(e.value()));
  }
  return out;
}

}  // namespace stave::data
