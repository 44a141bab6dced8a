// The Run page drives real runs (stave-train on the CPU, a fake NVML with two GPUs): start a
// short run, the loss, mAP and GPU charts receive points; stop -> outcome stopped and a
// checkpoint; resume -> continues to the end. A run outlives its window: destroy the window,
// the process is still alive, a new window on the project reattaches with the curves from the
// start; kill -9 of the process -> crashed (SIGKILL), no hang. A run folder copied from another
// machine is not mistaken for a live one. The process is watched off the GUI thread.
#include <QDirIterator>
#include <QJsonDocument>
#include <QJsonObject>
#include <QComboBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QTemporaryDir>
#include <QElapsedTimer>
#include <QtTest>
#include <signal.h>

#include "core/studio/gui_thread_reads.h"
#include "core/studio/project/project_document.h"
#include "core/studio/run/run_controller.h"
#include "widgets/live_chart.h"
#include "widgets/main_window.h"
#include "core/studio/run/run_session.h"
#include "widgets/run_page.h"

using stave::studio::RunController;
using stave::studio::ChildProcess;
using stave::studio::OffGuiRead;
using stave::studio::RunOutcome;
using stave::studio::readCount;
using stave::widgets::LiveChart;
using stave::widgets::MainWindow;

namespace {
bool runTrain(const QStringList& args) {
  QProcess p;
  p.start(STAVE_TRAIN_EXE, args);
  return p.waitForFinished(120000) && p.exitCode() == 0;
}
int epochEnds(const RunController* c) {
  int n = 0;
  for (const auto& e : c->events()) n += e.type == "epoch_end";
  return n;
}
}  // namespace

