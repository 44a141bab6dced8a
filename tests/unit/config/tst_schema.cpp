// The schema table, YAML/JSON io, overrides, validation and derived values.
#include <QtTest>

#include <random>

#include "core/base/atomic_file.h"
#include "core/config/run_config.h"

using namespace stave::config;
using stave::Status;

Q_DECLARE_METATYPE(std::string)

namespace {
// A config with every key set to a random valid non-default-ish value (fixed seed per row).
RunConfig randomConfig(uint32_t seed) {
  std::mt19937 rng(seed);
  RunConfig c = RunConfig::defaults();
  for (const auto& p : runConfigSchema()) {
    Value v = p.defaultValue;
    switch (p.type) {
      case ParamType::Bool:
        v = bool(rng() & 1);
        break;
      case ParamType::Int: {
        if (p.name == "imgsz") {
          v = int64_t(32 * (1 + rng() % 40));
        } else {
          const double hi = std::min(p.max, p.min + 1000.0);
          v = int64_t(p.min + std::floor(std::uniform_real_distribution<double>(0, 1)(rng) *
                                         (hi - p.min + 1)));
          if (std::get<int64_t>(v) > p.max) v = int64_t(p.max);
        }
        break;
      }
      case ParamType::Float: {
        const double hi = std::min(p.max, p.min + 100.0);
        // Awkward doubles (1/3-like, tiny) test the exact float round trip.
        double x = std::uniform_real_distribution<double>(p.min, hi)(rng);
        if (rng() % 4 == 0) x = p.min + (hi - p.min) * 1e-7;
        v = x;
        break;
      }
      case ParamType::Enum:
        v = p.choices[rng() % p.choices.size()];
        break;
      case ParamType::String:
      case ParamType::Path: {
        static const char* pool[] = {"",
                                     "plain",
                                     "with space",
                                     "quote\"s and 'single'",
                                     "back\\slash",
                                     "$(touch x) `y`",
                                     "line\nbreak\ttab",
                                     "中文/路径",
                                     "#not a comment",
                                     "key: value",
                                     "- dash"};
        v = std::string(pool[rng() % (sizeof pool / sizeof *pool)]);
        break;
      }
      case ParamType::IntList:
        v = std::vector<int64_t>{int64_t(rng() % 8)};
        break;
    }
    if (!c.set(p.name, v).ok()) qFatal("cannot set %s", p.name.c_str());
  }
  // Keep the rules across keys satisfied: a run name is one folder name.
  if (!runNameProblem(c.getString("name")).empty()) c.set("name", std::string("run 'x' $(y)"));
  c.set("devices", std::string(rng() & 1 ? "" : "cpu"));
  c.set("master_addr", std::string("10.0.0.1"));
  c.set("socket_ifname", std::string(rng() & 1 ? "" : "eth0,^docker"));
  c.set("node_rank", int64_t(0));
  return c;
}

bool hasError(const std::vector<stave::Error>& errors, int line, const std::string& key,
              const std::string& text) {
  for (const auto& e : errors)
    if ((line < 0 || e.line == line) && e.key == key && e.message.find(text) != std::string::npos)
      return true;
  return false;
}
}  // namespace

class TestSchema : public QObject {
  Q_OBJECT
 private slots:
  void everyKeyHasOneRow_data();
  void everyKeyHasOneRow();
  void rowsAreConsistent();
  void defaultsAreValid();
  void roundTrip_data();
  void roundTrip();
  void floatFormatting_data();
  void floatFormatting();
  void parseErrors_data();
  void parseErrors();
  void allErrorsTogether();
  void jsonAndYamlLoadByContent();
  void emptyConfigFiles_data();
  void emptyConfigFiles();
  void triStateKeyReadsBools();
  void overrides_data();
  void overrides();
  void getters();
  void modelNames();
  void closestKey();
  void derived_data();
  void derived();
  void deriveResolvesTheOptimizer();
  void docsAreCurrent();
  void readmeResumeListIsCurrent();
  void translationSourceIsCurrent();
};

