// stave-train val: metrics of trained weights on a dataset split.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <tuple>
#include <type_traits>

#include "app/stave-train/command.h"
#include "core/config/output_path.h"
#include "core/config/run_config.h"
#include "core/config/schema.h"
#include "core/train/checkpoint.h"
#include "core/train/inference.h"

namespace {
int run(const std::vector<std::string>& args) {
  stave::cli::Args a(stave::cli::keyValueAsFlags(args, {{"model", "weights"},
                                                        {"weights", "weights"},
                                                        {"data", "data"},
                                                        {"split", "split"},
                                                        {"batch", "batch"},
                                                        {"imgsz", "imgsz"},
                                                        {"workers", "workers"},
                                                        {"conf", "conf"},
                                                        {"iou", "iou"},
                                                        {"max_det", "max-det"},
                                                        {"device", "device"},
                                                        {"rect", "rect"},
                                                        {"precision", "precision"},
                                                        {"channels_last", "channels-last"},
                                                        {"save_preds", "save-preds"},
                                                        {"plots", "plots"}}),
                     {"weights", "data", "split", "batch", "imgsz", "workers", "conf", "iou",
                      "max-det", "device", "rect", "precision", "channels-last", "save-preds",
                      "plots"},
                     {"json", "force"});
  if (!a.ok()) return stave::cli::usageError("val", a.error());
  if (!a.positional().empty())
    return stave::cli::usageError("val", "unexpected argument '" + a.positional()[0] + "'");
  if (!a.has("weights")) return stave::cli::usageError("val", "--weights (or model=) is required");
  stave::train::ValRequest r;
  r.weights = a.value("weights");
  r.data = a.value("data");
  if (r.data.empty()) {
    // As Ultralytics does: the dataset the weights were trained on, from the checkpoint.
    auto meta = stave::train::readCheckpointMeta(r.weights);
    if (!meta) return stave::cli::reportErrors("val", meta.errors());
    auto cfg = stave::config::parseRunConfigYaml(meta->configYaml, r.weights + " (its run config)");
    if (cfg) r.data = cfg->getString("data");
    if (r.data.empty())
      return stave::cli::usageError(
          "val",
          r.weights + " does not name the dataset it was trained on; give --data (or data=)");
    std::cerr << "val: data " << r.data << " (from " << r.weights << ")\n";
  }
  r.split = a.value("split", "val");
  r.device = a.value("device");
  r.savePreds = a.value("save-preds");
  if (!r.savePreds.empty()) {
    if (auto st = stave::checkOutputFile(r.savePreds, {r.weights, r.data}, a.has("force"),
                                         "--save-preds");
        !st)
      return stave::cli::reportErrors("val", st.errors());
  }
  r.plots = a.value("plots");
  if (!r.plots.empty() && std::filesystem::exists(r.plots) && !std::filesystem::is_directory(r.plots))
    return stave::cli::usageError("val", "--plots " + r.plots + " is a file, not a folder");
  const std::string rect = a.value("rect", "true");
  if (rect != "true" && rect != "false")
    return stave::cli::usageError("val", "--rect takes true or false, got '" + rect + "'");
  r.rect = rect == "true";
  // --precision and --channels-last take what the run config's keys take (the schema's rows).
  std::string why;
  for (auto [flag, key, out] : {std::tuple{"precision", "precision", &r.precision},
                                std::tuple{"channels-last", "channels_last", &r.channelsLast}}) {
    const auto& spec = *stave::config::findParam(key);
    const auto v = stave::config::parseValueText(spec, a.value(flag, "auto"), &why);
    if (!v || !(why = stave::config::checkValue(spec, *v)).empty())
      return stave::cli::usageError("val", std::string("--") + flag + ": " + why);
    *out = std::get<std::string>(*v);
  }
  // Each number is read and range-checked by its run-config row, and a bad one is named with
  // its valid range (one generic line for all six before).
  // Given flags only: ValRequest holds the defaults (imgsz 0: the checkpoint's size).
  std::string bad;
  auto number = [&](const char* flag, const char* key, auto* out) {
    if (!bad.empty() || !a.has(flag)) return;
    const auto& spec = *stave::config::findParam(key);
    const auto v = stave::config::parseValueText(spec, a.value(flag), &why);
    if (!v || !(why = stave::config::checkValue(spec, *v)).empty()) {
      bad = std::string("--") + flag + ": " + why;
      return;
    }
    using T = std::remove_pointer_t<decltype(out)>;
    *out = std::holds_alternative<int64_t>(*v) ? static_cast<T>(std::get<int64_t>(*v))
                                               : static_cast<T>(std::get<double>(*v));
  };
  number("batch", "batch", &r.batch);
  number("workers", "workers", &r.workers);
  number("conf", "conf", &r.conf);
  number("iou", "iou", &r.iou);
  number("max-det", "max_det", &r.maxDet);
  if (a.value("imgsz", "0") != "0") number("imgsz", "imgsz", &r.imgsz);
  if (bad.empty() && r.iou <= 0) bad = "--iou: must be above 0, got " + a.value("iou");
  if (!bad.empty()) return stave::cli::usageError("val", bad);
  auto j = stave::train::validateWeights(r);
  if (!j) return stave::cli::reportErrors("val", j.errors());  // the input, not the command line
  if (a.has("json")) {
    std::cout << j->dump(2) << "\n";
    return stave::cli::kOk;
  }
  std::printf("%-16s %8s %10s %9s %9s %9s %9s\n", "class", "images", "instances", "P", "R", "mAP50",
              "mAP50-95");
  std::printf("%-16s %8lld %10s %9.3f %9.3f %9.3f %9.3f\n", "all",
              static_cast<long long>(j.value()["images"].get<int64_t>()), "",
              j.value()["precision"].get<double>(), j.value()["recall"].get<double>(),
              j.value()["map50"].get<double>(), j.value()["map5095"].get<double>());
  for (const auto& c : j.value()["per_class"]) {
    std::printf("%-16s %8lld %10lld %9.3f %9.3f %9.3f %9.3f\n",
                c["name"].get<std::string>().c_str(),
                static_cast<long long>(c["images"].get<int64_t>()),
                static_cast<long long>(c["instances"].get<int64_t>()), c["precision"].get<double>(),
                c["recall"].get<double>(), c["map50"].get<double>(), c["map5095"].get<double>());
  }
  std::printf("%.2f s\n", j.value()["seconds"].get<double>());
  if (j.value().contains("saved_predictions"))
    std::printf("%lld predictions written to %s\n",
                static_cast<long long>(j.value()["predictions"].get<int64_t>()),
                j.value()["saved_predictions"].get<std::string>().c_str());
  return stave::cli::kOk;
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "val", "validate trained weights on a dataset split (P, R, mAP50, mAP50-95)",
    "stave-train val --weights W.pt [--data D.yaml] [--split val] [--batch 16] [--imgsz N]\n"
    "                [--conf 0.001] [--iou 0.7] [--max-det 300] [--rect true|false]\n"
    "                [--device cpu|0] [--precision auto|fp32|bf16|fp16]\n"
    "                [--channels-last auto|true|false] [--save-preds P.csv] [--plots DIR]\n"
    "                [--force] [--json]\n"
    "  without --data, the dataset the weights were trained on; --rect false letterboxes to\n"
    "  squares instead of Ultralytics' rectangular batches; --precision and --channels-last as\n"
    "  the run config's keys (auto: bf16 on GPUs from Ampere on, NHWC on the CPU);\n"
    "  --save-preds writes every kept detection as CSV (image,cls,conf,x1,y1,x2,y2 in\n"
    "  original pixels: what eval-preds scores, and other tools read);\n"
    "  --plots writes the data behind Ultralytics' validation plots into DIR (confusion matrix,\n"
    "  P/R/F1/PR curves per class, per-class table, a gallery of labels and predictions; the\n"
    "  studio shows them; docs/validation.md);\n"
    "  Ultralytics' form works too:\n"
    "  stave-train val model=runs/train/weights/best.pt data=coco.yaml imgsz=640",
    run});
