// The window never waits on a file: a run whose cluster_job.json is a FIFO that no writer ever
// opens (or a link to /dev/zero), and a run whose val/images.json is a FIFO. Before, the run
// list never filled and the next refresh joined the stuck scan on the GUI thread (the window
// frozen for good); the Validation tab froze the same way. A timer on the GUI thread must keep
// firing throughout: a blocked event loop fails the test (or hangs it until CTest's timeout).
#include <sys/stat.h>

#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <fstream>

#include "common/project_fixture.h"
#include "common/validation_fixture.h"
#include "core/telemetry/events.h"
#include "widgets/main_window.h"
#include "widgets/run_page.h"
#include "widgets/validation_view.h"

namespace {

namespace tel = stave::telemetry;

/// A finished run's events.jsonl in `run`.
void writeFinishedRun(const QString& run) {
  QDir().mkpath(run);
  tel::RunStartEvent rs;
  rs.config = {{"epochs", 1}};
  rs.deviceNames = {"cpu"};
  tel::FinishedEvent f;
  f.epochs = f.epochsCompleted = 1;
  auto a = tel::toEvent(rs, 0), b = tel::toEvent(f, 0);
  a.time = 1000;
  b.time = 1010;
  std::ofstream(QDir(run).filePath("events.jsonl").toStdString())
      << tel::encodeEvent(a) << "\n" << tel::encodeEvent(b) << "\n";
}

bool makeFifo(const QString& path) {
  QFile::remove(path);
  return ::mkfifo(QFile::encodeName(path).constData(), 0600) == 0;
}

/// Counts the GUI thread's timer ticks: it advances only while the event loop runs.
class Heartbeat {
 public:
  Heartbeat() {
    QObject::connect(&m_timer, &QTimer::timeout, [this] { ++m_ticks; });
    m_timer.start(10);
  }
  /// Whether the loop keeps running: more ticks within a few seconds.
  bool beats() {
    const int before = m_ticks;
    QElapsedTimer t;
    t.start();
    while (m_ticks < before + 5 && t.elapsed() < 5000) QTest::qWait(10);
    return m_ticks >= before + 5;
  }

 private:
  QTimer m_timer;
  int m_ticks = 0;
};

}  // namespace

class TstBlockingFiles : public QObject {
  Q_OBJECT

 private slots:
  void fifoClusterRecordDoesNotFreezeTheRunList() {
    QTemporaryDir dir;
    const QString project = stave::testing::makeProject(dir);
    writeFinishedRun(dir.filePath("runs/r1"));
    QDir().mkpath(dir.filePath("runs/r2"));
    QVERIFY(makeFifo(dir.filePath("runs/r2/cluster_job.json")));
    // And one linked to /dev/zero, which grew the studio until it ran out of memory.
    QDir().mkpath(dir.filePath("runs/r3"));
    QVERIFY(QFile::link("/dev/zero", dir.filePath("runs/r3/cluster_job.json")));
    Heartbeat heart;
    stave::widgets::MainWindow w;
    QVERIFY(w.openProject(project));
    auto* list = w.runPage()->findChild<QComboBox*>(QStringLiteral("runList"));
    QVERIFY(list);
    // The list fills: the record is refused, not waited on.
    QTRY_COMPARE_WITH_TIMEOUT(list->count(), 3, 20000);
    QVERIFY(heart.beats());
    // Refreshing again (what picking a run, or a start, does) three times in a row.
    for (int i = 0; i < 3; ++i) {
      QVERIFY(w.runPage()->showRun(dir.filePath("runs/r1")));
      QVERIFY(heart.beats());
    }
    QTRY_COMPARE_WITH_TIMEOUT(list->count(), 3, 20000);
    // Showing a run with such a record says what is wrong, without waiting on it either.
    for (const char* run : {"runs/r2", "runs/r3"}) {
      w.runPage()->showRun(dir.filePath(run));
      QVERIFY(heart.beats());
    }
  }

  void fifoValidationFileDoesNotFreezeTheValidationTab() {
    QTemporaryDir dir;
    const QString project = stave::testing::makeProject(dir);
    const QString run = dir.filePath("runs/r1");
    writeFinishedRun(run);
    QVERIFY(stave::testing::writeValidationViews(
        run + "/val", {dir.filePath("a.jpg"), dir.filePath("b.jpg"), dir.filePath("c.jpg")}));
    QVERIFY(makeFifo(run + "/val/images.json"));
    Heartbeat heart;
    stave::widgets::MainWindow w;
    QVERIFY(w.openProject(project));
    auto* page = w.runPage();
    QVERIFY(page->showRun(run));
    auto* view = page->validationView();
    QSignalSpy loaded(view, &stave::widgets::ValidationView::loaded);
    page->viewTabs()->setCurrentWidget(view);
    QVERIFY(loaded.wait(20000));
    QVERIFY(heart.beats());
    const QString status = view->statusLabel()->text();
    QVERIFY2(status.contains("images.json") && status.contains("FIFO"), qPrintable(status));
    QCOMPARE(view->data(0).counts.size(), 3);  // the rest is shown
    // Shown again: still no wait.
    page->viewTabs()->setCurrentIndex(0);
    QVERIFY(page->showRun(run));
    page->viewTabs()->setCurrentWidget(view);
    QVERIFY(heart.beats());
  }
};

QTEST_MAIN(TstBlockingFiles)
#include "tst_blocking_files.moc"
