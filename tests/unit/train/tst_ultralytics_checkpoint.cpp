// Ultralytics checkpoints read by Stave (core/train/ultralytics_checkpoint.h): a file shaped as
// Ultralytics 8.x saves it — mid-training (model None, the EMA in half precision, optimizer
// state) and stripped (model = the EMA, ema None) — assembled opcode by opcode as Python's
// pickler writes an nn.Module (NEWOBJ + BUILD of its __dict__, OrderedDicts, a module shared
// by several parents through the memo, numpy scalars, a namespace); the JSON of plain values;
// files that are not checkpoints or hold no model. Real files made by Ultralytics itself are
// read when the fixtures exist (STAVE_ULTRALYTICS_FIXTURES).
#include <QtTest/QtTest>

#include <torch/torch.h>

#include <filesystem>
#include <fstream>

#include "core/train/torch_archive.h"
#include "core/train/ultralytics_checkpoint.h"
#include "unit/train/pickle_bytes.h"

using nlohmann::json;
using stave::test::FakeModule;
using stave::test::leaf;
using stave::test::ModulePickler;
using stave::test::PickleBytes;

namespace {

/// A small Ultralytics DetectionModel: model.0 and model.1 Conv (conv, bn, a SiLU they share),
/// model.2 a Detect with a persistent and a non-persistent buffer. Every tensor's values are
/// distinct (seeded), float16 as Ultralytics saves them, num_batches_tracked int64.
std::shared_ptr<FakeModule> detectionModel() {
  torch::manual_seed(7);
  auto silu = leaf("torch.nn.modules.activation", "SiLU");
  auto conv = [&](int64_t in, int64_t out) {
    auto c = leaf("ultralytics.nn.modules.conv", "Conv");
    auto conv2d = leaf("torch.nn.modules.conv", "Conv2d");
    conv2d->params = {{"weight", torch::randn({out, in, 3, 3}).to(torch::kHalf)}, {"bias", {}}};
    auto bn = leaf("torch.nn.modules.batchnorm", "BatchNorm2d");
    bn->params = {{"weight", torch::rand({out}).to(torch::kHalf)},
                  {"bias", torch::randn({out}).to(torch::kHalf)}};
    bn->buffers = {{"running_mean", torch::randn({out}).to(torch::kHalf)},
                   {"running_var", torch::rand({out}).to(torch::kHalf)},
                   {"num_batches_tracked", torch::tensor(int64_t(1234))}};
    c->children = {{"conv", conv2d}, {"bn", bn}, {"act", silu}};
    return c;
  };
  auto detect = leaf("ultralytics.nn.modules.head", "Detect");
  detect->buffers = {{"grid", torch::arange(4, torch::kFloat)}, {"cache", torch::zeros({2})}};
  detect->nonPersistent = {"cache"};
  auto seq = leaf("torch.nn.modules.container", "Sequential");
  seq->children = {{"0", conv(3, 4)}, {"1", conv(4, 8)}, {"2", detect}};
  auto model = leaf("ultralytics.nn.tasks", "DetectionModel");
  model->children = {{"model", seq}};
  return model;
}

void modelAttributes(ModulePickler& w) {
  auto& p = w.p;
  p.str("yaml").emptyDict().mark();
  p.str("nc").integer(2).str("scales").emptyDict().mark().str("n").emptyList().mark();
  p.real(0.5).real(0.25).integer(1024).appends().setItems();
  p.str("backbone").emptyList().mark().emptyList().mark().integer(-1).integer(1).str("Conv");
  p.emptyList().mark().integer(64).integer(3).integer(2).appends().appends().appends();
  p.str("ch").integer(3).setItems();
  p.str("names").emptyDict().mark().integer(0).str("cat").integer(1).str("d\xc3\xb6g").setItems();
  p.str("stride");
  w.tensor(torch::tensor({8.f, 16.f, 32.f}), false);
  p.str("args").global("ultralytics.utils", "IterableSimpleNamespace").emptyTuple().reduce();
  p.emptyDict().mark().str("imgsz").integer(640).str("lr0").real(0.01).setItems().build();
}

enum class Saved { MidTraining, Stripped };

/// The checkpoint dict as Ultralytics 8.3's save_model / strip_optimizer write it.
void writeCheckpoint(ModulePickler& w, Saved saved) {
  auto model = detectionModel();
  auto& p = w.p;
  p.emptyDict().mark();
  p.str("date").str("2025-01-02T03:04:05.678901").str("version").str("8.3.40");
  p.str("license").str("AGPL-3.0 License (https://ultralytics.com/license)");
  p.str("epoch").integer(saved == Saved::Stripped ? -1 : 4);
  p.str("best_fitness");
  w.numpyFloat(0.625);
  p.str("model");
  if (saved == Saved::Stripped)
    w.module(model, modelAttributes);
  else
    p.none();
  p.str("ema");
  if (saved == Saved::MidTraining)
    w.module(model, modelAttributes);
  else
    p.none();
  p.str("updates").integer(saved == Saved::Stripped ? 0 : 100);
  p.str("optimizer");
  if (saved == Saved::MidTraining) {
    p.emptyDict().mark().str("state").emptyDict().mark().integer(0).emptyDict().mark();
    p.str("momentum_buffer");
    w.tensor(torch::ones({4, 3, 3, 3}).to(torch::kHalf), false);
    p.setItems().setItems();
    p.str("param_groups").emptyList().mark().emptyDict().mark().str("lr").real(0.01);
    p.str("params").emptyList().mark().integer(0).appends().setItems().appends().setItems();
  } else {
    p.none();
  }
  p.str("train_args").emptyDict().mark().str("model").str("yolo11n.yaml").str("epochs").integer(5);
  p.str("data").str("/data/demo.yaml").str("single_cls").boolean(false).setItems();
  p.str("train_metrics").emptyDict().mark().str("metrics/mAP50(B)");
  w.numpyFloat(0.5);
  p.setItems();
  p.setItems();
}

}  // namespace

