// The engine's words along the paths by which they reach the studio, in Chinese (issue 43 §4):
// a run trained by the real stave-train, its outcome in History; the summary and a refusal of
// `stave-train export-weights` (Export Model); the problems of `stave-train predict` (Predict);
// a project file and a run config that cannot be read (file, line, key as they are, the reason
// in Chinese); a checkpoint that cannot be read (Export Model), a run config of the wrong type,
// cluster profiles that cannot be used, a launcher that cannot start, the history database and
// its warnings (History's and the Run page's), the dataset scan's problems and the wizard's
// dataset report, a label file that
// cannot be saved (the label editor's and Label issues' refusals), an issues CSV or its companion
// file that cannot be used, why an event was skipped (the reasons inside), why the Hardware page
// sees no GPU, a cluster behind SSH that cannot be reached or asked (OpenSSH's and Slurm's own
// words kept as they are). Each path that still showed English under zh_CN fails here;
// tst_engine_text checks that every catalog id has a translation.

#include <QDir>
#include <QFile>
#include <QLocale>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTranslator>
#include <QtTest>

#include "gui/gui_test_util.h"

#include "core/cluster/mirror.h"
#include "core/cluster/profile.h"
#include "core/cluster/remote_job.h"
#include "core/cluster/ssh.h"
#include "core/config/run_config.h"
#include "core/data/label_edits.h"
#include "core/data/label_fix_batch.h"
#include "core/data/label_fixes.h"
#include "core/data/label_issues.h"
#include "core/studio/project/cluster_profile.h"
#include "core/studio/models/dataset_scan.h"
#include "core/studio/engine_text.h"
#include "core/studio/hardware/hardware_monitor.h"
#include "core/studio/models/history_model.h"
#include "core/studio/run/model_export_job.h"
#include "core/studio/run/predict_job.h"
#include "core/studio/project/new_project.h"
#include "core/studio/project/project_document.h"
#include "core/studio/project/settings_proposal.h"
#include "core/studio/regular_file.h"
#include "core/studio/run/run_controller.h"
#include "core/studio/run/slurm_job.h"
#include "core/studio/models/stored_run.h"
#include "core/studio/models/validation_data.h"
#include "core/telemetry/gpu_inventory.h"
#include "tests/common/validation_fixture.h"

using stave::studio::HistoryModel;
using stave::studio::ModelExportJob;
using stave::studio::PredictJob;

namespace {

bool hasHan(const QString& s) {
  for (const QChar c : s)
    if (c.unicode() >= 0x4e00 && c.unicode() <= 0x9fff) return true;
  return false;
}

// English words that the engine's sentences use and that a Chinese one never shows (paths,
// keys and the decoders' own words are arguments, kept as they are).
QString englishLeft(const QString& s, const QStringList& words) {
  for (const QString& w : words)
    if (s.contains(w)) return w;
  return {};
}

}  // namespace

