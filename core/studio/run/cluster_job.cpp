#include "core/studio/run/cluster_job.h"
#include "core/studio/gui_thread_reads.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <mutex>

#include "core/cluster/mirror.h"
#include "core/cluster/remote_job.h"
#include "core/studio/background_job.h"
#include "core/studio/engine_text.h"
#include "core/studio/project/preferences.h"

namespace stave::studio {

/// The mirror of an SSH run, made on the mirror's thread (the profile is read there).
struct ClusterJob::RemoteMirror {
  QString folder, remoteDir, profile;
  std::mutex mutex;
  std::unique_ptr<cluster::Mirror> mirror;
};

namespace {

/// The SSH run's profile as this studio has it now (never a destination from the record).
bool sshProfile(const QString& name, cluster::Profile* out, QString* error) {
  const Preferences prefs = Preferences::load();
  const ClusterProfile* p = prefs.cluster(name);
  if (!p || !p->remote()) {
    *error =
        ClusterJob::tr(
            "the cluster profile '%1' of this run is not in Settings ▸ Clusters with a destination")
            .arg(name);
    return false;
  }
  *out = p->toCore();
  return true;
}

/// The job of an SSH run, asked over ssh (core/cluster), in the studio's form.
SlurmJobState askOverSsh(const ClusterJobRecord& record, const std::atomic<bool>* stop) {
  SlurmJobState st;
  cluster::Profile profile;
  if (!sshProfile(record.profile, &profile, &st.error)) return st;
  const cluster::JobState js = cluster::queryJob(profile, record.jobId.toStdString(), stop);
  st.state = QString::fromStdString(js.state);
  st.phase = slurmPhase(st.state);
  st.reason = QString::fromStdString(js.reason);
  st.exitCode = QString::fromStdString(js.exitCode);
  st.error = engineText(js.errorText, js.error);
  return st;
}

/// A submission to a cluster behind SSH: core/cluster's, its record read back in the studio's form.
ClusterJobRecord submitOverSsh(const ClusterSubmission& s, QString* error) {
  cluster::RemoteSubmission r;
  r.profile = s.profile.toCore();
  r.projectFile = s.projectFile.toStdString();
  r.configName = s.configName.toStdString();
  for (const auto& o : s.overrides) r.overrides.push_back(o.toStdString());
  r.localDir = s.runDir.toStdString();
  r.resume = s.resume;
  r.epochs = s.epochs;
  auto rec = cluster::submitRemote(r);
  if (!rec) {
    *error = errorsText(rec.errors());
    // sbatch's answer lost: the record says so, and the folder is kept.
    return QFileInfo::exists(QDir(s.runDir).filePath(clusterJobFileName()))
               ? readClusterJob(s.runDir)
               : ClusterJobRecord{};
  }
  return readClusterJob(s.runDir, error);
}

struct Answer {
  ClusterJobRecord record;
  SlurmJobState state;
  QString recordError;
};

/// What a poll learns: the folder's record, and the job's state from it (an ended job's final
/// state is in the record; a job seen ending is written there).
Answer ask(const QString& folder, const std::atomic<bool>* stop) {
  Answer a;
  a.record = readClusterJob(folder, &a.recordError);
  if (!a.record.valid) return a;
  if (a.record.overSsh && a.record.jobId.isEmpty()) {
    // sbatch's answer was lost: Slurm is asked for the run's job by its name and folder at
    // every poll (as `stave-train cluster status` does) until it lists one.
    cluster::Profile profile;
    if (!sshProfile(a.record.profile, &profile, &a.state.error)) return a;
    auto settled = cluster::settleLostSubmissionUnlessBusy(folder.toStdString(), profile,
                                                           cluster::sshRunner(profile.endpoint()));
    if (settled && !settled->jobId.empty()) {
      a.record = readClusterJob(folder, &a.recordError);
      if (!a.record.valid) return a;
    }
    if (a.record.jobId.isEmpty()) {
      a.state.error =
          ClusterJob::tr(
              "sbatch's answer was lost, and Slurm lists no job named %1 for this run yet; it is "
              "looked for again at every poll (squeue --name=%1 on the cluster)")
              .arg(a.record.jobName);
      return a;
    }
  }
  if (a.record.overSsh && !a.record.jobId.isEmpty() &&
      slurmPhase(a.record.finalState) == SlurmJobState::Phase::Unknown) {
    a.state = askOverSsh(a.record, stop);
    ClusterJobRecord now;
    if (a.state.ended() && recordJobEnd(folder, a.record.jobId, a.state, &now)) a.record = now;
    return a;
  }
  if (a.record.submissionUnknown) {
    // sbatch's answer was lost: the job is looked for by its name until Slurm lists it.
    if (!findUnknownSubmission(slurmCommandsFolder(a.record.profile), folder, &a.record,
                               &a.state.error, stop) ||
        a.record.jobId.isEmpty())
      return a;
  }
  // A final state is one Slurm ends a job with; any other word kept there is asked again.
  if (!a.record.finalState.isEmpty() &&
      slurmPhase(a.record.finalState) != SlurmJobState::Phase::Unknown) {
    a.state.state = a.record.finalState;
    a.state.phase = slurmPhase(a.record.finalState);
    a.state.exitCode = a.record.exitCode;
    return a;
  }
  a.state = querySlurmJob(slurmCommandsFolder(a.record.profile), a.record.jobId, stop);
  if (a.state.ended()) {
    // Kept for a studio opened after Slurm has forgotten the job (not while a resubmission
    // holds the record: it keeps its new job).
    ClusterJobRecord now;
    if (recordJobEnd(folder, a.record.jobId, a.state, &now)) a.record = now;
  }
  return a;
}

}  // namespace

ClusterJob::ClusterJob(QObject* parent)
    : QObject(parent),
      m_query(new BackgroundJob(this)),
      m_action(new BackgroundJob(this)),
      m_mirrorJob(new BackgroundJob(this)) {
  m_timer.setInterval(m_pollMs);
  connect(&m_timer, &QTimer::timeout, this, &ClusterJob::refresh);
  m_mirrorTimer.setSingleShot(true);
  connect(&m_mirrorTimer, &QTimer::timeout, this, &ClusterJob::pollMirror);
}

void ClusterJob::startMirror() {
  if (!m_record.overSsh || m_record.sharedDir.isEmpty() ||
      (m_mirror && m_mirror->folder == m_folder))
    return;
  m_mirror = std::make_shared<RemoteMirror>();
  m_mirror->folder = m_folder;
  m_mirror->remoteDir = m_record.sharedDir;
  m_mirror->profile = m_record.profile;
  m_mirrorError.clear();
  m_quietPolls = 0;
  m_mirrorTimer.start(0);
}

void ClusterJob::pollMirror() {
  if (!m_mirror || m_mirrorJob->busy()) return;
  const std::shared_ptr<RemoteMirror> mirror = m_mirror;
  m_mirrorJob->run<std::pair<cluster::MirrorPoll, QString>>(
      [mirror] {
        std::lock_guard<std::mutex> lock(mirror->mutex);
        QString error;
        if (!mirror->mirror) {
          cluster::Profile profile;
          if (!sshProfile(mirror->profile, &profile, &error))
            return std::make_pair(cluster::MirrorPoll{}, error);
          mirror->mirror = std::make_unique<cluster::Mirror>(cluster::sshRunner(profile.endpoint()),
                                                             mirror->remoteDir.toStdString(),
                                                             mirror->folder.toStdString());
        }
        cluster::MirrorPoll p = mirror->mirror->poll();
        return std::make_pair(p, engineText(p.errorText, p.error));
      },
      [this, mirror](std::pair<cluster::MirrorPoll, QString> result) {
        if (mirror != m_mirror) return;  // another folder is followed now
        const auto& [p, error] = result;
        if (!error.isEmpty() && error != m_mirrorError) emit failed(error);
        m_mirrorError = error;
        if (!p.reached && !error.isEmpty() && !p.failure.retryable())
          return;  // host key, key refused: not again
        // A dropped link is tried again 2, 4 … 30 s later; a live one every second.
        const int next =
            p.reached ? 1000 : std::min(30000, std::max(2000, 2 * m_mirrorTimer.interval()));
        m_quietPolls = p.reached && m_state.ended() && p.eventBytes == 0 ? m_quietPolls + 1 : 0;
        if (m_quietPolls < 2)
          m_mirrorTimer.start(next);  // the job ended and its last lines are here
      });
}

ClusterJob::~ClusterJob() = default;

void ClusterJob::setPollInterval(int ms) {
  m_pollMs = ms;
  m_timer.setInterval(m_state.phase == SlurmJobState::Phase::Running ? 5 * ms : ms);
}

void ClusterJob::forget(const QString& folder) {
  ++m_generation;  // an answer in flight is about the folder left
  m_folder = folder;
  m_record = {};
  m_state = {};
  m_endedSeenMs = 0;
  m_queryError.clear();
  m_submitting = false;
  m_runEnded = false;
  m_lostPolls = 0;
  m_mirror.reset();
  m_mirrorTimer.stop();
}

void ClusterJob::setFolder(const QString& runDir) {
  if (!runDir.isEmpty()) countRead(OffGuiRead::ClusterRecord);
  setFolder(runDir, !runDir.isEmpty() && QFileInfo::exists(QDir(runDir).filePath(clusterJobFileName())));
}

void ClusterJob::setFolder(const QString& runDir, bool hasRecord) {
  const bool was = m_cluster;
  forget(runDir);
  m_cluster = !runDir.isEmpty() && hasRecord;
  if (m_cluster) {
    m_timer.start(m_pollMs);
    refresh();
  } else {
    m_timer.stop();
  }
  if (was || m_cluster) emit changed();
}

bool ClusterJob::active() const {
  if (!m_cluster) return false;
  if (m_submitting) return true;
  if (!m_record.valid) return m_state.error.isEmpty() && m_queryError.isEmpty();  // not read yet
  // A submission whose answer was lost and whose job never appeared counts as refused.
  if (m_record.submissionUnknown &&
      QDateTime::currentSecsSinceEpoch() - m_record.submittedAt > kLostSubmissionWaitS)
    return false;
  return !m_state.ended();
}

bool ClusterJob::busy() const {
  return m_action->busy();
}

double ClusterJob::endedForS() const {
  return m_endedSeenMs > 0 ? (QDateTime::currentMSecsSinceEpoch() - m_endedSeenMs) / 1000.0 : 0;
}

void ClusterJob::refresh() {
  if (!m_cluster || m_submitting || m_query->busy() || m_folder.isEmpty()) return;
  const QString folder = m_folder;
  const quint64 generation = m_generation;
  m_query->run<Answer>([folder, stop = m_query->stopFlag()] { return ask(folder, stop); },
                       [this, generation](Answer a) {
                         if (generation != m_generation) return;
                         if (!a.record.valid) {
                           if (a.recordError != m_queryError) {
                             m_queryError = a.recordError;
                             emit failed(a.recordError);
                           }
                           return;
                         }
                         applyState(a.record, a.state, generation);
                       });
}

void ClusterJob::setRunEnded(bool ended) {
  if (ended == m_runEnded) return;
  m_runEnded = ended;
  if (!m_cluster) return;
  if (ended && !m_state.ended()) {
    m_timer.setInterval(m_pollMs);
    refresh();
  }
  emit changed();
}

void ClusterJob::applyState(const ClusterJobRecord& record, const SlurmJobState& state,
                            quint64 generation) {
  if (generation != m_generation) return;
  // A lost sbatch answer whose job Slurm does not list (yet, or ever: sbatch failed after all)
  // is looked for less often the longer it is missing — 2x, 4x … up to 10x the poll interval —
  // instead of a squeue (over SSH, a connection) every poll for as long as the run is open.
  const bool lost = record.valid && record.jobId.isEmpty() &&
                    (record.submissionUnknown || record.overSsh);
  m_lostPolls = lost ? std::min(m_lostPolls + 1, 8) : 0;
  if (lost) m_timer.setInterval(std::min(10 * m_pollMs, m_pollMs << std::min(m_lostPolls, 4)));
  if (!state.error.isEmpty()) {
    // Slurm could not be asked (slurmctld down, the command missing): said once, and the
    // last state known is kept.
    if (state.error != m_queryError) {
      m_queryError = state.error;
      emit failed(state.error);
    }
    if (record.jobId == m_record.jobId) return;
  } else {
    m_queryError.clear();
  }
  const bool same = record.jobId == m_record.jobId && state.state == m_state.state &&
                    state.reason == m_state.reason && record.finalState == m_record.finalState;
  m_record = record;
  if (state.error.isEmpty() || !m_record.valid) m_state = state;
  startMirror();
  if (m_record.overSsh && !m_state.ended()) m_quietPolls = 0;
  if (m_mirror && !m_mirrorTimer.isActive() && !m_mirrorJob->busy() && m_quietPolls < 2)
    m_mirrorTimer.start(1000);
  if (m_state.ended() && m_endedSeenMs == 0) m_endedSeenMs = QDateTime::currentMSecsSinceEpoch();
  if (!m_state.ended()) m_endedSeenMs = 0;
  // Slurm is asked often while the job waits, seldom while it runs, and not once it ended: then
  // only the record is read (another studio may resubmit the run).
  const bool slow = (m_state.phase == SlurmJobState::Phase::Running && !m_runEnded) ||
                    !record.finalState.isEmpty();
  if (!lost) m_timer.setInterval(slow ? 5 * m_pollMs : m_pollMs);
  if (!same) emit changed();
}

void ClusterJob::submit(const ClusterSubmission& submission) {
  forget(submission.runDir);
  send(submission);
}

bool ClusterJob::resubmit(const ClusterProfile& profile, const QString& trainExecutable, int epochs,
                          QString* error) {
  if (!m_cluster || !m_record.valid) {
    if (error) *error = tr("this run's Slurm job is not known yet");
    return false;
  }
  if (busy() || active()) {
    if (error)
      *error = m_record.jobId.isEmpty() ? tr("this run's last submission is not known to Slurm yet "
                                             "(a job named %1 may still start)")
                                              .arg(m_record.jobName)
                                        : tr("Slurm job %1 has not ended yet").arg(m_record.jobId);
    return false;
  }
  ClusterSubmission s;
  s.profile = profile;
  s.runDir = m_folder;
  s.projectFile = m_record.project;
  s.configName = m_record.configName;
  s.trainExecutable = trainExecutable;
  s.resume = true;
  s.epochs = epochs;
  ++m_generation;  // an answer in flight is about the job before
  send(s);
  return true;
}

void ClusterJob::send(const ClusterSubmission& submission) {
  m_cluster = true;
  m_submitting = true;
  m_runEnded = false;
  m_endedSeenMs = 0;  // a resubmission: the job before has ended, this one not
  emit changed();
  const quint64 generation = m_generation;
  const bool resume = submission.resume;
  m_action->run<std::pair<ClusterJobRecord, QString>>(
      [submission] {
        QString error;
        ClusterJobRecord rec = submission.profile.remote() ? submitOverSsh(submission, &error)
                                                           : submitClusterRun(submission, &error);
        return std::make_pair(rec, error);
      },
      [this, generation, resume](std::pair<ClusterJobRecord, QString> result) {
        if (generation != m_generation) return;
        m_submitting = false;
        const auto& [rec, error] = result;
        if (!rec.valid) {
          // A new run's folder is gone again; a resubmitted one still holds the old job.
          m_cluster = resume;
          emit changed();
          emit failed(error);
          return;
        }
        m_record = rec;
        m_state = {};
        if (!rec.submissionUnknown) {
          m_state.state = QStringLiteral("PENDING");
          m_state.phase = SlurmJobState::Phase::Pending;
        }
        m_timer.start(m_pollMs);
        m_quietPolls = 0;
        startMirror();
        if (m_mirror && !m_mirrorTimer.isActive()) m_mirrorTimer.start(1000);
        emit changed();
        emit submitted(rec.jobId);
        if (!error.isEmpty()) emit failed(error);  // the job runs; its record could not be written
        refresh();
      });
}

bool ClusterJob::cancel(QString* error) {
  if (!m_cluster || !m_record.valid) {
    if (error) *error = tr("no Slurm job to stop");
    return false;
  }
  if (m_record.jobId.isEmpty()) {
    if (error)
      *error = tr("this run's Slurm job is not known yet (sbatch gave no answer); look for the job "
                  "named %1 with squeue")
                   .arg(m_record.jobName);
    return false;
  }
  if (m_state.ended()) {
    if (error) *error = tr("Slurm job %1 has ended").arg(m_record.jobId);
    return false;
  }
  if (busy()) {
    if (error) *error = tr("Slurm is still being asked; try again in a moment");
    return false;
  }
  const QString profile = m_record.profile, id = m_record.jobId;
  const bool pending = m_state.phase == SlurmJobState::Phase::Pending, overSsh = m_record.overSsh;
  m_action->run<QString>(
      [profile, id, pending, overSsh] {
        if (!overSsh) return cancelSlurmJob(slurmCommandsFolder(profile), id, pending);
        // Over SSH: scancel --signal=TERM on the login node.
        cluster::Profile p;
        QString error;
        if (!sshProfile(profile, &p, &error)) return error;
        const TextParts why = cluster::cancelJobText(p, id.toStdString(), pending);
        return engineText(why, english(why));
      },
      [this](QString problem) {
        if (!problem.isEmpty()) emit failed(problem);
        refresh();
      });
  return true;
}

QString ClusterJob::phaseName(SlurmJobState::Phase phase) {
  switch (phase) {
    case SlurmJobState::Phase::Unknown:
      return tr("unknown");
    case SlurmJobState::Phase::Pending:
      return tr("pending");
    case SlurmJobState::Phase::Running:
      return tr("running");
    case SlurmJobState::Phase::Completed:
      return tr("completed");
    case SlurmJobState::Phase::Failed:
      return tr("failed");
    case SlurmJobState::Phase::Cancelled:
      return tr("cancelled");
  }
  return {};
}

QString ClusterJob::pendingReasonInWords(const QString& reason) {
  // squeue's JOB REASON CODES that a user meets most, in words and with what to do.
  if (reason == QLatin1String("Resources"))
    return tr("waiting for nodes with the requested CPUs, GPUs and memory to become free");
  if (reason == QLatin1String("Priority"))
    return tr("jobs of higher priority are ahead of it in the queue");
  if (reason == QLatin1String("PartitionDown"))
    return tr("the partition is down; an administrator must bring it up");
  if (reason == QLatin1String("PartitionConfig"))
    return tr(
        "the request does not fit the partition (more CPUs, GPUs or memory per node than "
        "its nodes have, or a node count or time it does not allow): check the cluster "
        "profile in Settings ▸ Clusters, e.g. CPUs per rank");
  if (reason == QLatin1String("PartitionNodeLimit"))
    return tr("more nodes than the partition allows");
  if (reason == QLatin1String("PartitionTimeLimit"))
    return tr("the time limit is longer than the partition allows");
  if (reason == QLatin1String("ReqNodeNotAvail") || reason == QLatin1String("NodeDown"))
    return tr("a node it needs is down, drained or reserved");
  if (reason == QLatin1String("Dependency")) return tr("waiting for a job it depends on");
  if (reason == QLatin1String("BeginTime")) return tr("its start time has not come yet");
  if (reason == QLatin1String("JobHeldUser"))
    return tr("held by its user (scontrol release releases it)");
  if (reason == QLatin1String("JobHeldAdmin")) return tr("held by an administrator");
  if (reason == QLatin1String("InvalidAccount") || reason == QLatin1String("InvalidQOS"))
    return tr("the account or QOS is not valid for this user: check the cluster profile's account");
  if (reason.startsWith(QLatin1String("Assoc")) || reason.startsWith(QLatin1String("QOS")))
    return tr(
        "a limit of the account or QOS is reached; it starts when other jobs of the "
        "account end");
  if (reason == QLatin1String("Reservation")) return tr("waiting for its reservation");
  return {};
}

QString ClusterJob::describe() const {
  if (!m_cluster) return {};
  if (m_submitting) return tr("Submitting to Slurm…");
  if (!m_record.valid)
    return m_queryError.isEmpty() ? tr("Slurm job: reading its record…") : m_queryError;
  if (m_record.jobId.isEmpty())
    return tr("Slurm job on %1: sbatch gave no answer; looking for the job named %2 (the run "
              "folder is kept)")
        .arg(m_record.profile, m_record.jobName);
  QString what = phaseName(m_state.phase);
  // Slurm's own word where it says more than the phase (TIMEOUT, OUT_OF_MEMORY, COMPLETING, a
  // word the studio does not know).
  static const char* const kPlain[] = {"",          "PENDING", "RUNNING",
                                       "COMPLETED", "FAILED",  "CANCELLED"};
  if (!m_state.state.isEmpty() &&
      m_state.state != QLatin1String(kPlain[static_cast<int>(m_state.phase)]))
    what = tr("%1 (%2)").arg(what, m_state.state);
  if (m_state.phase == SlurmJobState::Phase::Pending && !m_state.reason.isEmpty()) {
    const QString words = pendingReasonInWords(m_state.reason);
    what = words.isEmpty() ? tr("%1: %2").arg(what, m_state.reason)
                           : tr("%1: %2 — %3").arg(what, m_state.reason, words);
  }
  if (m_state.phase == SlurmJobState::Phase::Failed && !m_state.exitCode.isEmpty())
    what = tr("%1, exit code %2").arg(what, m_state.exitCode);
  // The run's final event is read and Slurm still lists the job: it ends (not "running" beside
  // a run that says it stopped), with Slurm's word where it says more than RUNNING.
  if (m_runEnded && !m_state.ended() && m_state.phase != SlurmJobState::Phase::Unknown)
    what = m_state.state.isEmpty() || m_state.state == QLatin1String("RUNNING")
               ? tr("ending")
               : tr("%1 (%2)").arg(tr("ending"), m_state.state);
  QString line = tr("Slurm job %1 on %2: %3").arg(m_record.jobId, m_record.profile, what);
  if (!m_queryError.isEmpty()) line += tr(" — Slurm cannot be asked now: %1").arg(m_queryError);
  return line;
}

}  // namespace stave::studio
