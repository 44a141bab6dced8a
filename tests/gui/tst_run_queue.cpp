// The run queue: two queued CPU runs of a real project run one after the other; cancel and
// reorder; the queue survives reopening the project; with a fake NVML of two GPUs the free count
// follows the leases and the memory threshold.
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "common/project_fixture.h"
#include "gui/gui_test_util.h"

#include <QJsonDocument>
#include <QJsonObject>
#include "core/studio/run/gpu_lease.h"
#include "core/studio/hardware/hardware_monitor.h"
#include "core/studio/project/project_document.h"
#include "core/studio/run/run_controller.h"
#include "core/studio/run/run_queue.h"
#include "core/studio/run/run_session.h"
#include "core/telemetry/events.h"
#include "widgets/hardware_page.h"
#include "widgets/main_window.h"
#include "widgets/live_chart.h"
#include "widgets/run_page.h"
#include <QMessageBox>
#include "widgets/queue_panel.h"

#include <QDockWidget>
#include <QLabel>
#include <QListView>
#include <QPushButton>

using stave::studio::GpuLeases;
using stave::studio::ProjectDocument;
using stave::studio::QueueEntry;
using stave::studio::RunQueue;
using State = QueueEntry::State;

namespace {
// The first and last event times of a run folder's events.jsonl.
std::pair<double, double> eventSpan(const QString& runDir) {
  QFile f(runDir + "/events.jsonl");
  double first = -1, last = -1;
  if (!f.open(QIODevice::ReadOnly)) return {first, last};
  while (!f.atEnd()) {
    const auto o = QJsonDocument::fromJson(f.readLine()).object();
    if (!o.contains("time")) continue;
    const double t = o.value("time").toDouble();
    if (first < 0) first = t;
    last = t;
  }
  return {first, last};
}
}  // namespace


