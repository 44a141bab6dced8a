// stave-train model-info: parameters and GFLOPs of a YOLOv8 scale, without building the model.
#include <cstdio>
#include <iostream>
#include <string>

#include "app/stave-train/command.h"
#include "core/model/model_info.h"

namespace {

int run(const std::vector<std::string>& args) {
  const std::string name = "model-info";
  stave::cli::Args a(args, {"scale", "nc", "imgsz"}, {"json"});
  if (!a.ok()) return stave::cli::usageError(name, a.error());
  if (!a.positional().empty())
    return stave::cli::usageError(name, "unexpected argument '" + a.positional()[0] + "'");
  const std::string scale = a.value("scale", "n");
  auto spec = stave::model::scaleSpec(scale);
  if (!spec.ok()) return stave::cli::usageError(name, "--scale: " + spec.errors()[0].message);
  int nc = 0, imgsz = 0;
  if (!stave::cli::parseInt(a.value("nc", "80"), nc) || nc < 1 || nc > 100000)
    return stave::cli::usageError(name, "--nc must be an integer from 1 to 100000");
  if (!stave::cli::parseInt(a.value("imgsz", "640"), imgsz) || imgsz < 32 || imgsz > 8192 ||
      imgsz % 32 != 0)
    return stave::cli::usageError(name, "--imgsz must be a multiple of 32 from 32 to 8192");

  std::string letter = scale;
  if (letter.rfind("yolov8", 0) == 0) letter = letter.substr(6, 1);
  const auto info = stave::model::modelInfo(scale, nc, imgsz);
  char gflops[32];
  std::snprintf(gflops, sizeof gflops, "%.4f", info.gflops);
  if (a.has("json")) {
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

}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "model-info", "parameters and GFLOPs of a YOLOv8 scale",
    "stave-train model-info [--scale n|s|m|l|x] [--nc N] [--imgsz K] [--json]", run});
