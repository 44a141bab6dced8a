// The studio sends a run to a cluster and follows it (issue 30 §4), offscreen, against a real
// one-node Slurm of this test's own (tests/e2e/slurm_cluster.sh: munged, slurmctld, slurmd, its
// own conf, ports and state): Settings ▸ Clusters makes a profile (a bad time limit is refused,
// naming the field); "Run on cluster" submits the exported sbatch file; the Run page shows the
// job id and its state — pending with Slurm's reason while the partition is down, running —
// and draws the run's charts from the run folder (on the profile's shared run folder, linked
// from the project's runs/); Stop = scancel --signal=TERM: the run checkpoints and ends
// stopped; Resume resubmits it with resume=true and it completes; a new window on the project
// shows the run with its job; a job Slurm refuses leaves no run folder. Needs root and
// Debian's slurm-wlm and munge (scripts/setup installs them); skipped with the reason otherwise.
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "common/slurm_cluster.h"
#include "core/studio/run/cluster_job.h"
#include "core/studio/project/preferences.h"
#include "core/studio/project/project_document.h"
#include "core/studio/run/run_controller.h"
#include "core/studio/run/run_folders.h"
#include "core/studio/run/slurm_job.h"
#include <qcustomplot.h>
#include "widgets/cluster_profiles_editor.h"
#include "widgets/live_chart.h"
#include "widgets/main_window.h"
#include "core/studio/run/run_session.h"
#include "widgets/run_page.h"
#include "widgets/settings_dialog.h"

using stave::studio::RunOutcome;
using stave::widgets::MainWindow;

namespace {

stave::test::Ran run(const QString& program, const QStringList& args) {
  return stave::test::runProgram(program, args);
}

QString readText(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

int epochEnds(const stave::studio::RunController* c) {
  int n = 0;
  for (const auto& e : c->events()) n += e.type == "epoch_end";
  return n;
}

}  // namespace

class TestClusterRun : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  QString m_cluster, m_project, m_shared;
  stave::test::SlurmCluster m_slurm;

  std::unique_ptr<MainWindow> openWindow() {
    auto w = std::make_unique<MainWindow>();
    w->sessions()->setExecutable(STAVE_TRAIN_EXE);
    w->sessions()->setPollInterval(50);
    w->sessions()->setClusterPollInterval(300);
    w->askOnClose = [] { return int(QMessageBox::Yes); };  // keep training
    if (!w->openProject(m_project)) return nullptr;
    return w;
  }

  // Settings ▸ Clusters as a user fills it: Add, then the fields.
  bool addProfile(const QString& name, const QString& partition, const QString& time) {
    stave::widgets::SettingsDialog dialog;
    auto* editor = dialog.clusterEditor();
    editor->addProfile();
    const auto set = [&](const char* field, const QString& text) {
      auto* edit = editor->findChild<QLineEdit*>(field);
      edit->selectAll();
      QTest::keyClicks(edit, text);
    };
    set("clusterName", name);
    set("clusterPartition", partition);
    set("clusterTime", time);
    set("clusterRunFolder", m_shared);
    editor->findChild<QSpinBox*>("clusterGpus")->setValue(0);  // CPU ranks
    editor->findChild<QSpinBox*>("clusterCpus")->setValue(1);
    return dialog.apply();
  }

 private slots:
  void initTestCase() {
    if (const QString why = stave::test::SlurmCluster::skipReason(); !why.isEmpty()) QSKIP(qPrintable(why));
    QVERIFY(m_dir.isValid());
    QStandardPaths::setTestModeEnabled(true);  // settings of its own
    QSettings().clear();
    // The cluster profiles are a file beside the settings (clusters.json): none either.
    QFile::remove(QFileInfo(QSettings().fileName()).absolutePath() + "/clusters.json");
    m_cluster = m_dir.filePath("cluster");
    QString error;
    QVERIFY2(m_slurm.up(m_cluster, &error), qPrintable(error));
    qputenv("SLURM_CONF", (m_cluster + "/slurm.conf").toUtf8());
    QVERIFY(run(STAVE_TRAIN_EXE, {"make-demo", "--out", m_dir.filePath("data"), "--train", "16", "--val",
                                  "8", "--imgsz", "64"})
                .code == 0);
    QVERIFY(run(STAVE_TRAIN_EXE, {"new-project", m_dir.filePath("proj"), "--name", "proj", "--data",
                                  m_dir.filePath("data/data.yaml"), "imgsz=64", "batch=8", "epochs=200",
                                  "devices=cpu", "workers=1", "warmup_epochs=0", "threads=1",
                                  "sample_period_s=0.2", "val=false", "seed=3"})
                .code == 0);
    m_project = m_dir.filePath("proj/proj.stave");
    m_shared = m_dir.filePath("shared");
  }

