// stave-train check-dataset: scan a YOLO dataset and report every problem.
#include <iostream>
#include <memory>

#include "app/stave-train/command.h"
#include "core/data/dataset_report.h"

namespace {
struct CheckDatasetOptions {
  std::string data;
  bool verify = false;
  bool json = false;
  int threads = 0;
};

int run(const CheckDatasetOptions& o) {
  const auto check = stave::data::checkDataset(o.data, o.verify, o.threads);
  if (o.json)
    std::cout << check.report.dump(2) << "\n";
  else
    std::cout << check.text;
  return check.exitCode;
}

stave::cli::RunFunction setup(CLI::App& app) {
  auto o = std::make_shared<CheckDatasetOptions>();
  app.add_option("DATA.yaml", o->data, "the dataset")->type_name("")->required();
  app.add_flag("--verify", o->verify, "decode every image too (slower)");
  app.add_flag("--json", o->json, "print the report as JSON");
  app.add_option("--threads", o->threads, "scan threads (0 = all cores)")
      ->type_name("N")
      ->check(stave::cli::atLeast(0))
      ->capture_default_str();
  return [o] { return run(*o); };
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "check-dataset",
    "scan a YOLO dataset and report problems (exit 0 clean, 1 problems, 2 unusable)",
    "stave-train check-dataset DATA.yaml [--verify] [--json] [--threads N]", "", setup});
