// Submitting to a cluster behind SSH when the link misbehaves, through a fake transport: the
// quoted command lines run in a local shell (as the login node's shell gets them) against a fake
// Slurm (sbatch, squeue, sacct, scontrol as small scripts keeping their jobs in a file), and the
// transport drops sbatch's answer after it ran, or the line before it ran, or everything for a
// while. One submission makes at most one job; a resume is refused while a job of the run
// is pending or running, while run.lock names a live job, or while another resume of the run
// holds its lock.
#include <QtTest/QtTest>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "common/project_fixture.h"
#include "core/base/atomic_file.h"
#include "core/cluster/remote_job.h"
#include "core/config/project.h"
#include "core/config/run_config.h"

using namespace stave::cluster;

namespace {

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeAll(const QString& path, const QByteArray& bytes, bool executable = false) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(bytes) != bytes.size()) return false;
  if (executable) f.setPermissions(f.permissions() | QFileDevice::ExeOwner | QFileDevice::ExeUser);
  return true;
}

// The fake Slurm: jobs are lines "ID|NAME|STATE|DIR" in <commands>/jobs; each call is logged
// in <commands>/calls.
const char* kSqueue = R"sh(#!/bin/sh
here=$(dirname "$0")
echo squeue "$@" >> "$here/calls"
name= states= jobs= fmt='%i' next=
for a in "$@"; do
  if [ "$next" = fmt ]; then fmt=$a; next=; continue; fi
  case $a in
    --name=*) name=${a#--name=};;
    --states=*) states=${a#--states=};;
    --jobs=*) jobs=${a#--jobs=};;
    -o) next=fmt;;
  esac
done
[ -f "$here/jobs" ] || : > "$here/jobs"
N="$name" S="$states" J="$jobs" F="$fmt" awk -F'|' '
{ id=$1; nm=$2; st=$3; dir=$4; for (i = 5; i <= NF; i++) dir = dir "|" $i
  if (ENVIRON["N"] != "" && nm != ENVIRON["N"]) next
  if (ENVIRON["J"] != "" && id != ENVIRON["J"]) next
  if (ENVIRON["S"] != "all" && st != "PENDING" && st != "RUNNING") next
  f = ENVIRON["F"]; out = ""
  for (i = 1; i <= length(f); i++) {
    c = substr(f, i, 1)
    if (c == "%") { i++; c = substr(f, i, 1); out = out (c == "i" ? id : (c == "T" ? st : (c == "Z" ? dir : (c == "r" ? "None" : "")))) }
    else out = out c
  }
  print out; found = 1 }
END { if (ENVIRON["J"] != "" && !found) { print "slurm_load_jobs error: Invalid job id specified" > "/dev/stderr"; exit 1 } }' "$here/jobs"
)sh";

const char* kSbatch = R"sh(#!/bin/sh
here=$(dirname "$0")
echo sbatch "$@" >> "$here/calls"
name= dir=
for a in "$@"; do case $a in --job-name=*) name=${a#--job-name=};; --chdir=*) dir=${a#--chdir=};; esac; done
[ -f "$here/jobs" ] || : > "$here/jobs"
id=$(( $(wc -l < "$here/jobs") + 100 ))
printf '%s|%s|PENDING|%s\n' "$id" "$name" "$dir" >> "$here/jobs"
echo "$id"
)sh";

const char* kNoAccounting = "#!/bin/sh\necho \"$(basename \"$0\"): error: Slurm accounting storage is disabled\" >&2\nexit 1\n";

/// The transport: a local shell, with faults.
struct FakeLink {
  int dropSbatchAnswer = 0;  ///< the next N sbatch lines run, and their answer is lost
  int failBeforeSbatch = 0;  ///< the next N sbatch lines never reach the cluster
  bool down = false;         ///< every line fails (the link is gone)
  int sbatchLines = 0;       ///< sbatch lines sent (reaching the cluster or not)

  static RemoteResult gone() {
    RemoteResult r;
    r.process.end = ProcessEnd::Finished;
    r.process.exitCode = 255;
    r.process.err = "Connection to login closed by remote host.\r\n";
    r.failure = classifySsh(r.process);
    r.message = "ssh login: the cluster cannot be reached now";
    return r;
  }
  RemoteResult operator()(const std::string& line, const ProcessOptions& o) {
    const bool sbatch = line.find("--parsable") != std::string::npos;
    if (sbatch) ++sbatchLines;
    if (down) return gone();
    if (sbatch && failBeforeSbatch > 0) {
      --failBeforeSbatch;
      return gone();
    }
    RemoteResult r;
    r.process = runProcess({"sh", "-c", line}, o);
    if (sbatch && dropSbatchAnswer > 0) {
      --dropSbatchAnswer;
      return gone();
    }
    return r;
  }
};

}  // namespace

