#include "core/train/bench_train.h"
#include "core/config/clock.h"

#include <torch/torch.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <thread>

#include "core/data/dataset.h"
#include "core/data/demo.h"
#include "core/data/loader.h"
#include "core/model/yolo.h"
#include "core/train/blas_check.h"
#include "core/train/loss.h"
#include "core/train/optimizer.h"
#include "core/train/validator.h"

namespace fs = std::filesystem;

namespace stave::train {
namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

Result<nlohmann::json> benchTrain(const BenchTrainOptions& o) {
  const int threads = o.threads > 0
                          ? o.threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  torch::set_num_threads(threads);
  torch::manual_seed(0);
  torch::Device device = torch::kCPU;
  if (o.device != "cpu" && torch::cuda::is_available()) {
    device = torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(
                                             o.device.empty() ? 0 : std::atoi(o.device.c_str())));
  }
  std::string dataYaml = o.data;
  fs::path tmp;
  if (dataYaml.empty()) {
    tmp = fs::temp_directory_path() / ("stave-bench-train-" + std::to_string(::getpid()));
    data::DemoOptions demo;
    demo.out = tmp.string();
    demo.train = o.batch * (o.steps + o.warmup + 1);
    demo.val = 8;
    demo.imgsz = o.imgsz;
    if (auto s = data::makeDemo(demo); !s) return s.errors();
    dataYaml = (tmp / "data.yaml").string();
  }
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code ec;
      if (!p.empty()) fs::remove_all(p, ec);
    }
  } cleanup{tmp};
  auto spec = data::loadDataYaml(dataYaml);
  if (!spec) return spec.errors();
  auto index = data::scanSplit(spec.value(), "train");
  if (!index) return index.errors();
  if (static_cast<int>(index->images.size()) < o.batch)
    return Error{dataYaml, 0, "train", "fewer images than one batch"};

  data::LoaderOptions lo;
  lo.imgsz = o.imgsz;
  lo.batch = o.batch;
  lo.workers = o.workers > 0 ? o.workers : 8;
  lo.augment = true;
  lo.shuffle = true;
  if (device.is_cuda()) lo.allocate = pinnedHostAllocator();
  data::Loader loader(index.value(), lo);

  model::ModelOptions mo;
  mo.scale = o.scale;
  mo.nc = spec->nc();
  model::Yolo net(mo);
  net->to(device);
  net->train();
  auto optimizer = buildOptimizer(splitParameters(*net), OptimizerSpec{true, 0.001, 0.9, 5e-4});
  DetectionLoss loss(*net, LossOptions{});
  auto step = [&](const torch::Tensor& images, const torch::Tensor& targets, int64_t n) {
    auto out = loss(net->forward(images), targets, n);
    out.total.backward();
    optimizer->step();
    optimizer->zero_grad();
    // Make the step's work finish before the clock stops (asynchronous on CUDA).
    (void)out.items.sum().item<double>();
  };

  // End to end: the loader's threads decode and augment while the model trains.
  loader.startEpoch(0, true);
  double e2eTime = 0, dataWait = 0;
  int64_t e2eSamples = 0;
  std::optional<data::Batch> kept;
  for (int i = 0; i < o.warmup + o.steps; ++i) {
    auto t0 = Clock::now();
    auto batch = loader.next();
    if (!batch) {
      loader.startEpoch(i + 1, true);
      batch = loader.next();
      if (!batch) return Error{dataYaml, 0, "train", "the loader produced no batch"};
    }
    const double wait = secondsSince(t0);
    auto images = batchImages(*batch, device, false);
    auto targets = batchTargets(*batch, device);
    step(images, targets, batch->n);
    if (i >= o.warmup) {
      e2eTime += secondsSince(t0);
      dataWait += wait;
      e2eSamples += batch->n;
    }
    if (!kept) kept = std::move(batch);
  }

  // Compute only: the same model on one batch already on the device.
  auto images = batchImages(*kept, device, false).clone();
  auto targets = batchTargets(*kept, device);
  double computeTime = 0;
  for (int i = 0; i < o.warmup + o.steps; ++i) {
    auto t0 = Clock::now();
    step(images, targets, kept->n);
    if (i >= o.warmup) computeTime += secondsSince(t0);
  }
  const double e2e = static_cast<double>(e2eSamples) / e2eTime;
  const double compute = static_cast<double>(o.steps) * static_cast<double>(kept->n) / computeTime;
  nlohmann::json j;
  j["bench"] = "train";
  j["scale"] = o.scale;
  j["imgsz"] = o.imgsz;
  j["batch"] = o.batch;
  j["steps"] = o.steps;
  j["device"] = device.str();
  j["threads"] = threads;
  const BlasInfo blas = detectBlas();
  j["blas"] = blas.name;
  j["blas_library"] = blas.library;
  j["workers"] = lo.workers;
  j["end_to_end_samples_per_s"] = e2e;
  j["compute_only_samples_per_s"] = compute;
  j["ratio"] = e2e / compute;
  j["target_ratio"] = 0.9;
  j["meets_target"] = e2e / compute >= 0.9;
  j["data_wait_fraction"] = e2eTime > 0 ? dataWait / e2eTime : 0.0;
  j["hardware_threads"] = std::thread::hardware_concurrency();
  return j;
}

}  // namespace stave::train
