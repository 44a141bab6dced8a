// stave-train import-ultralytics: turn an Ultralytics args.yaml into a Stave config.
#include <iostream>

#include "app/stave-train/command.h"
#include "core/base/atomic_file.h"
#include "core/config/export.h"
#include "core/config/project.h"
#include "core/config/output_path.h"

namespace {
const char* kName = "import-ultralytics";

int printErrors(const std::vector<stave::Error>& errors) {
  return stave::cli::reportErrors(kName, errors);
}

int run(const std::vector<std::string>& args) {
  using namespace stave::config;
  stave::cli::Args a(args, {"out", "project", "config"}, {"strict", "force"});
  if (!a.ok()) return stave::cli::usageError(kName, a.error());
  if (a.positional().size() != 1) return stave::cli::usageError(kName, "expected one args.yaml");
  if (a.has("project") != a.has("config"))
    return stave::cli::usageError(kName, "--project and --config go together");
  const std::string path = a.positional()[0];
  if (a.has("out")) {
    if (auto st = stave::checkOutputFile(a.value("out"), {path, a.value("project")},
                                         a.has("force"), "--out");
        !st)
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
  if (a.has("project")) {
    auto project = loadProject(a.value("project"));
    if (!project) return printErrors(project.errors());
    for (const auto& [existing, cfg] : project->configs)
      if (existing == a.value("config") && !a.has("force"))
        return printErrors({stave::Error{project->path, 0, "--config",
                                         "the project already has a config '" + existing +
                                             "'; choose another name, or pass --force to "
                                             "replace it"}});
    project->setConfig(a.value("config"), imported->config);
    if (auto st = saveProject(project.value()); !st) return printErrors(st.errors());
    std::cout << "added config '" << a.value("config") << "' to " << project->path
              << " (the project's dataset is used, not 'data')\n";
  }
  if (a.has("out")) {
    if (auto st = stave::writeFileAtomic(a.value("out"), yaml); !st)
      return printErrors(st.errors());
    std::cout << "wrote " << a.value("out") << "\n";
  } else if (!a.has("project")) {
    std::cout << yaml;
  }
  return a.has("strict") && !dropped.empty() ? stave::cli::kProblems : stave::cli::kOk;
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{
    kName, "convert an Ultralytics args.yaml into a Stave config",
    "stave-train import-ultralytics ARGS.yaml [--out FILE] [--project P.stave --config NAME]\n"
    "                               [--strict] [--force]\n"
    "  Writes the Stave config as YAML to FILE, to stdout, or as config NAME of a project.\n"
    "  Keys Stave does not use (save, plots, ...) are dropped and named in a warning on stderr;\n"
    "  conversions (global batch -> per-rank batch, device -> devices, .pt weights) are warned.\n"
    "  Exit 0 converted (even with dropped keys), 1 with --strict when keys were dropped,\n"
    "  2 bad command line or a value that cannot be converted (nothing is written).",
    run});
