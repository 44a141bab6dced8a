#pragma once
// ClusterJob: the Slurm job of the run folder a RunController follows. It submits a run
// (sbatch of the exported file), asks Slurm every few seconds how the job stands (squeue, then
// sacct, then scontrol) and stops (scancel --signal=TERM) or resubmits it (resume) — every
// command on a thread of its own, never on the GUI thread. The run folder's cluster_job.json
// says which job to ask about, so a studio opened later follows the same job; once Slurm says
// it ended, that is written there too (Slurm forgets ended jobs after a few minutes when it
// keeps no accounting). A run on a cluster behind SSH (its profile has a destination) goes
// through core/cluster instead: submitted, asked and stopped over ssh, and its folder here is
// a mirror of the remote one, fed every second by byte offset (a dropped link is retried with
// backoff), which the run's reader reads as any local run. QtCore only.

#include <QObject>
#include <QString>
#include <QTimer>

#include <memory>

#include "core/studio/run/slurm_job.h"

namespace stave::studio {

class BackgroundJob;

class ClusterJob : public QObject {
  Q_OBJECT
 public:
  explicit ClusterJob(QObject* parent = nullptr);
  ~ClusterJob() override;

  /// Follows the job of `runDir` when it has a record (a stat here, counted as
  /// OffGuiRead::ClusterRecord; the record is read on the job's thread); "" follows nothing.
  void setFolder(const QString& runDir);
  /// setFolder when the caller looked already (off the GUI thread) whether `runDir` holds a
  /// record (`hasRecord`): nothing is read here.
  void setFolder(const QString& runDir, bool hasRecord);
  QString folder() const { return m_folder; }
  /// True when the followed folder is a cluster run (a record, or a submission in flight).
  bool isCluster() const { return m_cluster; }
  /// True while the job may still train: submitting, pending or running (or not asked yet).
  bool active() const;
  /// True while a submission, a resubmission or a cancel is in flight.
  bool busy() const;
  const ClusterJobRecord& record() const { return m_record; }
  const SlurmJobState& state() const { return m_state; }
  /// Seconds since Slurm was first seen saying the job ended (0 while it has not).
  double endedForS() const;
  /// How often Slurm is asked while a job is submitted or pending (ms, default 3000); a running
  /// job is asked five times less often (its events show its progress), an ended one no more.
  void setPollInterval(int ms);

  /// Submits a new run into `submission.runDir`; submitted() or failed() follows.
  void submit(const ClusterSubmission& submission);
  /// Resubmits the followed run with resume=true (and `epochs` > 0 as the new total) to the
  /// cluster of `profile`. False with `error` when it cannot be asked now.
  bool resubmit(const ClusterProfile& profile, const QString& trainExecutable, int epochs, QString* error);
  /// Stops the job: SIGTERM to a running one (it checkpoints), a pending one is cancelled.
  bool cancel(QString* error);
  /// Asks Slurm now (the timer does it every poll interval).
  void refresh();
  /// How long until Slurm is asked again (ms): the poll interval, five times it while the job
  /// runs, and growing to ten times it while a lost sbatch answer's job is not listed.
  int pollIntervalMs() const { return m_timer.interval(); }
  /// The run's own events say it ended (its final event was read), or no longer do (it began
  /// again). Slurm lists a job a moment longer (COMPLETING) and is asked seldom while the job
  /// runs: until Slurm too says it ended, the job is described as ending, never as running,
  /// and Slurm is asked at once and then as often as for a waiting job.
  void setRunEnded(bool ended);
  bool runEnded() const { return m_runEnded; }

  /// Slurm's pending reason (PartitionConfig, Resources, …) in words, with what to do; "" for
  /// a reason without a known meaning (shown as Slurm's word alone).
  static QString pendingReasonInWords(const QString& reason);
  /// One line for the Run page: "Slurm job 42 on gpu-a100: pending: Resources — waiting for …".
  QString describe() const;
  /// The phase in the user's words: pending, running, completed, failed, cancelled.
  static QString phaseName(SlurmJobState::Phase phase);

 signals:
  /// The record or the job's state changed.
  void changed();
  /// A job was accepted by sbatch.
  void submitted(const QString& jobId);
  /// A submission or a cancel failed: what Slurm said.
  void failed(const QString& error);

 private:
  /// Follows `folder` from scratch: no record, state or error known yet.
  void forget(const QString& folder);
  /// Runs a submission on the action thread.
  void send(const ClusterSubmission& submission);
  void applyState(const ClusterJobRecord& record, const SlurmJobState& state, quint64 generation);
  QString m_folder;
  bool m_cluster = false;
  bool m_submitting = false;
  ClusterJobRecord m_record;
  SlurmJobState m_state;
  qint64 m_endedSeenMs = 0;
  quint64 m_generation = 0;      ///< which followed folder an answer in flight belongs to
  BackgroundJob* m_query;        ///< asks Slurm (skipped while an answer is awaited)
  BackgroundJob* m_action;       ///< submits and cancels
  QString m_queryError;          ///< the last query's failure, said once
  int m_pollMs = 3000;
  bool m_runEnded = false;  ///< the run's final event was read (setRunEnded)
  QTimer m_timer;
  // Over SSH: the mirror of the remote run folder.
  struct RemoteMirror;
  /// Feeds the mirror once (on m_mirrorJob's thread); the timer calls it.
  void pollMirror();
  /// Starts feeding the mirror of an SSH run's folder (once its record is known).
  void startMirror();
  std::shared_ptr<RemoteMirror> m_mirror;  ///< shared with the mirror's thread
  BackgroundJob* m_mirrorJob;
  QTimer m_mirrorTimer;
  QString m_mirrorError;  ///< the last poll's failure, said once
  int m_quietPolls = 0;   ///< polls with nothing new since the job ended
  int m_lostPolls = 0;    ///< polls in a row that found no job for a lost sbatch answer
};

}  // namespace stave::studio
