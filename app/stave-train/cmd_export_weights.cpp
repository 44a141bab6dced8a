// stave-train export-weights: a checkpoint's weights in another tool's format: ONNX, written
// natively (ONNX Runtime, TensorRT and OpenVINO load it), or Ultralytics' checkpoint, whose
// exporters then make other formats.
#include <filesystem>
#include <iostream>

#include "app/stave-train/command.h"
#include "core/config/output_path.h"
#include "core/train/checkpoint.h"
#include "core/train/onnx_export.h"
#include "core/train/ultralytics_weights.h"

namespace {

/// --format onnx's number flags: a whole number in [lo, hi], or a usage message naming the flag.
std::string readInt(const stave::cli::Args& a, const std::string& flag, int lo, int hi, int& out) {
  if (!a.has(flag)) return {};
  if (!stave::cli::parseInt(a.value(flag), out) || out < lo || out > hi)
    return "--" + flag + ": expected a whole number from " + std::to_string(lo) + " to " +
           std::to_string(hi) + ", got '" + a.value(flag) + "'";
  return {};
}

int run(const std::vector<std::string>& args) {
  const std::string name = "export-weights";
  stave::cli::Args a(args, {"format", "out", "imgsz", "batch", "opset"},
                     {"force", "dynamic", "half", "nms"});
  if (!a.ok()) return stave::cli::usageError(name, a.error());
  if (a.positional().size() != 1)
    return stave::cli::usageError(name, "give one checkpoint, e.g. runs/train/weights/best.pt");
  const std::string format = a.value("format");
  if (format != "ultralytics" && format != "onnx" && format != "stave")
    return stave::cli::usageError(
        name, format.empty()
                  ? "--format is required (onnx, ultralytics or stave)"
                  : "--format '" + format + "' is not known; use onnx, ultralytics or stave");
  const bool onnx = format == "onnx";
  if (!onnx)  // the weights as they are: no input size, batch or precision to choose
    for (const char* flag : {"imgsz", "batch", "opset", "dynamic", "half", "nms"})
      if (a.has(flag))
        return stave::cli::usageError(name,
                                      std::string("--") + flag + " applies to --format onnx only");
  if (a.has("nms"))
    return stave::cli::usageError(
        name,
        "--nms: non-maximum suppression inside the graph is not built; output0 holds every "
        "anchor's box and scores, to be suppressed by the caller (docs/headless.md shows how)");
  stave::train::OnnxOptions o;
  for (const auto& why :
       {readInt(a, "imgsz", 32, 8192, o.imgsz), readInt(a, "batch", 1, 1024, o.batch),
        readInt(a, "opset", stave::onnx::kMinOpset, stave::onnx::kMaxOpset, o.opset)})
    if (!why.empty()) return stave::cli::usageError(name, why);
  o.dynamic = a.has("dynamic");
  o.half = a.has("half");
  if (o.dynamic && a.has("batch"))
    return stave::cli::usageError(name, "--batch and --dynamic: a dynamic model takes any batch");

  const std::string in = a.positional()[0];
  std::string out = a.value("out");
  if (out.empty()) {
    const std::filesystem::path p(in);
    const char* suffix = onnx ? ".onnx" : (format == "stave" ? "-weights.pt" : "-ultralytics.pt");
    out = (p.parent_path() / (p.stem().string() + suffix)).string();
  }
  std::error_code ec;
  if (!std::filesystem::exists(in, ec))
    return stave::cli::reportErrors(name, {stave::Error{in, 0, "", "no such checkpoint"}});
  if (auto st = stave::checkOutputFile(out, {in}, a.has("force"), "--out"); !st)
    return stave::cli::reportErrors(name, st.errors());
  if (onnx) {
    auto r = stave::train::exportOnnx(in, out, o);
    if (!r) return stave::cli::reportErrors(name, r.errors());
    std::cout << "wrote " << out << ": yolov8" << r->scale << ", " << r->nc << " classes, "
              << r->graph.nodes << " nodes, " << r->graph.parameters << " parameters, "
              << r->graph.bytes << " bytes; checked by the ONNX checker\n"
              << "  input  " << r->graph.input << ", RGB 0..1\n"
              << "  output " << r->graph.output
              << ": centre x, centre y, width, height (input pixels), then class scores\n";
    if (r->halfMaxScoreDiff >= 0)
      std::cout << "  float16 against float32 on the GPU: class scores differ by at most "
                << r->halfMaxScoreDiff << "\n";
    return stave::cli::kOk;
  }
  if (format == "stave") {
    auto st = stave::train::exportStaveWeights(in, out);
    if (!st) return stave::cli::reportErrors(name, st.errors());
    std::error_code sizeEc;
    std::cout << "wrote " << out << ": the EMA weights without optimiser state ("
              << std::filesystem::file_size(out, sizeEc) << " bytes; "
              << std::filesystem::file_size(in, sizeEc) << " before); val, predict and "
              << "pretrained= read it, resume does not\n";
    return stave::cli::kOk;
  }
  auto r = stave::train::exportUltralyticsWeights(in, out);
  if (!r) return stave::cli::reportErrors(name, r.errors());
  std::cout << "wrote " << out << ": " << r->modelYaml << ", " << r->nc << " classes, "
            << r->tensors << " tensors\n"
            << "load it with Ultralytics: YOLO(\"" << out
            << "\"); export: yolo export model=" << out << " format=onnx\n";
  return stave::cli::kOk;
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "export-weights",
    "a checkpoint's weights as ONNX, an Ultralytics checkpoint, or a Stave checkpoint without "
    "optimiser state",
    "stave-train export-weights CHECKPOINT.pt --format onnx [--out MODEL.onnx] [--imgsz N]\n"
    "                           [--batch N | --dynamic] [--opset 13..17] [--half] [--force]\n"
    "stave-train export-weights CHECKPOINT.pt --format ultralytics|stave [--out MODEL.pt] "
    "[--force]\n"
    "  onnx: the EMA weights, BatchNorms folded; input images (batch, 3, imgsz, imgsz) RGB 0..1,\n"
    "    output0 (batch, 4 + classes, anchors) as Ultralytics' ONNX files: boxes as centre x,\n"
    "    centre y, width, height in input pixels, class scores after the sigmoid; checked by\n"
    "    ONNX's checker before it is written. --imgsz (default: the training size) a multiple\n"
    "    of 32; --batch (default 1); --dynamic: batch, height and width free; --opset (default\n"
    "    17); --half: float16, checked against float32 on a CUDA device (refused without one).\n"
    "  ultralytics: a checkpoint YOLO() loads, validates and exports. stave: the EMA weights\n"
    "    without optimiser state (smaller; val, predict, pretrained= read it, resume does not)\n"
    "  --out (default CHECKPOINT.onnx, CHECKPOINT-ultralytics.pt or CHECKPOINT-weights.pt) is\n"
    "    never the checkpoint, nor an existing file without --force; written atomically",
    run});
