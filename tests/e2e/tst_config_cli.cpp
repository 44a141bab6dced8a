// The config commands of stave-train end to end: exit codes, messages, files written.
#include <sys/stat.h>

#include <QtTest>

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include "e2e/e2e_util.h"

using stave::e2e::runStaveTrain;

namespace {
void writeText(const QString& path, const QByteArray& text) {
  QDir().mkpath(QFileInfo(path).absolutePath());
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(text);
}
QByteArray readText(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}
int runSh(const QStringList& args) {
  QProcess p;
  p.start("sh", args);
  if (!p.waitForFinished(20000)) return -1;
  return p.exitCode();
}
}  // namespace

class TestConfigCli : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir m_dir;
  QString m_project;
  QString path(const QString& rel) const { return m_dir.filePath(rel); }

 private slots:
  void initTestCase();
  void newProjectErrors_data();
  void newProjectErrors();
  void showProject();
  void showProjectProblems_data();
  void showProjectProblems();
  void exportFormats_data();
  void exportFormats();
  void exportErrors_data();
  void exportErrors();
  void shellExportKeepsRuns();
  void outputsNeverOntoInputs();
  void followSaysWhy();
  void valFlagsNamed_data();
  void valFlagsNamed();
  void slurmExportForCpuRanks();
  void importUltralytics();
  void configDocs();
  void emptyConfigIsNamed();
  void historyPassesOverLinkLoops();
  void historyKilledRunIsNotRunning();
  void historyListsTheOthersOfABadRun();
  void helpTexts_data();
  void helpTexts();
};

void TestConfigCli::initTestCase() {
  QVERIFY(m_dir.isValid());
  writeText(path("data set/data.yaml"), "path: .\ntrain: images\nval: images\nnames: [a, b]\n");
  auto r = runStaveTrain(
      {"new-project", path("proj"), "--name", "demo $(x)", "--data", path("data set/data.yaml")});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  m_project = path("proj/demo $(x).stave");
  QVERIFY(r.out.contains("created " + m_project));
  QVERIFY(QFileInfo::exists(m_project));
  const auto j = QJsonDocument::fromJson(readText(m_project)).object();
  QCOMPARE(j["format"].toString(), QString("stave-project"));
  QCOMPARE(j["dataset"].toString(), QString("../data set/data.yaml"));
}

void TestConfigCli::newProjectErrors_data() {
  QTest::addColumn<QStringList>("args");
  QTest::addColumn<int>("exitCode");
  QTest::addColumn<QString>("message");
  QTest::newRow("no name") << QStringList{"new-project", "x", "--data", "d.yaml"} << 2
                           << "--name is required";
  QTest::newRow("no folder") << QStringList{"new-project", "--name", "n", "--data", "d"} << 2
                             << "expected one folder";
  QTest::newRow("unknown flag") << QStringList{"new-project", "x", "--nme", "n"} << 2
                                << "unknown option --nme";
  QTest::newRow("no dataset") << QStringList{"new-project", "x",      "--name",
                                             "n",           "--data", "missing.yaml"}
                              << 2 << "dataset file not found";
  QTest::newRow("exists") << QStringList{"new-project", "proj",   "--name",
                                         "demo $(x)",   "--data", "data set/data.yaml"}
                          << 2 << "already exists";
}

void TestConfigCli::newProjectErrors() {
  QFETCH(QStringList, args);
  QFETCH(int, exitCode);
  QFETCH(QString, message);
  const QByteArray before = readText(m_project);
  auto r = runStaveTrain(args, m_dir.path());
  QCOMPARE(r.exitCode, exitCode);
  QVERIFY2(r.err.contains(message), qPrintable(r.err));
  QCOMPARE(readText(m_project), before);
}

