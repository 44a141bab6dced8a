#include "core/cluster/remote_job.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include "core/base/atomic_file.h"
#include "core/config/export.h"
#include "core/config/project.h"
#include "core/config/run_config.h"
#include "core/cluster/remote_shell.h"

namespace stave::cluster {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr int kAskMs = 30000;

std::string firstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

/// The Slurm command `name` of the profile (its commands folder on the cluster, or PATH there).
std::string slurm(const Profile& p, const char* name) {
  return p.commandsFolder.empty() ? std::string(name) : p.commandsFolder + "/" + name;
}

/// A line of `text` from "key=value" fields (scontrol's form).
std::string field(const std::string& text, const std::string& key) {
  const std::regex re("(?:^|\\s)" + key + "=(\\S+)");
  std::smatch m;
  return std::regex_search(text, m, re) ? m[1].str() : std::string();
}

JobState stateOf(const std::string& state, const std::string& reason, const std::string& exitCode) {
  JobState s;
  s.state = state.substr(0, state.find(' '));
  s.phase = jobPhase(s.state);
  s.reason = reason == "None" || reason == "(null)" ? std::string() : reason;
  s.exitCode = exitCode;
  return s;
}

/// The job's name: <project>-<config>.<run id> in Slurm's safe characters.
std::string runJobName(const std::string& name, const std::string& runId) {
  std::string out;
  for (const char c : name + "." + runId)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.') ? c : '-';
  while (!out.empty() && !std::isalnum(static_cast<unsigned char>(out.front()))) out.erase(0, 1);
  return out.empty() ? "stave" : out;
}

/// sbatch --parsable's answer: the last line that is "ID" or "ID;cluster" (a site's banner may
/// come before it).
std::string sbatchJobId(const std::string& out) {
  std::string best;
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    std::string line = out.substr(start, end - start);
    start = end + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    const std::string id = line.substr(0, line.find(';'));
    if (isSlurmJobId(id)) best = id;
  }
  return best;
}

std::string now() {
  const auto t = std::chrono::system_clock::now();
  const std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  localtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  return buf;
}

/// Runs `argv` quoted through `run`; a word that cannot be quoted runs nothing (as runRemote).
RemoteResult runArgv(const RemoteRunner& run, const std::vector<std::string>& argv, const ProcessOptions& o) {
  auto line = shellCommand(argv);
  if (!line) {
    RemoteResult rr;
    rr.failure = SshFailure::Other;
    rr.message = line.errorText();
    return rr;
  }
  return run(line.value(), o);
}

/// The failure of a command that did not reach the cluster, as catalog messages.
TextParts sshText(const RemoteResult& r) {
  return r.text.empty() ? TextParts{Text("plain", {{"text", r.message}})} : r.text;
}

/// What a remote command that failed said, in one line: the command's own words kept.
TextParts saidText(const char* what, const RemoteResult& r) {
  if (!r.reached()) return sshText(r);
  std::string text = r.process.err.empty() ? r.process.out : r.process.err;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return {Text("slurm.said", {{"command", what},
                              {"how", describeEndText(r.process)},
                              text.empty() ? Text::Arg("said", Text("slurm.no_message"))
                                           : Text::Arg("said", text.substr(0, 600))})};
}

/// A job's state that could not be learnt, in English and as catalog messages.
void sayError(JobState* s, TextParts text) {
  s->error = english(text);
  s->errorText = std::move(text);
}

/// The sbatch text of a submission.
Result<std::string> jobText(const RemoteSubmission& s, const std::string& jobName) {
  config::ExportOptions o;
  o.jobName = jobName;
  o.nodes = s.profile.nodes;
  o.cpusPerTask = s.profile.cpusPerTask;
  o.gpusPerNode = s.profile.gpusPerNode;
  o.time = s.profile.timeLimit;
  o.partition = s.profile.partition;
  o.account = s.profile.account;
  if (s.resume) {
    // The run's own config as the cluster used it (mirrored): its dataset is the cluster's.
    std::vector<std::string> kv;
    if (s.epochs > 0) kv.push_back("epochs=" + std::to_string(s.epochs));
    auto cfg = config::loadRunConfigWithOverrides(s.localDir + "/config.yaml", kv);
    if (!cfg) return cfg.errors();
    return config::exportRunConfig(cfg.value(), config::ExportFormat::Slurm, o);
  }
  auto project = config::loadProject(s.projectFile);
  if (!project) return project.errors();
  const std::string configName = s.configName.empty() ? project->activeConfig : s.configName;
  auto cfg = config::resolveProjectConfig(project.value(), configName, s.overrides);
  if (!cfg) return cfg.errors();
  auto data = s.profile.clusterDataPath(cfg->getString("data"));
  if (!data) return data.errors();
  if (auto st = config::applyOverrides(cfg.value(), {"data=" + data.value()}); !st) return st.errors();
  o.description = "project '" + project->name + "', config '" + configName + "', on " + s.profile.name;
  return config::exportRunConfig(cfg.value(), config::ExportFormat::Slurm, o);
}

}  // namespace

