// Issue 42 §3, the studio: the Train form offers the networks of both families (yolov8n..x,
// yolo11n..x) and "Checkpoint file (.pt)…" for `model`, and a file chooser for `pretrained`; a
// project made by the new-project wizard with "Start from: a checkpoint file" has
// model=<that file> in its config "default", and trains from it (the real stave-train).
#include <QAbstractButton>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QGroupBox>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QRadioButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "common/modal.h"
#include "common/project_fixture.h"
#include "core/config/schema.h"
#include "core/studio/models/config_form_model.h"
#include "core/studio/project/project_document.h"
#include "core/studio/run/run_controller.h"
#include "gui_test_util.h"
#include "widgets/config_form.h"
#include "widgets/main_window.h"
#include "core/studio/run/run_session.h"
#include "widgets/new_project_wizard.h"
#include "widgets/run_page.h"

using stave::studio::ConfigFormModel;
using stave::studio::RunOutcome;
using stave::widgets::ConfigForm;
using stave::widgets::ConfigValueDelegate;
using stave::widgets::MainWindow;
using stave::widgets::NewProjectWizard;

namespace {
// The ten networks of the schema, in its order.
const QStringList kNetworks{"yolov8n", "yolov8s", "yolov8m", "yolov8l", "yolov8x",
                            "yolo11n", "yolo11s", "yolo11m", "yolo11l", "yolo11x"};

// Answers the next file dialog with `path`.
void chooseInNextFileDialog(const QString& path) {
  stave::testing::whenModal<QFileDialog>([path](QFileDialog* d) {
    // The file name field as typed (selectFile leaves it alone while it has the focus).
    auto* name = d->findChild<QLineEdit*>("fileNameEdit");
    if (name)
      name->setText(path);
    else
      d->selectFile(path);
    static_cast<QDialog*>(d)->accept();  // QFileDialog's own accept(): reads the selection
  });
}

QString writeFile(const QTemporaryDir& dir, const QString& name) {
  QFile f(dir.filePath(name));
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write("not read by the form");
  return QFileInfo(f.fileName()).absoluteFilePath();
}

// Opens the Train form's editor of `key`; the editor is a child of the table.
QModelIndex editKey(ConfigForm* form, const QString& key) {
  const int row = form->filter()->rowOf(key);
  const QModelIndex index = form->filter()->index(row, ConfigFormModel::ValueColumn);
  // The table edits on every trigger: becoming current opens the editor.
  if (form->view()->currentIndex() == index)
    form->view()->edit(index);
  else
    form->view()->setCurrentIndex(index);
  return index;
}

QString editedText(ConfigForm* form, const QString& key) {
  auto* m = form->model();
  return m->index(m->rowOf(key), 0).data(ConfigFormModel::EditedTextRole).toString();
}

// Ultralytics' yolo11n with 80 classes from the fixtures, "" when they have not been made.
QString ultralyticsYolo11n() {
#ifdef STAVE_ULTRALYTICS_FIXTURES
  const QString path = QStringLiteral(STAVE_ULTRALYTICS_FIXTURES "/models/yolo11n-nc80.pt");
  if (QFileInfo::exists(path)) return path;
#endif
  return {};
}

bool advanceTo(NewProjectWizard& w, int id) {
  for (int guard = 0; guard < 6 && w.currentId() != id; ++guard) {
    const int before = w.currentId();
    w.next();
    if (w.currentId() == before) return false;
  }
  return w.currentId() == id;
}
}  // namespace

class TestStartWeights : public QObject {
  Q_OBJECT
  QTemporaryDir m_train;  // a tiny trained project: its dataset and its checkpoint
  QString m_checkpoint;
  bool m_fromUltralytics = false;  // the checkpoint is Ultralytics' yolo11n (80 classes)

  // The checkpoint the wizard's project starts from, made once.
  QString startCheckpoint() {
    if (!m_checkpoint.isEmpty()) return m_checkpoint;
    // A Stave checkpoint of a tiny run: model=FILE.pt takes Stave's files as it takes
    // Ultralytics'. Where Ultralytics' own yolo11n (nc 80, as its yolo11n.pt) has been made by
    // tests/tools/ultralytics_fixtures.py (STAVE_ULTRALYTICS_FIXTURES/models/yolo11n-nc80.pt,
    // never downloaded), the wizard starts from that instead, as an Ultralytics user would.
    const QString ultralytics = ultralyticsYolo11n();
    if (!ultralytics.isEmpty()) {
      if (stave::guitest::makeTinyProject(m_train).isEmpty()) return {};  // the dataset
      m_fromUltralytics = true;
      return m_checkpoint = ultralytics;
    }
    const QString project = stave::guitest::makeTinyProject(m_train);
    if (project.isEmpty()) return {};
    m_checkpoint = stave::guitest::trainOnce(m_train, project);
    return m_checkpoint;
  }

