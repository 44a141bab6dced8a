#include "app/stave-train/bench_train.h"
#include "core/base/clock.h"

#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <mutex>
#include <filesystem>
#include <optional>
#include <set>
#include <thread>

#include "core/cuda/runtime.h"
#include "core/data/dataset.h"
#include "core/data/demo.h"
#include "core/data/loader.h"
#include "core/model/yolo.h"
#include "core/telemetry/gpu_sampler.h"
#include "core/train/amp.h"
#include "core/train/device_input.h"
#include "core/train/loss.h"
#include "core/train/optimizer.h"
#include "core/train/train_step.h"
#include "core/train/validator.h"

namespace fs = std::filesystem;

namespace stave::cli {
using namespace stave::train;  // the engine this benchmark drives
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
  if (o.device != "cpu" && stave::cuda::available()) {
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

  auto precision = resolvePrecision(o.precision, o.precision != "fp32", device);
  if (!precision) return precision.errors();
  const Precision prec = precision.value();
  if (device.is_cuda()) setCudnnBenchmark(true);

  // Any network Stave builds (yolov8n..x, yolo11n..x), checked before anything is built.
  if (auto arch = model::architectureFor(o.scale, spec->nc()); !arch) return arch.errors();
  model::ModelOptions mo;
  mo.scale = o.scale;
  mo.nc = spec->nc();
  model::Yolo net(mo);
  net->to(device);
  if (o.channelsLast) toChannelsLast(*net);
  net->train();
  auto optimizer = buildOptimizer(splitParameters(*net), OptimizerSpec{true, 0.001, 0.9, 5e-4});
  std::vector<torch::Tensor> params;
  for (auto& p : net->parameters()) params.push_back(p);
  DetectionLoss loss(*net, LossOptions{});
  GradScalerOptions so;
  so.enabled = prec == Precision::Fp16;
  GradScaler scaler(so);
  DeviceFeeder feeder(device);
  // The trainer's step (train_step.h): autocast forward, float32 loss, clip, foreach optimiser
  // step; on CUDA with nothing read back to the host.
  StepParts parts{net, loss, scaler, *optimizer, params, prec, device};
  auto step = [&](const torch::Tensor& images, const torch::Tensor& targets, int64_t n) {
    (void)forwardBackward(parts, images, targets, n);
    (void)clipAndStep(parts);
  };
  auto nextBatch = [&](int i) -> std::optional<data::Batch> {
    auto batch = loader.next();
    if (!batch) {
      loader.startEpoch(i + 1, true);
      batch = loader.next();
    }
    return batch;
  };

  // GPU utilisation as NVML reports it while the end-to-end window runs (CUDA only).
  std::vector<double> utilisation;
  std::mutex utilMutex;
  std::unique_ptr<telemetry::GpuSampler> sampler;
  if (device.is_cuda()) {
    telemetry::GpuSamplerOptions go;
    go.periodSeconds = 0.1;
    sampler = std::make_unique<telemetry::GpuSampler>(go);
    if (!sampler->available()) sampler.reset();
  }

  // End to end: the loader's threads decode and augment while the model trains. The clock
  // stops after the device has finished the window's work (one synchronisation at the end).
  loader.startEpoch(0, true);
  double e2eTime = 0, dataWait = 0;
  int64_t e2eSamples = 0;
  std::optional<data::Batch> kept;
  for (int i = 0; i < o.warmup; ++i) {
    auto batch = nextBatch(i);
    if (!batch) return Error{dataYaml, 0, "train", "the loader produced no batch"};
    step(feeder.images(*batch, o.channelsLast), batchTargets(*batch, torch::kCPU), batch->n);
    if (!kept) kept = std::move(batch);
  }
  synchronizeDevice(device);
  cudaResetPeak(device);
  const int gpuIndex = device.is_cuda() ? device.index() : -1;
  if (sampler) {
    sampler->start([&](const std::vector<telemetry::GpuSample>& samples) {
      std::lock_guard<std::mutex> lock(utilMutex);
      for (const auto& g : samples)
        if (g.index == gpuIndex) utilisation.push_back(g.utilization);
    });
  }
  {
    const auto t0 = Clock::now();
    for (int i = 0; i < o.steps; ++i) {
      const auto w0 = Clock::now();
      auto batch = nextBatch(o.warmup + i);
      if (!batch) return Error{dataYaml, 0, "train", "the loader produced no batch"};
      dataWait += secondsSince(w0);
      step(feeder.images(*batch, o.channelsLast), batchTargets(*batch, torch::kCPU), batch->n);
      e2eSamples += batch->n;
    }
    synchronizeDevice(device);
    e2eTime = secondsSince(t0);
  }
  if (sampler) sampler->stop();
  const int64_t peakBytes = cudaPeakAllocatedBytes(device);

  // Compute only: the same model on one batch already on the device.
  auto images = batchImages(*kept, device, o.channelsLast).clone();
  auto targets = batchTargets(*kept, torch::kCPU);
  for (int i = 0; i < o.warmup; ++i) step(images, targets, kept->n);
  synchronizeDevice(device);
  double computeTime = 0;
  {
    const auto t0 = Clock::now();
    for (int i = 0; i < o.steps; ++i) step(images, targets, kept->n);
    synchronizeDevice(device);
    computeTime = secondsSince(t0);
  }

  // LibTorch's profiler over the same compute-only steps, as a Chrome trace (not timed).
  if (!o.profile.empty()) {
    namespace prof = torch::profiler::impl;
    std::set<prof::ActivityType> activities{prof::ActivityType::CPU};
    if (device.is_cuda()) activities.insert(prof::ActivityType::CUDA);
    torch::autograd::profiler::prepareProfiler(prof::ProfilerConfig(prof::ProfilerState::KINETO),
                                               activities);
    torch::autograd::profiler::enableProfiler(prof::ProfilerConfig(prof::ProfilerState::KINETO),
                                              activities);
    for (int i = 0; i < std::min(o.steps, 5); ++i) step(images, targets, kept->n);
    synchronizeDevice(device);
    auto trace = torch::autograd::profiler::disableProfiler();
    if (!trace) return Error{o.profile, 0, "profile", "the profiler returned no result"};
    trace->save(o.profile);
    if (!fs::exists(o.profile)) return Error{o.profile, 0, "profile", "could not write the trace"};
  }

  // The step split, from a separate profiled pass that waits for the device after each phase
  // (those waits are what the timed windows above avoid).
  double splitData = 0, splitCopy = 0, splitFwdBwd = 0, splitOpt = 0;
  const int splitSteps = std::min(o.steps, 5);
  for (int i = 0; i < splitSteps; ++i) {
    auto t0 = Clock::now();
    auto batch = nextBatch(o.warmup + o.steps + i);
    if (!batch) break;
    splitData += secondsSince(t0);
    t0 = Clock::now();
    auto x = feeder.images(*batch, o.channelsLast);
    auto tg = batchTargets(*batch, torch::kCPU);
    synchronizeDevice(device);
    splitCopy += secondsSince(t0);
    t0 = Clock::now();
    (void)forwardBackward(parts, x, tg, batch->n);
    synchronizeDevice(device);
    splitFwdBwd += secondsSince(t0);
    t0 = Clock::now();
    (void)clipAndStep(parts);
    synchronizeDevice(device);
    splitOpt += secondsSince(t0);
  }

  const double e2e = static_cast<double>(e2eSamples) / e2eTime;
  const double compute = static_cast<double>(o.steps) * static_cast<double>(kept->n) / computeTime;
  nlohmann::json j;
  j["bench"] = "train";
  j["scale"] = o.scale;
  j["model"] = net->architecture().name;
  j["imgsz"] = o.imgsz;
  j["batch"] = o.batch;
  j["steps"] = o.steps;
  j["device"] = device.str();
  j["precision"] = precisionName(prec);
  j["channels_last"] = o.channelsLast;
  if (!o.profile.empty()) j["profile"] = o.profile;
  j["threads"] = threads;
  j["torch"] = TORCH_VERSION;
  j["workers"] = lo.workers;
  j["end_to_end_samples_per_s"] = e2e;
  j["compute_only_samples_per_s"] = compute;
  j["ratio"] = e2e / compute;
  j["target_ratio"] = 0.9;
  j["meets_target"] = e2e / compute >= 0.9;
  j["data_wait_fraction"] = e2eTime > 0 ? dataWait / e2eTime : 0.0;
  j["hardware_threads"] = std::thread::hardware_concurrency();
  const double n = splitSteps > 0 ? splitSteps : 1;
  j["split_s_per_step"] = {{"data_wait", splitData / n},
                           {"h2d", splitCopy / n},
                           {"forward_backward", splitFwdBwd / n},
                           {"optimizer", splitOpt / n}};
  if (device.is_cuda()) {
    j["peak_memory_mb"] = static_cast<double>(peakBytes) / (1024.0 * 1024.0);
    if (!utilisation.empty()) {
      double sum = 0;
      for (double u : utilisation) sum += u;
      j["gpu_utilisation_mean"] = sum / static_cast<double>(utilisation.size());
      j["gpu_utilisation_samples"] = utilisation.size();
    } else {
      j["gpu_utilisation_mean"] = nullptr;
    }
  }
  return j;
}

}  // namespace stave::cli
