#include "core/bench/bench_train.h"

#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "core/base/clock.h"
#include "core/bench/scratch_dir.h"
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

namespace stave::bench {
using namespace stave::train;  // the engine this benchmark drives
namespace {
using Clock = std::chrono::steady_clock;

/// The model with its optimiser and loss, and the trainer's step (train_step.h): autocast
/// forward, float32 loss, clip, foreach optimiser step; on CUDA with nothing read back to the
/// host.
struct Trainee {
  model::Yolo net;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  std::vector<torch::Tensor> params;
  DetectionLoss loss;
  GradScaler scaler;
  DeviceFeeder feeder;
  StepParts parts;

  Trainee(const model::ModelOptions& mo, const torch::Device& device, bool channelsLast,
          Precision prec)
      : net(buildNet(mo, device, channelsLast)),
        optimizer(buildOptimizer(splitParameters(*net), OptimizerSpec{true, 0.001, 0.9, 5e-4})),
        params(net->parameters()),
        loss(*net, LossOptions{}),
        scaler(scalerOptions(prec)),
        feeder(device),
        parts{net, loss, scaler, *optimizer, params, prec, device} {}

  void step(const torch::Tensor& images, const torch::Tensor& targets, int64_t n) {
    (void)forwardBackward(parts, images, targets, n);
    (void)clipAndStep(parts);
  }

