// Exports (yaml, json, ultralytics, shell, slurm, k8s), the Ultralytics import, and the proof
// that names with spaces, quotes, $(...) and backticks run nothing in the generated scripts.
#include <QtTest>

#include <filesystem>
#include <set>

#include <yaml-cpp/yaml.h>

#include "core/base/atomic_file.h"
#include "core/config/export.h"

using namespace stave::config;
namespace fs = std::filesystem;

namespace {
// Each of these would create a file called pwned* if a shell ever evaluated it.
const std::string kEvil = "a b 'c' \"d\" $(touch pwned1) `touch pwned2` ; touch pwned3 \\ $HOME";
const std::string kEvil2 = "x'; touch pwned4; echo '";

struct ProcessResult {
  int exitCode = -1;
  QString out, err;
};

ProcessResult runProcess(const QString& program, const QStringList& args, const QString& workDir,
                         const QStringList& env = {}) {
  QProcess p;
  p.setWorkingDirectory(workDir);
  QStringList e = QProcess::systemEnvironment();
  e << env;
  p.setEnvironment(e);
  p.start(program, args);
  ProcessResult r;
  if (!p.waitForStarted(10000) || !p.waitForFinished(30000)) {
    p.kill();
    p.waitForFinished(2000);
    r.err = "did not run or timed out";
    return r;
  }
  r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = QString::fromUtf8(p.readAllStandardOutput());
  r.err = QString::fromUtf8(p.readAllStandardError());
  return r;
}

void writeExecutable(const std::string& path, const std::string& body) {
  if (!stave::writeFileAtomic(path, body).ok()) qFatal("cannot write %s", path.c_str());
  fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
}

std::vector<std::string> readArgv(const std::string& path) {
  std::vector<std::string> out;
  auto text = stave::readFile(path);
  if (!text) return out;
  std::string cur;
  for (char c : text.value()) {
    if (c == '\0') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  return out;
}

int pwnedFiles(const std::string& root) {
  int n = 0;
  for (const auto& e : fs::recursive_directory_iterator(root))
    n += e.path().filename().string().rfind("pwned", 0) == 0;
  return n;
}

RunConfig sampleConfig() {
  RunConfig c = RunConfig::defaults();
  for (const char* kv :
       {"data=/datasets/coco/data.yaml", "epochs=42", "batch=8", "lr0=0.02", "model=yolov8s",
        "cache=ram", "mosaic=0.75", "cos_lr=true", "nproc=2", "devices=0,1", "time=1.5",
        "name=run one", "weight_decay=1e-05", "close_mosaic=3", "pretrained=/ckpt/last.pt"})
    if (!applyOverrides(c, {kv}).ok()) qFatal("bad sample override %s", kv);
  return c;
}

std::string exportOrDie(const RunConfig& c, ExportFormat f, const ExportOptions& o = {}) {
  auto r = exportRunConfig(c, f, o);
  if (!r) qFatal("export failed: %s", r.errorText().c_str());
  return r.value();
}
}  // namespace

class TestExport : public QObject {
  Q_OBJECT
 private slots:
  void yamlAndJsonReadBack();
  void formatNames();
  void ultralyticsExport();
  void ultralyticsRoundTrip();
  void ultralyticsImport();
  void ultralyticsImportErrors_data();
  void ultralyticsImportErrors();
  void shellQuoteWords_data();
  void shellQuoteWords();
  void scriptsPassSyntaxCheck();
  void shellExportRunsNothingFromNames();
  void slurmExportRunsNothingFromNames();
  void k8sManifest();
  void clusterOptionErrors_data();
  void clusterOptionErrors();
  void slurmTimeLimits_data();
  void slurmTimeLimits();
};

void TestExport::yamlAndJsonReadBack() {
  const RunConfig c = sampleConfig();
  for (auto f : {ExportFormat::Yaml, ExportFormat::Json}) {
    auto back = parseRunConfigYaml(exportOrDie(c, f), "export");
    QVERIFY2(back.ok(), back.errorText().c_str());
    QVERIFY(back.value() == c);
  }
  RunConfig invalid = c;
  QVERIFY(invalid.set("mosaic", 3.0).ok());
  auto r = exportRunConfig(invalid, ExportFormat::Yaml);
  QVERIFY(!r.ok());
  QCOMPARE(r.errors().front().key, std::string("mosaic"));
}

void TestExport::formatNames() {
  for (const char* n : {"yaml", "json", "ultralytics", "shell", "slurm", "k8s"}) {
    auto f = parseExportFormat(n);
    QVERIFY(f.ok());
    QCOMPARE(std::string(exportFormatName(f.value())), std::string(n));
  }
  auto bad = parseExportFormat("docker");
  QVERIFY(!bad.ok());
  QVERIFY(bad.errorText().find("yaml, json, ultralytics, shell, slurm or k8s") !=
          std::string::npos);
}

void TestExport::ultralyticsExport() {
  const RunConfig c = sampleConfig();
  const std::string text = exportOrDie(c, ExportFormat::Ultralytics);
  YAML::Node root = YAML::Load(text);
  QVERIFY(root.IsMap());
  std::set<std::string> keys;
  for (const auto& kv : root) keys.insert(kv.first.Scalar());
  std::set<std::string> expected = {"task", "mode", "device"};
  for (const auto& p : runConfigSchema())
    if (p.ultralytics) expected.insert(p.name);
  QCOMPARE(keys, expected);
  // Stave-only keys are named in the leading comment, never as keys.
  for (const auto& p : runConfigSchema())
    if (!p.ultralytics && p.name != "devices")
      QVERIFY2(text.find("#   " + p.name + ": ") != std::string::npos, p.name.c_str());
  QCOMPARE(root["task"].Scalar(), std::string("detect"));
  QCOMPARE(root["model"].Scalar(), std::string("yolov8s.yaml"));
  QCOMPARE(root["batch"].Scalar(), std::string("16"));  // 8 per rank x 2 ranks
  QCOMPARE(root["device"].Scalar(), std::string("0,1"));
  QCOMPARE(root["cache"].Scalar(), std::string("ram"));
  QCOMPARE(root["pretrained"].Scalar(), std::string("false"));  // Stave weights stay in Stave
  QVERIFY(text.find("#   pretrained: \"/ckpt/last.pt\"") != std::string::npos);
  QCOMPARE(root["weight_decay"].Scalar(), std::string("1.0e-05"));  // a float to PyYAML too
  QCOMPARE(root["project"].IsNull(), true);
  // Ultralytics checks value types: ints without a point, floats with one, bools as words.
  for (const auto& p : runConfigSchema()) {
    if (!p.ultralytics || root[p.name].IsNull()) continue;
    const std::string v = root[p.name].Scalar();
    if (p.type == ParamType::Int && p.name != "batch")
      QVERIFY2(v.find_first_not_of("-0123456789") == std::string::npos, p.name.c_str());
    if (p.type == ParamType::Float)
      QVERIFY2(v.find_first_of(".e") != std::string::npos, p.name.c_str());
    if (p.type == ParamType::Bool) QVERIFY2(v == "true" || v == "false", p.name.c_str());
  }
  RunConfig plain = RunConfig::defaults();
  YAML::Node d = YAML::Load(exportOrDie(plain, ExportFormat::Ultralytics));
  QCOMPARE(d["cache"].Scalar(), std::string("false"));
  QCOMPARE(d["pretrained"].Scalar(), std::string("false"));
  QVERIFY(d["device"].IsNull());
  QVERIFY(d["time"].IsNull());
  QCOMPARE(d["batch"].Scalar(), std::string("16"));
}

void TestExport::ultralyticsRoundTrip() {
  const RunConfig c = sampleConfig();
  auto back = importUltralytics(exportOrDie(c, ExportFormat::Ultralytics), "args.yaml");
  QVERIFY2(back.ok(), back.errorText().c_str());
  QVERIFY(back->droppedKeys.empty());
  // model comes back without the suffix and the Stave checkpoint stays behind; otherwise the
  // same config.
  RunConfig expected = c;
  QVERIFY(back->config.getString("model") == "yolov8s");
  QVERIFY(expected.set("model", std::string("yolov8s")).ok());
  QVERIFY(expected.set("pretrained", std::string()).ok());
  QCOMPARE(toYaml(back->config), toYaml(expected));
}

void TestExport::ultralyticsImport() {
  const std::string args =
      "task: detect\nmode: train\nmodel: weights/yolov8m.pt\ndata: coco128.yaml\nepochs: 30\n"
      "time: null\npatience: 50\nbatch: 48\nimgsz: 320\nsave: true\nsave_period: -1\n"
      "cache: true\ndevice: [0, 1, 2]\nworkers: 4\nproject: null\nname: exp\nexist_ok: false\n"
      "pretrained: true\noptimizer: SGD\nverbose: true\nseed: 7\nfreeze: null\nlr0: 0.005\n"
      "plots: true\nfliplr: 0.25\nlabel_smoothing: 0.0\n";
  auto r = importUltralytics(args, "args.yaml");
  QVERIFY2(r.ok(), r.errorText().c_str());
  const RunConfig& c = r->config;
  QCOMPARE(c.getString("model"), std::string("weights/yolov8m.pt"));
  QCOMPARE(c.getString("data"), std::string("coco128.yaml"));
  QCOMPARE(c.getInt("epochs"), int64_t(30));
  QCOMPARE(c.getFloat("time"), 0.0);
  QCOMPARE(c.getInt("batch"), int64_t(16));  // 48 global over 3 GPUs
  QCOMPARE(c.getInt("nproc"), int64_t(3));
  QCOMPARE(c.getString("devices"), std::string("0,1,2"));
  QCOMPARE(c.getString("cache"), std::string("ram"));
  QCOMPARE(c.getString("pretrained"), std::string(""));
  QCOMPARE(c.getString("project"), std::string(""));
  QCOMPARE(c.getString("name"), std::string("exp"));
  QCOMPARE(c.getInt("freeze"), int64_t(0));
  QCOMPARE(c.getFloat("lr0"), 0.005);
  QCOMPARE(c.getFloat("fliplr"), 0.25);
  QCOMPARE(r->droppedKeys,
           (std::vector<std::string>{"save", "verbose", "plots", "label_smoothing"}));
  QCOMPARE(c.getBool("exist_ok"), false);  // a Stave key too: reuse a run folder
  for (const auto& w : r->warnings) QVERIFY2(w.key != "model", w.message.c_str());  // a path
  auto bare = importUltralytics("model: yolo11n.pt\npretrained: runs/a/best.pt\n", "b.yaml");
  QVERIFY2(bare.ok(), bare.errorText().c_str());
  QCOMPARE(bare->config.getString("model"), std::string("yolo11n.pt"));
  QCOMPARE(bare->config.getString("pretrained"), std::string("runs/a/best.pt"));
  QCOMPARE(int(bare->warnings.size()), 1);
  QCOMPARE(bare->warnings[0].line, 1);
  QVERIFY(bare->warnings[0].message.find("does not download") != std::string::npos);

  auto uneven = importUltralytics("batch: 10\ndevice: 0,1,2\n", "u.yaml");
  QVERIFY(uneven.ok());
  QCOMPARE(uneven->config.getInt("batch"), int64_t(3));
  QCOMPARE(int(uneven->warnings.size()), 1);
  QVERIFY(uneven->warnings[0].message.find("does not divide") != std::string::npos);
  auto autobatch = importUltralytics("batch: -1\n", "a.yaml");
  QVERIFY(autobatch.ok());
  QCOMPARE(autobatch->config.getInt("batch"), int64_t(16));
  QVERIFY(autobatch->warnings[0].message.find("AutoBatch") != std::string::npos);
}

void TestExport::ultralyticsImportErrors_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<int>("line");
  QTest::addColumn<QString>("key");
  QTest::addColumn<QString>("message");
  QTest::newRow("type") << "epochs: 3\nlr0: fast\n"
                        << 2 << "lr0"
                        << "expected a number";
  QTest::newRow("range") << "mosaic: 2.0\n"
                         << 1 << "mosaic"
                         << "out of range";
  QTest::newRow("model") << "model: yolo12n.yaml\n"
                         << 1 << "model"
                         << "expected one of yolov8n";
  QTest::newRow("device") << "device: tpu\n"
                          << 1 << "devices"
                          << "'tpu'";
  QTest::newRow("list freeze") << "freeze: [0, 1]\n"
                               << 1 << "freeze"
                               << "a list or mapping";
  QTest::newRow("not a map") << "- a\n"
                             << 0 << ""
                             << "expected Ultralytics' args.yaml";
  QTest::newRow("bad yaml") << "a: [1\n"
                            << 2 << ""
                            << "not valid YAML";
}

