// stave-train worker: one rank; its identity comes from RANK/WORLD_SIZE/... or SLURM_*.
#include <cstdlib>

#include "app/stave-train/command.h"
#include "app/stave-train/train_command.h"

namespace {
int run(const std::vector<std::string>& args) {
  stave::cli::Args a(args, {"config", "run-dir", "stop-after", "stop-after-batches"}, {});
  if (!a.ok()) return stave::cli::usageError("worker", a.error());
  if (!a.has("config") || !a.has("run-dir"))
    return stave::cli::usageError("worker", "--config and --run-dir are required");
  if (!a.positional().empty())
    return stave::cli::usageError("worker", "unexpected argument '" + a.positional()[0] + "'");
  stave::cli::WorkerCommand cmd;
  cmd.configPath = a.value("config");
  cmd.runDir = a.value("run-dir");
  cmd.stopAfter.epochs = std::atoi(a.value("stop-after", "0").c_str());
  cmd.stopAfter.batches = std::atoi(a.value("stop-after-batches", "0").c_str());
  cmd.version = STAVE_VERSION;
  return stave::cli::runWorkerCommand(cmd);
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "worker", "run one rank of a distributed training (started by the launcher or srun)",
    "stave-train worker --config runs/<id>/config.yaml --run-dir runs/<id> [--stop-after N] "
    "[--stop-after-batches N]",
    run});