void TestConfigCli::showProject() {
  auto r = runStaveTrain({"show-project", m_project});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  QVERIFY(r.out.contains("project: demo $(x)"));
  QVERIFY(r.out.contains("* default  (defaults)"));
  QVERIFY(r.out.contains("global batch 16, accumulate 4"));
  // The dataset folder has no images: optimizer=auto cannot be resolved, and says so.
  QVERIFY2(r.out.contains("optimizer=auto (SGD or AdamW by the run's length; dataset not readable)"),
           qPrintable(r.out));
  auto j = runStaveTrain({"show-project", m_project, "--json"});
  QCOMPARE(j.exitCode, 0);
  QJsonParseError err;
  const auto doc = QJsonDocument::fromJson(j.out.toUtf8(), &err);
  QVERIFY2(err.error == QJsonParseError::NoError, qPrintable(err.errorString()));
  const auto o = doc.object();
  QCOMPARE(o["name"].toString(), QString("demo $(x)"));
  QCOMPARE(o["dataset_path"].toString(), path("data set/data.yaml"));
  QCOMPARE(o["active_config"].toString(), QString("default"));
  QCOMPARE(
      o["configs"].toObject()["default"].toObject()["derived"].toObject()["accumulate"].toInt(), 4);
  QVERIFY(o["problems"].toArray().isEmpty());
}

void TestConfigCli::showProjectProblems_data() {
  QTest::addColumn<QByteArray>("content");
  QTest::addColumn<int>("exitCode");
  QTest::addColumn<QString>("message");
  QTest::newRow("missing dataset")
      << QByteArray(
             "{\"format\": \"stave-project\", \"version\": 1, \"name\": \"p\", "
             "\"dataset\": \"gone/data.yaml\", \"configs\": {\"default\": {}}}")
      << 1 << "problem: ";
  QTest::newRow("truncated") << QByteArray("{\"format\": \"stave-project\", \"vers") << 2
                             << "truncated or malformed";
  QTest::newRow("newer") << QByteArray("{\"format\": \"stave-project\", \"version\": 9}") << 2
                         << "newer Stave (format version 9)";
  QTest::newRow("bad value")
      << QByteArray(
             "{\"format\": \"stave-project\", \"version\": 1, \"name\": \"p\", "
             "\"dataset\": \"d.yaml\", \"configs\": {\"fast\": {\"amp\": 3}}}")
      << 2 << "(config 'fast'): amp: expected true or false, got 3";
  // A number no double holds: named by line and key, not the library's raw text.
  QTest::newRow("number out of range")
      << QByteArray(
             "{\"format\": \"stave-project\", \"version\": 1, \"name\": \"p\",\n"
             "\"dataset\": \"d.yaml\", \"configs\": {},\n\"ui\": {\"zoom\": 1e999}}")
      << 2 << "p.stave:3: ui.zoom: not a valid project file: number out of range '1e999'";
}

void TestConfigCli::showProjectProblems() {
  QFETCH(QByteArray, content);
  QFETCH(int, exitCode);
  QFETCH(QString, message);
  const QString file = path("bad/p.stave");
  writeText(file, content);
  auto r = runStaveTrain({"show-project", file});
  QCOMPARE(r.exitCode, exitCode);
  QVERIFY2(r.err.contains(message), qPrintable(r.err));
  QVERIFY(r.err.contains(file));
  QVERIFY2(!r.err.contains("json.exception"), qPrintable(r.err));
  QCOMPARE(readText(file), content);  // nothing lost
  if (exitCode == 1) QVERIFY(r.err.contains("dataset not found: " + path("bad/gone/data.yaml")));
}

void TestConfigCli::exportFormats_data() {
  QTest::addColumn<QString>("format");
  QTest::addColumn<QStringList>("extra");
  QTest::addColumn<QString>("expect");
  QTest::newRow("yaml") << "yaml" << QStringList{"epochs=7"} << "epochs: 7";
  QTest::newRow("json") << "json" << QStringList{"epochs=7"} << "\"epochs\": 7";
  QTest::newRow("ultralytics") << "ultralytics" << QStringList{"nproc=2", "devices=0,1"}
                               << "batch: 32";
  QTest::newRow("shell") << "shell" << QStringList{} << "stave-train train";
  QTest::newRow("slurm") << "slurm" << QStringList{"--nodes", "2",       "--gpus-per-node", "4",
                                                   "--time",  "2:00:00", "--partition",     "gpu"}
                         << "#SBATCH --nodes=2";
  QTest::newRow("k8s") << "k8s" << QStringList{"--nodes", "2", "--image", "stave:1"}
                       << "kind: PyTorchJob";
}

