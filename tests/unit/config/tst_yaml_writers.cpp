// Every YAML the config library writes (config.yaml, the Ultralytics args.yaml, the Kubernetes
// manifest, the config inside the shell and Slurm scripts) keeps a hostile string one scalar: it
// reads back identically with yaml-cpp and adds no key, document or list item.
#include <QtTest>

#include <set>

#include <yaml-cpp/yaml.h>

#include "core/config/export.h"
#include "core/config/yaml_emit.h"

using namespace stave::config;

Q_DECLARE_METATYPE(std::string)

namespace {
std::set<std::string> keysOf(const YAML::Node& map) {
  std::set<std::string> keys;
  for (const auto& kv : map) keys.insert(kv.first.Scalar());
  return keys;
}

std::set<std::string> schemaKeys() {
  std::set<std::string> keys;
  for (const auto& p : runConfigSchema()) keys.insert(p.name);
  return keys;
}

// The config text between `<<'STAVE_CONFIG_EOF'` and its terminator line.
std::string heredocBody(const std::string& script) {
  const std::string open = "<<'STAVE_CONFIG_EOF'\n";
  const auto begin = script.find(open);
  if (begin == std::string::npos) return {};
  const auto end = script.find("\nSTAVE_CONFIG_EOF\n", begin);
  if (end == std::string::npos) return {};
  return script.substr(begin + open.size(), end + 1 - begin - open.size());
}

std::string exportOrDie(const RunConfig& c, ExportFormat f, const ExportOptions& o = {}) {
  auto r = exportRunConfig(c, f, o);
  if (!r) qFatal("export failed: %s", r.errorText().c_str());
  return r.value();
}
}  // namespace

class TestYamlWriters : public QObject {
  Q_OBJECT
 private slots:
  void runConfigYaml_data() { addHostileRows(); }
  void runConfigYaml();
  void ultralyticsYaml_data() { addHostileRows(); }
  void ultralyticsYaml();
  void k8sManifest_data() { addHostileRows(); }
  void k8sManifest();
  void shellAndSlurmHeredocs_data() { addHostileRows(); }
  void shellAndSlurmHeredocs();
  void emitValueTypes();
  void invalidUtf8StaysOneScalar();

 private:
  static void addHostileRows();
};

void TestYamlWriters::addHostileRows() {
  QTest::addColumn<std::string>("text");
  QTest::newRow("empty") << std::string();
  QTest::newRow("double quote") << std::string("say \"hi\"");
  QTest::newRow("single quote") << std::string("it's 'quoted'");
  QTest::newRow("backslash") << std::string("C:\\data\\new");
  QTest::newRow("newline") << std::string("a\nb: injected");
  QTest::newRow("crlf") << std::string("a\r\nb: injected\r");
  QTest::newRow("tab and control") << std::string("a\tb\x01\x1f c");
  QTest::newRow("del") << std::string(
      "a\x7f"
      "b");
  QTest::newRow("colon") << std::string("key: value");
  QTest::newRow("hash") << std::string("#not a comment");
  QTest::newRow("space hash") << std::string("x # comment?");
  QTest::newRow("leading dash") << std::string("- item");
  QTest::newRow("flow map") << std::string("{a: 1, b: [2]}");
  QTest::newRow("flow seq") << std::string("[x, y]");
  QTest::newRow("anchor alias tag") << std::string("&a *a !!str !tag");
  QTest::newRow("block scalars") << std::string("| > %YAML @ `");
  QTest::newRow("document markers") << std::string("---\n...\n--- x");
  QTest::newRow("leading trailing spaces") << std::string("  padded  ");
  QTest::newRow("null word") << std::string("null");
  QTest::newRow("tilde") << std::string("~");
  QTest::newRow("bool word") << std::string("true");
  QTest::newRow("number") << std::string("1.5e3");
  QTest::newRow("unicode") << std::string("中文/路径 ñ émoji 🚀");
  QTest::newRow("unicode breaks") << std::string(
      "a\xc2\x85"
      "b\xe2\x80\xa8"
      "c\xef\xbb\xbf");
  QTest::newRow("heredoc terminator") << std::string("x\nSTAVE_CONFIG_EOF\ny");
  QTest::newRow("shell") << std::string("$(touch pwned) `touch pwned` ; rm -rf / '\"");
}

void TestYamlWriters::runConfigYaml() {
  QFETCH(std::string, text);
  RunConfig c = RunConfig::defaults();
  QVERIFY(c.set("data", text).ok());
  QVERIFY(c.set("project", "/runs/" + text).ok());
  const std::string yaml = toYaml(c);
  const YAML::Node root = YAML::Load(yaml);
  QVERIFY(root.IsMap());
  QCOMPARE(keysOf(root), schemaKeys());
  QCOMPARE(root["data"].Scalar(), text);
  QCOMPARE(root["project"].Scalar(), "/runs/" + text);
  auto back = parseRunConfigYaml(yaml, "config.yaml");
  QVERIFY2(back.ok(), back.errorText().c_str());
  QVERIFY(back.value() == c);
}

