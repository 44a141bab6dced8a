// stave-train bench ddp: data-parallel speed (N Gloo ranks) against 1 rank, in one run.
#include <iostream>
#include <memory>

#include "app/stave-train/command.h"
#include "core/bench/bench_ddp.h"

namespace {

using stave::bench::BenchDdpOptions;

int run(BenchDdpOptions& o, bool worker) {
  if (worker) return stave::bench::benchDdpWorker(o);
  o.workerCommand = {stave::cli::selfExecutable(), "bench", "ddp", "--worker"};
  auto j = stave::bench::benchDdp(o);
  if (!j) {
    std::cerr << "stave-train bench ddp: " << j.errorText() << "\n";
    // Bad options are usage errors; a rank that failed is a failed run.
    return j.errors().front().key == stave::bench::kDdpRunFailedKey ? stave::cli::kProblems
                                                                    : stave::cli::kUsage;
  }
  std::cout << j->dump(2) << "\n";
  return stave::cli::kOk;
}

/// Sizes of its own (BenchDdpOptions), small so N ranks sharing one machine's cores step in
/// seconds; the gradient bucket is the run config's bucket_mb, checked by its schema row.
stave::cli::RunFunction setup(CLI::App& app) {
  using namespace stave::cli;
  struct Options {
    BenchDdpOptions bench;
    bool worker = false;
  };
  auto o = std::make_shared<Options>();
  BenchDdpOptions& b = o->bench;
  b.bucketMb = schemaDefault<double>("bucket_mb");
  app.add_option("--nproc", b.nproc, "worker processes (ranks) of the distributed run")
      ->type_name("N")
      ->check(wholeNumber(2, 64))
      ->capture_default_str();
  app.add_option("--scale", b.scale, "the model scale")
      ->type_name("n|s|m|l|x")
      ->capture_default_str();
  keyOption(app, "--imgsz", b.imgsz, "imgsz", "image size", "N");
  keyOption(app, "--batch", b.batch, "batch", "images per rank and step", "N");
  app.add_option("--steps", b.steps, "measured steps")
      ->type_name("N")
      ->check(atLeast(1))
      ->capture_default_str();
  app.add_option("--warmup", b.warmup, "unmeasured steps first")
      ->type_name("N")
      ->check(atLeast(0))
      ->capture_default_str();
  keyOption(app, "--bucket-mb", b.bucketMb, "bucket_mb", "gradient bucket size in MiB (bucket_mb)",
            "MB");
  app.add_option("--threads", b.threads,
                 "intra-op threads per rank (default max(1, cores/nproc)); the 1-rank reference "
                 "always uses all cores")
      ->type_name("T")
      ->transform(schemaValue("threads"));
  // Internal: one rank, started by bench ddp itself (hidden from --help).
  app.add_flag("--worker", o->worker, "")->group("");
  return [o] { return run(o->bench, o->worker); };
}

}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "bench ddp", "data-parallel training speed: N Gloo ranks vs 1 rank in the same run (JSON)",
    "stave-train bench ddp [--nproc N] [--scale n] [--imgsz N] [--batch N] [--steps N] "
    "[--warmup N]\n"
    "                      [--bucket-mb MB] [--threads T]",
    "Trains a YOLOv8 model (80 classes) on a synthetic batch held in memory (random uint8\n"
    "pixels, 4 random boxes per image, fixed seeds), first as 1 rank in this process with all\n"
    "cores, then as --nproc worker processes started through the launcher (Gloo on CPU, free\n"
    "port) with gradients averaged in --bucket-mb buckets during backward. --batch is per rank.\n"
    "Prints one JSON object: per-step compute (forward+backward), all-reduce total and wait,\n"
    "overlap ratio (1 - wait/total), optimiser and step time, samples/s of both runs and the\n"
    "scaling efficiency = samples/s(N ranks) / (N x samples/s(1 rank)), means over the steps\n"
    "after --warmup and over ranks. --threads: intra-op threads per rank (default max(1,\n"
    "cores/nproc)); the 1-rank reference always uses all cores. On one machine the ranks share\n"
    "its cores, so with perfect intra-op scaling efficiency would be about 1/nproc (see the\n"
    "JSON's note).\n"
    "Exit codes: 0 done, 1 a rank failed (its log lines on stderr), 2 bad options.",
    setup});
