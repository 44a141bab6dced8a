// stave-train predict: detections on images, drawn and as CSV (the eval-preds format).
#include <filesystem>
#include <iostream>

#include "app/stave-train/command.h"
#include "core/config/output_path.h"
#include "core/train/inference.h"

namespace {
struct PredictOptions {
  stave::train::PredictRequest request;
  bool json = false;
  bool force = false;
};

int run(PredictOptions& o) {
  stave::train::PredictRequest& r = o.request;
  if (r.outDir.empty()) {
    // Ultralytics' folder: runs/detect/predict, predict2, ... (never into an earlier one).
    namespace fs = std::filesystem;
    fs::path dir = fs::path("runs") / "detect" / "predict";
    for (int i = 2; fs::exists(dir); ++i)
      dir = fs::path("runs") / "detect" / ("predict" + std::to_string(i));
    r.outDir = dir.string();
    std::cerr << "predict: writing to " << r.outDir << "\n";
  }
  // Annotated images are written under the names of their sources: never into the source.
  if (auto st = stave::checkOutputFolder(r.outDir, {r.source, r.weights}, o.force, "--out"); !st)
    return stave::cli::reportErrors("predict", st.errors(), o.json);
  auto j = stave::train::predictImages(r);
  if (!j)
    return stave::cli::reportErrors("predict", j.errors(), o.json);  // the input, not the command line
  if (o.json) {
    std::cout << j->dump(2) << "\n";
  } else {
    std::cout << j.value()["detections"].get<int64_t>() << " detections in "
              << j.value()["images"].get<int64_t>() << " images; annotated images and "
              << j.value()["csv"].get<std::string>() << " written\n";
    for (const auto& p : j.value()["problems"])
      std::cerr << "problem: " << p.get<std::string>() << "\n";
  }
  return j.value()["problems"].empty() ? stave::cli::kOk : stave::cli::kProblems;
}

/// conf, iou, max_det and imgsz are read and range-checked by the run config's schema rows;
/// max_det and iou start from the keys' defaults.
stave::cli::RunFunction setup(CLI::App& app) {
  using namespace stave::cli;
  auto o = std::make_shared<PredictOptions>();
  stave::train::PredictRequest& r = o->request;
  // conf stays 0.25, Ultralytics' predict default: the schema's conf (0.001) is the threshold
  // of validation's NMS, which keeps every candidate for the mAP; predictions to look at
  // would drown in low-confidence boxes.
  r.iou = schemaDefault<double>("iou");
  r.maxDet = schemaDefault<int>("max_det");
  // Both are refused before anything is written when they do not exist.
  app.add_option("--weights,--model", r.weights, "the checkpoint (best.pt, last.pt; Stave's or Ultralytics')")
      ->type_name("W.pt")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--source", r.source, "an image, or a folder of images")
      ->type_name("IMG|DIR")
      ->required()
      ->check(CLI::ExistingPath);
  app.add_option("--out", r.outDir,
                 "annotated images and predictions.csv (default: runs/detect/predict, predict2, "
                 "... when taken); never the source folder, nor one that is not empty without "
                 "--force")
      ->type_name("DIR");
  keyOption(app, "--conf", r.conf, "conf", "confidence threshold", "C");
  keyOption(app, "--iou", r.iou, "iou", "NMS IoU threshold, above 0", "T")->check(numberAbove(0));
  keyOption(app, "--max-det", r.maxDet, "max_det", "detections per image", "N");
  app.add_option("--imgsz", r.imgsz, "image size (default: the training size)")
      ->type_name("N")
      ->transform(imgszOrZero());
  app.add_option("--device", r.device, "cpu or a CUDA device index (default: CUDA 0 if any)")
      ->type_name("cpu|N");
  app.add_flag("--force", o->force, "write into an --out folder that is not empty");
  app.add_flag("--json", o->json,
               "print the summary (or the errors) as JSON, with each problem's catalog ids");
  return [o] { return run(*o); };
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "predict", "detect objects in images with trained weights (drawn + CSV)",
    "stave-train predict --weights W.pt --source IMG|DIR [--out DIR] [--conf C] [--iou T]\n"
    "                    [--max-det N] [--imgsz N] [--device cpu|0] [--force] [--json]\n"
    "       stave-train predict model=W.pt source=IMG|DIR [key=value ...]",
    "Ultralytics' form works too: every option is also key=value (max_det=):\n"
    "  stave-train predict model=runs/train/weights/best.pt source=images/ conf=0.4",
    setup, /*keyValueOptions=*/true});
