// Project files: create, save, reopen, bad files, atomic save, resolving a config.
#include <QtTest>

#include <filesystem>
#include <tuple>

#include "core/base/atomic_file.h"
#include "core/config/project.h"

using namespace stave::config;
using stave::Status;
namespace fs = std::filesystem;

Q_DECLARE_METATYPE(std::string)

namespace {
std::string writeDataYaml(const QTemporaryDir& dir, const QString& rel = "data/data.yaml") {
  const std::string path = dir.filePath(rel).toStdString();
  if (!stave::writeFileAtomic(path, "path: .\ntrain: images\nval: images\nnames: [a]\n").ok())
    qFatal("cannot write %s", path.c_str());
  return path;
}

bool mentions(const std::vector<stave::Error>& errors, const std::string& key,
              const std::string& text) {
  for (const auto& e : errors)
    // A key path that ends in an index may go on ("ui.x[0][0]" names "ui.x[0][0][0]...").
    if ((e.key == key || (key.back() == ']' && e.key.rfind(key, 0) == 0)) &&
        e.message.find(text) != std::string::npos)
      return true;
  return false;
}

int tempFilesIn(const std::string& folder) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(folder))
    n += e.path().filename().string().find(".tmp-") != std::string::npos;
  return n;
}
}  // namespace

class TestProject : public QObject {
  Q_OBJECT
 private slots:
  void createAndReopen();
  void onlyChangedValuesAreStored();
  void refusesToOverwrite();
  void createErrors();
  void badFiles_data();
  void badFiles();
  void folderInsteadOfFile();
  void missingDataset();
  void atomicSaveKeepsOldFile();
  void resolve();
};

void TestProject::createAndReopen() {
  QTemporaryDir dir;
  const std::string data = writeDataYaml(dir);
  auto p = createProject(dir.filePath("proj").toStdString(), "my project", data);
  QVERIFY2(p.ok(), p.errorText().c_str());
  QCOMPARE(p->path, dir.filePath("proj/my project.stave").toStdString());
  QCOMPARE(p->dataset, std::string("../data/data.yaml"));
  QCOMPARE(p->datasetPath(), data);
  QCOMPARE(p->activeConfig, std::string("default"));
  QVERIFY(projectProblems(p.value()).empty());

  Project edited = p.value();
  RunConfig fast = RunConfig::defaults();
  QVERIFY(fast.set("epochs", int64_t(3)).ok());
  QVERIFY(fast.set("lr0", 0.02).ok());
  QVERIFY(fast.set("name", std::string("quote \" and 中文")).ok());
  edited.setConfig("fast", fast);
  edited.activeConfig = "fast";
  edited.uiState = {{"page", "charts"}, {"splitter", {120, 480}}, {"nested", {{"x", true}}}};
  QVERIFY(saveProject(edited).ok());

  auto back = loadProject(edited.path);
  QVERIFY2(back.ok(), back.errorText().c_str());
  QCOMPARE(back->name, std::string("my project"));
  QCOMPARE(back->dataset, edited.dataset);
  QCOMPARE(back->activeConfig, std::string("fast"));
  QCOMPARE(int(back->configs.size()), 2);
  QCOMPARE(back->configs[0].first, std::string("default"));
  QCOMPARE(back->configs[1].first, std::string("fast"));
  QVERIFY(*back->config("fast") == fast);
  QVERIFY(*back->config("default") == RunConfig::defaults());
  QCOMPARE(back->uiState, edited.uiState);
  // Saving again writes the same bytes: nothing is lost or reordered.
  QCOMPARE(projectToJson(back.value()), projectToJson(edited));

  // The whole folder moves: the dataset path is relative, so it still resolves.
  const std::string moved = dir.filePath("moved").toStdString();
  fs::create_directories(moved);
  fs::rename(dir.filePath("proj").toStdString(), moved + "/proj");
  fs::rename(dir.filePath("data").toStdString(), moved + "/data");
  auto reopened = loadProject(moved + "/proj/my project.stave");
  QVERIFY(reopened.ok());
  QCOMPARE(reopened->datasetPath(), moved + "/data/data.yaml");
  QVERIFY(projectProblems(reopened.value()).empty());
}

