// stave-train bench train: end-to-end training throughput against compute alone.
#include <iostream>
#include <memory>

#include "app/stave-train/command.h"
#include "core/bench/bench_train.h"

namespace {
using stave::bench::BenchTrainOptions;

int run(const BenchTrainOptions& o) {
  auto j = stave::bench::benchTrain(o);
  if (!j) return stave::cli::usageError("bench train", j.errorText());
  std::cout << j->dump(2) << "\n";
  return stave::cli::kOk;
}

/// batch, workers, threads and precision are the run config's keys: checked by their schema
/// rows and starting from their defaults. imgsz keeps the bench's own 320 (BenchTrainOptions):
/// a step on a CPU takes a second, not several.
stave::cli::RunFunction setup(CLI::App& app) {
  using namespace stave::cli;
  auto o = std::make_shared<BenchTrainOptions>();
  o->batch = schemaDefault<int>("batch");
  o->workers = schemaDefault<int>("workers");
  o->threads = schemaDefault<int>("threads");
  o->precision = schemaDefaultText("precision");
  app.add_option("--model,--scale", o->scale,
                 "the network: yolov8n..yolov8x, yolo11n..yolo11x (a lone n|s|m|l|x: yolov8)")
      ->type_name("NAME")
      ->capture_default_str();
  keyOption(app, "--imgsz", o->imgsz, "imgsz", "training image size", "N");
  keyOption(app, "--batch", o->batch, "batch", "images per batch", "N");
  app.add_option("--steps", o->steps, "measured steps per mode")
      ->type_name("N")
      ->check(atLeast(1))
      ->capture_default_str();
  app.add_option("--warmup", o->warmup, "unmeasured steps first")
      ->type_name("N")
      ->check(atLeast(0))
      ->capture_default_str();
  keyOption(app, "--workers", o->workers, "workers", "loader threads", "N");
  keyOption(app, "--threads", o->threads, "threads", "intra-op threads (0 = all cores)", "N");
  app.add_option("--data", o->data, "the dataset (default: a demo one in a temporary folder)")
      ->type_name("D.yaml");
  app.add_option("--device", o->device, "cpu or a CUDA device index (default: CUDA 0 if any)")
      ->type_name("cpu|N");
  keyOption(app, "--precision", o->precision, "precision",
            "as the run config's key (auto: bf16 where supported on CUDA, fp32 on the CPU)",
            "auto|fp32|bf16|fp16");
  app.add_flag("--channels-last", o->channelsLast, "channels_last model and input");
  app.add_option("--profile", o->profile,
                 "write a Chrome trace of LibTorch's profiler over the compute-only steps "
                 "(chrome://tracing, Perfetto)")
      ->type_name("TRACE.json");
  return [o] { return run(*o); };
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{"bench train",
                                  "training samples/s end to end vs compute only (JSON)",
                                  "stave-train bench train [--model NAME] [--imgsz N] [--batch N] "
                                  "[--steps N] [--warmup N] [--workers N] [--threads N]\n"
                                  "                        [--data D.yaml] [--device cpu|0] "
                                  "[--precision P] [--channels-last] [--profile TRACE.json]",
                                  "", setup});
