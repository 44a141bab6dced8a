#include "core/bench/bench_ddp.h"

#include <torch/torch.h>
#include <torch/version.h>

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>

#include "core/base/clock.h"
#include "core/bench/scratch_dir.h"
#include "core/distributed/dist_env.h"
#include "core/distributed/gradient_sync.h"
#include "core/distributed/launcher.h"
#include "core/distributed/process_group.h"
#include "core/model/yolo.h"
#include "core/telemetry/events.h"
#include "core/train/loss.h"
#include "core/train/optimizer.h"

namespace fs = std::filesystem;

namespace stave::bench {
using namespace stave::train;  // the engine this benchmark drives
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kRankEvent = "bench_ddp_rank";
constexpr int kNc = 80;  // COCO-sized head, as the published models
constexpr int kBoxesPerImage = 4;

/// Seconds of one training step, split as the report shows them.
struct StepTimes {
  double compute = 0;    // forward + loss + backward (hooks launch all-reduces inside)
  double wait = 0;       // blocked in GradientSync::wait()
  double allreduce = 0;  // first bucket launch to last completion
  double optimizer = 0;  // optimizer step + zero_grad
  double step = 0;       // all of the above
};

/// One model with its optimiser and loss, seeded so every process builds the same weights.
struct Trainee {
  model::Yolo net{nullptr};
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  std::unique_ptr<DetectionLoss> loss;

  explicit Trainee(const std::string& scale) {
    torch::manual_seed(0);
    model::ModelOptions mo;
    mo.scale = scale;
    mo.nc = kNc;
    net = model::Yolo(mo);
    net->train();
    // A small lr: random targets must not drive the weights to NaN within the run.
    optimizer = buildOptimizer(splitParameters(*net), OptimizerSpec{true, 0.001, 0.9, 5e-4});
    loss = std::make_unique<DetectionLoss>(*net, LossOptions{});
  }
};

/// A batch already in memory, as the loader would hand it over: uint8 NCHW pixels and target
/// rows (batchIdx, cls, cx, cy, w, h), drawn from a fixed seed per rank.
struct SyntheticBatch {
  torch::Tensor pixels, targets;
  int64_t n = 0;
};

SyntheticBatch makeBatch(int batch, int imgsz, uint64_t seed) {
  auto gen = at::detail::createCPUGenerator(seed);
  SyntheticBatch b;
  b.n = batch;
  b.pixels = torch::randint(0, 256, {batch, 3, imgsz, imgsz}, gen, torch::kUInt8);
  const int64_t rows = static_cast<int64_t>(batch) * kBoxesPerImage;
  auto idx = torch::arange(batch, torch::kFloat).repeat_interleave(kBoxesPerImage).unsqueeze(1);
  auto cls = torch::randint(0, kNc, {rows, 1}, gen, torch::kFloat);
  auto wh = torch::rand({rows, 2}, gen, torch::kFloat) * 0.35 + 0.05;
  auto c =
      torch::rand({rows, 2}, gen, torch::kFloat) * (1 - wh) + wh / 2;  // boxes inside the image
  b.targets = torch::cat({idx, cls, c, wh}, 1);
  return b;
}

/// `total` steps; with `sync` gradients are averaged over the ranks, overlapping backward.
std::vector<StepTimes> runSteps(Trainee& t, const SyntheticBatch& b, int total,
                                dist::GradientSync* sync) {
  std::vector<StepTimes> out;
  out.reserve(static_cast<size_t>(total));
  for (int i = 0; i < total; ++i) {
    StepTimes s;
    const auto t0 = Clock::now();
    if (sync) sync->prepareForBackward();
    auto images = b.pixels.to(torch::kFloat).div_(255.0);
    auto l = (*t.loss)(t.net->forward(images), b.targets, b.n);
    l.total.backward();
    s.compute = secondsSince(t0);
    if (sync) {
      s.wait = sync->wait();
      s.allreduce = sync->stats().lastAllreduceS;
    }
    const auto t2 = Clock::now();
    t.optimizer->step();
    zeroGradients(*t.optimizer);
    s.optimizer = secondsSince(t2);
    s.step = secondsSince(t0);
    out.push_back(s);
  }
  return out;
}

/// Means over the measured steps (after warmup).
StepTimes meanAfter(const std::vector<StepTimes>& v, int warmup) {
  StepTimes m;
  int n = 0;
  for (size_t i = static_cast<size_t>(warmup); i < v.size(); ++i, ++n) {
    m.compute += v[i].compute;
    m.wait += v[i].wait;
    m.allreduce += v[i].allreduce;
    m.optimizer += v[i].optimizer;
    m.step += v[i].step;
  }
  if (n > 0) {
    m.compute /= n;
    m.wait /= n;
    m.allreduce /= n;
    m.optimizer /= n;
    m.step /= n;
  }
  return m;
}

nlohmann::json timesJson(const StepTimes& s, bool withSync) {
  nlohmann::json j;
  j["compute_s"] = s.compute;
  if (withSync) {
    j["allreduce_total_s"] = s.allreduce;
    j["allreduce_wait_s"] = s.wait;
    j["overlap_ratio"] = s.allreduce > 0 ? std::clamp(1.0 - s.wait / s.allreduce, 0.0, 1.0) : 0.0;
  }
  j["optimizer_s"] = s.optimizer;
  j["step_s"] = s.step;
  return j;
}

std::string tailOf(const fs::path& file, size_t lines) {
  std::ifstream in(file);
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) all.push_back(line);
  std::string out;
  for (size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i)
    out += all[i] + "\n";
  return out;
}