void TestSchema::everyKeyHasOneRow_data() {
  QTest::addColumn<QString>("key");
  QTest::addColumn<QString>("type");
  QTest::addColumn<QString>("def");
  QTest::addColumn<bool>("ultralytics");
  struct Row {
    const char *k, *t, *d;
    bool u;
  };
  const Row rows[] = {
      {"data", "path", "", true},
      {"model", "enum", "yolov8n", true},
      {"pretrained", "path", "", true},
      {"imgsz", "int", "640", true},
      {"epochs", "int", "100", true},
      {"batch", "int", "16", true},
      {"nbs", "int", "64", true},
      {"workers", "int", "8", true},
      {"optimizer", "enum", "auto", true},
      {"lr0", "float", "0.01", true},
      {"lrf", "float", "0.01", true},
      {"momentum", "float", "0.937", true},
      {"weight_decay", "float", "0.0005", true},
      {"warmup_epochs", "float", "3.0", true},
      {"warmup_momentum", "float", "0.8", true},
      {"warmup_bias_lr", "float", "0.1", true},
      {"cos_lr", "bool", "false", true},
      {"box", "float", "7.5", true},
      {"cls", "float", "0.5", true},
      {"dfl", "float", "1.5", true},
      {"hsv_h", "float", "0.015", true},
      {"hsv_s", "float", "0.7", true},
      {"hsv_v", "float", "0.4", true},
      {"degrees", "float", "0.0", true},
      {"translate", "float", "0.1", true},
      {"scale", "float", "0.5", true},
      {"shear", "float", "0.0", true},
      {"perspective", "float", "0.0", true},
      {"flipud", "float", "0.0", true},
      {"fliplr", "float", "0.5", true},
      {"mosaic", "float", "1.0", true},
      {"mixup", "float", "0.0", true},
      {"close_mosaic", "int", "10", true},
      {"patience", "int", "100", true},
      {"save_period", "int", "-1", true},
      {"val_period", "int", "1", false},
      {"time", "float", "0.0", true},
      {"fraction", "float", "1.0", true},
      {"single_cls", "bool", "false", true},
      {"seed", "int", "0", true},
      {"deterministic", "bool", "true", true},
      {"cache", "enum", "none", true},
      {"amp", "bool", "true", true},
      {"resume", "bool", "false", true},
      {"val", "bool", "true", true},
      {"conf", "float", "0.001", true},
      {"iou", "float", "0.7", true},
      {"max_det", "int", "300", true},
      {"rect", "bool", "true", false},
      {"multi_scale", "bool", "false", true},
      {"freeze", "int", "0", true},
      {"devices", "string", "", false},
      {"nproc", "int", "1", false},
      {"precision", "enum", "auto", false},
      {"channels_last", "enum", "auto", false},
      {"pin_memory", "bool", "true", false},
      {"prefetch", "int", "4", false},
      {"persistent_workers", "bool", "true", false},
      {"threads", "int", "0", false},
      {"scale_lr_with_batch", "bool", "false", false},
      {"sync_bn", "bool", "false", false},
      {"bucket_mb", "float", "25.0", false},
      {"nccl_p2p_level", "enum", "", false},
      {"nccl_shm_disable", "bool", "false", false},
      {"nccl_debug", "enum", "", false},
      {"nccl_timeout_s", "int", "1800", false},
      {"master_addr", "string", "127.0.0.1", false},
      {"master_port", "int", "0", false},
      {"socket_ifname", "string", "", false},
      {"nnodes", "int", "1", false},
      {"node_rank", "int", "0", false},
      {"name", "string", "", true},
      {"project", "string", "", true},
  };
  for (const auto& r : rows)
    QTest::newRow(r.k) << QString(r.k) << QString(r.t) << QString(r.d) << r.u;
}

void TestSchema::everyKeyHasOneRow() {
  QFETCH(QString, key);
  QFETCH(QString, type);
  QFETCH(QString, def);
  QFETCH(bool, ultralytics);
  int rows = 0;
  for (const auto& p : runConfigSchema()) rows += p.name == key.toStdString();
  QCOMPARE(rows, 1);
  const ParamSpec* p = findParam(key.toStdString());
  QVERIFY(p);
  QCOMPARE(QString(paramTypeName(p->type)), type);
  QCOMPARE(QString::fromStdString(formatValue(p->defaultValue)), def);
  QCOMPARE(p->ultralytics, ultralytics);
}

void TestSchema::rowsAreConsistent() {
  for (const auto& p : runConfigSchema()) {
    QVERIFY2(valueHasType(p.type, p.defaultValue), p.name.c_str());
    QVERIFY2(!p.help.empty() && p.help.find('\n') == std::string::npos, p.name.c_str());
    QVERIFY2((p.type == ParamType::Enum) == !p.choices.empty(), p.name.c_str());
    QVERIFY2(checkValue(p, p.defaultValue).empty(), p.name.c_str());
  }
  QVERIFY(!findParam("no_such_key"));
}

void TestSchema::defaultsAreValid() {
  QVERIFY(validate(RunConfig::defaults()).empty());
}

void TestSchema::roundTrip_data() {
  QTest::addColumn<uint>("seed");
  for (uint s = 1; s <= 12; ++s) QTest::newRow(qPrintable(QString("seed %1").arg(s))) << s;
}