void TestExport::ultralyticsImportErrors() {
  QFETCH(QString, text);
  QFETCH(int, line);
  QFETCH(QString, key);
  QFETCH(QString, message);
  auto r = importUltralytics(text.toStdString(), "args.yaml");
  QVERIFY(!r.ok());
  bool found = false;
  for (const auto& e : r.errors())
    found |= e.line == line && e.key == key.toStdString() &&
             e.message.find(message.toStdString()) != std::string::npos && e.file == "args.yaml";
  QVERIFY2(found, r.errorText().c_str());
}

void TestExport::shellQuoteWords_data() {
  QTest::addColumn<QString>("word");
  for (const char* w : {"", "plain", "two words", "it's", "'", "''", "$(touch pwned)",
                        "`touch pwned`", "a\nb", "\\", "\"$HOME\"", "*", "-n"})
    QTest::newRow(w) << QString::fromUtf8(w);
  QTest::newRow("evil") << QString::fromStdString(kEvil);
}

void TestExport::shellQuoteWords() {
  // The shell reads each quoted word back exactly, running nothing.
  QFETCH(QString, word);
  QTemporaryDir dir;
  const std::string script = "printf '%s' " + shellQuote(word.toStdString()) + "\n";
  auto r = runProcess("sh", {"-c", QString::fromStdString(script)}, dir.path());
  QCOMPARE(r.exitCode, 0);
  QCOMPARE(r.out, word);
  QCOMPARE(pwnedFiles(dir.path().toStdString()), 0);
}

