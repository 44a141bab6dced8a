#include <QLabel>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "common/project_fixture.h"
#include "core/studio/config_form_model.h"
#include "core/studio/project_document.h"
#include "widgets/config_form.h"
#include "widgets/main_window.h"

using stave::studio::ConfigFormModel;

class TestMainWindow : public QObject {
  Q_OBJECT
 private slots:
  void pagesExist() {
    stave::widgets::MainWindow w;
    QCOMPARE(w.pageNames(),
             (QStringList{"Project", "Dataset", "Train", "Run", "History", "Hardware"}));
  }

  void missingProjectIsRefused() {
    stave::widgets::MainWindow w;
    QVERIFY(!w.openProject(QStringLiteral("/nonexistent/x.stave")));
    QVERIFY(!w.document()->isOpen());
  }

  void projectPageShowsProject() {
    QTemporaryDir dir;
    stave::widgets::MainWindow w;
    QVERIFY(w.openProject(stave::testing::makeProject(dir)));
    auto* summary = w.findChild<QLabel*>("projectSummary");
    QVERIFY(summary);
    QVERIFY(summary->text().contains("demo"));
    QVERIFY(summary->text().contains("data.yaml"));
    QCOMPARE(w.windowTitle(), QString("demo — Stave"));
  }

  void formEditAppliesAndSaves() {
    QTemporaryDir dir;
    const QString path = stave::testing::makeProject(dir);
    {
      stave::widgets::MainWindow w;
      QVERIFY(w.openProject(path));
      w.showPage(2);
      auto* form = w.configForm();
      QVERIFY(form->derivedText().contains("global batch 16"));
      QVERIFY(form->model()->setEditedText("batch", "8"));
      QVERIFY(form->model()->setEditedText("nproc", "2"));
      QVERIFY(form->derivedText().contains("World size 2"));
      QVERIFY(form->derivedText().contains("global batch 16"));
      QVERIFY(form->model()->setEditedText("epochs", "zero"));
      auto* apply = w.findChild<QWidget*>("applyButton");
      QVERIFY(apply && !apply->isEnabled());  // an invalid value blocks Apply
      QVERIFY(form->model()->setEditedText("epochs", "3"));
      QVERIFY(apply->isEnabled());
      QTest::mouseClick(apply, Qt::LeftButton);
      QVERIFY(w.document()->isDirty());
      QVERIFY(w.windowTitle().startsWith('*'));
      QVERIFY(w.saveProject());
      QVERIFY(!w.document()->isDirty());
    }
    stave::widgets::MainWindow again;
    QVERIFY(again.openProject(path));
    const auto* cfg = again.document()->config("default");
    QCOMPARE(cfg->getInt("epochs"), int64_t(3));
    QCOMPARE(cfg->getInt("batch"), int64_t(8));
    auto* table = again.findChild<QTableView*>("configTable");
    QVERIFY(table);
    QCOMPARE(table->model()->rowCount(), int(stave::config::runConfigSchema().size()));
  }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
