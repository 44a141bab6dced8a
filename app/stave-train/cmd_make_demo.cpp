// stave-train make-demo: write the deterministic synthetic demo dataset.
#include <chrono>
#include <iostream>

#include "app/stave-train/command.h"
#include "core/config/output_path.h"
#include "core/data/demo.h"

namespace {
int run(const std::vector<std::string>& args) {
  stave::cli::Args a(args, {"out", "train", "val", "imgsz", "seed", "quality", "threads"},
                     {"force"});
  if (!a.ok()) return stave::cli::usageError("make-demo", a.error());
  if (!a.has("out")) return stave::cli::usageError("make-demo", "--out DIR is required");
  stave::data::DemoOptions o;
  o.out = a.value("out");
  // A new demo mixed into an existing (perhaps edited) dataset would be neither.
  if (auto st = stave::checkOutputFolder(o.out, {}, a.has("force"), "--out"); !st)
    return stave::cli::reportErrors("make-demo", st.errors());
  try {
    o.train = std::stoi(a.value("train", "256"));
    o.val = std::stoi(a.value("val", "64"));
    o.imgsz = std::stoi(a.value("imgsz", "256"));
    o.seed = std::stoull(a.value("seed", "0"));
    o.quality = std::stoi(a.value("quality", "90"));
    o.threads = std::stoi(a.value("threads", "0"));
  } catch (const std::exception&) {
    return stave::cli::usageError(
        "make-demo", "--train, --val, --imgsz, --seed, --quality and --threads take integers");
  }
  const auto t0 = std::chrono::steady_clock::now();
  const auto st = stave::data::makeDemo(o);
  if (!st) return stave::cli::usageError("make-demo", st.errorText());
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "wrote " << o.train << " train + " << o.val << " val images (" << o.imgsz
            << " px) to " << o.out << "/data.yaml in " << s << " s\n";
  return stave::cli::kOk;
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{"make-demo",
                                  "write the synthetic demo dataset (shapes, 5 classes)",
                                  "stave-train make-demo --out DIR [--train 256] [--val 64] "
                                  "[--imgsz 256] [--seed 0] [--quality 90] [--force]\n"
                                  "  --out must be empty or absent (--force writes into it)",
                                  run});
