// stave-train show-project: print a project file (text or JSON).
#include <iostream>
#include <memory>

#include "app/stave-train/command.h"
#include "core/config/project.h"
#include "core/data/dataset.h"

namespace {
const char* kName = "show-project";

/// The train split's size and the class count, which optimizer=auto depends on; unknown when
/// the dataset cannot be read (show-project still prints the project, with its problems).
stave::config::DatasetSize datasetSize(const std::string& dataYaml, double fraction) {
  stave::config::DatasetSize size;
  auto spec = stave::data::loadDataYaml(dataYaml);
  if (!spec) return size;
  auto index = stave::data::scanSplit(spec.value(), "train");
  if (!index) return size;
  const auto n = static_cast<int64_t>(index->images.size());
  size.trainImages = fraction >= 1.0 ? n : std::max<int64_t>(1, static_cast<int64_t>(fraction * n));
  size.nc = spec->nc();
  return size;
}

/// "SGD lr0 0.01" / "AdamW lr0 0.000833 (optimizer=auto)" / "optimizer=auto ...".
std::string optimizerText(const stave::config::Derived& d) {
  if (d.optimizer == "auto")
    return "optimizer=auto (SGD or AdamW by the run's length; dataset not readable)";
  return d.optimizer + " lr0 " + stave::config::formatFloat(d.lr0) +
         (d.autoChosen
              ? " (chosen by optimizer=auto for " + std::to_string(d.iterations) + " iterations)"
              : "");
}

int run(const std::string& file, bool json) {
  using namespace stave::config;
  auto p = loadProject(file);
  if (!p) {
    for (const auto& e : p.errors())
      std::cerr << "stave-train " << kName << ": error: " << e.toString() << "\n";
    return stave::cli::kUsage;
  }
  const auto problems = projectProblems(p.value());
  if (json) {
    nlohmann::ordered_json j;
    j["file"] = p->path;
    j["name"] = p->name;
    j["dataset"] = p->dataset;
    j["dataset_path"] = p->datasetPath();
    j["active_config"] = p->activeConfig;
    nlohmann::ordered_json configs = nlohmann::ordered_json::object();
    for (const auto& [name, cfg] : p->configs) {
      auto values = toJsonObject(cfg, true);
      values.erase("data");
      const Derived d = derive(cfg, static_cast<int>(cfg.getInt("nproc") * cfg.getInt("nnodes")),
                               datasetSize(p->datasetPath(), cfg.getFloat("fraction")));
      configs[name] = {{"changed", values},
                       {"derived",
                        {{"global_batch", d.globalBatch},
                         {"accumulate", d.accumulate},
                         {"optimizer", d.optimizer},
                         {"optimizer_auto", d.autoChosen},
                         {"lr0", d.lr0},
                         {"momentum", d.momentum},
                         {"weight_decay", d.weightDecay},
                         {"iterations", d.iterations}}}};
    }
    j["configs"] = configs;
    j["problems"] = nlohmann::ordered_json::array();
    for (const auto& e : problems) j["problems"].push_back(e.toString());
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::cout << "project: " << p->name << "\n"
              << "file:    " << p->path << "\n"
              << "dataset: " << p->dataset << " (" << p->datasetPath() << ")\n"
              << "configs:\n";
    for (const auto& [name, cfg] : p->configs) {
      std::cout << (name == p->activeConfig ? "  * " : "    ") << name;
      std::string changed;
      for (const auto& key : cfg.changedKeys())
        if (key != "data") changed += " " + key + "=" + formatValue(cfg.get(key));
      std::cout << (changed.empty() ? "  (defaults)" : " " + changed) << "\n";
      const Derived d = derive(cfg, static_cast<int>(cfg.getInt("nproc") * cfg.getInt("nnodes")),
                               datasetSize(p->datasetPath(), cfg.getFloat("fraction")));
      std::cout << "      global batch " << d.globalBatch << ", accumulate " << d.accumulate << ", "
                << optimizerText(d) << ", weight_decay " << formatFloat(d.weightDecay) << "\n";
    }
  }
  for (const auto& e : problems)
    std::cerr << "stave-train " << kName << ": problem: " << e.toString() << "\n";
  return problems.empty() ? stave::cli::kOk : stave::cli::kProblems;
}

stave::cli::RunFunction setup(CLI::App& app) {
  struct Options {
    std::string file;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  app.add_option("FILE.stave", o->file, "the project file")->type_name("")->required();
  app.add_flag("--json", o->json, "print the project as JSON");
  return [o] { return run(o->file, o->json); };
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{
    kName, "print a project: dataset, configs (changed values), derived batch and lr",
    "stave-train show-project FILE.stave [--json]",
    "Exit 0 ok, 1 the project has problems (e.g. its dataset is missing; printed on stderr),\n"
    "2 the file cannot be read (malformed, newer format version).",
    setup});
