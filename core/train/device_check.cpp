#include "core/train/device_check.h"

#include <torch/torch.h>
#include <torch/version.h>

#include <unistd.h>

#include <cmath>
#include <functional>

#include "core/cuda/runtime.h"
#include "core/distributed/process_group.h"
#include "core/model/yolo.h"
#include "core/train/amp.h"
#include "core/train/loss.h"
#include "core/train/nms.h"
#include "core/train/optimizer.h"

namespace stave::train {
namespace {

/// Largest |a - b| relative to max(1, |b|) over two tensors of one shape.
double relDiff(const torch::Tensor& a, const torch::Tensor& b) {
  auto x = a.detach().to(torch::kCPU, torch::kDouble),
       y = b.detach().to(torch::kCPU, torch::kDouble);
  if (x.sizes() != y.sizes()) return INFINITY;
  if (x.numel() == 0) return 0.0;
  return ((x - y).abs() / y.abs().clamp_min(1.0)).max().item<double>();
}

/// Random targets (image, cls, cx, cy, w, h normalised) for `b` images of `nc` classes.
torch::Tensor randomTargets(int64_t b, int nc, int perImage) {
  std::vector<torch::Tensor> rows;
  for (int64_t i = 0; i < b; ++i) {
    auto img = torch::full({perImage, 1}, static_cast<double>(i));
    auto cls = torch::randint(0, nc, {perImage, 1}).to(torch::kFloat);
    auto c = torch::rand({perImage, 2}) * 0.6 + 0.2;
    auto wh = torch::rand({perImage, 2}) * 0.3 + 0.05;
    rows.push_back(torch::cat({img.to(torch::kFloat), cls, c, wh}, 1));
  }
  return torch::cat(rows, 0);
}

using CheckResult = std::pair<double, std::string>;

/// The device `check-device` compares with the CPU: "" = CUDA device 0 when available.
torch::Device checkedDevice(const std::string& name) {
  torch::Device device = torch::kCPU;
  if (name.empty()) {
    if (cuda::available()) device = torch::Device(torch::kCUDA, 0);
  } else if (name != "cpu") {
    device = torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(std::stoi(name)));
  }
  return device;
}

/// The checks' JSON rows; one that throws is recorded as failed with its message.
struct CheckList {
  double tolerance;
  nlohmann::json checks = nlohmann::json::array();
  bool allOk = true;

