// stave-train train: one process, or the launcher for several ranks.
#include <unistd.h>

#include <climits>
#include <cstdlib>

#include "app/stave-train/command.h"
#include "app/stave-train/train_command.h"

namespace {

using stave::cli::parseInt;
using stave::cli::selfExecutable;

int run(const std::vector<std::string>& args) {
  stave::cli::Args a(args,
                     {"project", "config", "run-dir", "nproc", "nnodes", "node-rank", "master-addr",
                      "master-port", "stop-after", "stop-after-batches", "metrics-port", "metrics-addr"},
                     {});
  if (!a.ok()) return stave::cli::usageError("train", a.error());
  stave::cli::TrainCommand cmd;
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
  // The metrics flags are the run-config keys metrics_port / metrics_addr.
  if (a.has("metrics-port")) {
    int port = 0;
    if (!parseInt(a.value("metrics-port"), port) || port < 1 || port > 65535)
      return stave::cli::usageError("train", "--metrics-port needs a port 1..65535, got '" +
                                                 a.value("metrics-port") + "'");
    cmd.overrides.push_back("metrics_port=" + std::to_string(port));
  }
  if (a.has("metrics-addr")) cmd.overrides.push_back("metrics_addr=" + a.value("metrics-addr"));
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
  return stave::cli::runTrainCommand(cmd);
}

}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "train", "train a detector (one process, or --nproc N ranks)",
    "stave-train train [CONFIG.yaml|--project FILE [--config NAME]] [key=value ...] [--run-dir DIR]\n"
    "                  [--nproc N --nnodes M --node-rank R --master-addr A --master-port P] "
    "[--stop-after EPOCHS] [--stop-after-batches N]\n"
    "                  [--metrics-port P [--metrics-addr A]]\n"
    "  --metrics-port P serves Prometheus metrics of the run on http://A:P/metrics (A = 127.0.0.1\n"
    "  unless --metrics-addr widens it); a port in use stops the run before it starts\n"
    "  without CONFIG, Ultralytics' form: stave-train train data=coco.yaml model=yolov8s epochs=50\n"
    "  imgsz=640 (the defaults plus the settings given; the run goes to ./runs/train, train2, ...)\n"
    "  resume: stave-train train --run-dir runs/<id> resume=true [epochs=N]",
    run});