int workerThreads(const BenchDdpOptions& o, int cores) {
  return o.threads > 0 ? o.threads : std::max(1, cores / std::max(1, o.nproc));
}

/// The `bench_ddp_rank` event a worker prints: its thread count, the measured steps' times (one
/// array per step, in the order of "fields") and the gradient buckets' statistics.
telemetry::Event rankEvent(int rank, int threads, const std::vector<StepTimes>& times, int warmup,
                           const dist::SyncStats& stats) {
  telemetry::Event e;
  e.type = kRankEvent;
  e.rank = rank;
  e.time = telemetry::unixTimeNow();
  nlohmann::json steps = nlohmann::json::array();
  for (size_t i = static_cast<size_t>(warmup); i < times.size(); ++i) {
    steps.push_back(
        {times[i].compute, times[i].wait, times[i].allreduce, times[i].optimizer, times[i].step});
  }
  e.data["threads"] = threads;
  e.data["fields"] = {"compute_s", "allreduce_wait_s", "allreduce_total_s", "optimizer_s",
                      "step_s"};
  e.data["steps"] = steps;
  e.data["buckets"] = stats.buckets;
  e.data["launched_in_backward"] = stats.launchedInBackward;
  e.data["launched_in_wait"] = stats.launchedInWait;
  return e;
}

/// The options benchDdp refuses, before anything runs.
Status checkOptions(const BenchDdpOptions& o) {
  static const std::vector<std::string> scales = {"n", "s", "m", "l", "x"};
  if (std::find(scales.begin(), scales.end(), o.scale) == scales.end()) {
    return Error{"", 0, "scale", "must be one of n, s, m, l, x, got '" + o.scale + "'"};
  }
  if (o.imgsz < 32 || o.imgsz % 32 != 0)
    return Error{"", 0, "imgsz", "must be a multiple of 32 >= 32"};
  if (o.batch < 1 || o.steps < 1 || o.warmup < 0)
    return Error{"", 0, "batch", "need batch >= 1, steps >= 1, warmup >= 0"};
  if (o.nproc < 2 || o.nproc > 64) return Error{"", 0, "nproc", "must be in 2..64"};
  if (!(o.bucketMb > 0) || o.bucketMb > 4096)
    return Error{"", 0, "bucket_mb", "must be in (0, 4096]"};
  if (o.workerCommand.empty()) return Error{"", 0, "worker", "no command to start the ranks with"};
  return Ok{};
}

/// The 1-rank reference: mean step times after warmup, and the model's trainable parameters.
struct Reference {
  StepTimes mean;
  int64_t params = 0;
};

/// Trains 1 rank in this process with `cores` intra-op threads.
Reference runReference(const BenchDdpOptions& o, int cores) {
  torch::set_num_threads(cores);
  Reference r;
  Trainee t(o.scale);
  for (const auto& p : t.net->parameters()) {
    if (p.requires_grad()) r.params += p.numel();
  }
  const auto batch = makeBatch(o.batch, o.imgsz, 1000);
  r.mean = meanAfter(runSteps(t, batch, o.warmup + o.steps, nullptr), o.warmup);
  return r;
}

