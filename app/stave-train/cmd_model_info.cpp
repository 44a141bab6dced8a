// stave-train model-info: parameters and GFLOPs of a network (YOLOv8, YOLO11), without building
// the model.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "app/stave-train/command.h"
#include "core/model/architecture.h"
#include "core/model/model_info.h"

namespace {

struct ModelInfoOptions {
  std::string model = "yolov8n";
  int nc = 80;  ///< COCO's classes, what the published models' counts are for
  int imgsz = stave::cli::schemaDefault<int>("imgsz");
  bool json = false;
};

int run(const ModelInfoOptions& o) {
  const std::string name = "model-info";
  const int nc = o.nc, imgsz = o.imgsz;
  auto arch = stave::model::architectureFor(o.model, nc);
  if (!arch.ok()) return stave::cli::usageError(name, "--model: " + arch.errors()[0].message);
  const auto info = stave::model::modelInfo(arch.value(), imgsz);
  const std::string& model = arch->name;
  char gflops[32];
  std::snprintf(gflops, sizeof gflops, "%.4f", info.gflops);
  if (o.json) {
    std::cout << "{\"model\":\"" << model << "\",\"scale\":\"" << arch->scale
              << "\",\"nc\":" << nc << ",\"imgsz\":" << imgsz << ",\"params\":" << info.params
              << ",\"gflops\":" << gflops << ",\"layers\":" << info.layers << "}\n";
  } else {
    char line[256];
    std::snprintf(line, sizeof line,
                  "%s: %d layers, %lld parameters (%.2fM), %.1f GFLOPs at %dx%d, %d classes",
                  model.c_str(), info.layers, static_cast<long long>(info.params),
                  info.params / 1e6, info.gflops, imgsz, imgsz, nc);
    std::cout << line << "\n";
  }
  return stave::cli::kOk;
}

stave::cli::RunFunction setup(CLI::App& app) {
  auto o = std::make_shared<ModelInfoOptions>();
  app.add_option("--model,--scale", o->model,
                 "the network: yolov8n..yolov8x, yolo11n..yolo11x (a lone n|s|m|l|x: yolov8)")
      ->type_name("NAME")
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
    "model-info", "parameters and GFLOPs of a network (yolov8n..x, yolo11n..x)",
    "stave-train model-info [--model NAME] [--nc N] [--imgsz K] [--json]", "", setup});
