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

int printErrors(const std::vector<stave::Error>& errors) {
  return stave::cli::reportErrors(kName, errors);
}

struct ExportCommand {
  std::vector<std::string> arguments;  ///< the input and key=value settings
  std::string configName, format, out;
  stave::config::ExportOptions options;
  bool force = false;
};

int run(ExportCommand& c) {
  using namespace stave::config;
  std::vector<std::string> files, overrides;
  for (const auto& p : c.arguments)
    (p.find('=') != std::string::npos ? overrides : files).push_back(p);
  if (files.size() != 1)
    return stave::cli::usageError(kName, "expected one project (.stave) or config file");
  auto format = parseExportFormat(c.format);
  if (!format) return stave::cli::usageError(kName, format.errors().front().message);

  ExportOptions& opt = c.options;
  const std::string& input = files[0];
  if (!c.out.empty()) {
    if (auto st = stave::checkOutputFile(c.out, {input}, c.force, "--out"); !st)
      return printErrors(st.errors());
  }
  const std::string& configName = c.configName;
  stave::Result<std::string> text = stave::Error{};
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
    opt.runsFolder = (fs::absolute(input).parent_path() / "runs").lexically_normal().string();
    opt.description = "config file '" + input + "'";
    text = exportRunConfig(config.value(), format.value(), opt);
  }
  if (!text) return printErrors(text.errors());
  if (c.out.empty()) {
    std::cout << text.value();
    return stave::cli::kOk;
  }
  const std::string& out = c.out;
  if (auto st = writeExportFile(out, text.value(), format.value()); !st)
    return printErrors(st.errors());
  std::cout << "wrote " << out << " (" << exportFormatName(format.value()) << ")\n";
  return stave::cli::kOk;
}
stave::cli::RunFunction setup(CLI::App& app) {
  using stave::cli::wholeNumber;
  auto c = std::make_shared<ExportCommand>();
  stave::config::ExportOptions& opt = c->options;
  app.add_option("INPUT", c->arguments,
                 "a project (.stave) or a config file, then key=value settings over its config")
      ->type_name("");
  app.add_option("--format", c->format, "yaml, json, ultralytics, shell, slurm or k8s (below)")
      ->type_name("F")
      ->required();
  app.add_option("--config", c->configName, "the project's config (default: its active one)")
      ->type_name("NAME");
  app.add_option("--out", c->out,
                 "write to FILE instead of stdout; never the input, nor an existing file without "
                 "--force")
      ->type_name("FILE");
  app.add_flag("--force", c->force, "let --out replace an existing file");
  app.add_option("--nodes", opt.nodes, "slurm, k8s: machines")
      ->type_name("N")
      ->check(wholeNumber(0, 999999999))
      ->capture_default_str();
  app.add_option("--gpus-per-node", opt.gpusPerNode,
                 "slurm, k8s: GPUs (one rank each) per machine (default: nproc, or 0 for "
                 "devices=cpu; 0 = CPU ranks, no GPU request)")
      ->type_name("G")
      ->check(wholeNumber(0, 999999999));
  app.add_option("--cpus-per-task", opt.cpusPerTask, "slurm: CPUs per rank (default: workers + 2)")
      ->type_name("C")
      ->check(wholeNumber(0, 999999999));
  app.add_option("--time", opt.time,
                 "slurm: wall-clock limit in one of Slurm's forms: minutes, MM:SS, HH:MM:SS, D-HH, "
                 "D-HH:MM, D-HH:MM:SS or UNLIMITED")
      ->type_name("T")
      ->capture_default_str();
  app.add_option("--partition", opt.partition, "slurm: partition (default: the cluster's)")
      ->type_name("P");
  app.add_option("--account", opt.account, "slurm: account charged (default: the user's)")
      ->type_name("A");
  app.add_option("--image", opt.image, "k8s: container image (required); slurm: pyxis image")
      ->type_name("IMAGE");
  // The default depends on the input: the project's name, or the config file's.
  opt.jobName.clear();
  app.add_option("--job-name", opt.jobName, "the job's name (default: the project's or file's)")
      ->type_name("NAME");
  return [c] { return run(*c); };
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{
    kName, "export a config: yaml, json, ultralytics, shell, slurm, k8s",
    "stave-train export PROJECT.stave|CONFIG.yaml [--config NAME] --format F [--out FILE]\n"
    "                   [key=value ...] [--nodes N] [--gpus-per-node G] [--cpus-per-task C]\n"
    "                   [--time T] [--partition P] [--account A] [--image IMAGE]\n"
    "                   [--job-name NAME] [--force]",
    "Formats (F):\n"
    "  yaml, json     the full resolved config (dataset path absolute); 'stave-train train'\n"
    "                 reads it\n"
    "  ultralytics    args.yaml for 'yolo train cfg=FILE' (Ultralytics keys only; batch\n"
    "                 becomes the global batch; Stave-only keys listed in a comment)\n"
    "  shell          POSIX sh script running 'stave-train train' on one node (config\n"
    "                 embedded)\n"
    "  slurm          sbatch script: --nodes, --gpus-per-node, --cpus-per-task, --time,\n"
    "                 --partition, --account, --image (pyxis, optional); srun starts one\n"
    "                 'stave-train worker' per GPU\n"
    "  k8s            Kubeflow PyTorchJob + ConfigMap; --image is required, --nodes pods\n"
    "                 with --gpus-per-node GPUs each\n"
    "Exit 0 ok, 2 bad command line or config.",
    setup});
