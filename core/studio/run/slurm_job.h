#pragma once
// The Slurm side of a cluster run, as plain blocking functions (call them off the GUI thread;
// ClusterJob does): submitting the exported sbatch file of a run, asking Slurm how its job
// stands, cancelling it — through the cluster profile's sbatch, squeue, sacct, scontrol and
// scancel, run on this machine — and the run folder's record of its jobs (cluster_job.json,
// written atomically), from which a studio opened later follows the run again.

#include <QString>
#include <QStringList>

#include <atomic>

#include "core/studio/project/cluster_profile.h"

namespace stave::studio {

/// cluster_job.json of a run folder: which Slurm jobs trained it and how the last one ended.
struct ClusterJobRecord {
  /// The cluster profile's name at submission. Its Slurm commands are the profile's as this
  /// studio has it now (never a folder named in the record: a run folder copied from elsewhere
  /// must not choose what this machine runs).
  QString profile;
  QString jobId;           ///< the newest job
  QStringList jobIds;      ///< every job of the folder, oldest first (a resume adds one)
  QString project;         ///< the project file
  QString configName;      ///< the project's config
  QString sharedDir;       ///< the run folder as the nodes see it (the link's target, or itself)
  QString finalState;      ///< Slurm's last state of `jobId` once seen ended ("" while not)
  QString exitCode;        ///< and its exit code ("0:0"), when Slurm said
  double submittedAt = 0;  ///< unix time of the newest submission
  /// The newest job's name as submitted (it carries the run's id), by which a job whose id
  /// sbatch did not say is found.
  QString jobName;
  /// sbatch's answer was lost (it timed out, or said nothing readable): the job may run, its
  /// id is not known yet (`jobId` is ""), and it is looked for by `jobName`.
  bool submissionUnknown = false;
  /// A run on a cluster behind SSH ("transport": "ssh"): the folder is a local mirror of
  /// `sharedDir` on the cluster, and Slurm is asked over ssh (core/cluster).
  bool overSsh = false;
  bool valid = false;      ///< the record was read
};

/// How long (s) after a submission whose answer was lost its job may still appear in Slurm;
/// after that, with none found, the submission counts as refused (the run may be resumed).
inline constexpr qint64 kLostSubmissionWaitS = 600;

/// Whether `id` is a Slurm job id: digits, with an array task (_N) or a het job part (+N) —
/// never anything a command could take for an option.
bool isSlurmJobId(const QString& id);

/// Where the Slurm commands of cluster profile `profile` are, as this studio's preferences say
/// ("" = PATH, also when no such profile is kept any more). Reads the settings: any thread.
QString slurmCommandsFolder(const QString& profile);

/// The file name of the record in a run folder.
inline QString clusterJobFileName() { return QStringLiteral("cluster_job.json"); }
/// Reads `runDir`'s record; valid == false with `error` naming the file and key when it is
/// missing or damaged (a job id that is not Slurm's form is damage: it is never passed on).
ClusterJobRecord readClusterJob(const QString& runDir, QString* error = nullptr);
/// Writes it atomically (a reader never sees half a record).
bool writeClusterJob(const QString& runDir, const ClusterJobRecord& record, QString* error = nullptr);

/// How a Slurm job stands, in the words the studio shows.
struct SlurmJobState {
  enum class Phase { Unknown, Pending, Running, Completed, Failed, Cancelled };
  Phase phase = Phase::Unknown;
  QString state;     ///< Slurm's word (PENDING, RUNNING, COMPLETED, TIMEOUT, ...)
  QString reason;    ///< why it pends (Resources, Priority, PartitionDown, ...), "" for None
  QString exitCode;  ///< "code:signal" once ended, when Slurm said
  QString error;     ///< Slurm could not be asked (the command's message)
  bool ended() const { return phase == Phase::Completed || phase == Phase::Failed || phase == Phase::Cancelled; }
};
/// The phase of a Slurm state word ("CANCELLED by 0" counts as CANCELLED): every word of
/// squeue's JOB STATE CODES has one; a word Slurm may add later is Unknown (never an end).
SlurmJobState::Phase slurmPhase(const QString& state);

/// Asks Slurm about job `jobId`: squeue (every state it still holds), then sacct (accounting),
/// then scontrol (a job ended a while ago). Unknown with `error` when none of them knows it,
/// or `jobId` is not a Slurm job id (then nothing is run).
/// Each command may take 15 s; `stop` (a job's stop flag) ends the wait early.
SlurmJobState querySlurmJob(const QString& commandsFolder, const QString& jobId,
                            const std::atomic<bool>* stop = nullptr);

/// The newest job of this user named `jobName` (squeue, then sacct from `since`, unix time)
/// that is none of `known`; "" when Slurm lists none.
QString findSlurmJob(const QString& commandsFolder, const QString& jobName, const QStringList& known,
                     double since, const std::atomic<bool>* stop = nullptr);

/// Writes that job `jobId` ended as `state` says into `runDir`'s record, read again under the
/// record's lock (a resubmission in flight holds it: then nothing is written, its new job is
/// kept) and only while `jobId` is still its newest job. True with the record written.
bool recordJobEnd(const QString& runDir, const QString& jobId, const SlurmJobState& state,
                  ClusterJobRecord* written = nullptr);

/// A record whose submission is unknown: looks for its job by name and, when found, writes it
/// into `runDir`'s record (read again first, under the record's lock) and into `record`. False with `error` (saying
/// that the folder is kept and what is looked for) while no job is found.
bool findUnknownSubmission(const QString& commandsFolder, const QString& runDir, ClusterJobRecord* record, QString* error,
                           const std::atomic<bool>* stop = nullptr);

/// What a submission needs; runs on a thread of its own.
struct ClusterSubmission {
  ClusterProfile profile;
  QString projectFile;    ///< the project (a new run)
  QString configName;     ///< its config
  QStringList overrides;  ///< key=value for the config
  QString runDir;         ///< the run folder the studio follows (project/runs/<id>)
  QString trainExecutable;  ///< stave-train as the nodes start it
  bool resume = false;    ///< continue runDir (its config.yaml) instead of a new run
  int epochs = 0;         ///< resume: a new total (> 0)
  int sbatchTimeoutMs = 60000;  ///< how long sbatch may take to answer
};
/// Whether a job of `profile` whose sbatch file is `sbatchText` can ever start on the partition
/// it names (or the cluster's default) as `sinfoAnswer` (sinfo -h -o "%P|%c|%G|%D") describes
/// it: "" when it can (or nothing is known), else why not, naming the profile's field to change
/// — CPUs per rank × ranks per node beyond the nodes' CPUs (Slurm would say PartitionConfig and
/// keep the job pending for ever), more GPUs or nodes than there are, a partition that is not.
QString checkAgainstPartition(const ClusterProfile& profile, const QString& sbatchText,
                              const QString& sinfoAnswer);

/// The new job's record (valid) or, valid == false, `error`: the sbatch file is exported into
/// the run folder (job.sbatch; checked against what the partition offers, checkAgainstPartition;
/// for a new run the folder is made under the profile's run folder
/// and linked from the project's runs/), submitted with sbatch (the job named after the run),
/// and cluster_job.json written. A new run that sbatch refused leaves no folder behind. An
/// answer that is lost (sbatch timed out, or said no id) keeps the folder: the job is looked
/// for by its name, and when none is found the record says the submission is unknown (valid,
/// with `error` saying so). A resume is refused while another resume of the run is being sent,
/// or while the run's newest job has not ended.
ClusterJobRecord submitClusterRun(const ClusterSubmission& submission, QString* error);

/// Stops job `jobId`: a running one gets SIGTERM in its steps (`scancel --signal=TERM`: the
/// ranks finish their step and rank 0 checkpoints); a pending one is cancelled. "" or the
/// command's message; an id that is not Slurm's form is refused and nothing is run.
QString cancelSlurmJob(const QString& commandsFolder, const QString& jobId, bool pending);

}  // namespace stave::studio