bool isSlurmJobId(const std::string& id) {
  static const std::regex re("^[0-9]{1,20}(_[0-9]{1,10})?(\\+[0-9]{1,10})?$");
  return std::regex_match(id, re);
}

Result<RunRecord> readRunRecord(const std::string& localDir) {
  const std::string path = localDir + "/cluster_job.json";
  auto text = readFile(path);
  if (!text) return text.errors();
  json o;
  try {
    o = json::parse(text.value());
  } catch (const std::exception& e) {
    return Error{path, 0, "", std::string("not JSON: ") + e.what()};
  }
  if (!o.is_object()) return Error{path, 0, "", "expected a JSON object"};
  RunRecord r;
  const auto str = [&](const char* key) { return o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : ""; };
  r.jobId = str("job_id");
  r.submissionUnknown = str("submission") == "unknown";
  if (!isSlurmJobId(r.jobId) && !(r.submissionUnknown && r.jobId.empty()))
    return Error{path, 0, "job_id", "'" + r.jobId.substr(0, 64) + "' is not a Slurm job id (digits, with _N or +N)"};
  if (o.contains("job_ids") && o["job_ids"].is_array())
    for (const auto& v : o["job_ids"]) {
      if (!v.is_string() || !isSlurmJobId(v.get<std::string>()))
        return Error{path, 0, "job_ids", "holds something that is not a Slurm job id"};
      r.jobIds.push_back(v.get<std::string>());
    }
  if (r.jobIds.empty() && !r.jobId.empty()) r.jobIds.push_back(r.jobId);
  r.profile = str("profile");
  r.project = str("project");
  r.configName = str("config");
  r.remoteDir = str("shared_dir");
  r.finalState = str("final_state");
  r.exitCode = str("exit_code");
  r.jobName = str("job_name");
  r.overSsh = str("transport") == "ssh";
  if (o.contains("submitted_at") && o["submitted_at"].is_number()) r.submittedAt = o["submitted_at"].get<double>();
  return r;
}

Status writeRunRecord(const std::string& localDir, const RunRecord& r) {
  json o{{"job_id", r.jobId},     {"job_ids", r.jobIds},      {"profile", r.profile},
         {"project", r.project},  {"config", r.configName},   {"shared_dir", r.remoteDir},
         {"submitted_at", r.submittedAt}};
  if (!r.finalState.empty()) o["final_state"] = r.finalState;
  if (!r.exitCode.empty()) o["exit_code"] = r.exitCode;
  if (!r.jobName.empty()) o["job_name"] = r.jobName;
  if (r.submissionUnknown) o["submission"] = "unknown";
  if (r.overSsh) o["transport"] = "ssh";
  return writeFileAtomic(localDir + "/cluster_job.json", o.dump(4) + "\n");
}

JobState::Phase jobPhase(const std::string& word) {
  using P = JobState::Phase;
  static const std::map<std::string, P> kPhases{
      {"PENDING", P::Pending},     {"CONFIGURING", P::Pending}, {"REQUEUED", P::Pending},
      {"REQUEUE_HOLD", P::Pending}, {"REQUEUE_FED", P::Pending}, {"RESV_DEL_HOLD", P::Pending},
      {"SPECIAL_EXIT", P::Pending}, {"RUNNING", P::Running},     {"COMPLETING", P::Running},
      {"SUSPENDED", P::Running},   {"STOPPED", P::Running},     {"STAGE_OUT", P::Running},
      {"SIGNALING", P::Running},   {"RESIZING", P::Running},    {"COMPLETED", P::Completed},
      {"CANCELLED", P::Cancelled}, {"REVOKED", P::Cancelled},   {"FAILED", P::Failed},
      {"TIMEOUT", P::Failed},      {"NODE_FAIL", P::Failed},    {"OUT_OF_MEMORY", P::Failed},
      {"BOOT_FAIL", P::Failed},    {"DEADLINE", P::Failed},     {"PREEMPTED", P::Failed}};
  const auto it = kPhases.find(word.substr(0, word.find(' ')));
  return it == kPhases.end() ? P::Unknown : it->second;
}