void TestSchema::roundTrip() {
  QFETCH(uint, seed);
  const RunConfig c = randomConfig(seed);
  QVERIFY(validate(c).empty());
  QVERIFY(c != RunConfig::defaults());
  auto fromYaml = parseRunConfigYaml(toYaml(c), "mem.yaml");
  QVERIFY2(fromYaml.ok(), fromYaml.errorText().c_str());
  QVERIFY(fromYaml.value() == c);
  auto fromJson = parseRunConfigYaml(toJson(c), "mem.json");
  QVERIFY2(fromJson.ok(), fromJson.errorText().c_str());
  QVERIFY(fromJson.value() == c);
  // yaml -> json -> yaml gives the same text; the in-memory JSON object reads back too.
  QCOMPARE(toYaml(fromJson.value()), toYaml(c));
  auto fromObject = runConfigFromJson(nlohmann::json::parse(toJson(c)), "obj");
  QVERIFY2(fromObject.ok(), fromObject.errorText().c_str());
  QVERIFY(fromObject.value() == c);
  // Only the changed keys, applied to defaults, give the same config.
  auto changed = runConfigFromJson(nlohmann::json::parse(toJsonObject(c, true).dump()), "chg");
  QVERIFY(changed.ok());
  QVERIFY(changed.value() == c);
}

void TestSchema::floatFormatting_data() {
  QTest::addColumn<double>("value");
  QTest::addColumn<QString>("text");
  QTest::newRow("integral") << 3.0 << "3.0";
  QTest::newRow("small") << 0.0005 << "0.0005";
  QTest::newRow("exponent") << 1e-05 << "1.0e-05";
  QTest::newRow("tenth") << 0.1 << "0.1";
  QTest::newRow("third") << 1.0 / 3.0 << "0.3333333333333333";
  QTest::newRow("negative") << -2.5 << "-2.5";
  QTest::newRow("large") << 1e20 << "1.0e+20";
}

void TestSchema::floatFormatting() {
  QFETCH(double, value);
  QFETCH(QString, text);
  QCOMPARE(QString::fromStdString(formatFloat(value)), text);
  QCOMPARE(std::strtod(formatFloat(value).c_str(), nullptr), value);
}

