#pragma once
// RunController: starts `stave-train train` for a project as a detached ChildProcess (so the
// run outlives the studio: closing or crashing the window changes nothing for it), follows the
// run through runs/<id>/events.jsonl, stops it (SIGTERM, a grace period, then SIGKILL of its
// process group) and resumes it. The run folder records who runs it (launcher.json: pid,
// process start time, host, boot id) and how the process ended (exit_status, written by the
// small shell that waits for it), so a studio opened later tells a live run from a dead one —
// also for a folder copied from another machine. What the folder and /proc say of the process
// is read on a thread of its own, each poll tick (ProcessLook), never on the GUI thread; the
// controller keeps the last look. QtCore only; it never writes the event log.

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <memory>
#include <vector>

#include "core/studio/run/child_process.h"
#include "core/studio/process_outcome.h"
#include "core/studio/models/run_event.h"
#include "core/telemetry/events.h"

namespace stave::studio {

class BackgroundJob;
class ChildProcess;
class ClusterJob;
struct ClusterProfile;
struct StoredRun;

/// How a run ended (or that it has not): the studio's one outcome of a child process.
using RunOutcome = ProcessOutcome;

class RunController : public QObject {
  Q_OBJECT
 public:
  explicit RunController(QObject* parent = nullptr);
  ~RunController() override;

  /// stave-train beside the studio's binary (or in the build tree's app/), else on PATH; "" if none.
  static QString findTrainExecutable();
  /// The stave-train executable (default: findTrainExecutable()).
  void setExecutable(const QString& path) { m_exe = path; }
  QString executable() const { return m_exe; }
  /// Seconds between SIGTERM and SIGKILL when stopping (default 30).
  void setGracePeriod(double seconds);
  double gracePeriod() const;
  /// How often events.jsonl is read (ms, default 200).
  void setPollInterval(int ms);
  /// The project's history store: a run whose events.jsonl is larger than kStoredRunBytes is
  /// opened from it (what it holds drawn at once, only the file after that decoded; see
  /// loadStoredRun), then followed from there, while the store catches up on a thread of its
  /// own. "" (the default): events.jsonl is always read whole.
  void setStorePath(const QString& dbPath) { m_storePath = dbPath; }
  /// The size of events.jsonl from which a run is opened from the store (default
  /// kStoredRunBytes, 64 MB).
  void setStoredRunBytes(qint64 bytes) { m_storedRunBytes = bytes; }
  QString storePath() const { return m_storePath; }
  /// What the store held when the followed run was opened from it (nullptr when it was read
  /// from events.jsonl alone) — first, while the store reads a long log for the first time,
  /// a first look at the file (StoredRun::preview), then the store's. Set before
  /// eventsAppended(0); its events are in events(), and
  /// its series are the charts' to take (moved out by the page that draws them).
  std::shared_ptr<StoredRun> stored() const { return m_stored; }
  /// True while the followed run is being opened from the store.
  bool loadingStored() const { return m_loadingStored; }

