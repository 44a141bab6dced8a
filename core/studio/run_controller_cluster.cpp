// RunController's cluster runs: sending a run to Slurm, resubmitting it, and how its job's
// state becomes the run's outcome. (The class is declared in run_controller.h.)
#include <QDateTime>
#include <QDir>
#include <QFileInfo>

#include "core/studio/cluster_job.h"
#include "core/studio/preferences.h"
#include "core/studio/run_controller.h"

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
  const QString exe = profile->trainExecutable.isEmpty() ? m_exe : profile->trainExecutable;
  if (!m_cluster->resubmit(*profile, exe, epochs, error)) return false;
  resetStory();
  setOutcome(RunOutcome::Starting);
  m_timer.start();
  return true;
}

void RunController::followCluster() {
  const bool live = m_cluster->active();
  if (live != m_wasLive) {
    m_wasLive = live;
    emit stateChanged();
  }
  if (m_sawEnd || !m_cluster->record().valid) return;  // the events said how it ended; or no job yet
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