void TestConfigCli::exportFormats() {
  QFETCH(QString, format);
  QFETCH(QStringList, extra);
  QFETCH(QString, expect);
  const QString out = path("exports/out." + format);
  auto r = runStaveTrain(
      QStringList{"export", m_project, "--config", "default", "--format", format, "--out", out} +
      extra);
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  QVERIFY(r.out.contains("wrote " + out));
  const QString text = QString::fromUtf8(readText(out));
  QVERIFY2(text.contains(expect), qPrintable(text));
  if (format == "yaml" || format == "json") {
    // The export is a complete config stave-train reads back, with the dataset absolute.
    QVERIFY(text.contains(path("data set/data.yaml")));
    auto again = runStaveTrain({"export", out, "--format", "json"});
    QVERIFY2(again.exitCode == 0, qPrintable(again.err));
    const auto o = QJsonDocument::fromJson(again.out.toUtf8()).object();
    QCOMPARE(o["epochs"].toInt(), 7);
    QCOMPARE(o["data"].toString(), path("data set/data.yaml"));
  }
  if (format == "shell" || format == "slurm") {
    QCOMPARE(runSh({"-n", out}), 0);
    QVERIFY(QFileInfo(out).isExecutable());
  }
  if (format == "yaml") {
    // A relative dataset path in a config file is found beside the file.
    writeText(path("cfgs/rel.yaml"), "data: ../data set/data.yaml\nepochs: 3\n");
    auto rel = runStaveTrain({"export", path("cfgs/rel.yaml"), "--format", "json"});
    QCOMPARE(rel.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(rel.out.toUtf8()).object()["data"].toString(),
             path("data set/data.yaml"));
  }
  // Without --out the same text goes to stdout.
  auto stdoutRun = runStaveTrain(QStringList{"export", m_project, "--format", format} + extra);
  QCOMPARE(stdoutRun.exitCode, 0);
  if (format != "shell") QCOMPARE(stdoutRun.out, text);
}

// The shell script trains from a copy of the config in $TMPDIR; its runs used to land beside
// that copy (runs/ in $TMPDIR, where cleaners delete checkpoints). A stand-in stave-train
// prints the config it is given and its arguments.
void TestConfigCli::shellExportKeepsRuns() {
  const QString fake = path("fake/stave-train");
  writeText(fake, "#!/bin/sh\ncat \"$2\"\necho \"ARGS $*\"\n");
  QFile::setPermissions(fake, QFile::permissions(fake) | QFileDevice::ExeOwner);
  auto run = [&](const QString& script) {
    QProcess p;
    QStringList env = QProcess::systemEnvironment();
    env << "STAVE_TRAIN=" + fake << "TMPDIR=" + path("tmp");
    QDir().mkpath(path("tmp"));
    p.setEnvironment(env);
    p.setWorkingDirectory(path("tmp"));
    p.start("sh", {script, "epochs=2"});
    p.waitForFinished(20000);
    return QString::fromUtf8(p.readAllStandardOutput());
  };
  // From a project: runs/ beside the project file, said in the header.
  const QString fromProject = path("exports/proj.sh");
  auto r = runStaveTrain({"export", m_project, "--format", "shell", "--out", fromProject});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  QVERIFY2(readText(fromProject).contains("# Runs go to " + path("proj/runs/train").toUtf8()),
           readText(fromProject).constData());
  QString out = run(fromProject);
  QVERIFY2(out.contains("project: \"" + path("proj/runs") + "\""), qPrintable(out));
  QVERIFY2(out.contains("ARGS train ") && out.contains(" epochs=2"), qPrintable(out));
  // From a config file: runs/ beside the config, as 'stave-train train CONFIG' does.
  writeText(path("cfgs/c.yaml"), "data: ../data set/data.yaml\n");
  const QString fromConfig = path("exports/cfg.sh");
  r = runStaveTrain({"export", path("cfgs/c.yaml"), "--format", "shell", "--out", fromConfig});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  out = run(fromConfig);
  QVERIFY2(out.contains("project: \"" + path("cfgs/runs") + "\""), qPrintable(out));
  // A project= given by the user stays.
  r = runStaveTrain({"export", m_project, "--format", "shell", "project=/data/runs"});
  QVERIFY2(r.out.contains("# Runs go to /data/runs/train"), qPrintable(r.out));
}