void TestYamlWriters::ultralyticsYaml() {
  QFETCH(std::string, text);
  RunConfig c = RunConfig::defaults();
  QVERIFY(c.set("data", text).ok());
  QVERIFY(c.set("project", text).ok());
  QVERIFY(c.set("pretrained", text).ok());
  // Stave-only keys are listed in comments: a hostile value must stay inside its comment.
  QVERIFY(c.set("master_addr", text).ok());
  QVERIFY(c.set("nccl_debug", text).ok());
  const std::string yaml = toUltralyticsYaml(c, "description " + text);
  const YAML::Node root = YAML::Load(yaml);
  QVERIFY(root.IsMap());
  std::set<std::string> expected = {"task", "mode", "device"};
  for (const auto& p : runConfigSchema())
    if (p.ultralytics) expected.insert(p.name);
  QCOMPARE(keysOf(root), expected);
  QCOMPARE(root["data"].Scalar(), text);
  if (text.empty())
    QVERIFY(root["project"].IsNull());
  else
    QCOMPARE(root["project"].Scalar(), text);
  QCOMPARE(root["pretrained"].Scalar(), std::string("false"));
  auto back = importUltralytics(yaml, "args.yaml");
  QVERIFY2(back.ok(), back.errorText().c_str());
  QCOMPARE(back->config.getString("data"), text);
  QCOMPARE(back->config.getString("project"), text);
  QVERIFY(back->droppedKeys.empty());
}

void TestYamlWriters::k8sManifest() {
  QFETCH(std::string, text);
  RunConfig c = RunConfig::defaults();
  QVERIFY(c.set("data", text).ok());
  ExportOptions o;
  o.jobName = text;
  o.description = text;
  o.image = "img " + text;
  o.nodes = 2;
  o.gpusPerNode = 1;
  const std::vector<YAML::Node> docs = YAML::LoadAll(exportOrDie(c, ExportFormat::K8s, o));
  QCOMPARE(int(docs.size()), 2);
  QCOMPARE(keysOf(docs[0]), (std::set<std::string>{"apiVersion", "kind", "metadata", "data"}));
  QCOMPARE(keysOf(docs[0]["data"]), std::set<std::string>{"run.yaml"});
  auto run = parseRunConfigYaml(docs[0]["data"]["run.yaml"].Scalar(), "configmap");
  QVERIFY2(run.ok(), run.errorText().c_str());
  QCOMPARE(run->getString("data"), text);
  QCOMPARE(keysOf(docs[1]), (std::set<std::string>{"apiVersion", "kind", "metadata", "spec"}));
  for (const char* role : {"Master", "Worker"}) {
    const YAML::Node containers =
        docs[1]["spec"]["pytorchReplicaSpecs"][role]["template"]["spec"]["containers"];
    QCOMPARE(int(containers.size()), 1);
    QCOMPARE(containers[0]["image"].Scalar(), o.image);
    QCOMPARE(int(containers[0]["args"].size()), 1);
  }
}

void TestYamlWriters::shellAndSlurmHeredocs() {
  QFETCH(std::string, text);
  RunConfig c = RunConfig::defaults();
  QVERIFY(c.set("data", text).ok());
  for (auto f : {ExportFormat::Shell, ExportFormat::Slurm}) {
    ExportOptions o;
    o.description = text;
    const std::string body = heredocBody(exportOrDie(c, f, o));
    QVERIFY2(!body.empty(), exportFormatName(f));
    auto back = parseRunConfigYaml(body, "heredoc");
    QVERIFY2(back.ok(), back.errorText().c_str());
    QCOMPARE(back->getString("data"), text);
  }
}

void TestYamlWriters::emitValueTypes() {
  // Each type reads back as that type: floats with a point or exponent, strings quoted.
  YAML::Emitter out;
  out << YAML::BeginMap;
  const std::vector<std::pair<std::string, Value>> values = {{"b", true},
                                                             {"i", int64_t{-7}},
                                                             {"f", 3.0},
                                                             {"e", 1e-05},
                                                             {"n", -2.5},
                                                             {"s", std::string("3.0")},
                                                             {"l", std::vector<int64_t>{1, 2, 3}},
                                                             {"z", std::vector<int64_t>{}}};
  for (const auto& [key, v] : values) {
    out << YAML::Key << key << YAML::Value;
    emitValue(out, v);
  }
  out << YAML::EndMap;
  const std::string text = emittedText(out);
  QCOMPARE(text.back(), '\n');
  QVERIFY2(text.find("f: 3.0\n") != std::string::npos, text.c_str());
  QVERIFY2(text.find("e: 1.0e-05\n") != std::string::npos, text.c_str());
  QVERIFY2(text.find("s: \"3.0\"\n") != std::string::npos, text.c_str());
  QVERIFY2(text.find("l: [1, 2, 3]\n") != std::string::npos, text.c_str());
  QVERIFY2(text.find("z: []\n") != std::string::npos, text.c_str());
  const YAML::Node root = YAML::Load(text);
  QCOMPARE(root["b"].as<bool>(), true);
  QCOMPARE(root["i"].as<int64_t>(), int64_t{-7});
  QCOMPARE(root["n"].as<double>(), -2.5);
  QCOMPARE(root["s"].Tag(), std::string("!"));  // quoted: a string, not a number
  QCOMPARE(root["f"].Tag(), std::string("?"));  // plain: a number
}

void TestYamlWriters::invalidUtf8StaysOneScalar() {
  // YAML text is Unicode: bytes that are not UTF-8 are written as U+FFFD, as the JSON exports
  // write them; the file stays valid and the key stays one scalar.
  RunConfig c = RunConfig::defaults();
  QVERIFY(c.set("data", std::string("/d/\xff\xfe: x\n- y")).ok());
  const YAML::Node root = YAML::Load(toYaml(c));
  QCOMPARE(keysOf(root), schemaKeys());
  QCOMPARE(root["data"].Scalar(), std::string("/d/\xef\xbf\xbd\xef\xbf\xbd: x\n- y"));
}

QTEST_GUILESS_MAIN(TestYamlWriters)
#include "tst_yaml_writers.moc"
