#pragma once
// From a label issue to its fix: the issues CSV that `stave-train label-issues` writes read back,
// each issue's one-key fix applied to a label file's text (accept the prediction, delete the
// box, take the other class), and the issues the user marked "not an issue", remembered per
// dataset in <root>/.stave/not-issues.txt so they are not shown again.

#include <set>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/data/label_issues.h"

namespace stave::data {

/// One row of an issues CSV.
struct IssueRow {
  std::string image;                      ///< as written: relative to the dataset root, or absolute
  IssueKind kind{};                       ///< what is wrong
  int labelClass = -1;                    ///< the label box's class, -1 when none
  int predictedClass = -1;                ///< the prediction's class, -1 when none
  double score = 0;                       ///< 0..1
  double x1 = 0, y1 = 0, x2 = 0, y2 = 0;  ///< the box in pixels
  int line = 0;                           ///< its line in the CSV
  /// The prediction's box in pixels, when known (badly located: the CSV holds the label box;
  /// `label-issues` writes the prediction's beside it, see label_fix_batch.h).
  bool hasPredictedBox = false;
  double px1 = 0, py1 = 0, px2 = 0, py2 = 0;
};

/// The issues CSV read back; a row that cannot be read is a problem naming its line, the rest
/// is still read.
struct IssuesCsv {
  std::vector<IssueRow> rows;
  std::vector<Error> problems;
};
/// Reads an issues CSV (at most 256 MiB). Fails only when the file cannot be read or its
/// header is not the issues header.
Result<IssuesCsv> readLabelIssuesCsv(const std::string& path);

/// The kind named in a CSV ("swapped"), or false.
bool parseIssueKind(const std::string& text, IssueKind& kind);

/// The fixes an issue is one key away from.
enum class IssueFix {
  AcceptPrediction,  ///< overlooked: add the predicted box with its class
  DeleteBox,         ///< spurious (or any issue with a label box): remove the label box
  TakeOtherClass,    ///< swapped: give the label box the predicted class
  TakePredictedBox,  ///< badly located: the label box takes the prediction's box (its class kept)
};

/// The fix that suits `kind` best (badly located: none of these, it is edited by hand).
bool defaultFix(IssueKind kind, IssueFix& fix);

/// The label text with `fix` applied to the issue's box, for an image of `width` × `height`
/// pixels. Rows not concerned are kept verbatim. Fails, naming the label file, when the label
/// box the issue names is no longer in the file (no box of its class overlapping it at IoU 0.5)
/// or the fix does not apply to the issue (no predicted class to take, no label box to delete).
Result<std::string> applyIssueFix(const std::string& labelText, const std::string& labelPath,
                                  const IssueRow& issue, IssueFix fix, int width, int height);

/// The key under which an issue is remembered as "not an issue": image, kind, classes and the
/// box rounded to whole pixels.
std::string issueKey(const IssueRow& issue);
/// The "not an issue" keys of the dataset at `root` (none when the file is missing).
std::set<std::string> readDismissedIssues(const std::string& root);
/// Adds `issue` to them (the file written atomically); the error names the file.
Status dismissIssue(const std::string& root, const IssueRow& issue);

}  // namespace stave::data
