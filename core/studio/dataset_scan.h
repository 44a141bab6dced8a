#pragma once
// The Dataset page's data: a scan of the project's dataset (every split, with the scan cache
// beside the dataset, so reopening is quick), reduced to what the page shows, and the problems
// as a table model. The scan runs on a BackgroundJob; Cancel stops it between splits.

#include <QAbstractTableModel>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <QVector>
#include <atomic>
#include <functional>
#include <memory>

namespace stave::studio {

/// What the Dataset page shows of a scanned dataset.
struct DatasetSummary {
  struct Split {
    QString name;
    qint64 images = 0, labelled = 0, background = 0, instances = 0, problems = 0;
    bool fromCache = false;
  };
  struct ProblemRow {
    QString split, file, kind, message;
    int line = 0;
    bool skipsImage = false;
  };
  QString yaml;                       ///< the data.yaml
  QString error;                      ///< why the dataset cannot be read ("" = it was)
  bool cancelled = false;             ///< Cancel was pressed before the end
  QStringList names;                  ///< class names
  QVector<Split> splits;              ///< train, val, test (those present)
  QVector<qint64> instancesPerClass;  ///< over all splits, by class id
  QVector<QPointF> boxSizes;          ///< box width × height, normalised (the first kMaxPoints)
  QVector<QPointF> imageSizes;        ///< image width × height in pixels (the first kMaxPoints)
  QVector<ProblemRow> problems;       ///< every problem, split by split
  static constexpr int kMaxPoints = 20000;
};

/// Scans `dataYaml`: all splits; `cancel` is checked between splits, `progress(done, total)`
/// after each. Never throws for bad input: the error names the file.
DatasetSummary scanDataset(const QString& dataYaml, const std::atomic<bool>* cancel = nullptr,
                           const std::function<void(int, int)>& progress = {});

/// The problems of a summary as a table: split, file:line, kind, message.
class ProblemsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Roles { FileRole = Qt::UserRole + 1, LineRole, KindRole };
  enum Column { SplitColumn, FileColumn, KindColumn, MessageColumn, ColumnCount };
  using QAbstractTableModel::QAbstractTableModel;
  void setProblems(QVector<DatasetSummary::ProblemRow> rows);
  const DatasetSummary::ProblemRow& row(int r) const { return m_rows[r]; }
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  QVector<DatasetSummary::ProblemRow> m_rows;
};

}  // namespace stave::studio