class TestEngineWords : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  QString m_project, m_ckpt;
  QTranslator m_zh;

  template <typename Job>
  static bool waitFor(Job& job) {
    QSignalSpy done(&job, &Job::finished);
    return done.wait(300000);
  }

  void writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
  }

 private slots:
  void initTestCase() {
    m_project = stave::guitest::makeTinyProject(m_dir);
    QVERIFY(!m_project.isEmpty());
    // The run's node telemetry finds no NVML (as on a machine without an NVIDIA GPU), so its
    // events say why in a gpu_sample's status.
    qputenv("STAVE_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1");
    m_ckpt = stave::guitest::trainOnce(m_dir, m_project);
    qunsetenv("STAVE_NVML_LIBRARY");
    QVERIFY(!m_ckpt.isEmpty());
    QVERIFY(m_zh.load(QLocale(QStringLiteral("zh_CN")), QStringLiteral("stave"), QStringLiteral("_"),
                      QStringLiteral(":/i18n")));
    QVERIFY(QCoreApplication::installTranslator(&m_zh));
  }
  void cleanupTestCase() { QCoreApplication::removeTranslator(&m_zh); }

  // History: how the run ended, with its times ("training 1.2 s, validation 0.0 s").
  void historyOutcome() {
    HistoryModel model;
    QString error;
    QVERIFY2(model.open(m_dir.filePath(QStringLiteral("proj")), &error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(!model.refreshing() && model.rowCount() == 1, 60000);
    QVERIFY(!model.run(0).messageText.empty());
    const QString tip = model.index(0, HistoryModel::Status).data(Qt::ToolTipRole).toString();
    QVERIFY2(hasHan(tip) && tip.contains(QStringLiteral("训练")) && tip.contains(QStringLiteral("秒")),
             qPrintable(tip));
    QVERIFY2(englishLeft(tip, {"training", "validation", " s,"}).isEmpty(), qPrintable(tip));
  }

  // Export Model: the summary stave-train --json gives, and a refusal.
  void exportSummaryAndRefusal() {
    ModelExportJob job;
    job.setExecutable(STAVE_TRAIN_EXE);
    const QString out = m_dir.filePath(QStringLiteral("m.onnx"));
    QVERIFY(job.start(m_ckpt, out, {}));
    QVERIFY(waitFor(job));
    QCOMPARE(int(job.outcome()), int(ModelExportJob::Outcome::Completed));
    const QString summary = job.summary();
    QVERIFY2(summary.contains(QStringLiteral("已通过 ONNX 检查器校验")) &&
                 summary.contains(QLocale().formattedDataSize(QFileInfo(out).size(), 1)),
             qPrintable(summary));
    QVERIFY2(englishLeft(summary, {"classes", "checked by", "bytes", "class scores"}).isEmpty(),
             qPrintable(summary));
    // The same file again: refused (the dialog's words, in Chinese), nothing replaced.
    QVERIFY(job.start(m_ckpt, out, {}));
    QVERIFY(waitFor(job));
    QCOMPARE(int(job.outcome()), int(ModelExportJob::Outcome::Failed));
    QVERIFY2(hasHan(job.errorText()) && job.errorText().contains(QDir::toNativeSeparators(out)) &&
                 englishLeft(job.errorText(), {"already exists", "--force"}).isEmpty(),
             qPrintable(job.errorText()));
  }

  // Predict: a file that is not an image among the images.
  void predictProblems() {
    const QString source = m_dir.filePath(QStringLiteral("predict-src"));
    QVERIFY(QDir().mkpath(source));
    const QDir train(m_dir.filePath(QStringLiteral("data/images/train")));
    const QStringList images = train.entryList(QDir::Files);
    QVERIFY(!images.isEmpty());
    QVERIFY(QFile::copy(train.filePath(images.first()), source + QStringLiteral("/good.jpg")));
    QFile broken(source + QStringLiteral("/broken.jpg"));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("not an image at all");
    broken.close();
    PredictJob job;
    job.setExecutable(STAVE_TRAIN_EXE);
    QVERIFY(job.start(m_ckpt, source, m_dir.filePath(QStringLiteral("predict-out"))));
    QVERIFY(waitFor(job));
    QCOMPARE(int(job.outcome()), int(PredictJob::Outcome::Completed));
    QVERIFY2(job.errorText().contains(QStringLiteral("broken.jpg")) &&
                 job.errorText().contains(QStringLiteral("不是可读取的图像")),
             qPrintable(job.errorText()));
    QVERIFY2(englishLeft(job.errorText(), {"not a readable image"}).isEmpty(), qPrintable(job.errorText()));
    // A source with no images at all: the error, in Chinese.
    const QString empty = m_dir.filePath(QStringLiteral("no-images"));
    QVERIFY(QDir().mkpath(empty));
    QVERIFY(job.start(m_ckpt, empty, m_dir.filePath(QStringLiteral("predict-out2"))));
    QVERIFY(waitFor(job));
    QCOMPARE(int(job.outcome()), int(PredictJob::Outcome::Failed));
    QVERIFY2(job.errorText().contains(QStringLiteral("未找到图像")) && job.errorText().contains(empty),
             qPrintable(job.errorText()));
  }

  // Files that cannot be read: where (file, line, key) as it is, what is wrong in Chinese.
  void configErrors_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("where");
    QTest::addColumn<QString>("zh");
    QTest::newRow("unknown key") << "c.yaml" << QByteArray("data: d.yaml\nlr: 0.1\n") << ":2: lr: "
                                 << "未知的键";
    QTest::newRow("wrong type") << "c.yaml" << QByteArray("epochs: [1, 2]\n") << ":1: epochs: "
                                << "应为";
    QTest::newRow("duplicate") << "c.yaml" << QByteArray("epochs: 3\nepochs: 4\n") << ":2: epochs: "
                               << "重复的键";
    QTest::newRow("not yaml") << "c.yaml" << QByteArray("epochs: [1\n") << "" << "不是有效的 YAML";
    QTest::newRow("empty") << "c.yaml" << QByteArray("# nothing\n") << "" << "文件为空";
    QTest::newRow("project: not a project") << "p.stave" << QByteArray("{\"format\": \"other\"}")
                                            << ": format: " << "不是 Stave 项目文件";
    QTest::newRow("project: binary") << "p.stave" << QByteArray("\x01\x02garbage", 9) << ":1: "
                                     << "二进制数据";
    QTest::newRow("project: cut off") << "p.stave" << QByteArray("{\"format\": \"stave-project\",\n")
                                      << "" << "不是有效的 JSON";
  }
  void configErrors() {
    QFETCH(QString, name);
    QFETCH(QByteArray, text);
    QFETCH(QString, where);
    QFETCH(QString, zh);
    const QString path = m_dir.filePath(name);
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text);
    f.close();
    QString shown;
    if (name.endsWith(QStringLiteral(".stave"))) {
      stave::studio::ProjectDocument doc;
      QVERIFY(!doc.open(path, &shown));
    } else {
      const auto cfg = stave::config::loadRunConfig(path.toStdString());
      QVERIFY(!cfg.ok());
      shown = stave::studio::errorsText(cfg.errors());
    }
    QVERIFY2(shown.contains(path) && shown.contains(where), qPrintable(shown));
    QVERIFY2(shown.contains(zh), qPrintable(shown));
  }

  // Export Model on a checkpoint that is not one: random bytes, and a run's last.pt cut in half.
  void corruptCheckpointInExport_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("random bytes") << "random.pt";
    QTest::newRow("cut in half") << "cut.pt";
  }
  void corruptCheckpointInExport() {
    QFETCH(QString, name);
    const QString path = m_dir.filePath(name);
    QFile whole(m_ckpt);
    QVERIFY(whole.open(QIODevice::ReadOnly));
    const QByteArray bytes = whole.readAll();
    writeFile(path, name == QLatin1String("cut.pt") ? bytes.left(bytes.size() / 2)
                                                    : QByteArray(4096, '\x5a'));
    ModelExportJob job;
    job.setExecutable(STAVE_TRAIN_EXE);
    QVERIFY(job.start(path, m_dir.filePath(QStringLiteral("corrupt.onnx")), {}));
    QVERIFY(waitFor(job));
    QCOMPARE(int(job.outcome()), int(ModelExportJob::Outcome::Failed));
    const QString shown = job.errorText();
    QVERIFY2(shown.contains(path) && shown.contains(QStringLiteral("检查点")), qPrintable(shown));
    QVERIFY2(englishLeft(shown, {"not a readable", "cut off", "complete", "damaged", "Not a zip"}).isEmpty(),
             qPrintable(shown));
  }

  // A project whose run config holds a value of the wrong JSON type.
  void runConfigOfWrongType() {
    const QString path = m_dir.filePath(QStringLiteral("typed.stave"));
    writeFile(path, R"({"format": "stave-project", "version": 1, "name": "typed",
                        "dataset": "data/data.yaml", "active_config": "default",
                        "configs": {"default": {"epochs": "ten", "fliplr": true}}})");
    stave::studio::ProjectDocument doc;
    QString shown;
    QVERIFY(!doc.open(path, &shown));
    const QStringList lines = shown.split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 2);
    for (const QString& line : lines) {
      QVERIFY2(line.startsWith(path) && line.contains(QStringLiteral("应为")), qPrintable(shown));
      QVERIFY2(englishLeft(line, {"expected", "got", "a number", "integer"}).isEmpty(), qPrintable(shown));
    }
    QVERIFY2(shown.contains(QStringLiteral(": epochs: ")) && shown.contains(QStringLiteral("\"ten\"")),
             qPrintable(shown));
  }

  // Cluster profiles that cannot be used: Settings ▸ Clusters' checks, a damaged clusters.json,
  // a profile asking for more than the partition has.
  void clusterProfileErrors() {
    stave::studio::ClusterProfile p;
    p.name = QStringLiteral("lab");
    p.runFolder = QStringLiteral("runs/here");
    p.timeLimit = QStringLiteral("soon");
    const QStringList local = p.problems();
    QCOMPARE(local.size(), 2);
    for (const QString& line : local) {
      QVERIFY2(line.contains(QStringLiteral("lab")) && hasHan(line), qPrintable(line));
      QVERIFY2(englishLeft(line, {"expected", "absolute", "Slurm's forms", "cluster '", "run folder"}).isEmpty(), qPrintable(line));
    }
    QVERIFY2(local.join(QLatin1Char(' ')).contains(QStringLiteral("soon")), qPrintable(local.join(QLatin1Char(' '))));
    p.destination = QStringLiteral("-oProxyCommand=x");  // a cluster behind SSH: core/cluster's checks
    const QStringList ssh = p.problems();
    QVERIFY(!ssh.isEmpty());
    for (const QString& line : ssh)
      QVERIFY2(hasHan(line) && englishLeft(line, {"begins with", "needs the folder", "expected"}).isEmpty(),
               qPrintable(line));

    const QString file = m_dir.filePath(QStringLiteral("clusters.json"));
    writeFile(file, R"({"version": 1, "clusters": [{"name": "a", "nodes": "two"}, {"name": "a"}]})");
    std::vector<stave::Error> errors;
    stave::cluster::readGoodProfiles(file.toStdString(), &errors);
    QVERIFY(errors.size() >= 2);
    const QString read = stave::studio::errorsText(errors);
    QVERIFY2(read.contains(file) && read.contains(QStringLiteral("clusters[0].nodes")) && hasHan(read),
             qPrintable(read));
    QVERIFY2(englishLeft(read, {"expected a whole number", "two profiles"}).isEmpty(), qPrintable(read));

    stave::studio::ClusterProfile big;
    big.name = QStringLiteral("lab");
    const QString why = stave::studio::checkAgainstPartition(
        big, QStringLiteral("#SBATCH --partition=gpu\n#SBATCH --gpus-per-node=8\n"),
        QStringLiteral("gpu|64|gpu:4|2\n"));
    QVERIFY2(hasHan(why) && why.contains(QStringLiteral("gpu")) && englishLeft(why, {"asks for", "partition "}).isEmpty(),
             qPrintable(why));
  }

  // A launcher that cannot start (master_port 0 on two nodes) says why in the run's events;
  // History shows it in Chinese.
  void launcherStartFailureInHistory() {
    const QString run = m_dir.filePath(QStringLiteral("proj/runs/nostart"));
    QVERIFY(!stave::guitest::runTrain({"train", "--project", m_project, "--run-dir", run, "nnodes=2",
                                       "master_port=0"}));
    // The launcher wrote why into the run folder (History reads nothing else).
    QVERIFY2(QFile::exists(run + QStringLiteral("/events.jsonl")), qPrintable(run));
    HistoryModel model;
    QString error;
    QVERIFY2(model.open(m_dir.filePath(QStringLiteral("proj")), &error), qPrintable(error));
    int row = -1;
    QTRY_VERIFY_WITH_TIMEOUT(!model.refreshing() && (row = rowOf(model, "nostart")) >= 0, 60000);
    const QString tip = model.index(row, HistoryModel::Status).data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QStringLiteral("master_port")) && hasHan(tip), qPrintable(tip));
    QVERIFY2(englishLeft(tip, {"works on one node", "give a port"}).isEmpty(), qPrintable(tip));
  }

  // The history database cannot be opened (its file is a folder), and a run's events.jsonl
  // holds a line that is no event: the error and History's warning, in Chinese.
  void historyStoreErrorsAndWarnings() {
    const QString project = m_dir.filePath(QStringLiteral("storeless"));
    QVERIFY(QDir().mkpath(project + QStringLiteral("/stave.db")));
    HistoryModel model;
    QString error;
    QVERIFY(!model.open(project, &error));
    QVERIFY2(error.contains(QStringLiteral("stave.db")) && hasHan(error) &&
                 englishLeft(error, {"is a folder", "database"}).isEmpty(),
             qPrintable(error));

    const QString broken = m_dir.filePath(QStringLiteral("warned/runs/broken"));
    QVERIFY(QDir().mkpath(broken));
    writeFile(broken + QStringLiteral("/events.jsonl"), "{\"type\": \"step\", \"version\": 1}\nnot json\n");
    HistoryModel warned;
    QVERIFY2(warned.open(m_dir.filePath(QStringLiteral("warned")), &error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(!warned.refreshing() && !warned.warnings().isEmpty(), 60000);
    // The reasons inside too: a step event without its data, a line that is no JSON (the JSON
    // parser's own words kept).
    for (const QString& w : warned.warnings())
      QVERIFY2(w.contains(QStringLiteral("events.jsonl:")) && w.contains(QStringLiteral("跳过")) &&
                   englishLeft(w, {"skipped", "missing", "must be", "not JSON"}).isEmpty(),
               qPrintable(w));
  }

  // The Dataset page's problems: a file that is no image, label rows that cannot be used, a
  // split without its label folder — in Chinese, as scanned and again from the scan's cache.
  void datasetProblems() {
    const QString root = m_dir.filePath(QStringLiteral("problem-set"));
    QVERIFY(QDir().mkpath(root + QStringLiteral("/images/train")));
    QVERIFY(QDir().mkpath(root + QStringLiteral("/labels/train")));
    QVERIFY(QDir().mkpath(root + QStringLiteral("/images/val")));
    const QDir train(m_dir.filePath(QStringLiteral("data/images/train")));
    const QString image = train.filePath(train.entryList(QDir::Files).first());
    QVERIFY(QFile::copy(image, root + QStringLiteral("/images/train/a.jpg")));
    QVERIFY(QFile::copy(image, root + QStringLiteral("/images/val/v.jpg")));
    writeFile(root + QStringLiteral("/images/train/bad.jpg"), "not a jpeg");
    writeFile(
        root + QStringLiteral("/labels/train/a.txt"),
        "7 0.5 0.5 0.2 0.2\n0 0.5 0.5\n0 nan 0.5 0.2 0.2\n0 x 0.5 0.2 0.2\n0 0.5 0.5 0.2 0.2\n"
        "0 0.5 0.5 0.2 0.2\n0 0.9 0.9 0.5 0.5\n");
    writeFile(root + QStringLiteral("/labels/train/orphan.txt"), "0 0.5 0.5 0.2 0.2\n");
    writeFile(root + QStringLiteral("/data.yaml"),
              "path: .\ntrain: images/train\nval: images/val\nnames: [a, b]\n");
    for (const bool cached : {false, true}) {
      const auto summary = stave::studio::scanDataset(root + QStringLiteral("/data.yaml"));
      QVERIFY2(summary.error.isEmpty(), qPrintable(summary.error));
      QCOMPARE(summary.fromCache(), cached);
      QStringList kinds;
      for (const auto& p : summary.problems) {
        kinds << p.kind;
        QVERIFY2(hasHan(p.message) &&
                     englishLeft(p.message,
                                 {"outside", "columns", "not a", "NaN or", "duplicate", "reaches",
                                  "does not exist", "without an image", "recognised"})
                         .isEmpty(),
                 qPrintable(p.kind + QStringLiteral(": ") + p.message));
      }
      kinds.sort();
      QCOMPARE(kinds, (QStringList{"image-unreadable", "label-class", "label-columns",
                                   "label-duplicate", "label-nan", "label-number", "label-orphan",
                                   "label-range", "labels-missing"}));
    }
  }

  // The new project wizard's check page: the dataset report (its counts, statistics, problems
  // and verdict) of the set above, and of a data.yaml that is not there.
  void datasetReport() {
    const QString root = m_dir.filePath(QStringLiteral("problem-set"));
    QVERIFY(QFileInfo::exists(root + QStringLiteral("/data.yaml")));  // made by datasetProblems
    const QStringList english{"images (", "labelled", "background", "instances", "per class",
                              "box width", "image height", "problems:", "problems found",
                              "end markers", "mean", "cannot be used", "dataset "};
    const auto check = stave::studio::checkDatasetFile(root + QStringLiteral("/data.yaml"));
    QCOMPARE(check.exitCode, 1);
    const QStringList lines = check.summary.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QVERIFY2(lines.size() >= 12, qPrintable(check.summary));
    for (const QString& line : lines)
      QVERIFY2(hasHan(line) && englishLeft(line, english).isEmpty(), qPrintable(line));
    // The file and the kind are named as they are.
    QVERIFY2(check.summary.contains(QStringLiteral("a.txt:1: label-class")),
             qPrintable(check.summary));
    // The wizard's own refusals of a folder of images (no class names) and of an args.yaml.
    stave::studio::ImagesFolder folder;
    folder.root = root;
    const auto noNames = stave::studio::writeDataYaml(folder, {});
    QVERIFY(!noNames.ok());
    const QString refused = stave::studio::errorsText(noNames.errors());
    QVERIFY2(hasHan(refused) && englishLeft(refused, {"class name"}).isEmpty(), qPrintable(refused));
    // The settings the check page proposes beside the report, each with its reason.
    for (const int gpus : {0, 1})
      for (const auto& p : stave::studio::proposeSettings({gpus, 16.0, 8}, {check.trainImages, 640}))
        QVERIFY2(hasHan(p.why), qPrintable(p.key + QStringLiteral(": ") + p.why));
    const auto missing = stave::studio::checkDatasetFile(root + QStringLiteral("/none.yaml"));
    QCOMPARE(missing.exitCode, 2);
    QVERIFY2(hasHan(missing.summary) && englishLeft(missing.summary, english).isEmpty() &&
                 missing.summary.contains(QStringLiteral("none.yaml")),
             qPrintable(missing.summary));
  }

  // A label file changed on disk since the editor read it, and a dataset that cannot be written:
  // the label editor's and Label issues' refusals, in Chinese, the file named as it is.
  void labelStoreRefusals() {
    const QString root = m_dir.filePath(QStringLiteral("label-set"));
    QVERIFY(QDir().mkpath(root + QStringLiteral("/labels")));
    const QString label = root + QStringLiteral("/labels/a.txt");
    writeFile(label, "0 0.5 0.5 0.2 0.2\n");
    stave::data::LabelStore store(root.toStdString(), "test");
    auto base = stave::data::readLabelFile(label.toStdString());
    QVERIFY(base.ok());
    writeFile(label, "1 0.5 0.5 0.2 0.2\n0 0.2 0.2 0.1 0.1\n");  // another program, meanwhile
    const auto refused = store.write(base.value(), "0 0.4 0.4 0.2 0.2\n");
    QVERIFY(!refused.ok());
    QVERIFY2(refused.errorText().find("changed on disk") != std::string::npos,
             refused.errorText().c_str());
    const QString conflict = stave::studio::errorsText(refused.errors());
    QVERIFY2(
        conflict.startsWith(label + QStringLiteral(": ")) && hasHan(conflict) &&
            englishLeft(conflict, {"changed on disk", "bytes", "reload", "overwritten"}).isEmpty(),
        qPrintable(conflict));

    QVERIFY(QDir().mkpath(root + QStringLiteral("/.stave")));
    writeFile(root + QStringLiteral("/.stave/label-edits.jsonl"), "");
    QVERIFY(QFile::remove(root + QStringLiteral("/.stave/label-edits.jsonl")));
    QVERIFY(QDir().mkpath(root + QStringLiteral("/.stave/label-edits.jsonl")));  // a folder: no log
    auto now = stave::data::readLabelFile(label.toStdString());
    QVERIFY(now.ok());
    const auto notSaved = store.write(now.value(), "0 0.4 0.4 0.2 0.2\n");
    QVERIFY(!notSaved.ok());
    const QString shown = stave::studio::errorsText(notSaved.errors());
    QVERIFY2(hasHan(shown) && englishLeft(shown, {"not saved", "edit log"}).isEmpty(),
             qPrintable(shown));
  }

  // Label issues: a CSV that is not one, rows of one that are skipped, a fix that cannot apply.
  void labelIssuesRefusals() {
    const QString csv = m_dir.filePath(QStringLiteral("issues.csv"));
    writeFile(csv, "image,kind\n");
    const auto notCsv = stave::data::readLabelIssuesCsv(csv.toStdString());
    QVERIFY(!notCsv.ok());
    const QString refused = stave::studio::errorsText(notCsv.errors());
    QVERIFY2(refused.startsWith(csv + QStringLiteral(":1: ")) && hasHan(refused) &&
                 englishLeft(refused, {"not an issues CSV", "first line"}).isEmpty(),
             qPrintable(refused));
    writeFile(csv, QByteArray(stave::data::kLabelIssuesCsvHeader) +
                       "a.jpg,odd,0,0,0.5,1,1,2,2\n,overlooked,0,0,0.5,1,1,2,2\na.jpg,spurious,0,-"
                       "1,x,1,1,2,2\n");
    const auto rows = stave::data::readLabelIssuesCsv(csv.toStdString());
    QVERIFY2(rows.ok(), rows.errorText().c_str());
    QCOMPARE(rows->problems.size(), size_t(3));
    for (const auto& p : rows->problems) {
      const QString shown = stave::studio::errorText(p);
      QVERIFY2(shown.startsWith(csv + QLatin1Char(':')) && hasHan(shown) &&
                   englishLeft(shown, {"row skipped", "is none of", "no image", "not a number"})
                       .isEmpty(),
               qPrintable(shown));
    }
    stave::data::IssueRow issue;
    issue.labelClass = -1;
    const auto fix = stave::data::applyIssueFix("0 0.5 0.5 0.2 0.2\n", "a.txt", issue,
                                                stave::data::IssueFix::DeleteBox, 64, 64);
    QVERIFY(!fix.ok());
    const QString fixShown = stave::studio::errorsText(fix.errors());
    QVERIFY2(hasHan(fixShown) && englishLeft(fixShown, {"the issue names"}).isEmpty(),
             qPrintable(fixShown));
    // The companion file beside the CSV: of another version of it, and not one at all.
    const QString companion =
        QString::fromStdString(stave::data::issuesCompanionPath(csv.toStdString()));
    for (const QByteArray& bytes : {QByteArray("{\"csv_hash\": \"0\"}"), QByteArray("[]")}) {
      writeFile(companion, bytes);
      std::vector<stave::Error> warnings;
      bool used = true;
      stave::data::companionFor(csv.toStdString(), "image,kind\n", warnings, used);
      QVERIFY(!used);
      QCOMPARE(warnings.size(), size_t(1));
      const QString shown = stave::studio::errorText(warnings.front());
      QVERIFY2(shown.startsWith(companion + QStringLiteral(": csv_hash: ")) && hasHan(shown) &&
                   englishLeft(shown, {"another version", "not used", "not an issues"}).isEmpty(),
               qPrintable(shown));
    }
  }

  // A file the studio reads that is a folder or a FIFO: the engine's words for it, in Chinese.
  void notARegularFile() {
    QFile f;
    QString why;
    QVERIFY(!stave::studio::openRegularFile(&f, m_dir.path(), &why));
    QVERIFY2(why.startsWith(m_dir.path() + QStringLiteral(": ")) && hasHan(why) &&
                 englishLeft(why, {"is a folder", "not a file"}).isEmpty(),
             qPrintable(why));
  }

  // The Validation view on a damaged views file: the file and key named, what is wrong in Chinese.
  void damagedValidationViews() {
    const QString views = m_dir.filePath(QStringLiteral("views/val"));
    const QStringList images{m_dir.filePath(QStringLiteral("views/a.jpg")),
                             m_dir.filePath(QStringLiteral("views/b.jpg"))};
    QVERIFY(stave::testing::writeValidationViews(views, images));
    writeFile(views + QStringLiteral("/confusion_matrix.json"),
              R"({"names": ["a", "background"], "conf": "high", "iou": 0.45, "counts": []})");
    const auto d = stave::studio::readValidationData(views);
    QVERIFY2(d.error.contains(QStringLiteral("confusion_matrix.json")) &&
                 d.error.contains(QStringLiteral("conf")) && hasHan(d.error) &&
                 englishLeft(d.error, {"wrong type", "key "}).isEmpty(),
             qPrintable(d.error));
  }

  // The Hardware page without NVML: why, in Chinese, the loader's own words as they are.
  void hardwareWithoutNvml() {
    stave::telemetry::GpuInventoryOptions o;
    o.library = "/nonexistent/libnvidia-ml.so.1";
    const auto inv = stave::telemetry::readGpuInventory(o);
    QVERIFY(!inv.available);
    QCOMPARE(stave::english(inv.reasonText), inv.reason);
    qputenv("STAVE_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1");
    stave::studio::HardwareMonitor monitor;
    qunsetenv("STAVE_NVML_LIBRARY");
    QSignalSpy ready(&monitor, &stave::studio::HardwareMonitor::inventoryReady);
    monitor.start();
    QVERIFY(ready.wait(60000));
    const QString why = monitor.noGpuReason();
    QVERIFY2(hasHan(why) && why.contains(QStringLiteral("NVML")) &&
                 why.contains(QStringLiteral("/nonexistent/libnvidia-ml.so.1")),  // dlerror's words
             qPrintable(why));
    QVERIFY2(englishLeft(why, {"not found", "no NVIDIA driver"}).isEmpty(), qPrintable(why));
  }

  // The Run page's log of a run whose node has no NVIDIA GPU: why, from the run's gpu_sample.
  void nodeWithoutGpu() {
    const auto batch = stave::studio::RunController::readEvents(
        m_dir.filePath(QStringLiteral("proj/runs/r1/events.jsonl")), 0, 0);
    const stave::telemetry::GpuSampleEvent* status = nullptr;
    for (const auto& e : batch.events)
      if (const auto* g = e.as<stave::telemetry::GpuSampleEvent>(); g && !g->status.empty())
        status = g;
    QVERIFY2(status, "no gpu_sample with a status in the run's events");
    QCOMPARE(stave::english(status->statusText), status->status);
    const QString shown = stave::studio::engineText(status->statusText, status->status);
    QVERIFY2(hasHan(shown) && shown.contains(QStringLiteral("/nonexistent/libnvidia-ml.so.1")) &&
                 englishLeft(shown, {"no NVIDIA GPU", "not found", "no NVIDIA driver"}).isEmpty(),
             qPrintable(shown));
  }

  // The Run page's warnings about lines of events.jsonl that are no events: read as the run is
  // followed, and from the store (what it holds, then the tail), in Chinese.
  void runPageWarnings() {
    const QString run = m_dir.filePath(QStringLiteral("run-warned/runs/r1"));
    QVERIFY(QDir().mkpath(run));
    const QString events = run + QStringLiteral("/events.jsonl");
    writeFile(events, "not json\n{\"type\": \"step\", \"version\": 0}\n");
    const auto live = stave::studio::RunController::readEvents(events, 0, 0);
    QCOMPARE(live.warnings.size(), 2);
    for (const QString& w : live.warnings)
      QVERIFY2(w.startsWith(events + QLatin1Char(':')) && w.contains(QStringLiteral("跳过")) &&
                   englishLeft(w, {"skipped", "must be", "or more", "not JSON"}).isEmpty(),
               qPrintable(w));
    const auto stored = stave::studio::loadStoredRun(
        m_dir.filePath(QStringLiteral("run-warned/stave.db")).toStdString(), run.toStdString());
    QVERIFY2(stored.ok(), stored.errorText().c_str());
    QVERIFY(!stored->warnings.empty());
    QCOMPARE(stored->warningTexts.size(), stored->warnings.size());
    for (size_t i = 0; i < stored->warnings.size(); ++i) {
      QCOMPARE(stave::english(stored->warningTexts[i]), stored->warnings[i]);
      const QString w = stave::studio::engineText(stored->warningTexts[i], stored->warnings[i]);
      QVERIFY2(w.contains(QStringLiteral("events.jsonl:")) && w.contains(QStringLiteral("跳过")) &&
                   englishLeft(w, {"skipped"}).isEmpty(),
               qPrintable(w));
    }
  }

  // A cluster behind SSH: the real OpenSSH client against a port where nothing listens (the
  // mirror's poll and a fetch, as the Run page and Fetch weights show them), a changed host key
  // as OpenSSH reports it, Slurm asked about a job id that is not one, a Stop that cannot be sent.
  void sshAndMirrorErrors() {
    QTemporaryDir control;
    stave::cluster::SshEndpoint e;
    e.destination = "127.0.0.1";
    e.port = 1;
    e.controlDir = control.path().toStdString();
    e.connectTimeoutS = 10;
    stave::cluster::Mirror mirror(stave::cluster::sshRunner(e), "/nowhere",
                                  m_dir.filePath(QStringLiteral("ssh-mirror")).toStdString());
    const stave::cluster::MirrorPoll p = mirror.poll();
    QVERIFY(!p.reached);
    QVERIFY2(p.error.find("Connection refused") != std::string::npos, p.error.c_str());
    const QString polled = stave::studio::engineText(p.errorText, p.error);
    QVERIFY2(hasHan(polled) && polled.contains(QStringLiteral("ssh 127.0.0.1")) &&
                 polled.contains(QStringLiteral("Connection refused")),  // OpenSSH's line, as it is
             qPrintable(polled));
    QVERIFY2(englishLeft(polled, {"cannot be reached", "OpenSSH said", "port 1)"}).isEmpty(),
             qPrintable(polled));
    const stave::TextParts fetch = mirror.fetchFileText("weights/best.pt");
    QCOMPARE(stave::english(fetch), mirror.fetchFile("weights/best.pt"));
    const QString fetched = stave::studio::engineText(fetch, stave::english(fetch));
    QVERIFY2(hasHan(fetched) && englishLeft(fetched, {"cannot be reached"}).isEmpty(),
             qPrintable(fetched));
    const stave::TextParts outside = mirror.fetchFileText("../etc/passwd");
    QVERIFY2(
        englishLeft(stave::studio::engineText(outside, stave::english(outside)), {"is not a file"})
            .isEmpty(),
        stave::english(outside).c_str());

    stave::cluster::ProcessResult changed;
    changed.end = stave::cluster::ProcessEnd::Finished;
    changed.exitCode = 255;
    changed.err =
        "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\r\n"
        "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\r\n"
        "Host key verification failed.\r\n";
    const stave::Text key =
        stave::cluster::describeSshFailureText(e, stave::cluster::classifySsh(changed), changed);
    QCOMPARE(stave::english(key),
             stave::cluster::describeSshFailure(e, stave::cluster::classifySsh(changed), changed));
    const QString keyShown = stave::studio::engineText(key);
    QVERIFY2(hasHan(keyShown) &&
                 keyShown.contains(QStringLiteral("Host key verification failed.")) &&
                 keyShown.contains(QStringLiteral("ssh-keygen -R")),
             qPrintable(keyShown));
    QVERIFY2(englishLeft(keyShown, {"has CHANGED", "nothing was sent", "OpenSSH said"}).isEmpty(),
             qPrintable(keyShown));

    stave::cluster::Profile profile;
    profile.name = "lab";
    profile.destination = "127.0.0.1";
    profile.port = 1;
    const stave::cluster::JobState state = stave::cluster::queryJob(profile, "1; reboot", nullptr);
    QVERIFY(!state.error.empty());
    const QString asked = stave::studio::engineText(state.errorText, state.error);
    QVERIFY2(hasHan(asked) && asked.contains(QStringLiteral("1; reboot")) &&
                 englishLeft(asked, {"is not a Slurm job id", "not asked"}).isEmpty(),
             qPrintable(asked));
    const stave::TextParts cancel = stave::cluster::cancelJobText(profile, "12", false);
    QVERIFY(!cancel.empty());
    const QString cancelShown = stave::studio::engineText(cancel, stave::english(cancel));
    QVERIFY2(hasHan(cancelShown) && cancelShown.contains(QStringLiteral("Connection refused")) &&
                 englishLeft(cancelShown, {"cannot be reached", "OpenSSH said"}).isEmpty(),
             qPrintable(cancelShown));
  }

 private:
  static int rowOf(const HistoryModel& model, const char* name) {
    for (int r = 0; r < model.rowCount(); ++r)
      if (model.run(r).name == name) return r;
    return -1;
  }
};

QTEST_MAIN(TestEngineWords)
#include "tst_engine_words.moc"
