// stave-train worker: one rank; its identity comes from RANK/WORLD_SIZE/... or SLURM_*.
#include <memory>

#include "app/stave-train/command.h"
#include "app/stave-train/train_command.h"

namespace {
stave::cli::RunFunction setup(CLI::App& app) {
  using namespace stave::cli;
  auto cmd = std::make_shared<WorkerCommand>();
  app.add_option("--config", cmd->configPath, "the resolved run config (runs/<id>/config.yaml)")
      ->type_name("FILE")
      ->required();
  app.add_option("--run-dir", cmd->runDir, "the run folder")->type_name("DIR")->required();
  app.add_flag("--resume", cmd->resume,
               "continue the run in --run-dir from its weights/last.pt (resume=true); rank 0 "
               "checks the request against the checkpoint as train resume=true does");
  app.add_option("--stop-after", cmd->stopAfter.epochs,
                 "stop resumably after this many epochs (0 = no)")
      ->type_name("N")
      ->check(atLeast(0));
  app.add_option("--stop-after-batches", cmd->stopAfter.batches,
                 "stop resumably after this many batches (0 = no)")
      ->type_name("N")
      ->check(atLeast(0));
  return [cmd] {
    cmd->version = STAVE_VERSION;
    return runWorkerCommand(*cmd);
  };
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "worker", "run one rank of a distributed training (started by the launcher or srun)",
    "stave-train worker --config runs/<id>/config.yaml --run-dir runs/<id> [--resume] "
    "[--stop-after N] [--stop-after-batches N]",
    "", setup});
