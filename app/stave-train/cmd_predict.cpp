// stave-train predict: detections on images, drawn and as CSV (the eval-preds format).
#include <filesystem>
#include <iostream>

#include "app/stave-train/command.h"
#include "core/config/output_path.h"
#include "core/train/inference.h"

namespace {
int run(const std::vector<std::string>& args) {
  stave::cli::Args a(
      stave::cli::keyValueAsFlags(args, {{"model", "weights"}, {"weights", "weights"},
                                         {"source", "source"}, {"out", "out"}, {"conf", "conf"},
                                         {"iou", "iou"}, {"max_det", "max-det"},
                                         {"imgsz", "imgsz"}, {"device", "device"}}),
      {"weights", "source", "out", "conf", "iou", "max-det", "imgsz", "device"}, {"json", "force"});
  if (!a.ok()) return stave::cli::usageError("predict", a.error());
  if (!a.positional().empty())
    return stave::cli::usageError("predict", "unexpected argument '" + a.positional()[0] + "'");
  if (!a.has("weights") || !a.has("source")) {
    return stave::cli::usageError("predict", "--weights (or model=) and --source are required");
  }
  stave::train::PredictRequest r;
  r.weights = a.value("weights");
  r.source = a.value("source");
  r.outDir = a.value("out");
  if (r.outDir.empty()) {
    // Ultralytics' folder: runs/detect/predict, predict2, ... (never into an earlier one).
    namespace fs = std::filesystem;
    fs::path dir = fs::path("runs") / "detect" / "predict";
    for (int i = 2; fs::exists(dir); ++i) dir = fs::path("runs") / "detect" / ("predict" + std::to_string(i));
    r.outDir = dir.string();
    std::cerr << "predict: writing to " << r.outDir << "\n";
  }
  // Annotated images are written under the names of their sources: never into the source.
  std::error_code ec;
  for (const auto& [flag, input] : {std::pair{"--weights", r.weights}, {"--source", r.source}})
    if (!std::filesystem::exists(input, ec))
      return stave::cli::reportErrors("predict", {stave::Error{input, 0, flag, "not found"}});
  if (auto st = stave::checkOutputFolder(r.outDir, {r.source, r.weights}, a.has("force"), "--out");
      !st)
    return stave::cli::reportErrors("predict", st.errors());
  r.device = a.value("device");
  try {
    r.conf = std::stod(a.value("conf", "0.25"));
    r.iou = std::stod(a.value("iou", "0.7"));
    r.maxDet = std::stoi(a.value("max-det", "300"));
    r.imgsz = std::stoi(a.value("imgsz", "0"));
  } catch (const std::exception&) {
    return stave::cli::usageError("predict",
                                  "--conf and --iou take numbers, --max-det and --imgsz integers");
  }
  if (r.conf < 0 || r.conf > 1 || r.iou <= 0 || r.iou > 1 || r.maxDet < 1 || r.imgsz < 0 ||
      r.imgsz % 32 != 0) {
    return stave::cli::usageError(
        "predict", "need conf in [0, 1], iou in (0, 1], max-det >= 1, imgsz a multiple of 32");
  }
  auto j = stave::train::predictImages(r);
  if (!j) return stave::cli::reportErrors("predict", j.errors());  // the input, not the command line
  if (a.has("json")) {
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
}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "predict", "detect objects in images with trained weights (drawn + CSV)",
    "stave-train predict --weights W.pt --source IMG|DIR [--out DIR] [--conf 0.25] [--iou 0.7]\n"
    "                    [--max-det 300] [--imgsz N] [--device cpu|0] [--json]\n"
    "  --out defaults to runs/detect/predict (predict2, ... when taken); Ultralytics' form works\n"
    "  too: stave-train predict model=runs/train/weights/best.pt source=images/ conf=0.4",
    run});