void TestProject::onlyChangedValuesAreStored() {
  QTemporaryDir dir;
  auto p = createProject(dir.path().toStdString(), "p", writeDataYaml(dir));
  QVERIFY(p.ok());
  RunConfig c = RunConfig::defaults();
  QVERIFY(c.set("batch", int64_t(8)).ok());
  QVERIFY(c.set("data", std::string("/elsewhere/data.yaml")).ok());  // not stored: project's wins
  p->setConfig("default", c);
  QVERIFY(saveProject(p.value()).ok());
  auto j = nlohmann::json::parse(stave::readFile(p->path).value());
  QCOMPARE(j["format"].get<std::string>(), std::string("stave-project"));
  QCOMPARE(j["version"].get<int>(), 1);
  QCOMPARE(j["configs"]["default"], nlohmann::json({{"batch", 8}}));
  QCOMPARE(j["dataset"].get<std::string>(), std::string("data/data.yaml"));
  QVERIFY(j["ui"].is_object());
}

void TestProject::refusesToOverwrite() {
  QTemporaryDir dir;
  const std::string data = writeDataYaml(dir);
  QVERIFY(createProject(dir.path().toStdString(), "p", data).ok());
  const std::string before = stave::readFile(dir.filePath("p.stave").toStdString()).value();
  auto again = createProject(dir.path().toStdString(), "p", data);
  QVERIFY(!again.ok());
  QVERIFY(again.errorText().find("already exists") != std::string::npos);
  QCOMPARE(stave::readFile(dir.filePath("p.stave").toStdString()).value(), before);
}

void TestProject::createErrors() {
  QTemporaryDir dir;
  const std::string data = writeDataYaml(dir);
  auto noData =
      createProject(dir.path().toStdString(), "p", dir.filePath("none.yaml").toStdString());
  QVERIFY(!noData.ok());
  QVERIFY(mentions(noData.errors(), "data", "dataset file not found"));
  QVERIFY(!fs::exists(dir.filePath("p.stave").toStdString()));
  for (const char* bad : {"", "a/b", "..", "."}) {
    auto r = createProject(dir.path().toStdString(), bad, data);
    QVERIFY2(!r.ok(), bad);
    QVERIFY(mentions(r.errors(), "name", "file name"));
  }
}