/// Runs o.nproc worker processes through the launcher and returns each rank's
/// `bench_ddp_rank` data; an error (key kDdpRunFailedKey) with the ranks' last log lines when
/// the run failed or a rank sent no report.
Result<std::map<int, nlohmann::json>> runRanks(const BenchDdpOptions& o) {
  const ScratchDir runDir(scratchPath("stave-bench-ddp-"));
  std::mutex mu;
  std::map<int, nlohmann::json> reports;
  dist::LaunchOptions lo;
  lo.workerArgv = benchDdpWorkerArgv(o);
  lo.nproc = o.nproc;
  lo.runDir = runDir.path().string();
  lo.hangTimeoutS = 600;
  lo.graceS = 5;
  lo.reportPeriodS = 0;
  lo.echoStdout = false;
  lo.onEvent = [&](const std::string& line) {
    auto ev = telemetry::decodeEvent(line);
    if (!ev || ev->type != kRankEvent) return;
    std::lock_guard<std::mutex> lock(mu);
    reports[ev->rank] = ev->data;
  };
  const auto res = dist::launch(lo);
  if (res.exitCode == 0 && static_cast<int>(reports.size()) == o.nproc) return reports;
  std::string msg =
      "the " + std::to_string(o.nproc) + "-rank run " + dist::outcomeName(res.outcome);
  if (!res.message.empty()) msg += ": " + res.message;
  for (int r = 0; r < o.nproc; ++r) {
    const auto tail = tailOf(runDir.path() / "logs" / ("rank" + std::to_string(r) + ".log"), 10);
    if (!tail.empty()) msg += "\nrank " + std::to_string(r) + " log:\n" + tail;
  }
  return Error{"", 0, kDdpRunFailedKey, msg};
}

/// The distributed run in numbers: means over the measured steps per rank, then over ranks;
/// samples/s add up over ranks.
struct DdpSummary {
  StepTimes mean;
  double samplesPerS = 0;
  nlohmann::json perRank = nlohmann::json::array();
  int buckets = 0;
  int64_t inBackward = 0, inWait = 0;
};

DdpSummary summarize(const BenchDdpOptions& o, const std::map<int, nlohmann::json>& reports) {
  DdpSummary sum;
  for (const auto& [rank, d] : reports) {
    std::vector<StepTimes> v;
    for (const auto& s : d.at("steps")) {
      v.push_back(StepTimes{s.at(0).get<double>(), s.at(1).get<double>(), s.at(2).get<double>(),
                            s.at(3).get<double>(), s.at(4).get<double>()});
    }
    const auto m = meanAfter(v, 0);
    auto rj = timesJson(m, true);
    rj["rank"] = rank;
    rj["samples_per_s"] = m.step > 0 ? o.batch / m.step : 0.0;
    sum.perRank.push_back(rj);
    sum.mean.compute += m.compute / o.nproc;
    sum.mean.wait += m.wait / o.nproc;
    sum.mean.allreduce += m.allreduce / o.nproc;
    sum.mean.optimizer += m.optimizer / o.nproc;
    sum.mean.step += m.step / o.nproc;
    sum.samplesPerS += m.step > 0 ? o.batch / m.step : 0.0;
    sum.buckets = d.value("buckets", 0);
    sum.inBackward += d.value("launched_in_backward", int64_t{0});
    sum.inWait += d.value("launched_in_wait", int64_t{0});
  }
  return sum;
}

/// Why the efficiency on one machine is not the multi-GPU kind (the report's "note").
std::string sharedCoresNote(int nproc, int cores, int rankThreads) {
  return "All " + std::to_string(nproc) + " ranks share this machine's " + std::to_string(cores) +
         " cores (the 1-rank reference uses " + std::to_string(cores) +
         " intra-op threads, each rank " + std::to_string(rankThreads) +
         ") and Gloo's all-reduce runs on the same cores, so the total "
         "compute does not grow with ranks: with perfect intra-op scaling the efficiency would "
         "be about 1/" +
         std::to_string(nproc) + ". Values above that mean the reference's " +
         std::to_string(cores) +
         " threads scale worse than separate processes (thread sync, a core busy with other "
         "work). This measures DDP's cost on a shared CPU, not multi-GPU scaling; other "
         "processes add noise.";
}

