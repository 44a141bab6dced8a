#pragma once
// RunSession: the one owner of a followed run folder in a studio — its process or Slurm job, its
// reader, what the run's events say of its state (a RunController fixed to that folder) and its
// chart points (a SeriesStore every view draws from).
// RunSessions: the studio's registry of them, one session per run folder whatever shows it (the
// Run page, the queue, the status bar): a second view of a run shares its reader instead of
// tailing events.jsonl again. A session lives while someone holds it, or while its process does
// (a run being stopped keeps its grace period). QtCore only.

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QString>
#include <QStringList>
#include <functional>

#include "core/studio/models/series_store.h"
#include "core/studio/run/run_controller.h"

namespace stave::studio {

class BackgroundJob;
struct ClusterProfile;

/// One followed run folder: its controller (process or job, reader, outcome) for every view.
class RunSession : public QObject {
  Q_OBJECT
 public:
  /// The run folder (absolute); "" until the run's folder is known (a submission names it).
  QString runDir() const { return m_run->runDir(); }
  QString runId() const { return m_run->runId(); }
  /// The process or job, the reader and the run's outcome.
  RunController* controller() const { return m_run; }
  /// Whoever holds the session now (views, the queue).
  int holders() const { return static_cast<int>(m_holders.size()); }
  /// Whether some holder draws the run's charts (then steps and samples are decoded).
  bool chartsWanted() const { return !m_chartHolders.isEmpty(); }
  /// The run's chart points, filled from the reader's decoded events and the history store:
  /// every view draws these (a second view shares them instead of reading the run again).
  SeriesStore* series() const { return m_series; }
  /// How often the run was read again from its first event for a view (replayed()).
  int replays() const { return m_replays; }
  /// A time chart shows [lo, hi] (seconds since the start) `columns` pixels wide: within the
  /// part of a run opened from the history store that is held as 10 s buckets, where a bucket
  /// is two pixels wide or more, the samples of that range and a quarter of it on each side
  /// are read again from events.jsonl on a thread of their own (readSampleDetail) into the
  /// store, drawn there by every view instead of the buckets. One window at a time; a range
  /// asked for while one is read is read after it.
  void wantDetail(double lo, double hi, int columns);
  /// Whether a zoomed range is being read.
  bool detailLoading() const;

 signals:
  /// A zoomed range could not be read (the error names the file).
  void detailFailed(const QString& error);
  /// The run's events were read again from the start for a view that draws them (steps and
  /// samples are handed on once, then dropped): views rebuild from eventsAppended(0).
  void replayed();

 private:
  friend class RunSessions;
  explicit RunSession(RunController* run, QObject* parent);
  /// The controller handed on events from `first` on: their points into the store.
  void feed(int first);
  RunController* m_run;
  SeriesStore* m_series;
  BackgroundJob* m_detailJob;                ///< reads a zoomed range's samples
  double m_detailLo = 0, m_detailHi = -1;    ///< the range read (or being read)
  double m_nextLo = 0, m_nextHi = -1;        ///< a range asked for while one was read
  int m_nextColumns = 0;
  quint64 m_detailRun = 0;  ///< counts the run's reads from the start: older detail is dropped
  int m_replays = 0;
  QSet<QObject*> m_holders;
  QSet<QObject*> m_chartHolders;
  bool m_opening = true;  ///< being attached or started: not ended for want of holders yet
};

/// The studio's sessions by run folder, and the settings every new one's controller takes.
class RunSessions : public QObject {
  Q_OBJECT
 public:
  explicit RunSessions(QObject* parent = nullptr);
  ~RunSessions() override;

  /// What a holder wants of a run: its state only (the queue), or its charts too (a page).
  enum class Need { State, Charts };

  /// The session of `runDir`, made (and the folder attached) when there is none; `holder`
  /// holds it until release() or its destruction. nullptr with `error` when the folder is not
  /// one. A holder that wants the charts of a run already read without them gets a replay.
  RunSession* follow(const QString& runDir, QObject* holder, Need need = Need::Charts,
                     QString* error = nullptr);
  /// Starts a run (RunController::start) in a new session held by `holder`; nullptr with
  /// `error` when it cannot start.
  RunSession* start(const QString& projectFile, const QString& configName, int nproc,
                    const QStringList& overrides, QObject* holder, Need need = Need::Charts,
                    QString* error = nullptr, const QString& runDir = {});
  /// Sends a run to the cluster of `profile` (RunController::submit) in a new session.
  RunSession* submit(const ClusterProfile& profile, const QString& projectFile,
                     const QString& configName, const QStringList& overrides, QObject* holder,
                     QString* error = nullptr);
  /// `holder` no longer follows `session` (null: nothing). A session nobody holds ends once
  /// its process is not alive.
  void release(RunSession* session, QObject* holder);
  /// The session of `runDir`, nullptr when none follows it.
  RunSession* find(const QString& runDir) const;
  /// Every session (one per run folder).
  QList<RunSession*> sessions() const;

  // The settings of every session's controller (now and later ones).
  void setExecutable(const QString& path);
  QString executable() const { return m_exe; }
  void setGracePeriod(double seconds);
  void setPollInterval(int ms);
  /// How often a cluster run's job is asked for its state (ms; 0: ClusterJob's default).
  void setClusterPollInterval(int ms);
  void setStorePath(const QString& dbPath);
  QString storePath() const { return m_storePath; }
  void setStoredRunBytes(qint64 bytes);

 signals:
  /// A session was made (`session` new) or ended (about to be deleted).
  void sessionAdded(RunSession* session);
  void sessionRemoved(RunSession* session);

 private:
  RunSession* make();
  /// Finishes follow/start/submit: `s` indexed and held, or ended when it did not open.
  RunSession* opened(RunSession* s, bool ok, QObject* holder, Need need);
  void hold(RunSession* s, QObject* holder, Need need);
  /// Keyed by its folder once it has one.
  void index(RunSession* s);
  /// Ends `s` when nobody holds it and its process is not alive.
  void reap(RunSession* s);
  void configure(RunController* c) const;
  QHash<QString, RunSession*> m_byDir;
  QList<RunSession*> m_all;
  QString m_exe;
  double m_grace = -1;
  int m_pollMs = 0;
  int m_clusterPollMs = 0;
  QString m_storePath;
  qint64 m_storedRunBytes = -1;
};

}  // namespace stave::studio