 private:
  static model::Yolo buildNet(const model::ModelOptions& mo, const torch::Device& device,
                              bool channelsLast) {
    model::Yolo net(mo);
    net->to(device);
    if (channelsLast) toChannelsLast(*net);
    net->train();
    return net;
  }
  static GradScalerOptions scalerOptions(Precision prec) {
    GradScalerOptions so;
    so.enabled = prec == Precision::Fp16;
    return so;
  }
};

/// The loader's next batch; when an epoch runs out the next one (mosaic on) starts.
std::optional<data::Batch> nextBatch(data::Loader& loader, int i) {
  auto batch = loader.next();
  if (!batch) {
    loader.startEpoch(i + 1, true);
    batch = loader.next();
  }
  return batch;
}

torch::Device pickDevice(const BenchTrainOptions& o) {
  if (o.device != "cpu" && stave::cuda::available()) {
    return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(
                                           o.device.empty() ? 0 : std::atoi(o.device.c_str())));
  }
  return torch::kCPU;
}

/// A demo dataset in `dir` with enough training images for every step; its data.yaml.
Result<std::string> makeDemoData(const BenchTrainOptions& o, const fs::path& dir) {
  data::DemoOptions demo;
  demo.out = dir.string();
  demo.train = o.batch * (o.steps + o.warmup + 1);
  demo.val = 8;
  demo.imgsz = o.imgsz;
  if (auto s = data::makeDemo(demo); !s) return s.errors();
  return (dir / "data.yaml").string();
}

/// The end-to-end window: the loader's threads decode and augment while the model trains.
struct EndToEnd {
  double seconds = 0;               ///< the timed steps, up to the device's last work
  double dataWait = 0;              ///< of which waiting for the loader
  int64_t samples = 0;              ///< images trained in the timed steps
  int64_t peakBytes = 0;            ///< CUDA memory peak of the timed steps
  std::vector<double> utilisation;  ///< NVML's GPU utilisation samples (CUDA only)
  /// The first batch trained (a warm-up one, or the first timed with --warmup 0), which the
  /// compute-only window trains on again.
  std::optional<data::Batch> kept;
};

/// NVML's sampler at 10 Hz on CUDA; null on the CPU or without NVML.
std::unique_ptr<telemetry::GpuSampler> gpuSampler(const torch::Device& device) {
  if (!device.is_cuda()) return nullptr;
  telemetry::GpuSamplerOptions go;
  go.periodSeconds = 0.1;
  auto sampler = std::make_unique<telemetry::GpuSampler>(go);
  if (!sampler->available()) sampler.reset();
  return sampler;
}

/// Warm-up steps, then the timed steps; the clock stops after the device has finished the
/// window's work (one synchronisation at the end).
Result<EndToEnd> timeEndToEnd(const BenchTrainOptions& o, Trainee& t, data::Loader& loader,
                              const torch::Device& device, const std::string& dataYaml) {
  EndToEnd r;
  std::mutex utilMutex;
  auto sampler = gpuSampler(device);
  loader.startEpoch(0, true);
  for (int i = 0; i < o.warmup; ++i) {
    auto batch = nextBatch(loader, i);
    if (!batch) return Error{dataYaml, 0, "train", "the loader produced no batch"};
    t.step(t.feeder.images(*batch, o.channelsLast), batchTargets(*batch, torch::kCPU), batch->n);
    if (!r.kept) r.kept = std::move(batch);
  }
  synchronizeDevice(device);
  cudaResetPeak(device);
  const int gpuIndex = device.is_cuda() ? device.index() : -1;
  if (sampler) {
    sampler->start([&](const std::vector<telemetry::GpuSample>& samples) {
      std::lock_guard<std::mutex> lock(utilMutex);
      for (const auto& g : samples)
        if (g.index == gpuIndex) r.utilisation.push_back(g.utilization);
    });
  }
  const auto t0 = Clock::now();
  for (int i = 0; i < o.steps; ++i) {
    const auto w0 = Clock::now();
    auto batch = nextBatch(loader, o.warmup + i);
    if (!batch) return Error{dataYaml, 0, "train", "the loader produced no batch"};
    r.dataWait += secondsSince(w0);
    t.step(t.feeder.images(*batch, o.channelsLast), batchTargets(*batch, torch::kCPU), batch->n);
    r.samples += batch->n;
    if (!r.kept) r.kept = std::move(batch);
  }
  synchronizeDevice(device);
  r.seconds = secondsSince(t0);
  if (sampler) sampler->stop();
  r.peakBytes = cudaPeakAllocatedBytes(device);
  return r;
}

/// One batch already on the device, trained on again and again.
struct HeldBatch {
  torch::Tensor images, targets;
  int64_t n = 0;
};

/// Seconds of o.steps steps on `b` after o.warmup unmeasured ones: the model's compute alone.
double timeComputeOnly(const BenchTrainOptions& o, Trainee& t, const HeldBatch& b,
                       const torch::Device& device) {
  for (int i = 0; i < o.warmup; ++i) t.step(b.images, b.targets, b.n);
  synchronizeDevice(device);
  const auto t0 = Clock::now();
  for (int i = 0; i < o.steps; ++i) t.step(b.images, b.targets, b.n);
  synchronizeDevice(device);
  return secondsSince(t0);
}

/// LibTorch's profiler over up to 5 compute-only steps, saved as a Chrome trace (not timed).
Status writeProfile(const BenchTrainOptions& o, Trainee& t, const HeldBatch& b,
                    const torch::Device& device) {
  namespace prof = torch::profiler::impl;
  std::set<prof::ActivityType> activities{prof::ActivityType::CPU};
  if (device.is_cuda()) activities.insert(prof::ActivityType::CUDA);
  torch::autograd::profiler::prepareProfiler(prof::ProfilerConfig(prof::ProfilerState::KINETO),
                                             activities);
  torch::autograd::profiler::enableProfiler(prof::ProfilerConfig(prof::ProfilerState::KINETO),
                                            activities);
  for (int i = 0; i < std::min(o.steps, 5); ++i) t.step(b.images, b.targets, b.n);
  synchronizeDevice(device);
  auto trace = torch::autograd::profiler::disableProfiler();
  if (!trace) return Error{o.profile, 0, "profile", "the profiler returned no result"};
  trace->save(o.profile);
  if (!fs::exists(o.profile)) return Error{o.profile, 0, "profile", "could not write the trace"};
  return Ok{};
}

/// Seconds per step of each phase, means over up to 5 steps.
struct StepSplit {
  double data = 0, copy = 0, forwardBackward = 0, optimizer = 0;
  int steps = 0;
};

/// The step split, from a separate pass that waits for the device after each phase (those
/// waits are what the timed windows avoid).
StepSplit measureSplit(const BenchTrainOptions& o, Trainee& t, data::Loader& loader,
                       const torch::Device& device) {
  StepSplit s;
  s.steps = std::min(o.steps, 5);
  for (int i = 0; i < s.steps; ++i) {
    auto t0 = Clock::now();
    auto batch = nextBatch(loader, o.warmup + o.steps + i);
    if (!batch) break;
    s.data += secondsSince(t0);
    t0 = Clock::now();
    auto x = t.feeder.images(*batch, o.channelsLast);
    auto tg = batchTargets(*batch, torch::kCPU);
    synchronizeDevice(device);
    s.copy += secondsSince(t0);
    t0 = Clock::now();
    (void)forwardBackward(t.parts, x, tg, batch->n);
    synchronizeDevice(device);
    s.forwardBackward += secondsSince(t0);
    t0 = Clock::now();
    (void)clipAndStep(t.parts);
    synchronizeDevice(device);
    s.optimizer += secondsSince(t0);
  }
  return s;
}

/// What the report says besides the options.
struct Measured {
  std::string model;
  torch::Device device = torch::kCPU;
  Precision precision = Precision::Fp32;
  int threads = 0, workers = 0;
  EndToEnd e2e;
  double computeSeconds = 0;
  StepSplit split;
};

nlohmann::json reportJson(const BenchTrainOptions& o, const Measured& m) {
  const double e2e = static_cast<double>(m.e2e.samples) / m.e2e.seconds;
  const double compute =
      static_cast<double>(o.steps) * static_cast<double>(m.e2e.kept->n) / m.computeSeconds;
  nlohmann::json j;
  j["bench"] = "train";
  j["scale"] = o.scale;
  j["model"] = m.model;
  j["imgsz"] = o.imgsz;
  j["batch"] = o.batch;
  j["steps"] = o.steps;
  j["device"] = m.device.str();
  j["precision"] = precisionName(m.precision);
  j["channels_last"] = o.channelsLast;
  if (!o.profile.empty()) j["profile"] = o.profile;
  j["threads"] = m.threads;
  j["torch"] = TORCH_VERSION;
  j["workers"] = m.workers;
  j["end_to_end_samples_per_s"] = e2e;
  j["compute_only_samples_per_s"] = compute;
  j["ratio"] = e2e / compute;
  j["target_ratio"] = 0.9;
  j["meets_target"] = e2e / compute >= 0.9;
  j["data_wait_fraction"] = m.e2e.seconds > 0 ? m.e2e.dataWait / m.e2e.seconds : 0.0;
  j["hardware_threads"] = std::thread::hardware_concurrency();
  const double n = m.split.steps > 0 ? m.split.steps : 1;
  j["split_s_per_step"] = {{"data_wait", m.split.data / n},
                           {"h2d", m.split.copy / n},
                           {"forward_backward", m.split.forwardBackward / n},
                           {"optimizer", m.split.optimizer / n}};
  if (m.device.is_cuda()) {
    j["peak_memory_mb"] = static_cast<double>(m.e2e.peakBytes) / (1024.0 * 1024.0);
    const auto& u = m.e2e.utilisation;
    if (!u.empty()) {
      double sum = 0;
      for (double v : u) sum += v;
      j["gpu_utilisation_mean"] = sum / static_cast<double>(u.size());
      j["gpu_utilisation_samples"] = u.size();
    } else {
      j["gpu_utilisation_mean"] = nullptr;
    }
  }
  return j;
}

}  // namespace