void TestExport::scriptsPassSyntaxCheck() {
  QTemporaryDir dir;
  RunConfig c = sampleConfig();
  QVERIFY(c.set("name", kEvil).ok());
  QVERIFY(c.set("master_addr", kEvil2).ok());
  ExportOptions o;
  o.jobName = kEvil;
  o.description = "project " + kEvil + "\ntouch pwned5";
  o.nodes = 2;
  o.gpusPerNode = 4;
  o.partition = "gpu";
  o.account = "vision-lab";
  o.image = kEvil2;
  for (auto f : {ExportFormat::Shell, ExportFormat::Slurm}) {
    const std::string path = dir.filePath(exportFormatName(f)).toStdString() + ".sh";
    QVERIFY(stave::writeFileAtomic(path, exportOrDie(c, f, o)).ok());
    auto r = runProcess("sh", {"-n", QString::fromStdString(path)}, dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  }
  const std::string slurm = exportOrDie(c, ExportFormat::Slurm, o);
  // #SBATCH lines carry only safe characters.
  std::istringstream in(slurm);
  std::string line;
  int directives = 0;
  while (std::getline(in, line)) {
    if (line.rfind("#SBATCH ", 0) != 0) continue;
    ++directives;
    QVERIFY2(line.substr(8).find_first_of("'\"$`; \\()") == std::string::npos, line.c_str());
  }
  QCOMPARE(directives, 8);
  QVERIFY(slurm.find("#SBATCH --nodes=2\n") != std::string::npos);
  QVERIFY(slurm.find("#SBATCH --ntasks-per-node=4\n") != std::string::npos);
  QVERIFY(slurm.find("#SBATCH --gpus-per-node=4\n") != std::string::npos);
  QVERIFY(slurm.find("#SBATCH --cpus-per-task=10\n") != std::string::npos);  // workers 8 + 2
  QVERIFY(slurm.find("#SBATCH --partition=gpu\n") != std::string::npos);
  QVERIFY(slurm.find("#SBATCH --account=vision-lab\n") != std::string::npos);
  QVERIFY(slurm.find("#SBATCH --job-name=a-b-c-d-touch-pwned1-touch-pwned2-touch-pwned3-HOME\n") !=
          std::string::npos);
}

void TestExport::shellExportRunsNothingFromNames() {
  QTemporaryDir tmp;
  const std::string root = tmp.filePath("dir with 'quotes' and $(touch pwned0)").toStdString();
  fs::create_directories(root + "/bin");
  fs::create_directories(root + "/out");
  // A fake stave-train that records its argv (NUL-separated) and the config it was given.
  writeExecutable(root + "/bin/stave-train",
                  "#!/bin/sh\n"
                  ": > \"$FAKE_OUT/argv\"\n"
                  "for a in \"$@\"; do printf '%s\\000' \"$a\" >> \"$FAKE_OUT/argv\"; done\n"
                  "cp \"$2\" \"$FAKE_OUT/config.yaml\"\n"
                  "printf '%s' \"$MASTER_ADDR\" > \"$FAKE_OUT/master_addr\"\n"
                  "exit 3\n");
  RunConfig c = sampleConfig();
  QVERIFY(c.set("data", "/data/" + kEvil + "/data.yaml").ok());
  QVERIFY(c.set("name", kEvil).ok());
  QVERIFY(c.set("project", kEvil2).ok());
  QVERIFY(c.set("master_addr", kEvil).ok());
  ExportOptions o;
  o.description = "project " + kEvil + "\ntouch pwned5";
  const std::string script = root + "/run " + kEvil2 + ".sh";
  QVERIFY(stave::writeFileAtomic(script, exportOrDie(c, ExportFormat::Shell, o)).ok());

  const QString rootQ = QString::fromStdString(root);
  auto r = runProcess(
      "sh", {QString::fromStdString(script), "epochs=2", QString::fromStdString(kEvil)}, rootQ,
      {"PATH=" + rootQ + "/bin:/usr/bin:/bin", "FAKE_OUT=" + rootQ + "/out",
       "MASTER_ADDR=", "MASTER_PORT=", "TMPDIR=" + rootQ});
  QCOMPARE(r.exitCode, 3);  // the script passes stave-train's exit code on
  const auto argv = readArgv(root + "/out/argv");
  QCOMPARE(int(argv.size()), 14);
  QCOMPARE(argv[0], std::string("train"));
  const std::vector<std::string> rest(argv.begin() + 2, argv.end());
  QCOMPARE(rest, (std::vector<std::string>{"--nproc", "2", "--nnodes", "1", "--node-rank", "0",
                                           "--master-addr", kEvil, "--master-port", "0", "epochs=2",
                                           kEvil}));
  QCOMPARE(stave::readFile(root + "/out/master_addr").value(), kEvil);
  // The config stave-train received is the exported one, byte for byte in meaning.
  auto got = loadRunConfig(root + "/out/config.yaml");
  QVERIFY2(got.ok(), got.errorText().c_str());
  QVERIFY(got.value() == c);
  // The temporary config was removed on exit, and nothing ran from the names.
  QVERIFY(!fs::exists(argv[1]));
  QCOMPARE(pwnedFiles(tmp.path().toStdString()), 0);
}

void TestExport::slurmExportRunsNothingFromNames() {
  QTemporaryDir tmp;
  const std::string root = tmp.filePath("sub `touch pwned0` 'dir'").toStdString();
  fs::create_directories(root + "/bin");
  fs::create_directories(root + "/out");
  writeExecutable(root + "/bin/scontrol",
                  "#!/bin/sh\n[ \"$1 $2 $3\" = \"show hostnames nid[001-002]\" ] || exit 9\n"
                  "printf 'nid001\\nnid002\\n'\n");
  writeExecutable(root + "/bin/srun",
                  "#!/bin/sh\n"
                  ": > \"$FAKE_OUT/argv\"\n"
                  "for a in \"$@\"; do printf '%s\\000' \"$a\" >> \"$FAKE_OUT/argv\"; done\n"
                  "printf '%s %s' \"$MASTER_ADDR\" \"$MASTER_PORT\" > \"$FAKE_OUT/master\"\n");
  RunConfig c = sampleConfig();
  QVERIFY(c.set("name", kEvil).ok());
  QVERIFY(c.set("master_addr", kEvil2).ok());
  ExportOptions o;
  o.jobName = kEvil;
  o.nodes = 2;
  o.gpusPerNode = 4;
  o.image = kEvil2;
  const std::string script = root + "/job.sbatch";
  QVERIFY(stave::writeFileAtomic(script, exportOrDie(c, ExportFormat::Slurm, o)).ok());
  const QString rootQ = QString::fromStdString(root);
  auto r = runProcess(
      "sh", {QString::fromStdString(script)}, rootQ,
      {"PATH=" + rootQ + "/bin:/usr/bin:/bin", "FAKE_OUT=" + rootQ + "/out", "SLURM_JOB_ID=41234",
       "SLURM_SUBMIT_DIR=" + rootQ, "SLURM_JOB_NODELIST=nid[001-002]"});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  const std::string config = root + "/stave-config-41234.yaml";
  QCOMPARE(readArgv(root + "/out/argv"),
           (std::vector<std::string>{"--kill-on-bad-exit=1", "--container-image=" + kEvil2,
                                     "stave-train", "worker", "--config", config, "--run-dir",
                                     root + "/runs/slurm-41234"}));
  QCOMPARE(stave::readFile(root + "/out/master").value(), std::string("nid001 22468"));
  auto got = loadRunConfig(config);
  QVERIFY2(got.ok(), got.errorText().c_str());
  QCOMPARE(got->getInt("nnodes"), int64_t(2));
  QCOMPARE(got->getInt("nproc"), int64_t(4));
  QCOMPARE(got->getString("devices"), std::string(""));  // each rank uses its local GPU
  QCOMPARE(got->getString("name"), kEvil);
  QCOMPARE(pwnedFiles(tmp.path().toStdString()), 0);
}

void TestExport::k8sManifest() {
  RunConfig c = sampleConfig();
  QVERIFY(c.set("name", kEvil).ok());
  ExportOptions o;
  o.jobName = "My Project: " + kEvil;
  o.nodes = 3;
  o.gpusPerNode = 8;
  o.image = "registry.example.com/stave:1.0 " + kEvil2;
  const std::string text = exportOrDie(c, ExportFormat::K8s, o);
  std::vector<YAML::Node> docs = YAML::LoadAll(text);
  QCOMPARE(int(docs.size()), 2);
  const YAML::Node& cm = docs[0];
  QCOMPARE(cm["kind"].Scalar(), std::string("ConfigMap"));
  auto run = parseRunConfigYaml(cm["data"]["run.yaml"].Scalar(), "configmap");
  QVERIFY2(run.ok(), run.errorText().c_str());
  QCOMPARE(run->getInt("nnodes"), int64_t(3));
  QCOMPARE(run->getInt("nproc"), int64_t(8));
  QCOMPARE(run->getString("name"), kEvil);
  QCOMPARE(run->getString("data"), c.getString("data"));

  const YAML::Node& job = docs[1];
  QCOMPARE(job["apiVersion"].Scalar(), std::string("kubeflow.org/v1"));
  QCOMPARE(job["kind"].Scalar(), std::string("PyTorchJob"));
  const std::string name = job["metadata"]["name"].Scalar();
  QVERIFY2(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string::npos,
           name.c_str());
  QVERIFY(name.size() <= 63 && name.front() != '-' && name.back() != '-');
  QCOMPARE(cm["metadata"]["name"].Scalar(), name + "-config");
  const YAML::Node specs = job["spec"]["pytorchReplicaSpecs"];
  QCOMPARE(specs["Master"]["replicas"].as<int>(), 1);
  QCOMPARE(specs["Worker"]["replicas"].as<int>(), 2);
  for (const char* role : {"Master", "Worker"}) {
    const YAML::Node pod = specs[role]["template"]["spec"];
    const YAML::Node container = pod["containers"][0];
    QCOMPARE(container["name"].Scalar(), std::string("pytorch"));
    QCOMPARE(container["image"].Scalar(), o.image);
    QCOMPARE(container["resources"]["limits"]["nvidia.com/gpu"].as<int>(), 8);
    QCOMPARE(container["volumeMounts"][0]["mountPath"].Scalar(), std::string("/config"));
    QCOMPARE(pod["volumes"][0]["configMap"]["name"].Scalar(), name + "-config");
    const std::string cmd = container["args"][0].Scalar();
    QCOMPARE(container["command"][0].Scalar(), std::string("/bin/sh"));
    QVERIFY(cmd.find("stave-train train /config/run.yaml --nproc 8 ") != std::string::npos);
    QVERIFY(cmd.find("--nnodes \"${PET_NNODES:-3}\"") != std::string::npos);
    QVERIFY(cmd.find("--node-rank \"${PET_NODE_RANK:-${RANK:-0}}\"") != std::string::npos);
    QVERIFY(cmd.find("--master-addr \"$MASTER_ADDR\" --master-port \"$MASTER_PORT\"") !=
            std::string::npos);
    // No user text reaches the pod's shell (nor kubelet's $(VAR) expansion).
    QVERIFY(cmd.find("pwned") == std::string::npos && cmd.find("$(") == std::string::npos);
    auto syntax = runProcess("sh", {"-n", "-c", QString::fromStdString(cmd)}, ".");
    QCOMPARE(syntax.exitCode, 0);
    // Pods share no run folder: the event relay's secret comes from a Secret the comment names.
    QCOMPARE(container["env"][0]["name"].Scalar(), std::string("STAVE_RELAY_SECRET"));
    QCOMPARE(container["env"][0]["valueFrom"]["secretKeyRef"]["name"].Scalar(), name + "-relay");
  }
  QVERIFY(text.find("kubectl create secret generic " + name + "-relay") != std::string::npos);
  // One node: no Worker replicas, no relay.
  o.nodes = 1;
  docs = YAML::LoadAll(exportOrDie(c, ExportFormat::K8s, o));
  QVERIFY(!docs[1]["spec"]["pytorchReplicaSpecs"]["Worker"]);
  QVERIFY(!docs[1]["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]["env"]);
}

void TestExport::clusterOptionErrors_data() {
  QTest::addColumn<QString>("format");
  QTest::addColumn<QString>("field");
  QTest::addColumn<QString>("value");
  QTest::addColumn<QString>("key");
  QTest::newRow("partition") << "slurm"
                             << "partition"
                             << "gpu; touch pwned"
                             << "partition";
  QTest::newRow("account") << "slurm"
                           << "account"
                           << "lab $(id)"
                           << "account";
  QTest::newRow("time") << "slurm"
                        << "time"
                        << "1 day"
                        << "time";
  QTest::newRow("nodes") << "slurm"
                         << "nodes"
                         << "0"
                         << "nodes";
  QTest::newRow("gpus") << "k8s"
                        << "gpus"
                        << "2000"
                        << "gpus-per-node";
  QTest::newRow("image") << "k8s"
                         << "image"
                         << ""
                         << "image";
}

void TestExport::clusterOptionErrors() {
  QFETCH(QString, format);
  QFETCH(QString, field);
  QFETCH(QString, value);
  QFETCH(QString, key);
  ExportOptions o;
  o.image = "img";
  if (field == "partition") o.partition = value.toStdString();
  if (field == "account") o.account = value.toStdString();
  if (field == "time") o.time = value.toStdString();
  if (field == "nodes") o.nodes = value.toInt();
  if (field == "gpus") o.gpusPerNode = value.toInt();
  if (field == "image") o.image = value.toStdString();
  auto r =
      exportRunConfig(RunConfig::defaults(), parseExportFormat(format.toStdString()).value(), o);
  QVERIFY(!r.ok());
  QCOMPARE(QString::fromStdString(r.errors().front().key), key);
}

void TestExport::slurmTimeLimits_data() {
  QTest::addColumn<QString>("limit");
  QTest::addColumn<bool>("valid");
  // Slurm's forms (sbatch --time): minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS.
  QTest::newRow("minutes") << "90" << true;
  QTest::newRow("zero") << "0" << true;
  QTest::newRow("mm:ss") << "30:15" << true;
  QTest::newRow("hh:mm:ss") << "24:00:00" << true;
  QTest::newRow("long hh:mm:ss") << "100:00:00" << true;
  QTest::newRow("d-hh") << "2-12" << true;
  QTest::newRow("d-hh:mm") << "2-12:30" << true;
  QTest::newRow("d-hh:mm:ss") << "7-00:00:00" << true;
  QTest::newRow("unlimited") << "UNLIMITED" << true;
  QTest::newRow("infinite") << "infinite" << true;
  QTest::newRow("largest") << "2147483646" << true;
  QTest::newRow("dashes only") << "----" << false;
  QTest::newRow("colons only") << ":::" << false;
  QTest::newRow("20 digits") << "99999999999999999999" << false;
  QTest::newRow("20 digits in hh:mm:ss") << "99999999999999999999:00:00" << false;
  QTest::newRow("over 32-bit minutes") << "2147483647" << false;
  QTest::newRow("hours of days overflow") << "9999999999-00" << false;
  QTest::newRow("four fields") << "1:2:3:4" << false;
  QTest::newRow("two dashes") << "1-2-3" << false;
  QTest::newRow("empty field") << "1::2" << false;
  QTest::newRow("trailing dash") << "1-" << false;
  QTest::newRow("leading dash") << "-5" << false;
  QTest::newRow("seconds 60") << "10:60" << false;
  QTest::newRow("minutes 60") << "1:60:00" << false;
  QTest::newRow("day hours 24") << "1-24" << false;
  QTest::newRow("empty") << "" << false;
  QTest::newRow("words") << "1 day" << false;
}

void TestExport::slurmTimeLimits() {
  QFETCH(QString, limit);
  QFETCH(bool, valid);
  QCOMPARE(isSlurmTimeLimit(limit.toStdString()), valid);
  ExportOptions o;
  o.time = limit.toStdString();
  auto r = exportRunConfig(RunConfig::defaults(), ExportFormat::Slurm, o);
  QCOMPARE(r.ok(), valid);
  if (valid) {
    QVERIFY(r.value().find("#SBATCH --time=" + o.time + "\n") != std::string::npos);
  } else {
    QCOMPARE(r.errors().front().key, std::string("time"));
    QVERIFY(r.errors().front().message.find("'" + o.time + "'") != std::string::npos);
  }
}

QTEST_GUILESS_MAIN(TestExport)
#include "tst_export.moc"
