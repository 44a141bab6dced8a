#pragma once
// The Dataset page's data: a scan of the project's dataset (every split, with the scan cache
// beside the dataset, so reopening is quick), reduced to what the page shows — counts, class
// histogram, sampled box and image sizes, the problems as a table model, and one entry per image
// for the gallery. DatasetScan runs it on a thread it owns, with progress and Cancel.

#include <QAbstractTableModel>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <QVector>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "core/data/dataset.h"

namespace stave::studio {

class BackgroundJob;

/// One image of the dataset as the gallery shows it: usable ones with their valid boxes, and
/// those the scan left out (unreadable, truncated, too large) with usable = false.
struct GalleryImage {
  QString path;                  ///< the image, absolute
  QString labelPath;             ///< its label file (which may not exist)
  int split = 0;                 ///< index into DatasetSummary::splits
  int width = 0;                 ///< displayed width in pixels (0 when unusable)
  int height = 0;                ///< displayed height in pixels
  std::vector<data::Box> boxes;  ///< the valid label rows
  QStringList problemKinds;      ///< distinct kinds of the problems of the image or its label
  bool usable = true;            ///< false: the scan left the image out of training
};

/// What the Dataset page shows of a scanned dataset.
struct DatasetSummary {
  struct Split {
    QString name;
    qint64 images = 0, labelled = 0, background = 0, instances = 0, problems = 0;
    qint64 skipped = 0;  ///< entries left out (unreadable, duplicate, too large)
    bool fromCache = false;
  };
  struct ProblemRow {
    QString split, file, kind, message;
    int line = 0;
    bool skipsImage = false;
    int image = -1;  ///< index into `images` of the image it concerns, -1 when none
  };
  QString yaml;                       ///< the data.yaml
  QString error;                      ///< why the dataset cannot be read ("" = it was)
  bool cancelled = false;             ///< Cancel was pressed before the end
  QStringList names;                  ///< class names
  QVector<Split> splits;              ///< train, val, test (those present)
  QVector<qint64> instancesPerClass;  ///< over all splits, by class id
  qint64 boxes = 0;                   ///< all valid boxes (the scatters hold a sample)
  QVector<QPointF> boxSizes;          ///< box width × height, normalised (a sample, kMaxPoints)
  QVector<double> boxAspects;         ///< width / height in pixels of the same sampled boxes
  QVector<QPointF> imageSizes;        ///< image width × height in pixels (a sample, kMaxPoints)
  QVector<ProblemRow> problems;       ///< every problem, split by split
  QStringList problemKinds;           ///< the distinct problem kinds, sorted
  /// Every image, split by split (shared with the gallery model; never null after a scan).
  std::shared_ptr<const std::vector<GalleryImage>> images;
  /// The train split as scanned (the augmentation preview's loader reads it); may be null.
  std::shared_ptr<const data::SplitIndex> train;
  /// Whether every split came from the scan cache.
  bool fromCache() const;
  static constexpr int kMaxPoints = 20000;
};

/// Progress of a scan: the split being scanned, images done of its total.
using ScanProgress = std::function<void(const QString& split, qint64 done, qint64 total)>;

/// Scans `dataYaml`: all splits, on the scan's own threads; `cancel` is checked for every
/// image. Never throws for bad input: the error names the file.
DatasetSummary scanDataset(const QString& dataYaml, const std::atomic<bool>* cancel = nullptr,
                           const ScanProgress& progress = {}, bool useCache = true);

/// Runs scanDataset on a thread of its own; progress and the result arrive on the owner's thread.
/// Starting again cancels the scan in flight and never waits for it (a file on a hung mount can
/// block it for good); the destructor cancels it and lets it go after a bounded wait.
class DatasetScan : public QObject {
  Q_OBJECT
 public:
  explicit DatasetScan(QObject* parent = nullptr);
  ~DatasetScan() override;
  /// Scans `dataYaml` (cancelling a scan in flight first).
  void start(const QString& dataYaml, bool useCache = true);
  /// Asks the scan in flight to stop; finished() follows with a cancelled summary.
  void cancel();
  /// True from start() until finished() has been emitted.
  bool isRunning() const { return m_running; }
  /// The last finished scan (null before the first).
  std::shared_ptr<const DatasetSummary> summary() const { return m_summary; }

 signals:
  /// `done` of `total` images of `split` checked.
  void progress(const QString& split, qint64 done, qint64 total);
  /// The scan ended (finished, failed or cancelled): summary() holds it.
  void finished();

 private:
  /// What the scan's thread posts its progress through; cleared by the destructor.
  struct Post {
    std::mutex mutex;
    DatasetScan* owner = nullptr;
  };
  BackgroundJob* m_job;  ///< the scan's thread: a scan that does not end is let go, not joined
  std::shared_ptr<Post> m_post;
  std::shared_ptr<std::atomic<bool>> m_cancel;
  quint64 m_generation = 0;
  bool m_running = false;
  std::shared_ptr<const DatasetSummary> m_summary;
};

/// The problems of a summary as a table: split, file:line, kind, message.
class ProblemsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Roles { FileRole = Qt::UserRole + 1, LineRole, KindRole, ImageRole };
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
