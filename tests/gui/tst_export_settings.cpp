#include <QComboBox>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "common/project_fixture.h"
#include "core/studio/project/preferences.h"
#include "core/studio/project/project_document.h"
#include "widgets/export_dialog.h"
#include "widgets/main_window.h"
#include "widgets/settings_dialog.h"

using stave::config::ExportFormat;

namespace {
// What `stave-train export` prints for the same project, config and options.
QString cliExport(const QString& project, const QString& format, const QStringList& extra) {
  QProcess p;
  p.start(STAVE_TRAIN_EXE,
          QStringList{"export", project, "--config", "default", "--format", format} + extra);
  if (!p.waitForFinished(60000) || p.exitCode() != 0)
    qWarning() << "stave-train export failed:" << p.readAllStandardError();
  return QString::fromUtf8(p.readAllStandardOutput());
}
}  // namespace

// File > Export… writes what the CLI writes; Settings… stores valid preferences only; File >
// Save As… and the unsaved-changes question.
class TestExportSettings : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
  }

  void exportMatchesTheCli_data() {
    QTest::addColumn<int>("format");
    QTest::addColumn<QString>("name");
    QTest::newRow("yaml") << int(ExportFormat::Yaml) << "yaml";
    QTest::newRow("json") << int(ExportFormat::Json) << "json";
    QTest::newRow("ultralytics") << int(ExportFormat::Ultralytics) << "ultralytics";
    QTest::newRow("shell") << int(ExportFormat::Shell) << "shell";
    QTest::newRow("slurm") << int(ExportFormat::Slurm) << "slurm";
    QTest::newRow("k8s") << int(ExportFormat::K8s) << "k8s";
  }
  void exportMatchesTheCli() {
    QFETCH(int, format);
    QFETCH(QString, name);
    QTemporaryDir dir;
    stave::studio::ProjectDocument doc;
    QVERIFY(doc.open(stave::testing::makeProject(dir)));
    stave::widgets::ExportDialog dialog(&doc);
    dialog.setFormat(static_cast<ExportFormat>(format));
    QStringList extra;
    if (name == "slurm" || name == "k8s") {
      dialog.nodesBox()->setValue(2);
      extra << "--nodes"
            << "2";
    }
    if (name == "slurm") {
      dialog.timeEdit()->setText("2:00:00");
      dialog.findChild<QLineEdit*>("exportAccount")->setText("vision-lab");
      extra << "--time"
            << "2:00:00"
            << "--account"
            << "vision-lab";
    }
    if (name == "k8s") {
      // A value with shell metacharacters: quoted the same way on both sides.
      dialog.imageEdit()->setText("registry.example/stave:1 $(touch x)");
      extra << "--image"
            << "registry.example/stave:1 $(touch x)";
    }
    QVERIFY2(dialog.problems().isEmpty(), qPrintable(dialog.problems()));
    QVERIFY(!dialog.text().isEmpty());
    QCOMPARE(dialog.text(), cliExport(doc.path(), name, extra));

    const QString out = dir.filePath("out/" + name + ".txt");
    QString suggested;
    dialog.askSavePath = [&](const QString& suggestion) {
      suggested = suggestion;
      return out;
    };
    QPushButton* save = nullptr;
    for (auto* b : dialog.findChildren<QPushButton*>())
      if (b->text() == "Save As…") save = b;
    QVERIFY(save && save->isEnabled());
    save->click();
    // The suggestion is the format's usual file name beside the project.
    QCOMPARE(suggested, dir.filePath(QString::fromLatin1(stave::config::defaultExportFileName(
                            static_cast<ExportFormat>(format)))));
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(f.readAll()), dialog.text());
    const bool script = name == "shell" || name == "slurm";
    QCOMPARE(bool(QFileInfo(out).permissions() & QFile::ExeOwner), script);
  }

  void exportNamesBadOptions() {
    QTemporaryDir dir;
    stave::studio::ProjectDocument doc;
    QVERIFY(doc.open(stave::testing::makeProject(dir)));
    stave::widgets::ExportDialog dialog(&doc);
    dialog.setFormat(ExportFormat::K8s);
    QVERIFY(dialog.text().isEmpty());
    QVERIFY2(dialog.problems().contains("image"), qPrintable(dialog.problems()));
    dialog.setFormat(ExportFormat::Slurm);
    dialog.nodesBox()->setValue(0);
    QVERIFY2(dialog.problems().contains("nodes"), qPrintable(dialog.problems()));
    QVERIFY(!dialog.saveTo(dir.filePath("never.sbatch")));
    QVERIFY(!QFileInfo::exists(dir.filePath("never.sbatch")));
    // The dataset disappears: the problem names it.
    dialog.nodesBox()->setValue(1);
    QVERIFY(dialog.problems().isEmpty());
    QVERIFY(QFile::remove(dir.filePath("data.yaml")));
    dialog.setFormat(ExportFormat::Yaml);
    QVERIFY2(dialog.problems().contains("dataset not found"), qPrintable(dialog.problems()));
  }

  void settingsStoreOnlyValidValues() {
    QSettings().clear();
    stave::widgets::SettingsDialog dialog;
    auto* devices = dialog.findChild<QLineEdit*>("devices");
    auto* port = dialog.findChild<QSpinBox*>("metricsPort");
    auto* language = dialog.findChild<QComboBox*>("language");
    QVERIFY(devices && port && language);
    devices->setText("first");
    port->setValue(9400);
    QVERIFY(!dialog.apply());
    QVERIFY(dialog.problemLabel()->isVisibleTo(&dialog));
    QVERIFY2(dialog.problemLabel()->text().contains("devices"),
             qPrintable(dialog.problemLabel()->text()));
    QCOMPARE(stave::studio::Preferences::load().metricsPort, 0);  // nothing stored
    devices->setText("0,1");
    language->setCurrentIndex(language->findData("zh_CN"));
    QVERIFY(dialog.apply());
    const auto p = stave::studio::Preferences::load();
    QCOMPARE(p.devices, QString("0,1"));
    QCOMPARE(p.metricsPort, 9400);
    QCOMPARE(p.language, QString("zh_CN"));
    // A fresh dialog shows what is stored.
    stave::widgets::SettingsDialog again;
    QCOMPARE(again.findChild<QSpinBox*>("metricsPort")->value(), 9400);
    QSettings().clear();
  }

  void saveAsAndUnsavedQuestion() {
    QTemporaryDir dir;
    const QString path = stave::testing::makeProject(dir);
    stave::widgets::MainWindow w;
    QVERIFY(w.openProject(path));
    QCOMPARE(stave::studio::RecentProjects::list().value(0), QFileInfo(path).absoluteFilePath());
    auto cfg = *w.document()->config("default");
    QVERIFY(cfg.set("epochs", int64_t(7)).ok());
    w.document()->setConfig("default", cfg);
    QVERIFY(w.document()->isDirty());
    int asked = 0;
    w.askUnsaved = [&] {
      ++asked;
      return int(QMessageBox::Cancel);
    };
    QVERIFY(!w.maybeSave());
    QCOMPARE(asked, 1);
    QVERIFY(w.document()->isDirty());
    w.askUnsaved = [&] {
      ++asked;
      return int(QMessageBox::Discard);
    };
    QVERIFY(w.maybeSave());
    QVERIFY(w.saveProjectAs(dir.filePath("copy.stave")));
    QVERIFY(!w.document()->isDirty());
    QCOMPARE(w.document()->path(), dir.filePath("copy.stave"));
    QVERIFY(w.windowTitle().contains("demo"));
    stave::studio::ProjectDocument reread;
    QVERIFY(reread.open(dir.filePath("copy.stave")));
    QCOMPARE(reread.config("default")->getInt("epochs"), int64_t(7));
    QCOMPARE(stave::studio::RecentProjects::list().value(0), dir.filePath("copy.stave"));
    // Nothing unsaved: no question.
    QVERIFY(w.maybeSave());
    QCOMPARE(asked, 2);
  }
};

QTEST_MAIN(TestExportSettings)
#include "tst_export_settings.moc"
