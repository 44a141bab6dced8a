#include "core/studio/run/slurm_job.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSaveFile>

#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <unistd.h>

#include <QHash>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "core/base/bounded_read.h"
#include "core/config/export.h"
#include "core/config/project.h"
#include "core/config/run_config.h"
#include "core/studio/run/child_process.h"
#include "core/studio/engine_text.h"
#include "core/studio/project/preferences.h"

namespace stave::studio {
namespace {

using Ran = ChildProcess::CommandResult;

/// A Slurm command run to its end (ChildProcess::runToEnd): at most `timeoutMs`, less when
/// `stop` is raised (the studio is closing and its job threads are joined).
Ran runCommand(const QString& program, const QStringList& args, const QStringList& env = {},
               const QString& workDir = {}, int timeoutMs = 60000, const std::atomic<bool>* stop = nullptr) {
  return ChildProcess::runToEnd(program, args, env, workDir, timeoutMs, stop);
}

/// How long squeue, sacct or scontrol may take to answer.
constexpr int kAskMs = 15000;

/// What a failed command said, in one line.
QString failure(const QString& name, const Ran& r) {
  const QString text = r.err.isEmpty() ? r.out : r.err;
  if (!r.started || r.code < 0) return text;
  return QCoreApplication::translate("stave::studio::SlurmJob", "%1 (exit %2): %3").arg(name).arg(r.code).arg(text.isEmpty() ? QCoreApplication::translate("stave::studio::SlurmJob", "no message") : text.section(QLatin1Char('\n'), 0, 2));
}

SlurmJobState stateOf(const QString& state, const QString& reason, const QString& exitCode) {
  SlurmJobState s;
  s.state = state.section(QLatin1Char(' '), 0, 0).trimmed();
  s.phase = slurmPhase(s.state);
  s.reason = reason == QLatin1String("None") || reason == QLatin1String("(null)") ? QString() : reason;
  s.exitCode = exitCode;
  return s;
}

QString field(const QString& text, const QString& key) {
  const QRegularExpression re(QStringLiteral("(?:^|\\s)%1=(\\S+)").arg(key));
  const auto m = re.match(text);
  return m.hasMatch() ? m.captured(1) : QString();
}

bool fail(QString* error, const QString& text) {
  if (error) *error = text;
  return false;
}

/// This user's name, for squeue's --user (squeue lists every user's jobs otherwise).
QString userName() {
  if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_name) return QString::fromLocal8Bit(pw->pw_name);
  return qEnvironmentVariable("USER");
}

/// The job id at the head of an answer line ("42", "42;cluster", "42|RUNNING"), "" when it is
/// not one.
QString leadingJobId(const QString& line, QChar separator) {
  const QString id = line.section(separator, 0, 0).trimmed();
  return isSlurmJobId(id) ? id : QString();
}

/// Orders job ids by their number (array and het parts after it).
bool newerJob(const QString& a, const QString& b) {
  static const QRegularExpression digits(QStringLiteral("^[0-9]+"));
  const qulonglong na = digits.match(a).captured(0).toULongLong(), nb = digits.match(b).captured(0).toULongLong();
  return na != nb ? na > nb : a > b;
}

}  // namespace

bool isSlurmJobId(const QString& id) {
  // Slurm's forms: 1234, 1234_7 (an array task), 1234+1 (a het job's part). Nothing else: a
  // record's id reaches squeue, sacct, scontrol and scancel.
  static const QRegularExpression re(QStringLiteral("^[0-9]{1,20}(_[0-9]{1,10})?(\\+[0-9]{1,10})?$"));
  return re.match(id).hasMatch();
}

QString slurmCommandsFolder(const QString& profile) {
  const Preferences prefs = Preferences::load();
  const ClusterProfile* p = prefs.cluster(profile);
  return p ? p->commandsFolder : QString();
}