nlohmann::json reportJson(const BenchDdpOptions& o, int cores, const Reference& single,
                          const DdpSummary& ddp) {
  const int rankThreads = workerThreads(o, cores);
  const double singleSamplesPerS = single.mean.step > 0 ? o.batch / single.mean.step : 0.0;
  nlohmann::json j;
  j["bench"] = "ddp";
  j["scale"] = o.scale;
  j["imgsz"] = o.imgsz;
  j["batch_per_rank"] = o.batch;
  j["steps"] = o.steps;
  j["warmup"] = o.warmup;
  j["nproc"] = o.nproc;
  j["backend"] = "gloo";
  j["device"] = "cpu";
  j["bucket_mb"] = o.bucketMb;
  j["buckets"] = ddp.buckets;
  j["params"] = single.params;
  j["gradient_mb"] = static_cast<double>(single.params) * 4.0 / (1024.0 * 1024.0);
  j["cores"] = cores;
  j["threads_single"] = cores;
  j["threads_per_rank"] = rankThreads;
  j["torch"] = TORCH_VERSION;
  auto sj = timesJson(single.mean, false);
  sj["samples_per_s"] = singleSamplesPerS;
  j["single"] = sj;
  auto dj = timesJson(ddp.mean, true);
  dj["samples_per_s"] = ddp.samplesPerS;
  dj["launched_in_backward"] = ddp.inBackward;
  dj["launched_in_wait"] = ddp.inWait;
  dj["per_rank"] = ddp.perRank;
  j["ddp"] = dj;
  j["scaling_efficiency"] =
      singleSamplesPerS > 0 ? ddp.samplesPerS / (o.nproc * singleSamplesPerS) : 0.0;
  j["note"] = sharedCoresNote(o.nproc, cores, rankThreads);
  return j;
}

}  // namespace

int benchCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

std::vector<std::string> benchDdpWorkerArgv(const BenchDdpOptions& o) {
  std::vector<std::string> argv = o.workerCommand;
  const std::vector<std::pair<std::string, std::string>> flags = {
      {"--nproc", std::to_string(o.nproc)},
      {"--scale", o.scale},
      {"--imgsz", std::to_string(o.imgsz)},
      {"--batch", std::to_string(o.batch)},
      {"--steps", std::to_string(o.steps)},
      {"--warmup", std::to_string(o.warmup)},
      {"--bucket-mb", std::to_string(o.bucketMb)},
      {"--threads", std::to_string(workerThreads(o, benchCores()))}};
  for (const auto& [k, v] : flags) {
    argv.push_back(k);
    argv.push_back(v);
  }
  return argv;
}

int benchDdpWorker(const BenchDdpOptions& o) {
  try {
    auto env = dist::DistEnv::fromEnvironment();
    if (!env) {
      std::cerr << "bench ddp worker: " << env.errorText() << "\n";
      return 1;
    }
    const int threads = workerThreads(o, benchCores());
    torch::set_num_threads(threads);
    dist::ProcessGroupOptions po;
    po.backend = "gloo";
    po.rendezvousTimeoutS = 120;
    po.timeoutS = 600;
    auto pg = dist::ProcessGroup::create(env.value(), po);
    if (!pg) {
      std::cerr << "bench ddp worker rank " << env->rank << ": " << pg.errorText() << "\n";
      return 1;
    }
    Trainee t(o.scale);
    pg.value()->broadcastParameters(*t.net);
    pg.value()->broadcastBuffers(*t.net);
    dist::GradientSync sync(*pg.value(), t.net->parameters(), o.bucketMb);
    // Each rank trains on its own shard, as under DDP.
    const auto batch = makeBatch(o.batch, o.imgsz, 1000 + static_cast<uint64_t>(env->rank));
    pg.value()->barrier();
    const auto times = runSteps(t, batch, o.warmup + o.steps, &sync);
    const auto stats = sync.stats();
    pg.value()->barrier();
    const auto e = rankEvent(env->rank, threads, times, o.warmup, stats);
    std::cout << telemetry::encodeEvent(e) << "\n" << std::flush;
    return 0;
  } catch (const std::exception& ex) {
    std::cerr << "bench ddp worker: " << ex.what() << "\n";
    return 1;
  }
}

Result<nlohmann::json> benchDdp(const BenchDdpOptions& o) {
  if (auto st = checkOptions(o); !st) return st.errors();
  const int cores = benchCores();
  // 1-rank reference in this process, with every core.
  const Reference single = runReference(o, cores);
  // This process only waits from here on; keep its thread pool small.
  torch::set_num_threads(1);
  auto reports = runRanks(o);
  if (!reports) return reports.errors();
  return reportJson(o, cores, single, summarize(o, reports.value()));
}

}  // namespace stave::bench
