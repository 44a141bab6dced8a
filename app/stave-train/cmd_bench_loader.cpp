// stave-train bench loader: loader throughput against the plain decode rate, as JSON.
#include <iostream>

#include "app/stave-train/command.h"
#include "app/stave-train/bench_loader.h"

namespace {
int run(const std::vector<std::string>& args) {
  stave::cli::Args a(
      args, {"data", "split", "imgsz", "batch", "workers", "batches", "warmup", "seed"}, {});
  if (!a.ok()) return stave::cli::usageError("bench loader", a.error());
  if (!a.has("data")) return stave::cli::usageError("bench loader", "--data DATA.yaml is required");
  stave::cli::LoaderBenchOptions o;
  o.data = a.value("data");
  o.split = a.value("split", "train");
  try {
    o.imgsz = std::stoi(a.value("imgsz", "640"));
    o.batch = std::stoi(a.value("batch", "16"));
    o.workers = std::stoi(a.value("workers", "2"));
    o.batches = std::stoi(a.value("batches", "20"));
    o.warmup = a.has("warmup") ? std::stoi(a.value("warmup")) : -1;
    o.seed = std::stoull(a.value("seed", "0"));
  } catch (const std::exception&) {
    return stave::cli::usageError(
        "bench loader",
        "--imgsz, --batch, --workers, --batches, --warmup and --seed take integers");
  }
  if (o.batches < 1 || o.workers < 1)
    return stave::cli::usageError("bench loader", "--batches and --workers must be >= 1");
  if (a.has("warmup") && o.warmup < 0)
    return stave::cli::usageError("bench loader", "--warmup must be >= 0");
  const auto r = stave::cli::benchLoader(o);
  if (!r) {
    std::cerr << "stave-train bench loader: " << r.errorText() << "\n";
    return stave::cli::kUsage;
  }
  std::cout << r->dump(2) << "\n";
  return stave::cli::kOk;
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "bench loader",
    "data loader samples/s (mosaic on/off, cache none/ram) vs plain decode images/s, as JSON",
    "stave-train bench loader --data DATA.yaml [--imgsz 640] [--batch 16] [--workers 2] "
    "[--batches 20] [--warmup N (default: fill the mosaic buffer)] [--split train] [--seed 0]",
    run});