const char* phaseName(JobState::Phase p) {
  switch (p) {
    case JobState::Phase::Unknown: return "unknown";
    case JobState::Phase::Pending: return "pending";
    case JobState::Phase::Running: return "running";
    case JobState::Phase::Completed: return "completed";
    case JobState::Phase::Failed: return "failed";
    case JobState::Phase::Cancelled: return "cancelled";
  }
  return "";
}

JobState queryJob(const Profile& p, const std::string& jobId, const std::atomic<bool>* stop) {
  return queryJob(p, jobId, stop, sshRunner(p.endpoint()));
}

JobState queryJob(const Profile& p, const std::string& jobId, const std::atomic<bool>* stop, const RemoteRunner& run) {
  JobState s;
  if (!isSlurmJobId(jobId)) {
    sayError(&s, {Text("slurm.not_job_id", {{"id", jobId.substr(0, 64)}})});
    return s;
  }
  ProcessOptions o;
  o.timeoutMs = kAskMs;
  o.stop = stop;
  const RemoteResult q =
      runArgv(run, {slurm(p, "squeue"), "-h", "--jobs=" + jobId, "--states=all", "-o", "%T|%r"}, o);
  if (!q.reached()) {
    s.error = q.message;
    s.errorText = q.text;
    s.sshFatal = !q.retryable();
    return s;
  }
  const auto scontrol = [&] { return runArgv(run, {slurm(p, "scontrol"), "show", "job", jobId}, o); };
  if (q.process.ok() && !q.process.out.empty()) {
    const std::string line = firstLine(q.process.out);
    const size_t bar = line.find('|');
    s = stateOf(line.substr(0, bar), bar == std::string::npos ? "" : line.substr(bar + 1), "");
    if (s.ended()) s.exitCode = field(scontrol().process.out, "ExitCode");
    return s;
  }
  const RemoteResult a = runArgv(run, {slurm(p, "sacct"), "-n", "-X", "-P", "--jobs=" + jobId, "-o", "State,ExitCode,Reason"}, o);
  if (a.process.ok() && !a.process.out.empty()) {
    std::vector<std::string> parts;
    std::string line = firstLine(a.process.out), cur;
    for (const char c : line + "|") {
      if (c == '|') parts.push_back(cur), cur.clear();
      else cur += c;
    }
    parts.resize(3);
    return stateOf(parts[0], parts[2], parts[1]);
  }
  const RemoteResult c = scontrol();
  if (c.process.ok() && !field(c.process.out, "JobState").empty())
    return stateOf(field(c.process.out, "JobState"), field(c.process.out, "Reason"), field(c.process.out, "ExitCode"));
  sayError(&s, {Text("slurm.unknown_job", {{"destination", p.destination},
                                           {"job", jobId},
                                           {"squeue", saidText("squeue", q)},
                                           {"sacct", saidText("sacct", a)},
                                           {"scontrol", saidText("scontrol", c)}})});
  return s;
}

Result<RunRecord> submitRemote(const RemoteSubmission& s) { return submitRemote(s, sshRunner(s.profile.endpoint())); }

