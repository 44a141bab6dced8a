#include <QComboBox>
#include <QDir>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProcess>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include "gui/gui_test_util.h"

#include "core/studio/run/predict_job.h"
#include "core/studio/project/project_document.h"
#include "widgets/predict_dialog.h"

using stave::widgets::PredictDialog;

// Predict… on a checkpoint trained for one epoch by the real stave-train: results with boxes,
// the confidence slider and class toggles filter them, saving writes the annotated images, a
// file that is no checkpoint, or a folder without images, gives stave-train's error; a checkpoint
// of another class count is labelled with its own classes and the difference is said.
class TestPredictDialog : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  QString m_project;

 private slots:
  void initTestCase() {
    m_project = stave::guitest::makeTinyProject(m_dir);
    QVERIFY(!m_project.isEmpty());
    QVERIFY(!stave::guitest::trainOnce(m_dir, m_project).isEmpty());
    // A second project whose dataset has two classes, not the checkpoint's five.
    QFile two(m_dir.filePath("data/two.yaml"));
    QVERIFY(two.open(QIODevice::WriteOnly));
    two.write("path: .\ntrain: images/train\nval: images/val\nnc: 2\nnames: [apple, pear]\n");
    two.close();
    QVERIFY(stave::guitest::runTrain({"new-project", m_dir.filePath("other"), "--name", "other",
                                      "--data", m_dir.filePath("data/two.yaml"), "imgsz=64"}));
  }

  void predictFilterAndSave() {
    stave::studio::ProjectDocument doc;
    QVERIFY(doc.open(m_project));
    PredictDialog d(&doc);
    d.job()->setExecutable(STAVE_TRAIN_EXE);
    // The project's checkpoints are offered.
    // (when read: off the GUI thread)
    QTRY_VERIFY_WITH_TIMEOUT(d.checkpointBox()->findText(m_dir.filePath("proj/runs/r1/weights/last.pt")) >= 0, 20000);
    d.checkpointBox()->setCurrentText(m_dir.filePath("proj/runs/r1/weights/last.pt"));
    d.sourceEdit()->setText(m_dir.filePath("data/images/val"));
    QVERIFY2(d.run(), qPrintable(d.statusLabel()->text()));
    QTRY_VERIFY_WITH_TIMEOUT(d.job()->outcome() != stave::studio::PredictJob::Outcome::Running,
                             120000);
    QCOMPARE(int(d.job()->outcome()), int(stave::studio::PredictJob::Outcome::Completed));
    QCOMPARE(d.imageList()->count(), 4);
    QVERIFY(d.job()->outDir().endsWith("runs/detect/predict"));
    // The checkpoint's class names label the boxes; the output folder is named in the dialog.
    const QStringList names{"circle", "rectangle", "triangle", "ellipse", "cross"};
    QCOMPARE(d.job()->names(), names);
    QCOMPARE(d.classNames(), names);
    QVERIFY2(d.statusLabel()->text().contains(QDir::toNativeSeparators(d.job()->outDir())),
             qPrintable(d.statusLabel()->text()));
    QVERIFY(d.findChild<QLabel*>("predictOut")->text().endsWith("predict2"));
    // All detections at the lowest setting; fewer or as many as the slider rises; none at 1.0.
    const QString image = d.job()->images().first();
    int total = 0;
    for (const auto& v : d.job()->detections()) total += v.size();
    QVERIFY2(total > 0, "the one-epoch model found nothing at confidence 0.001");
    d.confidenceSlider()->setValue(0);
    int previous = 0;
    for (const QString& im : d.job()->images()) previous += d.visible(im).size();
    QCOMPARE(previous, total);
    for (int v = 1; v <= 100; v += 3) {
      d.confidenceSlider()->setValue(v);
      int now = 0;
      for (const QString& im : d.job()->images()) now += d.visible(im).size();
      QVERIFY(now <= previous);
      previous = now;
    }
    d.confidenceSlider()->setValue(100);
    for (const QString& im : d.job()->images())
      QVERIFY(d.visible(im).isEmpty() || d.visible(im).first().conf >= 1.0);
    // A class unticked: none of its boxes are shown.
    d.confidenceSlider()->setValue(0);
    int cls = -1;
    for (const auto& det : d.job()->detections().value(image)) cls = det.cls;
    QVERIFY(cls >= 0 && cls < d.classList()->count());
    const int before = d.visible(image).size();
    d.classList()->item(cls)->setCheckState(Qt::Unchecked);
    for (const auto& det : d.visible(image)) QVERIFY(det.cls != cls);
    QVERIFY(d.visible(image).size() < before);
    // What is drawn follows the filters: the annotated image changes when a class is hidden.
    const QImage without = d.annotated(image);
    d.classList()->item(cls)->setCheckState(Qt::Checked);
    const QImage with = d.annotated(image);
    QVERIFY(!with.isNull() && with.size() == QImage(image).size());
    QVERIFY(with != without);
    d.classList()->item(cls)->setCheckState(Qt::Unchecked);
    // Saving: one annotated image per result.
    QString error;
    QCOMPARE(d.saveAnnotated(m_dir.filePath("annotated"), &error), 4);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const QStringList saved = QDir(m_dir.filePath("annotated")).entryList(QDir::Files);
    QCOMPARE(saved.size(), 4);
    for (const QString& name : saved) QVERIFY2(name.endsWith(".png"), qPrintable(name));
    QVERIFY(!QImage(m_dir.filePath("annotated/" + saved.first())).isNull());
    // A second run goes into predict2.
    QVERIFY(d.run());
    QTRY_VERIFY_WITH_TIMEOUT(d.job()->outcome() != stave::studio::PredictJob::Outcome::Running,
                             120000);
    QVERIFY(d.job()->outDir().endsWith("runs/detect/predict2"));
  }

  // A checkpoint of another class count: its own names are shown, and the dialog says so.
  void otherClassCountIsExplained() {
    stave::studio::ProjectDocument doc;
    QVERIFY(doc.open(m_dir.filePath("other/other.stave")));
    PredictDialog d(&doc);
    d.job()->setExecutable(STAVE_TRAIN_EXE);
    QCOMPARE(d.classNames(), QStringList({"apple", "pear"}));
    d.checkpointBox()->setCurrentText(m_dir.filePath("proj/runs/r1/weights/last.pt"));
    d.sourceEdit()->setText(m_dir.filePath("data/images/val"));
    d.imgszBox()->setValue(96);
    QVERIFY2(d.run(), qPrintable(d.statusLabel()->text()));
    QTRY_VERIFY_WITH_TIMEOUT(!d.job()->isRunning(), 120000);
    QCOMPARE(int(d.job()->outcome()), int(stave::studio::PredictJob::Outcome::Completed));
    QCOMPARE(d.classNames().size(), 5);
    QCOMPARE(d.classList()->count(), 5);
    QVERIFY2(d.statusLabel()->text().contains("checkpoint: 5"),
             qPrintable(d.statusLabel()->text()));
    QVERIFY(d.job()->outDir().startsWith(m_dir.filePath("other/runs/detect/predict")));
  }

  void cancelStopsTheRun() {
    stave::studio::ProjectDocument doc;
    QVERIFY(doc.open(m_project));
    PredictDialog d(&doc);
    d.job()->setExecutable(STAVE_TRAIN_EXE);
    d.checkpointBox()->setCurrentText(m_dir.filePath("proj/runs/r1/weights/last.pt"));
    d.sourceEdit()->setText(m_dir.filePath("data/images"));
    QVERIFY(d.run());
    d.job()->cancel();
    QTRY_VERIFY_WITH_TIMEOUT(!d.job()->isRunning(), 30000);
    QCOMPARE(int(d.job()->outcome()), int(stave::studio::PredictJob::Outcome::Stopped));
    QCOMPARE(d.statusLabel()->text(), QString("Cancelled."));
    QCOMPARE(d.imageList()->count(), 0);
  }

  void badCheckpointIsReported() {
    stave::studio::ProjectDocument doc;
    QVERIFY(doc.open(m_project));
    PredictDialog d(&doc);
    d.job()->setExecutable(STAVE_TRAIN_EXE);
    const QString notes = m_dir.filePath("notes.pt");
    QFile f(notes);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("these are notes, not weights");
    f.close();
    d.checkpointBox()->setCurrentText(notes);
    d.sourceEdit()->setText(m_dir.filePath("data/images/val"));
    QVERIFY(d.run());
    QTRY_VERIFY_WITH_TIMEOUT(d.job()->outcome() != stave::studio::PredictJob::Outcome::Running,
                             120000);
    QCOMPARE(int(d.job()->outcome()), int(stave::studio::PredictJob::Outcome::Failed));
    QVERIFY2(d.statusLabel()->text().contains("notes.pt"), qPrintable(d.statusLabel()->text()));
    QCOMPARE(d.imageList()->count(), 0);
    // A folder without images: stave-train's error, shown.
    QVERIFY(QDir(m_dir.path()).mkpath("empty"));
    d.checkpointBox()->setCurrentText(m_dir.filePath("proj/runs/r1/weights/last.pt"));
    d.sourceEdit()->setText(m_dir.filePath("empty"));
    QVERIFY(d.run());
    QTRY_VERIFY_WITH_TIMEOUT(!d.job()->isRunning(), 120000);
    QCOMPARE(int(d.job()->outcome()), int(stave::studio::PredictJob::Outcome::Failed));
    QVERIFY2(d.statusLabel()->text().contains("no images"), qPrintable(d.statusLabel()->text()));
    // Missing inputs are refused before anything runs.
    d.sourceEdit()->setText(m_dir.filePath("no/such/folder"));
    QVERIFY(!d.run());
    QVERIFY(d.statusLabel()->text().contains("does not exist"));
  }
};

QTEST_MAIN(TestPredictDialog)
#include "tst_predict_dialog.moc"