// One rule for every command that writes: never onto an input, never over a file unasked.
void TestConfigCli::outputsNeverOntoInputs() {
  const QByteArray project = readText(m_project);
  auto r = runStaveTrain({"export", m_project, "--format", "shell", "--out", m_project});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains("is an input of this command"), qPrintable(r.err));
  // Even through another spelling of the same path, and with --force.
  r = runStaveTrain({"export", m_project, "--format", "yaml", "--force", "--out",
                     path("proj/../proj/demo $(x).stave")});
  QCOMPARE(r.exitCode, 2);
  QCOMPARE(readText(m_project), project);
  // An existing file is replaced only with --force.
  const QString out = path("exports/again.yaml");
  QCOMPARE(runStaveTrain({"export", m_project, "--format", "yaml", "--out", out}).exitCode, 0);
  r = runStaveTrain({"export", m_project, "--format", "yaml", "--out", out, "epochs=9"});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains("already exists; pass --force"), qPrintable(r.err));
  QVERIFY(!readText(out).contains("epochs: 9"));
  r = runStaveTrain({"export", m_project, "--format", "yaml", "--out", out, "epochs=9", "--force"});
  QCOMPARE(r.exitCode, 0);
  QVERIFY(readText(out).contains("epochs: 9"));
  // import-ultralytics does not silently replace a project's config.
  writeText(path("ul2/args.yaml"), "epochs: 5\nlr0: 0.02\n");
  r = runStaveTrain(
      {"import-ultralytics", path("ul2/args.yaml"), "--project", m_project, "--config", "default"});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains("already has a config 'default'"), qPrintable(r.err));
  QCOMPARE(readText(m_project), project);
  // history --csv onto the project file.
  r = runStaveTrain({"history", m_project, "--csv", m_project, "--force"});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains("is an input of this command"), qPrintable(r.err));
  QCOMPARE(readText(m_project), project);
}

// follow on garbage or a folder exited 1 without a word.
void TestConfigCli::followSaysWhy() {
  writeText(path("follow/garbage.bin"), QByteArray("\x01\x02 not events\n\xff\xfe\n"));
  auto r = runStaveTrain({"follow", path("follow/garbage.bin")});
  QCOMPARE(r.exitCode, 1);
  QVERIFY2(r.err.contains("no Stave events in it"), qPrintable(r.err));
  r = runStaveTrain({"follow", path("follow")});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains("is a folder without events.jsonl"), qPrintable(r.err));
}

// Each bad number of `val` is named with its range (one generic line for all six before).
void TestConfigCli::valFlagsNamed_data() {
  QTest::addColumn<QStringList>("flag");
  QTest::addColumn<QString>("message");
  QTest::newRow("imgsz") << QStringList{"--imgsz", "33"} << "--imgsz: must be a multiple of 32";
  QTest::newRow("batch") << QStringList{"--batch", "0"} << "--batch: 0 is out of range";
  QTest::newRow("conf") << QStringList{"--conf", "2"} << "--conf: 2.0 is out of range";
  QTest::newRow("iou") << QStringList{"--iou", "x"} << "--iou: expected a number";
  QTest::newRow("max_det=") << QStringList{"max_det=0"} << "--max-det: 0 is out of range";
}
void TestConfigCli::valFlagsNamed() {
  QFETCH(QStringList, flag);
  QFETCH(QString, message);
  auto r = runStaveTrain(QStringList{"val", "--weights", path("none.pt"), "--data",
                                     path("data set/data.yaml")} +
                         flag);
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains(message), qPrintable(r.err));
}

