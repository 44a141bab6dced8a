#pragma once
// The dataset's history of label edits. Every change of a label file made through LabelStore is
// written atomically, the file's original is kept before its first change, and the change is
// appended to an edit log beside the dataset, so that any edit, or a whole session of them, can
// be undone later — by the studio or by `stave-train labels revert`. A label file that changed
// on disk since it was read (another tool, a second studio) is never overwritten: the write is
// refused with the reason.
//
// Layout under the dataset root (the `path` of data.yaml):
//   .stave/label-edits.jsonl              one JSON object per edit (see LabelEdit)
//   .stave/labels-original/<relative>     each label file as it was before its first edit
//   .stave/labels-original/<relative>.absent   marks a file that did not exist before it

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/data/dataset.h"

namespace stave::data {

/// A label file as read: its text and what identifies this version of it on disk.
struct LabelFileState {
  std::string path;     ///< absolute path of the label file
  bool exists = false;  ///< false: no file (an image without labels)
  std::string text;     ///< the file's bytes ("" when it does not exist)
  std::string hash;     ///< content hash of `text` ("" when it does not exist)
  int64_t mtimeNs = 0;  ///< modification time when read (ns since the epoch)
  int64_t size = 0;     ///< size in bytes when read
};

/// One recorded change of one label file (one line of the edit log).
struct LabelEdit {
  std::string id;                     ///< "<session>:<n>", unique in the log
  std::string file;                   ///< the label file, relative to the dataset root
  bool oldExisted = true;             ///< the file existed before the change
  std::vector<std::string> oldLines;  ///< its lines before
  bool newExists = true;              ///< the file exists after it (false: removed by a revert)
  std::vector<std::string> newLines;  ///< its lines after
  double time = 0;                    ///< when (seconds since the Unix epoch, UTC)
  std::string host;                   ///< the machine that made it
  std::string process;                ///< the program and its process id ("stave 4711")
  std::string session;                ///< the session (one studio opening, one CLI call)
  std::string revertOf;               ///< the edit or session this change undid, or ""
};

/// The edit log as read: every well-formed edit, and a problem per line that is not one.
struct EditLogRead {
  std::vector<LabelEdit> edits;  ///< in log order
  std::vector<Error> problems;   ///< each names the log file and the line
};

/// One label row: a box (class cx cy w h) or any other line, kept verbatim (polygons, blanks).
struct LabelRow {
  std::string text;    ///< the row as written in the file
  bool isBox = false;  ///< it parsed as `cls cx cy w h`
  Box box{};           ///< the box when isBox
};

/// The rows of a label file's text, in order (a trailing empty line is not a row).
std::vector<LabelRow> parseLabelRows(const std::string& text);
/// A box as a YOLO row: "cls cx cy w h" with six decimals.
std::string formatBoxRow(const Box& box);
/// The text of a label file with these rows (one per line, each ending in '\n').
std::string joinRows(const std::vector<std::string>& rows);
/// The lines of `text` (without their '\n'; a trailing empty line is not one).
std::vector<std::string> splitLines(const std::string& text);

/// Reads `path` as a label file (a missing one gives exists = false); at most 64 MiB.
Result<LabelFileState> readLabelFile(const std::string& path);

/// Reads the edit log at `logPath`: every edit, in order. A line that is not an edit (bad JSON,
/// a missing field, longer than `maxLine`) is a problem naming its line number; the rest is
/// still read. A missing log is an empty history.
EditLogRead readEditLog(const std::string& logPath, size_t maxLine = size_t{16} << 20);

/// A new session id: the UTC time and a random part ("20261207T150712Z-3f9a2c1b").
std::string newSessionId();

/// Reads and writes the label files of one dataset, keeping their history.
class LabelStore {
 public:
  /// `root`: the dataset root (label paths are recorded relative to it). `process`: the program
  /// named in the log ("stave", "stave-train"; its process id is added). `session`: this
  /// session's id ("" = a new one).
  LabelStore(std::string root, std::string process, std::string session = {});

  const std::string& root() const { return m_root; }
  const std::string& session() const { return m_session; }
  /// <root>/.stave/label-edits.jsonl
  std::string logPath() const;
  /// <root>/.stave/labels-original
  std::string originalsDir() const;
  /// `path` relative to the root (as the log records it); absolute when it lies outside.
  std::string relative(const std::string& path) const;
  /// The absolute path of a file the log names.
  std::string absolute(const std::string& file) const;

  /// Replaces the label file read as `base` with `newText`: refused, nothing written, when the
  /// file changed on disk since `base` was read ("changed on disk since it was read ..."), when
  /// the dataset cannot be written (the error names the path and the system's reason), or when
  /// the log cannot be appended. Keeps the original before the file's first change. Writing the
  /// text the file already holds records nothing and returns an edit with an empty id. On
  /// success `base` is updated to the file as written.
  Result<LabelEdit> write(LabelFileState& base, const std::string& newText);

  /// The whole log of this dataset.
  EditLogRead log() const;

  /// Undoes edit `id` by writing its old lines back, recorded as a new edit (revertOf = id).
  /// Refused when the file no longer holds what the edit wrote (changed since: by which later
  /// edit, or on disk), or when there is no such edit.
  Result<std::vector<LabelEdit>> revertEdit(const std::string& id);
  /// Undoes every edit of `session`: each file it touched goes back to what it held before the
  /// session's first edit of it. All or nothing: refused, nothing written, when any of those
  /// files changed after the session's last edit of it (each such file named).
  Result<std::vector<LabelEdit>> revertSession(const std::string& session);

 private:
  Result<LabelEdit> writeLocked(LabelFileState& base, const std::string& newText, bool remove,
                                const std::string& revertOf);
  Status keepOriginal(const std::string& rel, const LabelFileState& current);
  Status appendLog(const LabelEdit& edit);
  Status checkWritable(const std::string& labelPath) const;

  std::string m_root;
  std::string m_process;
  std::string m_session;
  int m_seq = 0;
};

/// The edit log as JSON text (one line, no newline) and back; fromJson's error names what is
/// missing.
std::string editToJson(const LabelEdit& edit);
Result<LabelEdit> editFromJson(const std::string& line);

}  // namespace stave::data
