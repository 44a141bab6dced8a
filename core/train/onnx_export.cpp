#include "core/train/onnx_export.h"

#include <torch/torch.h>

#include <ATen/autocast_mode.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/cuda/runtime.h"
#include "core/model/yolo.h"
#include "core/train/checkpoint.h"

namespace stave::train {
namespace {

onnx::Array toArray(const torch::Tensor& t) {
  const auto c = t.detach().to(torch::kCPU, torch::kFloat).contiguous();
  onnx::Array a;
  a.shape.assign(c.sizes().begin(), c.sizes().end());
  a.values.assign(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
  return a;
}

/// Every convolution of the model by its module name: a Conv block's with its BatchNorm folded
/// in (as weight and bias), the head's plain ones and the DFL's as they are.
std::map<std::string, onnx::Array> foldedWeights(model::YoloImpl& m) {
  std::map<std::string, onnx::Array> w;
  std::set<std::string> blocks;
  for (const auto& item : m.named_modules("", /*include_self=*/false)) {
    if (auto* conv = item.value()->as<model::ConvImpl>()) {
      conv->foldBatchNorm();
      w[item.key() + ".weight"] = toArray(conv->folded);
      w[item.key() + ".bias"] = toArray(conv->foldedBias);
      conv->unfoldBatchNorm();
      blocks.insert(item.key() + ".conv");
    }
  }
  for (const auto& item : m.named_modules("", false)) {
    auto* conv = item.value()->as<torch::nn::Conv2dImpl>();
    if (!conv || blocks.count(item.key())) continue;
    w[item.key() + ".weight"] = toArray(conv->weight);
    if (conv->bias.defined()) w[item.key() + ".bias"] = toArray(conv->bias);
  }
  return w;
}

/// The network in float16 (CUDA autocast) against float32 on two deterministic images: the
/// largest class-score difference, or an error when float16 overflows.
Result<double> checkHalf(model::YoloImpl& m, int imgsz, const std::string& checkpoint) {
  if (!cuda::available())
    return textError("", 0, "half", Text("export.half_no_gpu", {{"reason", cuda::unavailableReason()}}));
  const torch::Device gpu(torch::kCUDA, 0);
  m.to(gpu);
  torch::NoGradGuard noGrad;
  // A smooth gradient and a high-contrast checkerboard: both ends of natural images' range.
  auto ramp = torch::linspace(0, 1, imgsz, torch::kFloat);
  auto smooth = (ramp.view({1, 1, -1, 1}) * ramp.view({1, 1, 1, -1})).expand({1, 3, imgsz, imgsz});
  auto idx = torch::arange(imgsz, torch::kLong) / 8;
  auto checker =
      ((idx.view({-1, 1}) + idx.view({1, -1})) % 2).to(torch::kFloat).expand({1, 3, imgsz, imgsz});
  auto x = torch::cat({smooth, checker}, 0).contiguous().to(gpu);
  const auto full = model::decodePredictions(m, m.forward(x));
  torch::Tensor half;
  {
    const auto dtype = at::autocast::get_autocast_dtype(at::kCUDA);
    at::autocast::set_autocast_dtype(at::kCUDA, at::kHalf);
    at::autocast::set_autocast_enabled(at::kCUDA, true);
    auto feats = m.forward(x);
    at::autocast::set_autocast_enabled(at::kCUDA, false);
    at::autocast::set_autocast_dtype(at::kCUDA, dtype);
    at::autocast::clear_cache();
    half = model::decodePredictions(m, feats);
  }
  m.to(torch::kCPU);
  if (!torch::isfinite(half).all().item<bool>())
    return Error{checkpoint, 0, "half",
                 "the network overflows float16 (non-finite outputs on the check images); "
                 "export float32"};
  const auto nc = m.nc();
  return (half.narrow(2, 4, nc) - full.narrow(2, 4, nc)).abs().max().item<double>();
}

}  // namespace

Result<OnnxExport> exportOnnx(const std::string& checkpoint, const std::string& out,
                              const OnnxOptions& options) {
  auto loaded = loadWeights(checkpoint);
  if (!loaded) return loaded.errors();
  auto& m = *loaded->model;
  OnnxExport result;
  // The architecture the loaded network was built from (a Stave checkpoint's family and scale,
  // or an Ultralytics checkpoint's model.yaml): the graph walks the same layers.
  const model::Architecture& arch = m.architecture();
  result.model = arch.name;
  result.scale = arch.scale ? std::string(1, arch.scale) : std::string();
  result.nc = m.nc();
  result.imgsz = options.imgsz > 0 ? options.imgsz : static_cast<int>(loaded->meta.imgsz);

  onnx::DetectorGraph g;
  g.architecture = arch;
  g.weights = foldedWeights(m);
  g.names = loaded->meta.names;
  g.batch = options.batch;
  g.height = g.width = result.imgsz;
  g.dynamic = options.dynamic;
  g.half = options.half;
  g.opset = options.opset;
  g.metadata = {{"stave_checkpoint", checkpoint},
                {"stave_model", arch.name},
                {"stave_epoch", std::to_string(loaded->meta.epoch + 1)}};
  if (options.half) {
    const int64_t s = *std::max_element(arch.strides.begin(), arch.strides.end());
    if (result.imgsz < s || result.imgsz % s != 0)
      return Error{"", 0, "imgsz",
                   "must be a positive multiple of the model's stride " + std::to_string(s) +
                       ", got " + std::to_string(result.imgsz)};
    auto diff = checkHalf(m, result.imgsz, checkpoint);
    if (!diff) return diff.errors();
    result.halfMaxScoreDiff = diff.value();
  }
  auto report = onnx::writeDetectorOnnx(g, out);
  if (!report) {
    auto errors = report.errors();
    for (auto& e : errors)
      if (e.file.empty() && e.key.empty()) e.file = checkpoint;  // a weight of this checkpoint
    return errors;
  }
  result.graph = report.value();
  return result;
}

}  // namespace stave::train
