// stave-train export-weights: a checkpoint's weights in another tool's format (today
// Ultralytics', whose exporters then make ONNX, TensorRT or OpenVINO files).
#include <filesystem>
#include <iostream>

#include "app/stave-train/command.h"
#include "core/config/output_path.h"
#include "core/train/ultralytics_weights.h"

namespace {
int run(const std::vector<std::string>& args) {
  const std::string name = "export-weights";
  stave::cli::Args a(args, {"format", "out"}, {"force"});
  if (!a.ok()) return stave::cli::usageError(name, a.error());
  if (a.positional().size() != 1)
    return stave::cli::usageError(name, "give one checkpoint, e.g. runs/train/weights/best.pt");
  const std::string format = a.value("format");
  if (format != "ultralytics")
    return stave::cli::usageError(
        name, format.empty() ? "--format is required (ultralytics)"
                             : "--format '" + format + "' is not known; use ultralytics");
  const std::string in = a.positional()[0];
  std::string out = a.value("out");
  if (out.empty()) {
    const std::filesystem::path p(in);
    out = (p.parent_path() / (p.stem().string() + "-ultralytics.pt")).string();
  }
  std::error_code ec;
  if (!std::filesystem::exists(in, ec))
    return stave::cli::reportErrors(name, {stave::Error{in, 0, "", "no such checkpoint"}});
  if (auto st = stave::checkOutputFile(out, {in}, a.has("force"), "--out"); !st)
    return stave::cli::reportErrors(name, st.errors());
  auto r = stave::train::exportUltralyticsWeights(in, out);
  if (!r) return stave::cli::reportErrors(name, r.errors());
  std::cout << "wrote " << out << ": " << r->modelYaml << ", " << r->nc << " classes, "
            << r->tensors << " tensors\n"
            << "load it with Ultralytics: YOLO(\"" << out << "\"); export: yolo export model="
            << out << " format=onnx\n";
  return stave::cli::kOk;
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "export-weights", "a checkpoint's weights as an Ultralytics checkpoint (YOLO() loads it)",
    "stave-train export-weights CHECKPOINT.pt --format ultralytics [--out MODEL.pt] [--force]\n"
    "  --out (default CHECKPOINT-ultralytics.pt) is never the checkpoint, nor an existing file\n"
    "  without --force", run});
