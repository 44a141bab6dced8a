// History's Labels tab (issue 44 §3): for two selected runs, how many label files differ
// between their datasets and which, from the dataset's edit log — by the log positions the runs
// recorded (an edit undone in between is no difference), by the edits between the runs' starts
// for a run that recorded none, none for equal content, and "cannot tell" for runs on different
// datasets. The log is read off the window's thread.
#include <QLabel>
#include <QListWidget>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "common/project_fixture.h"
#include "core/data/label_edits.h"
#include "core/studio/models/history_model.h"
#include "core/telemetry/events.h"
#include "widgets/history_label_diff.h"
#include "widgets/history_page.h"
#include "widgets/main_window.h"

namespace fs = std::filesystem;
namespace tel = stave::telemetry;
using stave::studio::HistoryModel;

namespace {

// A finished run of one epoch on `yaml`, started at `t0`, with its dataset's content hash and
// the edit log's position at its start (-1: not recorded, as runs before it was).
void writeRun(const QString& projectDir, const std::string& name, const std::string& yaml,
              const std::string& hash, int64_t labelEdits, double t0) {
  tel::RunStartEvent rs;
  rs.config = {{"model", "yolov8n"}, {"imgsz", 320}, {"batch", 8}, {"epochs", 1}};
  rs.deviceNames = {"cpu"};
  rs.dataset.yaml = yaml;
  rs.dataset.contentHash = hash;
  rs.dataset.labelEdits = labelEdits;
  auto start = tel::toEvent(rs, 0);
  start.time = t0;
  tel::FinishedEvent f;
  f.epochs = 1;
  f.epochsCompleted = 1;
  auto end = tel::toEvent(f, 0);
  end.time = t0 + 10;
  const fs::path dir = fs::path(projectDir.toStdString()) / "runs" / name;
  fs::create_directories(dir);
  std::ofstream(dir / "events.jsonl") << tel::encodeEvent(start) << "\n"
                                      << tel::encodeEvent(end) << "\n";
}

void writeText(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::trunc) << text;
}

}  // namespace

class TestHistoryLabels : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::unique_ptr<stave::widgets::MainWindow> m_window;
  stave::widgets::HistoryPage* page() { return m_window->historyPage(); }
  stave::widgets::HistoryLabelDiff* labels() {
    return page()->findChild<stave::widgets::HistoryLabelDiff*>("historyLabelDiff");
  }
  int row(const QString& name) {
    for (int r = 0; r < page()->model()->rowCount(); ++r)
      if (QString::fromStdString(page()->model()->run(r).name) == name) return r;
    return -1;
  }
  QStringList files() {
    QStringList out;
    for (int i = 0; i < labels()->files()->count(); ++i) out << labels()->files()->item(i)->text();
    return out;
  }
  QString tabText() { return page()->tabs()->tabText(page()->tabs()->indexOf(labels())); }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    const QString project = stave::testing::makeProject(m_dir);
    fs::create_directories(m_dir.filePath("images").toStdString());  // the project's dataset
    // The dataset and its edits: three label files changed, then the third changed back.
    const std::string root = m_dir.filePath("ds").toStdString();
    const std::string yaml = root + "/data.yaml";
    writeText(yaml, "path: .\ntrain: images/train\nval: images/val\nnames: [a, b]\n");
    fs::create_directories(root + "/images/train");
    fs::create_directories(root + "/images/val");
    stave::data::LabelStore store(root, "test");
    for (const char* f : {"labels/val/x.txt", "labels/val/y.txt", "labels/train/z.txt"}) {
      writeText(root + "/" + f, "0 0.5 0.5 0.2 0.2\n");
      auto s = stave::data::readLabelFile(root + "/" + f);
      QVERIFY(store.write(s.value(), "1 0.5 0.5 0.2 0.2\n").ok());
    }
    auto z = stave::data::readLabelFile(root + "/labels/train/z.txt");
    QVERIFY(store.write(z.value(), "0 0.5 0.5 0.2 0.2\n").ok());
    const double edited = store.log().edits.front().time;
    // before: at position 0; after: position 4 (x and y differ, z is back); old: recorded no
    // position, started before the edits; same: the content of `after`; other: another dataset.
    writeRun(m_dir.path(), "before", yaml, "h-before", 0, edited - 100);
    writeRun(m_dir.path(), "after", yaml, "h-after", 4, edited + 100);
    writeRun(m_dir.path(), "old", yaml, "h-old", -1, edited - 50);
    writeRun(m_dir.path(), "same", yaml, "h-after", 4, edited + 200);
    writeRun(m_dir.path(), "other", m_dir.filePath("data.yaml").toStdString(), "h-other", 0,
             edited + 300);
    m_window = std::make_unique<stave::widgets::MainWindow>();
    m_window->resize(1400, 900);
    QVERIFY(m_window->openProject(project));
    m_window->showPage(4);
    QTRY_VERIFY_WITH_TIMEOUT(!page()->model()->refreshing() && page()->model()->rowCount() == 5,
                             20000);
    QVERIFY(labels());
  }

  void byLogPositions() {
    page()->selectRows({row("after"), row("before")});
    page()->tabs()->setCurrentWidget(labels());
    QTRY_COMPARE_WITH_TIMEOUT(tabText(), QString("Labels (2)"), 20000);
    QVERIFY2(labels()->summary()->text().startsWith("2 label files differ between these runs' "
                                                    "datasets (before → after)"),
             qPrintable(labels()->summary()->text()));
    QCOMPARE(files(), (QStringList{"labels/val/x.txt", "labels/val/y.txt"}));
    if (qEnvironmentVariableIsSet("STAVE_SCREENSHOT")) {
      m_window->show();
      QTest::qWait(500);
      m_window->grab().save(qEnvironmentVariable("STAVE_SCREENSHOT"));
    }
  }

  void byTimesWithoutAPosition() {
    page()->selectRows({row("old"), row("after")});
    QTRY_VERIFY_WITH_TIMEOUT(labels()->summary()->text().contains("between the two runs' starts"),
                             20000);
    QCOMPARE(tabText(), QString("Labels (2)"));
    QVERIFY2(labels()->summary()->text().startsWith("2 label files differ"),
             qPrintable(labels()->summary()->text()));
    QCOMPARE(files(), (QStringList{"labels/val/x.txt", "labels/val/y.txt"}));
  }

  void sameContentAndOtherDataset() {
    page()->selectRows({row("after"), row("same")});
    QTRY_COMPARE_WITH_TIMEOUT(tabText(), QString("Labels (0)"), 20000);
    QVERIFY(labels()->summary()->text().contains("content is the same"));
    QVERIFY(files().isEmpty());
    page()->selectRows({row("before"), row("other")});
    QTRY_VERIFY2_WITH_TIMEOUT(labels()->summary()->text().contains("different datasets"),
                              qPrintable(labels()->summary()->text()), 20000);
    QCOMPARE(tabText(), QString("Labels"));
    // One run: nothing to compare.
    page()->selectRows({row("before")});
    QVERIFY(labels()->summary()->text().startsWith("Select two runs"));
  }
};

QTEST_MAIN(TestHistoryLabels)
#include "tst_history_labels.moc"
