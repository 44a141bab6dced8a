// The Slurm side of cluster runs without a cluster: Slurm's commands are small scripts of this
// test (a profile's commands folder), which answer as Slurm does and note how they were called.
// What Slurm's states mean to the studio; how a job is asked about when squeue, sacct or
// scontrol cannot tell; what Stop sends; what a submission writes and sends, and what a refused
// one leaves (nothing); the record's damage named; cluster profiles checked and stored.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <thread>

#include "common/project_fixture.h"
#include "core/studio/cluster_profile.h"
#include "core/studio/cluster_job.h"
#include "core/studio/preferences.h"
#include "core/studio/run_controller.h"
#include "core/studio/slurm_job.h"

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

  void phases() {
    QCOMPARE(slurmPhase("PENDING"), Phase::Pending);
    QCOMPARE(slurmPhase("CONFIGURING"), Phase::Pending);
    QCOMPARE(slurmPhase("RUNNING"), Phase::Running);
    QCOMPARE(slurmPhase("COMPLETING"), Phase::Running);
    QCOMPARE(slurmPhase("COMPLETED"), Phase::Completed);
    QCOMPARE(slurmPhase("CANCELLED by 0"), Phase::Cancelled);
    QCOMPARE(slurmPhase("TIMEOUT"), Phase::Failed);
    QCOMPARE(slurmPhase("OUT_OF_MEMORY"), Phase::Failed);
    QCOMPARE(slurmPhase("NODE_FAIL"), Phase::Failed);
    QCOMPARE(slurmPhase(""), Phase::Unknown);
  }

  // squeue first; an ended job slurmctld forgot: sacct; no accounting: scontrol.
  void askedInTurn() {
    fake("squeue", "echo 'PENDING|Priority'");
    SlurmJobState s = querySlurmJob(m_bin, "7");
    QCOMPARE(s.phase, Phase::Pending);
    QCOMPARE(s.reason, QString("Priority"));
    QVERIFY(calls().contains("squeue -h -j 7 --states=all -o %T|%r"));

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
    QVERIFY2(calls().contains("sbatch --parsable --chdir=" + shared + " --output=" + shared + "/slurm-%j.out " +
                              shared + "/job.sbatch"),
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

    // Resume: the run's own config.yaml with a new total, the same folder, a second job.
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

  // A cluster run whose Slurm cannot be asked any more (the cluster gone): the run's own final
  // event says how it ended, it is not live, and the job's line says why Slurm is not heard.
  void slurmGoneRunEnded() {
    fake("squeue", "echo 'slurm_load_partitions: Unable to contact slurm controller' >&2; exit 1");
    fake("sacct", "exit 1");
    fake("scontrol", "exit 1");
    Preferences prefs;
    ClusterProfile lab;
    lab.name = "lab";
    lab.commandsFolder = m_bin;
    prefs.clusters = {lab};
    prefs.save();
    QTemporaryDir run;
    ClusterJobRecord rec;
    rec.profile = "lab";
    rec.jobId = "77";
    rec.jobIds = {"77"};
    rec.sharedDir = run.path();
    QVERIFY(writeClusterJob(run.path(), rec));
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
    QVERIFY(calls().contains("squeue -h -j 77"));
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
    // A hand-edited profile with a bad value is left out, the others stay.
    QSettings().setValue("clusters/2/time", "soon");
    QCOMPARE(Preferences::load().clusters.size(), 1);
    QCOMPARE(Preferences::load().clusters[0].name, QString("lab"));
  }
};

QTEST_GUILESS_MAIN(TestSlurmJob)
#include "tst_slurm_job.moc"
