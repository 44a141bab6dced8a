#include <QAbstractButton>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
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
  // Closing while a run trains: the buttons say what they do (not Yes / No / Cancel) and each
  // gives its answer.
  void closeQuestionSaysWhatItDoes() {
    stave::widgets::MainWindow w;
    for (const auto& [name, answer] : {std::pair{QString("keepTraining"), int(QMessageBox::Yes)},
                                       std::pair{QString("stopRun"), int(QMessageBox::No)}}) {
      auto box = w.closeQuestion("r7");
      QVERIFY(box->text().contains("r7 is still training"));
      QStringList texts;
      for (auto* b : box->buttons()) texts << b->text().remove('&');
      QVERIFY2(texts.contains("Keep Training") && texts.contains("Stop the Run") &&
                   !texts.contains("Yes") && !texts.contains("No"),
               qPrintable(texts.join(", ")));
      QCOMPARE(box->defaultButton()->objectName(), QString("keepTraining"));
      box->findChild<QAbstractButton*>(name)->click();
      QCOMPARE(stave::widgets::MainWindow::closeAnswer(*box), answer);
    }
    auto box = w.closeQuestion("r7");
    QCOMPARE(stave::widgets::MainWindow::closeAnswer(*box), int(QMessageBox::Cancel));  // Escape
    box->button(QMessageBox::Cancel)->click();
    QCOMPARE(stave::widgets::MainWindow::closeAnswer(*box), int(QMessageBox::Cancel));
  }

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

  // A project that cannot be opened is named in a dialog with the whole reason (only the
  // status bar said it, cut off); random bytes are not called "truncated JSON".
  void unopenableProjectGetsADialog() {
    QTemporaryDir dir;
    const QString path = dir.filePath("random.stave");
    {
      QFile f(path);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(QByteArray("\x07\x9c\x13\xfe random bytes \x01\x02", 22));
    }
    stave::widgets::MainWindow w;
    QVERIFY(!w.openProject(path));
    auto* box = w.findChild<QMessageBox*>(QStringLiteral("openProjectError"));
    QVERIFY(box);
    QVERIFY(box->isVisible());
    QVERIFY2(box->text().contains("random.stave"), qPrintable(box->text()));
    QVERIFY2(box->informativeText().contains("not a Stave project file") &&
                 box->informativeText().contains("binary data") &&
                 !box->informativeText().contains("truncated"),
             qPrintable(box->informativeText()));
    box->accept();
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