ClusterJobRecord readClusterJob(const QString& runDir, QString* error) {
  ClusterJobRecord r;
  const QString path = QDir(runDir).filePath(clusterJobFileName());
  // A regular file of at most 1 MiB: a FIFO would block the reader, /dev/zero grow it for good.
  const auto bytes = readFileCapped(path.toStdString(), size_t{1} << 20);
  if (!bytes) {
    fail(error, errorsText(bytes.errors()));
    return r;
  }
  QJsonParseError pe;
  const QJsonDocument doc = QJsonDocument::fromJson(
      QByteArray::fromRawData(bytes->data(), static_cast<qsizetype>(bytes->size())), &pe);
  if (!doc.isObject()) {
    fail(error, QCoreApplication::translate("stave::studio::SlurmJob", "%1: not a JSON object (%2 at byte %3)").arg(path, pe.errorString()).arg(pe.offset));
    return r;
  }
  const QJsonObject o = doc.object();
  const QJsonValue id = o.value(QStringLiteral("job_id"));
  if (!id.isString()) {
    fail(error, QCoreApplication::translate("stave::studio::SlurmJob", "%1: job_id: expected the job's id as a string").arg(path));
    return r;
  }
  r.jobId = id.toString();
  r.submissionUnknown = o.value(QStringLiteral("submission")).toString() == QLatin1String("unknown");
  r.jobName = o.value(QStringLiteral("job_name")).toString();
  // Ids are data, never arguments: one that is not Slurm's form damages the record.
  if (!isSlurmJobId(r.jobId) && !(r.submissionUnknown && r.jobId.isEmpty())) {
    fail(error, QCoreApplication::translate("stave::studio::SlurmJob", "%1: job_id: '%2' is not a Slurm job id (digits, with _N or +N)").arg(path, r.jobId.left(64)));
    return {};
  }
  r.profile = o.value(QStringLiteral("profile")).toString();
  for (const auto& v : o.value(QStringLiteral("job_ids")).toArray()) {
    if (!isSlurmJobId(v.toString())) {
      fail(error, QCoreApplication::translate("stave::studio::SlurmJob", "%1: job_ids: '%2' is not a Slurm job id (digits, with _N or +N)")
                      .arg(path, v.toString().left(64)));
      return {};
    }
    r.jobIds << v.toString();
  }
  if (r.jobIds.isEmpty() && !r.jobId.isEmpty()) r.jobIds << r.jobId;
  r.project = o.value(QStringLiteral("project")).toString();
  r.configName = o.value(QStringLiteral("config")).toString();
  r.sharedDir = o.value(QStringLiteral("shared_dir")).toString(runDir);
  r.finalState = o.value(QStringLiteral("final_state")).toString();
  r.exitCode = o.value(QStringLiteral("exit_code")).toString();
  r.submittedAt = o.value(QStringLiteral("submitted_at")).toDouble();
  r.overSsh = o.value(QStringLiteral("transport")).toString() == QLatin1String("ssh");
  r.valid = true;
  return r;
}

bool writeClusterJob(const QString& runDir, const ClusterJobRecord& r, QString* error) {
  QJsonObject o{{QStringLiteral("job_id"), r.jobId},
                {QStringLiteral("job_ids"), QJsonArray::fromStringList(r.jobIds)},
                {QStringLiteral("profile"), r.profile},
                {QStringLiteral("project"), r.project},
                {QStringLiteral("config"), r.configName},
                {QStringLiteral("shared_dir"), r.sharedDir},
                {QStringLiteral("submitted_at"), r.submittedAt}};
  if (!r.finalState.isEmpty()) o.insert(QStringLiteral("final_state"), r.finalState);
  if (!r.exitCode.isEmpty()) o.insert(QStringLiteral("exit_code"), r.exitCode);
  if (!r.jobName.isEmpty()) o.insert(QStringLiteral("job_name"), r.jobName);
  if (r.submissionUnknown) o.insert(QStringLiteral("submission"), QStringLiteral("unknown"));
  if (r.overSsh) o.insert(QStringLiteral("transport"), QStringLiteral("ssh"));
  const QString path = QDir(runDir).filePath(clusterJobFileName());
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(o).toJson()) < 0 || !f.commit())
    return fail(error, QCoreApplication::translate("stave::studio::SlurmJob", "%1: cannot be written (%2)").arg(path, f.errorString()));
  return true;
}

