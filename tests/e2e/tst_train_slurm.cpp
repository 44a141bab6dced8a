// A real Slurm: a one-node cluster of this test's own (tests/e2e/slurm_cluster.sh: munged,
// slurmctld, slurmd, a generated slurm.conf with its own ports, no GPUs) runs the sbatch file
// that `stave-train export --format slurm` writes for a CPU config with 2 tasks: 2 ranks from
// SLURM_* variables, the run completes where the export says; `scancel --signal=TERM` makes the
// run checkpoint and end `stopped`, and a resubmission with STAVE_RESUME=1 continues it. Only
// the daemons this test started are stopped. Needs root and Debian's slurm-wlm and munge
// (scripts/setup installs them); skipped with the reason otherwise.
#include <QtTest/QtTest>

#include <unistd.h>

#include "common/slurm_cluster.h"
#include "e2e/train_e2e_util.h"

using namespace stave::e2e;

using stave::test::Ran;

namespace {

Ran run(const QString& program, const QStringList& args, const QStringList& env = {},
        const QString& workDir = {}, int timeoutMs = 60000) {
  return stave::test::runProgram(program, args, env, workDir, timeoutMs);
}

}  // namespace

class TstTrainSlurm : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    if (const QString why = stave::test::SlurmCluster::skipReason(); !why.isEmpty()) QSKIP(qPrintable(why));
    QVERIFY(m_dir.isValid());
    m_cluster = m_dir.filePath("cluster");
    QString error;
    QVERIFY2(m_slurm.up(m_cluster, &error), qPrintable(error));
    m_env = {"SLURM_CONF=" + m_cluster + "/slurm.conf", "STAVE_TRAIN=" STAVE_TRAIN_EXE};
    m_data = makeDemoDataset(m_dir.filePath("demo"), 16, 8, 96);
    QVERIFY(!m_data.isEmpty());
    m_jobs = m_dir.filePath("jobs");
    QVERIFY(QDir().mkpath(m_jobs));
  }

  void cleanupTestCase() { m_slurm.down(); }

  // The exported sbatch file of a CPU config with 2 tasks runs to the end: 2 ranks from the
  // SLURM_* variables, the run folder and its events where the export says.
  void exportedJobCompletes() {
    const QString job = exportJob("done", 2);
    QVERIFY(!job.contains("gpus"));  // a CPU config asks for no GPUs
    const QString id = submit(job, {});
    QVERIFY(!id.isEmpty());
    QVERIFY2(waitGone(id, 600000), "the job did not end");
    const QString runDir = m_jobs + "/runs/slurm-" + id;
    QVERIFY2(QFile::exists(runDir + "/events.jsonl"),
             qPrintable(readText(m_jobs + "/slurm-" + id + ".out").right(3000)));
    QCOMPARE(readResults(runDir + "/results.csv").size(), 2);
    const auto events = parseEvents(readText(runDir + "/events.jsonl"));
    const auto start = eventsOf(events, "run_start");
    QCOMPARE(start.size(), 1);
    QCOMPARE(start[0]["data"].toObject()["world_size"].toInt(), 2);
    const auto finished = eventsOf(events, "finished");
    QCOMPARE(finished.size(), 1);
    QCOMPARE(finished[0]["data"].toObject()["status"].toString(), QString("completed"));
    // No launcher gathers srun's ranks: rank 1 sends its events to rank 0 over the event relay,
    // so the folder has both ranks' steps, as a launcher's run has (and the job's output file
    // does not get rank 1's event lines).
    QSet<int> ranks;
    for (const auto& step : eventsOf(events, "step")) ranks.insert(step["rank"].toInt());
    QCOMPARE(ranks, QSet<int>({0, 1}));
    QVERIFY(!readText(m_jobs + "/slurm-" + id + ".out").contains("\"rank\":1,"));
  }

  // scancel --signal=TERM: the ranks finish their step, rank 0 checkpoints, the run ends
  // stopped; a resubmission with STAVE_RESUME=1 (and more epochs) continues the same folder.
  void stopAndResume() {
    const QString job = exportJob("long", 200);
    const QString id = submit(job, {});
    QVERIFY(!id.isEmpty());
    const QString runDir = m_jobs + "/runs/slurm-" + id;
    QTRY_VERIFY_WITH_TIMEOUT(
        !eventsOf(parseEvents(readText(runDir + "/events.jsonl")), "checkpoint").isEmpty(),
        300000);
    const Ran cancel = run("scancel", {"--signal=TERM", id}, m_env);
    QVERIFY2(cancel.code == 0, qPrintable(cancel.err));
    QVERIFY2(waitGone(id, 120000), "the job did not end after SIGTERM");
    const auto finished = eventsOf(parseEvents(readText(runDir + "/events.jsonl")), "finished");
    QVERIFY2(!finished.isEmpty(), qPrintable(readText(m_jobs + "/slurm-" + id + ".out").right(3000)));
    QCOMPARE(finished.last()["data"].toObject()["status"].toString(), QString("stopped"));
    const int done = readResults(runDir + "/results.csv").size();
    QVERIFY(done >= 1);

    // Resubmitted with one more epoch than is done: the same folder continues to the end.
    const QString more = exportJob("more", done + 1);
    const QString again = submit(more, {"STAVE_RUN_DIR=" + runDir, "STAVE_RESUME=1"});
    QVERIFY(!again.isEmpty());
    QVERIFY2(waitGone(again, 600000), "the resumed job did not end");
    QVERIFY2(readResults(runDir + "/results.csv").size() == done + 1,
             qPrintable(readText(m_jobs + "/slurm-" + again + ".out").right(3000)));
    const auto last = eventsOf(parseEvents(readText(runDir + "/events.jsonl")), "finished");
    QCOMPARE(last.last()["data"].toObject()["status"].toString(), QString("completed"));
  }

 private:
  // Exports the sbatch file of a tiny CPU config with `epochs` into jobs/NAME.sbatch.
  QString exportJob(const QString& name, int epochs) {
    const QString cfg = m_dir.filePath(name + ".yaml");
    if (!writeTinyConfig(cfg, m_data, 64, epochs, 2,
                         {"seed: 3", "threads: 1", "workers: 1", "val: false", "nproc: 2"}))
      return {};
    const QString out = m_jobs + "/" + name + ".sbatch";
    auto r = runStaveTrain({"export", cfg, "--format", "slurm", "--out", out, "--cpus-per-task",
                            "1", "--time", "00:30:00"});
    if (r.exitCode != 0) qWarning("%s", qPrintable(r.err));
    return readText(out).isEmpty() ? QString() : out;
  }

  // Submits `file` from jobs/; returns the job id ("" when refused).
  QString submit(const QString& file, const QStringList& env) {
    if (file.isEmpty()) return {};
    const Ran r = run("sbatch", {"--parsable", "--chdir=" + m_jobs, "--output=" + m_jobs +
                                     "/slurm-%j.out", file},
                      m_env + env, m_jobs);
    if (r.code != 0) qWarning("sbatch: %s", qPrintable(r.err));
    return r.code == 0 ? r.out.trimmed().section(';', 0, 0) : QString();
  }

  // Waits until squeue no longer lists job `id`.
  bool waitGone(const QString& id, int timeoutMs) {
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < timeoutMs) {
      const Ran q = run("squeue", {"-h", "-j", id, "-o", "%T"}, m_env);
      if (q.code != 0 || q.out.trimmed().isEmpty()) return true;
      QTest::qWait(500);
    }
    return false;
  }

  QTemporaryDir m_dir;
  QString m_cluster, m_data, m_jobs;
  QStringList m_env;
  stave::test::SlurmCluster m_slurm;
};

QTEST_GUILESS_MAIN(TstTrainSlurm)
#include "tst_train_slurm.moc"