  /// Starts a run of `projectFile`'s config `configName` in runs/<new id>/ with `nproc` ranks
  /// and extra key=value overrides. False with `error` when it cannot start (a local run of
  /// the controller still lives; a cluster job it follows goes on, and the new run is followed).
  /// `runDir` chooses the folder (newRunDir(); "" = a new one). True means starting: the run
  /// folder is made and the process started on a thread of its own, and launchDone() tells
  /// how that went (an error leaves the run FailedToStart, its folder followed no further).
  bool start(const QString& projectFile, const QString& configName, int nproc,
             const QStringList& overrides, QString* error = nullptr, const QString& runDir = {});
  /// Sends a run of `projectFile`'s config `configName` to the cluster of `profile` (its exported
  /// sbatch file, submitted with sbatch on a thread of its own) and follows it: the run folder
  /// (runs/<new id>, on the profile's shared run folder) as any run, the job through cluster().
  /// False with `error` when it cannot be sent; a refusal by Slurm ends it FailedToStart.
  bool submit(const ClusterProfile& profile, const QString& projectFile, const QString& configName,
              const QStringList& overrides, QString* error = nullptr);
  /// The Slurm job of the followed run folder (isCluster() false for a local run).
  ClusterJob* cluster() const { return m_cluster; }
  /// A fresh run folder under the project's runs/: run-<time>, -2, -3 ... when taken.
  static QString newRunDir(const QString& projectFile);
  /// Continues the followed run (resume=true), with `epochs` > 0 setting a new total. A cluster
  /// run is resubmitted to its cluster profile. A local run's process is started off this
  /// thread: launchDone() follows a true (at once for a cluster run); an error there brings
  /// back the outcome before.
  bool resume(int epochs = 0, QString* error = nullptr);
  /// Asks the run to stop: SIGTERM now, SIGKILL of its process group after the grace period.
  /// A cluster run: scancel --signal=TERM (a pending job is cancelled). A local run's record
  /// is read and its process signalled off this thread: stopDone() follows a true (at once
  /// when there is nothing to wait for), with the error when the process could not be signalled.
  bool stop(QString* error = nullptr);
  /// Where the first read of an attached run is done.
  enum class FirstRead {
    Here,    ///< at once, on this thread (up to 4 MB; the rest on the reader's), after checking
             ///< there that the folder is one (tests, tools)
    Reader,  ///< on the reader's thread (eventsAppended and stateChanged tell when it is applied),
             ///< and the folder looked at there too: one that is not a folder is told by warning()
             ///< and left (runDir() empty again)
  };
  /// Follows an existing run folder from its first event (live or not). Whether its process
  /// lives is looked at off this thread: outcome() and isLive() say so once stateChanged() is
  /// emitted for it.
  bool attach(const QString& runDir, QString* error = nullptr, FirstRead first = FirstRead::Here);
  /// Stops following (the run itself goes on).
  void detach();
  /// Reads the followed run again from its first event (a view that draws its steps and
  /// samples came after they were handed on); the process, job and outcome stay as they are.
  void reread();

  /// The followed run folder ("" when none).
  QString runDir() const { return m_runDir; }
  QString runId() const;
  /// Whether the followed run's process is alive, as the last look at it said (a run just
  /// started counts as alive until a look after its start says otherwise).
  bool isLive() const;
  RunOutcome outcome() const { return m_outcome; }
  /// The outcome in words ("completed", "stopped", "failed: <message>", "crashed (SIGKILL)").
  QString outcomeText() const;
  /// The failing event's hint, if any.
  QString outcomeHint() const { return m_hint; }
  /// The events read so far, in file order, with their data decoded on the reader's thread,
  /// but the high-rate ones (step, *_sample): those are in events() only while eventsAppended
  /// is emitted for them (the charts take them then).
  const std::vector<RunEvent>& events() const { return m_events; }
  /// Whether anything of the followed run has been read (or is being opened from the store).
  bool hasRead() const { return m_offset > 0 || m_reading || m_stored || m_loadingStored; }
  /// Whether a read since attach() reached the end of events.jsonl: the outcome is the file's
  /// (before, a run that ended may still read as not begun).
  bool caughtUp() const { return m_caughtUp; }
  /// Whether the followed run has written a checkpoint (what a resume continues from).
  bool hasCheckpoint() const;
  /// Reads the next piece (up to 4 MB) of what is new now, on this thread; skipped while the
  /// timer's read is in flight. The process is looked at off this thread: what the look says
  /// (an end without a final event, a failure) comes later, with stateChanged().
  void poll();
  /// What the timer does: reads and decodes what is new on a thread of its own, piece by
  /// piece, and applies each piece here (eventsAppended, stateChanged).
  void pollInBackground();

