// The Slurm side of cluster runs without a cluster: Slurm's commands are small scripts of this
// test (a profile's commands folder), which answer as Slurm does and note how they were called.
// What Slurm's states mean to the studio; how a job is asked about when squeue, sacct or
// scontrol cannot tell; what Stop sends; what a submission writes and sends, and what a refused
// one leaves (nothing); the record's damage named; cluster profiles checked and stored.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "common/project_fixture.h"
#include "core/studio/run/child_process.h"
#include "core/studio/project/cluster_profile.h"
#include "core/studio/run/cluster_job.h"
#include "core/studio/project/preferences.h"
#include "core/studio/run/run_controller.h"
#include "core/studio/run/slurm_job.h"

using namespace stave::studio;
using Phase = SlurmJobState::Phase;

class TestSlurmJob : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  QString m_bin;

  // A fake Slurm command: `body` is its shell script; it appends its arguments to calls.log.
  void fake(const QString& name, const QString& body) {
    const QString path = QDir(m_bin).filePath(name);
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(QStringLiteral("#!/bin/sh\necho \"%1 $*\" >>'%2/calls.log'\n%3\n").arg(name, m_bin, body).toUtf8());
    f.close();
    QVERIFY(f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
  }
  QString calls() {
    QFile f(QDir(m_bin).filePath("calls.log"));
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
  }

  // A profile "lab" whose Slurm commands are the fakes, kept with the preferences, and a record
  // of its job `jobId` for the run folder `dir`.
  bool labJobIn(const QString& dir, const QString& jobId) {
    Preferences prefs;
    ClusterProfile lab;
    lab.name = "lab";
    lab.commandsFolder = m_bin;
    prefs.clusters = {lab};
    prefs.save();
    ClusterJobRecord rec;
    rec.profile = "lab";
    rec.jobId = jobId;
    rec.jobIds = {jobId};
    rec.sharedDir = dir;
    return writeClusterJob(dir, rec);
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_bin = m_dir.filePath("bin");
    QVERIFY(QDir().mkpath(m_bin));
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("StaveTest");
    QCoreApplication::setApplicationName("tst_slurm_job");
  }
  void init() {
    QFile::remove(QDir(m_bin).filePath("calls.log"));
    QSettings().clear();
  }

  // Every word of squeue's JOB STATE CODES has its phase; a word Slurm may add is unknown,
  // never an end (an end is written into the record for good, and Stop refuses an ended job).
  void phases_data() {
    QTest::addColumn<QString>("word");
    QTest::addColumn<Phase>("phase");
    const std::pair<const char*, Phase> words[] = {
        {"PENDING", Phase::Pending},       {"CONFIGURING", Phase::Pending},   {"REQUEUED", Phase::Pending},
        {"REQUEUE_FED", Phase::Pending},   {"REQUEUE_HOLD", Phase::Pending},  {"RESV_DEL_HOLD", Phase::Pending},
        {"SPECIAL_EXIT", Phase::Pending},  {"RUNNING", Phase::Running},       {"COMPLETING", Phase::Running},
        {"SUSPENDED", Phase::Running},     {"STOPPED", Phase::Running},       {"STAGE_OUT", Phase::Running},
        {"SIGNALING", Phase::Running},     {"RESIZING", Phase::Running},      {"COMPLETED", Phase::Completed},
        {"CANCELLED", Phase::Cancelled},   {"CANCELLED by 0", Phase::Cancelled}, {"REVOKED", Phase::Cancelled},
        {"FAILED", Phase::Failed},         {"TIMEOUT", Phase::Failed},        {"NODE_FAIL", Phase::Failed},
        {"OUT_OF_MEMORY", Phase::Failed},  {"BOOT_FAIL", Phase::Failed},      {"DEADLINE", Phase::Failed},
        {"PREEMPTED", Phase::Failed},      {"running", Phase::Running},       {"", Phase::Unknown},
        {"OUT_OF_ME+", Phase::Unknown},    {"TELEPORTED", Phase::Unknown},    {"--user=root", Phase::Unknown}};
    for (const auto& [word, phase] : words) QTest::newRow(*word ? word : "empty") << QString(word) << phase;
  }
  void phases() {
    QFETCH(QString, word);
    QFETCH(Phase, phase);
    QCOMPARE(slurmPhase(word), phase);
  }

  // A state word the studio does not know: the job is "unknown", not ended — nothing final is
  // written into the record, and Stop still sends SIGTERM to it.
  void unknownWordIsNotAnEnd() {
    fake("squeue", "echo 'HIBERNATING|None'");
    fake("scancel", "exit 0");
    QTemporaryDir run;
    QVERIFY(labJobIn(run.path(), "88"));
    ClusterJob job;
    job.setPollInterval(50);
    job.setFolder(run.path());
    QTRY_COMPARE_WITH_TIMEOUT(job.state().state, QString("HIBERNATING"), 10000);
    QCOMPARE(job.state().phase, Phase::Unknown);
    QVERIFY(!job.state().ended());
    QVERIFY(job.active());
    QVERIFY2(job.describe().contains("unknown (HIBERNATING)"), qPrintable(job.describe()));
    QTest::qWait(300);  // more polls: still nothing final
    QVERIFY(readClusterJob(run.path()).finalState.isEmpty());
    QString error;
    QVERIFY2(job.cancel(&error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(calls().contains("scancel --signal=TERM 88\n"), 10000);
  }

  // A lost sbatch answer whose job Slurm does not list is looked for less and less often (up to
  // ten poll intervals apart), and at the usual pace again once the job is found.
  void lostSubmissionIsAskedForLessOften() {
    fake("squeue", "exit 0");
    QTemporaryDir run;
    QVERIFY(labJobIn(run.path(), "5"));
    ClusterJobRecord rec = readClusterJob(run.path());
    QVERIFY(rec.valid);
    rec.submissionUnknown = true;
    rec.jobId.clear();
    rec.jobIds.clear();
    rec.jobName = "demo-default.run-9";
    rec.submittedAt = QDateTime::currentSecsSinceEpoch();
    QVERIFY(writeClusterJob(run.path(), rec));
    ClusterJob job;
    job.setPollInterval(40);
    job.setFolder(run.path());
    QTRY_COMPARE_WITH_TIMEOUT(job.pollIntervalMs(), 80, 10000);  // after the first poll
    QTRY_COMPARE_WITH_TIMEOUT(job.pollIntervalMs(), 400, 20000);  // at most ten intervals
    QVERIFY2(calls().count("squeue -h --name=demo-default.run-9") >= 4, qPrintable(calls()));
    fake("squeue",
         "case \"$*\" in *--name=demo-default.run-9*) echo '78|PENDING';; "
         "*--jobs=78*) echo 'PENDING|Priority';; esac");
    QTRY_COMPARE_WITH_TIMEOUT(job.state().phase, Phase::Pending, 20000);
    QCOMPARE(job.pollIntervalMs(), 40);
    QCOMPARE(readClusterJob(run.path()).jobId, QString("78"));
  }

  // A job's end is written into the record only while no resubmission holds it, and only while
  // that job is still the record's newest.
  void jobEndNotWrittenOverAResubmission() {
    QTemporaryDir run;
    ClusterJobRecord rec;
    rec.profile = "lab";
    rec.jobId = "70";
    rec.jobIds = {"70"};
    QVERIFY(writeClusterJob(run.path(), rec));
    SlurmJobState ended;
    ended.state = "COMPLETED";
    ended.phase = Phase::Completed;
    const int fd = ::open(QFile::encodeName(run.filePath(".cluster_job.lock")).constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    QVERIFY(fd >= 0);
    QCOMPARE(::flock(fd, LOCK_EX | LOCK_NB), 0);  // a resubmission in flight
    QVERIFY(!recordJobEnd(run.path(), "70", ended));
    QVERIFY(readClusterJob(run.path()).finalState.isEmpty());
    ::close(fd);
    QVERIFY(!recordJobEnd(run.path(), "69", ended));  // not the newest job
    QVERIFY(readClusterJob(run.path()).finalState.isEmpty());
    ClusterJobRecord written;
    QVERIFY(recordJobEnd(run.path(), "70", ended, &written));
    QCOMPARE(written.finalState, QString("COMPLETED"));
    QCOMPARE(readClusterJob(run.path()).finalState, QString("COMPLETED"));
  }

  // cluster_job.json is data: an id that is not Slurm's form refuses the record, and no command
  // is ever given it (scancel --user=root would stop every job of that user).
  void jobIdsAreData_data() {
    QTest::addColumn<QString>("id");
    QTest::addColumn<bool>("valid");
    QTest::newRow("plain") << "42" << true;
    QTest::newRow("array task") << "42_7" << true;
    QTest::newRow("het part") << "42+1" << true;
    QTest::newRow("option") << "--user=root" << false;
    QTest::newRow("short option") << "-u" << false;
    QTest::newRow("leading space") << " 42" << false;
    QTest::newRow("two ids") << "42,43" << false;
    QTest::newRow("newline") << "42\n43" << false;
    QTest::newRow("empty") << "" << false;
  }
  void jobIdsAreData() {
    QFETCH(QString, id);
    QFETCH(bool, valid);
    QCOMPARE(isSlurmJobId(id), valid);
    QTemporaryDir run;
    for (const char* key : {"job_id", "job_ids"}) {
      QFile f(run.filePath("cluster_job.json"));
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
      const QJsonValue v = QString(key) == "job_id" ? QJsonValue(id) : QJsonValue(QJsonArray{id});
      QJsonObject o{{"job_id", QString(key) == "job_id" ? id : QString("5")}, {key, v}, {"profile", "lab"}};
      f.write(QJsonDocument(o).toJson());
      f.close();
      QString error;
      const ClusterJobRecord rec = readClusterJob(run.path(), &error);
      QCOMPARE(rec.valid, valid);
      if (!valid) QVERIFY2(error.contains(key) && error.contains("not a Slurm job id"), qPrintable(error));
    }
    if (valid) return;
    fake("squeue", "echo 'RUNNING|None'");
    fake("scancel", "exit 0");
    const SlurmJobState s = querySlurmJob(m_bin, id);
    QCOMPARE(s.phase, Phase::Unknown);
    QVERIFY2(s.error.contains("not a Slurm job id"), qPrintable(s.error));
    QVERIFY(cancelSlurmJob(m_bin, id, false).contains("nothing was cancelled"));
    QVERIFY(cancelSlurmJob(m_bin, id, true).contains("nothing was cancelled"));
    QCOMPARE(calls(), QString());  // no Slurm command was run
  }

  // squeue first; an ended job slurmctld forgot: sacct; no accounting: scontrol.
  void askedInTurn() {
    fake("squeue", "echo 'PENDING|Priority'");
    SlurmJobState s = querySlurmJob(m_bin, "7");
    QCOMPARE(s.phase, Phase::Pending);
    QCOMPARE(s.reason, QString("Priority"));
    QVERIFY(calls().contains("squeue -h --jobs=7 --states=all -o %T|%r"));

    fake("squeue", "echo 'slurm_load_jobs error: Invalid job id specified' >&2; exit 1");
    fake("sacct", "echo 'TIMEOUT|0:15|None'");
    s = querySlurmJob(m_bin, "7");
    QCOMPARE(s.phase, Phase::Failed);
    QCOMPARE(s.state, QString("TIMEOUT"));
    QCOMPARE(s.exitCode, QString("0:15"));
    QVERIFY(s.reason.isEmpty());

    fake("sacct", "echo 'sacct: error: Slurm accounting storage is disabled' >&2; exit 1");
    fake("scontrol",
         "echo 'JobId=7 JobName=proj-default'; echo '   JobState=FAILED Reason=NonZeroExitCode Dependency=(null)';"
         " echo '   ExitCode=1:0 RunTime=00:00:05'");
    s = querySlurmJob(m_bin, "7");
    QCOMPARE(s.phase, Phase::Failed);
    QCOMPARE(s.reason, QString("NonZeroExitCode"));
    QCOMPARE(s.exitCode, QString("1:0"));
    QVERIFY(s.error.isEmpty());

    // An ended job squeue still lists: its exit code from scontrol (squeue has none).
    fake("squeue", "echo 'FAILED|NonZeroExitCode'");
    s = querySlurmJob(m_bin, "7");
    QCOMPARE(s.phase, Phase::Failed);
    QCOMPARE(s.exitCode, QString("1:0"));
    fake("squeue", "echo 'slurm_load_jobs error: Invalid job id specified' >&2; exit 1");

    fake("scontrol", "echo 'slurm_load_jobs error: Invalid job id specified' >&2; exit 1");
    s = querySlurmJob(m_bin, "7");
    QCOMPARE(s.phase, Phase::Unknown);
    QVERIFY2(s.error.contains("job 7") && s.error.contains("accounting storage is disabled") &&
                 s.error.contains("scontrol (exit 1)"),
             qPrintable(s.error));

    // No Slurm at all: said, not a hang or a crash.
    s = querySlurmJob(m_dir.filePath("nothing-here"), "7");
    QCOMPARE(s.phase, Phase::Unknown);
    QVERIFY2(s.error.contains("cannot be started"), qPrintable(s.error));
  }

  // A slurmctld that does not answer holds nothing up: the job's stop flag (the studio closing)
  // ends the wait at once, and each command has a time limit of its own.
  void hungSlurmIsNotWaitedFor() {
    fake("squeue", "exec sleep 60");
    std::atomic<bool> stop{false};
    std::thread raise([&stop] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      stop = true;
    });
    QElapsedTimer t;
    t.start();
    const SlurmJobState s = querySlurmJob(m_bin, "7", &stop);
    raise.join();
    QVERIFY2(t.elapsed() < 5000, qPrintable(QString::number(t.elapsed())));
    QCOMPARE(s.phase, Phase::Unknown);
    QVERIFY2(s.error.contains("not waited for"), qPrintable(s.error));
  }

  // Stop: SIGTERM to a running job's steps (it checkpoints); a pending job is cancelled.
  void stopSends() {
    fake("scancel", "exit 0");
    QVERIFY(cancelSlurmJob(m_bin, "9", false).isEmpty());
    QVERIFY(cancelSlurmJob(m_bin, "10", true).isEmpty());
    QCOMPARE(calls(), QString("scancel --signal=TERM 9\nscancel 10\n"));
    fake("scancel", "echo 'scancel: error: Kill job error on job id 11: Invalid job id specified' >&2; exit 1");
    QVERIFY(cancelSlurmJob(m_bin, "11", false).contains("Invalid job id"));
  }

  // A new run: its folder on the profile's run folder, linked from the project's runs/; the
  // exported sbatch file there, submitted with the run folder and stave-train in the
  // environment; the record written. A resume resubmits with STAVE_RESUME=1.
  void submission() {
    QTemporaryDir projDir;
    const QString project = stave::testing::makeProject(projDir);
    fake("sbatch", "echo \"env STAVE_RUN_DIR=$STAVE_RUN_DIR STAVE_TRAIN=$STAVE_TRAIN STAVE_RESUME=${STAVE_RESUME:-}\" "
                   ">>'" + m_bin + "/calls.log'; echo '42;stavetest'");
    ClusterSubmission s;
    s.profile.name = "lab";
    s.profile.partition = "gpu";
    s.profile.account = "vision";
    s.profile.gpusPerNode = 0;
    s.profile.runFolder = m_dir.filePath("shared");
    s.profile.commandsFolder = m_bin;
    s.projectFile = project;
    s.configName = "default";
    s.overrides = {"epochs=3"};
    s.runDir = projDir.filePath("runs/run-1");
    s.trainExecutable = "/opt/stave/bin/stave-train";
    QString error;
    ClusterJobRecord rec = submitClusterRun(s, &error);
    QVERIFY2(rec.valid, qPrintable(error));
    const QString shared = m_dir.filePath("shared/demo/run-1");
    QCOMPARE(rec.jobId, QString("42"));
    QCOMPARE(rec.jobIds, QStringList{"42"});
    QCOMPARE(rec.sharedDir, shared);
    QVERIFY(QFileInfo(s.runDir).isSymLink());
    QCOMPARE(QFileInfo(s.runDir).symLinkTarget(), shared);
    QFile job(shared + "/job.sbatch");
    QVERIFY(job.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(job.readAll());
    QVERIFY(text.contains("#SBATCH --partition=gpu\n") && text.contains("#SBATCH --account=vision\n"));
    QVERIFY(!text.contains("gpus-per-node"));
    QVERIFY(text.contains("epochs: 3"));
    // Named after the run (how a job whose answer was lost is found).
    QVERIFY2(calls().contains("sbatch --parsable --job-name=demo-default.run-1 --chdir=" + shared + " --output=" + shared +
                              "/slurm-%j.out " + shared + "/job.sbatch"),
             qPrintable(calls()));
    QVERIFY(calls().contains("env STAVE_RUN_DIR=" + shared + " STAVE_TRAIN=/opt/stave/bin/stave-train STAVE_RESUME=\n"));
    QFile written(shared + "/cluster_job.json");
    QVERIFY(written.open(QIODevice::ReadOnly));
    QVERIFY(!written.readAll().contains(m_bin.toUtf8()));  // no command folder in the record
    const ClusterJobRecord read = readClusterJob(s.runDir);
    QVERIFY(read.valid);
    QCOMPARE(read.jobId, QString("42"));
    QCOMPARE(read.profile, QString("lab"));
    QCOMPARE(read.configName, QString("default"));
    QCOMPARE(read.jobName, QString("demo-default.run-1"));

    // Resume: the run's own config.yaml with a new total, the same folder, a second job (once
    // Slurm says the first has ended).
    fake("squeue", "echo 'COMPLETED|None'");
    QFile cfg(shared + "/config.yaml");
    QVERIFY(cfg.open(QIODevice::WriteOnly));
    cfg.write(text.section("<<'STAVE_CONFIG_EOF'\n", 1).section("\nSTAVE_CONFIG_EOF", 0, 0).toUtf8());
    cfg.close();
    fake("sbatch", "echo \"env STAVE_RUN_DIR=$STAVE_RUN_DIR STAVE_RESUME=${STAVE_RESUME:-}\" >>'" + m_bin +
                       "/calls.log'; echo 43");
    s.resume = true;
    s.epochs = 5;
    rec = submitClusterRun(s, &error);
    QVERIFY2(rec.valid, qPrintable(error));
    QCOMPARE(rec.jobIds, QStringList({"42", "43"}));
    QVERIFY(calls().contains("env STAVE_RUN_DIR=" + shared + " STAVE_RESUME=1\n"));
    QFile again(shared + "/job.sbatch");
    QVERIFY(again.open(QIODevice::ReadOnly));
    QVERIFY(QString::fromUtf8(again.readAll()).contains("epochs: 5"));
    QCOMPARE(readClusterJob(s.runDir).jobId, QString("43"));

    // Refused by Slurm: its words, and no folder or link left.
    fake("sbatch", "echo 'sbatch: error: invalid partition specified: gpu' >&2; exit 1");
    s.resume = false;
    s.runDir = projDir.filePath("runs/run-2");
    rec = submitClusterRun(s, &error);
    QVERIFY(!rec.valid);
    QVERIFY2(error.contains("refused") && error.contains("invalid partition specified"), qPrintable(error));
    QVERIFY(!QFileInfo(s.runDir).exists() && !QFileInfo(s.runDir).isSymLink());
    QVERIFY(!QFileInfo::exists(m_dir.filePath("shared/demo/run-2")));
  }

  // A submission of the demo project's default config to a profile with `runFolder`.
  ClusterSubmission labSubmission(const QString& project, const QString& runDir, const QString& runFolder) {
    ClusterSubmission s;
    s.profile.name = "lab";
    s.profile.gpusPerNode = 0;
    s.profile.runFolder = runFolder;
    s.profile.commandsFolder = m_bin;
    s.projectFile = project;
    s.configName = "default";
    s.runDir = runDir;
    s.trainExecutable = "/opt/stave/bin/stave-train";
    return s;
  }

  // sbatch --parsable after a site's banner: the last line that is an id ("ID" or
  // "ID;cluster"); an answer with no id is not taken for one.
  void bannerBeforeTheId() {
    QTemporaryDir projDir;
    const QString project = stave::testing::makeProject(projDir);
    fake("sbatch", "echo 'Welcome to the lab cluster. Submitted jobs are accounted.'; echo '12 nodes free'; echo '4711;lab'");
    ClusterSubmission s = labSubmission(project, projDir.filePath("runs/run-1"), m_dir.filePath("banner"));
    QString error;
    const ClusterJobRecord rec = submitClusterRun(s, &error);
    QVERIFY2(rec.valid, qPrintable(error));
    QCOMPARE(rec.jobId, QString("4711"));
    QVERIFY(error.isEmpty());
    // A line of the banner after the id; a wrapper that answers as sbatch without --parsable.
    fake("sbatch", "echo 'Welcome.'; echo '4712'; echo 'Your fair share: 0.4 (see https://lab/docs)'");
    s.runDir = projDir.filePath("runs/run-2");
    QCOMPARE(submitClusterRun(s, &error).jobId, QString("4712"));
    fake("sbatch", "echo 'Welcome.'; echo 'Submitted batch job 4713'");
    s.runDir = projDir.filePath("runs/run-3");
    QCOMPARE(submitClusterRun(s, &error).jobId, QString("4713"));
    // No id at all (e.g. "--user=root" printed by a broken wrapper): never taken for one.
    fake("sbatch", "echo '--user=root'");
    fake("squeue", "exit 0");
    fake("sacct", "exit 0");
    s.runDir = projDir.filePath("runs/run-4");
    const ClusterJobRecord none = submitClusterRun(s, &error);
    QVERIFY(none.valid && none.submissionUnknown && none.jobId.isEmpty());
    QVERIFY2(error.contains("--user=root") && error.contains("kept"), qPrintable(error));
  }

  // A run folder whose path holds '%': doubled for --output (Slurm's escape), so the job's
  // output lands in the run folder and not in a folder named after the job id.
  void percentInTheRunFolder() {
    QTemporaryDir projDir;
    const QString project = stave::testing::makeProject(projDir);
    fake("sbatch", "echo 61");
    ClusterSubmission s = labSubmission(project, projDir.filePath("runs/run-1"), m_dir.filePath("100%j-runs"));
    QString error;
    const ClusterJobRecord rec = submitClusterRun(s, &error);
    QVERIFY2(rec.valid, qPrintable(error));
    const QString shared = m_dir.filePath("100%j-runs/demo/run-1");
    QCOMPARE(rec.sharedDir, shared);
    const QString escaped = m_dir.filePath("100%%j-runs/demo/run-1");
    QVERIFY2(calls().contains(" --output=" + escaped + "/slurm-%j.out "), qPrintable(calls()));
    QVERIFY2(calls().contains(" --chdir=" + shared + " "), qPrintable(calls()));
  }

  // sbatch accepted the job but answered after its time: the folder is kept (the job trains
  // in it), the job is found by its name and recorded. Not found: the folder is still kept and
  // the record says the submission is unknown; a later look finds the job.
  void slowSbatchKeepsTheFolder() {
    QTemporaryDir projDir;
    const QString project = stave::testing::makeProject(projDir);
    fake("sbatch", "touch '" + m_bin + "/accepted'; exec sleep 30");
    fake("squeue", "case \"$*\" in *--name=demo-default.run-1*) echo '9|PENDING'; echo '77|RUNNING'; echo 'junk';; esac");
    fake("sacct", "exit 0");
    ClusterSubmission s = labSubmission(project, projDir.filePath("runs/run-1"), m_dir.filePath("slow"));
    s.sbatchTimeoutMs = 500;
    QString error;
    QElapsedTimer t;
    t.start();
    ClusterJobRecord rec = submitClusterRun(s, &error);
    QVERIFY2(t.elapsed() < 10000, qPrintable(QString::number(t.elapsed())));
    QVERIFY(QFileInfo::exists(m_bin + "/accepted"));
    QVERIFY2(rec.valid, qPrintable(error));
    QCOMPARE(rec.jobId, QString("77"));  // the newest of that name
    QVERIFY(!rec.submissionUnknown);
    QVERIFY2(error.contains("answer was lost") && error.contains("job 77"), qPrintable(error));
    const QString shared = m_dir.filePath("slow/demo/run-1");
    QVERIFY(QFileInfo::exists(shared + "/job.sbatch"));
    QVERIFY(QFileInfo(s.runDir).isSymLink());
    QCOMPARE(readClusterJob(s.runDir).jobId, QString("77"));
    QVERIFY2(calls().contains("squeue -h --name=demo-default.run-1 --states=all -o %i|%T"), qPrintable(calls()));

    // Not listed (yet): kept, and recorded as unknown.
    fake("squeue", "exit 0");
    s.runDir = projDir.filePath("runs/run-2");
    rec = submitClusterRun(s, &error);
    QVERIFY2(rec.valid, qPrintable(error));
    QVERIFY(rec.submissionUnknown);
    QVERIFY(rec.jobId.isEmpty());
    QVERIFY2(error.contains("kept") && error.contains("demo-default.run-2"), qPrintable(error));
    const QString shared2 = m_dir.filePath("slow/demo/run-2");
    QVERIFY(QFileInfo::exists(shared2 + "/job.sbatch"));
    QVERIFY(QFileInfo(s.runDir).isSymLink());
    ClusterJobRecord back = readClusterJob(s.runDir, &error);
    QVERIFY2(back.valid, qPrintable(error));
    QVERIFY(back.submissionUnknown);
    QCOMPARE(back.jobName, QString("demo-default.run-2"));
    // Neither resumed nor stopped while it may start.
    QVERIFY(!submitClusterRun([&] { ClusterSubmission r = s; r.resume = true; return r; }(), &error).valid);
    QVERIFY2(error.contains("not known to Slurm yet"), qPrintable(error));
    // Listed later: found and recorded.
    QVERIFY(!findUnknownSubmission(m_bin, s.runDir, &back, &error));
    QVERIFY2(error.contains("kept"), qPrintable(error));
    fake("squeue", "case \"$*\" in *--name=demo-default.run-2*) echo '78|PENDING';; *--jobs=78*) echo 'PENDING|Priority';; esac");
    // A resume now finds that job, which waits: refused, and sbatch is not asked.
    QFile::remove(QDir(m_bin).filePath("calls.log"));
    QVERIFY(!submitClusterRun([&] { ClusterSubmission r = s; r.resume = true; return r; }(), &error).valid);
    QVERIFY2(error.contains("job 78") && error.contains("PENDING"), qPrintable(error));
    QVERIFY(!calls().contains("sbatch"));
    QVERIFY2(findUnknownSubmission(m_bin, s.runDir, &back, &error), qPrintable(error));
    QCOMPARE(back.jobId, QString("78"));
    const ClusterJobRecord found = readClusterJob(s.runDir);
    QCOMPARE(found.jobId, QString("78"));
    QVERIFY(!found.submissionUnknown);
  }

  // Two resumes of one run at once: one job is sent, the other resume is refused, and the
  // record keeps the job that trains. A resume while the run's job is running is refused too.
  void twoResumesKeepTheJobThatTrains() {
    QTemporaryDir projDir;
    const QString project = stave::testing::makeProject(projDir);
    fake("sbatch", "echo 30");
    ClusterSubmission s = labSubmission(project, projDir.filePath("runs/run-1"), m_dir.filePath("twice"));
    QString error;
    ClusterJobRecord rec = submitClusterRun(s, &error);
    QVERIFY2(rec.valid, qPrintable(error));
    const QString shared = m_dir.filePath("twice/demo/run-1");
    QFile job(shared + "/job.sbatch");
    QVERIFY(job.open(QIODevice::ReadOnly));
    QFile cfg(shared + "/config.yaml");
    QVERIFY(cfg.open(QIODevice::WriteOnly));
    cfg.write(QString::fromUtf8(job.readAll()).section("<<'STAVE_CONFIG_EOF'\n", 1).section("\nSTAVE_CONFIG_EOF", 0, 0).toUtf8());
    cfg.close();

    // Job 30 still runs: a resume is refused, sbatch is not asked.
    fake("squeue", "echo 'RUNNING|None'");
    QFile::remove(QDir(m_bin).filePath("calls.log"));
    s.resume = true;
    s.epochs = 9;
    QVERIFY(!submitClusterRun(s, &error).valid);
    QVERIFY2(error.contains("job 30") && error.contains("RUNNING"), qPrintable(error));
    QVERIFY(!calls().contains("sbatch"));

    // It ended: two resumes at once, each sbatch slow enough for them to overlap. Job 30 was
    // killed outright on its node and left run.lock naming it: the lock holds per host, so the
    // record is cleared for the next job (one naming a job of another run stays).
    fake("squeue", "echo 'COMPLETED|None'");
    const QByteArray lockText = "pid=12\nhost=node7\nstarted=2026-12-07T01:00:00Z\ncommand=stave-train worker\n"
                                "start_ticks=99\nboot_id=b\nslurm_job=";
    QFile lockFile(shared + "/run.lock");
    QVERIFY(lockFile.open(QIODevice::WriteOnly));
    lockFile.write(lockText + "30\n");
    lockFile.close();
    fake("sbatch", "n=$(cat '" + m_bin + "/n' 2>/dev/null || echo 40); n=$((n + 1)); echo $n >'" + m_bin +
                       "/n'; sleep 1; echo $n");
    ClusterJobRecord a, b;
    QString ea, eb;
    std::thread other([&] { b = submitClusterRun(s, &eb); });
    a = submitClusterRun(s, &ea);
    other.join();
    QVERIFY2(a.valid != b.valid, qPrintable(ea + " | " + eb));
    const ClusterJobRecord& sent = a.valid ? a : b;
    const QString& refused = a.valid ? eb : ea;
    QVERIFY2(refused.contains("being resubmitted") || refused.contains("PENDING") || refused.contains("not ended"),
             qPrintable(refused));
    QCOMPARE(calls().count("sbatch "), 1);
    QCOMPARE(sent.jobId, QString("41"));
    QCOMPARE(readClusterJob(s.runDir).jobId, QString("41"));
    QCOMPARE(readClusterJob(s.runDir).jobIds, QStringList({"30", "41"}));
    QVERIFY(!QFile::exists(shared + "/run.lock"));
    // A run.lock of a job that is not this run's stays.
    QVERIFY(lockFile.open(QIODevice::WriteOnly));
    lockFile.write(lockText + "999\n");
    lockFile.close();
    const ClusterJobRecord third = submitClusterRun(s, &error);
    QVERIFY2(third.valid, qPrintable(error));
    QCOMPARE(third.jobId, QString("42"));
    QVERIFY(QFile::exists(shared + "/run.lock"));
  }

  // Every Slurm command's answer is capped: a command that prints without end is read while it
  // runs, kept to the cap, and ended by its time limit.
  void answersAreCapped() {
    QElapsedTimer t;
    t.start();
    auto r = ChildProcess::runToEnd("/bin/sh", {"-c", "yes slurm"}, {}, {}, 1500);
    QVERIFY2(t.elapsed() < 10000, qPrintable(QString::number(t.elapsed())));
    QVERIFY(r.cut);
    QVERIFY(r.out.size() <= ChildProcess::kCommandOutputCap);
    QVERIFY(r.out.size() > 1000);
    r = ChildProcess::runToEnd("/bin/sh", {"-c", "head -c 3000000 /dev/zero | tr '\\0' x >&2; echo done"}, {}, {}, 30000);
    QCOMPARE(r.code, 0);
    QCOMPARE(r.out, QString("done"));
    QVERIFY(r.cut);
    QCOMPARE(r.err.size(), qsizetype(ChildProcess::kCommandOutputCap));
    r = ChildProcess::runToEnd("/bin/sh", {"-c", "echo small; echo said >&2"}, {}, {}, 30000);
    QVERIFY(!r.cut);
    QCOMPARE(r.out, QString("small"));
    QCOMPARE(r.err, QString("said"));
  }

  // A cluster run whose Slurm cannot be asked any more (the cluster gone): the run's own final
  // event says how it ended, it is not live, and the job's line says why Slurm is not heard.
  void slurmGoneRunEnded() {
    fake("squeue", "echo 'slurm_load_partitions: Unable to contact slurm controller' >&2; exit 1");
    fake("sacct", "exit 1");
    fake("scontrol", "exit 1");
    QTemporaryDir run;
    QVERIFY(labJobIn(run.path(), "77"));
    QFile events(run.filePath("events.jsonl"));
    QVERIFY(events.open(QIODevice::WriteOnly));
    stave::telemetry::FinishedEvent fin;
    fin.status = stave::telemetry::RunStatus::Completed;
    for (const auto& e : {stave::telemetry::toEvent(stave::telemetry::RunStartEvent{}, 0),
                          stave::telemetry::toEvent(fin, 0)})
      events.write(QByteArray::fromStdString(stave::telemetry::encodeEvent(e) + "\n"));
    events.close();
    RunController c;
    c.setPollInterval(50);
    c.cluster()->setPollInterval(100);
    QVERIFY(c.attach(run.path()));
    QVERIFY(c.cluster()->isCluster());
    QTRY_COMPARE_WITH_TIMEOUT(c.outcome(), stave::studio::RunOutcome::Completed, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(c.cluster()->describe().contains("Unable to contact slurm controller"), 10000);
    QVERIFY(!c.isLive());
    QVERIFY(calls().contains("squeue -h --jobs=77"));
  }

  void damagedRecordNamed() {
    QTemporaryDir d;
    QString error;
    QVERIFY(!readClusterJob(d.path(), &error).valid);
    QVERIFY(error.contains("cluster_job.json"));
    QFile f(d.filePath("cluster_job.json"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"job_id\": 12");
    f.close();
    QVERIFY(!readClusterJob(d.path(), &error).valid);
    QVERIFY2(error.contains("cluster_job.json") && error.contains("not a JSON object"), qPrintable(error));
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write("{\"job_id\": 12}");
    f.close();
    QVERIFY(!readClusterJob(d.path(), &error).valid);
    QVERIFY2(error.contains("job_id"), qPrintable(error));
  }

  // A job that could never start is not sent: the request against what sinfo says the
  // partition offers (the default one when the profile names none).
  void requestCheckedAgainstThePartition_data() {
    QTest::addColumn<QString>("sbatch");
    QTest::addColumn<QString>("sinfo");
    QTest::addColumn<QString>("says");
    const QString twoCpus = "stave*|2|(null)|1\n";
    QTest::newRow("fits") << "#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=2\n#SBATCH --cpus-per-task=1\n"
                          << twoCpus << "";
    QTest::newRow("workers + 2 on a 2-CPU node")
        << "#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=1\n#SBATCH --cpus-per-task=3\n" << twoCpus
        << "asks for 3 CPUs per node (3 per rank × 1 rank(s) per node), but the nodes of partition stave have at most 2";
    QTest::newRow("gpus") << "#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=8\n#SBATCH --gpus-per-node=8\n"
                             "#SBATCH --cpus-per-task=4\n#SBATCH --partition=a100\n"
                          << "cpu*|64|(null)|10\na100|128|gpu:a100:4(S:0-1)|3\n"
                          << "asks for 8 GPU(s) per node, but the nodes of partition a100 have 4";
    QTest::newRow("nodes") << "#SBATCH --nodes=4\n#SBATCH --ntasks-per-node=1\n#SBATCH --cpus-per-task=4\n"
                              "#SBATCH --partition=a100\n"
                           << "a100|128|gpu:4|2\na100|128|gpu:4|1\n"
                           << "asks for 4 nodes, but partition a100 has 3";
    QTest::newRow("no such partition") << "#SBATCH --nodes=1\n#SBATCH --partition=h100\n"
                                       << "cpu*|64|(null)|10\na100|128|gpu:4|3\n"
                                       << "has no partition h100 (it has cpu, a100)";
    QTest::newRow("heterogeneous nodes: the largest counts")
        << "#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=1\n#SBATCH --cpus-per-task=32\n"
        << "mix*|16+|(null)|4\nmix*|32|(null)|2\n" << "";
    QTest::newRow("sinfo said nothing") << "#SBATCH --cpus-per-task=300\n" << "" << "";
  }
  void requestCheckedAgainstThePartition() {
    QFETCH(QString, sbatch);
    QFETCH(QString, sinfo);
    QFETCH(QString, says);
    stave::studio::ClusterProfile profile;
    profile.name = "lab";
    const QString why = stave::studio::checkAgainstPartition(profile, sbatch, sinfo);
    if (says.isEmpty())
      QVERIFY2(why.isEmpty(), qPrintable(why));
    else
      QVERIFY2(why.contains(says), qPrintable(why));
  }

  void profilesCheckedAndStored() {
    ClusterProfile p;
    QVERIFY(p.problems().join("\n").contains("name"));
    p.name = "lab";
    QVERIFY(p.problems().isEmpty());
    p.runFolder = "relative/runs";
    p.timeLimit = "one day";
    p.account = "a b";
    const QString all = p.problems().join("\n");
    QVERIFY2(all.contains("cluster 'lab': run folder") && all.contains("cluster 'lab': time") &&
                 all.contains("cluster 'lab': account"),
             qPrintable(all));
    ClusterProfile q;
    q.name = "lab";
    QVERIFY(clusterProfileProblems({q, q}).join("\n").contains("given to two profiles"));

    Preferences prefs;
    q.partition = "gpu";
    q.nodes = 2;
    q.gpusPerNode = 8;
    q.cpusPerTask = 10;
    q.runFolder = "/shared/runs";
    ClusterProfile r;
    r.name = "cpu";
    r.gpusPerNode = 0;
    prefs.clusters = {q, r};
    QVERIFY(prefs.validate().isEmpty());
    prefs.save();
    const Preferences back = Preferences::load();
    QCOMPARE(back.clusters.size(), 2);
    QVERIFY(back.clusters[0] == q);
    QVERIFY(back.clusters[1] == r);
    QVERIFY(back.cluster("cpu") && back.cluster("cpu")->gpusPerNode == 0);
    // A job's Slurm commands are its profile's as kept here, never a folder a record names.
    QCOMPARE(slurmCommandsFolder("lab"), QString());
    prefs.clusters[0].commandsFolder = "/opt/slurm/bin";
    prefs.save();
    QCOMPARE(slurmCommandsFolder("lab"), QString("/opt/slurm/bin"));
    QCOMPARE(slurmCommandsFolder("gone"), QString());
    QVERIFY(!back.cluster("nope"));
    // The profiles are one file beside the settings (clusters.json, which stave-train reads).
    const QString file = QFileInfo(QSettings().fileName()).absolutePath() + "/clusters.json";
    QVERIFY(QFile::exists(file));
    // A hand-edited profile with a bad value is left out, the others stay.
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QByteArray text = f.readAll();
    f.close();
    QVERIFY(text.count("\"time\": \"24:00:00\"") == 2);
    text.replace(text.lastIndexOf("\"time\": \"24:00:00\""), 18, "\"time\": \"soon\"");
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text);
    f.close();
    QCOMPARE(Preferences::load().clusters.size(), 1);
    QCOMPARE(Preferences::load().clusters[0].name, QString("lab"));
    // An SSH profile's fields go there too, and its problems are core/cluster's.
    ClusterProfile s;
    s.name = "ssh";
    s.destination = "alice@login";
    QVERIFY(clusterProfileProblems({s}).join("\n").contains("run_folder"));
    s.runFolder = "/scratch/alice/it's runs";
    s.port = 2222;
    s.datasetLocal = "/home/alice/data";
    s.datasetRemote = "/scratch/alice/data";
    QVERIFY2(s.problems().isEmpty(), qPrintable(s.problems().join("\n")));
    prefs.clusters = {s};
    prefs.save();
    QVERIFY(Preferences::load().clusters.size() == 1 && Preferences::load().clusters[0] == s);
    QVERIFY(ClusterProfile::fromCore(s.toCore()) == s);
  }
};

QTEST_GUILESS_MAIN(TestSlurmJob)
#include "tst_slurm_job.moc"