FoundJobs findRunJobs(const Profile& p, const std::string& jobName, const std::string& remoteDir,
                      const std::vector<std::string>& known, const RemoteRunner& run, const std::atomic<bool>* stop) {
  FoundJobs f;
  ProcessOptions o;
  o.timeoutMs = kAskMs;
  o.stop = stop;
  // A folder name with a newline cannot be told apart in a listing of lines: the name decides.
  const bool byDir = remoteDir.find('\n') == std::string::npos;
  const auto collect = [&](const std::string& out, char bar) {
    size_t start = 0;
    while (start < out.size()) {
      size_t end = out.find('\n', start);
      if (end == std::string::npos) end = out.size();
      const std::string line = out.substr(start, end - start);
      start = end + 1;
      const size_t cut = line.find(bar);
      const std::string id = line.substr(0, cut);
      const std::string dir = cut == std::string::npos ? std::string() : line.substr(cut + 1);
      if (!isSlurmJobId(id) || std::find(known.begin(), known.end(), id) != known.end()) continue;
      if (byDir && dir != remoteDir) continue;
      if (std::find(f.ids.begin(), f.ids.end(), id) == f.ids.end()) f.ids.push_back(id);
    }
  };
  const RemoteResult q =
      runArgv(run, {slurm(p, "squeue"), "-h", "--name=" + jobName, "--states=all", "-o", "%i|%Z"}, o);
  if (!q.reached()) {
    f.error = q.message;
    f.errorText = q.text;
    return f;
  }
  if (q.process.ok()) {
    f.reached = true;
    collect(q.process.out, '|');
  }
  // Slurm forgets an ended job after a while (MinJobAge); its accounting, where kept, does not.
  if (f.ids.empty()) {
    const RemoteResult a = runArgv(run, {slurm(p, "sacct"), "-n", "-X", "-P", "--name=" + jobName, "--starttime=now-7days",
                                         "-o", "JobID,WorkDir"}, o);
    if (a.process.ok() && a.reached()) {
      f.reached = true;
      collect(a.process.out, '|');
    }
    if (!f.reached) {
      f.errorText = {Text("slurm.lookup_failed",
                          {{"squeue", saidText("squeue", q)}, {"sacct", saidText("sacct", a)}})};
      f.error = english(f.errorText);
    }
  }
  std::sort(f.ids.begin(), f.ids.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  return f;
}

Result<RunRecord> settleLostSubmission(const std::string& localDir, const Profile& p, const RemoteRunner& run) {
  auto rec = readRunRecord(localDir);
  if (!rec || !rec->submissionUnknown || rec->jobName.empty()) return rec;
  const FoundJobs f = findRunJobs(p, rec->jobName, rec->remoteDir, rec->jobIds, run);
  if (f.ids.empty()) return rec;
  rec->jobId = f.ids.back();
  rec->jobIds.push_back(rec->jobId);
  rec->submissionUnknown = false;
  rec->finalState.clear();
  rec->exitCode.clear();
  if (auto st = writeRunRecord(localDir, rec.value()); !st) return st.errors();
  return rec;
}

namespace {

/// Run on the login node in the run folder, as `sh -c` with the squeue command, the job's name
/// and the sbatch command line as its arguments (fixed text: paths and names are data). Takes
/// the folder's submission lock (flock, where the cluster has it: two submissions from two
/// desktops wait for each other), refuses while a job of this run is pending or running (by its
/// name, or the Slurm job run.lock names), then runs sbatch. Refusals say why on stdout, exit 75.
constexpr const char* kGuardedSubmit = R"sh(squeue=$1 name=$2
shift 2
if command -v flock >/dev/null 2>&1; then
  exec 9>>.stave_submit.lock || exit 71
  flock -w 60 9 || { echo "stave-busy-lock"; exit 75; }
fi
active=$("$squeue" -h --name="$name" --user="$(id -un)" -o '%i %T') || { echo "stave-no-squeue"; exit 76; }
if [ -n "$active" ]; then echo "stave-busy $active" | head -n 1; exit 75; fi
if [ -f run.lock ]; then
  job=$(sed -n 's/^slurm_job=\([0-9][0-9_+]*\)$/\1/p' run.lock | head -n 1)
  if [ -n "$job" ]; then
    held=$("$squeue" -h --jobs="$job" -o '%i %T' 2>/dev/null)
    if [ -n "$held" ]; then echo "stave-held $held" | head -n 1; exit 75; fi
  fi
fi
"$@"
)sh";

/// A local lock on the run folder's .stave_submit.lock (flock, not waited for): one resubmission
/// of a run at a time on this machine. Released when destroyed.
class LocalSubmitLock {
 public:
  ~LocalSubmitLock() {
    if (m_fd >= 0) ::close(m_fd);
  }
  /// An empty id when taken, else why not.
  Text take(const std::string& dir) {
    const std::string path = dir + "/.stave_submit.lock";
    m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (m_fd < 0)
      return Text("cluster.lock_not_opened", {{"path", path}, {"reason", std::strerror(errno)}});
    if (::flock(m_fd, LOCK_EX | LOCK_NB) == 0) return {};
    const int err = errno;
    return err == EWOULDBLOCK
               ? Text("cluster.resubmitting", {{"dir", dir}, {"path", path}})
               : Text("cluster.lock_not_taken", {{"path", path}, {"reason", std::strerror(err)}});
  }

 private:
  int m_fd = -1;
};

}  // namespace

