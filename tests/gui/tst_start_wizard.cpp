#include <QAbstractButton>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QSignalSpy>
#include <QCheckBox>
#include <QtTest>

#include "core/data/dataset.h"
#include "core/studio/project/new_project.h"
#include "core/studio/project/preferences.h"
#include "core/studio/project/project_document.h"
#include "widgets/main_window.h"
#include "widgets/new_project_wizard.h"
#include "widgets/start_page.h"

using stave::widgets::NewProjectWizard;

namespace {
// Tiny PNG images (written by Qt) and YOLO labels: images/{train,val}/ and labels/{train,val}/.
void writeImagesFolder(const QString& root, int perSplit, int maxClass) {
  QImage img(32, 24, QImage::Format_RGB888);
  img.fill(Qt::darkGreen);
  for (const QString split : {"train", "val"}) {
    QDir(root).mkpath("images/" + split);
    QDir(root).mkpath("labels/" + split);
    for (int i = 0; i < perSplit; ++i) {
      const QString stem = QString("%1/%2/%3").arg(root, "%1/" + split, QString("im%1").arg(i));
      QVERIFY(img.save(stem.arg("images") + ".png"));
      QFile label(stem.arg("labels") + ".txt");
      QVERIFY(label.open(QIODevice::WriteOnly));
      label.write(QString("%1 0.5 0.5 0.25 0.25\n").arg(i % (maxClass + 1)).toUtf8());
    }
  }
}

// Next until the wizard reaches `id`, failing with the page's problem text when it stops early.
bool advanceTo(NewProjectWizard& w, int id) {
  for (int guard = 0; guard < 6 && w.currentId() != id; ++guard) {
    const int before = w.currentId();
    w.next();
    if (w.currentId() == before) return false;
  }
  return w.currentId() == id;
}

bool finish(NewProjectWizard& w) {
  if (!QTest::qWaitFor([&] { return w.checkFinished(); }, 30000)) return false;
  if (!w.button(QWizard::FinishButton)->isEnabled()) return false;
  w.button(QWizard::FinishButton)->click();
  return !w.createdProject().isEmpty();
}
}  // namespace

