#pragma once
// Headless exports of a resolved RunConfig: YAML, JSON, Ultralytics args.yaml, a POSIX shell
// script, a Slurm batch script and a Kubeflow PyTorchJob manifest; and the reverse import of an
// Ultralytics args.yaml. Every user value that reaches a shell is single-quoted (shellQuote) or
// inside a quoted here-document, so names with spaces, quotes, $(...) or backticks run nothing.

#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.h"
#include "core/config/run_config.h"

namespace stave::config {

/// What `stave-train export --format` can write.
enum class ExportFormat { Yaml, Json, Ultralytics, Shell, Slurm, K8s };

/// "yaml", "json", "ultralytics", "shell", "slurm", "k8s".
const char* exportFormatName(ExportFormat format);
/// Parses a format name; the error lists the valid ones.
Result<ExportFormat> parseExportFormat(std::string_view name);

/// Parameters of the cluster exports (they are not training parameters).
struct ExportOptions {
  std::string jobName = "stave";  ///< job name; reduced to safe characters for Slurm and k8s
  std::string description;        ///< one comment line at the top (newlines are replaced)
  int nodes = 1;                  ///< slurm, k8s: number of machines
  /// slurm, k8s: GPUs (one rank each) per machine; 0 = none (CPU ranks, the config's nproc);
  /// -1 = the config's nproc, or none when the config's devices are "cpu".
  int gpusPerNode = -1;
  int cpusPerTask = 0;            ///< slurm: CPUs per rank; 0 = workers + 2
  std::string time = "24:00:00";  ///< slurm: wall-clock limit (isSlurmTimeLimit's forms)
  std::string partition;          ///< slurm: partition; "" = the cluster's default
  std::string account;            ///< slurm: account charged; "" = the user's default
  std::string image;              ///< k8s: container image (required); slurm: pyxis image, optional
  /// shell: the folder that `train` would put runs in (beside the project or config file) when
  /// the config sets no `project`; the script keeps them there, never beside its temporary
  /// copy of the config. "" = leave `project` as it is.
  std::string runsFolder;
};

/// Writes `config` (already resolved: data absolute) in `format`. Errors name bad options.
Result<std::string> exportRunConfig(const RunConfig& config, ExportFormat format,
                                    const ExportOptions& options = {});

/// Whether `limit` is a Slurm time limit: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS
/// (hours of a day below 24, minutes and seconds below 60), UNLIMITED or INFINITE (any case);
/// fields of at most 10 digits and a total of at most 2^31 - 2 minutes, Slurm's own bound.
bool isSlurmTimeLimit(std::string_view limit);

/// The Slurm and Kubernetes options' own checks (nodes, GPUs, CPUs, time, partition, account),
/// as exportRunConfig makes them; errors name the option.
Status checkClusterOptions(const ExportOptions& options);

struct Project;

/// What `stave-train export PROJECT.stave --config NAME` writes: the project's config
/// `configName` ("" = the active one) resolved with `overrides`, exported in `format`. An empty
/// `options.jobName` or `options.description` gets the CLI's ("<project>-<config>", "project
/// '<name>', config '<config>'"). The studio's Export dialog calls this too, so both write the
/// same bytes.
Result<std::string> exportProjectConfig(const Project& project, const std::string& configName,
                                        const std::vector<std::string>& overrides,
                                        ExportFormat format, ExportOptions options);

/// Writes an export atomically; shell and Slurm scripts get the executable bits (0755).
Status writeExportFile(const std::string& path, const std::string& text, ExportFormat format);

/// A file name for a format: train.yaml, train.json, args.yaml, train.sh, train.sbatch,
/// pytorchjob.yaml.
const char* defaultExportFileName(ExportFormat format);

/// `s` as one POSIX shell word: single quotes, with ' written as '\''.
std::string shellQuote(std::string_view s);

/// Ultralytics' args.yaml for `config`: Ultralytics keys only (its names and types; `batch`
/// becomes the global batch, devices -> device, cache none -> false, pretrained -> false as a
/// Stave checkpoint cannot be loaded by Ultralytics), Stave-only keys listed in a leading comment.
std::string toUltralyticsYaml(const RunConfig& config, const std::string& description = {});

/// The result of importing an Ultralytics args.yaml.
struct UltralyticsImport {
  RunConfig config = RunConfig::defaults();  ///< the Stave config
  std::vector<std::string> droppedKeys;      ///< keys Stave does not use, in file order
  std::vector<Error> warnings;               ///< conversions users should know about
};
/// Reads an Ultralytics args.yaml (text). Unknown keys are dropped and listed; bad values of known
/// keys are errors with file and line.
Result<UltralyticsImport> importUltralytics(const std::string& text, const std::string& sourceName);

}  // namespace stave::config
