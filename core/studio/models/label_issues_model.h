#pragma once
// The Label issues view's data: the ranked rows of an issues CSV (`stave-train label-issues`),
// less those marked "not an issue" for this dataset, each with what became of it (fixed, not an
// issue, or why its fix failed). A fix is applied to the label file on a thread of its own
// through LabelStore (atomic write, original kept, edit log; a file changed since is refused).

#include <QAbstractTableModel>
#include <QStringList>
#include <QVector>
#include <memory>

#include "core/data/label_fixes.h"

namespace stave::studio {

class BackgroundJob;

class LabelIssuesModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    ImageColumn,
    KindColumn,
    ClassColumn,
    PredictedColumn,
    ScoreColumn,
    StateColumn,
    ColumnCount
  };
  enum Roles {
    ImagePathRole = Qt::UserRole + 1,  ///< the image, absolute
    LabelPathRole,                     ///< its label file
    KindRole,                          ///< the kind's name ("swapped")
    StateRole,                         ///< State as int
  };
  /// What became of an issue.
  enum class State { Open, Fixed, NotAnIssue, Failed };
  Q_ENUM(State)

  explicit LabelIssuesModel(QObject* parent = nullptr);
  ~LabelIssuesModel() override;

  /// Reads `csv` of the dataset at `root` with classes `names` in the background; loaded()
  /// follows. Issues remembered as "not an issue" are left out.
  void load(const QString& csv, const QString& root, const QStringList& names);
  QString csvPath() const { return m_csv; }
  QString root() const { return m_root; }
  QStringList names() const { return m_names; }
  /// The CSV's rows that could not be read ("file:line: why"), and why it could not be read.
  QStringList problems() const { return m_problems; }
  QString error() const { return m_error; }
  /// Issues left out because they were marked "not an issue".
  int dismissedCount() const { return m_dismissed; }

  const data::IssueRow& issue(int row) const { return m_rows[row].issue; }
  State state(int row) const { return m_rows[row].state; }
  QString imagePath(int row) const;
  QString labelPath(int row) const;

  /// Applies `fix` to issue `row`'s label file; fixed() or failed() follows.
  void applyFix(int row, data::IssueFix fix);
  /// Remembers issue `row` as not an issue (for this dataset); failed() if it cannot be kept.
  void markNotAnIssue(int row);
  /// Whether a fix is being written.
  bool busy() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 signals:
  void loaded();
  void fixed(int row, const QString& edit);
  void failed(int row, const QString& message);

 private:
  struct Row {
    data::IssueRow issue;
    State state = State::Open;
    QString note;  ///< the edit id, or why the fix failed
  };
  void setState(int row, State state, const QString& note);
  QString m_csv, m_root, m_error;
  QStringList m_names, m_problems;
  QVector<Row> m_rows;
  int m_dismissed = 0;
  BackgroundJob* m_loadJob;
  BackgroundJob* m_fixJob;
  struct Store;
  std::shared_ptr<Store> m_store;
};

/// The kind of issue as the studio says it ("Overlooked", "Swapped class", …).
QString issueKindText(data::IssueKind kind);

}  // namespace stave::studio