// The start screen, the new-project wizard (data.yaml, images folder, args.yaml, bad input) and
// the demo project made on first use.
class TestStartWizard : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
  }

  void startScreenListsRecentProjects() {
    QTemporaryDir dir;
    stave::widgets::MainWindow w;
    QVERIFY(w.startShown());
    const QString missing = dir.filePath("gone/old.stave");
    stave::studio::RecentProjects::add(missing);
    QVERIFY(QDir(dir.path()).mkpath("data"));
    const QString data = dir.filePath("data/data.yaml");
    QFile f(data);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("path: .\ntrain: images\nval: images\nnames: [a]\n");
    f.close();
    auto p = stave::config::createProject(dir.path().toStdString(), "kept", data.toStdString());
    QVERIFY(p.ok());
    stave::studio::RecentProjects::add(QString::fromStdString(p->path));
    QSignalSpy described(w.startPage(), &stave::widgets::StartPage::recentDescribed);
    w.startPage()->refresh();
    auto* list = w.startPage()->recentList();
    QCOMPARE(list->count(), 2);
    QVERIFY(described.wait(10000));  // the lines are read off the GUI thread
    QVERIFY(list->item(0)->text().contains("kept"));
    QVERIFY2(list->item(0)->text().contains("no runs yet"), qPrintable(list->item(0)->text()));
    QVERIFY(list->item(1)->text().contains("not found"));
    // Activating the missing one says so; the existing one opens the project.
    emit list->itemActivated(list->item(1));
    QVERIFY(w.startPage()->statusLabel()->text().contains("no longer exists"));
    QVERIFY(w.startShown());
    emit list->itemActivated(list->item(0));
    QVERIFY(!w.startShown());
    QCOMPARE(w.document()->name(), QString("kept"));
    w.closeProject();
    QVERIFY(w.startShown());
    QVERIFY(!w.document()->isOpen());
    QSettings().clear();
  }

  void wizardWithDataYaml() {
    QTemporaryDir dir;
    writeImagesFolder(dir.filePath("set"), 3, 1);
    QFile f(dir.filePath("set/data.yaml"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("path: .\ntrain: images/train\nval: images/val\nnames: [cat, dog]\n");
    f.close();
    NewProjectWizard w;
    w.show();
    w.field("name")->setText("pets");
    w.field("folder")->setText(dir.filePath("projects"));
    QVERIFY(advanceTo(w, 1));
    w.setSource(NewProjectWizard::DataYaml);
    w.field("path")->setText(dir.filePath("set/data.yaml"));
    QVERIFY(advanceTo(w, 3));  // straight to the check: no class names to ask for
    QVERIFY(finish(w));
    QVERIFY2(w.checkText().contains("train"), qPrintable(w.checkText()));
    stave::studio::ProjectDocument doc;
    QVERIFY(doc.open(w.createdProject()));
    QCOMPARE(doc.name(), QString("pets"));
    QVERIFY(doc.problems().isEmpty());
  }

  // Issue 29, defect 7: the wizard's project got imgsz 640, nbs 64 and 100 epochs on a CPU (mAP 0
  // after a short run); it proposes settings for the machine and the dataset, used when ticked.
  void wizardProposesSettingsForTheMachine() {
    QTemporaryDir dir;
    writeImagesFolder(dir.filePath("set"), 4, 1);
    QFile f(dir.filePath("set/data.yaml"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("path: .\ntrain: images/train\nval: images/val\nnames: [cat, dog]\n");
    f.close();
    for (const bool use : {true, false}) {
      NewProjectWizard w;
      w.setMachine({0, 0, 4});  // no GPU, 4 cores
      w.show();
      w.field("name")->setText(use ? "proposed" : "defaults");
      w.field("folder")->setText(dir.filePath("projects"));
      QVERIFY(advanceTo(w, 1));
      w.setSource(NewProjectWizard::DataYaml);
      w.field("path")->setText(dir.filePath("set/data.yaml"));
      QVERIFY(advanceTo(w, 3));
      QVERIFY(QTest::qWaitFor([&] { return w.checkFinished(); }, 30000));
      auto* text = w.findChild<QLabel*>("proposal");
      QVERIFY2(text->text().contains("no GPU") && text->text().contains("imgsz=64"),
               qPrintable(text->text()));
      auto* box = w.findChild<QCheckBox*>("useProposal");
      QVERIFY(box->isVisible() && box->isChecked());
      box->setChecked(use);
      QVERIFY(finish(w));
      stave::studio::ProjectDocument doc;
      QVERIFY(doc.open(w.createdProject()));
      const auto* cfg = doc.config("default");
      QCOMPARE(cfg->getInt("imgsz"), int64_t(use ? 64 : 640));  // 32x24 images: not upscaled
      QCOMPARE(cfg->getInt("nbs"), int64_t(use ? 4 : 64));      // 4 images: batch 4
      QCOMPARE(cfg->getInt("epochs"), int64_t(use ? 100 : 100));
      QCOMPARE(cfg->getInt("workers"), int64_t(use ? 3 : 8));
    }
  }

  void wizardWithImagesFolder() {
    QTemporaryDir dir;
    writeImagesFolder(dir.filePath("set"), 4, 2);  // class ids 0..2
    NewProjectWizard w;
    w.show();
    w.field("name")->setText("shapes");
    w.field("folder")->setText(dir.filePath("projects"));
    QVERIFY(advanceTo(w, 1));
    w.setSource(NewProjectWizard::ImagesFolder);
    w.field("path")->setText(dir.filePath("set/images"));
    QVERIFY(advanceTo(w, 2));
    // The folder is looked at in the background; the names are prefilled from the highest id.
    QTRY_COMPARE(w.field("classes")->text(), QString("class0, class1, class2"));
    // Too few names: refused, naming the highest class id.
    w.field("classes")->setText("circle, square");
    QVERIFY(!advanceTo(w, 3));
    QVERIFY(w.findChild<QLabel*>("classesProblem")->text().contains("class 2"));
    QVERIFY(!QFile::exists(dir.filePath("set/data.yaml")));
    w.field("classes")->setText("circle, square, triangle");
    QVERIFY(advanceTo(w, 3));
    QCOMPARE(w.datasetFile(), dir.filePath("set/data.yaml"));
    QVERIFY(finish(w));
    auto spec = stave::data::loadDataYaml(dir.filePath("set/data.yaml").toStdString());
    QVERIFY2(spec.ok(), spec.errorText().c_str());
    QCOMPARE(spec->names, (std::vector<std::string>{"circle", "square", "triangle"}));
    stave::studio::ProjectDocument doc;
    QVERIFY(doc.open(w.createdProject()));
    QCOMPARE(QFileInfo(doc.datasetPath()).canonicalFilePath(),
             QFileInfo(dir.filePath("set/data.yaml")).canonicalFilePath());
  }

  void wizardImportsUltralyticsArgs() {
    QTemporaryDir dir;
    writeImagesFolder(dir.filePath("set"), 2, 0);
    QFile data(dir.filePath("set/data.yaml"));
    QVERIFY(data.open(QIODevice::WriteOnly));
    data.write("path: .\ntrain: images/train\nval: images/val\nnames: [thing]\n");
    data.close();
    QFile args(dir.filePath("args.yaml"));
    QVERIFY(args.open(QIODevice::WriteOnly));
    args.write("task: detect\ndata: set/data.yaml\nepochs: 42\nlr0: 0.02\nbatch: 8\n");
    args.close();
    NewProjectWizard w;
    w.show();
    w.field("name")->setText("imported");
    w.field("folder")->setText(dir.filePath("p"));
    QVERIFY(advanceTo(w, 1));
    w.setSource(NewProjectWizard::UltralyticsArgs);
    w.field("path")->setText(dir.filePath("args.yaml"));
    QVERIFY(advanceTo(w, 3));
    QVERIFY(finish(w));
    stave::studio::ProjectDocument doc;
    QVERIFY(doc.open(w.createdProject()));
    QCOMPARE(doc.config("default")->getInt("epochs"), int64_t(42));
    QCOMPARE(doc.config("default")->getFloat("lr0"), 0.02);
  }

  void badDatasetsAreShown_data() {
    QTest::addColumn<int>("source");
    QTest::addColumn<QString>("content");  // "" = the path does not exist
    QTest::addColumn<QString>("expected");
    QTest::newRow("missing data.yaml") << int(NewProjectWizard::DataYaml) << ""
                                       << "not a file";
    QTest::newRow("unparseable data.yaml")
        << int(NewProjectWizard::DataYaml) << "train: [unclosed\nnames: {"
        << "data.yaml";
    QTest::newRow("data.yaml without val")
        << int(NewProjectWizard::DataYaml) << "train: images\nnames: [a]\n"
        << "val";
    QTest::newRow("args.yaml naming a built-in set")
        << int(NewProjectWizard::UltralyticsArgs) << "data: coco8.yaml\n"
        << "coco8.yaml";
  }
  void badDatasetsAreShown() {
    QFETCH(int, source);
    QFETCH(QString, content);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const QString path = dir.filePath("data.yaml");
    if (!content.isEmpty()) {
      QFile f(path);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(content.toUtf8());
    }
    NewProjectWizard w;
    w.show();
    w.field("name")->setText("bad");
    w.field("folder")->setText(dir.filePath("p"));
    QVERIFY(advanceTo(w, 1));
    w.setSource(NewProjectWizard::Source(source));
    w.field("path")->setText(path);
    if (advanceTo(w, 3)) {
      // Accepted as a file: the check finds it unusable and Finish stays off.
      QTRY_VERIFY_WITH_TIMEOUT(w.checkFinished(), 30000);
      QVERIFY(!w.datasetUsable());
      QVERIFY(!w.button(QWizard::FinishButton)->isEnabled());
      QVERIFY2(w.checkText().contains(expected), qPrintable(w.checkText()));
    } else {
      const QString problem = w.findChild<QLabel*>("datasetProblem")->text();
      QVERIFY2(problem.contains(expected), qPrintable(problem));
    }
    QVERIFY(!QFile::exists(dir.filePath("p/bad.stave")));
  }

  void imagesFolderWithoutLabels() {
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath("pics"));
    QImage img(8, 8, QImage::Format_RGB888);
    img.fill(Qt::red);
    QVERIFY(img.save(dir.filePath("pics/a.png")));
    const auto found = stave::studio::inspectImagesFolder(dir.filePath("pics"));
    QCOMPARE(found.imageCount, 1);
    QVERIFY2(found.problem.contains("no YOLO label files"), qPrintable(found.problem));
    QVERIFY(!stave::studio::inspectImagesFolder(dir.filePath("none")).problem.isEmpty());
  }

  void demoProjectIsMadeOnFirstUse() {
    QTemporaryDir dir;
    stave::widgets::MainWindow w;
    w.startPage()->demoMaker()->setExecutable(STAVE_TRAIN_EXE);
    w.startPage()->openDemo(dir.filePath("demo"));
    QTRY_VERIFY_WITH_TIMEOUT(w.document()->isOpen(), 60000);
    QCOMPARE(w.document()->name(), QString("demo"));
    QCOMPARE(w.document()->config("default")->getInt("imgsz"), int64_t(160));
    QVERIFY(QFile::exists(dir.filePath("demo/data/data.yaml")));
    // The second time it is found, not made again.
    const auto made = QFileInfo(dir.filePath("demo/demo.stave")).lastModified();
    w.closeProject();
    w.startPage()->openDemo(dir.filePath("demo"));
    QTRY_VERIFY(w.document()->isOpen());
    QCOMPARE(QFileInfo(dir.filePath("demo/demo.stave")).lastModified(), made);
    // A stave-train that cannot run: the start screen says why.
    w.closeProject();
    w.startPage()->demoMaker()->setExecutable(dir.filePath("no-such-stave-train"));
    w.startPage()->openDemo(dir.filePath("demo2"));
    QVERIFY(w.startPage()->statusLabel()->text().contains("could not be made"));
  }
};

QTEST_MAIN(TestStartWizard)
#include "tst_start_wizard.moc"