// A CPU config asks Slurm for no GPUs; --gpus-per-node 0 means CPU ranks (it became 1).
void TestConfigCli::slurmExportForCpuRanks() {
  for (const QStringList& extra :
       {QStringList{"devices=cpu", "nproc=2"}, QStringList{"nproc=2", "--gpus-per-node", "0"}}) {
    auto r = runStaveTrain(QStringList{"export", m_project, "--format", "slurm"} + extra);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(!r.out.contains("--gpus-per-node"), qPrintable(r.out));
    QVERIFY2(r.out.contains("#SBATCH --ntasks-per-node=2\n"), qPrintable(r.out));
    QVERIFY2(r.out.contains("devices: \"cpu\""), qPrintable(r.out));
  }
  auto r = runStaveTrain({"export", m_project, "--format", "slurm", "--gpus-per-node", "4"});
  QVERIFY2(r.out.contains("#SBATCH --gpus-per-node=4\n"), qPrintable(r.out));
}

void TestConfigCli::exportErrors_data() {
  QTest::addColumn<QStringList>("args");
  QTest::addColumn<int>("exitCode");
  QTest::addColumn<QString>("message");
  QTest::newRow("no format") << QStringList{} << 2 << "--format is required";
  QTest::newRow("bad format") << QStringList{"--format", "docker"} << 2
                              << "expected yaml, json, ultralytics, shell, slurm or k8s";
  QTest::newRow("bad override") << QStringList{"--format", "yaml", "epochs=abc", "mosaic=3"} << 2
                                << "command line: epochs: expected an integer";
  QTest::newRow("unknown key") << QStringList{"--format", "yaml", "lr=0.1"} << 2
                               << "command line: lr: unknown key";
  QTest::newRow("no such config") << QStringList{"--format", "yaml", "--config", "fast"} << 2
                                  << "no config named 'fast' (configs: 'default')";
  QTest::newRow("k8s without image") << QStringList{"--format", "k8s"} << 2 << "--image";
  QTest::newRow("bad partition") << QStringList{"--format", "slurm", "--partition", "a;b"} << 2
                                 << "partition: may hold only";
  QTest::newRow("bad nodes") << QStringList{"--format", "slurm", "--nodes", "two"} << 2
                             << "--nodes: expected a whole number";
}

void TestConfigCli::exportErrors() {
  QFETCH(QStringList, args);
  QFETCH(int, exitCode);
  QFETCH(QString, message);
  auto r = runStaveTrain(QStringList{"export", m_project} + args);
  QCOMPARE(r.exitCode, exitCode);
  QVERIFY2(r.err.contains(message), qPrintable(r.err));
  QVERIFY(r.out.isEmpty());
  if (args.contains("mosaic=3")) QVERIFY(r.err.contains("mosaic: 3.0 is out of range"));
}

