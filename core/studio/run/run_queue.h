#pragma once
// RunQueue: runs of the open project waiting for their GPUs. The head of the queue starts when
// the GPUs it asks for are free — no lease held by another live Stave run on this machine (any
// project: GpuLeases) and NVML memory use below a threshold — and the next one when it ends. A
// machine without GPUs runs one queued run at a time (the "cpu" lease). The queue lives in
// queue.json beside the project file, written atomically at every change, so queued runs
// survive a studio restart and a run still training is followed again. The GPUs come from the
// studio's HardwareMonitor (NVML on its threads); the lease files are read on a worker thread,
// never on the GUI thread.

#include <QAbstractListModel>
#include <QDateTime>
#include <QHash>
#include <QTimer>
#include <functional>
#include <memory>
#include <vector>

#include "core/studio/run/gpu_lease.h"

namespace stave::studio {

class BackgroundJob;
class HardwareMonitor;
class ProjectDocument;
class RunSession;
class RunSessions;

/// One queued run.
struct QueueEntry {
  /// Kept in the queue file by name (stateKey()).
  enum class State { Queued, Waiting, Starting, Running, Finished, Failed, Cancelled };
  QString id;             ///< unique within the queue
  QString config;         ///< the project's config to run
  int nproc = 1;          ///< ranks (GPUs)
  QStringList overrides;  ///< key=value for this run
  State state = State::Queued;
  QString runDir;         ///< once started
  QStringList resources;  ///< leased ("gpu0", ... or "cpu")
  QString message;        ///< what it waits for, or how it ended
  QDateTime queuedAt;
};

class RunQueue : public QAbstractListModel {
  Q_OBJECT
 public:
  enum Roles { IdRole = Qt::UserRole + 1, ConfigRole, StateRole, RunDirRole, MessageRole };
  /// One GPU as last measured.
  struct GpuState {
    int index = 0;
    bool free = true;
    QString why;  ///< why it is not free
  };
  /// A measurement: the GPUs (empty without NVML) and who holds the "cpu" lease.
  struct Probe {
    std::vector<GpuState> gpus;
    QString cpuHolder;
    QString problem;  ///< why NVML is unavailable
  };
  /// Follows its runs through `sessions` (the studio's: one reader per run folder, shared with
  /// the Run page); null: a registry of its own.
  explicit RunQueue(ProjectDocument* doc, RunSessions* sessions = nullptr, QObject* parent = nullptr);
  ~RunQueue() override;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  /// Adds a run of `config` with `nproc` ranks; false with `error` when no project is open.
  bool enqueue(const QString& config, int nproc, const QStringList& overrides = {},
               QString* error = nullptr);
  /// Cancels a queued entry (a running one is stopped through the Run page, not here).
  bool cancel(int row);
  /// Moves a queued entry up (-1) or down (+1) among the entries.
  bool move(int row, int delta);
  const std::vector<QueueEntry>& entries() const { return m_entries; }
  /// Entries not ended yet (queued, waiting, starting or running).
  int pendingCount() const;
  /// Measures the GPUs and leases on a worker thread, then follows the running entry and starts
  /// the head when its GPUs are free (the timer does this every `interval` ms). A measurement
  /// still in flight makes this a no-op; `measured` is emitted when one has been applied.
  void tick();
  void setInterval(int ms) { m_timer.setInterval(ms); }
  /// The share of a GPU's memory in use above which it is not free (default 0.1).
  void setMemoryThreshold(double fraction) { m_memoryThreshold = fraction; }
  /// Where the GPUs are read: the studio's one HardwareMonitor (the Hardware page's), so one
  /// NVML sampler runs per studio. Set before the first tick(); unset, the queue makes one of
  /// its own at its first tick. The queue starts it.
  void setHardware(HardwareMonitor* hardware) { m_hardware = hardware; }
  void setLeases(const GpuLeases& leases) { m_leases = leases; }
  /// The sessions the queue starts and follows its runs in.
  RunSessions* sessions() const { return m_sessions; }
  /// "2/4 GPUs free", "CPU free" or "CPU busy", as last measured.
  QString freeText() const { return m_freeText; }
  /// Where the queue is kept ("" when no project is open).
  QString queueFile() const;
  /// Problem reading the queue file, "" when none.
  QString loadProblem() const { return m_loadProblem; }
  /// The state as shown ("queued", "waiting", ...), translated.
  static QString stateName(QueueEntry::State state);
  /// The state as kept in the queue file ("queued", "waiting", ...), not translated.
  static QString stateKey(QueueEntry::State state);
  /// The latest measurement of the GPUs and leases.
  const Probe& lastProbe() const { return m_probe; }

 signals:
  /// A queued run was started in `runDir`: its folder made and its process running (the Run
  /// page shows it).
  void runStarted(const QString& runDir);
  void freeTextChanged(const QString& text);
  void message(const QString& text);
  /// A measurement of the GPUs and leases was applied (after tick()).
  void measured();

 private:
  void load();
  void save();
  void changed(int row);
  void apply(Probe probe);
  void startHead();
  /// What the head entry's start needs from the disk, found on m_prepare's thread: the
  /// pre-flight's blocking problems, a fresh run folder name and the leases taken for it.
  struct PreparedStart {
    QString blocking;       ///< why the run would fail ("" = none)
    QString runDir;         ///< its folder (not made yet)
    bool acquired = false;  ///< the leases were taken for runDir
    QString why;            ///< why not (a busy resource and its holder)
  };
  /// Starts entry `id` as prepared (or fails it, or lets it wait), unless it changed meanwhile.
  void startPrepared(const QString& id, const QString& projectFile, const QStringList& overrides,
                     const QStringList& resources, const PreparedStart& prepared);
  // Follows the started entry; true when one ended (its leases are free again).
  bool followRunning();
  /// The session of a started entry's run folder (held by the queue until the entry ends).
  RunSession* sessionOf(const QString& runDir, QString* error);
  void releaseSession(const QString& runDir);
  QString toStored(const QString& runDir) const;
  QString fromStored(const QString& runDir) const;
  ProjectDocument* m_doc;
  RunSessions* m_sessions;
  QHash<QString, RunSession*> m_held;  ///< run folder → session, of the entries started
  GpuLeases m_leases;
  HardwareMonitor* m_hardware = nullptr;  ///< the studio's, or a child of the queue's own
  double m_memoryThreshold = 0.1;
  std::vector<QueueEntry> m_entries;
  QTimer m_timer;
  QString m_freeText;
  QString m_loadProblem;
  int m_nextId = 1;
  Probe m_probe;                         // the latest measurement
  std::unique_ptr<BackgroundJob> m_prepare;  // prepares the head's start (startHead)
  std::unique_ptr<BackgroundJob> m_job;  // last: joined first on destruction
};

}  // namespace stave::studio