class TstUltralyticsCheckpoint : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  std::string file(const std::string& name) {
    return m_dir.filePath(QString::fromStdString(name)).toStdString();
  }

 private slots:
  void synthetic_data() {
    QTest::addColumn<bool>("stripped");
    QTest::newRow("saved mid-training (ema, optimizer)") << false;
    QTest::newRow("stripped final file (model)") << true;
  }

  void synthetic() {
    QFETCH(bool, stripped);
    ModulePickler w;
    writeCheckpoint(w, stripped ? Saved::Stripped : Saved::MidTraining);
    const std::string path = file(stripped ? "last.pt" : "epoch4.pt");
    QVERIFY(w.save(path));
    QCOMPARE(int(stave::train::checkpointKind(path).value()),
             int(stave::train::CheckpointKind::TorchSave));
    const auto r = stave::train::readUltralyticsCheckpoint(path);
    QVERIFY2(r.ok(), r.errorText().c_str());
    const auto& c = r.value();
    QCOMPARE(c.source, std::string(stripped ? "model" : "ema"));
    QCOMPARE(c.modelClass, std::string("ultralytics.nn.tasks.DetectionModel"));
    QCOMPARE(c.version, std::string("8.3.40"));
    QCOMPARE(c.date, std::string("2025-01-02T03:04:05.678901"));
    QCOMPARE(c.epoch.value(), int64_t(stripped ? -1 : 4));
    QCOMPARE(c.bestFitness.value(), 0.625);
    QCOMPARE(c.hasOptimizer, !stripped);
    QCOMPARE(c.names, (std::vector<std::string>{"cat", "d\xc3\xb6g"}));
    QCOMPARE(c.stride, (std::vector<double>{8, 16, 32}));
    QCOMPARE(c.yaml, json::parse(R"({"nc": 2, "scales": {"n": [0.5, 0.25, 1024]},
                                      "backbone": [[-1, 1, "Conv", [64, 3, 2]]], "ch": 3})"));
    QCOMPARE(c.trainArgs["model"], json("yolo11n.yaml"));
    QCOMPARE(c.trainArgs["epochs"], json(5));

    std::vector<std::string> names;
    for (const auto& [n, t] : c.tensors) names.push_back(n);
    const std::vector<std::string> expected{
        "model.0.conv.weight",
        "model.0.bn.weight",
        "model.0.bn.bias",
        "model.0.bn.running_mean",
        "model.0.bn.running_var",
        "model.0.bn.num_batches_tracked",
        "model.1.conv.weight",
        "model.1.bn.weight",
        "model.1.bn.bias",
        "model.1.bn.running_mean",
        "model.1.bn.running_var",
        "model.1.bn.num_batches_tracked",
        "model.2.grid"};  // not the non-persistent model.2.cache
    QCOMPARE(names, expected);
    const auto model = detectionModel();  // the same seeded values
    const auto& conv1 = model->children[0].second->children[1].second->children[0].second;
    QVERIFY(torch::equal(c.find("model.1.conv.weight"), conv1->params[0].second));
    QCOMPARE(c.find("model.1.conv.weight").scalar_type(), torch::kHalf);
    QCOMPARE(c.find("model.0.bn.num_batches_tracked").item<int64_t>(), int64_t(1234));
    QVERIFY(!c.find("model.0.conv.bias").defined());
    QCOMPARE(c.moduleClasses,
             (std::vector<std::string>{
                 "ultralytics.nn.tasks.DetectionModel", "torch.nn.modules.container.Sequential",
                 "ultralytics.nn.modules.conv.Conv", "torch.nn.modules.conv.Conv2d",
                 "torch.nn.modules.batchnorm.BatchNorm2d", "torch.nn.modules.activation.SiLU",
                 "ultralytics.nn.modules.head.Detect"}));
  }

  void notAModel_data() {
    QTest::addColumn<QByteArray>("pickle");
    QTest::addColumn<QString>("expected");
    auto row = [](const char* name, const std::string& b, const char* expected) {
      QTest::newRow(name) << QByteArray(b.data(), int(b.size())) << QString(expected);
    };
    row("no model", PickleBytes().emptyDict().mark().str("epoch").integer(1).setItems().done(),
        "neither 'ema' nor 'model' holds a model (keys: epoch)");
    row("both None",
        PickleBytes().emptyDict().mark().str("model").none().str("ema").none().setItems().done(),
        "neither 'ema' nor 'model'");
    row("a bare state_dict",
        PickleBytes().emptyDict().mark().str("model").orderedDict().setItems().done(),
        "a bare state_dict");
    row("a list", PickleBytes().emptyList().done(), "holds a list, not an Ultralytics checkpoint");
    {
      PickleBytes p;
      p.emptyDict().mark().str("model").global("ultralytics.nn.tasks", "DetectionModel");
      p.emptyTuple().newObj().emptyDict().mark().str("_parameters").orderedDict().mark();
      p.str("w").integer(3).setItems().setItems().build().setItems();
      row("a parameter that is not a tensor", p.done(), "the model's _parameters entry w is a int");
    }
    {
      PickleBytes p;
      p.emptyDict().mark().str("model").global("ultralytics.nn.tasks", "DetectionModel");
      p.emptyTuple().newObj().emptyDict().mark().str("names").emptyDict().mark();
      p.integer(0).str("a").integer(5).str("b").setItems().setItems().build().setItems();
      row("names not numbered 0..n-1", p.done(), "not numbered 0..1 (class 5)");
    }
    {
      // Each module's two children are one module (the memo): 2^40 paths through 40 modules.
      PickleBytes p;
      p.global("torch.nn.modules.container", "Sequential")
          .emptyTuple()
          .newObj()
          .emptyDict()
          .build();
      p.put(0).op('0');
      for (uint32_t i = 1; i <= 40; ++i) {
        p.global("torch.nn.modules.container", "Sequential").emptyTuple().newObj();
        p.emptyDict().mark().str("_modules").orderedDict().mark();
        p.str("a").get(i - 1).str("b").get(i - 1).setItems().setItems().build().put(i).op('0');
      }
      p.emptyDict().mark().str("model").get(40).setItems();
      row("modules shared exponentially", p.done(), "more than 100000 modules");
    }
  }

  void notAModel() {
    QFETCH(QByteArray, pickle);
    QFETCH(QString, expected);
    const std::string path = file("bad.pt");
    QVERIFY(stave::test::writeTorchZip(path, std::string(pickle.constData(), size_t(pickle.size())),
                                       {}));
    const auto r = stave::train::readUltralyticsCheckpoint(path);
    QVERIFY(!r.ok());
    const QString text = QString::fromStdString(r.errorText());
    QVERIFY2(text.startsWith(QString::fromStdString(path + ": archive/data.pkl: at byte ")),
             qPrintable(text));
    QVERIFY2(text.contains(expected), qPrintable(text));
  }

  void otherFiles() {
    {
      torch::serialize::OutputArchive ts;
      ts.write("w", torch::ones({2}));
      ts.save_to(file("stave.pt"));
    }
    const auto stave = stave::train::readUltralyticsCheckpoint(file("stave.pt"));
    QVERIFY(!stave.ok());
    QVERIFY2(stave.errorText().find("a TorchScript archive") != std::string::npos,
             stave.errorText().c_str());
    const auto absent = stave::train::readUltralyticsCheckpoint(file("yolo11n.pt"));
    QVERIFY(!absent.ok());
    QVERIFY(absent.errorText().find(file("yolo11n.pt")) == 0);
  }

  void toJson_data() {
    QTest::addColumn<QByteArray>("pickle");
    QTest::addColumn<QString>("expected");
    auto row = [](const char* name, const PickleBytes& p, const char* expected) {
      const std::string b = p.done();
      QTest::newRow(name) << QByteArray(b.data(), int(b.size())) << QString(expected);
    };
    row("scalars",
        PickleBytes()
            .emptyList()
            .mark()
            .none()
            .boolean(true)
            .integer(-5)
            .real(0.5)
            .str("x")
            .appends(),
        R"([null,true,-5,0.5,"x"])");
    row("dict keys",
        PickleBytes().emptyDict().mark().integer(1).str("a").str("k").none().setItems(),
        R"({"1":"a","k":null})");
    row("namespace",
        PickleBytes()
            .global("argparse", "Namespace")
            .emptyTuple()
            .reduce()
            .emptyDict()
            .mark()
            .str("lr0")
            .real(0.01)
            .setItems()
            .build(),
        R"({"lr0":0.01})");
    row("path",
        PickleBytes()
            .global("pathlib", "PosixPath")
            .mark()
            .str("/")
            .str("data")
            .str("a.yaml")
            .tuple()
            .reduce(),
        R"("/data/a.yaml")");
    row("tensor", PickleBytes().tensor("HalfStorage", "0", 6, 0, {2, 3}, {3, 1}),
        R"("<tensor float16 [2, 3]>")");
    row("invalid UTF-8",
        PickleBytes().str("a\xff"
                          "b"),
        "\"a\xef\xbf\xbd"
        "b\"");
    row("a tuple and a set",
        PickleBytes()
            .mark()
            .integer(1)
            .global("__builtin__", "set")
            .mark()
            .emptyList()
            .mark()
            .integer(2)
            .appends()
            .tuple()
            .reduce()
            .tuple(),
        "[1,[2]]");
  }

  void toJson() {
    QFETCH(QByteArray, pickle);
    QFETCH(QString, expected);
    const auto doc = stave::train::readPickle(
        std::string_view(pickle.constData(), size_t(pickle.size())), "j.pkl");
    QVERIFY2(doc.ok(), doc.errorText().c_str());
    const auto j = stave::train::pickleToJson(doc->root(), "j.pkl");
    QVERIFY2(j.ok(), j.errorText().c_str());
    QCOMPARE(QString::fromStdString(j->dump()), expected);
  }

  void toJsonBudget() {
    // A list holding one list twice, 40 deep: 2^40 visits if walked naively.
    PickleBytes p;
    p.emptyList().put(0).op('0');
    for (uint32_t i = 1; i <= 40; ++i)
      p.emptyList().mark().get(i - 1).get(i - 1).appends().put(i).op('0');
    const auto doc = stave::train::readPickle(p.get(40).done(), "j.pkl");
    QVERIFY2(doc.ok(), doc.errorText().c_str());
    const auto j = stave::train::pickleToJson(doc->root(), "j.pkl");
    QVERIFY(!j.ok());
    QVERIFY2(j.errorText().find("j.pkl") == 0, j.errorText().c_str());
  }

  /// Files Ultralytics itself wrote (tests/tools/ultralytics_fixtures.py), when they were made:
  /// every .pt reads; where manifest.json describes a file (what Ultralytics' own torch.load
  /// found in it), the same epoch, version, yaml, names, stride, dtype and which model was taken.
  void ultralyticsFixtures() {
    namespace fs = std::filesystem;
    // The environment may point elsewhere (a copy of the fixtures, another Ultralytics version's).
    const fs::path root(
        qEnvironmentVariable("STAVE_ULTRALYTICS_FIXTURES", STAVE_ULTRALYTICS_FIXTURES)
            .toStdString());
    std::vector<fs::path> files;
    std::error_code ec;
    if (fs::is_directory(root, ec))
      for (const auto& e : fs::recursive_directory_iterator(root, ec))
        if (e.path().extension() == ".pt") files.push_back(e.path());
    if (files.empty())
      QSKIP("no Ultralytics fixtures (tests/tools/ultralytics_fixtures.py makes them)");
    for (const auto& f : files) {
      const auto r = stave::train::readUltralyticsCheckpoint(f.string());
      QVERIFY2(r.ok(), r.errorText().c_str());
      QVERIFY2(!r->tensors.empty(), f.c_str());
      QVERIFY2(r->yaml.is_object() && r->yaml.contains("backbone"), f.c_str());
      QVERIFY2(!r->names.empty(), f.c_str());
      QVERIFY2(!r->version.empty(), f.c_str());
      QVERIFY2(!r->stride.empty(), f.c_str());
    }
    std::ifstream in(root / "manifest.json");
    if (!in) return;
    const json manifest = json::parse(in, nullptr, false);
    QVERIFY(manifest.is_object());
    if (manifest.value("format", 0) != 1)
      QSKIP("manifest.json's layout changed (format != 1); this test compares format 1");
    int compared = 0;
    // What Ultralytics' own torch.load found in the file (ckpt_summary of the fixture script).
    auto compare = [&](const std::string& path, const json& want) {
      const auto r = stave::train::readUltralyticsCheckpoint(path);
      QVERIFY2(r.ok(), r.errorText().c_str());
      QCOMPARE(r->epoch.value_or(-99), want["epoch"].get<int64_t>());
      QCOMPARE(r->version, want["version"].get<std::string>());
      QCOMPARE(r->source, std::string(want["ema_is_none"].get<bool>() ? "model" : "ema"));
      QCOMPARE(r->hasOptimizer, !want["optimizer_is_none"].get<bool>());
      QVERIFY2(r->yaml == want["yaml"], path.c_str());
      QCOMPARE(int64_t(r->names.size()), want["nc"].get<int64_t>());
      for (size_t i = 0; i < r->names.size(); ++i)
        QCOMPARE(r->names[i], want["names"][std::to_string(i)].get<std::string>());
      QCOMPARE(r->stride, want["stride"].get<std::vector<double>>());
      QCOMPARE(std::string(c10::toString(r->tensors.front().second.scalar_type())),
               std::string(want["dtype"].get<std::string>() == "float16" ? "Half" : "Float"));
      ++compared;
    };
    const json models = manifest.value("models", json::object());
    for (const auto& item : models.items()) {
      const json& entry = item.value();
      if (entry.contains("files") && entry["files"].contains("final") &&
          entry.contains("checkpoint"))
        compare((root / entry["files"]["final"].get<std::string>()).string(), entry["checkpoint"]);
      if (entry.contains("files") && entry["files"].contains("midtrain") &&
          entry.contains("midtrain_checkpoint"))
        compare((root / entry["files"]["midtrain"].get<std::string>()).string(),
                entry["midtrain_checkpoint"]);
    }
    const json trained = manifest.value("trained", json::object()).value("files", json::object());
    for (const auto& item : trained.items())
      if (item.value().contains("file") && item.value().contains("checkpoint"))
        compare((root / item.value()["file"].get<std::string>()).string(),
                item.value()["checkpoint"]);
    qInfo("%d fixture files compared with manifest.json", compared);
  }
};

QTEST_GUILESS_MAIN(TstUltralyticsCheckpoint)
#include "tst_ultralytics_checkpoint.moc"
