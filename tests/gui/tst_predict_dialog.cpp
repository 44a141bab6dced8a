#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProcess>
#include <QSlider>
#include <QTemporaryDir>
#include <QtTest>

#include "core/studio/predict_job.h"
#include "core/studio/project_document.h"
#include "widgets/predict_dialog.h"

using stave::widgets::PredictDialog;

namespace {
bool runTrain(const QStringList& args) {
  QProcess p;
  p.start(STAVE_TRAIN_EXE, args);
  const bool ok = p.waitForFinished(300000) && p.exitCode() == 0;
  if (!ok) qWarning() << p.readAllStandardError();
  return ok;
}
}  // namespace

// Predict… on a checkpoint trained for one epoch by the real stave-train: results with boxes,
// the confidence slider and class toggles filter them, saving writes the annotated images, a
// file that is no checkpoint gives stave-train's error.
class TestPredictDialog : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  QString m_project;

 private slots:
  void initTestCase() {
    QVERIFY(runTrain({"make-demo", "--out", m_dir.filePath("data"), "--train", "8", "--val", "4",
                      "--imgsz", "64"}));
    QVERIFY(runTrain({"new-project", m_dir.filePath("proj"), "--name", "proj", "--data",
                      m_dir.filePath("data/data.yaml"), "imgsz=64", "batch=4", "epochs=1",
                      "devices=cpu", "workers=0", "warmup_epochs=0", "threads=1", "val=false"}));
    m_project = m_dir.filePath("proj/proj.stave");
    QVERIFY(
        runTrain({"train", "--project", m_project, "--run-dir", m_dir.filePath("proj/runs/r1")}));
    QVERIFY(QFile::exists(m_dir.filePath("proj/runs/r1/weights/last.pt")));
  }

  void predictFilterAndSave() {
    stave::studio::ProjectDocument doc;
    QVERIFY(doc.open(m_project));
    PredictDialog d(&doc);
    d.job()->setExecutable(STAVE_TRAIN_EXE);
    // The project's checkpoints are offered.
    QVERIFY(d.checkpointBox()->findText(m_dir.filePath("proj/runs/r1/weights/last.pt")) >= 0);
    d.checkpointBox()->setCurrentText(m_dir.filePath("proj/runs/r1/weights/last.pt"));
    d.sourceEdit()->setText(m_dir.filePath("data/images/val"));
    QVERIFY2(d.run(), qPrintable(d.statusLabel()->text()));
    QTRY_VERIFY_WITH_TIMEOUT(d.job()->outcome() != stave::studio::PredictJob::Outcome::Running,
                             120000);
    QCOMPARE(int(d.job()->outcome()), int(stave::studio::PredictJob::Outcome::Finished));
    QCOMPARE(d.imageList()->count(), 4);
    QVERIFY(d.job()->outDir().endsWith("runs/detect/predict"));
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
    d.classList()->item(cls)->setCheckState(Qt::Unchecked);
    for (const auto& det : d.visible(image)) QVERIFY(det.cls != cls);
    // Saving: one annotated image per result.
    QString error;
    QCOMPARE(d.saveAnnotated(m_dir.filePath("annotated"), &error), 4);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(QDir(m_dir.filePath("annotated")).entryList(QDir::Files).size(), 4);
    // A second run goes into predict2.
    QVERIFY(d.run());
    QTRY_VERIFY_WITH_TIMEOUT(d.job()->outcome() != stave::studio::PredictJob::Outcome::Running,
                             120000);
    QVERIFY(d.job()->outDir().endsWith("runs/detect/predict2"));
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
    // Missing inputs are refused before anything runs.
    d.sourceEdit()->setText(m_dir.filePath("no/such/folder"));
    QVERIFY(!d.run());
    QVERIFY(d.statusLabel()->text().contains("does not exist"));
  }
};

QTEST_MAIN(TestPredictDialog)
#include "tst_predict_dialog.moc"
