// stave-train export-weights: a checkpoint's weights in another tool's format: ONNX, written
// natively (ONNX Runtime, TensorRT and OpenVINO load it), or Ultralytics' checkpoint, whose
// exporters then make other formats.
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <vector>

#include "app/stave-train/command.h"
#include "core/config/output_path.h"
#include "core/telemetry/events.h"
#include "core/train/checkpoint.h"
#include "core/train/onnx_export.h"
#include "core/train/ultralytics_weights.h"

namespace {

struct ExportWeightsOptions {
  std::string checkpoint, format, out;
  stave::train::OnnxOptions onnx;
  bool force = false, nms = false;
  bool json = false;  ///< the summary or the errors as JSON on stdout (for the studio)
  /// The options that apply to --format onnx only, to refuse them with another format.
  std::vector<const CLI::Option*> onnxOnly;
  const CLI::Option* batch = nullptr;
};

int run(ExportWeightsOptions& opts) {
  const std::string name = "export-weights";
  const std::string& format = opts.format;
  const bool onnx = format == "onnx";
  if (!onnx)  // the weights as they are: no input size, batch or precision to choose
    for (const CLI::Option* flag : opts.onnxOnly)
      if (flag->count() > 0)
        return stave::cli::usageError(name, flag->get_name() + " applies to --format onnx only");
  if (opts.nms)
    return stave::cli::usageError(
        name,
        "--nms: non-maximum suppression inside the graph is not built; output0 holds every "
        "anchor's box and scores, to be suppressed by the caller (docs/headless.md shows how)");
  const stave::train::OnnxOptions& o = opts.onnx;
  if (o.dynamic && opts.batch->count() > 0)
    return stave::cli::usageError(name, "--batch and --dynamic: a dynamic model takes any batch");

  const std::string& in = opts.checkpoint;
  std::string out = opts.out;
  if (out.empty()) {
    const std::filesystem::path p(in);
    const char* suffix = onnx ? ".onnx" : (format == "stave" ? "-weights.pt" : "-ultralytics.pt");
    out = (p.parent_path() / (p.stem().string() + suffix)).string();
  }
  const auto refuse = [&](const std::vector<stave::Error>& errors) {
    return stave::cli::reportErrors(name, errors, opts.json);
  };
  std::error_code ec;
  if (!std::filesystem::exists(in, ec))
    return refuse({stave::textError(in, 0, "", stave::Text("export.no_checkpoint"))});
  if (auto st = stave::checkOutputFile(out, {in}, opts.force, "--out"); !st) return refuse(st.errors());
  // What was written, as catalog messages: the English is printed, and --json gives the
  // studio both (its dialog shows them in its language).
  using stave::Text;
  const auto bytes = [](uintmax_t n) { return Text("size.bytes", {{"bytes", std::to_string(n)}}); };
  stave::TextParts summary;
  if (onnx) {
    auto r = stave::train::exportOnnx(in, out, o);
    if (!r) return refuse(r.errors());
    summary = {Text("export.onnx", {{"model", r->model},
                                    {"nc", std::to_string(r->nc)},
                                    {"nodes", std::to_string(r->graph.nodes)},
                                    {"parameters", std::to_string(r->graph.parameters)},
                                    {"size", bytes(r->graph.bytes)}}),
               Text("export.onnx_input", {{"input", r->graph.input}}),
               Text("export.onnx_output", {{"output", r->graph.output}})};
    if (r->halfMaxScoreDiff >= 0) {
      std::ostringstream diff;
      diff << r->halfMaxScoreDiff;
      summary.push_back(Text("export.onnx_half", {{"diff", diff.str()}}));
    }
  } else if (format == "stave") {
    auto st = stave::train::exportStaveWeights(in, out);
    if (!st) return refuse(st.errors());
    std::error_code sizeEc;
    summary = {Text("export.stave",
                    {{"size", bytes(std::filesystem::file_size(out, sizeEc))},
                     {"before", Text("size.number", {{"bytes", std::to_string(std::filesystem::file_size(in, sizeEc))}})}})};
  } else {
    auto r = stave::train::exportUltralyticsWeights(in, out);
    if (!r) return refuse(r.errors());
    summary = {Text("export.ultralytics", {{"model", r->modelYaml},
                                           {"nc", std::to_string(r->nc)},
                                           {"tensors", std::to_string(r->tensors)}}),
               Text("export.ultralytics_load", {{"file", out}})};
  }
  if (opts.json)
    std::cout << nlohmann::json{{"file", out},
                                {"summary", stave::english(summary)},
                                {"summary_text", stave::telemetry::textToJson(summary)}}
                     .dump(2)
              << "\n";
  else
    std::cout << "wrote " << out << ": " << stave::english(summary) << "\n";
  return stave::cli::kOk;
}
stave::cli::RunFunction setup(CLI::App& app) {
  using stave::cli::wholeNumber;
  auto o = std::make_shared<ExportWeightsOptions>();
  app.add_option("CHECKPOINT.pt", o->checkpoint, "a checkpoint of Stave or of Ultralytics (yolo11n.pt, an Ultralytics run's best.pt)")->type_name("")->required();
  app.add_option("--format", o->format, "onnx, ultralytics or stave (below)")
      ->type_name("F")
      ->required()
      ->check(CLI::Validator(
          [](std::string& f) -> std::string {
            return f == "onnx" || f == "ultralytics" || f == "stave"
                       ? ""
                       : "'" + f + "' is not known; use onnx, ultralytics or stave";
          },
          ""));
  app.add_option("--out", o->out,
                 "the file to write (default CHECKPOINT.onnx, CHECKPOINT-ultralytics.pt or "
                 "CHECKPOINT-weights.pt): never the checkpoint, nor an existing file without "
                 "--force; written atomically")
      ->type_name("FILE");
  app.add_flag("--force", o->force, "let --out replace an existing file");
  app.add_flag("--json", o->json,
               "print what was written (or the errors) as JSON, with each message's catalog ids");
  stave::train::OnnxOptions& onnx = o->onnx;
  // The input size mirrors the run config's imgsz, but its default is the checkpoint's own
  // training size (0), not the schema's.
  auto* imgsz = app.add_option("--imgsz", onnx.imgsz,
                               "onnx: input size, a multiple of 32 (default: the training size)")
                    ->type_name("N")
                    ->check(wholeNumber(32, 8192));
  o->batch = app.add_option("--batch", onnx.batch, "onnx: fixed batch")
                 ->type_name("N")
                 ->check(wholeNumber(1, 1024))
                 ->capture_default_str();
  auto* dynamic = app.add_flag("--dynamic", onnx.dynamic, "onnx: batch, height and width free");
  auto* opset = app.add_option("--opset", onnx.opset, "onnx: the ONNX opset")
                    ->type_name("N")
                    ->check(wholeNumber(stave::onnx::kMinOpset, stave::onnx::kMaxOpset))
                    ->capture_default_str();
  auto* half =
      app.add_flag("--half", onnx.half,
                   "onnx: float16, checked against float32 on a CUDA device (refused without one)");
  auto* nms =
      app.add_flag("--nms", o->nms, "onnx: not built (output0 is suppressed by the caller)");
  o->onnxOnly = {imgsz, o->batch, opset, dynamic, half, nms};
  return [o] { return run(*o); };
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "export-weights",
    "a checkpoint's weights as ONNX, an Ultralytics checkpoint, or a Stave checkpoint without "
    "optimiser state",
    "stave-train export-weights CHECKPOINT.pt --format onnx [--out MODEL.onnx] [--imgsz N]\n"
    "                           [--batch N | --dynamic] [--opset 13..17] [--half] [--force] [--json]\n"
    "       stave-train export-weights CHECKPOINT.pt --format ultralytics|stave [--out MODEL.pt] "
    "[--force] [--json]",
    "onnx: the EMA weights, BatchNorms folded; input images (batch, 3, imgsz, imgsz) RGB 0..1,\n"
    "  output0 (batch, 4 + classes, anchors) as Ultralytics' ONNX files: boxes as centre x,\n"
    "  centre y, width, height in input pixels, class scores after the sigmoid; checked by\n"
    "  ONNX's checker before it is written.\n"
    "ultralytics: a checkpoint YOLO() loads, validates and exports.\n"
    "stave: the EMA weights without optimiser state (smaller; val, predict, pretrained= read\n"
    "  it, resume does not).",
    setup});