  // The wizard up to its last page on the tiny project's dataset, the check finished.
  bool wizardAtCheck(NewProjectWizard& w, const QTemporaryDir& dir, const QString& name) {
    w.setMachine({0, 0, 2});  // no GPU, 2 cores
    w.show();
    w.field("name")->setText(name);
    w.field("folder")->setText(dir.filePath("projects"));
    if (!advanceTo(w, 1)) return false;
    w.setSource(NewProjectWizard::DataYaml);
    w.field("path")->setText(m_train.filePath("data/data.yaml"));
    if (!advanceTo(w, 3)) return false;
    return QTest::qWaitFor([&] { return w.checkFinished(); }, 30000) && w.datasetUsable();
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QVERIFY(m_train.isValid());
  }

  // The model row: the families in the schema's order, then "Checkpoint file (.pt)…", whose file
  // becomes the value (shown as the path, kept as the path when edited again).
  void formModelOffersFamiliesAndCheckpoint() {
    QTemporaryDir dir;
    MainWindow w;
    QVERIFY(w.openProject(stave::testing::makeProject(dir)));
    w.showPage(2);
    w.show();
    auto* form = w.configForm();
    editKey(form, "model");
    auto* combo = form->view()->findChild<QComboBox*>("modelEditor");
    QVERIFY(combo);
    QStringList values;
    for (int i = 0; i < combo->count(); ++i)
      if (!combo->itemData(i).toString().isEmpty()) values << combo->itemData(i).toString();
    QCOMPARE(values, kNetworks + QStringList{ConfigValueDelegate::kChooseFile});
    QCOMPARE(combo->currentData().toString(), QString("yolov8n"));
    QVERIFY(combo->itemText(combo->count() - 1).contains("Checkpoint file"));

    // A network: committed as it is chosen.
    int i = combo->findData("yolo11s");
    combo->setCurrentIndex(i);
    emit combo->activated(i);
    QCOMPARE(editedText(form, "model"), QString("yolo11s"));
    QVERIFY(form->model()->isDirty());
    QTRY_VERIFY(!form->view()->findChild<QComboBox*>("modelEditor"));  // closed as chosen

    // A checkpoint file, chosen in the file dialog.
    const QString pt = writeFile(dir, "yolo11n.pt");
    editKey(form, "model");
    combo = form->view()->findChild<QComboBox*>("modelEditor");
    QVERIFY(combo);
    i = combo->findData(ConfigValueDelegate::kChooseFile);
    QVERIFY(i > 0);
    chooseInNextFileDialog(pt);
    combo->setCurrentIndex(i);
    emit combo->activated(i);
    QTRY_COMPARE_WITH_TIMEOUT(editedText(form, "model"), pt, 10000);
    const QModelIndex model =
        form->filter()->index(form->filter()->rowOf("model"), ConfigFormModel::ValueColumn);
    QCOMPARE(model.data(Qt::DisplayRole).toString(), pt);
    QVERIFY(model.data(Qt::ToolTipRole).toString().startsWith(pt));  // elided in the cell
    QVERIFY2(model.data(ConfigFormModel::ErrorRole).toString().isEmpty(),
             qPrintable(model.data(ConfigFormModel::ErrorRole).toString()));
    // Edited again, the path is the editor's current value (not replaced by yolov8n).
    QTRY_VERIFY(!form->view()->findChild<QComboBox*>("modelEditor"));
    editKey(form, "model");
    combo = form->view()->findChild<QComboBox*>("modelEditor");
    QVERIFY(combo);
    QCOMPARE(combo->currentData().toString(), pt);
    QCOMPARE(combo->currentText(), pt);
    form->view()->setCurrentIndex(form->filter()->index(0, 0));
    QTRY_VERIFY(!form->view()->findChild<QComboBox*>("modelEditor"));

    // Apply commits it to the project's config; Revert of a later edit brings it back.
    QVERIFY(form->model()->apply());
    QCOMPARE(QString::fromStdString(w.document()->config("default")->getString("model")), pt);
    QVERIFY(form->model()->setEditedText("model", "yolo11x"));
    form->model()->cancel();
    QCOMPARE(editedText(form, "model"), pt);
    QVERIFY(!form->model()->isDirty());
  }

