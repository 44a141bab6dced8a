// A cluster run's state from one owner (issue 43 §5.1), offscreen, against a real one-node
// Slurm of this test's own (tests/e2e/slurm_cluster.sh, as gui_tst_cluster_run): the run's
// events and Slurm each learn of its end at their own time, and the Run page never shows the
// two disagreeing. After Stop, from the moment the outcome says "stopped": the job line never
// says "running", no ETA, Stop disabled, Resume enabled — and Resume pressed at once (Slurm still
// lists the job) is sent once the job has ended, and completes. A run reopened whose final event
// says "completed" while Slurm still lists its job: the job is "ending", never "running".
// Needs root and Debian's slurm-wlm and munge; skipped with the reason otherwise.
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include "common/slurm_cluster.h"
#include "core/studio/run/cluster_job.h"
#include "core/studio/project/preferences.h"
#include "core/studio/run/run_controller.h"
#include "core/studio/run/run_session.h"
#include "core/studio/run/slurm_job.h"
#include "core/telemetry/events.h"
#include "widgets/cluster_profiles_editor.h"
#include "widgets/main_window.h"
#include "widgets/run_page.h"
#include "widgets/settings_dialog.h"

using stave::studio::RunOutcome;
using stave::widgets::MainWindow;
using stave::widgets::RunPage;
namespace tel = stave::telemetry;

namespace {

stave::test::Ran run(const QString& program, const QStringList& args) {
  return stave::test::runProgram(program, args);
}

bool ended(RunOutcome o) {
  return o == RunOutcome::Stopped || o == RunOutcome::Completed || o == RunOutcome::EarlyStopped ||
         o == RunOutcome::Failed || o == RunOutcome::Crashed || o == RunOutcome::FailedToStart;
}

/// Watches a Run page every 10 ms and on every state change: the first time the run's outcome
/// says it ended while the job line, the ETA or the buttons say it trains.
class Contradictions : public QObject {
 public:
  explicit Contradictions(RunPage* page) : m_page(page) {
    connect(page->controller(), &stave::studio::RunController::stateChanged, this,
            &Contradictions::check);
    connect(&m_timer, &QTimer::timeout, this, &Contradictions::check);
    m_timer.start(10);
  }
  QString first;
  int checksWhileEnded = 0;  ///< checks made while the outcome said the run ended

  void check() {
    auto* c = m_page->controller();
    if (!first.isEmpty() || c->runDir().isEmpty() || !ended(c->outcome())) return;
    ++checksWhileEnded;
    const QString job = m_page->clusterJobLabel()->text();
    const QString state =
        QStringLiteral("%1 | %2 | %3 | stop %4, resume %5")
            .arg(m_page->outcomeLabel()->text(), job, m_page->progressLabel()->text())
            .arg(m_page->stopButton()->isEnabled())
            .arg(m_page->resumeButton()->isEnabled());
    const bool resumable = c->hasCheckpoint() && c->outcome() != RunOutcome::FailedToStart;
    if (job.contains("running") || m_page->progressLabel()->text().contains("ETA") ||
        m_page->stopButton()->isEnabled() || c->isLive() ||
        (resumable && !m_page->resumeButton()->isEnabled()))
      first = state;
  }

 private:
  RunPage* m_page;
  QTimer m_timer;
};

}  // namespace

