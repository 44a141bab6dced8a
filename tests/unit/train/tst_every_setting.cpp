// Every row of the run-config schema reaches the engine: for each key, a valid value other than
// the default changes what the engine is handed — the trainer's settings (train::trainSettings,
// the loaders' options inside them), the optimiser and learning rate (config::derive), the run
// folder (train::chooseRunDir), the launcher's options (train::launchOptions) or a single-process
// run's telemetry and monitor (train::nodeTelemetryOptions, train::runMonitorOptions). A row that
// nothing reads fails here by name.
#include <QtTest/QtTest>

#include <cmath>
#include <filesystem>
#include <map>

#include "core/config/run_config.h"
#include "core/config/binding.h"
#include "core/config/schema.h"
#include "core/data/loader_config.h"
#include "core/train/run_entry.h"
#include "core/train/run_folder.h"
#include "core/train/settings.h"
#include "core/train/trainer.h"

using namespace stave;
using nlohmann::json;

namespace {

// Keys whose effect shows only in a given context, each with the reason (as Ultralytics).
struct Context {
  std::vector<std::string> overrides;
  const char* why;
};
const std::map<std::string, Context>& contexts() {
  static const std::map<std::string, Context> c{
      {"lr0", {{"optimizer=SGD"}, "optimizer=auto picks its own learning rate"}},
      {"momentum", {{"optimizer=SGD"}, "optimizer=auto picks its own momentum"}},
      {"warmup_bias_lr", {{"optimizer=SGD"}, "optimizer=auto sets it to 0"}},
      {"node_rank", {{"nnodes=2"}, "a node rank needs several nodes"}},
  };
  return c;
}

// Text values for the string and path rows (any valid value other than the default will do).
const std::map<std::string, std::string>& textValues() {
  static const std::map<std::string, std::string> t{
      {"model", "yolov8s.yaml"},       {"data", "/datasets/other/data.yaml"},
      {"pretrained", "/w/best.pt"},    {"devices", "cpu"},
      {"name", "exp"},                 {"project", "/work/elsewhere"},
      {"master_addr", "10.0.0.7"},     {"socket_ifname", "eth1"},     {"metrics_addr", "0.0.0.0"},
  };
  return t;
}

json launcherJson(const dist::LaunchOptions& lo) {
  return {{"argv", lo.workerArgv},       {"nproc", lo.nproc},
          {"nnodes", lo.nnodes},         {"node_rank", lo.nodeRank},
          {"master_addr", lo.masterAddr}, {"master_port", lo.masterPort},
          {"run_dir", lo.runDir},        {"tensorboard", lo.tensorboard},
          {"sample_period_s", lo.samplePeriodS}, {"disk", lo.diskPath},
          {"env", lo.env},               {"hang_timeout_s", lo.hangTimeoutS},
          {"grace_s", lo.graceS},        {"stop_timeout_s", lo.stopTimeoutS},
          {"report_period_s", lo.reportPeriodS}, {"doctor", lo.doctor},
          {"metrics_port", lo.metricsPort}, {"metrics_addr", lo.metricsAddress}};
}

// Everything the engine is handed for `cfg`, as one JSON document.
json engineView(const config::RunConfig& cfg, const std::string& folder) {
  json j;
  j["trainer"] = train::toJson(train::trainSettings(cfg));
  config::DatasetSize size;
  size.trainImages = 1000;
  size.nc = 3;
  for (int world : {1, 2}) {
    const auto d = config::derive(cfg, world, size);
    j["derive"].push_back({{"global_batch", d.globalBatch},
                           {"accumulate", d.accumulate},
                           {"weight_decay", d.weightDecay},
                           {"optimizer", d.optimizer},
                           {"auto", d.autoChosen},
                           {"lr_scale", d.lrScale},
                           {"lr0", d.lr0},
                           {"momentum", d.momentum},
                           {"warmup_bias_lr", d.warmupBiasLr},
                           {"iterations", d.iterations}});
  }
  j["run_dir"] = train::chooseRunDir(cfg, folder);
  j["launcher"] = launcherJson(train::launchOptions(cfg, folder + "/runs/r", "stave-train", {}));
  const auto node = train::nodeTelemetryOptions(cfg);
  j["node"] = {{"period_s", node.periodS}, {"disk", node.diskPath}};
  const auto mo = train::runMonitorOptions(cfg, folder + "/runs/r", 0);
  j["monitor"] = {{"report_period_s", mo.reportPeriodS},
                  {"run", mo.runName},
                  {"metrics_port", mo.metricsPort},
                  {"metrics_addr", mo.metricsAddress}};
  return j;
}

bool valid(const config::ParamSpec& spec, const config::Value& v) {
  return config::checkValue(spec, v).empty();
}

// A valid value of `spec` other than its default, or nullopt.
std::optional<config::Value> otherValue(const config::ParamSpec& spec) {
  using T = config::ParamType;
  const auto& d = spec.defaultValue;
  switch (spec.type) {
    case T::Bool:
      return config::Value(!std::get<bool>(d));
    case T::Enum:
      for (const auto& c : spec.choices)
        if (config::Value(c) != d) return config::Value(c);
      return std::nullopt;
    case T::Int: {
      const int64_t v = std::get<int64_t>(d);
      for (int64_t c : {v + 1, v - 1, v * 2, static_cast<int64_t>(spec.min)}) {
        if (c != v && valid(spec, config::Value(c))) return config::Value(c);
      }
      return std::nullopt;
    }
    case T::Float: {
      const double v = std::get<double>(d);
      for (double c : {v * 2, v + 0.1, v / 2, v - 0.1, spec.min, spec.max}) {
        if (std::isfinite(c) && c != v && valid(spec, config::Value(c))) return config::Value(c);
      }
      return std::nullopt;
    }
    case T::String:
    case T::Path: {
      auto it = textValues().find(spec.name);
      const std::string text = it != textValues().end() ? it->second : "other";
      if (config::Value(text) != d && valid(spec, config::Value(text))) return config::Value(text);
      return std::nullopt;
    }
    case T::IntList: {
      auto list = std::get<std::vector<int64_t>>(d);
      list.push_back(list.empty() ? 1 : list.back() + 1);
      if (valid(spec, config::Value(list))) return config::Value(list);
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace

class TstEverySetting : public QObject {
  Q_OBJECT
 private slots:
  void everyRowReachesTheEngine() {
    QTemporaryDir dir;
    const std::string folder = dir.path().toStdString();
    // The default run folder exists, so that exist_ok (reuse it, or take train2) shows.
    std::filesystem::create_directories(folder + "/runs/train");

    std::vector<std::string> unread, untested;
    int rows = 0;
    for (const auto& spec : config::runConfigSchema()) {
      ++rows;
      config::RunConfig base = config::RunConfig::defaults();
      if (auto c = contexts().find(spec.name); c != contexts().end()) {
        auto s = config::applyOverrides(base, c->second.overrides);
        QVERIFY2(bool(s), qPrintable(QString::fromStdString(spec.name + ": " + s.errorText())));
      }
      const auto other = otherValue(spec);
      if (!other) {
        untested.push_back(spec.name);
        continue;
      }
      config::RunConfig changed = base;
      QVERIFY(bool(changed.set(spec.name, *other)));
      // Both configs are ones a user could run.
      for (const auto* c : {&base, &changed}) {
        const auto errors = config::validate(*c);
        QVERIFY2(errors.empty(), qPrintable(QString::fromStdString(
                                     spec.name + "=" + config::formatValue(*other) + ": " +
                                     (errors.empty() ? "" : errors.front().toString()))));
      }
      if (engineView(base, folder) == engineView(changed, folder)) unread.push_back(spec.name);
    }
    QVERIFY(rows >= 70);
    auto list = [](const std::vector<std::string>& keys) {
      std::string s;
      for (const auto& k : keys) s += (s.empty() ? "" : ", ") + k;
      return QString::fromStdString(s);
    };
    QVERIFY2(untested.empty(), qPrintable("no other valid value found for: " + list(untested)));
    QVERIFY2(unread.empty(), qPrintable("changing these changes nothing the engine gets: " +
                                        list(unread)));
  }

  // The check itself can fail: a config the engine does not read (a change the view ignores)
  // is caught, and a key in its context-free form is, where Ultralytics ignores it.
  void theCheckCanFail() {
    const std::string folder = "/nonexistent-folder";
    config::RunConfig a = config::RunConfig::defaults(), b = a;
    QVERIFY(bool(b.set("lr0", config::Value(0.02))));  // optimizer=auto: AdamW with its own lr
    QVERIFY(engineView(a, folder)["derive"] == engineView(b, folder)["derive"]);
    QVERIFY(bool(b.set("optimizer", config::Value(std::string("SGD")))));
    QVERIFY(engineView(a, folder)["derive"] != engineView(b, folder)["derive"]);
  }

  // The loaders' options come with the trainer's settings: rect is the validation loader's
  // alone, augmentation the training loader's.
  void loaderOptionsPerSplit() {
    auto cfg = config::RunConfig::defaults();
    QVERIFY(bool(config::applyOverrides(cfg, {"rect=true", "mosaic=0.5", "workers=3"})));
    const auto s = train::trainSettings(cfg);
    QVERIFY(s.valLoader.rect);
    QVERIFY(!s.trainLoader.rect);
    QVERIFY(s.trainLoader.augment && !s.valLoader.augment);
    QCOMPARE(s.trainLoader.aug.mosaic, 0.5);
    QCOMPARE(s.trainLoader.workers, 3);
    QCOMPARE(s.valLoader.workers, 3);
  }

  // The binding tables name schema rows, once each, with members of a fitting type; and the
  // table check itself catches each kind of mistake.
  void bindingTablesAreSound() {
    auto text = [](const std::vector<std::string>& v) {
      std::string s;
      for (const auto& p : v) s += p + "; ";
      return QString::fromStdString(s);
    };
    QVERIFY2(config::bindingProblems(train::trainSettingBindings()).empty(),
             qPrintable(text(config::bindingProblems(train::trainSettingBindings()))));
    QVERIFY2(config::bindingProblems(data::loaderBindings()).empty(),
             qPrintable(text(config::bindingProblems(data::loaderBindings()))));
    QVERIFY2(config::bindingProblems(data::augmentBindings()).empty(),
             qPrintable(text(config::bindingProblems(data::augmentBindings()))));
    QCOMPARE(data::augmentBindings().size(), size_t(12));
    QVERIFY2(config::bindingProblems(train::nodeTelemetryBindings()).empty(),
             qPrintable(text(config::bindingProblems(train::nodeTelemetryBindings()))));
    QVERIFY2(config::bindingProblems(train::runMonitorBindings()).empty(),
             qPrintable(text(config::bindingProblems(train::runMonitorBindings()))));
    QVERIFY2(config::bindingProblems(train::launchBindings()).empty(),
             qPrintable(text(config::bindingProblems(train::launchBindings()))));

    using S = train::TrainSettings;
    const std::vector<config::FieldBinding<S>> bad{
        {"no_such_key", &S::epochs},  // not a row
        {"model", &S::epochs},        // a string row into an int
        {"epochs", &S::epochs},
        {"epochs", &S::patience},  // twice
    };
    const auto problems = config::bindingProblems(bad);
    QCOMPARE(problems.size(), size_t(3));
    QVERIFY(problems[0].find("no_such_key") != std::string::npos);
    QVERIFY(problems[1].find("model") != std::string::npos);
    QVERIFY(problems[2].find("twice") != std::string::npos);

    // applyBindings copies each key into its member, bindingsJson reads it back by key.
    auto cfg = config::RunConfig::defaults();
    QVERIFY(bool(config::applyOverrides(cfg, {"epochs=7", "nccl_timeout_s=90", "time=1.5"})));
    const auto s = train::trainSettings(cfg);
    QCOMPARE(s.epochs, 7);
    QCOMPARE(s.ncclTimeoutS, 90.0);
    QCOMPARE(s.timeHours, 1.5);
    const auto j = train::toJson(s);
    QCOMPARE(j["epochs"].get<int>(), 7);
    QCOMPARE(j["train_loader"]["aug"]["mosaic"].get<double>(), 1.0);
  }
};

QTEST_GUILESS_MAIN(TstEverySetting)
#include "tst_every_setting.moc"
