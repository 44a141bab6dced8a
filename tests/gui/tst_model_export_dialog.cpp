// File ▸ Export Model… on a checkpoint trained for one epoch by the real stave-train: ONNX with
// its settings, Ultralytics' and Stave's checkpoints; the result's path and stave-train's check
// summary shown, sizes in MiB; an existing file, a bad size and float16 without a GPU refused
// with the reason, in the dialog's words, and nothing written; float16 not offered where the
// studio knows there is no GPU.

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProcess>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include "gui/gui_test_util.h"

#include "core/studio/engine_text.h"
#include "core/studio/run/model_export_job.h"
#include "core/studio/project/project_document.h"
#include "widgets/model_export_dialog.h"

using stave::studio::ModelExportJob;
using stave::studio::ModelExportOptions;
using stave::widgets::ModelExportDialog;
using Outcome = ModelExportJob::Outcome;


class TestModelExportDialog : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  QString m_project, m_ckpt;

  bool exportAndWait(ModelExportDialog& d) {
    if (!d.exportModel()) return false;
    for (int i = 0; i < 1200 && d.job()->isRunning(); ++i) QTest::qWait(100);
    return !d.job()->isRunning();
  }

 private slots:
  void initTestCase() {
    m_project = stave::guitest::makeTinyProject(m_dir);
    QVERIFY(!m_project.isEmpty());
    m_ckpt = stave::guitest::trainOnce(m_dir, m_project);
    QVERIFY(!m_ckpt.isEmpty());
  }

  void argumentsFollowTheFormat() {
    ModelExportOptions o;
    o.dynamic = true;
    o.batch = 4;  // ignored: a dynamic model takes any batch
    o.imgsz = 320;
    QCOMPARE(ModelExportJob::arguments("a.pt", "a.onnx", o),
             (QStringList{"export-weights", "a.pt", "--format", "onnx", "--out", "a.onnx",
                          "--imgsz", "320", "--dynamic", "--opset", "17"}));
    o.format = "ultralytics";
    o.force = true;
    QCOMPARE(ModelExportJob::arguments("a.pt", "b.pt", o),
             (QStringList{"export-weights", "a.pt", "--format", "ultralytics", "--out", "b.pt",
                          "--force"}));
    QCOMPARE(ModelExportJob::defaultOutput("/r/weights/best.pt", "onnx"),
             QString("/r/weights/best.onnx"));
    QCOMPARE(ModelExportJob::defaultOutput("/r/weights/best.pt", "stave"),
             QString("/r/weights/best-weights.pt"));
  }

  void exportsEachFormat() {
    stave::studio::ProjectDocument doc;
    QVERIFY(doc.open(m_project));
    ModelExportDialog d(&doc);
    d.job()->setExecutable(STAVE_TRAIN_EXE);
    // The project's checkpoints come when read (off the GUI thread).
    QTRY_VERIFY_WITH_TIMEOUT(d.checkpointBox()->findText(m_ckpt) >= 0, 20000);
    d.checkpointBox()->setCurrentText(m_ckpt);
    // ONNX first, with its settings shown, written beside the checkpoint by default.
    QCOMPARE(d.formatBox()->currentData().toString(), QString("onnx"));
    QVERIFY(!d.onnxGroup()->isHidden());
    const QString onnx = m_dir.filePath("proj/runs/r1/weights/last.onnx");
    QCOMPARE(d.outputEdit()->text(), onnx);
    d.batchBox()->setValue(2);
    QVERIFY(exportAndWait(d));
    QCOMPARE(int(d.job()->outcome()), int(Outcome::Completed));
    QVERIFY(QFileInfo(onnx).size() > 1000000);
    const QString shown = d.resultLabel()->text();
    QVERIFY2(shown.contains(QDir::toNativeSeparators(onnx)) &&
                 shown.contains("checked by the ONNX checker") &&
                 shown.contains("images float32 (2, 3, 64, 64)") && !shown.contains("wrote "),
             qPrintable(shown));
    // Its size for a person, not in bytes.
    QVERIFY2(!shown.contains(" bytes") && shown.contains(QLocale().formattedDataSize(QFileInfo(onnx).size(), 1)),
             qPrintable(shown));
    // Dynamic shapes: the batch box is off; the summary says so.
    d.dynamicBox()->setChecked(true);
    QVERIFY(!d.batchBox()->isEnabled());
    d.replaceBox()->setChecked(true);
    QVERIFY(exportAndWait(d));
    QVERIFY2(d.resultLabel()->text().contains("(batch, 3, height, width)"),
             qPrintable(d.resultLabel()->text()));

    // Ultralytics: no ONNX settings; the output follows the format.
    d.formatBox()->setCurrentIndex(d.formatBox()->findData("ultralytics"));
    QVERIFY(d.onnxGroup()->isHidden());
    QCOMPARE(d.outputEdit()->text(), m_dir.filePath("proj/runs/r1/weights/last-ultralytics.pt"));
    QVERIFY(exportAndWait(d));
    QCOMPARE(int(d.job()->outcome()), int(Outcome::Completed));
    QVERIFY2(d.resultLabel()->text().contains("yolov8n.yaml"), qPrintable(d.resultLabel()->text()));

    // Stave, to a file the user typed: kept when the format changes.
    const QString typed = m_dir.filePath("mine.pt");
    d.formatBox()->setCurrentIndex(d.formatBox()->findData("stave"));
    d.outputEdit()->setText(typed);
    d.formatBox()->setCurrentIndex(d.formatBox()->findData("ultralytics"));
    d.formatBox()->setCurrentIndex(d.formatBox()->findData("stave"));
    QCOMPARE(d.outputEdit()->text(), typed);
    QVERIFY(exportAndWait(d));
    QCOMPARE(int(d.job()->outcome()), int(Outcome::Completed));
    QVERIFY(QFileInfo(typed).size() < QFileInfo(m_ckpt).size());
    const QString stave = d.resultLabel()->text();
    QVERIFY2(stave.contains(QString("(%1; %2 before)")
                                .arg(QLocale().formattedDataSize(QFileInfo(typed).size(), 1),
                                     QLocale().formattedDataSize(QFileInfo(m_ckpt).size(), 1))),
             qPrintable(stave));
  }

  // Issue 43 §5.8: where the studio knows the machine has no GPU, float16 (checked on a GPU
  // before it is written) is not offered, and says why.
  void noGpuNoFloat16() {
    stave::studio::ProjectDocument doc;
    QVERIFY(doc.open(m_project));
    ModelExportDialog d(&doc);
    QVERIFY(d.halfBox()->isEnabled());  // not known: offered (stave-train refuses where it must)
    d.halfBox()->setChecked(true);
    d.setNoGpu("NVML not found (no NVIDIA driver?)");
    QVERIFY(!d.halfBox()->isEnabled());
    QVERIFY(!d.halfBox()->isChecked());
    QVERIFY(!d.options().half);
    QVERIFY2(d.halfBox()->toolTip().contains("this machine has no GPU (NVML not found (no NVIDIA driver?))"),
             qPrintable(d.halfBox()->toolTip()));
    QVERIFY2(d.halfBox()->text().contains("this machine has none"), qPrintable(d.halfBox()->text()));
    QVERIFY(!ModelExportJob::arguments("a.pt", "a.onnx", d.options()).contains("--half"));
  }

  // stave-train --json's refusals, by their catalog ids (never by matching the English).
  void refusalsInTheDialogsWords_data() {
    QTest::addColumn<QString>("id");
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("studio");
    QTest::newRow("exists") << "output.exists" << "/p/m.onnx" << "--out" << ""
                            << "/p/m.onnx already exists. Tick “Replace the file if it exists” to write over it.";
    QTest::newRow("folder") << "output.is_folder" << "/p/out" << "--out" << ""
                            << "/p/out is a folder; choose a file name.";
    QTest::newRow("no gpu")
        << "export.half_no_gpu" << "" << "half" << "no CUDA device: the driver is absent"
        << "A float16 model is checked on a GPU before it is written, and this machine has none (no CUDA device: the "
           "driver is absent). Untick Float16 to export float32, or export on a machine with a GPU.";
    QTest::newRow("other, as stave-train says it")
        << "export.no_checkpoint" << "/p/data.pt" << "" << "" << "/p/data.pt: no such checkpoint";
    QTest::newRow("no id: the English") << "" << "/p/data.yaml" << "" << "" << "/p/data.yaml: not a checkpoint";
  }
  void refusalsInTheDialogsWords() {
    QFETCH(QString, id);
    QFETCH(QString, file);
    QFETCH(QString, key);
    QFETCH(QString, reason);
    QFETCH(QString, studio);
    stave::Error e{file.toStdString(), 0, key.toStdString(), "not a checkpoint"};
    if (!id.isEmpty())
      e = stave::textError(file.toStdString(), 0, key.toStdString(),
                           stave::Text(id.toStdString(), {{"reason", reason.toStdString()}}));
    QCOMPARE(ModelExportJob::studioWords(e), studio);
  }

  // Sizes are catalog arguments that the studio writes for a person, whatever the language.
  void sizesForAPerson() {
    using stave::Text;
    const Text size("size.bytes", {{"bytes", "12079274"}});
    QCOMPARE(stave::studio::engineText(size), QLocale().formattedDataSize(12079274, 1));
    const QLocale keep;
    QLocale::setDefault(QLocale(QLocale::English));
    QCOMPARE(stave::studio::engineText(size), QString("11.5 MiB"));
    QLocale::setDefault(keep);
    const Text stave("export.stave", {{"size", Text("size.bytes", {{"bytes", "6000000"}})},
                                      {"before", Text("size.number", {{"bytes", "18000000"}})}});
    QVERIFY(stave::english(stave).find("(6000000 bytes; 18000000 before)") != std::string::npos);
    QVERIFY2(stave::studio::engineText(stave).contains(
                 QString("(%1; %2 before)")
                     .arg(QLocale().formattedDataSize(6000000, 1), QLocale().formattedDataSize(18000000, 1))),
             qPrintable(stave::studio::engineText(stave)));
  }

  void refusalsWriteNothing() {
    stave::studio::ProjectDocument doc;
    QVERIFY(doc.open(m_project));
    ModelExportDialog d(&doc);
    d.job()->setExecutable(STAVE_TRAIN_EXE);
    d.checkpointBox()->setCurrentText(m_ckpt);
    const QString out = m_dir.filePath("refused/m.onnx");
    QDir().mkpath(m_dir.filePath("refused"));
    d.outputEdit()->setText(out);
    // A size that is not a multiple of 32 is caught before stave-train runs.
    d.imgszBox()->setValue(100);
    QVERIFY(!d.exportModel());
    QVERIFY2(d.resultLabel()->text().contains("multiple of 32"),
             qPrintable(d.resultLabel()->text()));
    d.imgszBox()->setValue(0);
    // Float16 needs a GPU to be checked on: refused here with the reason (written where one is).
    d.halfBox()->setChecked(true);
    QVERIFY(exportAndWait(d));
    if (d.job()->outcome() == Outcome::Failed) {
      QVERIFY2(d.resultLabel()->text().contains("Not exported") &&
                   d.resultLabel()->text().contains("Untick Float16") &&
                   !d.resultLabel()->text().contains("--half"),
               qPrintable(d.resultLabel()->text()));
      QVERIFY(QDir(m_dir.filePath("refused")).isEmpty());
    }
    d.halfBox()->setChecked(false);
    // An existing file is replaced only when asked.
    QFile(out).open(QIODevice::WriteOnly);
    QVERIFY(exportAndWait(d));
    QCOMPARE(int(d.job()->outcome()), int(Outcome::Failed));
    QVERIFY2(d.resultLabel()->text().contains("already exists") &&
                 d.resultLabel()->text().contains("Replace the file if it exists") &&
                 !d.resultLabel()->text().contains("--force") &&
                 !d.resultLabel()->text().contains("stave-train"),
             qPrintable(d.resultLabel()->text()));
    QCOMPARE(QFileInfo(out).size(), 0);
    // Not a checkpoint.
    d.checkpointBox()->setCurrentText(m_dir.filePath("data/data.yaml"));
    d.outputEdit()->setText(m_dir.filePath("refused/x.onnx"));
    QVERIFY(exportAndWait(d));
    QCOMPARE(int(d.job()->outcome()), int(Outcome::Failed));
    QVERIFY2(d.resultLabel()->text().contains("data.yaml"), qPrintable(d.resultLabel()->text()));
    QVERIFY(!QFile::exists(m_dir.filePath("refused/x.onnx")));
  }
};

QTEST_MAIN(TestModelExportDialog)
#include "tst_model_export_dialog.moc"