class TestClusterRunState : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  QString m_cluster, m_project, m_shared;
  stave::test::SlurmCluster m_slurm;

  std::unique_ptr<MainWindow> openWindow() {
    auto w = std::make_unique<MainWindow>();
    w->sessions()->setExecutable(STAVE_TRAIN_EXE);
    w->sessions()->setPollInterval(50);
    // Slurm asked every 2 s, every 10 s while the job runs: a gap the run's events fall into.
    w->sessions()->setClusterPollInterval(2000);
    w->askOnClose = [] { return int(QMessageBox::Yes); };  // keep training
    if (!w->openProject(m_project)) return nullptr;
    return w;
  }

 private slots:
  void initTestCase() {
    if (const QString why = stave::test::SlurmCluster::skipReason(); !why.isEmpty())
      QSKIP(qPrintable(why));
    QVERIFY(m_dir.isValid());
    QStandardPaths::setTestModeEnabled(true);  // settings of its own
    QSettings().clear();
    QFile::remove(QFileInfo(QSettings().fileName()).absolutePath() + "/clusters.json");
    m_cluster = m_dir.filePath("cluster");
    QString error;
    QVERIFY2(m_slurm.up(m_cluster, &error), qPrintable(error));
    qputenv("SLURM_CONF", (m_cluster + "/slurm.conf").toUtf8());
    QVERIFY(run(STAVE_TRAIN_EXE, {"make-demo", "--out", m_dir.filePath("data"), "--train", "16",
                                  "--val", "8", "--imgsz", "64"})
                .code == 0);
    QVERIFY(run(STAVE_TRAIN_EXE, {"new-project", m_dir.filePath("proj"), "--name", "proj", "--data",
                                  m_dir.filePath("data/data.yaml"), "imgsz=64", "batch=8",
                                  "epochs=200", "devices=cpu", "workers=1", "warmup_epochs=0",
                                  "threads=1", "sample_period_s=0.2", "val=false", "seed=3"})
                .code == 0);
    m_project = m_dir.filePath("proj/proj.stave");
    m_shared = m_dir.filePath("shared");
    // Settings ▸ Clusters: one profile on the test cluster, CPU ranks.
    stave::widgets::SettingsDialog dialog;
    auto* editor = dialog.clusterEditor();
    editor->addProfile();
    const auto set = [&](const char* field, const QString& text) {
      auto* edit = editor->findChild<QLineEdit*>(field);
      edit->selectAll();
      QTest::keyClicks(edit, text);
    };
    set("clusterName", "testcluster");
    set("clusterPartition", "stave");
    set("clusterTime", "00:30:00");
    set("clusterRunFolder", m_shared);
    editor->findChild<QSpinBox*>("clusterGpus")->setValue(0);
    editor->findChild<QSpinBox*>("clusterCpus")->setValue(1);
    QVERIFY(dialog.apply());
  }

  void cleanupTestCase() { m_slurm.down(); }

  // Stop: the final event ("stopped") is read before Slurm stops listing the job; from then on
  // the page says one thing. Resume at once: sent when the job has ended, and it completes.
  void stopThenResumeAtOnce() {
    auto w = openWindow();
    QVERIFY(w);
    auto* page = w->runPage();
    page->targetBox()->setCurrentIndex(page->targetBox()->findData("testcluster"));
    QVERIFY2(page->startRun(), qPrintable(page->outcomeLabel()->text()));
    auto* c = page->controller();
    const QString dir = c->runDir();
    QTRY_VERIFY_WITH_TIMEOUT(
        c->cluster()->record().valid && !c->cluster()->record().jobId.isEmpty(), 60000);
    const QString firstJob = c->cluster()->record().jobId;
    QTRY_COMPARE_WITH_TIMEOUT(c->outcome(), RunOutcome::Running, 120000);
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(dir + "/weights/last.pt"), 180000);
    QTRY_VERIFY_WITH_TIMEOUT(page->clusterJobLabel()->text().contains("running"), 60000);

    Contradictions watch(page);
    QVERIFY(page->stopRun());
    QTRY_COMPARE_WITH_TIMEOUT(c->outcome(), RunOutcome::Stopped, 120000);
    watch.check();
    QVERIFY2(watch.first.isEmpty(), qPrintable(watch.first));
    qInfo("stopped: %s | %s", qPrintable(page->outcomeLabel()->text()),
          qPrintable(page->clusterJobLabel()->text()));
    QVERIFY(page->resumeButton()->isEnabled());

    // Resume at once, as a user would: the run is starting again; Slurm's job before ends first.
    int done = 0;
    for (const auto& e : c->events()) done += e.type == tel::event_type::kEpochEnd;
    QVERIFY(done >= 1);
    QVERIFY2(c->resume(done + 1), qPrintable(page->outcomeLabel()->text()));
    QCOMPARE(c->outcome(), RunOutcome::Starting);
    QVERIFY(c->isLive());
    QTRY_VERIFY_WITH_TIMEOUT(
        !c->cluster()->record().jobId.isEmpty() && c->cluster()->record().jobId != firstJob, 60000);
    QCOMPARE(c->cluster()->record().jobIds, QStringList({firstJob, c->cluster()->record().jobId}));
    Contradictions again(page);
    QTRY_COMPARE_WITH_TIMEOUT(c->outcome(), RunOutcome::Completed, 300000);
    again.check();
    QVERIFY2(again.first.isEmpty(), qPrintable(again.first));
    QTRY_VERIFY_WITH_TIMEOUT(page->clusterJobLabel()->text().contains("completed"), 60000);
    QVERIFY2(watch.first.isEmpty() && again.first.isEmpty(), qPrintable(watch.first + again.first));
  }

  // A run folder whose events say the run completed, while Slurm still lists its job (here a
  // job that sleeps): reopened, the page says "completed" and the job "ending", never running.
  void reopenedWhileTheJobIsStillListed() {
    const QString dir = m_dir.filePath("proj/runs/listed");
    QVERIFY(QDir().mkpath(dir));
    const auto sub = run("sbatch", {"--parsable", "--partition=stave", "--job-name=listed",
                                    "--ntasks=1", "--cpus-per-task=1",
                                    "--output=" + dir + "/slurm-%j.out", "--wrap", "sleep 120"});
    QVERIFY2(sub.code == 0, qPrintable(sub.err));
    const QString job = sub.out.trimmed().section(';', 0, 0);
    QVERIFY(stave::studio::isSlurmJobId(job));
    QTRY_VERIFY_WITH_TIMEOUT(
        run("squeue", {"-h", "-j", job, "-o", "%T"}).out.trimmed() == "RUNNING", 60000);
    stave::studio::ClusterJobRecord rec;
    rec.profile = "testcluster";
    rec.jobId = job;
    rec.jobIds = {job};
    rec.project = m_project;
    rec.sharedDir = dir;
    rec.jobName = "listed";
    rec.submittedAt = tel::unixTimeNow();
    QVERIFY(stave::studio::writeClusterJob(dir, rec));
    {
      const double t = tel::unixTimeNow() - 5;
      tel::RunStartEvent rs;
      rs.config = {{"epochs", 1}};
      auto start = tel::toEvent(rs, 0);
      start.time = t;
      tel::StepEvent st;
      st.iter = 0;
      st.itersPerEpoch = 2;
      st.samplesPerSec = 8;
      auto step = tel::toEvent(st, 0);
      step.time = t + 1;
      tel::FinishedEvent f;
      f.status = tel::RunStatus::Completed;
      f.epochsCompleted = 1;
      f.epochs = 1;
      auto fin = tel::toEvent(f, 0);
      fin.time = t + 2;
      QFile log(dir + "/events.jsonl");
      QVERIFY(log.open(QIODevice::WriteOnly));
      for (const auto& e : {start, step, fin})
        log.write(QByteArray::fromStdString(tel::encodeEvent(e) + "\n"));
    }
    auto w = openWindow();
    QVERIFY(w);
    auto* page = w->runPage();
    Contradictions watch(page);
    QVERIFY(page->showRun(dir));
    auto* c = page->controller();
    QTRY_COMPARE_WITH_TIMEOUT(c->outcome(), RunOutcome::Completed, 30000);
    QTRY_VERIFY_WITH_TIMEOUT(page->clusterJobLabel()->text().contains(job) &&
                                 page->clusterJobLabel()->text().contains("ending"),
                             30000);
    qInfo("%s | %s", qPrintable(page->outcomeLabel()->text()),
          qPrintable(page->clusterJobLabel()->text()));
    QVERIFY(!c->isLive());
    QVERIFY(!page->stopButton()->isEnabled());
    // Slurm ends the job: the job line follows at once (asked often while it is ending).
    QVERIFY(run("scancel", {job}).code == 0);
    QTRY_VERIFY_WITH_TIMEOUT(page->clusterJobLabel()->text().contains("cancelled"), 30000);
    QCOMPARE(c->outcome(), RunOutcome::Completed);
    watch.check();
    QVERIFY(watch.checksWhileEnded > 0);
    QVERIFY2(watch.first.isEmpty(), qPrintable(watch.first));
  }
};

QTEST_MAIN(TestClusterRunState)
#include "tst_cluster_run_state.moc"
