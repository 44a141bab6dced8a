// stave-train follow: reads trainer events (JSON lines) from a file or stdin and prints them
// for a person: one line per epoch and validation, thinned step lines, errors with their hints.
#include <fstream>
#include <iostream>

#include "app/stave-train/command.h"
#include "core/telemetry/event_log.h"

namespace {
int run(const std::vector<std::string>& args) {
  stave::cli::Args a(args, {"step-every"}, {});
  if (!a.ok()) return stave::cli::usageError("follow", a.error());
  if (a.positional().size() > 1) return stave::cli::usageError("follow", "at most one EVENTS file");
  double stepEvery = 10.0;
  try {
    stepEvery = std::stod(a.value("step-every", "10"));
  } catch (const std::exception&) {
    return stave::cli::usageError("follow", "--step-every needs a number of seconds");
  }
  std::ifstream file;
  std::istream* in = &std::cin;
  if (!a.positional().empty() && a.positional()[0] != "-") {
    file.open(a.positional()[0]);
    if (!file) return stave::cli::usageError("follow", "cannot open " + a.positional()[0]);
    in = &file;
  }
  stave::telemetry::EventLogFormatter formatter(stepEvery);
  std::string line;
  while (std::getline(*in, line)) {
    if (line.empty()) continue;
    auto event = stave::telemetry::decodeEvent(line);
    if (!event) continue;  // not an event: the trainer's own lines are not ours to judge
    if (auto text = formatter.format(event.value())) std::cout << *text << std::endl;
  }
  const std::string& status = formatter.finalStatus();
  return status == "completed" || status == "stopped" || status == "early_stopped" ? stave::cli::kOk
                                                                                   : stave::cli::kProblems;
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "follow", "print a run's events (events.jsonl or stdin) as readable progress lines",
    "stave-train follow [EVENTS.jsonl|-] [--step-every SECONDS]\n"
    "  exit 0 when the run finished (completed, stopped, early_stopped), 1 otherwise", run});
