// stave-train check-dataset: scan a YOLO dataset and report every problem.
#include <iostream>

#include "app/stave-train/command.h"
#include "core/data/dataset_report.h"

namespace {
int run(const std::vector<std::string>& args) {
  stave::cli::Args a(args, {"threads"}, {"verify", "json"});
  if (!a.ok()) return stave::cli::usageError("check-dataset", a.error());
  if (a.positional().size() != 1)
    return stave::cli::usageError("check-dataset", "expected one DATA.yaml");
  int threads = 0;
  try {
    threads = std::stoi(a.value("threads", "0"));
  } catch (const std::exception&) {
    return stave::cli::usageError("check-dataset", "--threads expects an integer");
  }
  const auto check = stave::data::checkDataset(a.positional()[0], a.has("verify"), threads);
  if (a.has("json"))
    std::cout << check.report.dump(2) << "\n";
  else
    std::cout << check.text;
  return check.exitCode;
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "check-dataset",
    "scan a YOLO dataset and report problems (exit 0 clean, 1 problems, 2 unusable)",
    "stave-train check-dataset DATA.yaml [--verify] [--json] [--threads N]", run});