  /// One piece of events.jsonl, read and decoded into typed events (off the GUI thread).
  struct EventBatch {
    std::vector<RunEvent> events;
    QStringList warnings;   ///< lines skipped, naming events.jsonl:<line>
    qint64 offset = 0;      ///< where the next read starts
    qint64 lineNo = 0;      ///< lines read so far
    bool missing = false;   ///< the file cannot be read
    bool replaced = false;  ///< shorter than before: read from the start
    bool more = false;      ///< there is more to read now
  };
  /// Reads up to 4 MB of whole lines of `path` from `offset` and decodes them (decodeRunEvent); `lowRateOnly`
  /// skips the step and *_sample lines undecoded (told by the type at the line's end).
  static EventBatch readEvents(const QString& path, qint64 offset, qint64 lineNo, bool lowRateOnly = false);
  /// Follows the run's state only (the queue's controller): step and sample lines are skipped
  /// undecoded, and nothing high-rate reaches events().
  void setLowRateOnly(bool on) { m_lowRateOnly = on; }

  /// What the run folder and /proc say of the followed run's process: read on the watch's thread
  /// (lookAt), judged on the controller's.
  struct ProcessLook {
    bool folder = true;         ///< the run folder is a folder
    qint64 logSize = 0;         ///< the size of events.jsonl (asked on the first look only)
    bool clusterRecord = false; ///< the folder holds a cluster job record (first look only)
    bool live = false;          ///< ChildProcess::alive
    LauncherRecord record;      ///< launcher.json (or launcher.pid)
    DetachedExit exit;          ///< exit_status, or whether its shell still waits
    QStringList launcherLog;    ///< launcher.log's last lines, when it exited with a code != 0
    bool startingAtLaunch = false;  ///< the process was still being started when it was asked for
  };
  /// Looks at `runDir`'s process (counted as OffGuiRead::RunProcess): `firstLook` adds whether it
  /// is a folder and the size of its events.jsonl; `logTail` reads launcher.log's last lines
  /// when the process exited with a code other than 0.
  static ProcessLook lookAt(const QString& runDir, bool firstLook, bool logTail);

  /// Run folders under `<projectDir>/runs` whose process is alive.
  static QStringList liveRuns(const QString& projectDir);
  /// Words for an outcome.
  static QString outcomeName(RunOutcome outcome);

 signals:
  /// Events from index `first` on were appended to events().
  void eventsAppended(int first);
  /// Live/ended/outcome changed.
  void stateChanged();
  /// Something the user should read (skipped lines, a removed event log).
  void warning(const QString& text);
  /// The process of a start() or resume() that returned true was started (""), or could not
  /// be (why, naming the program or folder).
  void launchDone(const QString& error);
  /// A stop() that returned true was sent (""), or could not be (why).
  void stopDone(const QString& error);

