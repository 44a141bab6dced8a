// stave-train bench loader: loader throughput against the plain decode rate, as JSON.
#include <iostream>
#include <memory>

#include "app/stave-train/command.h"
#include "core/bench/bench_loader.h"

namespace {
using stave::bench::LoaderBenchOptions;

int run(const LoaderBenchOptions& o) {
  const auto r = stave::bench::benchLoader(o);
  if (!r) {
    std::cerr << "stave-train bench loader: " << r.errorText() << "\n";
    return stave::cli::kUsage;
  }
  std::cout << r->dump(2) << "\n";
  return stave::cli::kOk;
}

/// imgsz, batch, workers and seed are the run config's keys: checked by their schema rows and
/// starting from their defaults, so the benchmark measures the loader a default run gets.
stave::cli::RunFunction setup(CLI::App& app) {
  using namespace stave::cli;
  auto o = std::make_shared<LoaderBenchOptions>();
  o->imgsz = schemaDefault<int>("imgsz");
  o->batch = schemaDefault<int>("batch");
  o->workers = schemaDefault<int>("workers");
  o->seed = schemaDefault<uint64_t>("seed");
  app.add_option("--data", o->data, "the dataset")->type_name("DATA.yaml")->required();
  app.add_option("--split", o->split, "the split read")->type_name("NAME")->capture_default_str();
  keyOption(app, "--imgsz", o->imgsz, "imgsz", "loader image size", "N");
  keyOption(app, "--batch", o->batch, "batch", "images per batch", "N");
  // At least one: the plain decode it is compared with runs on as many threads.
  keyOption(app, "--workers", o->workers, "workers",
            "loader threads, and threads of the plain decode", "N")
      ->check(atLeast(1));
  app.add_option("--batches", o->batches, "batches timed per configuration")
      ->type_name("N")
      ->check(atLeast(1))
      ->capture_default_str();
  app.add_option("--warmup", o->warmup,
                 "batches run before timing (default: enough to fill the mosaic buffer)")
      ->type_name("N")
      ->check(atLeast(0));
  keyOption(app, "--seed", o->seed, "seed", "loader seed", "S");
  return [o] { return run(*o); };
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "bench loader",
    "data loader samples/s (mosaic on/off, cache none/ram) vs plain decode images/s, as JSON",
    "stave-train bench loader --data DATA.yaml [--imgsz N] [--batch N] [--workers N]\n"
    "                         [--batches N] [--warmup N] [--split train] [--seed S]",
    "", setup});
