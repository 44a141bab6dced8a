// stave-train bench doctor: does the doctor's advice work? The three trainings and the report
// are core/bench/bench_doctor.h's; this file declares the options and maps failures to exit
// codes. Prints JSON.
#include <iostream>
#include <memory>

#include "app/stave-train/command.h"
#include "core/bench/bench_doctor.h"

namespace {

constexpr const char* kCmd = "bench doctor";
using stave::bench::BenchDoctorOptions;

int run(BenchDoctorOptions& o) {
  o.executable = stave::cli::selfExecutable();
  o.progress = [](const std::string& what) { std::cerr << "bench doctor: " << what << "\n"; };
  auto j = stave::bench::benchDoctor(o);
  if (!j) {
    const auto& e = j.errors().front();
    if (e.key == stave::bench::kDoctorFolderKey) return stave::cli::usageError(kCmd, e.message);
    if (e.key == stave::bench::kDoctorNotDataBoundKey) {
      std::cerr << "stave-train " << kCmd << ": " << e.message << "\n";
      return stave::cli::kProblems;
    }
    return stave::cli::reportErrors(kCmd, j.errors());
  }
  std::cout << j->dump(2) << "\n";
  return stave::cli::kOk;
}

/// imgsz, batch, epochs and threads go into the runs' config: checked by its schema rows.
stave::cli::RunFunction setup(CLI::App& app) {
  using namespace stave::cli;
  auto o = std::make_shared<BenchDoctorOptions>();
  o->batch = schemaDefault<int>("batch");
  o->threads = schemaDefault<int>("threads");
  app.add_option("--images", o->images, "training images of the demo dataset made")
      ->type_name("N")
      ->check(atLeast(32))
      ->capture_default_str();
  keyOption(app, "--imgsz", o->imgsz, "imgsz", "training image size", "N");
  keyOption(app, "--batch", o->batch, "batch", "images per batch", "N");
  keyOption(app, "--epochs", o->epochs, "epochs", "epochs of each run (the first fills a cache)",
            "N")
      ->check(atLeast(2));
  app.add_option("--slow-read-ms", o->slowMs, "added to every image read of the slow storage")
      ->type_name("MS")
      ->check(atLeast(1))
      ->capture_default_str();
  app.add_option("--data", o->data, "train on this dataset instead of a demo one")
      ->type_name("D.yaml");
  keyOption(app, "--threads", o->threads, "threads", "intra-op threads (0 = all cores)", "N");
  app.add_option("--out", o->out, "keep the runs and their logs in DIR")->type_name("DIR");
  app.add_flag("--keep", o->keep, "keep the temporary folder of the runs");
  return [o] { return run(*o); };
}

}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "bench doctor",
    "does the doctor's advice work: planted data-bound run vs advised run vs fast storage (JSON)",
    "stave-train bench doctor [--images N] [--imgsz N] [--batch N] [--epochs N]\n"
    "                         [--slow-read-ms MS] [--data D.yaml] [--threads N] [--out DIR] "
    "[--keep]",
    "Trains three times: with STAVE_FAULT_SLOW_READ_MS (slow storage) and workers=0 cache=none,\n"
    "then the same with the doctor's advice for that run applied, then on fast storage; prints\n"
    "the fraction of the lost images/s the advice recovers (target >= 0.8).",
    setup});
