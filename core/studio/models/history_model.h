#pragma once
// HistoryModel: the project's experiment history (core/store's database) as a Qt table model,
// with the queries and actions the History page needs: curves of several runs, the config
// diff, the hyperparameters for parallel coordinates, annotations, delete, CSV export, and
// "new config from this run". QtCore only. The work on selected runs done on threads of their
// own (curves, removals, annotations) is in history_model_jobs.cpp.

#include <QAbstractTableModel>
#include <QList>
#include <QString>
#include <QStringList>
#include <QVector>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "core/config/run_config.h"
#include "core/store/store.h"

namespace stave::studio {

class BackgroundJob;

/// One point of an overlaid curve: x as chosen (epoch, wall seconds since start, images seen).
struct CurvePoint {
  double x = 0;
  double y = 0;
};

/// What the x axis of an overlay counts.
enum class CurveAxis { Epoch, WallTime, ImagesSeen };

/// The selected runs' curves of one metric, as HistoryModel::readCurves read them.
struct HistoryCurves {
  QList<int64_t> ids;    ///< the runs asked for (database ids), in the order asked
  QStringList keys;      ///< the metric keys any of them has, sorted
  QString key;           ///< the metric read: the first preferred one they have, else keys[0]
  CurveAxis axis = CurveAxis::Epoch;
  QList<QVector<CurvePoint>> points;  ///< per id: its curve of `key` (empty when it has none)
  QString error;         ///< why the database could not be read ("" when it was)
};

class HistoryModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    Name,
    Status,
    Started,
    Duration,
    Model,
    Imgsz,
    Epochs,
    GlobalBatch,
    BestMap5095,
    SamplesPerSec,
    Tags,
    ColumnCount
  };
  /// Data role with the raw value for sorting (numbers as numbers, times as seconds).
  static constexpr int SortRole = Qt::UserRole + 1;

  explicit HistoryModel(QObject* parent = nullptr);
  ~HistoryModel() override;

  /// Opens `<projectDir>/stave.db` (creating or migrating it) and shows the runs it holds;
  /// what is new under `<projectDir>/runs` is read by refreshInBackground(), started here
  /// (a day-long run's first reading takes seconds: never on the GUI thread). On failure the
  /// model is empty and `error` names the file and the cause.
  bool open(const QString& projectDir, QString* error = nullptr);
  /// open() on a thread of its own: the database opened (created or migrated) and its runs
  /// read there, then shown here (modelReset) and refreshed() emitted; what is new under runs/
  /// follows (refreshInBackground). isOpen() is false until then; a failure empties the model
  /// and is said by refreshed(error). The GUI never waits for the store or the run folders.
  void openInBackground(const QString& projectDir);
  /// Closes the database; the model becomes empty.
  void close();
  bool isOpen() const { return m_store != nullptr; }
  /// Ingests what is new under runs/ and reloads the rows (selection-preserving resets are the
  /// view's business). Returns false with `error` when the database refused.
  bool refresh(QString* error = nullptr);
  /// refresh() on a thread of its own (with its own connection to the database), the rows and
  /// their folders read there too; they are shown here when it is done, then refreshed() is
  /// emitted. A call while one is running makes it run once more after (refreshed() then
  /// follows that run: what it says is never older than the call).
  void refreshInBackground();
  /// True while a background refresh runs.
  bool refreshing() const;
  /// Warnings of the last ingestion (skipped lines, naming file and line).
  QStringList warnings() const { return m_warnings; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  /// The run of row `row` (as the model orders them: newest first).
  const store::RunRecord& run(int row) const { return m_runs.at(static_cast<size_t>(row)); }
  /// Whether the run's folder no longer exists (checked when the runs are read or refreshed).
  bool folderMissing(int row) const { return m_marks.missing.at(static_cast<size_t>(row)); }
  /// Whether the run's folder has a cluster record: its weights may be fetched from a cluster
  /// behind SSH (checked with folderMissing, off the GUI thread).
  bool mayBeRemote(int row) const { return m_marks.remote.at(static_cast<size_t>(row)); }
  /// The row of the run with database id `id`, -1 if none.
  int rowOfId(int64_t id) const;
  /// Display name: the title, else the folder name.
  static QString displayName(const store::RunRecord& r);
  /// A status as shown ("completed", "early-stopped", "crashed", ...), translated.
  static QString statusName(const std::string& status);

  /// Reads, on a thread of its own (with its own connection to the database), the metric keys
  /// `rows` have (train/box_loss, metrics/mAP50-95(B), step/...) and each one's curve of the
  /// first of `preferred` they have (else the first key) against `axis`; curvesRead() brings
  /// them here. A newer call drops the result of an older one: what comes is what was asked
  /// last (a selection changed meanwhile is never drawn).
  void readCurves(const QList<int>& rows, const QStringList& preferred, CurveAxis axis);
  /// True while readCurves' result has not come.
  bool readingCurves() const;
  /// Config keys whose values are not the same in all `rows` (a key missing in one counts as
  /// different); for each, the values as text in the order of `rows`.
  QList<QPair<QString, QStringList>> configDiff(const QList<int>& rows) const;
  /// Numeric config keys whose values differ among `rows` (the parallel-coordinates axes).
  QStringList numericVaryingKeys(const QList<int>& rows) const;
  /// A numeric config value of a run (NaN when the key is missing or not a number).
  double configNumber(int row, const QString& key) const;

  /// Annotations (written to the run folder and the database).
  bool setTitle(int row, const QString& title, QString* error = nullptr);
  bool setTags(int row, const QStringList& tags, QString* error = nullptr);
  bool setNotes(int row, const QString& notes, QString* error = nullptr);
  /// Deletes the run: its folder under runs/ (the folder must be inside the project's runs/)
  /// and its rows. Refused for a run that is still going.
  bool removeRun(int row, QString* error = nullptr);
  /// removeRun() on a thread of its own (with its own connection): a day-long run's folder and
  /// rows take seconds to remove. A run still going is refused here and now (false, `error`);
  /// otherwise runRemoved() follows, one removal after the other in the order asked.
  bool removeRunInBackground(int row, QString* error = nullptr);
  /// The title, tags and notes of the run in `row` saved on a thread of its own (the database and
  /// the run's annotations.json, written atomically), in order with removals; annotated()
  /// follows, and the row shows them once saved.
  void annotateInBackground(int row, const QString& title, const QStringList& tags, const QString& notes);
  /// True while a removal or a save asked in the background has not ended.
  bool writing() const;
  /// The run's resolved config, as a config the project can hold.
  bool configOf(int row, config::RunConfig* out, QString* error = nullptr) const;
  /// Writes the table (all rows, model order) as CSV, atomically.
  bool exportCsv(const QString& path, QString* error = nullptr) const;

  QString projectDir() const { return m_projectDir; }

 signals:
  /// A background refresh is done (`error` empty when it succeeded).
  void refreshed(const QString& error);
  /// The curves readCurves() was asked for last (queued from its thread).
  void curvesRead(const stave::studio::HistoryCurves& curves);
  /// A removal asked by removeRunInBackground ended: the run `name` (database id `id`) is gone
  /// from its folder, the database and the rows, or `error` says why not.
  void runRemoved(qint64 id, const QString& name, const QString& error);
  /// A save asked by annotateInBackground ended (`error` empty when it was saved).
  void annotated(qint64 id, const QString& name, const QString& error);

 private:
  /// What the disk says of each run's folder, one entry per row (a stat or two each: read where
  /// the runs were read).
  struct FolderMarks {
    std::vector<bool> missing;  ///< the folder is gone
    std::vector<bool> remote;   ///< it holds a cluster record (WeightsFetch::mayBeRemote)
    bool operator==(const FolderMarks& o) const { return missing == o.missing && remote == o.remote; }
    void erase(size_t row) {
      missing.erase(missing.begin() + static_cast<std::ptrdiff_t>(row));
      remote.erase(remote.begin() + static_cast<std::ptrdiff_t>(row));
    }
  };
  void reload();
  /// Applies what an ingestion found (warnings; reload when something changed).
  void applyIngest(int runsUpdated, const QStringList& warnings);
  /// Shows `runs` (read off this thread with their folders' `marks`): a reset when the runs
  /// changed, else only the folder marks.
  void applyRuns(std::vector<store::RunRecord> runs, FolderMarks marks, bool changed);
  /// Whether each run's folder is gone, or a cluster run's (done where the runs were read).
  static FolderMarks folderMarks(const std::vector<store::RunRecord>& runs);
  BackgroundJob* m_ingest;       ///< refreshInBackground's thread
  std::shared_ptr<store::Store> m_ingestDb;  ///< its connection (nullptr until the first)
  bool m_ingestAgain = false;    ///< asked for while one ran
  quint64 m_generation = 0;      ///< which project a refresh in flight belongs to
  /// Re-checks which run folders exist; true when any changed.
  bool checkFolders();
  /// Removes the run's folder (only one inside the project's runs/) and its rows from `db`;
  /// "" when done, else why not. File and database work: the caller's thread.
  static QString removeFilesAndRows(const QString& projectDir, const store::RunRecord& r, store::Store& db);
  /// A removal or a save of annotations asked, not started yet.
  struct PendingWrite {
    store::RunRecord run;  ///< the run as it was asked for
    bool remove = false;   ///< remove it, else annotate it with:
    std::string title;
    std::vector<std::string> tags;
    std::string notes;
  };
  /// Starts the next write of m_writes when none runs.
  void startWrite();
  /// Shows what a write did to the run `id` (its row removed or annotated).
  void applyWrite(const PendingWrite& w, const QString& error);
  BackgroundJob* m_write;              ///< the thread of removals and saves, one after the other
  std::deque<PendingWrite> m_writes;  ///< asked, not started
  BackgroundJob* m_query;        ///< readCurves' thread
  /// readCurves' connection to the database (one per project), handed from job to job: a job
  /// takes it and gives it back; a job that finds it taken (one let go while blocked) opens its
  /// own.
  struct QueryDb {
    std::mutex mutex;
    std::unique_ptr<store::Store> db;
  };
  std::shared_ptr<QueryDb> m_queryDb;
  std::unique_ptr<store::Store> m_store;
  std::vector<store::RunRecord> m_runs;
  FolderMarks m_marks;  ///< per row
  QString m_projectDir;
  QStringList m_warnings;
};

}  // namespace stave::studio
