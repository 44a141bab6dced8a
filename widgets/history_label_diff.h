#pragma once
// History's "Labels" comparison: how many label files, and which, differ between the datasets of
// two selected runs — from the dataset's edit log (core/data/label_history.h), read on a thread
// of its own — so "the mAP went up after fixing 37 labels" can be seen beside the curves.

#include <QWidget>

#include "core/store/store.h"

class QLabel;
class QListWidget;

namespace stave::studio {
class BackgroundJob;
}

namespace stave::widgets {

/// The label files two runs' datasets differ in: a sentence and the list of files.
class HistoryLabelDiff : public QWidget {
  Q_OBJECT
 public:
  explicit HistoryLabelDiff(QWidget* parent = nullptr);

  /// Compares the datasets of runs `a` (the earlier) and `b`, off the window's thread; the
  /// sentence says so until the answer comes. The same two runs, unchanged, are not read again
  /// (the page's periodic refresh).
  void compare(const store::RunRecord& a, const store::RunRecord& b);
  /// Shows `text` and no files (fewer than two runs selected).
  void clear(const QString& text);

  /// The sentence ("37 label files differ between these runs' datasets ...").
  QLabel* summary() const { return m_summary; }
  /// The files, relative to the dataset's root.
  QListWidget* files() const { return m_files; }
  /// Whether a comparison is still being read.
  bool busy() const;

 signals:
  /// A comparison was shown: `count` files differ (-1: cannot tell).
  void compared(int count);

 private:
  QLabel* m_summary;
  QListWidget* m_files;
  studio::BackgroundJob* m_job;
  QString m_shown;  ///< the runs (ids, hashes, starts) of the comparison shown or being read
};

}  // namespace stave::widgets
