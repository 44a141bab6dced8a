#include "core/studio/slurm_job.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSaveFile>

#include <atomic>

#include "core/base/bounded_read.h"
#include "core/config/export.h"
#include "core/config/project.h"
#include "core/config/run_config.h"
#include "core/studio/child_process.h"
#include "core/studio/preferences.h"

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
  return QStringLiteral("%1 (exit %2): %3").arg(name).arg(r.code).arg(text.isEmpty() ? QStringLiteral("no message") : text.section(QLatin1Char('\n'), 0, 2));
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

}  // namespace

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
    fail(error, QString::fromStdString(bytes.errorText()));
    return r;
  }
  QJsonParseError pe;
  const QJsonDocument doc = QJsonDocument::fromJson(
      QByteArray::fromRawData(bytes->data(), static_cast<qsizetype>(bytes->size())), &pe);
  if (!doc.isObject()) {
    fail(error, QStringLiteral("%1: not a JSON object (%2 at byte %3)").arg(path, pe.errorString()).arg(pe.offset));
    return r;
  }
  const QJsonObject o = doc.object();
  const QJsonValue id = o.value(QStringLiteral("job_id"));
  if (!id.isString() || id.toString().isEmpty()) {
    fail(error, QStringLiteral("%1: job_id: expected the job's id as a string").arg(path));
    return r;
  }
  r.jobId = id.toString();
  r.profile = o.value(QStringLiteral("profile")).toString();
  for (const auto& v : o.value(QStringLiteral("job_ids")).toArray()) r.jobIds << v.toString();
  if (r.jobIds.isEmpty()) r.jobIds << r.jobId;
  r.project = o.value(QStringLiteral("project")).toString();
  r.configName = o.value(QStringLiteral("config")).toString();
  r.sharedDir = o.value(QStringLiteral("shared_dir")).toString(runDir);
  r.finalState = o.value(QStringLiteral("final_state")).toString();
  r.exitCode = o.value(QStringLiteral("exit_code")).toString();
  r.submittedAt = o.value(QStringLiteral("submitted_at")).toDouble();
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
  const QString path = QDir(runDir).filePath(clusterJobFileName());
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(o).toJson()) < 0 || !f.commit())
    return fail(error, QStringLiteral("%1: cannot be written (%2)").arg(path, f.errorString()));
  return true;
}

SlurmJobState::Phase slurmPhase(const QString& word) {
  using P = SlurmJobState::Phase;
  const QString s = word.section(QLatin1Char(' '), 0, 0).toUpper();
  if (s.isEmpty()) return P::Unknown;
  if (s == QLatin1String("PENDING") || s == QLatin1String("CONFIGURING") || s == QLatin1String("REQUEUED") ||
      s == QLatin1String("REQUEUE_HOLD") || s == QLatin1String("RESV_DEL_HOLD"))
    return P::Pending;
  if (s == QLatin1String("RUNNING") || s == QLatin1String("COMPLETING") || s == QLatin1String("SUSPENDED") ||
      s == QLatin1String("STAGE_OUT") || s == QLatin1String("SIGNALING") || s == QLatin1String("RESIZING"))
    return P::Running;
  if (s == QLatin1String("COMPLETED")) return P::Completed;
  if (s == QLatin1String("CANCELLED")) return P::Cancelled;
  return P::Failed;  // FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL, DEADLINE, PREEMPTED
}

