// stave-train train: one process, or the launcher for several ranks.
#include <unistd.h>

#include <climits>
#include <cstdlib>

#include "app/stave-train/command.h"
#include "core/train/train_command.h"

namespace {

using stave::cli::parseInt;
using stave::cli::selfExecutable;

int run(const std::vector<std::string>& args) {
  stave::cli::Args a(args,
                     {"project", "config", "run-dir", "nproc", "nnodes", "node-rank", "master-addr",
                      "master-port", "stop-after", "stop-after-batches"},
                     {});
  if (!a.ok()) return stave::cli::usageError("train", a.error());
  stave::train::TrainCommand cmd;
  for (const auto& p : a.positional()) {
    if (p.find('=') != std::string::npos || p == "resume") {
      cmd.overrides.push_back(p);
    } else if (cmd.configPath.empty()) {
      cmd.configPath = p;
    } else {
      return stave::cli::usageError(
          "train", "more than one CONFIG given ('" + cmd.configPath + "', '" + p + "')");
    }
  }
  cmd.projectPath = a.value("project");
  cmd.configName = a.value("config");
  cmd.runDir = a.value("run-dir");
  cmd.masterAddr = a.value("master-addr");
  if (!cmd.projectPath.empty() && !cmd.configPath.empty()) {
    return stave::cli::usageError("train", "give either CONFIG or --project, not both");
  }
  struct IntFlag {
    const char* name;
    int* target;
    int min;
  } ints[] = {{"nproc", &cmd.nproc, 1},
              {"nnodes", &cmd.nnodes, 1},
              {"node-rank", &cmd.nodeRank, 0},
              {"master-port", &cmd.masterPort, 0},
              {"stop-after", &cmd.stopAfter.epochs, 1},
              {"stop-after-batches", &cmd.stopAfter.batches, 1}};
  for (const auto& f : ints) {
    if (!a.has(f.name)) continue;
    if (!parseInt(a.value(f.name), *f.target) || *f.target < f.min) {
      return stave::cli::usageError("train", std::string("--") + f.name +
                                                 " needs an integer >= " + std::to_string(f.min) +
                                                 ", got '" + a.value(f.name) + "'");
    }
  }
  cmd.version = STAVE_VERSION;
  cmd.executable = selfExecutable();
  return stave::train::runTrainCommand(cmd);
}

}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "train", "train a detector (one process, or --nproc N ranks)",
    "stave-train train CONFIG.yaml|--project FILE [--config NAME] [key=value ...] [--run-dir DIR]\n"
    "                  [--nproc N --nnodes M --node-rank R --master-addr A --master-port P] "
    "[--stop-after EPOCHS] [--stop-after-batches N]\n"
    "  resume: stave-train train --run-dir runs/<id> resume=true [epochs=N]",
    run});
