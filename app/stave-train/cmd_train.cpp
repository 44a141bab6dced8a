// stave-train train: one process, or the launcher for several ranks.
#include <memory>

#include "app/stave-train/command.h"
#include "app/stave-train/train_command.h"

namespace {

struct TrainOptions {
  stave::cli::TrainCommand command;
  std::vector<std::string> arguments;  ///< CONFIG and key=value settings, in order
  int metricsPort = 0;                 ///< --metrics-port (0: not given)
  std::string metricsAddr;             ///< --metrics-addr ("" = not given)
};

int run(TrainOptions& o) {
  stave::cli::TrainCommand& cmd = o.command;
  for (const auto& p : o.arguments) {
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
  if (o.metricsPort > 0) cmd.overrides.push_back("metrics_port=" + std::to_string(o.metricsPort));
  if (!o.metricsAddr.empty()) cmd.overrides.push_back("metrics_addr=" + o.metricsAddr);
  if (!cmd.projectPath.empty() && !cmd.configPath.empty()) {
    return stave::cli::usageError("train", "give either CONFIG or --project, not both");
  }
  cmd.version = STAVE_VERSION;
  cmd.executable = stave::cli::selfExecutable();
  return stave::cli::runTrainCommand(cmd);
}

/// The launch options are the run config's keys (nproc, nnodes, node_rank, master_addr,
/// master_port), read and checked by their schema rows; given, they replace the config's value.
/// They have no default of their own here: not given, the config decides (TrainCommand's 0 and
/// -1), and the config starts from the schema.
stave::cli::RunFunction setup(CLI::App& app) {
  using namespace stave::cli;
  auto o = std::make_shared<TrainOptions>();
  TrainCommand& c = o->command;
  app.add_option("SETTINGS", o->arguments,
                 "a run config (CONFIG.yaml, at most one) and key=value settings over it; "
                 "resume alone is resume=true")
      ->type_name("");
  app.add_option("--project", c.projectPath,
                 "train a config of a project (.stave) instead of CONFIG")
      ->type_name("FILE");
  app.add_option("--config", c.configName, "the project's config (default: its active one)")
      ->type_name("NAME");
  app.add_option("--run-dir", c.runDir,
                 "the run folder (default: runs/<name> beside the config or project); with "
                 "resume=true, the run to resume")
      ->type_name("DIR");
  app.add_option("--nproc", c.nproc, "ranks (processes) on this node")
      ->type_name("N")
      ->transform(schemaValue("nproc"));
  app.add_option("--nnodes", c.nnodes, "nodes (machines)")
      ->type_name("M")
      ->transform(schemaValue("nnodes"));
  app.add_option("--node-rank", c.nodeRank, "this node's index, 0 .. nnodes-1")
      ->type_name("R")
      ->transform(schemaValue("node_rank"));
  app.add_option("--master-addr", c.masterAddr, "address of rank 0's rendezvous store")
      ->type_name("A")
      ->transform(schemaValue("master_addr"));
  app.add_option("--master-port", c.masterPort, "rendezvous port (0 = pick a free one)")
      ->type_name("P")
      ->transform(schemaValue("master_port"));
  app.add_option("--stop-after", c.stopAfter.epochs,
                 "stop resumably after this many epochs of this run")
      ->type_name("EPOCHS")
      ->check(atLeast(1));
  app.add_option("--stop-after-batches", c.stopAfter.batches,
                 "stop resumably after this many batches of this run")
      ->type_name("N")
      ->check(atLeast(1));
  // A port, not the key's 0 = off: the flag is given to serve.
  app.add_option("--metrics-port", o->metricsPort,
                 "serve Prometheus metrics of the run on http://A:P/metrics; a port in use stops "
                 "the run before it starts")
      ->type_name("P")
      ->check(wholeNumber(1, 65535));
  app.add_option("--metrics-addr", o->metricsAddr,
                 "the address the metrics port listens on (default 127.0.0.1; 0.0.0.0 = every "
                 "interface)")
      ->type_name("A");
  return [o] { return run(*o); };
}

}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "train", "train a detector (one process, or --nproc N ranks)",
    "stave-train train [CONFIG.yaml|--project FILE [--config NAME]] [key=value ...] [--run-dir "
    "DIR]\n"
    "                  [--nproc N --nnodes M --node-rank R --master-addr A --master-port P] "
    "[--stop-after EPOCHS] [--stop-after-batches N]\n"
    "                  [--metrics-port P [--metrics-addr A]]",
    "Without CONFIG, Ultralytics' form: stave-train train data=coco.yaml model=yolov8s epochs=50\n"
    "imgsz=640 (the defaults plus the settings given; the run goes to ./runs/train, train2, ...)\n"
    "Resume: stave-train train --run-dir runs/<id> resume=true [epochs=N]",
    setup});
