// stave-train export: write a project's config as YAML, JSON, Ultralytics args, a shell script,
// a Slurm batch script or a Kubeflow PyTorchJob manifest.
#include <filesystem>
#include <iostream>

#include "app/stave-train/command.h"
#include "core/config/export.h"
#include "core/config/output_path.h"
#include "core/config/project.h"

namespace {
const char* kName = "export";

bool parseCount(const std::string& text, int* out) {
  if (text.empty() || text.size() > 9) return false;
  for (char c : text)
    if (c < '0' || c > '9') return false;
  *out = std::stoi(text);
  return true;
}

int printErrors(const std::vector<stave::Error>& errors) {
  return stave::cli::reportErrors(kName, errors);
}

int run(const std::vector<std::string>& args) {
  using namespace stave::config;
  stave::cli::Args a(args,
                     {"config", "format", "out", "nodes", "gpus-per-node", "cpus-per-task", "time",
                      "partition", "image", "job-name"},
                     {"force"});
  if (!a.ok()) return stave::cli::usageError(kName, a.error());
  std::vector<std::string> files, overrides;
  for (const auto& p : a.positional())
    (p.find('=') != std::string::npos ? overrides : files).push_back(p);
  if (files.size() != 1)
    return stave::cli::usageError(kName, "expected one project (.stave) or config file");
  if (!a.has("format")) return stave::cli::usageError(kName, "--format is required");
  auto format = parseExportFormat(a.value("format"));
  if (!format) return stave::cli::usageError(kName, format.errors().front().message);

  ExportOptions opt;
  for (auto [flag, field] : {std::pair<const char*, int*>{"nodes", &opt.nodes},
                             {"gpus-per-node", &opt.gpusPerNode},
                             {"cpus-per-task", &opt.cpusPerTask}}) {
    if (a.has(flag) && !parseCount(a.value(flag), field))
      return stave::cli::usageError(
          kName, std::string("--") + flag + " expects a whole number, got '" + a.value(flag) + "'");
  }
  opt.time = a.value("time", opt.time);
  opt.partition = a.value("partition");
  opt.image = a.value("image");

  const std::string& input = files[0];
  if (a.has("out")) {
    if (auto st = stave::checkOutputFile(a.value("out"), {input}, a.has("force"), "--out"); !st)
      return printErrors(st.errors());
  }
  std::string configName = a.value("config");
  stave::Result<std::string> text = stave::Error{};
  if (a.has("job-name")) opt.jobName = a.value("job-name");
  else opt.jobName.clear();  // the default depends on the input
  if (std::filesystem::path(input).extension() == kProjectExtension) {
    auto project = loadProject(input);
    if (!project) return printErrors(project.errors());
    // The studio's Export dialog writes through the same function.
    text = exportProjectConfig(project.value(), configName, overrides, format.value(), opt);
  } else {
    if (!configName.empty())
      return stave::cli::usageError(kName, "--config applies to project files only");
    auto config = loadRunConfigWithOverrides(input, overrides);
    if (!config) return printErrors(config.errors());
    // Scripts run elsewhere: make a relative dataset path absolute, found beside the config
    // file first and then from here (as 'stave-train train CONFIG' does).
    namespace fs = std::filesystem;
    const std::string data = config->getString("data");
    if (!data.empty() && fs::path(data).is_relative()) {
      const fs::path beside = fs::path(input).parent_path() / data;
      const fs::path chosen = fs::exists(beside) ? beside : fs::path(data);
      config->set("data", fs::absolute(chosen).lexically_normal().string());
    }
    if (opt.jobName.empty()) opt.jobName = std::filesystem::path(input).stem().string();
    // 'stave-train train CONFIG' keeps runs beside the config file: so does the script.
    opt.runsFolder =
        (fs::absolute(input).parent_path() / "runs").lexically_normal().string();
    opt.description = "config file '" + input + "'";
    text = exportRunConfig(config.value(), format.value(), opt);
  }
  if (!text) return printErrors(text.errors());
  if (!a.has("out")) {
    std::cout << text.value();
    return stave::cli::kOk;
  }
  const std::string out = a.value("out");
  if (auto st = writeExportFile(out, text.value(), format.value()); !st)
    return printErrors(st.errors());
  std::cout << "wrote " << out << " (" << exportFormatName(format.value()) << ")\n";
  return stave::cli::kOk;
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{
    kName, "export a config: yaml, json, ultralytics, shell, slurm, k8s",
    "stave-train export PROJECT.stave|CONFIG.yaml [--config NAME] --format F [--out FILE]\n"
    "                   [key=value ...] [--nodes N] [--gpus-per-node G] [--cpus-per-task C]\n"
    "                   [--time T] [--partition P] [--image IMAGE] [--job-name NAME] [--force]\n"
    "  F: yaml, json     the full resolved config (dataset path absolute); 'stave-train train'\n"
    "                    reads it\n"
    "     ultralytics    args.yaml for 'yolo train cfg=FILE' (Ultralytics keys only; batch\n"
    "                    becomes the global batch; Stave-only keys listed in a comment)\n"
    "     shell          POSIX sh script running 'stave-train train' on one node (config\n"
    "                    embedded)\n"
    "     slurm          sbatch script: --nodes, --gpus-per-node (default: nproc, or 0 for\n"
    "                    devices=cpu; 0 = CPU ranks, no GPU request),\n"
    "                    --cpus-per-task (default: workers + 2), --time (24:00:00),\n"
    "                    --partition, --image (pyxis, optional); srun starts one\n"
    "                    'stave-train worker' per GPU\n"
    "     k8s            Kubeflow PyTorchJob + ConfigMap; --image is required, --nodes pods\n"
    "                    with --gpus-per-node GPUs each\n"
    "  --config defaults to the project's active config. Without --out the export goes to\n"
    "  stdout; --out never replaces the input, nor an existing file without --force.\n"
    "  Exit 0 ok, 2 bad command line or config.",
    run});
