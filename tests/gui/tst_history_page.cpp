// The History page on a project with three runs (events.jsonl as the trainer writes them):
// the table, sorting and filtering, overlaid curves on each x axis, the config diff, the
// parallel-coordinates chart, annotations, new config from a run, delete, CSV export, and a
// run that grows (or appears) while the page is open.
#include <QPushButton>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QSignalSpy>
#include <QtTest>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <qcustomplot.h>

#include "common/project_fixture.h"
#include "core/store/store.h"
#include "core/studio/gui_thread_reads.h"
#include "core/studio/models/history_model.h"
#include "core/studio/project/project_document.h"
#include "core/telemetry/events.h"
#include "widgets/history_page.h"
#include "widgets/main_window.h"
#include "widgets/project_page.h"

namespace {
/// Holds a run folder's lock as a live trainer does (flock on the folder itself): a run whose
/// events have no final event is running only while someone holds it; closed, it was killed.
struct HeldRunFolder {
  int fd = -1;
  explicit HeldRunFolder(const QString& dir) {
    fd = ::open(QFile::encodeName(dir).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) ::flock(fd, LOCK_EX | LOCK_NB);
  }
  ~HeldRunFolder() {
    if (fd >= 0) ::close(fd);
  }
};
}  // namespace

namespace fs = std::filesystem;
namespace tel = stave::telemetry;
using stave::studio::HistoryModel;

namespace {

template <typename T>
std::string ev(const T& typed, double time) {
  auto e = tel::toEvent(typed, 0);
  e.time = time;
  return tel::encodeEvent(e) + "\n";
}

/// `epochs` epochs of 4 iterations (batch 8), validated each epoch.
std::string runEvents(const std::string& name, int epochs, int epochsDone, double lr, int imgsz,
                      double map, double t0, bool finish = true) {
  std::string s;
  tel::RunStartEvent rs;
  rs.config = {{"model", "yolov8n"}, {"imgsz", imgsz}, {"batch", 8},   {"epochs", epochs},
               {"lr0", lr},          {"name", name},   {"mosaic", 1.0}, {"optimizer", "SGD"}};
  rs.deviceNames = {"cpu"};
  s += ev(rs, t0);
  for (int e = 0; e < epochsDone; ++e) {
    for (int i = 0; i < 4; ++i) {
      tel::StepEvent st;
      st.epoch = e;
      st.iter = i;
      st.itersPerEpoch = 4;
      st.boxLoss = 3.0 / (1 + e + i * 0.25);
      st.samplesPerSec = 40;
      s += ev(st, t0 + e * 10 + i);
    }
    tel::EpochEndEvent ee;
    ee.epoch = e;
    ee.epochs = epochs;
    ee.boxLoss = 3.0 / (1 + e);
    ee.lr = {lr, lr, lr};
    s += ev(ee, t0 + e * 10 + 5);
    tel::ValidationEvent v;
    v.epoch = e;
    v.map50 = map * (e + 1) / epochs * 1.6;
    v.map5095 = map * (e + 1) / epochs;
    s += ev(v, t0 + e * 10 + 6);
  }
  if (finish) {
    tel::FinishedEvent f;
    f.epochs = epochs;
    f.epochsCompleted = epochsDone;
    s += ev(f, t0 + epochsDone * 10 + 7);
  }
  return s;
}

void writeRun(const QString& projectDir, const std::string& name, const std::string& text,
              bool append = false) {
  const fs::path dir = fs::path(projectDir.toStdString()) / "runs" / name;
  fs::create_directories(dir / "weights");
  std::ofstream(dir / "weights" / "last.pt") << "x";
  std::ofstream(dir / "events.jsonl", append ? std::ios::app : std::ios::trunc) << text;
}

}  // namespace