void TestProject::badFiles_data() {
  QTest::addColumn<std::string>("content");
  QTest::addColumn<std::string>("key");
  QTest::addColumn<std::string>("message");
  QTest::addColumn<int>("line");
  const std::string good =
      "{\n  \"format\": \"stave-project\",\n  \"version\": 1,\n  \"name\": \"p\",\n"
      "  \"dataset\": \"data.yaml\",\n  \"active_config\": \"default\",\n"
      "  \"configs\": {\"default\": {}},\n  \"ui\": {}\n}\n";
  QTest::newRow("truncated") << good.substr(0, good.size() / 2) << std::string()
                             << std::string("truncated or malformed") << 5;
  QTest::newRow("empty") << std::string() << std::string() << std::string("truncated or malformed")
                         << 1;
  QTest::newRow("malformed") << std::string(
                                    "{\n\"format\": \"stave-project\",\n\"version\": 1,,\n}")
                             << std::string() << std::string("truncated or malformed") << 3;
  QTest::newRow("not a project") << std::string("{\"format\": \"other\"}") << std::string("format")
                                 << std::string("not a Stave project file") << 0;
  QTest::newRow("newer version") << std::string("{\"format\": \"stave-project\", \"version\": 2}")
                                 << std::string("version")
                                 << std::string("newer Stave (format version 2)") << 0;
  QTest::newRow("version type") << std::string(
                                       "{\"format\": \"stave-project\", \"version\": \"1\"}")
                                << std::string("version") << std::string("not an integer") << 0;
  QTest::newRow("no dataset")
      << std::string(
             "{\"format\": \"stave-project\", \"version\": 1, \"name\": \"p\", "
             "\"configs\": {}}")
      << std::string("dataset") << std::string("missing") << 0;
  QTest::newRow("bad config value")
      << std::string(
             "{\"format\": \"stave-project\", \"version\": 1, \"name\": \"p\", "
             "\"dataset\": \"d.yaml\", \"configs\": {\"fast\": {\"epochs\": \"ten\"}}}")
      << std::string("epochs") << std::string("expected an integer") << 0;
  QTest::newRow("unknown config key")
      << std::string(
             "{\"format\": \"stave-project\", \"version\": 1, \"name\": \"p\", "
             "\"dataset\": \"d.yaml\", \"configs\": {\"fast\": {\"epoch\": 3}}}")
      << std::string("epoch") << std::string("did you mean 'epochs'") << 0;
  // A number no double holds aborted the studio (nlohmann's out_of_range was caught nowhere).
  QTest::newRow("number out of range in ui")
      << std::string("{\"format\": \"stave-project\", \"version\": 1, \"name\": \"p\",\n"
                     "\"dataset\": \"d.yaml\", \"configs\": {},\n"
                     "\"ui\": {\"charts\": {\"zoom\": [1, 1e999]}}}")
      << std::string("ui.charts.zoom[1]") << std::string("number out of range '1e999'") << 3;
  QTest::newRow("ui not object")
      << std::string(
             "{\"format\": \"stave-project\", \"version\": 1, \"name\": \"p\", "
             "\"dataset\": \"d.yaml\", \"configs\": {}, \"ui\": 3}")
      << std::string("ui") << std::string("not an object") << 0;
  // A key written twice: JSON parsers keep the last; Stave names both lines instead.
  QTest::newRow("duplicate top-level key")
      << std::string("{\n\"format\": \"stave-project\",\n\"version\": 1,\n\"name\": \"p\",\n"
                     "\"dataset\": \"a.yaml\",\n\"dataset\": \"b.yaml\",\n\"configs\": {}}\n")
      << std::string("dataset") << std::string("duplicate key (also on line 5)") << 6;
  QTest::newRow("duplicate config key")
      << std::string("{\"format\": \"stave-project\", \"version\": 1, \"name\": \"p\",\n"
                     "\"dataset\": \"d.yaml\", \"configs\": {\"fast\": {\"lr0\": 0.1,\n"
                     "\"lr0\": 0.2}}}")
      << std::string("lr0") << std::string("duplicate key (also on line 2)") << 3;
  // Nested 100,000 deep used to overflow the stack (SIGSEGV); 50,000 was accepted.
  using Row = std::tuple<const char*, std::string, std::string, std::string>;
  for (const auto& [where, prefix, suffix, key] : std::vector<Row>{
       Row{
            "in a config value",
            "{\"format\": \"stave-project\", \"version\": 1, \"name\": \"p\",\n"
            "\"dataset\": \"d.yaml\", \"configs\": {\"fast\": {\"lr0\": ",
            "}}}", "configs.fast.lr0[0][0]"},
        Row{"in ui",
         "{\"format\": \"stave-project\", \"version\": 1, \"name\": \"p\",\n"
         "\"dataset\": \"d.yaml\", \"configs\": {}, \"ui\": {\"x\": ",
         "}}", "ui.x[0][0]"}}) {
    const std::string deep = prefix + std::string(100000, '[') + std::string(100000, ']') + suffix;
    QTest::newRow((std::string("nested 100000 deep ") + where).c_str())
        << deep << key << std::string("nested more than 128 levels deep") << 2;
  }
}

void TestProject::badFiles() {
  QFETCH(std::string, content);
  QFETCH(std::string, key);
  QFETCH(std::string, message);
  QFETCH(int, line);
  QTemporaryDir dir;
  const std::string path = dir.filePath("p.stave").toStdString();
  QVERIFY(stave::writeFileAtomic(path, content).ok());
  auto r = loadProject(path);
  QVERIFY(!r.ok());
  QVERIFY2(mentions(r.errors(), key, message), r.errorText().c_str());
  QCOMPARE(r.errors().front().file.substr(0, path.size()), path);
  if (line > 0) QCOMPARE(r.errors().front().line, line);
  if (key == "epochs") QVERIFY(r.errorText().find("config 'fast'") != std::string::npos);
  // Loading never changes the file.
  QCOMPARE(stave::readFile(path).value(), content);
}