class TestRunQueue : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  QString m_project;

  std::unique_ptr<RunQueue> makeQueue(ProjectDocument& doc) {
    auto q = std::make_unique<RunQueue>(&doc);
    q->sessions()->setExecutable(STAVE_TRAIN_EXE);
    q->sessions()->setPollInterval(50);
    q->setInterval(100);
    return q;
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    qputenv("STAVE_RUNTIME_DIR", m_dir.filePath("runtime").toUtf8());
    qputenv("STAVE_NVML_LIBRARY", "libstave-no-nvml-here.so");  // a machine without GPUs
    m_project = stave::guitest::makeTinyProject(m_dir);
    QVERIFY(!m_project.isEmpty());
  }

  void queuedRunsWaitSurviveReopenAndRunOneAfterTheOther() {
    // Another Stave run holds the CPU: the queue waits.
    GpuLeases other;
    QVERIFY(other.acquire({"cpu"}, m_dir.filePath("elsewhere/runs/busy")));
    {
      ProjectDocument doc;
      QVERIFY(doc.open(m_project));
      auto q = makeQueue(doc);
      QVERIFY(q->enqueue("default", 1, {"epochs=1"}));
      QVERIFY(q->enqueue("default", 1, {"epochs=2"}));
      QVERIFY(q->enqueue("default", 1, {"epochs=3"}));
      QTRY_COMPARE(int(q->entries()[0].state), int(State::Waiting));
      QVERIFY2(q->entries()[0].message.contains("busy"), qPrintable(q->entries()[0].message));
      QCOMPARE(q->freeText(), QString("CPU busy (busy)"));
      QVERIFY(q->cancel(1));  // the epochs=2 one
      QVERIFY(!q->cancel(1));
      QVERIFY(q->move(2, -1));   // epochs=3 before the cancelled one
      QVERIFY(!q->move(2, -1));  // the cancelled one does not move
      QVERIFY(!q->move(0, -1));  // nothing above the head
      QVERIFY(QFile::exists(q->queueFile()));
    }
    // A new studio: the queue is read back, waiting entries come back queued, in order.
    ProjectDocument doc;
    QVERIFY(doc.open(m_project));
    auto q = makeQueue(doc);
    QCOMPARE(q->rowCount(), 3);
    QCOMPARE(q->entries()[0].overrides, QStringList{"epochs=1"});
    QCOMPARE(q->entries()[1].overrides, QStringList{"epochs=3"});
    QCOMPARE(int(q->entries()[2].state), int(State::Cancelled));
    // The CPU is released: the runs start one after the other.
    other.release({"cpu"}, m_dir.filePath("elsewhere/runs/busy"));
    QSignalSpy started(q.get(), &RunQueue::runStarted);
    std::vector<int> statesAtStart;  // the started entry is "starting" until its run_start event
    connect(q.get(), &RunQueue::runStarted, this, [&] {
      for (const auto& e : q->entries())
        if (!e.runDir.isEmpty() && e.state != State::Finished)
          statesAtStart.push_back(int(e.state));
    });
    QTRY_VERIFY_WITH_TIMEOUT(started.count() == 1, 20000);
    QCOMPARE(statesAtStart, std::vector<int>{int(State::Starting)});
    QCOMPARE(int(q->entries()[1].state), int(State::Queued));  // the second one waits its turn
    QTRY_VERIFY(q->freeText().startsWith("CPU busy (run-"));  // its own run holds the CPU now
    QTRY_VERIFY_WITH_TIMEOUT(q->entries()[0].state == State::Running, 60000);
    QCOMPARE(GpuLeases().holder("cpu"), q->entries()[0].runDir);
    QTRY_VERIFY_WITH_TIMEOUT(started.count() == 2, 180000);
    QCOMPARE(int(q->entries()[0].state), int(State::Finished));
    QTRY_VERIFY_WITH_TIMEOUT(q->entries()[1].state == State::Finished, 180000);
    QVERIFY2(q->entries()[0].message.contains("completed"), qPrintable(q->entries()[0].message));
    const auto a = eventSpan(q->entries()[0].runDir);
    const auto b = eventSpan(q->entries()[1].runDir);
    QVERIFY(a.second > 0 && b.first > 0);
    QVERIFY2(b.first >= a.second, "the second run started before the first ended");
    QTRY_VERIFY(GpuLeases().holder("cpu").isEmpty());
    QTRY_COMPARE(q->freeText(), QString("CPU free"));
    // The queue file keeps run folders relative to the project, so a moved project finds them.
    QFile file(q->queueFile());
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QVERIFY2(text.contains("\"run_dir\": \"runs/run-"), text.constData());
    QVERIFY2(!text.contains(m_dir.path().toUtf8()), text.constData());
  }

  void aRunFolderThatIsGoneEndsItsEntry() {
    // A queue file naming a started run whose folder is gone (the project was moved without
    // it, or the run deleted): the entry fails with a message naming the folder, and the queue
    // goes on with the next entry instead of waiting for ever.
    QFile f(m_dir.filePath("proj/queue.json"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"format": "stave-queue", "version": 2, "entries": [
      {"id": "1", "config": "default", "nproc": 1, "state": "running",
       "run_dir": "runs/run-gone", "resources": ["cpu"]},
      {"id": "2", "config": "default", "nproc": 1, "state": "queued", "overrides": ["epochs=1"]}]})");
    f.close();
    ProjectDocument doc;
    QVERIFY(doc.open(m_project));
    auto q = makeQueue(doc);
    QCOMPARE(q->rowCount(), 2);
    QCOMPARE(q->entries()[0].runDir, m_dir.filePath("proj/runs/run-gone"));
    QTRY_COMPARE(int(q->entries()[0].state), int(State::Failed));
    QVERIFY2(
        q->entries()[0].message.contains("run-gone") && q->entries()[0].message.contains("gone"),
        qPrintable(q->entries()[0].message));
    // ... and the next entry runs.
    QTRY_VERIFY_WITH_TIMEOUT(q->entries()[1].state == State::Finished, 180000);
    QVERIFY(QFile::exists(q->entries()[1].runDir + "/events.jsonl"));
  }

  void gpuFreeCountFollowsLeasesAndMemory() {
    qputenv("STAVE_NVML_LIBRARY", STAVE_FAKE_NVML);  // two GPUs, 12.5% and 13.75% memory used
    ProjectDocument doc;
    QVERIFY(doc.open(m_project));
    auto q = makeQueue(doc);
    q->setMemoryThreshold(0.5);
    QSignalSpy changes(q.get(), &RunQueue::freeTextChanged);
    QTRY_COMPARE(q->freeText(), QString("2/2 GPUs free"));
    QCOMPARE(changes.count(), 1);
    GpuLeases other;
    QVERIFY(other.acquire({"gpu1"}, m_dir.filePath("elsewhere/runs/gpu-user")));
    QTRY_COMPARE(q->freeText(), QString("1/2 GPUs free"));
    QCOMPARE(changes.count(), 2);
    QCOMPARE(changes.last().first().toString(), QString("1/2 GPUs free"));
    // A run asking for both GPUs (devices left to the queue) waits and says why.
    auto cfg = *doc.config("default");
    QVERIFY(cfg.set("devices", std::string()).ok());
    doc.setConfig("gpus", cfg);
    QVERIFY(doc.save());
    QVERIFY(q->enqueue("gpus", 2));
    QTRY_COMPARE(int(q->entries().back().state), int(State::Waiting));
    QVERIFY2(q->entries().back().message.contains("needs 2 free GPUs, 1 free"),
             qPrintable(q->entries().back().message));
    q->setMemoryThreshold(0.1);  // both fake GPUs use more than 10% of their memory
    QSignalSpy measured(q.get(), &RunQueue::measured);
    QTRY_VERIFY(measured.count() >= 2);  // one measured wholly after the change
    other.release({"gpu1"}, m_dir.filePath("elsewhere/runs/gpu-user"));
    QTRY_COMPARE(q->freeText(), QString("0/2 GPUs free"));
    QTRY_VERIFY2(q->entries().back().message.contains("memory"),
                 qPrintable(q->entries().back().message));
    QVERIFY(q->cancel(q->rowCount() - 1));
    qputenv("STAVE_NVML_LIBRARY", "libstave-no-nvml-here.so");
  }

  // One NVML sampler per studio: the queue measures the GPUs from the Hardware page's monitor
  // (started by the queue, before the page is ever shown) instead of sampling NVML itself.
  void theStudioSamplesItsGpusOnce() {
    qputenv("STAVE_NVML_LIBRARY", STAVE_FAKE_NVML);
    const auto restore = qScopeGuard([] { qputenv("STAVE_NVML_LIBRARY", "libstave-no-nvml-here.so"); });
    {
      stave::widgets::MainWindow w;
      w.queue()->setMemoryThreshold(0.5);  // the fake GPUs use 12.5% and 13.75% of their memory
      QVERIFY(w.openProject(m_project));
      auto* status = w.findChild<QLabel*>("statusQueue");
      QVERIFY(status);
      QTRY_COMPARE(status->text(), QString("2/2 GPUs free"));
      const auto monitors = w.findChildren<stave::studio::HardwareMonitor*>();
      QCOMPARE(monitors.size(), 1);
      QCOMPARE(monitors.first(), w.hardwarePage()->monitor());
      QVERIFY(monitors.first()->started());
      QVERIFY(!w.hardwarePage()->isVisible());
      // The queue's count follows the monitor's rounds.
      QSignalSpy sampled(monitors.first(), &stave::studio::HardwareMonitor::sampled);
      QVERIFY(sampled.wait(30000));
      QCOMPARE(w.queue()->lastProbe().gpus.size(), size_t(2));
    }
  }

  void mainWindowShowsTheQueueAndTheFreeCount() {
    // A project reopened with a run still queued: the Queue dock shows it, the status bar says
    // whether the CPU is free, Queue run adds the Run page's config, Cancel ends an entry.
    GpuLeases other;
    QVERIFY(other.acquire({"cpu"}, m_dir.filePath("elsewhere/runs/busy2")));
    {
      ProjectDocument doc;
      QVERIFY(doc.open(m_project));
      auto q = makeQueue(doc);
      QVERIFY(q->enqueue("default", 1, {"epochs=1"}));
    }
    stave::widgets::MainWindow w;
    w.show();
    QVERIFY(w.openProject(m_project));
    auto* dock = w.findChild<QDockWidget*>("queueDock");
    QVERIFY(dock);
    QTRY_VERIFY(dock->isVisible());
    auto* status = w.findChild<QLabel*>("statusQueue");
    QVERIFY(status);
    QTRY_COMPARE(status->text(), QString("CPU busy (busy2)"));
    auto* panel = w.queuePanel();
    const int before = w.queue()->rowCount();
    QVERIFY(before >= 1);
    QCOMPARE(int(w.queue()->entries().back().state) <= int(State::Waiting), true);
    QVERIFY(panel->queueChoice());
    QCOMPARE(w.queue()->rowCount(), before + 1);
    QCOMPARE(w.queue()->entries().back().config, QString("default"));
    auto* cancel = panel->findChild<QPushButton*>("queueCancel");
    QVERIFY(cancel);
    for (int row : {before - 1, before}) {
      panel->view()->setCurrentIndex(w.queue()->index(row));
      QVERIFY(cancel->isEnabled());
      QTest::mouseClick(cancel, Qt::LeftButton);
      QCOMPARE(int(w.queue()->entries()[size_t(row)].state), int(State::Cancelled));
      QVERIFY(!cancel->isEnabled());
    }
    other.release({"cpu"}, m_dir.filePath("elsewhere/runs/busy2"));
    QTRY_COMPARE(status->text(), QString("CPU free"));
    QCOMPARE(w.queue()->pendingCount(), 0);
  }

  // Issue 29, defect 8: a run started from the Run page (it holds no lease) showed "CPU free"
  // in the status bar while it trained.
  void aRunPageRunMakesTheCpuBusy() {
    stave::widgets::MainWindow w;
    w.askOnClose = [] { return int(QMessageBox::No); };  // stop the run on close
    w.sessions()->setExecutable(STAVE_TRAIN_EXE);
    w.sessions()->setPollInterval(50);
    QVERIFY(w.openProject(m_project));
    w.queue()->setInterval(100);
    auto* status = w.findChild<QLabel*>("statusQueue");
    QTRY_COMPARE(status->text(), QString("CPU free"));
    // Issue 29, defect 5: no GPU here, so no GPU charts (they came back for each new run).
    QVERIFY(!w.runPage()->gpuChartsShown());
    QVERIFY(w.runPage()->chart("gpuUtil")->isHidden());
    // (Whether the losses chart is still empty here depends on whether the page has read the
    // runs folder yet and shown the project's last run: not asked.)
    QVERIFY(!w.runPage()->chart("losses")->isHidden());
    QString error;
    auto* session = w.sessions()->start(m_project, "default", 1, {"epochs=300"}, w.runPage(),
                                        stave::studio::RunSessions::Need::Charts, &error);
    QVERIFY2(session, qPrintable(error));
    // Its folder and process are made off the GUI thread; the page shows the folder once made.
    QSignalSpy launched(session->controller(), &stave::studio::RunController::launchDone);
    QVERIFY(launched.wait(30000));
    QCOMPARE(launched.first().first().toString(), QString());
    QVERIFY(w.runPage()->showRun(session->runDir()));
    auto* c = w.runPage()->controller();
    QCOMPARE(c, session->controller());
    QTRY_VERIFY_WITH_TIMEOUT(status->text() == "CPU busy (" + c->runId() + ")", 30000);
    QVERIFY(w.runPage()->chart("gpuUtil")->isHidden());
    QVERIFY(c->stop(&error));
    QTRY_VERIFY_WITH_TIMEOUT(!c->isLive(), 60000);
    QTRY_COMPARE_WITH_TIMEOUT(status->text(), QString("CPU free"), 10000);
  }

  // A run started elsewhere (the command line, Slurm) has no process record: while its events
  // are recent and it has not finished, it holds the CPU too.
  void aRunStartedElsewhereMakesTheCpuBusy() {
    stave::widgets::MainWindow w;
    QVERIFY(w.openProject(m_project));
    w.queue()->setInterval(100);
    auto* status = w.findChild<QLabel*>("statusQueue");
    QTRY_COMPARE(status->text(), QString("CPU free"));
    const QString dir = m_dir.filePath("proj/runs/cli-run");
    QDir().mkpath(dir);
    const auto line = [](auto typed) {
      auto e = stave::telemetry::toEvent(typed, 0);
      e.time = stave::telemetry::unixTimeNow();
      return QByteArray::fromStdString(stave::telemetry::encodeEvent(e) + "\n");
    };
    QFile f(dir + "/events.jsonl");
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(line(stave::telemetry::RunStartEvent{}));
    f.flush();
    // Nobody holds the folder's run lock (a trainer killed at once): the CPU stays free.
    QTest::qWait(500);
    QCOMPARE(status->text(), QString("CPU free"));
    // The trainer holds it, as stave-train does (flock on the folder): busy.
    const int held = ::open(QFile::encodeName(dir).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    QVERIFY(held >= 0 && ::flock(held, LOCK_EX | LOCK_NB) == 0);
    QTRY_COMPARE_WITH_TIMEOUT(status->text(), QString("CPU busy (cli-run)"), 10000);
    stave::telemetry::FinishedEvent fin;
    f.write(line(fin));
    f.close();
    QTRY_COMPARE_WITH_TIMEOUT(status->text(), QString("CPU free"), 10000);
    ::close(held);
    QDir(dir).removeRecursively();
  }

  // Issue 43 §5.10: the queue dock was blank when empty. It says so and how a run gets on it,
  // in the list's place, until an entry is there.
  void anEmptyQueueSaysHowToQueueARun() {
    QTemporaryDir dir;
    ProjectDocument doc;
    QVERIFY(doc.open(stave::testing::makeProject(dir)));
    auto q = makeQueue(doc);
    q->setInterval(3600 * 1000);  // nothing starts while the test looks
    stave::widgets::QueuePanel panel(q.get(), [] { return std::make_pair(QString("default"), 1); });
    auto* empty = panel.findChild<QLabel*>("queueEmpty");
    QVERIFY(empty);
    QCOMPARE(q->rowCount(), 0);
    QVERIFY(!empty->isHidden());
    QVERIFY(panel.view()->isHidden());
    QVERIFY2(empty->text().startsWith("No runs queued.") && empty->text().contains("“Queue run”"),
             qPrintable(empty->text()));
    QVERIFY(panel.queueChoice());
    QCOMPARE(q->rowCount(), 1);
    QVERIFY(empty->isHidden());
    QVERIFY(!panel.view()->isHidden());
    q->cancel(0);
    QCOMPARE(int(q->entries()[0].state), int(State::Cancelled));
    QVERIFY(empty->isHidden());  // a cancelled entry is still listed
  }

  void badQueueFileIsReported() {
    QFile f(m_dir.filePath("proj/queue.json"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"format\": \"something else\"");
    f.close();
    ProjectDocument doc;
    QVERIFY(doc.open(m_project));
    auto q = makeQueue(doc);
    QCOMPARE(q->rowCount(), 0);
    QVERIFY2(q->loadProblem().contains("queue.json"), qPrintable(q->loadProblem()));
  }
};

QTEST_MAIN(TestRunQueue)
#include "tst_run_queue.moc"