void TestSchema::parseErrors_data() {
  QTest::addColumn<std::string>("text");
  QTest::addColumn<int>("line");
  QTest::addColumn<std::string>("key");
  QTest::addColumn<std::string>("message");
  QTest::newRow("unknown key") << std::string("epochs: 3\nepoch: 5\n") << 2 << std::string("epoch")
                               << std::string("unknown key (did you mean 'epochs'?)");
  QTest::newRow("int from text") << std::string("epochs: abc\n") << 1 << std::string("epochs")
                                 << std::string("expected an integer in [1, 100000], got 'abc'");
  QTest::newRow("int from float") << std::string("\nepochs: 1.5\n") << 2 << std::string("epochs")
                                  << std::string("expected an integer");
  QTest::newRow("bool from 3") << std::string("amp: 3\n") << 1 << std::string("amp")
                               << std::string("expected true or false, got '3'");
  QTest::newRow("quoted number") << std::string("lr0: \"0.1\"\n") << 1 << std::string("lr0")
                                 << std::string("got the string \"0.1\"");
  QTest::newRow("null number") << std::string("batch:\n") << 1 << std::string("batch")
                               << std::string("got nothing (null)");
  QTest::newRow("list for float") << std::string("lr0: [1, 2]\n") << 1 << std::string("lr0")
                                  << std::string("got a list");
  QTest::newRow("mapping") << std::string("box: {a: 1}\n") << 1 << std::string("box")
                           << std::string("got a mapping");
  QTest::newRow("above max") << std::string("mosaic: 1.5\n") << 1 << std::string("mosaic")
                             << std::string("1.5 is out of range: expected a number in [0.0, 1.0]");
  QTest::newRow("below min") << std::string("batch: 0\n") << 1 << std::string("batch")
                             << std::string("expected an integer in [1, 65536]");
  QTest::newRow("enum") << std::string("optimizer: Adam\n") << 1 << std::string("optimizer")
                        << std::string("'Adam' is not valid: expected one of SGD, AdamW, auto");
  QTest::newRow("cache") << std::string("cache: true\n") << 1 << std::string("cache")
                         << std::string("expected one of none, ram, disk");
  QTest::newRow("model") << std::string("model: yolov5s\n") << 1 << std::string("model")
                         << std::string("expected one of yolov8n, yolov8s");
  QTest::newRow("imgsz stride") << std::string("imgsz: 650\n") << 1 << std::string("imgsz")
                                << std::string("multiple of 32");
  QTest::newRow("devices") << std::string("devices: gpu0\n") << 1 << std::string("devices")
                           << std::string("'0,1,3'");
  QTest::newRow("devices trailing comma")
      << std::string("devices: \"0,\"\n") << 1 << std::string("devices") << std::string("'0,'");
  QTest::newRow("devices twice") << std::string("devices: \"1,0,01\"\n") << 1
                                 << std::string("devices") << std::string("GPU 1 is listed twice");
  QTest::newRow("socket_ifname")
      << std::string("socket_ifname: \"eth0; rm -rf /\"\n") << 1 << std::string("socket_ifname")
      << std::string("is not a list of interface names");
  QTest::newRow("metrics port clash")
      << std::string("metrics_port: 29500\nmaster_port: 29500\n") << 1
      << std::string("metrics_port") << std::string("is master_port (29500)");
  QTest::newRow("run name too long")
      << std::string("name: " + std::string(300, 'a') + "\n") << 1 << std::string("name")
      << std::string("at most 200");
  QTest::newRow("duplicate") << std::string("epochs: 3\nbatch: 8\nepochs: 4\n") << 3
                             << std::string("epochs") << std::string("first set on line 1");
  QTest::newRow("node rank") << std::string("nnodes: 2\nnode_rank: 2\n") << 2
                             << std::string("node_rank") << std::string("less than nnodes (2)");
  QTest::newRow("nproc vs devices") << std::string("devices: \"0,1\"\nnproc: 3\n") << 2
                                    << std::string("nproc") << std::string("lists 2");
  QTest::newRow("not a mapping") << std::string("- epochs\n- 3\n") << 1 << std::string()
                                 << std::string("expected a mapping");
  QTest::newRow("bad yaml") << std::string("epochs: 3\nbatch: [1, 2\n") << 3 << std::string()
                            << std::string("not valid YAML");
  QTest::newRow("json type") << std::string("{\n  \"epochs\": \"10\"\n}\n") << 2
                             << std::string("epochs") << std::string("got the string \"10\"");
  QTest::newRow("json truncated") << std::string("{\n  \"epochs\": 10,\n  \"batch\"") << 3
                                  << std::string() << std::string("not valid JSON");
  QTest::newRow("json trailing comma")
      << std::string("{\"epochs\": 10,}\n") << 1 << std::string() << std::string("not valid JSON");
  QTest::newRow("json number out of range")
      << std::string("{\n  \"epochs\": 10,\n  \"lr0\": 1e999\n}\n") << 3 << std::string("lr0")
      << std::string("number out of range");
  QTest::newRow("json unknown") << std::string("{\"epochs\": 10,\n\"lr\": 0.1}") << 2
                                << std::string("lr") << std::string("unknown key");
}

void TestSchema::parseErrors() {
  QFETCH(std::string, text);
  QFETCH(int, line);
  QFETCH(std::string, key);
  QFETCH(std::string, message);
  auto r = parseRunConfigYaml(text, "cfg.yaml");
  QVERIFY(!r.ok());
  QVERIFY2(hasError(r.errors(), line, key, message), r.errorText().c_str());
  for (const auto& e : r.errors()) QCOMPARE(QString::fromStdString(e.file), QString("cfg.yaml"));
  // The text form names file, line and key.
  if (line > 0 && !key.empty())
    QVERIFY2(r.errorText().find("cfg.yaml:" + std::to_string(line) + ": " + key + ": ") !=
                 std::string::npos,
             r.errorText().c_str());
}

void TestSchema::allErrorsTogether() {
  auto r = parseRunConfigYaml("epochs: abc\namp: 3\nmosaic: 2\nfoo_bar_baz: 1\nbatch: 8\n", "x");
  QVERIFY(!r.ok());
  QCOMPARE(int(r.errors().size()), 4);
  QVERIFY(hasError(r.errors(), 1, "epochs", "integer"));
  QVERIFY(hasError(r.errors(), 2, "amp", "true or false"));
  QVERIFY(hasError(r.errors(), 3, "mosaic", "out of range"));
  QVERIFY(hasError(r.errors(), 4, "foo_bar_baz", "unknown key"));
}

void TestSchema::emptyConfigFiles_data() {
  QTest::addColumn<QByteArray>("text");
  QTest::addColumn<QString>("why");
  QTest::newRow("0 bytes") << QByteArray() << "the file is empty (0 bytes)";
  QTest::newRow("blank lines") << QByteArray("\n  \n\t\r\n")
                               << "the file is empty: it holds only blank lines";
  QTest::newRow("comments") << QByteArray("# nothing set\n  # nor here\n")
                            << "the file is empty: it holds only comments";
}

