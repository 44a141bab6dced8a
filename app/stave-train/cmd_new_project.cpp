// stave-train new-project: create a project file headless (scripts, clusters).
#include <iostream>

#include "app/stave-train/command.h"
#include "core/config/project.h"

namespace {
const char* kName = "new-project";

int run(const std::vector<std::string>& args) {
  stave::cli::Args a(args, {"name", "data"}, {});
  if (!a.ok()) return stave::cli::usageError(kName, a.error());
  if (a.positional().size() != 1) return stave::cli::usageError(kName, "expected one folder");
  if (!a.has("name") || !a.has("data"))
    return stave::cli::usageError(kName, "--name and --data are required");
  auto p = stave::config::createProject(a.positional()[0], a.value("name"), a.value("data"));
  if (!p) {
    for (const auto& e : p.errors())
      std::cerr << "stave-train " << kName << ": error: " << e.toString() << "\n";
    return stave::cli::kUsage;
  }
  std::cout << "created " << p->path << "\n"
            << "dataset: " << p->dataset << " (" << p->datasetPath() << ")\n"
            << "config: " << p->activeConfig << " (all defaults)\n";
  return stave::cli::kOk;
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{
    kName, "create a project file (NAME.stave) for a dataset",
    "stave-train new-project DIR --name NAME --data DATA.yaml\n"
    "  Creates DIR/NAME.stave with one config 'default'; the dataset path is stored relative to\n"
    "  DIR. An existing project file is never overwritten. Exit 0 ok, 2 bad input.",
    run});