class TestRunPage : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  QString m_project;

  std::unique_ptr<MainWindow> openWindow() {
    auto w = std::make_unique<MainWindow>();
    w->sessions()->setExecutable(STAVE_TRAIN_EXE);
    w->sessions()->setGracePeriod(60);
    w->sessions()->setPollInterval(50);
    w->askOnClose = [] { return int(QMessageBox::Yes); };  // keep training
    if (!w->openProject(m_project)) return nullptr;
    return w;
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    qputenv("STAVE_NVML_LIBRARY", STAVE_FAKE_NVML);
    QVERIFY(runTrain({"make-demo", "--out", m_dir.filePath("data"), "--train", "16", "--val", "8",
                      "--imgsz", "64"}));
    QVERIFY(runTrain({"new-project", m_dir.filePath("proj"), "--name", "proj", "--data",
                      m_dir.filePath("data/data.yaml"), "imgsz=64", "batch=8", "epochs=40",
                      "devices=cpu", "workers=1", "warmup_epochs=0", "threads=1",
                      "sample_period_s=0.2", "val_period=1"}));
    m_project = m_dir.filePath("proj/proj.stave");
  }

  void startStopResume() {
    auto w = openWindow();
    QVERIFY(w);
    auto* page = w->runPage();
    QVERIFY(page->startButton()->isEnabled());
    QVERIFY2(page->startRun(), qPrintable(page->outcomeLabel()->text()));
    auto* c = page->controller();
    const QString dir = c->runDir();
    QVERIFY(dir.contains("/runs/run-"));
    QVERIFY(c->isLive());
    QVERIFY(page->stopButton()->isEnabled());
    // The charts fill: losses per iteration, validation mAP, GPU utilisation of both fake GPUs.
    QTRY_VERIFY_WITH_TIMEOUT(page->chart("losses")->seriesCount() == 3 &&
                                 page->chart("losses")->pointCount(0) >= 2,
                             120000);
    QTRY_VERIFY_WITH_TIMEOUT(page->chart("metrics")->seriesCount() == 4 &&
                                 page->chart("metrics")->pointCount(3) >= 1,
                             120000);
    QTRY_VERIFY_WITH_TIMEOUT(page->chart("gpuUtil")->seriesCount() == 2 &&
                                 page->chart("gpuUtil")->pointCount(1) >= 2,
                             30000);
    QVERIFY(page->chart("system")->seriesCount() >= 1);
    page->chart("losses")->refresh();
    QVERIFY(page->chart("losses")->drawnCount(0) >= 2);
    QVERIFY(!page->gpuUtilisation().empty());

    c->setGracePeriod(8);
    QElapsedTimer sinceStop;
    sinceStop.start();
    QVERIFY(page->stopRun());
    QTRY_COMPARE_WITH_TIMEOUT(c->outcome(), RunOutcome::Stopped, 120000);
    QTRY_VERIFY_WITH_TIMEOUT(!c->isLive(), 30000);
    QVERIFY(QFile::exists(dir + "/weights/last.pt"));
    QVERIFY(page->outcomeLabel()->text().contains("stopped"));
    QTRY_VERIFY_WITH_TIMEOUT(page->resumeButton()->isEnabled(), 5000);
    // Issue 29, defect 8: after the stop, nothing says the run still goes ("(running)" in the
    // list, "epoch 1/3"), and the stop's reason is in the log pane.
    auto* runList = w->findChild<QComboBox*>("runList");
    QVERIFY(runList);
    QTRY_VERIFY_WITH_TIMEOUT(runList->currentIndex() >= 0 &&
                                 !runList->currentText().contains("running"),
                             10000);
    auto* progress = w->findChild<QLabel*>("runProgress");
    QVERIFY(progress);
    QVERIFY2(progress->text().contains("epoch(s) done"), qPrintable(progress->text()));
    auto* log = w->findChild<QPlainTextEdit*>("runLog");
    QVERIFY(log);
    QVERIFY2(log->toPlainText().contains("[run] stopped after") &&
                 log->toPlainText().contains("resume=true continues"),
             qPrintable(log->toPlainText()));

    // Resumed within the stop's grace period: the stop's timer must not kill the new process
    // when it fires (it SIGKILLed the resumed run, shown as "crashed").
    QVERIFY(sinceStop.elapsed() < 8000);
    QVERIFY2(c->resume(epochEnds(c) + 2000), qPrintable(page->outcomeLabel()->text()));
    QTRY_VERIFY_WITH_TIMEOUT(c->isLive(), 30000);
    QTest::qWait(static_cast<int>(std::max<qint64>(0, 10000 - sinceStop.elapsed())));
    QVERIFY2(c->isLive() && c->outcome() != RunOutcome::Crashed,
             qPrintable(page->outcomeLabel()->text()));
    c->setGracePeriod(30);
    QVERIFY(page->stopRun());
    QTRY_COMPARE_WITH_TIMEOUT(c->outcome(), RunOutcome::Stopped, 120000);
    QTRY_VERIFY_WITH_TIMEOUT(!c->isLive(), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(page->resumeButton()->isEnabled(), 5000);

    // Resume to one epoch beyond what is done: it continues and completes.
    const int done = epochEnds(c);
    QVERIFY2(c->resume(done + 1), qPrintable(page->outcomeLabel()->text()));
    QTRY_COMPARE_WITH_TIMEOUT(c->outcome(), RunOutcome::Completed, 180000);
    QCOMPARE(c->runDir(), dir);
    QVERIFY(epochEnds(c) >= done + 1);
    QTRY_VERIFY_WITH_TIMEOUT(!c->isLive(), 30000);
    // The run folder, its old records, the process and launcher.json (a start and two
    // resumes), and the stops' reads of the record: all off the GUI thread.
    const auto starts = readCount(OffGuiRead::RunStart), stops = readCount(OffGuiRead::RunStop);
    QVERIFY2(starts.total >= 6, qPrintable(QString::number(starts.total)));  // 3 launches, 2 reads each
    QCOMPARE(starts.onMainThread, uint64_t(0));
    QVERIFY2(stops.total >= 2, qPrintable(QString::number(stops.total)));
    QCOMPARE(stops.onMainThread, uint64_t(0));
  }

  void runOutlivesWindowAndReattaches() {
    QString dir;
    int pointsBefore = 0;
    {
      auto w = openWindow();
      QVERIFY(w);
      QVERIFY2(w->runPage()->startRun(), qPrintable(w->runPage()->outcomeLabel()->text()));
      dir = w->runPage()->controller()->runDir();
      QTRY_VERIFY_WITH_TIMEOUT(w->runPage()->chart("losses")->seriesCount() == 3 &&
                                   w->runPage()->chart("losses")->pointCount(0) >= 3,
                               120000);
      pointsBefore = w->runPage()->chart("losses")->pointCount(0);
      QVERIFY(w->close());  // "keep training in the background"
    }  // the window is gone
    QVERIFY(ChildProcess::alive(dir));
    QTest::qWait(500);
    QVERIFY(ChildProcess::alive(dir));

    const auto looksBefore = readCount(OffGuiRead::RunProcess);
    auto w2 = openWindow();
    QVERIFY(w2);
    // The run folders are read off the GUI thread; the live one is reattached then, and its
    // process looked at off it too.
    QTRY_COMPARE_WITH_TIMEOUT(w2->runPage()->controller()->runDir(), dir, 10000);
    auto* c = w2->runPage()->controller();
    QTRY_VERIFY_WITH_TIMEOUT(c->isLive(), 10000);
    QCOMPARE(c->outcome(), RunOutcome::Running);
    // Curves from the start: at least what the first window had, and the run's first event.
    QTRY_VERIFY_WITH_TIMEOUT(w2->runPage()->chart("losses")->seriesCount() > 0 &&  // read on the reader's thread
                                 w2->runPage()->chart("losses")->pointCount(0) >= pointsBefore,
                             30000);
    bool sawStart = false;
    for (const auto& e : c->events()) sawStart = sawStart || e.type == "run_start";
    QVERIFY(sawStart);
    QVERIFY(w2->runPage()->chart("losses")->pointCount(0) > 0);

    // kill -9 of the training process: crashed (SIGKILL), the log tail, resume offered.
    const auto rec = ChildProcess::readRecord(dir);
    QVERIFY(rec.valid);
    QCOMPARE(::kill(static_cast<pid_t>(rec.pid), SIGKILL), 0);
    QTRY_COMPARE_WITH_TIMEOUT(c->outcome(), RunOutcome::Crashed, 30000);
    QVERIFY2(c->outcomeText().contains("SIGKILL"), qPrintable(c->outcomeText()));
    QTRY_VERIFY_WITH_TIMEOUT(w2->runPage()->resumeButton()->isEnabled(), 5000);
    QVERIFY(w2->runPage()->startButton()->isEnabled());
    // Every look at the process (launcher record, exit status, /proc, launcher.log) was made
    // off the GUI thread, in this window and the first one.
    const auto looks = readCount(OffGuiRead::RunProcess);
    QVERIFY(looks.total > looksBefore.total);
    QCOMPARE(looks.onMainThread, uint64_t(0));
    // Whether the reattached folder is a cluster run was asked with the first look, off it too.
    const auto clusterLooks = readCount(OffGuiRead::ClusterRecord);
    QVERIFY(clusterLooks.total > 0);
    QCOMPARE(clusterLooks.onMainThread, uint64_t(0));
  }

  void copiedRunFolderIsNotLive() {
    // A run folder from another machine: its record names another host.
    const QString dir = m_dir.filePath("proj/runs/copied");
    QDir().mkpath(dir);
    QFile f(dir + "/launcher.json");
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QJsonDocument(QJsonObject{{"pid", qint64(QCoreApplication::applicationPid())},
                                      {"start_ticks", 1},
                                      {"host", "another-machine"},
                                      {"boot_id", "x"}})
                .toJson());
    f.close();
    QVERIFY(!ChildProcess::alive(dir));
    // Same host, but the pid now belongs to another process (started at another time).
    QFile g(dir + "/launcher.json");
    QVERIFY(g.open(QIODevice::WriteOnly));
    g.write(QJsonDocument(QJsonObject{{"pid", qint64(QCoreApplication::applicationPid())},
                                      {"start_ticks", 12345},
                                      {"host", QSysInfo::machineHostName()},
                                      {"boot_id", "not-this-boot"}})
                .toJson());
    g.close();
    QVERIFY(!ChildProcess::alive(dir));
    QVERIFY(!RunController::liveRuns(m_dir.filePath("proj")).contains(dir));
  }

  void chartsOverOneAxisMoveTogether() {
    MainWindow w;
    auto* page = w.runPage();
    auto* losses = page->chart("losses");
    auto* speed = page->chart("speed");
    auto* metrics = page->chart("metrics");
    QVERIFY(speed->following());
    emit losses->userRangeChanged(QCPRange(10, 20));
    QVERIFY(!speed->following());
    QCOMPARE(speed->xAxis->range().lower, 10.0);
    QCOMPARE(speed->xAxis->range().upper, 20.0);
    QVERIFY(metrics->following());  // another axis (epochs): untouched
    emit losses->userReset();
    QVERIFY(speed->following());
    // What is drawn keeps each block's extremes: a one-point spike survives a full view.
    stave::studio::LodSeries series;
    for (int i = 0; i < 100000; ++i) series.append(i, i == 51234 ? 100.0 : std::sin(i * 0.01));
    std::vector<double> dx, dy;
    series.query(0, 99999, 500, dx, dy);
    QVERIFY(dx.size() <= 2 * 4 * 500 + 32);
    QVERIFY(std::find(dy.begin(), dy.end(), 100.0) != dy.end());
    QVERIFY(std::is_sorted(dx.begin(), dx.end()));
  }

  // Two studios on one project: both follow the same run, neither writes into its folder.
  void twoFollowersWriteNothing() {
    const QDir runs(m_dir.filePath("proj/runs"));
    QString dir;
    for (const QString& name : runs.entryList(QDir::Dirs | QDir::NoDotAndDotDot))
      if (QFile::exists(runs.filePath(name) + "/events.jsonl")) dir = runs.filePath(name);
    QVERIFY(!dir.isEmpty());
    auto listing = [&] {
      QStringList out;
      QDirIterator it(dir, QDir::Files, QDirIterator::Subdirectories);
      while (it.hasNext()) {
        const QFileInfo f(it.next());
        out << QStringLiteral("%1 %2 %3").arg(f.filePath()).arg(f.size()).arg(f.lastModified().toMSecsSinceEpoch());
      }
      out.sort();
      return out;
    };
    const QStringList before = listing();
    RunController a, b;
    QVERIFY(a.attach(dir));
    QVERIFY(b.attach(dir));
    a.poll();
    b.poll();
    QVERIFY(!a.events().empty());
    QCOMPARE(a.events().size(), b.events().size());
    QCOMPARE(a.outcome(), b.outcome());
    QCOMPARE(listing(), before);
  }

  // A run started outside the studio (command line, Slurm): no process record, so its events
  // tell — recent ones mean running, old ones without a final event mean it ended without one.
  void runStartedElsewhere() {
    const QString dir = m_dir.filePath("proj/runs/headless");
    QDir().mkpath(dir);
    auto write = [&](double t) {
      QFile f(dir + "/events.jsonl");
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
      stave::telemetry::RunStartEvent rs;
      auto e = stave::telemetry::toEvent(rs, 0);
      e.time = t;
      f.write(QByteArray::fromStdString(stave::telemetry::encodeEvent(e) + "\n"));
    };
    write(stave::telemetry::unixTimeNow());
    RunController live;
    QVERIFY(live.attach(dir));
    QCOMPARE(live.outcome(), RunOutcome::Running);
    QVERIFY(!live.isLive());  // nothing to signal: Stop stays off
    write(stave::telemetry::unixTimeNow() - 3600);
    RunController old;
    QVERIFY(old.attach(dir));
    QTRY_COMPARE(old.outcome(), RunOutcome::Crashed);  // once the look at its folder came
    QVERIFY(old.outcomeText().contains("not started here"));
    QDir(dir).removeRecursively();
  }

  // A folder that is not one, followed with its first read on the reader's thread: that thread
  // finds it out, and a warning names it.
  void notAFolderIsTold() {
    const QString path = m_dir.filePath("not-a-run");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    RunController c;
    QSignalSpy warned(&c, &RunController::warning);
    QVERIFY(c.attach(path, nullptr, RunController::FirstRead::Reader));
    QTRY_COMPARE(warned.count(), 1);
    QVERIFY2(warned.first().first().toString().contains("not-a-run is not a folder"),
             qPrintable(warned.first().first().toString()));
    QVERIFY(c.runDir().isEmpty());
    QCOMPARE(c.outcome(), RunOutcome::None);
    QString error;
    QVERIFY(!c.attach(path, &error));  // on this thread: refused at once
    QVERIFY(error.contains("is not a folder"));
    QFile::remove(path);
  }

  void removedEventLogIsReported() {
    // Follow a finished run, then remove its events.jsonl: a message, no crash.
    auto w = openWindow();
    QTRY_VERIFY_WITH_TIMEOUT(!w->runPage()->controller()->runDir().isEmpty(), 10000);
    auto* c = w->runPage()->controller();
    QTRY_VERIFY_WITH_TIMEOUT(!c->events().empty(), 10000);  // read on the reader's thread
    QSignalSpy spy(c, &RunController::warning);
    QVERIFY(QFile::remove(c->runDir() + "/events.jsonl"));
    c->poll();
    // Said by this poll's read, or by the read already in flight on the reader's thread (poll
    // leaves the file to it): once either way.
    QTRY_COMPARE(spy.count(), 1);
    QVERIFY(spy.first().first().toString().contains("events.jsonl"));
  }

  // A start whose process cannot be made (no stave-train there) is told after the fact in the
  // words a refusal had, and nothing stays running; the folder check and the start were made
  // off the GUI thread.
  void aStartThatCannotBeMadeIsTold() {
    auto w = openWindow();
    QVERIFY(w);
    w->sessions()->setExecutable(m_dir.filePath("no-such-stave-train"));
    auto* page = w->runPage();
    QTRY_VERIFY_WITH_TIMEOUT(page->startButton()->isEnabled(), 10000);
    const auto before = readCount(OffGuiRead::RunStart);
    QVERIFY(page->startRun());  // starting: made on a thread of its own
    QTRY_VERIFY_WITH_TIMEOUT(
        page->outcomeLabel()->text().startsWith("Cannot start: stave-train was not found (looked beside"),
        10000);
    QVERIFY(!page->controller()->isLive());
    QTRY_VERIFY_WITH_TIMEOUT(page->startButton()->isEnabled(), 5000);
    const auto after = readCount(OffGuiRead::RunStart);
    QVERIFY(after.total > before.total);
    QCOMPARE(after.onMainThread, uint64_t(0));
  }
};

QTEST_MAIN(TestRunPage)
#include "tst_run_page.moc"