// A config file with no setting is reported as empty, naming the file (not as a missing
// dataset, as if the command line had been incomplete); the overrides do not hide it.
void TestSchema::emptyConfigFiles() {
  QFETCH(QByteArray, text);
  QFETCH(QString, why);
  QTemporaryDir dir;
  const std::string path = dir.filePath("run.yaml").toStdString();
  QVERIFY(stave::writeFileAtomic(path, text.toStdString()).ok());
  for (const auto& r : {loadRunConfig(path), loadRunConfigWithOverrides(path, {"data=d.yaml"})}) {
    QVERIFY(!r.ok());
    QCOMPARE(r.errors().size(), size_t(1));
    QCOMPARE(r.errors().front().file, path);
    QVERIFY2(r.errorText().find(why.toStdString()) != std::string::npos, r.errorText().c_str());
  }
}

void TestSchema::jsonAndYamlLoadByContent() {
  QTemporaryDir dir;
  const std::string y = dir.filePath("a.json").toStdString();  // YAML despite the name
  const std::string j = dir.filePath("b.yaml").toStdString();  // JSON despite the name
  QVERIFY(stave::writeFileAtomic(y, "epochs: 7\nmodel: yolov8s.yaml\n").ok());
  QVERIFY(stave::writeFileAtomic(j, "  {\"epochs\": 9, \"lr0\": 1, \"devices\": null}").ok());
  auto a = loadRunConfig(y);
  QVERIFY2(a.ok(), a.errorText().c_str());
  QCOMPARE(a->getInt("epochs"), int64_t(7));
  QCOMPARE(a->getString("model"), std::string("yolov8s.yaml"));
  auto b = loadRunConfig(j);
  QVERIFY2(b.ok(), b.errorText().c_str());
  QCOMPARE(b->getInt("epochs"), int64_t(9));
  QCOMPARE(b->getFloat("lr0"), 1.0);  // an int where a float is expected is fine
  QVERIFY(std::holds_alternative<double>(b->get("lr0")));
  auto empty = parseRunConfigYaml("# nothing set\n", "e.yaml");
  QVERIFY(empty.ok());
  QVERIFY(empty.value() == RunConfig::defaults());
  auto missing = loadRunConfig(dir.filePath("nope.yaml").toStdString());
  QVERIFY(!missing.ok());
  QVERIFY(missing.errorText().find("nope.yaml") != std::string::npos);
  auto both = loadRunConfigWithOverrides(j, {"epochs=2", "batch=x"});
  QVERIFY(!both.ok());
  QVERIFY(hasError(both.errors(), -1, "batch", "expected an integer"));
  auto good = loadRunConfigWithOverrides(j, {"epochs=2"});
  QVERIFY(good.ok());
  QCOMPARE(good->getInt("epochs"), int64_t(2));
}

// channels_last was a bool: files that hold a bool (YAML's spellings, JSON's true/false) still
// load, as the choices "true" and "false"; other text is still an error naming the choices.
void TestSchema::triStateKeyReadsBools() {
  for (const char* text : {"true", "True", "yes", "on"}) {
    auto c = parseRunConfigYaml(std::string("channels_last: ") + text + "\n", "c.yaml");
    QVERIFY2(c.ok(), c.errorText().c_str());
    QCOMPARE(c->getString("channels_last"), std::string("true"));
  }
  for (const char* text : {"false", "no", "off", "auto"}) {
    auto c = parseRunConfigYaml(std::string("channels_last: ") + text + "\n", "c.yaml");
    QVERIFY2(c.ok(), c.errorText().c_str());
    QCOMPARE(c->getString("channels_last"), std::string(std::string(text) == "auto" ? "auto" : "false"));
  }
  QTemporaryDir dir;
  const std::string j = dir.filePath("c.json").toStdString();
  QVERIFY(stave::writeFileAtomic(j, "{\"channels_last\": true, \"amp\": false}").ok());
  auto fromJson = loadRunConfig(j);
  QVERIFY2(fromJson.ok(), fromJson.errorText().c_str());
  QCOMPARE(fromJson->getString("channels_last"), std::string("true"));
  auto bad = parseRunConfigYaml("channels_last: maybe\n", "c.yaml");
  QVERIFY(!bad.ok());
  QVERIFY(hasError(bad.errors(), -1, "channels_last", "auto, true, false"));
  // Another enum does not take bools.
  QVERIFY(!parseRunConfigYaml("precision: true\n", "c.yaml").ok());
  QVERIFY(!enumTakesBool(*findParam("precision")));
  QVERIFY(enumTakesBool(*findParam("channels_last")));
}