  void cleanupTestCase() { m_slurm.down(); }

  // Settings ▸ Clusters refuses a profile it could not export, naming the field; a good one is
  // stored with the preferences.
  void profileInSettings() {
    {
      stave::widgets::SettingsDialog dialog;
      dialog.clusterEditor()->addProfile();
      auto* time = dialog.clusterEditor()->findChild<QLineEdit*>("clusterTime");
      time->selectAll();
      QTest::keyClicks(time, "one day");
      QVERIFY(!dialog.apply());
      QVERIFY2(dialog.problemLabel()->text().contains("cluster 'cluster': time"),
               qPrintable(dialog.problemLabel()->text()));
    }
    QVERIFY(stave::studio::Preferences::load().clusters.isEmpty());
    QVERIFY(addProfile("testcluster", "stave", "00:30:00"));
    QVERIFY(addProfile("nowhere", "nosuchpartition", "10"));
    const auto prefs = stave::studio::Preferences::load();
    QCOMPARE(prefs.clusters.size(), 2);
    QCOMPARE(prefs.clusters[0].name, QString("testcluster"));
    QCOMPARE(prefs.clusters[0].partition, QString("stave"));
    QCOMPARE(prefs.clusters[0].gpusPerNode, 0);
    QCOMPARE(prefs.clusters[0].runFolder, m_shared);
  }

