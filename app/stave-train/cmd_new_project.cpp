// stave-train new-project: create a project file headless (scripts, clusters).
#include <iostream>

#include "app/stave-train/command.h"
#include "core/config/project.h"

namespace {
const char* kName = "new-project";

int run(const std::vector<std::string>& args) {
  stave::cli::Args a(args, {"name", "data"}, {});
  if (!a.ok()) return stave::cli::usageError(kName, a.error());
  // Positional arguments: the folder, then key=value settings for the 'default' config.
  std::vector<std::string> folders, overrides;
  for (const auto& arg : a.positional())
    (arg.find('=') != std::string::npos ? overrides : folders).push_back(arg);
  if (folders.size() != 1) return stave::cli::usageError(kName, "expected one folder");
  if (!a.has("name") || !a.has("data"))
    return stave::cli::usageError(kName, "--name and --data are required");
  auto report = [](const std::vector<stave::Error>& errors) {
    return stave::cli::reportErrors(kName, errors);
  };
  // Check the settings before anything is written, so a typo leaves no half-made project.
  auto cfg = stave::config::RunConfig::defaults();
  if (auto st = stave::config::applyOverrides(cfg, overrides); !st) return report(st.errors());
  if (auto errors = stave::config::validate(cfg); !errors.empty()) return report(errors);
  auto p = stave::config::createProject(folders[0], a.value("name"), a.value("data"));
  if (!p) return report(p.errors());
  if (!overrides.empty()) {
    p->setConfig(p->activeConfig, cfg);
    if (auto st = stave::config::saveProject(p.value()); !st) return report(st.errors());
  }
  std::cout << "created " << p->path << "\n"
            << "dataset: " << p->dataset << " (" << p->datasetPath() << ")\n"
            << "config: " << p->activeConfig
            << (overrides.empty()
                    ? std::string(" (all defaults)")
                    : " (" + std::to_string(cfg.changedKeys().size()) + " values set)")
            << "\n";
  return stave::cli::kOk;
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{
    kName, "create a project file (NAME.stave) for a dataset",
    "stave-train new-project DIR --name NAME --data DATA.yaml [key=value ...]\n"
    "  Creates DIR/NAME.stave with one config 'default' (defaults, plus any key=value given);\n"
    "  the dataset path is stored relative to DIR. An existing project file is never\n"
    "  overwritten; bad settings write nothing. Exit 0 ok, 2 bad input.",
    run});