  // The pretrained row: a line edit that commits what is typed, and "…" for a file dialog.
  void formPretrainedHasFileChooser() {
    QCOMPARE(ConfigForm::fileFilter("pretrained").section(";;", 0, 0),
             QString("Checkpoints (*.pt)"));
    QVERIFY(ConfigForm::fileFilter("data").contains("*.yaml"));
    QTemporaryDir dir;
    MainWindow w;
    QVERIFY(w.openProject(stave::testing::makeProject(dir)));
    w.showPage(2);
    w.show();
    auto* form = w.configForm();
    const QString typed = writeFile(dir, "typed.pt");
    editKey(form, "pretrained");
    auto* edit = form->view()->findChild<QLineEdit*>("pathEdit");
    QVERIFY(edit);
    auto* browse = edit->findChild<QAction*>("browseAction");
    QVERIFY(browse && browse->isVisible());
    QVERIFY(edit->text().isEmpty());
    edit->setFocus();
    QTest::keyClicks(edit, typed);
    QTest::keyClick(edit, Qt::Key_Return);  // commits (queued) and closes
    QTRY_COMPARE(editedText(form, "pretrained"), typed);
    QTRY_VERIFY(!form->view()->findChild<QLineEdit*>("pathEdit"));

    const QString chosen = writeFile(dir, "chosen.pt");
    editKey(form, "pretrained");
    edit = form->view()->findChild<QLineEdit*>("pathEdit");
    QVERIFY(edit);
    QCOMPARE(edit->text(), typed);
    chooseInNextFileDialog(chosen);
    edit->findChild<QAction*>("browseAction")->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(editedText(form, "pretrained"), chosen, 10000);
    QVERIFY(form->model()->errorCount() == 0);
    QVERIFY(form->model()->apply());
    QCOMPARE(QString::fromStdString(w.document()->config("default")->getString("pretrained")),
             chosen);
  }

  // Start from a network: the proposal (yolov8n here) unless another is chosen; written even
  // when the other proposals are not used.
  void wizardStartsFromANetwork() {
    QTemporaryDir dir;
    QVERIFY(!startCheckpoint().isEmpty());
    NewProjectWizard w;
    QVERIFY(wizardAtCheck(w, dir, "network"));
    auto* box = w.findChild<QGroupBox*>("startFrom");
    QVERIFY(box && box->isVisible());
    QCOMPARE(w.startFrom(), NewProjectWizard::StartNetwork);
    QCOMPARE(w.startFromSetting(), QString("yolov8n"));
    QVERIFY(!w.findChild<QLabel*>("startNetworkWhy")->text().isEmpty());
    QVERIFY(!w.findChild<QLabel*>("proposal")->text().contains("model="));
    auto* choice = w.findChild<QComboBox*>("startNetworkChoice");
    QStringList names;
    for (int i = 0; i < choice->count(); ++i)
      if (!choice->itemText(i).isEmpty()) names << choice->itemText(i);
    QCOMPARE(names, kNetworks);
    w.setStartNetwork("yolo11s");
    w.findChild<QCheckBox*>("useProposal")->setChecked(false);
    w.button(QWizard::FinishButton)->click();
    QVERIFY(!w.createdProject().isEmpty());
    stave::studio::ProjectDocument doc;
    QVERIFY(doc.open(w.createdProject()));
    QCOMPARE(QString::fromStdString(doc.config("default")->getString("model")), QString("yolo11s"));
    QCOMPARE(doc.config("default")->getInt("imgsz"), int64_t(640));  // proposals not used
  }