class TstRemoteJob : public QObject {
  Q_OBJECT
 private slots:
  void init() {
    QVERIFY(m_tmp.isValid());
    m_base = m_tmp.filePath(QString::fromLatin1(QTest::currentTestFunction()));
    m_commands = m_base + "/slurm bin";
    QVERIFY(QDir().mkpath(m_commands));
    QVERIFY(writeAll(m_commands + "/squeue", kSqueue, true));
    QVERIFY(writeAll(m_commands + "/sbatch", kSbatch, true));
    QVERIFY(writeAll(m_commands + "/sacct", kNoAccounting, true));
    QVERIFY(writeAll(m_commands + "/scontrol", kNoAccounting, true));
    QVERIFY(QDir().mkpath(m_base + "/scratch/it's \"ours\" $HOME; x"));
    m_projectDir = std::make_unique<QTemporaryDir>(m_base + "/project-XXXXXX");
    QVERIFY(m_projectDir->isValid());
    m_project = stave::testing::makeProject(*m_projectDir);
    m_link = std::make_shared<FakeLink>();
  }

  // The link drops after sbatch ran: the job is found by its name and folder, not sent again.
  void lostAnswerFindsTheJob() {
    m_link->dropSbatchAnswer = 1;
    auto rec = submitRemote(submission(), runner());
    QVERIFY2(rec, rec ? "" : rec.errorText().c_str());
    QCOMPARE(jobLines(), 1);
    QCOMPARE(m_link->sbatchLines, 1);
    QCOMPARE(rec->jobId, std::string("100"));
    QVERIFY(!rec->submissionUnknown);
    auto onDisk = readRunRecord(localDir());
    QVERIFY(onDisk);
    QCOMPARE(onDisk->jobId, std::string("100"));
    QCOMPARE(onDisk->jobIds, std::vector<std::string>{"100"});
  }

  // The link drops before sbatch reached the cluster: Slurm knows no job of the run, so it is
  // sent once more, and there is one job.
  void droppedBeforeSbatchSendsAgain() {
    m_link->failBeforeSbatch = 1;
    auto rec = submitRemote(submission(), runner());
    QVERIFY2(rec, rec ? "" : rec.errorText().c_str());
    QCOMPARE(m_link->sbatchLines, 2);
    QCOMPARE(jobLines(), 1);
    QCOMPARE(rec->jobId, std::string("100"));
  }

  // The link stays down after sbatch ran: the submission is left unknown (said so, the run
  // folder kept), nothing is sent again; once the link is back the record is settled with the
  // one job, and a resume is refused while that job is pending.
  void lostAnswerSettledLater() {
    m_link->dropSbatchAnswer = 1;
    auto s = submission();
    s.lookupTries = 3;
    // The first answer is lost and the link stays down for the look-ups.
    FakeLink* link = m_link.get();
    RemoteRunner run = [link](const std::string& line, const ProcessOptions& o) {
      RemoteResult r = (*link)(line, o);
      if (line.find("--parsable") != std::string::npos) link->down = true;
      return r;
    };
    auto rec = submitRemote(s, run);
    QVERIFY(!rec);
    QVERIFY2(rec.errorText().find("answer was lost") != std::string::npos, rec.errorText().c_str());
    QCOMPARE(jobLines(), 1);
    QCOMPARE(m_link->sbatchLines, 1);
    auto unknown = readRunRecord(localDir());
    QVERIFY(unknown);
    QVERIFY(unknown->submissionUnknown);
    QVERIFY(unknown->jobId.empty());

    // Still down: nothing changes.
    auto same = settleLostSubmission(localDir(), profile(), runner());
    QVERIFY(same);
    QVERIFY(same->submissionUnknown);

    m_link->down = false;
    auto settled = settleLostSubmission(localDir(), profile(), runner());
    QVERIFY(settled);
    QVERIFY(!settled->submissionUnknown);
    QCOMPARE(settled->jobId, std::string("100"));
    QCOMPARE(readRunRecord(localDir())->jobId, std::string("100"));

    QVERIFY(writeConfig());
    auto resumed = submitRemote(resumption(), runner());
    QVERIFY(!resumed);
    QVERIFY2(resumed.errorText().find("PENDING") != std::string::npos, resumed.errorText().c_str());
    QCOMPARE(jobLines(), 1);
  }

  // The record says the job ended, but another job of the run is running (a resume from another
  // desktop): the guard on the login node refuses, naming it; once it ended, the resume goes.
  void resumeRefusedWhileAJobOfTheRunRuns() {
    auto rec = submitRemote(submission(), runner());
    QVERIFY2(rec, rec ? "" : rec.errorText().c_str());
    QVERIFY(writeConfig());
    setState("100", "COMPLETED");
    QVERIFY(appendJob("555|" + rec->jobName + "|RUNNING|" + rec->remoteDir));
    auto refused = submitRemote(resumption(), runner());
    QVERIFY(!refused);
    QVERIFY2(refused.errorText().find("Slurm job 555") != std::string::npos &&
                 refused.errorText().find("RUNNING") != std::string::npos,
             refused.errorText().c_str());
    QCOMPARE(jobLines(), 2);
    setState("555", "CANCELLED");
    auto resumed = submitRemote(resumption(), runner());
    QVERIFY2(resumed, resumed ? "" : resumed.errorText().c_str());
    QCOMPARE(jobLines(), 3);
    QCOMPARE(resumed->jobIds.size(), size_t{2});
  }