Result<RunRecord> settleLostSubmissionUnlessBusy(const std::string& localDir, const Profile& p,
                                                 const RemoteRunner& run) {
  LocalSubmitLock lock;
  // A resubmission on this machine holds the folder: it settles the record itself, and a
  // record written here meanwhile could replace the job it sends.
  if (Text why = lock.take(localDir); !why.id.empty()) return readRunRecord(localDir);
  return settleLostSubmission(localDir, p, run);
}

namespace {

/// What one guarded sbatch did.
struct Sbatched {
  std::string id;       ///< the job id sbatch answered
  std::string refused;  ///< sbatch or the guard refused: why ("" = not refused)
  TextParts refusedText;  ///< `refused` as catalog messages
  bool fatal = false;   ///< ssh failed for good (host key, refused key): `refused` says so
  std::string lost;     ///< the answer did not come back: what happened ("" = it came)
  TextParts lostText;   ///< `lost` as catalog messages
  void refuse(TextParts text) {
    refused = english(text);
    refusedText = std::move(text);
  }
  void lose(TextParts text) {
    lost = english(text);
    lostText = std::move(text);
  }
};

Sbatched sbatchGuarded(const Profile& p, const RemoteRunner& run, const std::string& remoteDir, const std::string& jobName,
                       const std::vector<std::string>& sbatchArgv) {
  Sbatched out;
  std::vector<std::string> guarded{"sh", "-c", kGuardedSubmit, "sh", slurm(p, "squeue"), jobName};
  guarded.insert(guarded.end(), sbatchArgv.begin(), sbatchArgv.end());
  ProcessOptions o;
  o.timeoutMs = 120000;  // the guard may wait up to 60 s for another submission's lock
  // From the run folder: the exported script keeps its config beside SLURM_SUBMIT_DIR.
  const RemoteResult r = run(shellCommands({{"cd", remoteDir}, guarded}).value(), o);
  if (!r.reached()) {
    if (!r.retryable()) {
      out.refuse(sshText(r));
      out.fatal = true;
    } else {
      out.lose(sshText(r));
    }
    return out;
  }
  if (r.process.end == ProcessEnd::Finished && r.process.exitCode == 75) {
    const std::string& text = r.process.out;
    const size_t at = text.find("stave-");
    std::string word, id, state;
    std::istringstream in(at == std::string::npos ? std::string() : text.substr(at));
    in >> word >> id >> state;
    if (!isSlurmJobId(id)) id.clear();
    for (char& c : state)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '?';
    if (word == "stave-busy" && !id.empty())
      out.refuse({Text("cluster.job_busy",
                       {{"job", id}, {"name", jobName}, {"state", state}, {"profile", p.name}})});
    else if (word == "stave-held" && !id.empty())
      out.refuse(
          {Text("cluster.job_held",
                {{"folder", remoteDir}, {"job", id}, {"state", state}, {"profile", p.name}})});
    else
      out.refuse({Text("cluster.lock_held", {{"folder", remoteDir}, {"profile", p.name}})});
    return out;
  }
  if (r.process.end == ProcessEnd::Finished && r.process.exitCode == 76) {
    out.refuse(
        {Text("cluster.no_squeue", {{"profile", p.name}, {"said", r.process.err.substr(0, 400)}})});
    return out;
  }
  if (r.process.end == ProcessEnd::Finished && r.process.exitCode != 0) {
    out.refuse(
        {Text("cluster.sbatch_refused", {{"profile", p.name}, {"said", saidText("sbatch", r)}})});
    return out;
  }
  out.id = r.ok() ? sbatchJobId(r.process.out) : std::string();
  if (out.id.empty())
    out.lose(r.ok() ? TextParts{Text("cluster.no_job_id", {{"out", r.process.out.substr(0, 300)}})}
                    : saidText("sbatch", r));
  return out;
}

}  // namespace

