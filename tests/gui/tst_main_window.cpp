#include <QAbstractButton>
#include <QComboBox>
#include <QDir>
#include <QInputDialog>
#include <QListWidget>
#include <QMenu>
#include <QScreen>
#include <QTextBrowser>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "common/modal.h"
#include "common/project_fixture.h"
#include "core/studio/models/config_form_model.h"
#include "core/studio/project/preferences.h"
#include "core/studio/project/project_document.h"
#include "widgets/config_form.h"
#include "widgets/help_dialogs.h"
#include "widgets/main_window.h"
#include "widgets/project_page.h"
#include "widgets/run_page.h"

using stave::studio::ConfigFormModel;

class TestMainWindow : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }  // settings of its own
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

  // `stave ""` (a script's empty variable) says that no file was named, not "cannot open .".
  void emptyProjectNameIsSaidAsSuch() {
    stave::widgets::MainWindow w;
    QVERIFY(!w.openProject(QStringLiteral("  ")));
    auto* box = w.findChild<QMessageBox*>(QStringLiteral("openProjectError"));
    QVERIFY(box);
    QVERIFY2(box->text().contains("without a file name"), qPrintable(box->text()));
    QVERIFY2(box->informativeText().contains("No project file was named"),
             qPrintable(box->informativeText()));
    QVERIFY(!box->text().contains(" ."));
    QVERIFY(!w.document()->isOpen());
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

  // Issue 29, defect 2: `data` in the Train form was editable, shown as applied and dropped on
  // save. It now shows the project's dataset read-only; the Project page changes the dataset.
  void dataIsTheProjectsAndChangedOnTheProjectPage() {
    QTemporaryDir dir;
    const QString path = stave::testing::makeProject(dir);
    QDir(dir.path()).mkpath("other/images");
    const QString other = dir.filePath("other/data.yaml");
    {
      QFile f(other);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("path: .\ntrain: images\nval: images\nnames: [x, y]\n");
    }
    {
      stave::widgets::MainWindow w;
      QVERIFY(w.openProject(path));
      auto* model = w.configForm()->model();
      const int row = model->rowOf("data");
      const QModelIndex value = model->index(row, ConfigFormModel::ValueColumn);
      QCOMPARE(value.data().toString(), w.document()->datasetPath());
      QVERIFY(!(model->flags(value) & Qt::ItemIsEditable));
      QVERIFY(!model->setEditedText("data", other));  // not an edit the form takes
      QVERIFY(!model->isDirty());
      QVERIFY(value.data(Qt::ToolTipRole).toString().contains("Project page"));

      auto* page = w.findChild<stave::widgets::ProjectPage*>();
      QVERIFY(page);
      // A file that is not a dataset is refused with the file and the reason.
      const QString bad = dir.filePath("bad.yaml");
      {
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("train: [\n");
      }
      QString shown;
      stave::testing::whenModal<QMessageBox>([&](QMessageBox* box) {
        shown = box->text() + "\n" + box->informativeText();
        box->accept();
      });
      QVERIFY(!page->useDataset(bad));
      QVERIFY2(shown.contains("bad.yaml"), qPrintable(shown));
      QCOMPARE(w.document()->datasetPath(), dir.filePath("data.yaml"));
      // A good one becomes the dataset of every config: the form shows it, save keeps it.
      QVERIFY(page->useDataset(other));
      QCOMPARE(w.document()->datasetPath(), other);
      QCOMPARE(value.data().toString(), other);
      QVERIFY(w.document()->isDirty());
      QVERIFY(w.saveProject());
    }
    stave::widgets::MainWindow again;
    QVERIFY(again.openProject(path));
    QCOMPARE(again.document()->datasetPath(), other);
    QCOMPARE(again.document()->datasetStored(), QString("other/data.yaml"));
  }

  // Issue 29, defect 10: the Project page adds, copies, renames, deletes and activates configs;
  // the Train page's selector follows.
  void projectPageManagesConfigs() {
    QTemporaryDir dir;
    const QString path = stave::testing::makeProject(dir);
    {
      stave::widgets::MainWindow w;
      QVERIFY(w.openProject(path));
      auto* doc = w.document();
      auto seven = *doc->config("default");
      QVERIFY(seven.set("epochs", int64_t(7)));
      doc->setConfig("default", seven);
      auto* page = w.findChild<stave::widgets::ProjectPage*>();
      auto* selector = w.findChild<QComboBox*>("configSelector");
      auto typeName = [](const QString& name) {
        stave::testing::whenModal<QInputDialog>([name](QInputDialog* in) {
          in->setTextValue(name);
          in->accept();
        });
      };
      // Copy: a taken name is asked again (with the reason), then a free one is used.
      page->selectConfig("default");
      QString secondLabel;
      stave::testing::whenModal<QInputDialog>([&](QInputDialog* in) {
        in->setTextValue("default");
        in->accept();
        stave::testing::whenModal<QInputDialog>([&](QInputDialog* in2) {
          secondLabel = in2->labelText();
          in2->setTextValue("long");
          in2->accept();
        });
      });
      page->newConfig(true);
      QVERIFY2(secondLabel.contains("already a config called 'default'"), qPrintable(secondLabel));
      QCOMPARE(doc->configNames(), (QStringList{"default", "long"}));
      QCOMPARE(doc->activeConfig(), QString("long"));
      QCOMPARE(doc->config("long")->getInt("epochs"), int64_t(7));
      QCOMPARE(selector->currentText(), QString("long"));
      QCOMPARE(selector->count(), 2);
      // New: from the defaults.
      typeName("fresh");
      page->newConfig(false);
      QCOMPARE(doc->config("fresh")->getInt("epochs"),
               stave::config::RunConfig::defaults().getInt("epochs"));
      // Rename the active one: it stays active.
      page->selectConfig("fresh");
      typeName("short");
      page->renameConfig();
      QCOMPARE(doc->configNames(), (QStringList{"default", "long", "short"}));
      QCOMPARE(doc->activeConfig(), QString("short"));
      QCOMPARE(selector->currentText(), QString("short"));
      // Delete asks first; Cancel keeps it.
      page->selectConfig("short");
      stave::testing::whenModal<QMessageBox>([](QMessageBox* m) { m->reject(); });
      page->deleteConfig();
      QCOMPARE(doc->configNames().size(), 3);
      stave::testing::whenModal<QMessageBox>([](QMessageBox* m) {
        m->findChild<QAbstractButton*>("confirmDelete")->click();
      });
      page->deleteConfig();
      QCOMPARE(doc->configNames(), (QStringList{"default", "long"}));
      QCOMPARE(doc->activeConfig(), QString("default"));
      QCOMPARE(selector->currentText(), QString("default"));
      page->selectConfig("long");
      page->activateConfig();
      QCOMPARE(doc->activeConfig(), QString("long"));
      // The last config cannot be deleted.
      QString error;
      QVERIFY(doc->removeConfig("default", &error));
      QVERIFY(!doc->removeConfig("long", &error));
      QVERIFY(error.contains("at least one"));
      QVERIFY(!w.findChild<QWidget*>("deleteConfig")->isEnabled());
      QVERIFY(w.saveProject());
    }
    stave::widgets::MainWindow again;
    QVERIFY(again.openProject(path));
    QCOMPARE(again.document()->configNames(), QStringList{"long"});
    QCOMPARE(again.document()->activeConfig(), QString("long"));
  }

  // Issue 29, defect 6: a dataset known to be missing no longer starts a run (which failed and
  // left a run folder with Resume offered); unsaved changes offer to save instead of blocking.
  void preflightBeforeStart() {
    QTemporaryDir dir;
    const QString path = stave::testing::makeProject(dir);
    stave::widgets::MainWindow w;
    QVERIFY(w.openProject(path));
    QVERIFY(QFile::remove(dir.filePath("data.yaml")));
    auto* page = w.runPage();
    // Unsaved changes: asked; Cancel starts nothing and keeps the changes.
    auto cfg = *w.document()->config("default");
    QVERIFY(cfg.set("epochs", int64_t(5)));
    w.document()->setConfig("default", cfg);
    QString asked;
    stave::testing::whenModal<QMessageBox>([&](QMessageBox* box) {
      asked = box->text() + "\n" + box->informativeText();
      box->button(QMessageBox::Cancel)->click();
    });
    QVERIFY(!page->startRun());
    QVERIFY2(asked.contains("unsaved changes"), qPrintable(asked));
    QVERIFY(w.document()->isDirty());
    // Save and Start saves, then the pre-flight names the missing dataset: no run folder.
    QString problems;
    stave::testing::whenModal<QMessageBox>([&](QMessageBox* box) {
      box->findChild<QAbstractButton*>("saveAndStart")->click();
      stave::testing::whenModal<QMessageBox>([&](QMessageBox* box2) {
        problems = box2->objectName() + "\n" + box2->text() + "\n" + box2->informativeText();
        box2->accept();
      });
    });
    QVERIFY(!page->startRun());
    QVERIFY(!w.document()->isDirty());
    QVERIFY2(problems.startsWith("preflightProblems") && problems.contains("dataset not found") &&
                 problems.contains(dir.filePath("data.yaml")),
             qPrintable(problems));
    QVERIFY(!QDir(dir.filePath("runs")).exists());
    QVERIFY(page->outcomeLabel()->text().contains("Not started"));
    // A data.yaml whose splits are missing is caught as well, naming the key.
    {
      QFile f(dir.filePath("data.yaml"));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("path: .\ntrain: nowhere\nval: nowhere\nnames: [a]\n");
    }
    problems.clear();
    stave::testing::whenModal<QMessageBox>([&](QMessageBox* box) {
      problems = box->informativeText();
      box->accept();
    });
    QVERIFY(!page->startRun());
    QVERIFY2(problems.contains("nowhere"), qPrintable(problems));
    QVERIFY(!QDir(dir.filePath("runs")).exists());
  }

  // Issue 29, defect 10: a Help menu — About with versions, the documentation, the shortcuts.
  void helpMenu() {
    stave::widgets::MainWindow w;
    auto* help = w.findChild<QMenu*>("helpMenu");
    QVERIFY(help);
    QStringList items;
    for (auto* a : help->actions())
      if (!a->isSeparator()) items << a->text().remove('&');
    QCOMPARE(items, (QStringList{"Documentation", "Keyboard Shortcuts", "About Stave", "About Qt"}));
    const QString about = stave::widgets::aboutText();
    QVERIFY2(about.contains("Stave " STAVE_VERSION) && about.contains(qVersion()) &&
                 about.contains("LibTorch") && about.contains("SQLite"),
             qPrintable(about));
    const auto shortcuts = stave::widgets::shortcutList(&w);
    auto keysOf = [&](const QString& what) {
      for (const auto& [where, keys] : shortcuts)
        if (where == what) return keys;
      return QString();
    };
    QCOMPARE(keysOf("File ▸ Open…"), QKeySequence(QKeySequence::Open).toString(QKeySequence::NativeText));
    QCOMPARE(keysOf("File ▸ Export Model…"), QString("Ctrl+Shift+E"));
    QCOMPARE(keysOf("Run ▸ Start"), QString("F5"));
    QCOMPARE(keysOf("Run ▸ Stop"), QString("Shift+F5"));
    stave::widgets::DocsDialog docs;
    QVERIFY2(docs.pages().contains("studio.md") && docs.pages().contains("run-page.md"),
             qPrintable(docs.pages().join(", ")));
    QVERIFY(docs.showPage("run-page.md"));
    QVERIFY(docs.browser()->toPlainText().contains("Run page"));
    QVERIFY(!docs.showPage("nothing.md"));
    // Issue 43 §5.10: the page list showed file names. It shows each page's title (its first
    // heading, up to a colon), the whole heading as the tooltip; choosing one shows that page.
    auto* list = docs.findChild<QListWidget*>("docsPages");
    QVERIFY(list);
    QCOMPARE(list->count(), docs.pages().size());
    QCOMPARE(list->currentItem()->text(), QString("The Run page"));  // selected by showPage
    QStringList titles;
    for (int i = 0; i < list->count(); ++i) {
      titles << list->item(i)->text();
      QVERIFY2(!list->item(i)->text().endsWith(".md"), qPrintable(list->item(i)->text()));
    }
    QVERIFY2(titles.contains("The studio around a run") && titles.contains("The doctor"),
             qPrintable(titles.join(", ")));
    // In the order of their subjects: "The doctor" between "Distributed …" and "Experiment …".
    QVERIFY2(titles.indexOf("Distributed training in Stave (core/distributed)") < titles.indexOf("The doctor") &&
                 titles.indexOf("The doctor") < titles.indexOf("Experiment history"),
             qPrintable(titles.join(", ")));
    QCOMPARE(stave::widgets::DocsDialog::pageTitle("doctor.md"), QString("The doctor: why a run is slow"));
    for (int i = 0; i < list->count(); ++i)
      if (list->item(i)->text() == "The doctor") {
        QCOMPARE(list->item(i)->toolTip(), QString("The doctor: why a run is slow"));
        list->setCurrentRow(i);
      }
    QVERIFY(docs.browser()->source().path().endsWith("doctor.md"));
    // Showing another page (as a link does) selects its title.
    QVERIFY(docs.showPage("history.md"));
    QCOMPARE(list->currentItem()->text(), QString("Experiment history"));
  }

  // Issue 29, defect 10: the window came back partly off-screen (a geometry from another monitor
  // setup) and the studio did not reopen the project it was closed with.
  void windowFitsOnScreenAndReopensTheProject() {
    QTemporaryDir dir;
    const QString path = stave::testing::makeProject(dir);
    QRect saved;
    {
      stave::widgets::MainWindow w;
      w.askOnClose = [] { return int(QMessageBox::Yes); };
      QVERIFY(w.openProject(path));
      w.show();
      w.setGeometry(4000, 3000, 1100, 720);  // beyond the screen's right and bottom
      QVERIFY(w.close());
    }
    QCOMPARE(stave::studio::WindowState::load().openProject, path);
    {
      stave::widgets::MainWindow w;
      const QRect avail = w.screen()->availableGeometry();
      QVERIFY2(avail.contains(w.geometry()),
               qPrintable(QString("%1,%2 %3x%4 not inside %5x%6")
                              .arg(w.geometry().x()).arg(w.geometry().y())
                              .arg(w.geometry().width()).arg(w.geometry().height())
                              .arg(avail.width()).arg(avail.height())));
      QVERIFY(!w.document()->isOpen());  // only main() reopens it
      QVERIFY(w.reopenLastProject());
      QCOMPARE(w.document()->path(), path);
      w.closeProject();
      w.askOnClose = [] { return int(QMessageBox::Yes); };
      QVERIFY(w.close());
    }
    QCOMPARE(stave::studio::WindowState::load().openProject, QString());  // closed before quitting
    stave::widgets::MainWindow w;
    QVERIFY(!w.reopenLastProject());
  }

  // Issue 29, defect 7: optimizer=auto replaced lr0 without a word. With the dataset's size
  // known the form says what auto chooses and shows lr0 and momentum as not used.
  void formShowsWhatOptimizerAutoUses() {
    QTemporaryDir dir;
    stave::widgets::MainWindow w;
    QVERIFY(w.openProject(stave::testing::makeProject(dir)));
    auto* form = w.configForm();
    QVERIFY(form->derivedText().contains("optimizer auto (SGD or AdamW"));
    form->setDatasetSize(100, 1);  // 100 images, 1 class: a short run, AdamW lr0 0.002
    QVERIFY2(form->derivedText().contains("optimizer auto → AdamW, lr0 0.002"),
             qPrintable(form->derivedText()));
    auto* model = form->model();
    const QModelIndex lr = model->index(model->rowOf("lr0"), ConfigFormModel::ValueColumn);
    QCOMPARE(lr.data().toString(), QString("0.01 → 0.002 used"));
    QCOMPARE(lr.data(Qt::EditRole).toString(), QString("0.01"));  // what is edited stays
    QVERIFY(lr.data(Qt::ToolTipRole).toString().contains("optimizer=SGD or AdamW"));
    QVERIFY(model->setEditedText("optimizer", "SGD"));
    QCOMPARE(lr.data().toString(), QString("0.01"));
    QVERIFY(form->derivedText().contains("SGD lr0 0.01"));
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