void TestConfigCli::importUltralytics() {
  const QString args = path("ul/args.yaml");
  writeText(args,
            "task: detect\nmode: train\nmodel: yolov8s.pt\ndata: coco.yaml\nepochs: 12\n"
            "batch: 32\ndevice: 0,1\nsave: true\nplots: false\ncache: false\n");
  const QString out = path("ul/stave.yaml");
  auto r = runStaveTrain({"import-ultralytics", args, "--out", out});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  QVERIFY2(r.err.contains("ignored 2 key(s) Stave does not use: save plots"), qPrintable(r.err));
  QVERIFY(r.err.contains("warning: " + args + ":3: model:"));
  QVERIFY(r.err.contains("does not download weights"));
  const QString yaml = QString::fromUtf8(readText(out));
  QVERIFY(yaml.contains("batch: 16"));
  QVERIFY(yaml.contains("nproc: 2"));
  QVERIFY(yaml.contains("model: \"yolov8s.pt\""));
  auto strict = runStaveTrain({"import-ultralytics", args, "--strict"});
  QCOMPARE(strict.exitCode, 1);
  QVERIFY(strict.out.contains("epochs: 12"));

  // Round trip through the project: export ultralytics, import as a named config.
  const QString exported = path("ul/exported.yaml");
  QCOMPARE(
      runStaveTrain({"export", m_project, "--format", "ultralytics", "--out", exported, "epochs=5"})
          .exitCode,
      0);
  auto add = runStaveTrain(
      {"import-ultralytics", exported, "--project", m_project, "--config", "from-ul", "--strict"});
  QVERIFY2(add.exitCode == 0, qPrintable(add.err));
  auto show = runStaveTrain({"show-project", m_project});
  QVERIFY2(show.out.contains("from-ul  epochs=5\n"), qPrintable(show.out));

  writeText(path("ul/bad.yaml"), "epochs: 3\nlr0: fast\nmosaic: 9\n");
  auto bad =
      runStaveTrain({"import-ultralytics", path("ul/bad.yaml"), "--out", path("ul/no.yaml")});
  QCOMPARE(bad.exitCode, 2);
  QVERIFY(bad.err.contains(path("ul/bad.yaml") + ":2: lr0: expected a number"));
  QVERIFY(bad.err.contains(path("ul/bad.yaml") + ":3: mosaic:"));
  QVERIFY(!QFileInfo::exists(path("ul/no.yaml")));
  auto usage = runStaveTrain({"import-ultralytics", args, "--project", m_project});
  QCOMPARE(usage.exitCode, 2);
}

void TestConfigCli::configDocs() {
  auto r = runStaveTrain({"config-docs"});
  QCOMPARE(r.exitCode, 0);
  QVERIFY(r.out.contains("| `lr0` | float | `0.01` |"));
  QCOMPARE(r.out.toUtf8(), readText(STAVE_SOURCE_DIR "/docs/config.md"));
}

void TestConfigCli::helpTexts_data() {
  QTest::addColumn<QString>("command");
  for (const char* c :
       {"new-project", "show-project", "export", "import-ultralytics", "config-docs"})
    QTest::newRow(c) << QString(c);
}

void TestConfigCli::helpTexts() {
  QFETCH(QString, command);
  auto r = runStaveTrain({command, "--help"});
  QCOMPARE(r.exitCode, 0);
  QVERIFY(r.out.startsWith("usage: stave-train " + command));
  auto all = runStaveTrain({"--help"});
  QVERIFY(all.out.contains("  " + command + " "));
}

// An empty run config is reported as an empty file, by name; nothing about the dataset, and no
// run folder is made.
void TestConfigCli::emptyConfigIsNamed() {
  const QString config = path("empty/run.yaml");
  writeText(config, "");
  auto r = runStaveTrain({"train", config});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains(config + ": the file is empty"), qPrintable(r.err));
  QVERIFY2(!r.err.contains("no dataset") && !r.err.contains("command line"), qPrintable(r.err));
  QVERIFY(!QFileInfo::exists(path("empty/runs")));
}

// `history` over a runs/ folder with a link to itself: that entry is named in a warning, the
// other runs are listed, and no raw file-system exception ends the command.
void TestConfigCli::historyPassesOverLinkLoops() {
  const QString folder = path("looped");
  QVERIFY(QDir().mkpath(folder + "/runs/run-lr0.01"));
  QVERIFY(QFile::copy(STAVE_SOURCE_DIR "/tests/unit/store/data/v1/runs/run-lr0.01/events.jsonl",
                      folder + "/runs/run-lr0.01/events.jsonl"));
  QVERIFY(QFile::link("self", folder + "/runs/self"));
  auto r = runStaveTrain({"history", folder});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  QVERIFY2(r.out.contains("run-lr0.01"), qPrintable(r.out));
  QVERIFY2(r.err.contains("warning: self: not read: " + folder + "/runs/self"), qPrintable(r.err));
  QVERIFY2(!r.err.contains("filesystem error"), qPrintable(r.err));
}