void TestSchema::overrides_data() {
  QTest::addColumn<QStringList>("args");
  QTest::addColumn<bool>("ok");
  QTest::addColumn<std::string>("key");
  QTest::addColumn<std::string>("expect");  // value text when ok, message part when not
  QTest::newRow("int") << QStringList{"epochs=5"} << true << std::string("epochs")
                       << std::string("5");
  QTest::newRow("float from int") << QStringList{"lr0=1"} << true << std::string("lr0")
                                  << std::string("1.0");
  QTest::newRow("bool yes") << QStringList{"amp=no"} << true << std::string("amp")
                            << std::string("false");
  QTest::newRow("string keeps spaces")
      << QStringList{"name=a b = c"} << true << std::string("name") << std::string("a b = c");
  QTest::newRow("empty string") << QStringList{"devices="} << true << std::string("devices")
                                << std::string("");
  QTest::newRow("last wins") << QStringList{"batch=4", "batch=8"} << true << std::string("batch")
                             << std::string("8");
  QTest::newRow("unknown") << QStringList{"epoch=5"} << false << std::string("epoch")
                           << std::string("did you mean 'epochs'");
  QTest::newRow("bad int") << QStringList{"epochs=abc"} << false << std::string("epochs")
                           << std::string("expected an integer");
  QTest::newRow("range") << QStringList{"iou=2"} << false << std::string("iou")
                         << std::string("expected a number in [0.0, 1.0]");
  QTest::newRow("enum") << QStringList{"precision=fp8"} << false << std::string("precision")
                        << std::string("one of auto, fp32, fp16, bf16");
  QTest::newRow("no equals") << QStringList{"epochs"} << false << std::string()
                             << std::string("expected key=value");
  QTest::newRow("cross") << QStringList{"node_rank=1"} << false << std::string("node_rank")
                         << std::string("less than nnodes");
}

void TestSchema::overrides() {
  QFETCH(QStringList, args);
  QFETCH(bool, ok);
  QFETCH(std::string, key);
  QFETCH(std::string, expect);
  std::vector<std::string> kv;
  for (const auto& a : args) kv.push_back(a.toStdString());
  RunConfig c = RunConfig::defaults();
  Status st = applyOverrides(c, kv);
  QCOMPARE(st.ok(), ok);
  if (ok) {
    QCOMPARE(formatValue(c.get(key)), expect);
  } else {
    QVERIFY2(hasError(st.errors(), 0, key, expect), st.errorText().c_str());
    QCOMPARE(st.errors().front().file, std::string("command line"));
  }
}

void TestSchema::getters() {
  RunConfig c = RunConfig::defaults();
  QCOMPARE(c.getInt("epochs"), int64_t(100));
  QCOMPARE(c.getFloat("epochs"), 100.0);  // ints read as floats
  QCOMPARE(c.getBool("amp"), true);
  QCOMPARE(c.getString("precision"), std::string("auto"));
  QVERIFY_THROWS_EXCEPTION(stave::InternalError, c.getInt("lr0"));
  QVERIFY_THROWS_EXCEPTION(stave::InternalError, c.getBool("nosuchkey"));
  QVERIFY_THROWS_EXCEPTION(stave::InternalError, c.getIntList("epochs"));
  QVERIFY_THROWS_EXCEPTION(stave::InternalError, c.get("nosuchkey"));
  QVERIFY(!c.set("epochs", std::string("5")).ok());
  QVERIFY(!c.set("nosuchkey", int64_t(1)).ok());
  QVERIFY(c.set("lr0", int64_t(20)).ok());
  QVERIFY(std::holds_alternative<double>(c.get("lr0")));
  // set() holds out-of-range values (a form's edit); validate() names them.
  QVERIFY(c.set("mosaic", 7.0).ok());
  auto errors = validate(c);
  QCOMPARE(int(errors.size()), 2);
  QVERIFY(hasError(errors, 0, "lr0", "out of range"));
  QVERIFY(hasError(errors, 0, "mosaic", "out of range"));
  QCOMPARE(c.changedKeys(), (std::vector<std::string>{"lr0", "mosaic"}));
}