  // run.lock on the cluster names a Slurm job still running (under another name): refused.
  void resumeRefusedWhileRunLockNamesALiveJob() {
    auto rec = submitRemote(submission(), runner());
    QVERIFY2(rec, rec ? "" : rec.errorText().c_str());
    QVERIFY(writeConfig());
    setState("100", "COMPLETED");
    QVERIFY(appendJob("777|someone-else|RUNNING|/elsewhere"));
    QVERIFY(writeAll(QString::fromStdString(rec->remoteDir) + "/run.lock",
                     "pid=4242\nhost=node7\nstarted=2026-12-07T10:00:00Z\ncommand=stave-train train\nslurm_job=777\n"));
    auto refused = submitRemote(resumption(), runner());
    QVERIFY(!refused);
    QVERIFY2(refused.errorText().find("run.lock names Slurm job 777") != std::string::npos, refused.errorText().c_str());
    QCOMPARE(jobLines(), 2);
    setState("777", "COMPLETED");
    auto resumed = submitRemote(resumption(), runner());
    QVERIFY2(resumed, resumed ? "" : resumed.errorText().c_str());
    QCOMPARE(jobLines(), 3);
  }

  // Another resume of the run holds the local lock: refused at once, nothing sent.
  void secondResumeHereRefused() {
    auto rec = submitRemote(submission(), runner());
    QVERIFY2(rec, rec ? "" : rec.errorText().c_str());
    QVERIFY(writeConfig());
    setState("100", "COMPLETED");
    const QByteArray lockPath = QFile::encodeName(QString::fromStdString(localDir()) + "/.stave_submit.lock");
    const int fd = ::open(lockPath.constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    QVERIFY(fd >= 0);
    QCOMPARE(::flock(fd, LOCK_EX | LOCK_NB), 0);
    const int before = m_link->sbatchLines;
    auto refused = submitRemote(resumption(), runner());
    ::close(fd);
    QVERIFY(!refused);
    QVERIFY2(refused.errorText().find("resubmitted already") != std::string::npos, refused.errorText().c_str());
    QCOMPARE(m_link->sbatchLines, before);
    QCOMPARE(jobLines(), 1);
    // Released: it goes.
    auto resumed = submitRemote(resumption(), runner());
    QVERIFY2(resumed, resumed ? "" : resumed.errorText().c_str());
    QCOMPARE(jobLines(), 2);
  }

 private:
  Profile profile() const {
    Profile p;
    p.name = "fake";
    p.destination = "login";
    p.runFolder = (m_base + "/scratch/it's \"ours\" $HOME; x").toStdString();
    p.commandsFolder = m_commands.toStdString();
    p.datasetOnCluster = "/cluster/data/data.yaml";
    return p;
  }
  std::string localDir() const { return (m_base + "/runs/run-20261207-120000").toStdString(); }
  RemoteSubmission submission() const {
    RemoteSubmission s;
    s.profile = profile();
    s.projectFile = m_project.toStdString();
    s.localDir = localDir();
    s.lookupPauseMs = 10;
    return s;
  }
  RemoteSubmission resumption() const {
    RemoteSubmission s;
    s.profile = profile();
    s.localDir = localDir();
    s.resume = true;
    s.lookupPauseMs = 10;
    return s;
  }
  RemoteRunner runner() const {
    auto link = m_link;
    return [link](const std::string& line, const ProcessOptions& o) { return (*link)(line, o); };
  }
  /// The run's config.yaml, as follow would have mirrored it.
  bool writeConfig() const {
    auto project = stave::config::loadProject(m_project.toStdString());
    if (!project) return false;
    auto cfg = stave::config::resolveProjectConfig(project.value(), project->activeConfig, {});
    if (!cfg) return false;
    return bool(stave::writeFileAtomic(localDir() + "/config.yaml", stave::config::toYaml(cfg.value())));
  }
  int jobLines() const {
    return static_cast<int>(readAll(m_commands + "/jobs").count('\n'));
  }
  bool appendJob(const std::string& line) const {
    QFile f(m_commands + "/jobs");
    return f.open(QIODevice::Append) && f.write(QByteArray::fromStdString(line + "\n")) > 0;
  }
  void setState(const QString& id, const QString& state) {
    QList<QByteArray> lines = readAll(m_commands + "/jobs").split('\n');
    for (QByteArray& l : lines) {
      QList<QByteArray> f = l.split('|');
      if (f.size() >= 4 && f[0] == id.toUtf8()) {
        f[2] = state.toUtf8();
        l = f.join('|');
      }
    }
    QVERIFY(writeAll(m_commands + "/jobs", lines.join('\n')));
  }

  QTemporaryDir m_tmp;
  QString m_base, m_commands, m_project;
  std::unique_ptr<QTemporaryDir> m_projectDir;
  std::shared_ptr<FakeLink> m_link;
};

QTEST_GUILESS_MAIN(TstRemoteJob)
#include "tst_remote_job.moc"
