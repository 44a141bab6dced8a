// RunController's cluster runs: sending a run to Slurm, resubmitting it, and how its job's
// state becomes the run's outcome. (The class is declared in run_controller.h.)
#include <QDateTime>
#include <QDir>
#include <QFileInfo>

#include "core/studio/run/cluster_job.h"
#include "core/studio/project/preferences.h"
#include "core/studio/run/run_controller.h"

namespace stave::studio {

bool RunController::submit(const ClusterProfile& profile, const QString& projectFile,
                           const QString& configName, const QStringList& overrides, QString* error) {
  // The followed run, local or on the cluster, goes on: the new job runs elsewhere.
  if (const QStringList problems = profile.problems(); !problems.isEmpty()) {
    if (error) *error = problems.join(QStringLiteral("; "));
    return false;
  }
  ClusterSubmission s;
  s.profile = profile;
  s.projectFile = QFileInfo(projectFile).absoluteFilePath();
  s.configName = configName;
  s.overrides = overrides;
  s.runDir = newRunDir(projectFile);
  s.trainExecutable = profile.trainExecutable.isEmpty() ? m_exe : profile.trainExecutable;
  detach();
  m_runDir = s.runDir;
  m_cluster->submit(s);
  m_startedAt = QDateTime::currentMSecsSinceEpoch();
  m_timer.start();
  setOutcome(RunOutcome::Starting);
  return true;
}

bool RunController::resubmit(int epochs, QString* error) {
  const Preferences prefs = Preferences::load();
  const ClusterProfile* profile = prefs.cluster(m_cluster->record().profile);
  if (!profile) {
    if (error)
      *error = tr("the cluster profile '%1' of this run is no longer in Settings").arg(m_cluster->record().profile);
    return false;
  }
  if (m_sawEnd && m_cluster->runEnded() && m_cluster->active() && !m_cluster->busy() &&
      !m_cluster->record().jobId.isEmpty()) {
    // The run ended and Slurm still lists its job for a moment (COMPLETING): the resume is the
    // run's next state now, and is sent once Slurm says the job ended (the trainer may still
    // append its last lines: never two jobs in one folder).
    resetStory();
    m_resumeWaiting = true;
    m_resumeEpochs = epochs;
    setOutcome(RunOutcome::Starting);
    m_cluster->refresh();
    return true;
  }
  const QString exe = profile->trainExecutable.isEmpty() ? m_exe : profile->trainExecutable;
  if (!m_cluster->resubmit(*profile, exe, epochs, error)) return false;
  resetStory();
  setOutcome(RunOutcome::Starting);
  m_timer.start();
  return true;
}

void RunController::sendWaitingResume() {
  m_resumeWaiting = false;
  QString error;
  const Preferences prefs = Preferences::load();
  const ClusterProfile* profile = prefs.cluster(m_cluster->record().profile);
  const bool sent = profile && m_cluster->resubmit(*profile, profile->trainExecutable.isEmpty() ? m_exe : profile->trainExecutable,
                                                  m_resumeEpochs, &error);
  if (!sent) {
    m_message = profile ? error : tr("the cluster profile '%1' of this run is no longer in Settings").arg(m_cluster->record().profile);
    emit warning(m_message);
    setOutcome(RunOutcome::FailedToStart);
    return;
  }
  m_timer.start();
}

void RunController::followCluster() {
  const bool live = m_cluster->active();
  if (live != m_wasLive) {
    m_wasLive = live;
    emit stateChanged();
  }
  // The events said how it ended; or no job yet; or the job's end is awaited by a resume.
  if (m_sawEnd || !m_cluster->record().valid || m_resumeWaiting) return;
  const SlurmJobState& st = m_cluster->state();
  const QString id = m_cluster->record().jobId;
  switch (st.phase) {
    case SlurmJobState::Phase::Unknown: return;
    case SlurmJobState::Phase::Pending: {
      const QString message = st.reason.isEmpty() ? QString() : tr("pending in Slurm: %1").arg(st.reason);
      if (message != m_message || m_outcome != RunOutcome::Starting) {
        m_message = message;
        m_outcome = RunOutcome::Starting;
        emit stateChanged();
      }
      return;
    }
    case SlurmJobState::Phase::Running:
      m_message.clear();
      setOutcome(RunOutcome::Running);
      return;
    default: break;
  }
  // Ended without a final event read: wait a moment for the last lines (shared storage shows
  // them late), then say how Slurm ended it.
  if (m_reading || m_cluster->endedForS() < 3) return;
  const QString out = QDir(m_runDir).filePath(QStringLiteral("slurm-%1.out").arg(id));
  if (st.phase == SlurmJobState::Phase::Cancelled) {
    m_message = tr("Slurm job %1 was cancelled").arg(id);
    setOutcome(RunOutcome::Stopped);
    return;
  }
  m_message = tr("Slurm job %1 ended %2%3 without a final event; its output: %4")
                  .arg(id, st.state, st.exitCode.isEmpty() ? QString() : tr(" (exit code %1)").arg(st.exitCode), out);
  setOutcome(st.phase == SlurmJobState::Phase::Failed ? RunOutcome::Failed : RunOutcome::Crashed);
}

}  // namespace stave::studio