void TestSchema::modelNames() {
  for (const char* m : {"yolov8n", "yolov8s.yaml", "yolov8m", "yolov8l.yaml", "yolov8x", "yolo11n",
                        "yolo11x.yaml", "yolov8n.pt", "runs/a/weights/best.pt"})
    QVERIFY2(checkValue(*findParam("model"), std::string(m)).empty(), m);
  for (const char* m : {"yolov8", "yolov8xx", ".yaml", "yolo11", "yolo12n", ".pt", "yolo11n.pth"})
    QVERIFY2(!checkValue(*findParam("model"), std::string(m)).empty(), m);
  QCOMPARE(modelScale("yolov8s.yaml"), std::string("s"));
  QCOMPARE(modelScale("yolov8x"), std::string("x"));
  QCOMPARE(modelScale("yolov8q"), std::string(""));
  QCOMPARE(modelScale("yolo11m.yaml"), std::string("m"));
  QCOMPARE(modelName("yolo11m.yaml"), std::string("yolo11m"));
  QCOMPARE(modelName("s"), std::string("yolov8s"));
  QCOMPARE(modelName("yolo12n"), std::string(""));
  QCOMPARE(modelName("yolo11n.pt"), std::string(""));
  QVERIFY(isCheckpointModel("runs/a/weights/best.pt"));
  QVERIFY(!isCheckpointModel("yolo11n"));

}

void TestSchema::closestKey() {
  QCOMPARE(closestParam("epoch"), std::string("epochs"));
  QCOMPARE(closestParam("weight_decy"), std::string("weight_decay"));
  QCOMPARE(closestParam("LR0"), std::string("lr0"));
  QCOMPARE(closestParam("completely_unrelated"), std::string(""));
}

void TestSchema::derived_data() {
  QTest::addColumn<int>("batch");
  QTest::addColumn<int>("world");
  QTest::addColumn<int>("nbs");
  QTest::addColumn<bool>("scaleLr");
  QTest::addColumn<int>("globalBatch");
  QTest::addColumn<int>("accumulate");
  QTest::addColumn<double>("lr0");
  QTest::addColumn<double>("wd");
  // Worked by hand: wd = 0.0005 * global * accumulate / nbs; with scaling lr0 = 0.01 * global / 64.
  QTest::newRow("defaults") << 16 << 1 << 64 << false << 16 << 4 << 0.01 << 0.0005;
  QTest::newRow("two ranks") << 16 << 2 << 64 << false << 32 << 2 << 0.01 << 0.0005;
  QTest::newRow("uneven") << 24 << 1 << 64 << false << 24 << 3 << 0.01 << 0.0005625;
  QTest::newRow("uneven scaled") << 24 << 1 << 64 << true << 24 << 3 << 0.00375 << 0.0005625;
  QTest::newRow("two ranks scaled") << 16 << 2 << 64 << true << 32 << 2 << 0.005 << 0.0005;
  QTest::newRow("beyond nbs") << 16 << 8 << 64 << false << 128 << 1 << 0.01 << 0.001;
  QTest::newRow("beyond nbs scaled") << 16 << 8 << 64 << true << 128 << 1 << 0.02 << 0.001;
  // Python's round() rounds halves to even: round(1.5) = 2, round(2.5) = 2.
  QTest::newRow("half to even 1.5") << 4 << 1 << 6 << false << 4 << 2 << 0.01 << 0.0005 * 8.0 / 6.0;
  QTest::newRow("half to even 2.5") << 4 << 1 << 10 << false << 4 << 2 << 0.01 << 0.0004;
}

void TestSchema::derived() {
  QFETCH(int, batch);
  QFETCH(int, world);
  QFETCH(int, nbs);
  QFETCH(bool, scaleLr);
  QFETCH(int, globalBatch);
  QFETCH(int, accumulate);
  QFETCH(double, lr0);
  QFETCH(double, wd);
  RunConfig c = RunConfig::defaults();
  QVERIFY(c.set("batch", int64_t(batch)).ok());
  QVERIFY(c.set("nbs", int64_t(nbs)).ok());
  QVERIFY(c.set("scale_lr_with_batch", scaleLr).ok());
  const Derived d = derive(c, world);
  QCOMPARE(d.globalBatch, int64_t(globalBatch));
  QCOMPARE(d.accumulate, int64_t(accumulate));
  QVERIFY2(std::abs(d.lr0 - lr0) < 1e-12, std::to_string(d.lr0).c_str());
  QVERIFY2(std::abs(d.weightDecay - wd) < 1e-12, std::to_string(d.weightDecay).c_str());
  QVERIFY_THROWS_EXCEPTION(stave::InternalError, derive(c, 0));
  // Without the dataset, optimizer=auto is not resolved and says so.
  QCOMPARE(d.optimizer, std::string("auto"));
  QCOMPARE(d.iterations, int64_t(-1));
}

