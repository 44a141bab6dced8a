// stave-train bench train: end-to-end training throughput against compute alone.
#include <iostream>

#include "app/stave-train/command.h"
#include "app/stave-train/bench_train.h"

namespace {
int run(const std::vector<std::string>& args) {
  stave::cli::Args a(
      args, {"scale", "imgsz", "batch", "steps", "warmup", "workers", "threads", "data", "device",
             "precision", "profile"},
      {"channels-last"});
  if (!a.ok()) return stave::cli::usageError("bench train", a.error());
  stave::cli::BenchTrainOptions o;
  o.scale = a.value("scale", "n");
  o.data = a.value("data");
  o.device = a.value("device");
  o.precision = a.value("precision", "auto");
  o.channelsLast = a.has("channels-last");
  o.profile = a.value("profile");
  try {
    o.imgsz = std::stoi(a.value("imgsz", "320"));
    o.batch = std::stoi(a.value("batch", "16"));
    o.steps = std::stoi(a.value("steps", "10"));
    o.warmup = std::stoi(a.value("warmup", "2"));
    o.workers = std::stoi(a.value("workers", "0"));
    o.threads = std::stoi(a.value("threads", "0"));
  } catch (const std::exception&) {
    return stave::cli::usageError(
        "bench train", "--imgsz, --batch, --steps, --warmup, --workers, --threads take integers");
  }
  if (o.imgsz < 32 || o.imgsz % 32 != 0 || o.batch < 1 || o.steps < 1 || o.warmup < 0) {
    return stave::cli::usageError(
        "bench train", "need imgsz a multiple of 32, batch >= 1, steps >= 1, warmup >= 0");
  }
  auto j = stave::cli::benchTrain(o);
  if (!j) return stave::cli::usageError("bench train", j.errorText());
  std::cout << j->dump(2) << "\n";
  return stave::cli::kOk;
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{"bench train",
                                  "training samples/s end to end vs compute only (JSON)",
                                  "stave-train bench train [--scale n] [--imgsz 320] [--batch 16] "
                                  "[--steps 10] [--workers N] [--data D.yaml] [--device cpu|0] "
                                  "[--precision auto|fp32|bf16|fp16] [--channels-last] "
                                  "[--profile TRACE.json]",
                                  run});