SlurmJobState::Phase slurmPhase(const QString& word) {
  using P = SlurmJobState::Phase;
  // squeue's JOB STATE CODES, each once. A job that holds no allocation yet, or was put back in
  // the queue (requeued, held, a federation's requeue, SPECIAL_EXIT: requeued and held) waits;
  // one that holds its allocation runs, even stopped (SIGSTOP) or suspended, so Stop still
  // reaches it; the rest have ended.
  static const QHash<QString, P> kPhases = {
      {QStringLiteral("PENDING"), P::Pending},        {QStringLiteral("CONFIGURING"), P::Pending},
      {QStringLiteral("REQUEUED"), P::Pending},       {QStringLiteral("REQUEUE_HOLD"), P::Pending},
      {QStringLiteral("REQUEUE_FED"), P::Pending},    {QStringLiteral("RESV_DEL_HOLD"), P::Pending},
      {QStringLiteral("SPECIAL_EXIT"), P::Pending},   {QStringLiteral("RUNNING"), P::Running},
      {QStringLiteral("COMPLETING"), P::Running},     {QStringLiteral("SUSPENDED"), P::Running},
      {QStringLiteral("STOPPED"), P::Running},        {QStringLiteral("STAGE_OUT"), P::Running},
      {QStringLiteral("SIGNALING"), P::Running},      {QStringLiteral("RESIZING"), P::Running},
      {QStringLiteral("COMPLETED"), P::Completed},    {QStringLiteral("CANCELLED"), P::Cancelled},
      {QStringLiteral("REVOKED"), P::Cancelled},      {QStringLiteral("FAILED"), P::Failed},
      {QStringLiteral("TIMEOUT"), P::Failed},         {QStringLiteral("NODE_FAIL"), P::Failed},
      {QStringLiteral("OUT_OF_MEMORY"), P::Failed},   {QStringLiteral("BOOT_FAIL"), P::Failed},
      {QStringLiteral("DEADLINE"), P::Failed},        {QStringLiteral("PREEMPTED"), P::Failed},
  };
  // sacct may end a word with '+' where it cut it; such a word is not known.
  return kPhases.value(word.section(QLatin1Char(' '), 0, 0).trimmed().toUpper(), P::Unknown);
}

SlurmJobState querySlurmJob(const QString& folder, const QString& jobId, const std::atomic<bool>* stop) {
  if (!isSlurmJobId(jobId)) {
    SlurmJobState s;
    s.error = QCoreApplication::translate("stave::studio::SlurmJob", "'%1' is not a Slurm job id; Slurm was not asked").arg(jobId.left(64));
    return s;
  }
  // squeue: what slurmctld holds (pending, running, and ended jobs for MinJobAge). The id is
  // validated, and given as an option's value all the same.
  const Ran q = runCommand(slurmCommand(folder, QStringLiteral("squeue")),
                           {QStringLiteral("-h"), QStringLiteral("--jobs=") + jobId, QStringLiteral("--states=all"),
                            QStringLiteral("-o"), QStringLiteral("%T|%r")},
                           {}, {}, kAskMs, stop);
  const auto scontrol = [&] {
    return runCommand(slurmCommand(folder, QStringLiteral("scontrol")),
                      {QStringLiteral("show"), QStringLiteral("job"), jobId}, {}, {}, kAskMs, stop);
  };
  if (q.code == 0 && !q.out.isEmpty()) {
    const QString line = q.out.section(QLatin1Char('\n'), 0, 0);
    SlurmJobState s = stateOf(line.section(QLatin1Char('|'), 0, 0), line.section(QLatin1Char('|'), 1), {});
    // squeue has no exit code: an ended job's is asked of scontrol (once: then it is kept).
    if (s.ended()) s.exitCode = field(scontrol().out, QStringLiteral("ExitCode"));
    return s;
  }
  // sacct: the accounting database, for a job slurmctld has forgotten.
  const Ran a = runCommand(slurmCommand(folder, QStringLiteral("sacct")),
                           {QStringLiteral("-n"), QStringLiteral("-X"), QStringLiteral("-P"), QStringLiteral("--jobs=") + jobId,
                            QStringLiteral("-o"), QStringLiteral("State,ExitCode,Reason")},
                           {}, {}, kAskMs, stop);
  if (a.code == 0 && !a.out.isEmpty()) {
    const QStringList parts = a.out.section(QLatin1Char('\n'), 0, 0).split(QLatin1Char('|'));
    return stateOf(parts.value(0), parts.value(2), parts.value(1));
  }
  // scontrol: a cluster without accounting still knows an ended job for a few minutes.
  const Ran c = scontrol();
  if (c.code == 0 && !field(c.out, QStringLiteral("JobState")).isEmpty())
    return stateOf(field(c.out, QStringLiteral("JobState")), field(c.out, QStringLiteral("Reason")),
                   field(c.out, QStringLiteral("ExitCode")));
  SlurmJobState s;
  s.error = QCoreApplication::translate("stave::studio::SlurmJob", "no Slurm command knows job %1: %2; %3; %4")
                .arg(jobId, failure(QStringLiteral("squeue"), q), failure(QStringLiteral("sacct"), a),
                     failure(QStringLiteral("scontrol"), c));
  return s;
}