// optimizer=auto resolved in derive(), Ultralytics' rule: AdamW with lr from the class count for
// a short run, SGD lr 0.01 for a long one; a named optimiser keeps lr0 and warmup_bias_lr.
void TestSchema::deriveResolvesTheOptimizer() {
  RunConfig c = RunConfig::defaults();
  QVERIFY(c.set("batch", int64_t(16)).ok());
  QVERIFY(c.set("epochs", int64_t(100)).ok());
  const Derived shortRun = derive(c, 1, DatasetSize{400, 5});
  QCOMPARE(shortRun.iterations, int64_t(700));  // ceil(400 / max(16, 64)) x 100
  QCOMPARE(shortRun.optimizer, std::string("AdamW"));
  QVERIFY(shortRun.autoChosen);
  QCOMPARE(shortRun.lr0, 0.001111);  // round(0.002 x 5 / (4 + 5), 6)
  QCOMPARE(shortRun.momentum, 0.9);
  QCOMPARE(shortRun.warmupBiasLr, 0.0);
  const Derived longRun = derive(c, 1, DatasetSize{100000, 80});
  QCOMPARE(longRun.optimizer, std::string("SGD"));
  QCOMPARE(longRun.lr0, 0.01);
  QVERIFY(c.set("scale_lr_with_batch", true).ok());
  QVERIFY(std::abs(derive(c, 2, DatasetSize{100000, 80}).lr0 - 0.01 * 32 / 64) < 1e-15);
  QVERIFY(c.set("scale_lr_with_batch", false).ok());
  QVERIFY(c.set("optimizer", std::string("SGD")).ok());
  QVERIFY(c.set("lr0", 0.02).ok());
  const Derived named = derive(c, 1, DatasetSize{400, 5});
  QCOMPARE(named.optimizer, std::string("SGD"));
  QVERIFY(!named.autoChosen);
  QCOMPARE(named.lr0, 0.02);
  QCOMPARE(named.momentum, 0.937);
  QCOMPARE(named.warmupBiasLr, 0.1);
  QCOMPARE(derive(c, 1).optimizer, std::string("SGD"));  // no dataset needed
}

void TestSchema::docsAreCurrent() {
  auto committed = stave::readFile(STAVE_SOURCE_DIR "/docs/config.md");
  QVERIFY2(committed.ok(), "docs/config.md is missing: stave-train config-docs > docs/config.md");
  QVERIFY2(committed.value() == schemaMarkdown(),
           "docs/config.md is stale: run stave-train config-docs > docs/config.md");
  for (const auto& p : runConfigSchema())
    QVERIFY2(committed.value().find("| `" + p.name + "` |") != std::string::npos, p.name.c_str());
}

void TestSchema::readmeResumeListIsCurrent() {
  // The README's list of keys a resume may change is the schema's (rows marked resumable),
  // between its markers; line breaks are free.
  auto readme = stave::readFile(STAVE_SOURCE_DIR "/README.md");
  QVERIFY(readme.ok());
  const std::string& text = readme.value();
  const size_t begin = text.find("<!-- resumable-keys");
  QVERIFY2(begin != std::string::npos, "README.md lost its <!-- resumable-keys --> marker");
  const size_t from = text.find("-->", begin) + 3;
  const size_t end = text.find("<!-- /resumable-keys -->", from);
  QVERIFY2(end != std::string::npos, "README.md lost its <!-- /resumable-keys --> marker");
  std::string listed;
  for (char c : text.substr(from, end - from))
    if (c != '\n' && !(c == ' ' && (listed.empty() || listed.back() == ' '))) listed += c;
  while (!listed.empty() && listed.back() == ' ') listed.pop_back();
  const std::string expected = resumableKeys("`") + ".";
  QVERIFY2(listed == expected,
           ("README.md's resume list is stale; it should read: " + expected).c_str());
  QVERIFY(expected.find("`epochs`") != std::string::npos);
  QVERIFY(expected.find("`model`") == std::string::npos);
  QVERIFY(resumeMayChange("workers"));
  QVERIFY(!resumeMayChange("lr0"));
  QVERIFY(!resumeMayChange("no_such_key"));
}

void TestSchema::translationSourceIsCurrent() {
  // The studio translates every help text and group name; lupdate finds them in this file.
  auto committed = stave::readFile(STAVE_SOURCE_DIR "/core/studio/schema_strings.cpp");
  QVERIFY2(committed.ok(), "core/studio/schema_strings.cpp is missing: run scripts/update-translations");
  QVERIFY2(committed.value() == schemaTranslationSource(),
           "core/studio/schema_strings.cpp is stale (a schema text changed): run "
           "scripts/update-translations and translate the new texts");
}

QTEST_APPLESS_MAIN(TestSchema)
#include "tst_schema.moc"
