// stave-train bench ddp: data-parallel speed (N Gloo ranks) against 1 rank, in one run.
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <iostream>

#include "app/stave-train/command.h"
#include "app/stave-train/bench_ddp.h"

namespace {

using stave::cli::parseInt;
using stave::cli::selfExecutable;

int run(const std::vector<std::string>& args) {
  const char* cmd = "bench ddp";
  stave::cli::Args a(
      args, {"nproc", "scale", "imgsz", "batch", "steps", "warmup", "bucket-mb", "threads"},
      {"worker"});
  if (!a.ok()) return stave::cli::usageError(cmd, a.error());
  if (!a.positional().empty())
    return stave::cli::usageError(cmd, "unexpected argument '" + a.positional()[0] + "'");
  stave::cli::BenchDdpOptions o;
  o.scale = a.value("scale", "n");
  struct IntFlag {
    const char* name;
    int* target;
  } ints[] = {{"nproc", &o.nproc}, {"imgsz", &o.imgsz},   {"batch", &o.batch},
              {"steps", &o.steps}, {"warmup", &o.warmup}, {"threads", &o.threads}};
  for (const auto& f : ints) {
    if (a.has(f.name) && !parseInt(a.value(f.name), *f.target)) {
      return stave::cli::usageError(
          cmd, std::string("--") + f.name + " takes an integer, got '" + a.value(f.name) + "'");
    }
  }
  if (a.has("bucket-mb")) {
    char* end = nullptr;
    const std::string v = a.value("bucket-mb");
    o.bucketMb = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0')
      return stave::cli::usageError(cmd, "--bucket-mb takes a number, got '" + v + "'");
  }
  if (o.threads < 0) return stave::cli::usageError(cmd, "--threads must be >= 0");
  if (a.has("worker")) return stave::cli::benchDdpWorker(o);
  o.workerCommand = {selfExecutable(), "bench", "ddp", "--worker"};
  auto j = stave::cli::benchDdp(o);
  if (!j) {
    std::cerr << "stave-train bench ddp: " << j.errorText() << "\n";
    // Bad options are usage errors; a rank that failed is a failed run.
    return j.errors().front().key == "run" ? stave::cli::kProblems : stave::cli::kUsage;
  }
  std::cout << j->dump(2) << "\n";
  return stave::cli::kOk;
}

}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "bench ddp", "data-parallel training speed: N Gloo ranks vs 1 rank in the same run (JSON)",
    "stave-train bench ddp [--nproc 2] [--scale n] [--imgsz 320] [--batch 8] [--steps 20] "
    "[--warmup 3]\n"
    "                      [--bucket-mb 25] [--threads T]\n"
    "  Trains a YOLOv8 model (80 classes) on a synthetic batch held in memory (random uint8\n"
    "  pixels, 4 random boxes per image, fixed seeds), first as 1 rank in this process with all\n"
    "  cores, then as --nproc worker processes started through the launcher (Gloo on CPU, free\n"
    "  port) with gradients averaged in --bucket-mb buckets during backward. --batch is per rank.\n"
    "  Prints one JSON object: per-step compute (forward+backward), all-reduce total and wait,\n"
    "  overlap ratio (1 - wait/total), optimiser and step time, samples/s of both runs and the\n"
    "  scaling efficiency = samples/s(N ranks) / (N x samples/s(1 rank)), means over the steps\n"
    "  after --warmup and over ranks. --threads: intra-op threads per rank (default max(1,\n"
    "  cores/nproc)); the 1-rank reference always uses all cores. On one machine the ranks share\n"
    "  its cores, so with perfect intra-op scaling efficiency would be about 1/nproc (see the\n"
    "  JSON's note).\n"
    "  --worker is internal: one rank, started by bench ddp itself.\n"
    "  Exit codes: 0 done, 1 a rank failed (its log lines on stderr), 2 bad options.",
    run});