namespace {

/// One submission of a run at a time: an exclusive flock on the folder's .cluster_job.lock,
/// held while the record is read, sbatch asked and the record written (a read-modify-write).
class SubmitLock {
 public:
  ~SubmitLock() {
    if (m_fd >= 0) ::close(m_fd);
  }
  bool take(const QString& runDir, QString* error) {
    const QString path = QDir(runDir).filePath(QStringLiteral(".cluster_job.lock"));
    m_fd = ::open(QFile::encodeName(path).constData(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (m_fd < 0)
      return fail(error, QCoreApplication::translate("stave::studio::SlurmJob", "%1: cannot be opened (%2)").arg(path, QString::fromLocal8Bit(std::strerror(errno))));
    if (::flock(m_fd, LOCK_EX | LOCK_NB) == 0) return true;
    const int err = errno;
    return fail(error, err == EWOULDBLOCK
                           ? QCoreApplication::translate("stave::studio::SlurmJob", "%1 is being resubmitted already (by another window or studio); "
                                            "its record keeps the job that one sends")
                                 .arg(runDir)
                           : QCoreApplication::translate("stave::studio::SlurmJob", "%1: cannot be locked (%2)").arg(path, QString::fromLocal8Bit(std::strerror(err))));
  }

 private:
  int m_fd = -1;
};

}  // namespace

QString findSlurmJob(const QString& folder, const QString& jobName, const QStringList& known, double since,
                     const std::atomic<bool>* stop) {
  if (jobName.isEmpty()) return {};
  const auto newest = [&](const QString& out, QChar separator) {
    QString best;
    for (const QString& line : out.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
      const QString id = leadingJobId(line, separator);
      if (!id.isEmpty() && !known.contains(id) && (best.isEmpty() || newerJob(id, best))) best = id;
    }
    return best;
  };
  QStringList args{QStringLiteral("-h"), QStringLiteral("--name=") + jobName, QStringLiteral("--states=all"),
                   QStringLiteral("-o"), QStringLiteral("%i|%T")};
  if (const QString user = userName(); !user.isEmpty()) args << QStringLiteral("--user=") + user;
  const Ran q = runCommand(slurmCommand(folder, QStringLiteral("squeue")), args, {}, {}, kAskMs, stop);
  if (q.code == 0)
    if (const QString id = newest(q.out, QLatin1Char('|')); !id.isEmpty()) return id;
  // sacct lists only jobs from a start time (today by default): from a little before the
  // submission.
  const QDateTime from = QDateTime::fromSecsSinceEpoch(static_cast<qint64>(since) - 600);
  const Ran a = runCommand(slurmCommand(folder, QStringLiteral("sacct")),
                           {QStringLiteral("-n"), QStringLiteral("-X"), QStringLiteral("-P"), QStringLiteral("--name=") + jobName,
                            QStringLiteral("--starttime=") + from.toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss")),
                            QStringLiteral("-o"), QStringLiteral("JobID,State")},
                           {}, {}, kAskMs, stop);
  return a.code == 0 ? newest(a.out, QLatin1Char('|')) : QString();
}

bool findUnknownSubmission(const QString& commandsFolder, const QString& runDir, ClusterJobRecord* record, QString* error,
                           const std::atomic<bool>* stop) {
  const QString id = findSlurmJob(commandsFolder, record->jobName, record->jobIds,
                                  record->submittedAt, stop);
  if (id.isEmpty())
    return fail(error, QCoreApplication::translate("stave::studio::SlurmJob", "sbatch gave no answer for this run's job, and Slurm lists no job named %1 "
                                      "yet; the run folder %2 is kept while it is looked for (squeue --name=%1)")
                           .arg(record->jobName, runDir));
  // Read again: another studio may have found it, or resubmitted, since. Written only under
  // the record's lock (a submission that holds it — the caller's own resume, or another
  // studio's — writes the record itself).
  SubmitLock lock;
  const bool locked = lock.take(runDir, nullptr);
  ClusterJobRecord now = locked ? readClusterJob(runDir) : *record;
  if (now.valid && now.submissionUnknown && now.jobName == record->jobName) {
    now.jobId = id;
    now.jobIds << id;
    now.submissionUnknown = false;
    if (locked) writeClusterJob(runDir, now, error);
  }
  if (now.valid) *record = now;
  return true;
}

bool recordJobEnd(const QString& runDir, const QString& jobId, const SlurmJobState& state,
                  ClusterJobRecord* written) {
  SubmitLock lock;
  if (!lock.take(runDir, nullptr)) return false;
  ClusterJobRecord now = readClusterJob(runDir);
  if (!now.valid || now.jobId != jobId || !state.ended()) return false;
  now.finalState = state.state;
  now.exitCode = state.exitCode;
  if (!writeClusterJob(runDir, now)) return false;
  if (written) *written = now;
  return true;
}

namespace {

/// The sbatch text of a submission: the project's config for a new run, the run's own config
/// (config.yaml, with a new epoch total) for a resume.
Result<std::string> jobText(const ClusterSubmission& s, const QString& jobName) {
  auto options = s.profile.exportOptions(jobName);
  if (!s.resume) {
    auto project = config::loadProject(s.projectFile.toStdString());
    if (!project) return project.errors();
    options.jobName.clear();  // the CLI's: <project>-<config>
    return config::exportProjectConfig(project.value(), s.configName.toStdString(),
                                       [&] {
                                         std::vector<std::string> kv;
                                         for (const auto& o : s.overrides) kv.push_back(o.toStdString());
                                         return kv;
                                       }(),
                                       config::ExportFormat::Slurm, options);
  }
  std::vector<std::string> kv;
  if (s.epochs > 0) kv.push_back("epochs=" + std::to_string(s.epochs));
  auto cfg = config::loadRunConfigWithOverrides(QDir(s.runDir).filePath(QStringLiteral("config.yaml")).toStdString(), kv);
  if (!cfg) return cfg.errors();
  return config::exportRunConfig(cfg.value(), config::ExportFormat::Slurm, options);
}

QString errorLines(const std::vector<Error>& errors) {
  QStringList out;
  for (const auto& e : errors) out << errorText(e);
  return out.join(QStringLiteral("; "));
}

/// Where a new run's files go: the profile's run folder/<project>/<run id>, or the run folder
/// itself. Made (and linked from the project's runs/) here.
bool makeRunFolder(const ClusterSubmission& s, QString* shared, QString* error) {
  if (QFileInfo::exists(s.runDir) || QFileInfo(s.runDir).isSymLink())
    return fail(error, QCoreApplication::translate("stave::studio::SlurmJob", "%1 already exists").arg(s.runDir));
  if (s.profile.runFolder.isEmpty()) {
    *shared = s.runDir;
    return QDir().mkpath(s.runDir) || fail(error, QCoreApplication::translate("stave::studio::SlurmJob", "%1: cannot be made").arg(s.runDir));
  }
  const QString projectName = QFileInfo(s.projectFile).completeBaseName();
  *shared = QDir(s.profile.runFolder).filePath(projectName + QLatin1Char('/') + QFileInfo(s.runDir).fileName());
  if (QFileInfo::exists(*shared)) return fail(error, QCoreApplication::translate("stave::studio::SlurmJob", "%1 already exists").arg(*shared));
  if (!QDir().mkpath(*shared))
    return fail(error, QCoreApplication::translate("stave::studio::SlurmJob", "%1: cannot be made (is the cluster's run folder %2 mounted and writable?)")
                           .arg(*shared, s.profile.runFolder));
  QDir().mkpath(QFileInfo(s.runDir).absolutePath());
  if (!QFile::link(*shared, s.runDir)) {
    QDir(*shared).removeRecursively();
    return fail(error, QCoreApplication::translate("stave::studio::SlurmJob", "%1: cannot link it to %2").arg(s.runDir, *shared));
  }
  return true;
}

void removeRunFolder(const ClusterSubmission& s, const QString& shared) {
  if (QFileInfo(s.runDir).isSymLink()) QFile::remove(s.runDir);
  QDir(shared).removeRecursively();
}

/// run.lock of a run whose Slurm jobs have all ended, naming one of them: what a job killed
/// outright (SIGKILL at its time limit, a lost node) leaves behind. The run lock holds per host,
/// so that record would refuse the next job on another node as a live run: it is removed. Any
/// other run.lock (a run started outside Slurm, another job) stays.
void clearEndedJobLock(const QString& runDir, const QStringList& endedJobs) {
  const QString path = QDir(runDir).filePath(QStringLiteral("run.lock"));
  const auto text = readFileCapped(path.toStdString(), 4096);
  if (!text) return;
  static const QRegularExpression re(QStringLiteral("(?:^|\\n)slurm_job=([0-9]+)\\n"));
  const auto m = re.match(QString::fromStdString(text.value()));
  if (m.hasMatch() && endedJobs.contains(m.captured(1))) QFile::remove(path);
}

/// The run's job name: the export's "<project>-<config>" and the run's id, in Slurm's safe
/// characters — how the job is found when sbatch's answer is lost.
QString runJobName(const QString& name, const QString& runId) {
  QString out;
  for (const QChar c : name + QLatin1Char('.') + runId)
    out += (c.isLetterOrNumber() && c.unicode() < 128) || c == QLatin1Char('_') || c == QLatin1Char('-') || c == QLatin1Char('.')
               ? c
               : QLatin1Char('-');
  // Never a leading '-' (a record without its project gives "-.<run id>").
  while (!out.isEmpty() && !out.front().isLetterOrNumber()) out.remove(0, 1);
  return out.isEmpty() ? QStringLiteral("stave") : out;
}

/// sbatch --parsable prints "ID" or "ID;cluster", maybe among lines of a site's banner (a
/// wrapper that drops --parsable: "Submitted batch job ID"): the last line that is one. ""
/// when none is.
QString sbatchJobId(const QString& out) {
  static const QRegularExpression plain(QStringLiteral("^Submitted batch job (\\S+)$"));
  const QStringList lines = out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  for (auto it = lines.crbegin(); it != lines.crend(); ++it) {
    const QString line = it->trimmed();
    if (const auto m = plain.match(line); m.hasMatch() && isSlurmJobId(m.captured(1))) return m.captured(1);
    if (const QString id = leadingJobId(line, QLatin1Char(';')); !id.isEmpty() && !line.contains(QLatin1Char(' ')))
      return id;
  }
  return {};
}

/// A file name pattern for sbatch's --output: '%' is Slurm's escape, so a folder's own '%' is
/// doubled (a folder "a%jb" would otherwise become "a<jobid>b").
QString outputPattern(const QString& folder) {
  QString escaped = folder;
  escaped.replace(QLatin1Char('%'), QStringLiteral("%%"));
  return escaped + QStringLiteral("/slurm-%j.out");
}

}  // namespace

QString checkAgainstPartition(const ClusterProfile& profile, const QString& sbatchText,
                              const QString& sinfoAnswer) {
  // What the job asks for, from the file as the export wrote it.
  const auto option = [&](const QString& name) {
    const QRegularExpression re(QStringLiteral("^#SBATCH --%1=(\\S+)$").arg(name),
                                QRegularExpression::MultilineOption);
    const auto m = re.match(sbatchText);
    return m.hasMatch() ? m.captured(1) : QString();
  };
  const int nodes = std::max(1, option(QStringLiteral("nodes")).toInt());
  const int tasks = std::max(1, option(QStringLiteral("ntasks-per-node")).toInt());
  const int cpus = std::max(1, option(QStringLiteral("cpus-per-task")).toInt());
  const int gpus = option(QStringLiteral("gpus-per-node")).toInt();
  QString partition = option(QStringLiteral("partition"));
  // sinfo -h -o "%P|%c|%G|%D": a line per partition and node configuration.
  struct Offer {
    int cpus = 0, gpus = 0, nodes = 0;
    bool found = false;
  } offer;
  QStringList names;
  for (const QString& line : sinfoAnswer.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
    const QStringList f = line.trimmed().split(QLatin1Char('|'));
    if (f.size() < 4) continue;
    QString name = f[0];
    const bool isDefault = name.endsWith(QLatin1Char('*'));
    if (isDefault) name.chop(1);
    if (!names.contains(name)) names << name;
    if (partition.isEmpty() && isDefault) partition = name;
    if (name != partition) continue;
    offer.found = true;
    QString c = f[1];
    c.remove(QLatin1Char('+'));  // "2+": nodes of several sizes, the smallest first
    offer.cpus = std::max(offer.cpus, c.toInt());
    // %G: "(null)", "gpu:4", "gpu:a100:4", "gpu:4(S:0-1),mps:100"
    for (const QString& g : f[2].split(QLatin1Char(','))) {
      if (!g.startsWith(QLatin1String("gpu"))) continue;
      const QString plain = g.left(g.indexOf(QLatin1Char('(')) < 0 ? g.size() : g.indexOf(QLatin1Char('(')));
      offer.gpus = std::max(offer.gpus, plain.section(QLatin1Char(':'), -1).toInt());
    }
    offer.nodes += f[3].toInt();
  }
  if (partition.isEmpty() || names.isEmpty()) return {};  // nothing to compare with: sbatch judges
  // In the UI language (catalog messages, English without a translation).
  const auto say = [](const char* id, std::vector<Text::Arg> args) { return engineText(Text(id, std::move(args))); };
  const auto n = [](int v) { return std::to_string(v); };
  if (!offer.found)
    return say("cluster.no_partition", {{"partition", partition.toStdString()},
                                        {"partitions", names.join(QStringLiteral(", ")).toStdString()}});
  if (offer.cpus > 0 && cpus * tasks > offer.cpus)
    return say("cluster.too_many_cpus", {{"profile", profile.name.toStdString()},
                                         {"cpus", n(cpus * tasks)},
                                         {"per_rank", n(cpus)},
                                         {"ranks", n(tasks)},
                                         {"partition", partition.toStdString()},
                                         {"offer", n(offer.cpus)}});
  if (gpus > offer.gpus)
    return say("cluster.too_many_gpus", {{"profile", profile.name.toStdString()},
                                         {"gpus", n(gpus)},
                                         {"partition", partition.toStdString()},
                                         {"offer", n(offer.gpus)}});
  if (offer.nodes > 0 && nodes > offer.nodes)
    return say("cluster.too_many_nodes", {{"profile", profile.name.toStdString()},
                                          {"nodes", n(nodes)},
                                          {"partition", partition.toStdString()},
                                          {"offer", n(offer.nodes)}});
  return {};
}

ClusterJobRecord submitClusterRun(const ClusterSubmission& s, QString* error) {
  ClusterJobRecord rec;
  const QString name = QFileInfo(s.projectFile).completeBaseName() + QLatin1Char('-') + s.configName;
  SubmitLock lock;
  if (s.resume) {
    // Two resumes at once: the second waits for nothing and is refused, so the record keeps
    // the job that trains.
    if (!lock.take(s.runDir, error)) return {};
    QString why;
    rec = readClusterJob(s.runDir, &why);
    if (!rec.valid) {
      fail(error, why);
      return {};
    }
    if (rec.submissionUnknown) {
      // sbatch's answer was lost: its job may still appear. Once Slurm has listed no job of
      // that name for 10 minutes the submission is taken as refused.
      QString why;
      const bool found = findUnknownSubmission(s.profile.commandsFolder, s.runDir, &rec, &why);
      if (!found && QDateTime::currentSecsSinceEpoch() - rec.submittedAt < kLostSubmissionWaitS) {
        fail(error, QCoreApplication::translate("stave::studio::SlurmJob", "%1: its last submission (a job named %2) is not known to Slurm yet and may still "
                                   "start; it is resumed once that job has ended, or when none has appeared "
                                   "10 minutes after it was sent")
                        .arg(s.runDir, rec.jobName));
        return {};
      }
    }
    // The newest job must have ended (a resume sent a moment ago by another studio has not).
    if (!rec.jobId.isEmpty() && slurmPhase(rec.finalState) == SlurmJobState::Phase::Unknown) {
      const SlurmJobState st = querySlurmJob(s.profile.commandsFolder, rec.jobId);
      if (!st.ended()) {
        fail(error, st.error.isEmpty()
                        ? QCoreApplication::translate("stave::studio::SlurmJob", "Slurm job %1 of %2 is %3; a run is resumed once its job has ended")
                              .arg(rec.jobId, s.runDir, st.state.isEmpty() ? QCoreApplication::translate("stave::studio::SlurmJob", "not ended") : st.state)
                        : QCoreApplication::translate("stave::studio::SlurmJob", "%1: whether Slurm job %2 has ended is not known, so the run is not "
                                         "resumed: %3")
                              .arg(s.runDir, rec.jobId, st.error));
        return {};
      }
    }
    if (!QFileInfo::exists(QDir(s.runDir).filePath(QStringLiteral("config.yaml")))) {
      fail(error, QCoreApplication::translate("stave::studio::SlurmJob", "%1 has no config.yaml: its job never started training; run the config again instead").arg(s.runDir));
      return {};
    }
    clearEndedJobLock(s.runDir, rec.jobIds);
  }
  auto text = jobText(s, name);
  if (!text) {
    fail(error, errorLines(text.errors()));
    return {};
  }
  // What the partition offers, before a job is sent that could never start. A cluster whose
  // sinfo cannot be asked is left to sbatch.
  {
    const Ran info = runCommand(s.profile.command(QStringLiteral("sinfo")),
                                {QStringLiteral("-h"), QStringLiteral("-o"), QStringLiteral("%P|%c|%G|%D")}, {}, {},
                                kAskMs);
    if (info.code == 0) {
      const QString why = checkAgainstPartition(s.profile, QString::fromStdString(text.value()), info.out);
      if (!why.isEmpty()) {
        fail(error, why);
        return {};
      }
    }
  }
  // A resume: the folder itself as the nodes see it (the link's target), not what the record
  // says — a record copied from elsewhere must not send the job to another folder.
  QString shared = s.resume ? QFileInfo(s.runDir).canonicalFilePath() : QString();
  if (!s.resume && !makeRunFolder(s, &shared, error)) return {};
  const QString file = QDir(shared).filePath(QStringLiteral("job.sbatch"));
  if (auto st = config::writeExportFile(file.toStdString(), text.value(), config::ExportFormat::Slurm); !st) {
    fail(error, errorLines(st.errors()));
    if (!s.resume) removeRunFolder(s, shared);
    return {};
  }
  QStringList env{QStringLiteral("STAVE_RUN_DIR=") + shared, QStringLiteral("STAVE_TRAIN=") + s.trainExecutable};
  if (s.resume) env << QStringLiteral("STAVE_RESUME=1");
  const QString jobName = runJobName(name, QFileInfo(s.runDir).fileName());
  const double submittedAt = QDateTime::currentMSecsSinceEpoch() / 1000.0;
  const Ran r = runCommand(s.profile.command(QStringLiteral("sbatch")),
                           {QStringLiteral("--parsable"), QStringLiteral("--job-name=") + jobName,
                            QStringLiteral("--chdir=") + shared, QStringLiteral("--output=") + outputPattern(shared), file},
                           env, shared, s.sbatchTimeoutMs);
  QString id = r.code == 0 ? sbatchJobId(r.out) : QString();
  QString note;  // said with a job that runs
  // sbatch said no (an exit code of its own, not a time-out talking to slurmctld): nothing was
  // accepted, a new run's folder goes again.
  const bool refused = r.started && r.code > 0 && !r.err.contains(QLatin1String("timed out"), Qt::CaseInsensitive) &&
                       !r.err.contains(QLatin1String("time out"), Qt::CaseInsensitive);
  if (refused || !r.started) {
    fail(error, refused ? QCoreApplication::translate("stave::studio::SlurmJob", "the cluster '%1' refused the job: %2").arg(s.profile.name, failure(QStringLiteral("sbatch"), r))
                        : QCoreApplication::translate("stave::studio::SlurmJob", "the job could not be sent to the cluster '%1': %2").arg(s.profile.name, r.err));
    if (!s.resume) removeRunFolder(s, shared);
    return {};
  }
  if (id.isEmpty()) {
    // The answer is lost (sbatch timed out, or said no id) while the job may have been
    // accepted: it is looked for by its name, and the folder, which it may use, is kept.
    id = findSlurmJob(s.profile.commandsFolder, jobName, rec.jobIds, submittedAt);
    const QString what = r.code < 0 ? r.err : failure(QStringLiteral("sbatch"), r);
    if (id.isEmpty()) {
      note = QCoreApplication::translate("stave::studio::SlurmJob", "sbatch's answer was lost (%1); the job may have been accepted, so the run folder %2 is "
                            "kept and Slurm is asked for a job named %3 (squeue --name=%3). If none appears, "
                            "start the run again.")
                 .arg(what.isEmpty() ? QCoreApplication::translate("stave::studio::SlurmJob", "no job id") : what, shared, jobName);
    } else {
      note = QCoreApplication::translate("stave::studio::SlurmJob", "sbatch's answer was lost (%1); Slurm lists the job by its name: job %2")
                 .arg(what.isEmpty() ? QCoreApplication::translate("stave::studio::SlurmJob", "no job id") : what, id);
    }
  }
  rec.profile = s.profile.name;
  if (!s.resume) {
    rec.project = QFileInfo(s.projectFile).absoluteFilePath();
    rec.configName = s.configName;
  }
  rec.sharedDir = shared;
  rec.jobId = id;
  rec.submissionUnknown = id.isEmpty();
  if (!id.isEmpty()) rec.jobIds << id;
  rec.jobName = jobName;
  rec.finalState.clear();
  rec.exitCode.clear();
  rec.submittedAt = submittedAt;
  rec.valid = true;
  if (error) *error = note;
  // The job runs already (or may): a record that cannot be written is said, not fatal.
  QString why;
  if (!writeClusterJob(shared, rec, &why) && error) *error = note.isEmpty() ? why : note + QStringLiteral("; ") + why;
  return rec;
}

QString cancelSlurmJob(const QString& folder, const QString& jobId, bool pending) {
  // A record's id is data: validated, it cannot be an option (scancel --user=root would stop
  // every job of that user).
  if (!isSlurmJobId(jobId)) return QCoreApplication::translate("stave::studio::SlurmJob", "'%1' is not a Slurm job id; nothing was cancelled").arg(jobId.left(64));
  QStringList args;
  if (!pending) args << QStringLiteral("--signal=TERM");
  args << jobId;
  const Ran r = runCommand(slurmCommand(folder, QStringLiteral("scancel")), args, {}, {}, 30000);
  return r.code == 0 ? QString() : failure(QStringLiteral("scancel"), r);
}

}  // namespace stave::studio
