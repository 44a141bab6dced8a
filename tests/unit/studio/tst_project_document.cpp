#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "common/project_fixture.h"
#include "core/studio/project_document.h"

using stave::studio::ProjectDocument;

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