// `history` with a run whose events.jsonl has a line holding 1e999 (an abort before) and one
// whose events.jsonl is a FIFO (never waited on): the bad line is skipped and named, the FIFO
// run named in a warning, and every run that can be read is listed.
void TestConfigCli::historyListsTheOthersOfABadRun() {
  const QString folder = path("overflow");
  const QString good = STAVE_SOURCE_DIR "/tests/unit/store/data/v1/runs/run-lr0.01/events.jsonl";
  QVERIFY(QDir().mkpath(folder + "/runs/a-good"));
  QVERIFY(QFile::copy(good, folder + "/runs/a-good/events.jsonl"));
  QVERIFY(QDir().mkpath(folder + "/runs/b-overflow"));
  QByteArray text = readText(good);
  text.insert(text.indexOf('\n') + 1,
              "{\"type\":\"validation\",\"version\":1,\"rank\":0,\"time\":1e999,\"data\":{}}\n");
  writeText(folder + "/runs/b-overflow/events.jsonl", text);
  QVERIFY(QDir().mkpath(folder + "/runs/c-fifo"));
  QCOMPARE(::mkfifo(QFile::encodeName(folder + "/runs/c-fifo/events.jsonl").constData(), 0600), 0);
  auto r = runStaveTrain({"history", folder}, {}, 60000);
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  QVERIFY2(r.out.contains("a-good") && r.out.contains("b-overflow"), qPrintable(r.out));
  QVERIFY2(r.err.contains("b-overflow/events.jsonl:2: skipped:"), qPrintable(r.err));
  QVERIFY2(r.err.contains("warning: c-fifo: not read: " + folder + "/runs/c-fifo/events.jsonl: is a FIFO"),
           qPrintable(r.err));
}

// `history` of a run whose events stop without a final event: killed (no process holds its
// folder) it is `crashed`, saying so; while a live process holds the folder's lock it is
// `running`.
void TestConfigCli::historyKilledRunIsNotRunning() {
  const QString folder = path("killed");
  QByteArray events =
      readText(STAVE_SOURCE_DIR "/tests/unit/store/data/v1/runs/run-lr0.01/events.jsonl");
  QByteArray cut;
  for (const QByteArray& line : events.split('\n'))
    if (!line.isEmpty() && !line.contains("\"type\":\"finished\"")) cut += line + "\n";
  QVERIFY(cut.size() > 1000 && cut.size() < events.size());
  for (const char* run : {"gone", "held"})
    writeText(folder + "/runs/" + run + "/events.jsonl", cut);
  QProcess holder;  // a live process holding the folder, as a training run holds its lock
  // -o: the lock stays with flock (not with cat), which ends when cat's input closes.
  holder.start("flock", {"-o", "-x", folder + "/runs/held", "cat"});
  QVERIFY(holder.waitForStarted(10000));
  QElapsedTimer t;
  t.start();
  while (runSh({"-c", "flock -n -x \"$0\" true", folder + "/runs/held"}) == 0 &&
         t.elapsed() < 10000)
    QTest::qWait(50);
  auto r = runStaveTrain({"history", folder, "--json"});
  holder.closeWriteChannel();
  QVERIFY(holder.waitForFinished(10000));
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  QMap<QString, QJsonObject> runs;
  for (const auto& v : QJsonDocument::fromJson(r.out.toUtf8()).array())
    runs[v.toObject()["name"].toString()] = v.toObject();
  QCOMPARE(runs.size(), 2);
  QCOMPARE(runs["held"]["status"].toString(), QString("running"));
  QCOMPARE(runs["gone"]["status"].toString(), QString("crashed"));
  QVERIFY2(runs["gone"]["message"].toString().contains("ended without a final event"),
           qPrintable(runs["gone"]["message"].toString()));
  // Its lock free, the other is killed too.
  auto again = runStaveTrain({"history", folder});
  QVERIFY2(again.out.contains(QRegularExpression("held +crashed")), qPrintable(again.out));
}

QTEST_GUILESS_MAIN(TestConfigCli)
#include "tst_config_cli.moc"