  // Start from a checkpoint file: a missing file and a file that is no .pt are refused on the
  // page; the one chosen in the file dialog becomes model=<its absolute path>, and the project
  // trains from it.
  void wizardStartsFromACheckpointAndTrains() {
    QTemporaryDir dir;
    const QString start = startCheckpoint();
    QVERIFY(!start.isEmpty());
    qInfo().noquote() << "starting from" << start
                      << (m_fromUltralytics ? "(Ultralytics')" : "(Stave's)");
    NewProjectWizard w;
    QVERIFY(wizardAtCheck(w, dir, "tuned"));
    w.setStartCheckpoint(dir.filePath("yolo11n.pt"));  // no such file
    w.button(QWizard::FinishButton)->click();
    QVERIFY(w.createdProject().isEmpty());
    QVERIFY2(w.startProblem().contains("does not exist") &&
                 w.startProblem().contains("does not download"),
             qPrintable(w.startProblem()));
    w.setStartCheckpoint(m_train.filePath("data/data.yaml"));
    w.button(QWizard::FinishButton)->click();
    QVERIFY(w.createdProject().isEmpty());
    QVERIFY2(w.startProblem().contains("expected a .pt file"), qPrintable(w.startProblem()));

    w.findChild<QRadioButton*>("startNetwork")->click();
    chooseInNextFileDialog(start);
    w.findChild<QAbstractButton*>("startBrowse")->click();
    QCOMPARE(w.startFrom(), NewProjectWizard::StartCheckpoint);
    QCOMPARE(w.startFromSetting(), QFileInfo(start).absoluteFilePath());
    QVERIFY(w.startProblem().isEmpty());
    w.button(QWizard::FinishButton)->click();
    QVERIFY2(!w.createdProject().isEmpty(), qPrintable(w.startProblem()));
    {
      stave::studio::ProjectDocument doc;
      QVERIFY(doc.open(w.createdProject()));
      const auto* cfg = doc.config("default");
      QCOMPARE(QString::fromStdString(cfg->getString("model")),
               QFileInfo(start).absoluteFilePath());
      QCOMPARE(cfg->getInt("imgsz"), int64_t(64));  // the proposals are kept beside it
    }

    // Trains: the Train form makes the run one short CPU epoch, the Run page starts it.
    MainWindow mw;
    mw.sessions()->setExecutable(STAVE_TRAIN_EXE);
    mw.sessions()->setPollInterval(50);
    mw.askOnClose = [] { return int(QMessageBox::No); };
    QVERIFY(mw.openProject(w.createdProject()));
    auto* form = mw.configForm();
    QCOMPARE(editedText(form, "model"), QFileInfo(start).absoluteFilePath());
    for (const auto& [key, value] :
         std::initializer_list<std::pair<const char*, const char*>>{{"epochs", "1"},
                                                                    {"batch", "4"},
                                                                    {"nbs", "4"},
                                                                    {"val", "false"},
                                                                    {"devices", "cpu"},
                                                                    {"workers", "0"},
                                                                    {"threads", "1"},
                                                                    {"warmup_epochs", "0"}})
      QVERIFY2(form->model()->setEditedText(key, value), key);
    QVERIFY(form->model()->apply());
    QVERIFY(mw.saveProject());
    auto* page = mw.runPage();
    QVERIFY2(page->startRun(), qPrintable(page->outcomeLabel()->text()));
    auto* c = page->controller();
    QTRY_VERIFY_WITH_TIMEOUT(stave::studio::hasEnded(c->outcome()), 300000);
    const QString log = mw.findChild<QPlainTextEdit*>("runLog")->toPlainText();
    QVERIFY2(c->outcome() == RunOutcome::Completed,
             qPrintable(c->outcomeText() + "\n" + log.right(3000)));
    QVERIFY(QFile::exists(c->runDir() + "/weights/last.pt"));
    // The run says what it started from: run_start's resolved weights, every tensor of the
    // same network taken.
    QFile events(c->runDir() + "/events.jsonl");
    QVERIFY(events.open(QIODevice::ReadOnly));
    QJsonObject weights;
    while (!events.atEnd()) {
      const QJsonObject e = QJsonDocument::fromJson(events.readLine()).object();
      if (e["type"].toString() == "run_start")
        weights = e["data"].toObject()["resolved"].toObject()["weights"].toObject();
    }
    QVERIFY2(!weights.isEmpty(), "run_start says nothing of the start weights");
    QCOMPARE(weights["from"].toString(), QFileInfo(start).absoluteFilePath());
    QVERIFY(weights["transferred"].toInt() > 0);
    if (m_fromUltralytics) {  // 80 classes -> the demo's 5: the class outputs start afresh
      QVERIFY(weights["transferred"].toInt() < weights["total"].toInt());
      QTRY_VERIFY2(mw.findChild<QPlainTextEdit*>("runLog")->toPlainText().contains("Transferred"),
                   qPrintable(mw.findChild<QPlainTextEdit*>("runLog")->toPlainText().right(3000)));
    } else {  // the same network and classes: every tensor
      QCOMPARE(weights["transferred"].toInt(), weights["total"].toInt());
    }
    // The Run page's log says where the weights came from either way.
    QTRY_VERIFY2(mw.findChild<QPlainTextEdit*>("runLog")->toPlainText().contains(
                     QString("[run] start weights: %1 of %2 items from %3")
                         .arg(weights["transferred"].toInt())
                         .arg(weights["total"].toInt())
                         .arg(weights["from"].toString())),
                 qPrintable(mw.findChild<QPlainTextEdit*>("runLog")->toPlainText().right(3000)));
  }
};

QTEST_MAIN(TestStartWeights)
#include "tst_start_weights.moc"