Result<RunRecord> submitRemote(const RemoteSubmission& s, const RemoteRunner& run) {
  const Profile& p = s.profile;
  if (!p.remote()) return textError("", 0, "destination", Text("cluster.not_ssh", {{"name", p.name}}));
  if (const auto problems = p.problemTexts(); !problems.empty()) {
    std::vector<Error> errors;
    for (const auto& pr : problems) errors.push_back(textError("", 0, "", pr));
    return errors;
  }
  RunRecord rec;
  std::string remoteDir;
  LocalSubmitLock localLock;
  if (s.resume) {
    // Two resumes of one run on this machine: the second is refused here, before Slurm is asked.
    if (Text why = localLock.take(s.localDir); !why.id.empty())
      return textError(s.localDir, 0, "", std::move(why));
    // A submission whose answer was lost may have made a job: it is looked up first.
    auto old = settleLostSubmission(s.localDir, p, run);
    if (!old) return old.errors();
    rec = old.value();
    if (!rec.overSsh || rec.remoteDir.empty())
      return textError(s.localDir + "/cluster_job.json", 0, "transport",
                       Text("cluster.not_ssh_run"));
    if (!rec.jobId.empty() && jobPhase(rec.finalState) == JobState::Phase::Unknown) {
      const JobState st = queryJob(p, rec.jobId, nullptr, run);
      if (!st.ended())
        return textError(
            s.localDir, 0, "job_id",
            st.error.empty()
                ? Text("cluster.job_not_ended",
                       {{"job", rec.jobId},
                        {"state", st.state.empty() ? Text("cluster.not_ended")
                                                   : Text("plain", {{"text", st.state}})}})
                : Text("cluster.job_state_unknown",
                       {{"job", rec.jobId},
                        st.errorText.empty() ? Text::Arg("reason", st.error)
                                             : Text::Arg("reason", st.errorText)}));
    }
    std::error_code ec;
    if (!fs::exists(s.localDir + "/config.yaml", ec))
      return textError(s.localDir, 0, "config.yaml", Text("cluster.no_config"));
    remoteDir = rec.remoteDir;
  }
  const std::string runId = fs::path(s.localDir).filename().string();
  std::string projectName = rec.project.empty() ? fs::path(s.projectFile).stem().string() : fs::path(rec.project).stem().string();
  const std::string configName = s.resume ? rec.configName : s.configName;
  const std::string jobName = runJobName(projectName + "-" + (configName.empty() ? "config" : configName), runId);
  auto text = jobText(s, jobName);
  if (!text) return text.errors();
  if (!s.resume) {
    std::error_code ec;
    if (fs::exists(s.localDir, ec))
      return textError(s.localDir, 0, "", Text("cluster.already_exists"));
    remoteDir = p.runFolder + (p.runFolder.back() == '/' ? "" : "/") + projectName + "/" + runId;
    // The project's folder may exist; the run's must not (two studios, one run id).
    ProcessOptions o;
    o.timeoutMs = kAskMs;
    const RemoteResult mk = run(
        shellCommands({{"mkdir", "-p", "--", fs::path(remoteDir).parent_path().string()}, {"mkdir", "--", remoteDir}}).value(), o);
    if (!mk.reached()) return textError("", 0, "", sshText(mk));
    if (!mk.ok())
      return textError("", 0, "run_folder",
                       Text("cluster.cannot_make_folder", {{"folder", remoteDir},
                                                           {"destination", p.destination},
                                                           {"said", saidText("mkdir", mk)}}));
  }
  const auto removeNew = [&] {
    if (s.resume) return;
    ProcessOptions o;
    o.timeoutMs = kAskMs;
    run(shellCommands({{"rm", "-f", "--", remoteDir + "/job.sbatch", remoteDir + "/.stave_submit.lock"}, {"rmdir", "--", remoteDir}},
                      " ; ")
            .value(),
        o);
  };
  // The file arrives whole or not at all: written beside, then renamed. The shell's script is
  // fixed; the path is its argument.
  {
    ProcessOptions o;
    o.timeoutMs = 60000;
    o.input = text.value();
    const RemoteResult up = runArgv(run, {"sh", "-c", "cat > \"$1.part\" && chmod 755 \"$1.part\" && mv -f \"$1.part\" \"$1\"", "sh",
                                          remoteDir + "/job.sbatch"},
                                    o);
    if (!up.ok()) {
      removeNew();
      return textError("", 0, "",
                       Text("cluster.cannot_write_sbatch", {{"folder", remoteDir},
                                                            {"destination", p.destination},
                                                            {"said", saidText("sh", up)}}));
    }
  }
  std::vector<std::string> argv{"env", "STAVE_RUN_DIR=" + remoteDir,
                                "STAVE_TRAIN=" + (p.trainExecutable.empty() ? std::string("stave-train") : p.trainExecutable)};
  if (s.resume) argv.push_back("STAVE_RESUME=1");
  std::string pattern;
  for (const char c : remoteDir) pattern += c == '%' ? std::string("%%") : std::string(1, c);
  argv.insert(argv.end(), {slurm(p, "sbatch"), "--parsable", "--job-name=" + jobName, "--chdir=" + remoteDir,
                           "--output=" + pattern + "/slurm-%j.out", remoteDir + "/job.sbatch"});
  const double submittedAt =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  Sbatched b = sbatchGuarded(p, run, remoteDir, jobName, argv);
  if (!b.refused.empty()) {
    // A new run's folder goes, unless the guard found a job that uses it.
    if (b.fatal || b.refused.find("refused the job") != std::string::npos) removeNew();
    return textError("", 0, "", b.refusedText);
  }
  // sbatch's answer was lost (the link dropped after it ran, or before): the job is looked up
  // by its name and folder before anything is sent again, so one submission makes one job.
  TextParts lost = b.lostText;
  bool resent = false;
  for (int attempt = 0; b.id.empty() && attempt < std::max(1, s.lookupTries); ++attempt) {
    if (attempt > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(int64_t{s.lookupPauseMs} << std::min(attempt - 1, 4)));
    const FoundJobs found = findRunJobs(p, jobName, remoteDir, rec.jobIds, run);
    if (!found.ids.empty()) {
      b.id = found.ids.back();
      break;
    }
    if (!found.reached) {
      lost.push_back(Text(
          "cluster.lookup_failed",
          {{"reason", found.errorText.empty() ? TextParts{Text("plain", {{"text", found.error}})}
                                              : found.errorText}}));
      continue;
    }
    if (resent) continue;  // sent twice and not known: keep looking (its guard refuses a third)
    // Slurm answered and knows no job of this run: sbatch never ran. Sent once more, guarded.
    resent = true;
    b = sbatchGuarded(p, run, remoteDir, jobName, argv);
    if (!b.refused.empty()) return textError("", 0, "", b.refusedText);
    if (!b.lost.empty()) lost.push_back(Text("cluster.sent_again", {{"reason", b.lostText}}));
  }
  const std::string id = b.id;
  rec.profile = p.name;
  if (!s.resume) {
    rec.project = fs::absolute(s.projectFile).lexically_normal().string();
    rec.configName = s.configName;
  }
  rec.remoteDir = remoteDir;
  rec.jobId = id;
  rec.submissionUnknown = id.empty();
  if (!id.empty()) rec.jobIds.push_back(id);
  rec.jobName = jobName;
  rec.finalState.clear();
  rec.exitCode.clear();
  rec.submittedAt = submittedAt;
  rec.overSsh = true;
  std::error_code ec;
  fs::create_directories(s.localDir, ec);
  if (auto st = writeRunRecord(s.localDir, rec); !st) return st.errors();
  if (id.empty())
    return textError("", 0, "",
                     Text("cluster.answer_lost", {{"lost", lost},
                                                  {"dir", s.localDir},
                                                  {"job", jobName},
                                                  {"destination", p.destination}}));
  return rec;
}

