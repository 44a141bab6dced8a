// stave-train import-ultralytics: turn an Ultralytics args.yaml into a Stave config.
#include <iostream>
#include <memory>

#include "app/stave-train/command.h"
#include "core/base/atomic_file.h"
#include "core/config/export.h"
#include "core/config/output_path.h"
#include "core/config/project.h"

namespace {
const char* kName = "import-ultralytics";

int printErrors(const std::vector<stave::Error>& errors) {
  return stave::cli::reportErrors(kName, errors);
}

struct ImportOptions {
  std::string path;  ///< the args.yaml
  std::string out, project, config;
  bool strict = false, force = false;
};

int run(const ImportOptions& o) {
  using namespace stave::config;
  const std::string& path = o.path;
  if (!o.out.empty()) {
    if (auto st = stave::checkOutputFile(o.out, {path, o.project}, o.force, "--out"); !st)
      return printErrors(st.errors());
  }
  auto text = stave::readFile(path);
  if (!text) return printErrors(text.errors());
  auto imported = importUltralytics(text.value(), path);
  if (!imported) return printErrors(imported.errors());
  for (const auto& w : imported->warnings)
    std::cerr << "stave-train " << kName << ": warning: " << w.toString() << "\n";
  const auto& dropped = imported->droppedKeys;
  if (!dropped.empty()) {
    std::cerr << "stave-train " << kName << ": warning: " << path << ": ignored " << dropped.size()
              << " key(s) Stave does not use:";
    for (const auto& k : dropped) std::cerr << " " << k;
    std::cerr << "\n";
  }
  const std::string yaml = toYaml(imported->config);
  if (!o.project.empty()) {
    auto project = loadProject(o.project);
    if (!project) return printErrors(project.errors());
    for (const auto& [existing, cfg] : project->configs)
      if (existing == o.config && !o.force)
        return printErrors({stave::Error{project->path, 0, "--config",
                                         "the project already has a config '" + existing +
                                             "'; choose another name, or pass --force to "
                                             "replace it"}});
    project->setConfig(o.config, imported->config);
    if (auto st = saveProject(project.value()); !st) return printErrors(st.errors());
    std::cout << "added config '" << o.config << "' to " << project->path
              << " (the project's dataset is used, not 'data')\n";
  }
  if (!o.out.empty()) {
    if (auto st = stave::writeFileAtomic(o.out, yaml); !st) return printErrors(st.errors());
    std::cout << "wrote " << o.out << "\n";
  } else if (o.project.empty()) {
    std::cout << yaml;
  }
  return o.strict && !dropped.empty() ? stave::cli::kProblems : stave::cli::kOk;
}

stave::cli::RunFunction setup(CLI::App& app) {
  auto o = std::make_shared<ImportOptions>();
  app.add_option("ARGS.yaml", o->path, "Ultralytics' args.yaml (a run's, or a cfg= file)")
      ->type_name("")
      ->required();
  app.add_option("--out", o->out, "write the Stave config as YAML to FILE")->type_name("FILE");
  auto* project =
      app.add_option("--project", o->project, "add the config to this project (with --config)")
          ->type_name("P.stave");
  auto* config = app.add_option("--config", o->config, "the name of the config in --project")
                     ->type_name("NAME");
  project->needs(config);
  config->needs(project);
  app.add_flag("--strict", o->strict, "exit 1 when keys were dropped");
  app.add_flag("--force", o->force,
               "let --out replace an existing file, or --config a config of that name");
  return [o] { return run(*o); };
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{
    kName, "convert an Ultralytics args.yaml into a Stave config",
    "stave-train import-ultralytics ARGS.yaml [--out FILE] [--project P.stave --config NAME]\n"
    "                               [--strict] [--force]",
    "Writes the Stave config as YAML to FILE, to stdout, or as config NAME of a project.\n"
    "Keys Stave does not use (save, plots, ...) are dropped and named in a warning on stderr;\n"
    "conversions (global batch -> per-rank batch, device -> devices, .pt weights) are warned.\n"
    "Exit 0 converted (even with dropped keys), 1 with --strict when keys were dropped,\n"
    "2 bad command line or a value that cannot be converted (nothing is written).",
    setup});