  // Run on cluster: pending (partition down, Slurm's reason shown), running with live charts,
  // Stop -> checkpoint and stopped, Resume -> resubmitted, completes; reopened -> followed again.
  void runStopResumeReattach() {
    auto w = openWindow();
    QVERIFY(w);
    auto* page = w->runPage();
    auto* target = page->targetBox();
    const int i = target->findData("testcluster");
    QVERIFY(i > 0);
    target->setCurrentIndex(i);
    QVERIFY(page->startButton()->text().contains("cluster"));
    page->findChild<QSpinBox*>("runNproc")->setValue(2);

    QVERIFY(run("scontrol", {"update", "PartitionName=stave", "State=DOWN"}).code == 0);
    QVERIFY2(page->startRun(), qPrintable(page->outcomeLabel()->text()));
    auto* c = page->controller();
    const QString dir = c->runDir();
    QVERIFY(dir.contains("/proj/runs/run-"));
    QTRY_VERIFY_WITH_TIMEOUT(c->cluster()->record().valid, 60000);
    const QString firstJob = c->cluster()->record().jobId;
    QVERIFY(!firstJob.isEmpty());
    // The run folder lives on the profile's shared folder, linked from the project's runs/.
    QVERIFY(QFileInfo(dir).isSymLink());
    QCOMPARE(QFileInfo(dir).symLinkTarget(), QDir(m_shared).filePath("proj/" + QFileInfo(dir).fileName()));
    QVERIFY(QFile::exists(dir + "/job.sbatch"));
    QTRY_VERIFY_WITH_TIMEOUT(page->clusterJobLabel()->text().contains("pending") &&
                                 page->clusterJobLabel()->text().contains("PartitionDown"),
                             30000);
    QVERIFY(page->clusterJobLabel()->isVisible() || !w->isVisible());
    QVERIFY(page->clusterJobLabel()->text().contains(firstJob));
    QCOMPARE(c->outcome(), RunOutcome::Starting);
    QVERIFY(c->isLive());
    QVERIFY(page->stopButton()->isEnabled());
    qInfo("%s", qPrintable(page->clusterJobLabel()->text()));

    QVERIFY(run("scontrol", {"update", "PartitionName=stave", "State=UP"}).code == 0);
    QTRY_VERIFY_WITH_TIMEOUT(page->clusterJobLabel()->text().contains("running"), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(page->chart("losses")->seriesCount() == 3 &&
                                 page->chart("losses")->pointCount(0) >= 2,
                             180000);
    QTRY_COMPARE_WITH_TIMEOUT(c->outcome(), RunOutcome::Running, 10000);
    // Both ranks' steps reach the run folder (srun's rank 1 through rank 0's event relay): the
    // per-rank split has two bars.
    auto* bars = qobject_cast<QCPBars*>(page->splitChart()->plottable(0));
    QVERIFY(bars);
    QTRY_VERIFY_WITH_TIMEOUT(bars->data()->size() == 2, 60000);
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(dir + "/weights/last.pt"), 180000);

    // Stop: SIGTERM through Slurm; the ranks finish their step, rank 0 checkpoints.
    QVERIFY(page->stopRun());
    QTRY_COMPARE_WITH_TIMEOUT(c->outcome(), RunOutcome::Stopped, 120000);
    QTRY_VERIFY_WITH_TIMEOUT(!c->isLive(), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(page->resumeButton()->isEnabled(), 10000);
    QVERIFY2(!page->clusterJobLabel()->text().contains("running"), qPrintable(page->clusterJobLabel()->text()));

    // Resume: the same folder, a new job, one epoch more than is done; it completes.
    const int done = epochEnds(c);
    QVERIFY(done >= 1);
    qInfo("stopped after %d epoch(s): %s | %s", done, qPrintable(page->clusterJobLabel()->text()),
          qPrintable(page->outcomeLabel()->text()));
    QVERIFY2(c->resume(done + 1), qPrintable(page->outcomeLabel()->text()));
    QTRY_VERIFY_WITH_TIMEOUT(c->cluster()->record().jobId != firstJob && !c->cluster()->record().jobId.isEmpty(),
                             60000);
    const QString secondJob = c->cluster()->record().jobId;
    QCOMPARE(c->cluster()->record().jobIds, QStringList({firstJob, secondJob}));
    QTRY_COMPARE_WITH_TIMEOUT(c->outcome(), RunOutcome::Completed, 300000);
    QTRY_VERIFY_WITH_TIMEOUT(c->cluster()->state().ended(), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(page->clusterJobLabel()->text().contains(secondJob) &&
                                 page->clusterJobLabel()->text().contains("completed"),
                             30000);
    QCOMPARE(epochEnds(c), done + 1);
    qInfo("%s | %s", qPrintable(page->clusterJobLabel()->text()), qPrintable(page->outcomeLabel()->text()));
    // Seen ending: kept in the run folder for a studio opened after Slurm forgot the job.
    QTRY_COMPARE_WITH_TIMEOUT(stave::studio::readClusterJob(dir).finalState, QString("COMPLETED"), 30000);

    // A new window on the project shows the run with its job (the newest run), its charts,
    // and the history lists it.
    w.reset();
    auto again = openWindow();
    QVERIFY(again);
    auto* p2 = again->runPage();
    // Where the last run went is where the next goes.
    QCOMPARE(p2->targetBox()->currentData().toString(), QString("testcluster"));
    QVERIFY(p2->startButton()->text().contains("cluster"));
    QTRY_COMPARE_WITH_TIMEOUT(p2->controller()->runDir(), dir, 30000);
    QTRY_VERIFY_WITH_TIMEOUT(p2->clusterJobLabel()->text().contains(secondJob), 30000);
    QTRY_COMPARE_WITH_TIMEOUT(p2->controller()->outcome(), RunOutcome::Completed, 30000);
    QTRY_VERIFY_WITH_TIMEOUT(p2->chart("losses")->seriesCount() > 0 && p2->chart("losses")->pointCount(0) >= 2, 30000);
    bool listed = false;
    for (const auto& r : stave::studio::listRunSummaries(QFileInfo(again->document()->path()).absolutePath())) listed = listed || r.id == QFileInfo(dir).fileName();
    QVERIFY(listed);
    // "On" is kept per project: another project, which never ran, starts on this machine, and
    // back on this one the cluster is chosen again.
    QVERIFY(run(STAVE_TRAIN_EXE, {"new-project", m_dir.filePath("other"), "--name", "other", "--data",
                                  m_dir.filePath("data/data.yaml"), "devices=cpu"})
                .code == 0);
    QVERIFY(again->openProject(m_dir.filePath("other/other.stave")));
    QCOMPARE(p2->targetBox()->currentData().toString(), QString());
    QVERIFY(!p2->startButton()->text().contains("cluster"));
    QVERIFY(again->openProject(m_project));
    QCOMPARE(p2->targetBox()->currentData().toString(), QString("testcluster"));
  }

  // Stop while the job pends: it is cancelled (nothing to checkpoint), and the run says so.
  void pendingJobCancelled() {
    auto w = openWindow();
    QVERIFY(w);
    auto* page = w->runPage();
    page->targetBox()->setCurrentIndex(page->targetBox()->findData("testcluster"));
    QVERIFY(run("scontrol", {"update", "PartitionName=stave", "State=DOWN"}).code == 0);
    QVERIFY(page->startRun());
    auto* c = page->controller();
    QTRY_VERIFY_WITH_TIMEOUT(page->clusterJobLabel()->text().contains("PartitionDown"), 60000);
    // Slurm's word, and what it means.
    QVERIFY2(page->clusterJobLabel()->text().contains("the partition is down"),
             qPrintable(page->clusterJobLabel()->text()));
    // The job waits elsewhere: this machine is free for a run of its own.
    QVERIFY(c->isLive());
    page->targetBox()->setCurrentIndex(0);
    QVERIFY(page->startButton()->isEnabled());
    page->targetBox()->setCurrentIndex(page->targetBox()->findData("testcluster"));
    QVERIFY(page->stopRun());
    QTRY_COMPARE_WITH_TIMEOUT(c->outcome(), RunOutcome::Stopped, 60000);
    QVERIFY(run("scontrol", {"update", "PartitionName=stave", "State=UP"}).code == 0);
    QVERIFY2(page->clusterJobLabel()->text().contains("cancelled"), qPrintable(page->clusterJobLabel()->text()));
    QVERIFY2(c->outcomeText().contains("stopped"), qPrintable(c->outcomeText()));
    QVERIFY(!c->isLive());
    // It never ran, so there is no checkpoint: Resume is not offered.
    QVERIFY(!page->resumeButton()->isEnabled());
  }

  // A job that ends without the run's final event (here: the nodes cannot start stave-train):
  // failed, naming Slurm's state and the job's output file.
  void failedJob() {
    auto prefs = stave::studio::Preferences::load();
    auto broken = *prefs.cluster("testcluster");
    broken.name = "broken";
    broken.trainExecutable = m_dir.filePath("no-such/stave-train");
    prefs.clusters << broken;
    prefs.save();
    auto w = openWindow();
    QVERIFY(w);
    auto* page = w->runPage();
    page->targetBox()->setCurrentIndex(page->targetBox()->findData("broken"));
    QVERIFY(page->startRun());
    auto* c = page->controller();
    QTRY_COMPARE_WITH_TIMEOUT(c->outcome(), RunOutcome::Failed, 120000);
    QVERIFY2(c->outcomeText().contains("FAILED (exit code ") && c->outcomeText().contains("slurm-") &&
                 c->outcomeText().contains(".out"),
             qPrintable(c->outcomeText()));
    QVERIFY2(page->clusterJobLabel()->text().contains("failed"), qPrintable(page->clusterJobLabel()->text()));
    qInfo("%s | %s", qPrintable(page->clusterJobLabel()->text()), qPrintable(c->outcomeText()));
    QVERIFY(!c->isLive());
  }

  // A job that could never start (a partition the cluster does not have): refused before it is
  // sent, naming the partition and the ones there are, and no run folder left behind. (sbatch's
  // own refusals: unit_studio_slurm_job, with Slurm's commands faked.)
  void refusedJob() {
    auto w = openWindow();
    QVERIFY(w);
    auto* page = w->runPage();
    page->targetBox()->setCurrentIndex(page->targetBox()->findData("nowhere"));
    const QStringList before = QDir(m_dir.filePath("proj/runs")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    QVERIFY(page->startRun());
    auto* c = page->controller();
    QTRY_COMPARE_WITH_TIMEOUT(c->outcome(), RunOutcome::FailedToStart, 60000);
    QVERIFY2(c->outcomeText().contains("no partition nosuchpartition (it has stave)"),
             qPrintable(c->outcomeText()));
    QVERIFY(!c->isLive());
    QCOMPARE(QDir(m_dir.filePath("proj/runs")).entryList(QDir::Dirs | QDir::NoDotAndDotDot), before);
  }
};

QTEST_MAIN(TestClusterRun)
#include "tst_cluster_run.moc"
