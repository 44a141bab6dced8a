#pragma once
// The ranked issues of an issues CSV fixed in one go (`stave-train labels fix`, docs/labels.md):
// each selected issue gets its natural fix (overlooked: add the predicted box; swapped: take the
// predicted class; badly located: take the predicted box; spurious: delete the box), written
// through LabelStore so that every fix is in the edit log and the whole call is one session that
// `labels revert --session` undoes.
//
// A label file that changed since the CSV was made is refused, not fixed: `label-issues` writes a
// companion file beside the CSV (FILE.csv.json: the content hash of each label file it scored
// with an issue, and the predicted box of each badly located issue); without it, a label file
// modified after the CSV was written is taken as changed.

#include <map>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/data/label_edits.h"
#include "core/data/label_fixes.h"

namespace stave::data {

/// What label-issues knows when it writes the CSV and `labels fix` needs later.
struct IssuesCompanion {
  std::string csvHash;  ///< hashHex of the CSV's text it belongs to
  /// Per image (as named in the CSV): its label file's content hash when scored ("" = no file).
  std::map<std::string, std::string> labelHashes;
  /// Per CSV line: the predicted box (x1, y1, x2, y2 in pixels) of a badly located issue.
  std::map<int, std::vector<double>> predictedBoxes;
};

/// The companion file's path for the CSV at `csvPath` ("<csvPath>.json").
std::string issuesCompanionPath(const std::string& csvPath);
/// The companion as JSON text.
std::string issuesCompanionJson(const IssuesCompanion& companion);
/// Reads a companion file; the error names the file and what is wrong.
Result<IssuesCompanion> readIssuesCompanion(const std::string& path);

/// The companion of the CSV at `csvPath` whose text is `csvText`, when there is one and it
/// belongs to that very text (a CSV filtered by a script has none); `used` says whether it was.
/// A companion that cannot be read or belongs to another CSV is a warning naming it.
IssuesCompanion companionFor(const std::string& csvPath, const std::string& csvText,
                             std::vector<Error>& warnings, bool& used);
/// Gives `row` the predicted box the companion has for its CSV line, if any.
void attachPredictedBox(const IssuesCompanion& companion, IssueRow& row);

/// Which issues `fixLabelIssues` fixes.
struct IssueFixSelection {
  int top = 0;  ///< the first N selected issues in the CSV's order (0 = all)
  /// The kinds fixed (default: all four).
  std::vector<IssueKind> kinds{IssueKind::Overlooked, IssueKind::Swapped, IssueKind::BadlyLocated,
                               IssueKind::Spurious};
  double minScore = 0;  ///< issues scoring below this are left alone
  bool dryRun = false;  ///< say what would change, write nothing
};

/// What became of one selected issue.
struct IssueFixOutcome {
  enum class Status {
    Fixed,     ///< written (an edit in the log)
    WouldFix,  ///< a dry run: this is what it would write
    Refused,   ///< the label file changed since the CSV was made: not touched
    Failed,    ///< the fix does not apply (the box is gone, the image cannot be read, ...)
  };
  IssueRow issue;
  Status status = Status::Failed;
  std::string labelFile;              ///< the label file (absolute)
  std::string editId;                 ///< the edit recorded (Fixed)
  std::string reason;                 ///< why Refused or Failed (names the file)
  std::vector<std::string> oldLines;  ///< the label file's lines before the fix
  std::vector<std::string> newLines;  ///< after it
};

/// Everything `fixLabelIssues` did.
struct IssueFixReport {
  std::vector<IssueFixOutcome> outcomes;  ///< one per selected issue, in the CSV's order
  int dismissed = 0;                      ///< issues left out because marked "not an issue"
  std::vector<Error> warnings;            ///< rows of the CSV skipped, a companion not used
  bool companionUsed = false;             ///< changes were detected by content hash
  std::string session;                    ///< the edit log's session of the fixes
  /// Outcomes with this status.
  int count(IssueFixOutcome::Status status) const;
};

/// The natural fix of `kind` for a batch (badly located: the predicted box).
IssueFix batchFix(IssueKind kind);

/// Reads the issues CSV at `csvPath` (and its companion when there is one), selects issues as
/// `selection` says, leaves out those the dataset marks "not an issue", and applies each one's
/// natural fix to its label file through `store` (whose root is the dataset's root). Fails only
/// when the CSV cannot be read.
Result<IssueFixReport> fixLabelIssues(const std::string& csvPath,
                                      const IssueFixSelection& selection, LabelStore& store);

}  // namespace stave::data