  void record(const std::string& name, const std::function<CheckResult()>& fn) {
    nlohmann::json c;
    c["name"] = name;
    try {
      auto [diff, detail] = fn();
      c["max_rel_diff"] = std::isfinite(diff) ? nlohmann::json(diff) : nlohmann::json("inf");
      c["ok"] = std::isfinite(diff) && diff <= tolerance;
      c["detail"] = detail;
    } catch (const std::exception& e) {
      c["ok"] = false;
      c["detail"] = std::string("error: ") + e.what();
    }
    allOk = allOk && c["ok"].get<bool>();
    checks.push_back(c);
  }
};

/// Detection loss (assigner, CIoU, DFL, BCE) of a nano model on one batch, and its gradients.
CheckResult checkLossAndAssigner(const torch::Device& device) {
  model::ModelOptions mo;
  mo.scale = "n";
  mo.nc = 3;
  model::Yolo cpu(mo), dev(mo);
  {
    torch::NoGradGuard g;
    auto a = cpu->parameters(), b = dev->parameters();
    for (size_t i = 0; i < a.size(); ++i) b[i].copy_(a[i]);
  }
  dev->to(device);
  auto x = torch::rand({2, 3, 128, 128});
  auto t = randomTargets(2, 3, 4);
  DetectionLoss lc(*cpu, LossOptions{}), ld(*dev, LossOptions{});
  auto outC = lc(cpu->forward(x), t, 2);
  auto outD = ld(dev->forward(x.to(device)), t, 2);
  outC.total.backward();
  outD.total.backward();
  double d = relDiff(outD.items, outC.items);
  double g = 0;
  auto pc = cpu->parameters(), pd = dev->parameters();
  for (size_t i = 0; i < pc.size(); ++i)
    if (pc[i].grad().defined()) g = std::max(g, relDiff(pd[i].grad(), pc[i].grad()));
  return {std::max(d, g), "loss items and every gradient against the CPU"};
}

CheckResult checkNms(const torch::Device& device) {
  auto xy = torch::rand({2, 300, 2}) * 200;
  auto wh = torch::rand({2, 300, 2}) * 60 + 4;
  auto boxes = torch::cat({xy, xy + wh}, 2);
  auto scores = torch::rand({2, 300, 4});
  auto preds = torch::cat({boxes, scores}, 2);
  auto kc = nonMaxSuppression(preds, 0.25, 0.7, 300);
  auto kd = nonMaxSuppression(preds.to(device), 0.25, 0.7, 300);
  double d = 0;
  for (size_t i = 0; i < kc.size(); ++i) d = std::max(d, relDiff(kd[i], kc[i]));
  return {d, std::to_string(kc[0].size(0)) + " + " + std::to_string(kc[1].size(0)) + " boxes kept"};
}

CheckResult checkClipAndScaler(const torch::Device& device) {
  auto g = torch::randn({1000}) * 5;
  auto pc = torch::zeros({1000}, torch::requires_grad());
  auto pd = torch::zeros({1000}, torch::TensorOptions().device(device).requires_grad(true));
  pc.mutable_grad() = g.clone();
  pd.mutable_grad() = g.clone().to(device);
  GradScaler plain;
  const double norm = plain.unscaleAndClip({pc}, 1.0);
  double d = relDiff(plain.clipOnDevice({pd}, 1.0), torch::ones({}));
  d = std::max(d, relDiff(pd.grad(), pc.grad()));
  GradScalerOptions so;
  so.enabled = true;
  GradScaler scaled(so);
  pd.mutable_grad() = (g.clone() * 65536.0).to(device);
  const double normD = scaled.unscaleAndClip({pd}, 1.0);
  d = std::max(d, std::abs(normD - norm) / std::max(1.0, norm));
  pd.mutable_grad() = torch::full({1000}, INFINITY).to(device);
  if (std::isfinite(scaled.unscaleAndClip({pd}, 1.0))) d = INFINITY;
  return {d, "clip factor, unscale and inf detection"};
}

CheckResult checkForeachStep(const torch::Device& device) {
  double d = 0;
  for (bool sgd : {true, false}) {
    auto w = torch::randn({64, 32});
    auto pc = w.clone().requires_grad_(true), pd = w.to(device).requires_grad_(true);
    ParamGroups gc, gd;
    gc.params[kGroupWeight] = {pc};
    gd.params[kGroupWeight] = {pd};
    const OptimizerSpec spec{sgd, 0.01, 0.9, 5e-4};
    auto oc = buildOptimizer(gc, spec), od = buildOptimizer(gd, spec);
    for (int s = 0; s < 3; ++s) {
      auto grad = torch::randn({64, 32});
      pc.mutable_grad() = grad.clone();
      pd.mutable_grad() = grad.to(device);
      oc->step();
      foreachStep(*od);
    }
    d = std::max(d, relDiff(pd, pc));
  }
  return {d, "SGD (Nesterov) and AdamW, three steps, against LibTorch's step() on the CPU"};
}

CheckResult checkProcessGroup(const torch::Device& device, int port) {
  dist::DistEnv env;
  env.masterPort = port > 0 ? port : 20000 + static_cast<int>(::getpid() % 20000);
  dist::ProcessGroupOptions po;
  po.device = device;
  po.rendezvousTimeoutS = 30;
  po.timeoutS = 60;
  auto pg = dist::ProcessGroup::create(env, po);
  if (!pg) throw std::runtime_error(pg.errorText());
  auto& group = pg.value();
  std::vector<torch::Tensor> t{
      torch::arange(8, torch::TensorOptions().device(device)).to(torch::kFloat)};
  group->allReduce(t);
  return {relDiff(t[0], torch::arange(8).to(torch::kFloat)),
          group->backendName() + " group of one rank, all-reduce"};
}

/// How this process got (or did without) LibTorch's CUDA part: see core/cuda/runtime.h.
nlohmann::json cudaStatus() {
  const auto& st = cuda::load();
  nlohmann::json c;
  c["mode"] = st.mode;
  c["module_loaded"] = st.loaded;
  c["module_path"] = st.path;
  c["reason"] = st.reason;
  c["torch_cuda_in_process"] = cuda::torchCudaInProcess();
  c["torch_cuda_registered"] = cuda::torchCudaRegistered();
  c["devices"] = cuda::deviceCount();
  c["cuda_runtime"] = cuda::runtime() ? cuda::runtime()->cudaRuntimeVersion() : 0;
  c["nccl"] = cuda::runtime() ? cuda::runtime()->hasNccl() : false;
  return c;
}

}  // namespace

nlohmann::json runDeviceCheck(const DeviceCheckOptions& o) {
  const torch::Device device = checkedDevice(o.device);
  CheckList list{o.tolerance};
  torch::manual_seed(7);
  // The checks draw from one seeded generator in this order.
  list.record("loss_and_assigner", [&] { return checkLossAndAssigner(device); });
  list.record("nms", [&] { return checkNms(device); });
  list.record("clip_and_scaler", [&] { return checkClipAndScaler(device); });
  list.record("foreach_step", [&] { return checkForeachStep(device); });
  list.record("process_group", [&] { return checkProcessGroup(device, o.port); });

  nlohmann::json j;
  j["device"] = device.str();
  j["torch"] = TORCH_VERSION;
  j["checks"] = list.checks;
  j["cuda"] = cudaStatus();
  j["ok"] = list.allOk;
  return j;
}

}  // namespace stave::train