std::string newRunId(const std::string& runsFolder) {
  const std::string stamp = now();
  std::string id = "run-" + stamp;
  std::error_code ec;
  for (int k = 2; fs::exists(runsFolder + "/" + id, ec); ++k) id = "run-" + stamp + "-" + std::to_string(k);
  return id;
}

std::string cancelJob(const Profile& p, const std::string& jobId, bool pending) {
  return english(cancelJobText(p, jobId, pending));
}

TextParts cancelJobText(const Profile& p, const std::string& jobId, bool pending) {
  if (!isSlurmJobId(jobId)) return {Text("slurm.not_cancelled", {{"id", jobId.substr(0, 64)}})};
  std::vector<std::string> argv{slurm(p, "scancel")};
  if (!pending) argv.push_back("--signal=TERM");
  argv.push_back(jobId);
  ProcessOptions o;
  o.timeoutMs = kAskMs;
  const RemoteResult r = runRemote(p.endpoint(), argv, o);
  return r.ok() ? TextParts{} : saidText("scancel", r);
}

Status recordEnd(const std::string& localDir, const JobState& state) {
  auto rec = readRunRecord(localDir);
  if (!rec) return rec.errors();
  if (!state.ended()) return Ok{};
  rec->finalState = state.state;
  rec->exitCode = state.exitCode;
  return writeRunRecord(localDir, rec.value());
}

}  // namespace stave::cluster
