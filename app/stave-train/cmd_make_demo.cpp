// stave-train make-demo: write the deterministic synthetic demo dataset.
#include <chrono>
#include <climits>
#include <iostream>
#include <memory>

#include "app/stave-train/command.h"
#include "core/config/output_path.h"
#include "core/data/demo.h"

namespace {
struct MakeDemoOptions {
  stave::data::DemoOptions demo;
  bool force = false;
};

int run(const MakeDemoOptions& options) {
  const stave::data::DemoOptions& o = options.demo;
  // A new demo mixed into an existing (perhaps edited) dataset would be neither.
  if (auto st = stave::checkOutputFolder(o.out, {}, options.force, "--out"); !st)
    return stave::cli::reportErrors("make-demo", st.errors());
  const auto t0 = std::chrono::steady_clock::now();
  const auto st = stave::data::makeDemo(o);
  if (!st) return stave::cli::usageError("make-demo", st.errorText());
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "wrote " << o.train << " train + " << o.val << " val images (" << o.imgsz
            << " px) to " << o.out << "/data.yaml in " << s << " s\n";
  return stave::cli::kOk;
}

/// The demo's own sizes (DemoOptions): imgsz is the images' long side, small so the set is
/// quick to make and to train on, not the training size of the run config's imgsz.
stave::cli::RunFunction setup(CLI::App& app) {
  using stave::cli::wholeNumber;
  auto o = std::make_shared<MakeDemoOptions>();
  stave::data::DemoOptions& d = o->demo;
  app.add_option("--out", d.out, "the dataset's folder: empty or absent (--force writes into it)")
      ->type_name("DIR")
      ->required();
  app.add_option("--train", d.train, "training images")
      ->type_name("N")
      ->check(wholeNumber(1, 1000000))
      ->capture_default_str();
  app.add_option("--val", d.val, "validation images")
      ->type_name("N")
      ->check(wholeNumber(1, 1000000))
      ->capture_default_str();
  app.add_option("--imgsz", d.imgsz, "long side of every image in pixels")
      ->type_name("N")
      ->check(wholeNumber(32, 8192))
      ->capture_default_str();
  app.add_option("--seed", d.seed, "same seed, same bytes")
      ->type_name("S")
      ->check(wholeNumber(0, LLONG_MAX))
      ->capture_default_str();
  app.add_option("--quality", d.quality, "JPEG quality")
      ->type_name("Q")
      ->check(wholeNumber(1, 100))
      ->capture_default_str();
  app.add_option("--threads", d.threads, "threads (0 = all cores); the output is the same")
      ->type_name("N")
      ->check(stave::cli::atLeast(0))
      ->capture_default_str();
  app.add_flag("--force", o->force, "write into an --out folder that is not empty");
  return [o] { return run(*o); };
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{"make-demo",
                                  "write the synthetic demo dataset (shapes, 5 classes)",
                                  "stave-train make-demo --out DIR [--train N] [--val N] "
                                  "[--imgsz N] [--seed S] [--quality Q] [--threads N] [--force]",
                                  "", setup});