SlurmJobState querySlurmJob(const QString& folder, const QString& jobId, const std::atomic<bool>* stop) {
  // squeue: what slurmctld holds (pending, running, and ended jobs for MinJobAge).
  const Ran q = runCommand(slurmCommand(folder, QStringLiteral("squeue")),
                           {QStringLiteral("-h"), QStringLiteral("-j"), jobId, QStringLiteral("--states=all"),
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
                           {QStringLiteral("-n"), QStringLiteral("-X"), QStringLiteral("-P"), QStringLiteral("-j"), jobId,
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
  s.error = QStringLiteral("no Slurm command knows job %1: %2; %3; %4")
                .arg(jobId, failure(QStringLiteral("squeue"), q), failure(QStringLiteral("sacct"), a),
                     failure(QStringLiteral("scontrol"), c));
  return s;
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

QString errorsText(const std::vector<Error>& errors) {
  QStringList out;
  for (const auto& e : errors) out << QString::fromStdString(e.toString());
  return out.join(QStringLiteral("; "));
}

/// Where a new run's files go: the profile's run folder/<project>/<run id>, or the run folder
/// itself. Made (and linked from the project's runs/) here.
bool makeRunFolder(const ClusterSubmission& s, QString* shared, QString* error) {
  if (QFileInfo::exists(s.runDir) || QFileInfo(s.runDir).isSymLink())
    return fail(error, QStringLiteral("%1 already exists").arg(s.runDir));
  if (s.profile.runFolder.isEmpty()) {
    *shared = s.runDir;
    return QDir().mkpath(s.runDir) || fail(error, QStringLiteral("%1: cannot be made").arg(s.runDir));
  }
  const QString projectName = QFileInfo(s.projectFile).completeBaseName();
  *shared = QDir(s.profile.runFolder).filePath(projectName + QLatin1Char('/') + QFileInfo(s.runDir).fileName());
  if (QFileInfo::exists(*shared)) return fail(error, QStringLiteral("%1 already exists").arg(*shared));
  if (!QDir().mkpath(*shared))
    return fail(error, QStringLiteral("%1: cannot be made (is the cluster's run folder %2 mounted and writable?)")
                           .arg(*shared, s.profile.runFolder));
  QDir().mkpath(QFileInfo(s.runDir).absolutePath());
  if (!QFile::link(*shared, s.runDir)) {
    QDir(*shared).removeRecursively();
    return fail(error, QStringLiteral("%1: cannot link it to %2").arg(s.runDir, *shared));
  }
  return true;
}

void removeRunFolder(const ClusterSubmission& s, const QString& shared) {
  if (QFileInfo(s.runDir).isSymLink()) QFile::remove(s.runDir);
  QDir(shared).removeRecursively();
}

}  // namespace

ClusterJobRecord submitClusterRun(const ClusterSubmission& s, QString* error) {
  ClusterJobRecord rec;
  const QString name = QFileInfo(s.projectFile).completeBaseName() + QLatin1Char('-') + s.configName;
  if (s.resume) {
    QString why;
    rec = readClusterJob(s.runDir, &why);
    if (!rec.valid) {
      fail(error, why);
      return {};
    }
    if (!QFileInfo::exists(QDir(s.runDir).filePath(QStringLiteral("config.yaml")))) {
      fail(error, QStringLiteral("%1 has no config.yaml: its job never started training; run the config again instead").arg(s.runDir));
      return {};
    }
  }
  auto text = jobText(s, name);
  if (!text) {
    fail(error, errorsText(text.errors()));
    return {};
  }
  // A resume: the folder itself as the nodes see it (the link's target), not what the record
  // says — a record copied from elsewhere must not send the job to another folder.
  QString shared = s.resume ? QFileInfo(s.runDir).canonicalFilePath() : QString();
  if (!s.resume && !makeRunFolder(s, &shared, error)) return {};
  const QString file = QDir(shared).filePath(QStringLiteral("job.sbatch"));
  if (auto st = config::writeExportFile(file.toStdString(), text.value(), config::ExportFormat::Slurm); !st) {
    fail(error, errorsText(st.errors()));
    if (!s.resume) removeRunFolder(s, shared);
    return {};
  }
  QStringList env{QStringLiteral("STAVE_RUN_DIR=") + shared, QStringLiteral("STAVE_TRAIN=") + s.trainExecutable};
  if (s.resume) env << QStringLiteral("STAVE_RESUME=1");
  const Ran r = runCommand(s.profile.command(QStringLiteral("sbatch")),
                           {QStringLiteral("--parsable"), QStringLiteral("--chdir=") + shared,
                            QStringLiteral("--output=") + QDir(shared).filePath(QStringLiteral("slurm-%j.out")), file},
                           env, shared);
  const QString id = r.out.section(QLatin1Char('\n'), -1).section(QLatin1Char(';'), 0, 0).trimmed();
  if (r.code != 0 || id.isEmpty()) {
    fail(error, r.started ? QStringLiteral("the cluster '%1' refused the job: %2").arg(s.profile.name, failure(QStringLiteral("sbatch"), r))
                          : QStringLiteral("the job could not be sent to the cluster '%1': %2").arg(s.profile.name, r.err));
    if (!s.resume) removeRunFolder(s, shared);
    return {};
  }
  rec.profile = s.profile.name;
  if (!s.resume) {
    rec.project = QFileInfo(s.projectFile).absoluteFilePath();
    rec.configName = s.configName;
  }
  rec.sharedDir = shared;
  rec.jobId = id;
  rec.jobIds << id;
  rec.finalState.clear();
  rec.exitCode.clear();
  rec.submittedAt = QDateTime::currentMSecsSinceEpoch() / 1000.0;
  rec.valid = true;
  // The job runs already: a record that cannot be written is said, not fatal.
  if (!writeClusterJob(shared, rec, error)) return rec;
  return rec;
}

QString cancelSlurmJob(const QString& folder, const QString& jobId, bool pending) {
  QStringList args;
  if (!pending) args << QStringLiteral("--signal=TERM");
  args << jobId;
  const Ran r = runCommand(slurmCommand(folder, QStringLiteral("scancel")), args, {}, {}, 30000);
  return r.code == 0 ? QString() : failure(QStringLiteral("scancel"), r);
}

}  // namespace stave::studio
