#pragma once
// ChildProcess: the studio's one kind of child process. Every `stave-train` the studio starts —
// a run (the Run page's and the queue's, through RunController), a prediction, a weights export
// — and every short command it asks (Slurm's, runToEnd) is started, asked to stop and ended one
// way: stop() sends SIGTERM, and SIGKILL follows after
// a grace period unless the process ended by then; how it ended is one ProcessOutcome
// (outcomeOf). Two lifetimes:
//   - Attached (predict, export): a QProcess of the job, whose output the job reads; destroying
//     the ChildProcess ends the process (SIGTERM, the grace period, SIGKILL) and waits for it.
//   - Detached (runs): a session of its own (setsid) under a small shell that records, in the
//     run folder, the pid (launcher.pid, then launcher.json with its start time, host and boot
//     id) and the exit status once it ends (exit_status, 128 + N for signal N). The run outlives
//     the studio; a studio opened later tells from the folder alone whether it lives (alive())
//     and how it ended (readExit()). SIGKILL goes to its whole process group (the ranks too).
// QtCore only.

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <atomic>
#include <initializer_list>

#include "core/studio/process_outcome.h"

namespace stave::studio {

class BackgroundJob;

/// What the studio knows about the process of a run folder.
struct LauncherRecord {
  qint64 pid = 0;        ///< the stave-train process
  qint64 startTicks = 0;  ///< its start time (/proc/<pid>/stat field 22), 0 = unknown
  QString host;          ///< host it runs on
  QString bootId;        ///< that host's boot id
  bool valid = false;    ///< the record was read
};

/// How a detached process ended, as its folder tells.
struct DetachedExit {
  bool known = false;        ///< exit_status was written
  int code = 0;              ///< its exit code (0 when a signal ended it)
  int signal = 0;            ///< the signal that ended it, 0 = none
  bool shellWaiting = false;  ///< no status yet, and the shell that writes it still runs
};

class ChildProcess : public QObject {
  Q_OBJECT
 public:
  enum class Lifetime { Attached, Detached };
  /// `graceMs`: between stop()'s SIGTERM and its SIGKILL.
  ChildProcess(Lifetime lifetime, int graceMs, QObject* parent = nullptr);
  /// Attached: SIGTERM, the grace period, SIGKILL, waiting for each (a job's process outlives
  /// no job). Detached: nothing (the run goes on).
  ~ChildProcess() override;
  Lifetime lifetime() const { return m_lifetime; }
  void setGraceMs(int ms) { m_graceMs = ms; }
  int graceMs() const { return m_graceMs; }

  // --- Attached ---
  /// A new QProcess, not started (the previous one is deleted later): the job connects its
  /// signals, then starts it.
  QProcess* newProcess();

  // --- Detached ---
  /// Starts `exe args` for `folder` (created when missing) in a session of its own; the
  /// record is written on a thread of its own as soon as the shell reports the pid — until
  /// then starting() is true; if that takes over 5 s, startFailed() says why. False with
  /// `error` when nothing could be started.
  bool startDetached(const QString& exe, const QStringList& args, const QString& folder, QString* error = nullptr);
  /// startDetached with all of its file and process work on a thread of its own (counted as
  /// OffGuiRead::RunStart): starting() and folder() are `folder`'s at once; then launched("")
  /// once the process was started, or launched(why) — the same words startDetached would have
  /// given, naming the program or folder — when nothing could be; startFailed() as there.
  void startDetachedInBackground(const QString& exe, const QStringList& args, const QString& folder);
  /// Follows the process of `folder` (a run started earlier, by this studio or another).
  void setFolder(const QString& folder);
  QString folder() const { return m_folder; }
  /// True from startDetached() until the record is written or the start failed.
  bool starting() const { return m_starting; }
  /// The record of `folder`'s process; valid == false when there is none.
  static LauncherRecord readRecord(const QString& folder);
  /// Whether the process of `folder` is alive here: same host and boot, the pid runs and
  /// started when the record says. A folder copied from elsewhere is never live.
  static bool alive(const QString& folder);
  /// How the process of `folder` ended (exit_status).
  static DetachedExit readExit(const QString& folder);