 private:
  /// Starts `args` for `runDir` off this thread (ChildProcess::startDetachedInBackground).
  void launch(const QStringList& args, const QString& runDir);
  /// ChildProcess::launched: a new run is followed from here, a resume goes on; a failure ends
  /// a new run FailedToStart and brings back a resumed run's state before.
  void onLaunched(const QString& error);
  /// What a resume changed before its process was started (brought back when it cannot be).
  struct StoryBefore {
    RunOutcome outcome = RunOutcome::None;
    QString message, hint;
    int signal = 0;
    bool sawEnd = false;
    qint64 endSeenAtRead = -1;
  };
  /// Asks for a look at the process (a local run, when none is in flight); its result goes to
  /// applyLook. A cluster run's state is its job's: nothing to look at.
  void watch();
  /// The first look of an attached or reread run (folder, log size, process), then its first
  /// read: from the store (a long log) or the file.
  void lookFirst();
  /// Keeps a look at the process (one asked for since the last start), then finishIfDead.
  void applyLook(const ProcessLook& look);
  /// What the last look and the events say of a run that may have ended: its outcome.
  void finishIfDead();
  /// Whether the events written before the process ended have all been read: a read begun
  /// after the end was seen has been applied and reached the end of the file. Until then an
  /// ended process's final event may be on its way (a read in flight began before it).
  bool readPastEnd();
  /// finishIfDead for a cluster run: the events say how it ended, the job whether it lives.
  void followCluster();
  /// resume() of a cluster run: resubmitted to its profile's cluster — once Slurm says the
  /// job before ended, when the run's final event came first (the job is ending).
  bool resubmit(int epochs, QString* error);
  /// Sends the resume that waited for the job before to end.
  void sendWaitingResume();
  /// The state of a run that has not begun before a resume or a new start.
  void resetStory();
  void applyBatch(EventBatch batch);
  /// The first read of the followed run: from the store (a long log, off this thread) or the file.
  void readFromStart(FirstRead first);
  /// readFromStart once the log's size is known.
  void readFromStart(qint64 logSize, FirstRead first);
  /// Opens the followed run from the store on the reader's thread, then follows the file.
  void loadStored();
  /// Shows what the store (or a first look at the file) holds of the run: its events become
  /// events(), its series stored()'s, and the file is followed from its offset.
  void applyStored(std::shared_ptr<StoredRun> run);
  /// Brings the store up to date with the followed run (what loadStored drew of the file but
  /// did not store), on a job of its own that nothing waits for.
  void catchUpStore();
  /// Drops a first look shown when the store could not read the run after all.
  void forgetPreview();
  /// The reader, a fresh one when the current one still reads for a run left.
  BackgroundJob* freeReader();
  void setOutcome(RunOutcome o);
  RunEventDispatch m_dispatch;  ///< what the run's events say of its state
  QString m_exe;
  QString m_storePath;
  std::shared_ptr<StoredRun> m_stored;
  bool m_loadingStored = false;
  bool m_lowRateOnly = false;
  qint64 m_storedRunBytes;
  QString m_runDir;
  qint64 m_offset = 0;
  qint64 m_lineNo = 0;
  bool m_logMissingReported = false;
  std::vector<RunEvent> m_events;
  double m_lastEventTime = 0;   ///< time of the newest event read
  BackgroundJob* m_reader;      ///< reads and decodes events.jsonl
  std::vector<BackgroundJob*> m_retired;  ///< readers still busy for a run left (deleted when done)
  BackgroundJob* m_storeJob;    ///< brings the store up to date after a run was opened from it
  BackgroundJob* m_watchJob;    ///< looks at the run's folder and process (lookAt)
  ProcessLook m_look;           ///< the last look applied
  bool m_haveLook = false;      ///< m_look is of the process now followed
  quint64 m_lookEpoch = 0;      ///< bumped by a (re)start or another run: looks before it are dropped
  ChildProcess* m_child;        ///< the run's process (detached: it outlives the studio)
  ClusterJob* m_cluster;        ///< the run's Slurm job, when it is a cluster run
  bool m_reading = false;       ///< a read is in flight
  quint64 m_readsStarted = 0;   ///< reads of events.jsonl begun (each one's sequence number)
  quint64 m_readApplied = 0;    ///< the sequence number of the newest read applied
  bool m_readToEnd = false;     ///< that read reached the end of the file
  bool m_caughtUp = false;      ///< a read since attach() reached the end of the file
  /// m_readsStarted when the process was first seen ended without a final event read; only a
  /// read begun after it may tell that none was written (-1: not seen ended).
  qint64 m_endSeenAtRead = -1;
  quint64 m_generation = 0;     ///< which followed run a read in flight belongs to
  RunOutcome m_outcome = RunOutcome::None;
  QString m_message;
  QString m_hint;
  int m_signal = 0;
  bool m_sawEnd = false;  ///< a finished event or the launcher's error was read
  bool m_resumeWaiting = false;  ///< a cluster run's resume waits for its ending job to end
  int m_resumeEpochs = 0;        ///< that resume's new total of epochs (0: as before)
  bool m_wasLive = false;  ///< liveness at the last look (a change is a state change)
  QTimer m_timer;
  qint64 m_startedAt = 0;  ///< ms since epoch of start(), to wait for the process record
  enum class Launch { None, Start, Resume };
  Launch m_launch = Launch::None;  ///< what a launch in flight is for
  StoryBefore m_before;            ///< a resume's state before its launch
};

}  // namespace stave::studio
