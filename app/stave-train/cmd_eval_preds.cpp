// stave-train eval-preds: score predictions made by any tool against a dataset split, computed
// as COCOeval computes bbox AP (see core/train/metrics.h), so models from elsewhere compare on
// the same footing.
#include <filesystem>
#include <iostream>
#include <memory>

#include "app/stave-train/command.h"
#include "app/stave-train/split_images.h"
#include "core/base/atomic_file.h"
#include "core/data/dataset.h"
#include "core/train/pred_eval.h"

namespace {

int fail(const std::string& text) {
  std::cerr << "stave-train eval-preds: " << text << "\n";
  return stave::cli::kUsage;
}

struct EvalPredsOptions {
  std::string data, preds, split = "val";
  /// COCOeval's maxDets for bbox AP (100), not the run config's max_det (300, what validation
  /// keeps per image): the scores compare with COCO's own tools.
  int maxDet = 100;
  bool json = false;
};

int run(const EvalPredsOptions& o) {
  const std::string& split = o.split;
  const std::string& predsPath = o.preds;
  const int maxDet = o.maxDet;

  auto spec = stave::data::loadDataYaml(o.data);
  if (!spec) return fail(spec.errorText());
  const auto* sources = spec->sources(split);
  if (!sources || sources->empty()) {
    return fail("split '" + split + "' is not in " + o.data);
  }
  auto index = stave::data::scanSplit(spec.value(), split);
  if (!index) return fail(index.errorText());
  size_t skipped = 0;
  for (const auto& p : index->problems) skipped += p.skipsImage ? 1 : 0;
  if (skipped > 0) {
    std::cerr << "stave-train eval-preds: " << skipped << " image(s) of split '" << split
              << "' are unusable and left out (see stave-train check-dataset)\n";
  }

  const auto images = stave::cli::splitEvalImages(spec.value(), index.value(), *sources);

  auto text = stave::readFile(predsPath);
  if (!text) return fail(text.errorText());
  auto rows = stave::train::parsePredictionsCsv(text.value(), predsPath, spec->nc());
  if (!rows) return fail(rows.errorText());
  auto result =
      stave::train::evaluatePredictions(images, rows.value(), predsPath, spec->nc(), maxDet);
  if (!result) return fail(result.errorText());

  const auto& m = result->metrics;
  if (o.json) {
    auto j = stave::train::metricsToJson(m, spec->names);
    j["data"] = o.data;
    j["split"] = split;
    j["preds"] = predsPath;
    j["max_det"] = maxDet;
    j["predictions"] = result->predictions;
    j["images_with_predictions"] = result->imagesWithPredictions;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << result->predictions << " predictions on " << result->imagesWithPredictions
              << " of " << m.images << " images (split " << split << ", max-det " << maxDet
              << ", COCO bbox AP)\n"
              << stave::train::formatMetricsTable(m, spec->names);
  }
  return stave::cli::kOk;
}

stave::cli::RunFunction setup(CLI::App& app) {
  auto o = std::make_shared<EvalPredsOptions>();
  app.add_option("--data", o->data, "the dataset")->type_name("D.yaml")->required();
  app.add_option("--preds", o->preds,
                 "predictions as CSV: image,cls,conf,x1,y1,x2,y2 in pixels, image as a path "
                 "(absolute, or relative to the split's folder or the dataset)")
      ->type_name("P.csv")
      ->required();
  app.add_option("--split", o->split, "the split scored")->type_name("NAME")->capture_default_str();
  app.add_option("--max-det", o->maxDet, "detections per image counted (COCO's maxDets)")
      ->type_name("N")
      ->check(stave::cli::atLeast(1))
      ->capture_default_str();
  app.add_flag("--json", o->json, "print the metrics as JSON");
  return [o] { return run(*o); };
}

}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "eval-preds",
    "score a predictions CSV (image,cls,conf,x1,y1,x2,y2 in pixels) against a dataset split",
    "stave-train eval-preds --data D.yaml --preds P.csv [--split val] [--max-det N] [--json]", "",
    setup});