void TestProject::folderInsteadOfFile() {
  QTemporaryDir dir;
  const std::string path = dir.filePath("looks.stave").toStdString();
  fs::create_directories(path);
  auto r = loadProject(path);
  QVERIFY(!r.ok());
  QVERIFY2(r.errorText().find("is a folder, not a file") != std::string::npos,
           r.errorText().c_str());
  QVERIFY(r.errorText().find("malformed") == std::string::npos);
}

void TestProject::missingDataset() {
  QTemporaryDir dir;
  const std::string data = writeDataYaml(dir);
  auto p = createProject(dir.path().toStdString(), "p", data);
  QVERIFY(p.ok());
  fs::remove(data);
  auto back = loadProject(p->path);
  QVERIFY(back.ok());  // the project still opens, so the dataset can be fixed
  auto problems = projectProblems(back.value());
  QCOMPARE(int(problems.size()), 1);
  QVERIFY(mentions(problems, "dataset", "dataset not found: " + data));
  auto resolved = resolveProjectConfig(back.value(), "", {});
  QVERIFY(!resolved.ok());
  QVERIFY(mentions(resolved.errors(), "dataset", "dataset not found"));
}

void TestProject::atomicSaveKeepsOldFile() {
  QTemporaryDir dir;
  auto p = createProject(dir.path().toStdString(), "p", writeDataYaml(dir));
  QVERIFY(p.ok());
  const std::string before = stave::readFile(p->path).value();
  Project changed = p.value();
  changed.name = "renamed";
  RunConfig c = RunConfig::defaults();
  QVERIFY(c.set("epochs", int64_t(1)).ok());
  changed.setConfig("other", c);
  stave::testing::setFailBeforeRename(true);
  Status st = saveProject(changed);
  stave::testing::setFailBeforeRename(false);
  QVERIFY(!st.ok());
  QVERIFY(st.errorText().find(p->path) != std::string::npos);
  QCOMPARE(stave::readFile(p->path).value(), before);  // old file intact
  QCOMPARE(tempFilesIn(dir.path().toStdString()), 0);  // no debris
  auto back = loadProject(p->path);
  QVERIFY(back.ok());
  QCOMPARE(back->name, std::string("p"));
  // And the next save succeeds.
  QVERIFY(saveProject(changed).ok());
  QCOMPARE(loadProject(p->path)->name, std::string("renamed"));
}

void TestProject::resolve() {
  QTemporaryDir dir;
  const std::string data = writeDataYaml(dir, "d/data.yaml");
  auto p = createProject(dir.filePath("x").toStdString(), "p", data);
  QVERIFY(p.ok());
  RunConfig fast = RunConfig::defaults();
  QVERIFY(fast.set("epochs", int64_t(5)).ok());
  p->setConfig("fast", fast);
  auto r = resolveProjectConfig(p.value(), "fast", {"batch=4"});
  QVERIFY2(r.ok(), r.errorText().c_str());
  QCOMPARE(r->getString("data"), data);
  QVERIFY(fs::path(r->getString("data")).is_absolute());
  QCOMPARE(r->getInt("epochs"), int64_t(5));
  QCOMPARE(r->getInt("batch"), int64_t(4));
  auto active = resolveProjectConfig(p.value(), "", {});
  QVERIFY(active.ok());
  QCOMPARE(active->getInt("epochs"), int64_t(100));
  auto missing = resolveProjectConfig(p.value(), "nope", {});
  QVERIFY(!missing.ok());
  QVERIFY(mentions(missing.errors(), "config", "'default', 'fast'"));
  auto bad = resolveProjectConfig(p.value(), "fast", {"batch=0", "foo=1"});
  QVERIFY(!bad.ok());
  QCOMPARE(int(bad.errors().size()), 2);
  QCOMPARE(bad.errors()[0].file, std::string("command line"));
}

QTEST_APPLESS_MAIN(TestProject)
#include "tst_project.moc"
