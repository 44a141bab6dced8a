// stave-train val: metrics of trained weights on a dataset split.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "app/stave-train/command.h"
#include "core/config/output_path.h"
#include "core/config/run_config.h"
#include "core/config/schema.h"
#include "core/train/checkpoint.h"
#include "core/train/inference.h"

namespace {
struct ValOptions {
  stave::train::ValRequest request;
  std::string apRule = "coco";
  bool json = false;
  bool force = false;
};

int run(ValOptions& o) {
  stave::train::ValRequest& r = o.request;
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
  if (!r.savePreds.empty()) {
    if (auto st = stave::checkOutputFile(r.savePreds, {r.weights, r.data}, o.force, "--save-preds");
        !st)
      return stave::cli::reportErrors("val", st.errors());
  }
  r.apRule = *stave::train::parseApRule(o.apRule);  // CLI11 checked the name
  if (!r.plots.empty() && std::filesystem::exists(r.plots) &&
      !std::filesystem::is_directory(r.plots))
    return stave::cli::usageError("val", "--plots " + r.plots + " is a file, not a folder");
  auto j = stave::train::validateWeights(r);
  if (!j) return stave::cli::reportErrors("val", j.errors());  // the input, not the command line
  if (o.json) {
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

/// The options mirror the run config's keys: each is read and range-checked by its schema row
/// (a bad one is named with its valid range, as in a config file) and starts from the key's
/// default. imgsz is the exception: 0, the checkpoint's training size, unless given.
stave::cli::RunFunction setup(CLI::App& app) {
  using namespace stave::cli;
  auto o = std::make_shared<ValOptions>();
  stave::train::ValRequest& r = o->request;
  r.batch = schemaDefault<int>("batch");
  r.workers = schemaDefault<int>("workers");
  r.conf = schemaDefault<double>("conf");
  r.iou = schemaDefault<double>("iou");
  r.maxDet = schemaDefault<int>("max_det");
  r.rect = schemaDefault<bool>("rect");
  r.precision = schemaDefaultText("precision");
  r.channelsLast = schemaDefaultText("channels_last");
  app.add_option("--weights,--model", r.weights, "the checkpoint (best.pt, last.pt; Stave's or Ultralytics')")
      ->type_name("W.pt")
      ->required();
  app.add_option("--data", r.data, "dataset (default: the one the weights were trained on)")
      ->type_name("D.yaml");
  app.add_option("--split", r.split, "split to evaluate")->type_name("NAME")->capture_default_str();
  keyOption(app, "--batch", r.batch, "batch", "images per batch", "N");
  app.add_option("--imgsz", r.imgsz, "image size (default: the training size)")
      ->type_name("N")
      ->transform(imgszOrZero());
  keyOption(app, "--workers", r.workers, "workers", "data loader threads", "N");
  keyOption(app, "--conf", r.conf, "conf", "confidence threshold", "C");
  keyOption(app, "--iou", r.iou, "iou", "NMS IoU threshold, above 0", "T")->check(numberAbove(0));
  keyOption(app, "--max-det", r.maxDet, "max_det", "detections per image", "N");
  app.add_option("--rect", r.rect,
                 "rectangular batches as Ultralytics validates; false letterboxes to squares")
      ->type_name("true|false")
      ->transform(schemaValue("rect"))
      ->default_str(schemaDefaultText("rect"));
  app.add_option("--device", r.device, "cpu or a CUDA device index (default: CUDA 0 if any)")
      ->type_name("cpu|N");
  keyOption(app, "--precision", r.precision, "precision",
            "as the run config's key (auto: bf16 on GPUs from Ampere on, fp32 on the CPU)",
            "auto|fp32|bf16|fp16");
  keyOption(app, "--channels-last", r.channelsLast, "channels_last",
            "as the run config's key (auto: NHWC on the CPU)", "auto|true|false");
  app.add_option("--save-preds", r.savePreds,
                 "write every kept detection as CSV (image,cls,conf,x1,y1,x2,y2 in original "
                 "pixels: what eval-preds scores, and other tools read)")
      ->type_name("P.csv");
  app.add_option("--plots", r.plots,
                 "write the data behind Ultralytics' validation plots into DIR (confusion matrix, "
                 "P/R/F1/PR curves per class, per-class table, a gallery of labels and "
                 "predictions; the studio shows them; docs/validation.md)")
      ->type_name("DIR");
  app.add_option("--ap-rule", o->apRule,
                 "how AP is computed: coco = pycocotools' COCOeval (the default; published "
                 "numbers), ultralytics = Ultralytics' own validator (its mAP50-95 reads about "
                 ".01 lower on the same detections; docs/validation.md)")
      ->type_name("coco|ultralytics")
      ->check(CLI::IsMember({"coco", "ultralytics"}))
      ->capture_default_str();
  app.add_flag("--force", o->force, "let --save-preds replace an existing file");
  app.add_flag("--json", o->json, "print the metrics as JSON");
  return [o] { return run(*o); };
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "val", "validate trained weights on a dataset split (P, R, mAP50, mAP50-95)",
    "stave-train val --weights W.pt [--data D.yaml] [--split val] [--batch N] [--imgsz N]\n"
    "                [--conf C] [--iou T] [--max-det N] [--rect true|false] [--device cpu|0]\n"
    "                [--precision P] [--channels-last C] [--save-preds P.csv] [--plots DIR]\n"
    "                [--ap-rule coco|ultralytics] [--force] [--json]\n"
    "       stave-train val model=W.pt [data=D.yaml] [key=value ...]",
    "Ultralytics' form works too: every option is also key=value, with the run config's key\n"
    "(max_det=, channels_last=, save_preds=):\n"
    "  stave-train val model=runs/train/weights/best.pt data=coco.yaml imgsz=640",
    setup, /*keyValueOptions=*/true});
