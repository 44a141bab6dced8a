#include <sys/stat.h>

#include <QDir>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "common/project_fixture.h"
#include "core/studio/project/project_document.h"
#include "core/studio/run/run_folders.h"

using stave::studio::ProjectDocument;
using stave::studio::listRunSummaries;

class TestProjectDocument : public QObject {
  Q_OBJECT
 private slots:
  void openEditSaveReopen() {
    QTemporaryDir dir;
    const QString path = stave::testing::makeProject(dir);
    ProjectDocument doc;
    QSignalSpy dirty(&doc, &ProjectDocument::dirtyChanged);
    QVERIFY(doc.open(path));
    QCOMPARE(doc.name(), QString("demo"));
    QCOMPARE(doc.configNames(), QStringList{"default"});
    auto cfg = *doc.config("default");
    QVERIFY(cfg.set("epochs", int64_t(12)).ok());
    doc.setConfig("fast", cfg);
    QVERIFY(doc.isDirty());
    QVERIFY(doc.setActiveConfig("fast"));
    QVERIFY(!doc.setActiveConfig("missing"));
    doc.setUiState({{"page", 2}});
    QString error;
    QVERIFY2(doc.save(&error), qPrintable(error));
    QVERIFY(!doc.isDirty());
    QVERIFY(dirty.count() >= 2);

    ProjectDocument again;
    QVERIFY(again.open(path));
    QCOMPARE(again.configNames(), (QStringList{"default", "fast"}));
    QCOMPARE(again.activeConfig(), QString("fast"));
    QCOMPARE(again.config("fast")->getInt("epochs"), int64_t(12));
    QCOMPARE(again.uiState()["page"].get<int>(), 2);
  }

  void runsAreReadFromResults() {
    QTemporaryDir dir;
    ProjectDocument doc;
    QVERIFY(doc.open(stave::testing::makeProject(dir)));
    QVERIFY(listRunSummaries(dir.path()).isEmpty());
    auto write = [&](const QString& run, const QByteArray& csv) {
      QVERIFY(QDir(dir.path()).mkpath("runs/" + run));
      QFile f(dir.path() + "/runs/" + run + "/results.csv");
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(csv);
    };
    const QByteArray header = "epoch,train/box_loss,metrics/mAP50(B),metrics/mAP50-95(B)\n";
    write("a", header + "1,2.0,0.10,0.05\n2,1.5,0.30,0.12\n3,1.4,0.28,0.11\n");
    write("b", header + "1,2.0,zero,0.05\n");
    QVERIFY(QDir(dir.path()).mkpath("runs/a/weights"));
    QFile best(dir.path() + "/runs/a/weights/best.pt");
    QVERIFY(best.open(QIODevice::WriteOnly));
    best.close();
    QVERIFY(QDir(dir.path()).mkpath("runs/c"));  // started, nothing written yet
    // Predictions (runs/detect/predict) are not a run.
    QVERIFY(QDir(dir.path()).mkpath("runs/detect/predict"));
    QFile p(dir.path() + "/runs/detect/predict/predictions.csv");
    QVERIFY(p.open(QIODevice::WriteOnly));
    p.write("image,cls,conf,x1,y1,x2,y2\n");
    p.close();
    // A results.csv that is a FIFO no writer opens: named, never waited on (the reading thread
    // would hang on it for good).
    QVERIFY(QDir(dir.path()).mkpath("runs/d"));
    QCOMPARE(::mkfifo(QFile::encodeName(dir.path() + "/runs/d/results.csv").constData(), 0600), 0);
    const auto runs = listRunSummaries(dir.path());
    QCOMPARE(runs.size(), 4);
    for (const auto& r : runs) {
      if (r.id == "a") {
        QCOMPARE(r.epochs, 3);
        QCOMPARE(r.bestMap5095, 0.12);  // epoch 2, not the last one
        QCOMPARE(r.bestMap50, 0.30);
        QVERIFY(r.problem.isEmpty());
        QCOMPARE(r.checkpoints, QStringList{dir.path() + "/runs/a/weights/best.pt"});  // no last.pt
        QVERIFY(!r.mayBeRemote);
      } else if (r.id == "b") {
        QVERIFY2(r.problem.contains("line 2"), qPrintable(r.problem));
      } else if (r.id == "d") {
        QVERIFY2(r.problem.contains("results.csv: is a FIFO"), qPrintable(r.problem));
      } else {
        QCOMPARE(r.id, QString("c"));
        QVERIFY(!r.problem.isEmpty());
      }
    }
  }

  void badFileKeepsCurrentProject() {
    QTemporaryDir dir;
    const QString path = stave::testing::makeProject(dir);
    ProjectDocument doc;
    QVERIFY(doc.open(path));
    const QString bad = dir.path() + "/bad.stave";
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"format\": \"stave-project\", \"version\": 1, \"name\": ");  // truncated
    f.close();
    QString error;
    QVERIFY(!doc.open(bad, &error));
    QVERIFY2(error.contains("bad.stave"), qPrintable(error));
    QCOMPARE(doc.path(), path);  // still the good one
  }
};

QTEST_GUILESS_MAIN(TestProjectDocument)
#include "tst_project_document.moc"