  // --- A short command, run to its end ---
  /// What a command said (runToEnd).
  struct CommandResult {
    bool started = false;  ///< it could be started
    int code = -1;         ///< its exit code; -1 when it crashed or was cut short
    QString out, err;      ///< its output, trimmed (err: also why it did not start or end)
    bool cut = false;      ///< it said more than kCommandOutputCap on a stream: the rest was dropped
  };
  /// How much of each stream (stdout, stderr) of a command runToEnd keeps.
  static constexpr qint64 kCommandOutputCap = qint64{1} << 20;
  /// Runs `program args` (with `env` added to the environment, in `workDir`) on this thread
  /// and waits for its end: at most `timeoutMs`, less when `*stop` is raised. A command cut
  /// short is stopped as every child is (SIGTERM, SIGKILL after 2 s). Its output is read while
  /// it runs, and only the first kCommandOutputCap bytes of each stream are kept. For queries such as
  /// Slurm's, on a job's thread — never on the GUI thread.
  static CommandResult runToEnd(const QString& program, const QStringList& args, const QStringList& env,
                                const QString& workDir, int timeoutMs, const std::atomic<bool>* stop = nullptr);

  // --- Both ---
  /// True while the process runs (Detached: also while starting).
  bool running() const;
  /// SIGTERM now; SIGKILL after the grace period unless it ended by then (Detached: only the
  /// process signalled, with its process group: a run resumed within the grace period is a new
  /// process and is left alone). False with `error` when there is nothing to stop.
  bool stop(QString* error = nullptr);
  /// Detached: stop() with the record read and the process signalled on a thread of its own
  /// (counted as OffGuiRead::RunStop); stopped("") when SIGTERM was sent, else stopped(why),
  /// in stop()'s words. The SIGKILL after the grace period reads the record there too.
  void stopInBackground();
  /// Whether stop() was called since the process started.
  bool stopRequested() const { return m_stopRequested; }
  /// The outcome of an ended process from its exit code and whether a signal ended it: a stop
  /// asked for is Stopped, a signal Crashed, a code in `okCodes` Completed, any other Failed.
  static ProcessOutcome outcomeOf(int code, bool signalled, bool stopRequested, std::initializer_list<int> okCodes = {0});
  /// Attached: the outcome of the process that just ended (QProcess::finished's arguments).
  ProcessOutcome outcome(int code, QProcess::ExitStatus status, std::initializer_list<int> okCodes = {0}) const {
    return outcomeOf(code, status != QProcess::NormalExit, m_stopRequested, okCodes);
  }

 signals:
  /// A detached start did not get its record written (the reason, naming the log to read).
  void startFailed(const QString& error);
  /// The grace period ran out and SIGKILL was sent.
  void killed();
  /// startDetachedInBackground's answer: "" when the process was started, else why not.
  void launched(const QString& error);
  /// stopInBackground's answer: "" when SIGTERM was sent, else why not.
  void stopped(const QString& error);

 private:
  /// Cancels a SIGKILL still due and forgets that a stop was asked for (a new process).
  void forgetStop();
  /// A start of a detached process in `folder` begins: followed, no stop due, starting; the
  /// launch's number (an answer of an older launch is dropped).
  quint64 beginLaunch(const QString& folder);
  /// Writes launch `seq`'s record on the record job once the shell runs; startFailed if it cannot.
  void recordLaunch(const QString& exe, const QStringList& args, quint64 seq);
  /// What startDetached does before the record: checks `exe`, makes `folder`, removes the last
  /// process's record files and starts the waiting shell. Any thread. "" or why not.
  static QString spawn(const QString& exe, const QStringList& args, const QString& folder);
  /// Waits (up to 5 s) for the shell's pid file and writes launcher.json. Any thread. "" or why not.
  static QString writeRecord(const QString& folder, const QString& exe, const QStringList& args);
  /// Detached SIGTERM of `folder`'s process: the record's pid, or why not (stop()'s words).
  static QString signalTerm(const QString& folder, qint64* pid);
  /// Detached SIGKILL of `folder`'s process group, when it is still the process `pid`.
  static bool killGroup(const QString& folder, qint64 pid);
  /// The job that sends a detached process its signals (stopInBackground, the SIGKILL).
  BackgroundJob* signalJob();
  Lifetime m_lifetime;
  int m_graceMs;
  QProcess* m_process = nullptr;  ///< Attached
  QString m_folder;               ///< Detached
  BackgroundJob* m_recordJob = nullptr;
  BackgroundJob* m_signalJob = nullptr;
  quint64 m_launchSeq = 0;  ///< which startDetachedInBackground an answer belongs to
  bool m_starting = false;
  qint64 m_stopPid = 0;  ///< Detached: the process stop() signalled; the grace timer kills only it
  bool m_stopRequested = false;
  QTimer m_kill;
};

}  // namespace stave::studio
