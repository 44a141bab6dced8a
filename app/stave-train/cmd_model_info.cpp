// stave-train model-info: parameters and GFLOPs of a YOLOv8 scale, without building the model.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "app/stave-train/command.h"
#include "core/model/model_info.h"

namespace {

struct ModelInfoOptions {
  std::string scale = "n";
  int nc = 80;  ///< COCO's classes, what the published models' counts are for
  int imgsz = stave::cli::schemaDefault<int>("imgsz");
  bool json = false;
};

int run(const ModelInfoOptions& o) {
  const std::string name = "model-info";
  const std::string& scale = o.scale;
  auto spec = stave::model::scaleSpec(scale);
  if (!spec.ok()) return stave::cli::usageError(name, "--scale: " + spec.errors()[0].message);
  const int nc = o.nc, imgsz = o.imgsz;

  std::string letter = scale;
  if (letter.rfind("yolov8", 0) == 0) letter = letter.substr(6, 1);
  const auto info = stave::model::modelInfo(scale, nc, imgsz);
  char gflops[32];
  std::snprintf(gflops, sizeof gflops, "%.4f", info.gflops);
  if (o.json) {
    std::cout << "{\"scale\":\"" << letter << "\",\"nc\":" << nc << ",\"imgsz\":" << imgsz
              << ",\"params\":" << info.params << ",\"gflops\":" << gflops
              << ",\"layers\":" << info.layers << "}\n";
  } else {
    char line[256];
    std::snprintf(line, sizeof line,
                  "yolov8%s: %d layers, %lld parameters (%.2fM), %.1f GFLOPs at %dx%d, %d classes",
                  letter.c_str(), info.layers, static_cast<long long>(info.params),
                  info.params / 1e6, info.gflops, imgsz, imgsz, nc);
    std::cout << line << "\n";
  }
  return stave::cli::kOk;
}

stave::cli::RunFunction setup(CLI::App& app) {
  auto o = std::make_shared<ModelInfoOptions>();
  app.add_option("--scale", o->scale, "the model scale (or yolov8s, ...)")
      ->type_name("n|s|m|l|x")
      ->capture_default_str();
  app.add_option("--nc", o->nc, "classes")
      ->type_name("N")
      ->check(stave::cli::wholeNumber(1, 100000))
      ->capture_default_str();
  app.add_option("--imgsz", o->imgsz, "input size for the GFLOPs")
      ->type_name("K")
      ->transform(stave::cli::schemaValue("imgsz"))
      ->capture_default_str();
  app.add_flag("--json", o->json, "print as JSON");
  return [o] { return run(*o); };
}

}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "model-info", "parameters and GFLOPs of a YOLOv8 scale",
    "stave-train model-info [--scale n|s|m|l|x] [--nc N] [--imgsz K] [--json]", "", setup});