class TestHistoryPage : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir m_dir;
  QString m_project;
  std::unique_ptr<stave::widgets::MainWindow> m_window;
  stave::widgets::HistoryPage* page() { return m_window->historyPage(); }
  /// Refresh, as the button does it (off the GUI thread), and the rows once they show it.
  void refreshAndWait() {
    QSignalSpy done(page()->model(), &HistoryModel::refreshed);
    page()->refresh();
    QVERIFY(done.wait(30000));
  }
  /// The curves and the metric list are read off the GUI thread: drawn once the read asked
  /// for last is done.
  void waitCurves() { QTRY_VERIFY_WITH_TIMEOUT(!page()->curvesPending(), 20000); }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_project = stave::testing::makeProject(m_dir);
    writeRun(m_dir.path(), "base", runEvents("base", 3, 3, 0.01, 320, 0.30, 1000));
    writeRun(m_dir.path(), "lr02", runEvents("lr02", 3, 3, 0.02, 320, 0.45, 2000));
    writeRun(m_dir.path(), "big", runEvents("big", 3, 3, 0.01, 640, 0.40, 3000));
    m_window = std::make_unique<stave::widgets::MainWindow>();
    QVERIFY(m_window->openProject(m_project));
    m_window->showPage(4);
    // The runs are read on a thread of their own: listed when that is done.
    QTRY_VERIFY_WITH_TIMEOUT(!page()->model()->refreshing() && page()->model()->rowCount() == 3, 20000);
  }

  void tableListsRunsAndSorts() {
    auto* table = page()->table();
    QCOMPARE(table->model()->rowCount(), 3);
    QCOMPARE(table->model()->headerData(HistoryModel::BestMap5095, Qt::Horizontal).toString(),
             QString("Best mAP50-95"));
    table->sortByColumn(HistoryModel::BestMap5095, Qt::DescendingOrder);
    QCOMPARE(table->model()->index(0, HistoryModel::Name).data().toString(), QString("lr02"));
    QCOMPARE(table->model()->index(2, HistoryModel::Name).data().toString(), QString("base"));
    QCOMPARE(table->model()->index(0, HistoryModel::GlobalBatch).data().toString(), QString("8"));
    QCOMPARE(table->model()->index(0, HistoryModel::Epochs).data().toString(), QString("3/3"));
    QCOMPARE(table->model()->index(0, HistoryModel::Status).data().toString(), QString("completed"));
    table->sortByColumn(HistoryModel::Name, Qt::AscendingOrder);
    QCOMPARE(table->model()->index(0, HistoryModel::Name).data().toString(), QString("base"));
    QVERIFY(QFile::exists(m_dir.filePath("stave.db")));
  }

  void overlayCurves() {
    page()->selectRows({0, 1, 2});
    QCOMPARE(page()->selectedRows().size(), 3);
    waitCurves();
    QCOMPARE(page()->metricBox()->currentText(), QString("metrics/mAP50-95(B)"));
    auto* plot = page()->curvePlot();
    QCOMPARE(plot->graphCount(), 3);
    for (int g = 0; g < 3; ++g) {
      QCOMPARE(plot->graph(g)->data()->size(), 3);
      QCOMPARE(plot->graph(g)->data()->at(0)->key, 1.0);  // epoch 1 first
    }
    // Images seen: epoch e ends after 4 iterations x 8 images.
    page()->axisBox()->setCurrentIndex(2);
    waitCurves();
    QCOMPARE(plot->graph(0)->data()->at(2)->key, 3 * 4 * 8.0);
    // Step-level metric on the epoch axis: fractions of epochs.
    page()->axisBox()->setCurrentIndex(0);
    page()->metricBox()->setCurrentText("step/box_loss");
    waitCurves();
    QCOMPARE(page()->metricBox()->currentText(), QString("step/box_loss"));
    QCOMPARE(plot->graph(0)->data()->size(), 12);
    QCOMPARE(plot->graph(0)->data()->at(1)->key, 0.25);
    // Wall time: seconds since the run started.
    page()->axisBox()->setCurrentIndex(1);
    waitCurves();
    QCOMPARE(plot->graph(0)->data()->at(0)->key, 0.0);
    page()->axisBox()->setCurrentIndex(0);
    page()->metricBox()->setCurrentText("metrics/mAP50-95(B)");
    waitCurves();
    // Everything is drawn inside the plot: the legend names the runs.
    QCOMPARE(plot->legend->itemCount(), 3);
    // Whole epochs on the epoch axis (never 1.5, 2.5); a metric's axis never goes below 0.
    auto* fixed = dynamic_cast<QCPAxisTickerFixed*>(plot->xAxis->ticker().data());
    QVERIFY(fixed);
    QCOMPARE(fixed->tickStep(), 1.0);
    QCOMPARE(plot->yAxis->range().lower, 0.0);
    QVERIFY(plot->yAxis->range().upper > 0.0);
  }

  // Issue 43 §1: what a run holds is read off the GUI thread — History's queries of the
  // selected runs (metric list, curves), the Project page's listing of the runs with their
  // results.csv, the Run page's listing of the run folders. Each read counts the thread it ran on.
  void readsOffTheGuiThread() {
    using stave::studio::OffGuiRead;
    using stave::studio::readCount;
    const auto before = readCount(OffGuiRead::HistoryRunQuery);
    page()->selectRows({0, 1});
    waitCurves();
    QCOMPARE(page()->curvePlot()->graphCount(), 2);
    page()->metricBox()->setCurrentText("step/box_loss");
    waitCurves();
    QCOMPARE(page()->curvePlot()->graph(0)->data()->size(), 12);
    // A selection that changes while its curves are read: only the last one is drawn.
    page()->selectRows({2});
    page()->selectRows({0, 2});
    page()->selectRows({1});
    waitCurves();
    QCOMPARE(page()->curvePlot()->graphCount(), 1);
    QCOMPARE(page()->curvePlot()->graph(0)->name(), HistoryModel::displayName(page()->model()->run(1)));
    page()->metricBox()->setCurrentText("metrics/mAP50-95(B)");
    waitCurves();
    const auto after = readCount(OffGuiRead::HistoryRunQuery);
    QVERIFY2(after.total >= before.total + 6, qPrintable(QString::number(after.total - before.total)));
    QCOMPARE(after.onMainThread, uint64_t(0));

    auto* projectPage = m_window->findChild<stave::widgets::ProjectPage*>();
    QVERIFY(projectPage);
    QTRY_COMPARE_WITH_TIMEOUT(projectPage->runList()->count(), 3, 20000);
    QVERIFY2(projectPage->runList()->item(0)->text().contains("no results.csv yet"),
             qPrintable(projectPage->runList()->item(0)->text()));
    QVERIFY(readCount(OffGuiRead::RunSummaries).total > 0);
    QCOMPARE(readCount(OffGuiRead::RunSummaries).onMainThread, uint64_t(0));
    QTRY_VERIFY_WITH_TIMEOUT(readCount(OffGuiRead::RunFolders).total > 0, 20000);
    QCOMPARE(readCount(OffGuiRead::RunFolders).onMainThread, uint64_t(0));
    // History's store: opened with the project, runs/ ingested and the rows read by Refresh,
    // each on the model's job.
    const auto storeBefore = readCount(OffGuiRead::HistoryStore);
    QVERIFY(storeBefore.total > 0);  // the project's opening
    refreshAndWait();
    const auto storeAfter = readCount(OffGuiRead::HistoryStore);
    QVERIFY(storeAfter.total > storeBefore.total);
    QCOMPARE(storeAfter.onMainThread, uint64_t(0));
  }

  void configDiffHidesEqualKeys() {
    page()->selectRows({0, 1, 2});
    auto* diff = page()->diffTable();
    QStringList keys;
    for (int r = 0; r < diff->rowCount(); ++r) keys << diff->verticalHeaderItem(r)->text();
    keys.sort();
    QCOMPARE(keys, (QStringList{"imgsz", "lr0"}));
    QCOMPARE(diff->columnCount(), 3);
    page()->selectRows({0});
    QCOMPARE(diff->rowCount(), 1);
    QVERIFY(diff->item(0, 0)->text().contains("two or more"));
  }

  void parallelCoordinates() {
    page()->selectRows({0, 1, 2});
    auto* plot = page()->parallelPlot();
    QCOMPARE(plot->plottableCount(), 3);
    auto* ticker = dynamic_cast<QCPAxisTickerText*>(plot->xAxis->ticker().data());
    QVERIFY(ticker);
    QStringList axes = ticker->ticks().values();
    QCOMPARE(axes, (QStringList{"imgsz", "lr0", "best mAP50-95"}));
    // The best run touches the top of the target axis, the worst its bottom.
    const auto* model = page()->model();
    for (int p = 0; p < 3; ++p) {
      auto* curve = qobject_cast<QCPCurve*>(plot->plottable(p));
      QVERIFY(curve);
      const double target = (curve->data()->end() - 1)->value;
      const QString name = curve->name();
      if (name == "lr02") QCOMPARE(target, 1.0);
      if (name == "base") QCOMPARE(target, 0.0);
    }
    Q_UNUSED(model);
  }

  void annotationsAndFilter() {
    auto* model = page()->model();
    int row = -1;
    for (int r = 0; r < model->rowCount(); ++r)
      if (model->run(r).name == "big") row = r;
    QVERIFY(row >= 0);
    page()->selectRows({row});
    page()->findChild<QLineEdit*>("historyTitle")->setText("大图 640 \"big\"");
    page()->findChild<QLineEdit*>("historyTags")->setText("imgsz, 对比");
    page()->findChild<QPlainTextEdit*>("historyNotes")->setPlainText("slower; DROP TABLE runs;--");
    QSignalSpy saved(model, &HistoryModel::annotated);
    page()->saveAnnotations();
    QVERIFY(saved.wait(30000));  // written off the GUI thread
    QCOMPARE(saved.first().at(2).toString(), QString());
    row = model->rowOfId(model->run(row).id);
    QCOMPARE(QString::fromStdString(model->run(row).title), QString("大图 640 \"big\""));
    QCOMPARE(model->run(row).tags, (std::vector<std::string>{"imgsz", "对比"}));
    QVERIFY(QFile::exists(m_dir.filePath("runs/big/annotations.json")));
    QCOMPARE(model->index(row, HistoryModel::Name).data().toString(), QString("大图 640 \"big\""));
    page()->filterEdit()->setText("对比");
    QCOMPARE(page()->table()->model()->rowCount(), 1);
    page()->filterEdit()->setText("completed");
    QCOMPARE(page()->table()->model()->rowCount(), 3);
    page()->filterEdit()->clear();
  }

  void newConfigFromRun() {
    auto* model = page()->model();
    int row = -1;
    for (int r = 0; r < model->rowCount(); ++r)
      if (model->run(r).name == "lr02") row = r;
    page()->selectRows({row});
    page()->askConfigName = [](const QString& suggestion) {
      return suggestion == "lr02" ? QString("from-lr02") : QString();
    };
    QVERIFY(page()->newConfigFromCurrentRun());
    auto* doc = m_window->document();
    QVERIFY(doc->configNames().contains("from-lr02"));
    const auto* cfg = doc->config("from-lr02");
    QCOMPARE(cfg->getFloat("lr0"), 0.02);
    QCOMPARE(cfg->getString("name"), std::string());  // a new run gets its own name
    QVERIFY(doc->isDirty());
  }

  void exportCsv() {
    const QString path = m_dir.filePath("out/runs.csv");
    QVERIFY(page()->exportCsv(path));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(f.readAll());
    QVERIFY(text.startsWith("Name,Status,"));
    QCOMPARE(text.count('\n'), 4);
    QVERIFY(text.contains("\"大图 640 \"\"big\"\"\""));
  }

  void liveRunsAppearAndGrow() {
    auto* model = page()->model();
    // A run still going: two of five epochs, no finished event.
    const std::string full = runEvents("live", 5, 5, 0.03, 320, 0.5, 4000, false);
    const std::string part = runEvents("live", 5, 2, 0.03, 320, 0.5, 4000, false);
    writeRun(m_dir.path(), "live", part);
    HeldRunFolder trainer(m_dir.filePath("runs/live"));
    QVERIFY(trainer.fd >= 0);
    refreshAndWait();
    QCOMPARE(model->rowCount(), 4);
    int row = -1;
    for (int r = 0; r < model->rowCount(); ++r)
      if (model->run(r).name == "live") row = r;
    QCOMPARE(QString::fromStdString(model->run(row).status), QString("running"));
    QCOMPARE(model->run(row).epochsDone, 2);
    page()->selectRows({row});
    // Deleting a running run is refused.
    page()->confirm = [](const QString&) { return true; };
    QVERIFY(!page()->deleteCurrentRun());
    QVERIFY(QFile::exists(m_dir.filePath("runs/live/events.jsonl")));
    // More epochs arrive: the same row grows, still selected.
    writeRun(m_dir.path(), "live", full.substr(part.size()), true);
    refreshAndWait();
    row = -1;
    for (int r = 0; r < model->rowCount(); ++r)
      if (model->run(r).name == "live") row = r;
    QCOMPARE(model->run(row).epochsDone, 5);
    QCOMPARE(page()->selectedRows(), (QList<int>{row}));
    waitCurves();
    QCOMPARE(page()->curvePlot()->graph(0)->data()->size(), 5);
  }

  void deleteRemovesFolderAfterConfirmation() {
    auto* model = page()->model();
    int row = -1;
    for (int r = 0; r < model->rowCount(); ++r)
      if (model->run(r).name == "base") row = r;
    page()->selectRows({row});
    const int before = model->rowCount();
    page()->confirm = [](const QString&) { return false; };
    QVERIFY(!page()->deleteCurrentRun());
    QVERIFY(QDir(m_dir.filePath("runs/base")).exists());
    QCOMPARE(model->rowCount(), before);
    QString asked;
    page()->confirm = [&](const QString& q) {
      asked = q;
      return true;
    };
    QSignalSpy removed(model, &HistoryModel::runRemoved);
    QVERIFY(page()->deleteCurrentRun());
    QVERIFY(asked.contains("base"));
    QVERIFY(removed.wait(30000));  // removed off the GUI thread
    QCOMPARE(removed.first().at(1).toString(), QString("base"));
    QCOMPARE(removed.first().at(2).toString(), QString());
    QVERIFY(!model->writing());
    QVERIFY(!QDir(m_dir.filePath("runs/base")).exists());
    QCOMPARE(model->rowCount(), before - 1);
    // The store agrees after a re-read.
    refreshAndWait();
    QCOMPARE(model->rowCount(), before - 1);
  }

  // A run recorded as running whose folder was deleted outside the studio (a killed run, then
  // rm -r) says so, and can be deleted from the history.
  void runWithoutFolderCanBeDeleted() {
    auto* model = page()->model();
    writeRun(m_dir.path(), "gone", runEvents("gone", 5, 1, 0.03, 320, 0.5, 4000, false));
    auto trainer = std::make_unique<HeldRunFolder>(m_dir.filePath("runs/gone"));
    refreshAndWait();
    auto rowOf = [&] {
      for (int r = 0; r < model->rowCount(); ++r)
        if (model->run(r).name == "gone") return r;
      return -1;
    };
    int row = rowOf();
    QVERIFY(row >= 0);
    QCOMPARE(QString::fromStdString(model->run(row).status), QString("running"));
    trainer.reset();  // killed, then its folder removed
    QVERIFY(QDir(m_dir.filePath("runs/gone")).removeRecursively());
    refreshAndWait();
    row = rowOf();
    QVERIFY(row >= 0);  // the history keeps it until asked
    const QModelIndex status = model->index(row, stave::studio::HistoryModel::Status);
    QCOMPARE(model->data(status).toString(), QString("folder missing"));
    QVERIFY(model->data(status, Qt::ToolTipRole).toString().contains("no longer exists"));
    page()->selectRows({row});
    QPushButton* open = nullptr;
    for (auto* b : page()->findChildren<QPushButton*>())
      if (b->text() == "Open folder") open = b;
    QVERIFY(open);
    QVERIFY(!open->isEnabled());  // nothing to open
    QVERIFY(open->toolTip().contains("no longer exists"));
    page()->confirm = [](const QString&) { return true; };
    const int before = model->rowCount();
    QSignalSpy removed(model, &HistoryModel::runRemoved);
    QVERIFY(page()->deleteCurrentRun());
    QVERIFY(removed.wait(30000));
    QCOMPARE(model->rowCount(), before - 1);
    QCOMPARE(rowOf(), -1);
  }

  void brokenDatabaseIsNamed() {
    QTemporaryDir other;
    const QString project = stave::testing::makeProject(other);
    {
      QFile db(other.filePath("stave.db"));
      QVERIFY(db.open(QIODevice::WriteOnly));
      db.write(QByteArray(4096, 'x'));
    }
    stave::widgets::MainWindow w;
    QSignalSpy spy(w.historyPage(), &stave::widgets::HistoryPage::message);
    QVERIFY(w.openProject(project));  // the project opens; the history says why it cannot
    QTRY_VERIFY_WITH_TIMEOUT(!spy.isEmpty(), 20000);  // once it was read, off the GUI thread
    const QString text = spy.first().first().toString();
    QVERIFY2(text.contains("stave.db") && text.contains("not an SQLite database"), qPrintable(text));
    QCOMPARE(w.historyPage()->table()->model()->rowCount(), 0);
  }

  // Issue 29, defect 9: a run stopped, killed and resumed showed as "completed"; `resume` was a
  // hyperparameter in the diff; optimizer=auto's lr0 showed as a difference with identical
  // curves; with several runs selected the details described one of them.
  void aRunsStoryAndTheValuesUsed() {
    QTemporaryDir other;
    const QString project = stave::testing::makeProject(other);
    auto start = [](double lr, bool resume) {
      tel::RunStartEvent rs;
      rs.config = {{"epochs", 3}, {"lr0", lr}, {"optimizer", "auto"}, {"resume", resume},
                   {"imgsz", 320}, {"batch", 8}};
      rs.resolved = {{"optimizer", "AdamW"}, {"lr0", 0.000556}, {"weight_decay", 0.0005}};
      return rs;
    };
    tel::FinishedEvent stopped;
    stopped.status = tel::RunStatus::Stopped;
    stopped.epochs = 3;
    tel::FinishedEvent done;
    done.epochs = 3;
    done.epochsCompleted = 3;
    writeRun(other.path(), "a", ev(start(0.01, false), 1000) + ev(stopped, 1010) +
                                    ev(start(0.01, true), 1020) + ev(start(0.01, true), 1030) +
                                    ev(done, 1040));
    writeRun(other.path(), "b", ev(start(0.02, false), 2000) + ev(done, 2040));
    stave::widgets::MainWindow w;
    QVERIFY(w.openProject(project));
    auto* p = w.historyPage();
    auto* model = p->table()->model();
    QTRY_VERIFY_WITH_TIMEOUT(!p->model()->refreshing(), 20000);  // read in the background
    QCOMPARE(model->rowCount(), 2);
    int rowA = 0;
    for (int r = 0; r < 2; ++r)
      if (model->index(r, HistoryModel::Name).data().toString() == "a") rowA = r;
    const QString status = model->index(rowA, HistoryModel::Status).data().toString();
    QCOMPARE(status, QString("completed after 3 sessions"));
    QVERIFY2(model->index(rowA, HistoryModel::Status).data(Qt::ToolTipRole).toString().contains(
                 "stopped → crashed → completed"),
             qPrintable(model->index(rowA, HistoryModel::Status).data(Qt::ToolTipRole).toString()));
    p->selectRows({0, 1});
    auto* diff = p->diffTable();
    QStringList keys;
    QString lr;
    for (int r = 0; r < diff->rowCount(); ++r) {
      keys << diff->verticalHeaderItem(r)->text();
      if (keys.back() == "lr0") lr = diff->item(r, 0)->text() + " | " + diff->item(r, 1)->text();
    }
    QVERIFY2(!keys.contains("resume"), qPrintable(keys.join(", ")));
    QVERIFY2(lr.contains("(used 0.000556)"), qPrintable(lr));
    auto* hm = w.findChild<HistoryModel*>();
    QVERIFY(hm);
    QVERIFY(!hm->numericVaryingKeys({0, 1}).contains("lr0"));  // both trained with the same
    auto* details = w.findChild<QLabel*>("historyRunStatus");
    QVERIFY2(details->text().contains("2 runs selected"), qPrintable(details->text()));
    p->selectRows({rowA});
    QVERIFY2(details->text().contains("Sessions: stopped → crashed → completed"),
             qPrintable(details->text()));
  }

  // Issue 29, defect 10: a project without runs said "Open a project to see its runs" although
  // it was open.
  void emptyProjectSaysNoRunsYet() {
    QTemporaryDir other;
    const QString project = stave::testing::makeProject(other);
    stave::widgets::MainWindow w;
    QVERIFY(w.openProject(project));
    auto* status = w.findChild<QLabel*>("historyRunStatus");
    QVERIFY(status);
    QTRY_VERIFY2_WITH_TIMEOUT(status->text().startsWith("No runs yet"), qPrintable(status->text()), 20000);
    w.document()->close();
    QVERIFY(!w.document()->isOpen());
  }

  // Issue 43 §1: the GUI never waits for the store or the run folders — opening a project's
  // history and Refresh read them on the model's thread; the rows change only when that is done.
  void openAndRefreshReadOffTheGuiThread() {
    QTemporaryDir other;
    const QString project = stave::testing::makeProject(other);
    writeRun(other.path(), "first", runEvents("first", 3, 3, 0.01, 320, 0.30, 1000));
    stave::widgets::MainWindow w;
    auto* model = w.historyPage()->model();
    QVERIFY(w.openProject(project));
    // Returned before the database was opened or a run read: nothing of it here yet.
    QVERIFY(!model->isOpen());
    QVERIFY(model->refreshing());
    QCOMPARE(model->rowCount(), 0);
    QTRY_VERIFY_WITH_TIMEOUT(model->isOpen() && !model->refreshing() && model->rowCount() == 1, 20000);
    auto* status = w.findChild<QLabel*>("historyRunStatus");
    QVERIFY2(!status->text().contains("Reading"), qPrintable(status->text()));
    // Refresh: a new run folder is read on the model's thread, listed when that is done.
    writeRun(other.path(), "second", runEvents("second", 3, 3, 0.02, 320, 0.40, 2000));
    // A run with a cluster record (its weights may be fetched): told with the rows.
    std::ofstream(fs::path(other.path().toStdString()) / "runs" / "second" / "cluster_job.json") << "{}";
    QSignalSpy done(model, &HistoryModel::refreshed);
    w.historyPage()->refresh();
    QVERIFY(model->refreshing());
    QCOMPARE(model->rowCount(), 1);
    QVERIFY(done.wait(30000));
    QCOMPARE(model->rowCount(), 2);
    QVERIFY(done.last().first().toString().isEmpty());
    for (int r = 0; r < 2; ++r)
      QCOMPARE(model->mayBeRemote(r), model->run(r).name == "second");
  }

  void cleanupTestCase() { m_window.reset(); }
};

QTEST_MAIN(TestHistoryPage)
#include "tst_history_page.moc"
