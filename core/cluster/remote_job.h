#pragma once
// A run on a Slurm cluster behind SSH, as plain blocking functions (the studio calls them off
// its GUI thread; `stave-train cluster` calls them directly): submitting a project's config
// (the exported job.sbatch goes to the run folder on the cluster, sbatch runs there), asking
// how its job stands, stopping it (scancel --signal=TERM), resubmitting it for the same remote
// folder, and the local run folder's record (cluster_job.json: the same file and keys as the
// local-Slurm path, plus "transport": "ssh"). Every remote command is one quoted argument
// vector; job ids read back are checked to be Slurm's form before they are used.

#include <atomic>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/cluster/mirror.h"
#include "core/cluster/profile.h"

namespace stave::cluster {

/// cluster_job.json of a run folder (the local mirror of a remote run).
struct RunRecord {
  std::string profile;               ///< the profile's name; its destination is this machine's profile's
  std::string jobId;                 ///< the newest job
  std::vector<std::string> jobIds;   ///< every job of the run, oldest first
  std::string project;               ///< the project file
  std::string configName;            ///< its config
  std::string remoteDir;             ///< the run folder as the cluster sees it ("shared_dir")
  std::string finalState, exitCode;  ///< once Slurm said the newest job ended
  std::string jobName;               ///< the newest job's name
  double submittedAt = 0;            ///< unix time of the newest submission
  bool submissionUnknown = false;    ///< sbatch's answer was lost
  bool overSsh = false;              ///< "transport": "ssh"
};

/// Whether `id` is a Slurm job id (digits, _N, +N): nothing else is passed to a command.
bool isSlurmJobId(const std::string& id);

/// Reads `localDir`/cluster_job.json; errors name the file and key.
Result<RunRecord> readRunRecord(const std::string& localDir);
/// Writes it atomically.
Status writeRunRecord(const std::string& localDir, const RunRecord& record);

/// How a job stands.
struct JobState {
  enum class Phase { Unknown, Pending, Running, Completed, Failed, Cancelled };
  Phase phase = Phase::Unknown;
  std::string state;     ///< Slurm's word
  std::string reason;    ///< why it pends, "" for None
  std::string exitCode;  ///< "code:signal" once ended
  std::string error;     ///< Slurm or the cluster could not be asked
  TextParts errorText;   ///< `error` as catalog messages, for the studio (Slurm's and OpenSSH's
                         ///< words kept)
  bool sshFatal = false;  ///< the error is one ssh never retries (host key, refused key)
  bool ended() const { return phase == Phase::Completed || phase == Phase::Failed || phase == Phase::Cancelled; }
};
/// The phase of a Slurm state word (squeue's JOB STATE CODES); a word not known is Unknown.
JobState::Phase jobPhase(const std::string& state);
/// "pending", "running", "completed", "failed", "cancelled", "unknown".
const char* phaseName(JobState::Phase phase);

/// Asks the cluster of `profile` about `jobId`: squeue, then sacct, then scontrol.
JobState queryJob(const Profile& profile, const std::string& jobId, const std::atomic<bool>* stop = nullptr);
/// The same through `run` (sshRunner in use; a fake transport in tests).
JobState queryJob(const Profile& profile, const std::string& jobId, const std::atomic<bool>* stop, const RemoteRunner& run);

/// The jobs Slurm knows for one run folder.
struct FoundJobs {
  std::vector<std::string> ids;  ///< oldest first
  bool reached = false;          ///< Slurm answered (squeue or sacct): `ids` is all there is
  std::string error;             ///< why Slurm could not be asked
  TextParts errorText;           ///< `error` as catalog messages
};
/// Looks up the jobs named `jobName` whose working folder is `remoteDir` (squeue --states=all,
/// then sacct's accounting of the last 7 days), leaving out `known`.
FoundJobs findRunJobs(const Profile& profile, const std::string& jobName, const std::string& remoteDir,
                      const std::vector<std::string>& known, const RemoteRunner& run,
                      const std::atomic<bool>* stop = nullptr);
/// A run whose sbatch answer was lost ("submission": "unknown"): its job is looked up by name
/// and folder (findRunJobs) and, when Slurm knows it, kept in the record as the newest job. The
/// record as it is now (unchanged when nothing was found or Slurm could not be asked).
Result<RunRecord> settleLostSubmission(const std::string& localDir, const Profile& profile, const RemoteRunner& run);
/// The same while no resubmission of the run holds its folder on this machine (the folder's
/// .stave_submit.lock, not waited for); the record as it is when one does. For followers (the
/// studio's poll, `stave-train cluster status/follow`), which must never write the record under
/// a resubmission.
Result<RunRecord> settleLostSubmissionUnlessBusy(const std::string& localDir, const Profile& profile,
                                                 const RemoteRunner& run);

/// A submission to a cluster behind SSH.
struct RemoteSubmission {
  Profile profile;
  std::string projectFile;             ///< a new run: the project
  std::string configName;              ///< its config ("" = the active one)
  std::vector<std::string> overrides;  ///< key=value
  std::string localDir;                ///< the local run folder (the mirror); made for a new run
  bool resume = false;                 ///< resubmit localDir's run (its mirrored config.yaml)
  int epochs = 0;                      ///< resume: a new total (> 0), else the run's
  /// sbatch's answer lost: how often the job is looked up (findRunJobs) before the submission is
  /// left unknown, and the first pause between tries (doubled each time).
  int lookupTries = 5;
  int lookupPauseMs = 2000;
};

/// Submits: the job.sbatch exported (the dataset as the cluster sees it, Profile::
/// clusterDataPath) is written into <run_folder>/<project>/<run id> on the cluster, sbatch runs
/// there, and the record is written into the local folder. A new run that sbatch refused
/// leaves no folder behind, here or there. A resume is refused while the run's newest job has
/// not ended, while another resume of it runs here (the local folder's .stave_submit.lock), and
/// — checked on the login node under the remote folder's .stave_submit.lock (flock), right
/// before sbatch — while a job of the run is pending or running or the folder's run.lock names
/// one. When sbatch's answer is lost, the job is looked up by name and folder before it is sent
/// again: one submission makes at most one job.
Result<RunRecord> submitRemote(const RemoteSubmission& submission);
/// The same through `run` (ssh in use; a fake transport in tests).
Result<RunRecord> submitRemote(const RemoteSubmission& submission, const RemoteRunner& run);

/// Stops job `jobId`: a running one gets SIGTERM (scancel --signal=TERM: the ranks finish their
/// step, rank 0 checkpoints), a pending one is cancelled. "" or what went wrong.
std::string cancelJob(const Profile& profile, const std::string& jobId, bool pending);
/// cancelJob, what went wrong as catalog messages (empty when done).
TextParts cancelJobText(const Profile& profile, const std::string& jobId, bool pending);

/// A new run folder name under `runsFolder`: run-YYYYMMDD-HHMMSS (-2, -3 … when taken), as the
/// studio names its runs.
std::string newRunId(const std::string& runsFolder);

/// The record's job ended as `state` says: kept in the record (Slurm forgets ended jobs).
Status recordEnd(const std::string& localDir, const JobState& state);

}  // namespace stave::cluster
