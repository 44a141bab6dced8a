// stave-train new-project: create a project file headless (scripts, clusters).
#include <iostream>
#include <memory>

#include "app/stave-train/command.h"
#include "core/config/project.h"

namespace {
const char* kName = "new-project";

struct NewProjectOptions {
  std::vector<std::string> arguments;  ///< the folder and key=value settings
  std::string name, data;
};

int run(const NewProjectOptions& o) {
  // Positional arguments: the folder, then key=value settings for the 'default' config.
  std::vector<std::string> folders, overrides;
  for (const auto& arg : o.arguments)
    (arg.find('=') != std::string::npos ? overrides : folders).push_back(arg);
  if (folders.size() != 1) return stave::cli::usageError(kName, "expected one folder");
  auto report = [](const std::vector<stave::Error>& errors) {
    return stave::cli::reportErrors(kName, errors);
  };
  // Check the settings before anything is written, so a typo leaves no half-made project.
  auto cfg = stave::config::RunConfig::defaults();
  if (auto st = stave::config::applyOverrides(cfg, overrides); !st) return report(st.errors());
  if (auto errors = stave::config::validate(cfg); !errors.empty()) return report(errors);
  auto p = stave::config::createProject(folders[0], o.name, o.data);
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

stave::cli::RunFunction setup(CLI::App& app) {
  auto o = std::make_shared<NewProjectOptions>();
  app.add_option("DIR", o->arguments,
                 "the project's folder, then key=value settings of its 'default' config")
      ->type_name("");
  app.add_option("--name", o->name, "the project's name: DIR/NAME.stave")
      ->type_name("NAME")
      ->required();
  app.add_option("--data", o->data, "the dataset, stored relative to DIR")
      ->type_name("DATA.yaml")
      ->required();
  return [o] { return run(*o); };
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{
    kName, "create a project file (NAME.stave) for a dataset",
    "stave-train new-project DIR --name NAME --data DATA.yaml [key=value ...]",
    "Creates DIR/NAME.stave with one config 'default' (defaults, plus any key=value given);\n"
    "the dataset path is stored relative to DIR. An existing project file is never\n"
    "overwritten; bad settings write nothing. Exit 0 ok, 2 bad input.",
    setup});