Result<nlohmann::json> benchTrain(const BenchTrainOptions& o) {
  Measured m;
  m.threads = o.threads > 0 ? o.threads
                            : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  torch::set_num_threads(m.threads);
  torch::manual_seed(0);
  m.device = pickDevice(o);
  const torch::Device device = m.device;
  const ScratchDir scratch(o.data.empty() ? scratchPath("stave-bench-train-") : fs::path());
  auto yaml = o.data.empty() ? makeDemoData(o, scratch.path()) : Result<std::string>(o.data);
  if (!yaml) return yaml.errors();
  const std::string dataYaml = yaml.value();
  auto spec = data::loadDataYaml(dataYaml);
  if (!spec) return spec.errors();
  auto index = data::scanSplit(spec.value(), "train");
  if (!index) return index.errors();
  if (static_cast<int>(index->images.size()) < o.batch)
    return Error{dataYaml, 0, "train", "fewer images than one batch"};

  data::LoaderOptions lo;
  lo.imgsz = o.imgsz;
  lo.batch = o.batch;
  lo.workers = m.workers = o.workers > 0 ? o.workers : 8;
  lo.augment = true;
  lo.shuffle = true;
  if (device.is_cuda()) lo.allocate = pinnedHostAllocator();
  data::Loader loader(index.value(), lo);

  auto precision = resolvePrecision(o.precision, o.precision != "fp32", device);
  if (!precision) return precision.errors();
  m.precision = precision.value();
  if (device.is_cuda()) setCudnnBenchmark(true);
  // Any network Stave builds (yolov8n..x, yolo11n..x), checked before anything is built.
  if (auto arch = model::architectureFor(o.scale, spec->nc()); !arch) return arch.errors();
  model::ModelOptions mo;
  mo.scale = o.scale;
  mo.nc = spec->nc();
  Trainee t(mo, device, o.channelsLast, m.precision);
  m.model = t.net->architecture().name;

  auto e2e = timeEndToEnd(o, t, loader, device, dataYaml);
  if (!e2e) return e2e.errors();
  m.e2e = std::move(e2e.value());
  // Compute only: the same model on one batch already on the device.
  const HeldBatch held{batchImages(*m.e2e.kept, device, o.channelsLast).clone(),
                       batchTargets(*m.e2e.kept, torch::kCPU), m.e2e.kept->n};
  m.computeSeconds = timeComputeOnly(o, t, held, device);
  if (!o.profile.empty()) {
    if (auto st = writeProfile(o, t, held, device); !st) return st.errors();
  }
  m.split = measureSplit(o, t, loader, device);
  return reportJson(o, m);
}

}  // namespace stave::bench
