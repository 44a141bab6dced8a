// stave-train follow: reads trainer events (JSON lines) from a file or stdin and prints them
// for a person: one line per epoch and validation, thinned step lines, errors with their hints.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "app/stave-train/command.h"
#include "core/base/bounded_read.h"
#include "core/telemetry/event_log.h"

namespace {
int run(const std::string& eventsFile, double stepEvery) {
  std::ifstream file;
  std::istream* in = &std::cin;
  std::string source = "standard input";
  if (!eventsFile.empty() && eventsFile != "-") {
    source = eventsFile;
    std::error_code ec;
    if (std::filesystem::is_directory(source, ec)) {
      // A run folder: its event log.
      if (std::filesystem::is_regular_file(std::filesystem::path(source) / "events.jsonl", ec)) {
        source = (std::filesystem::path(source) / "events.jsonl").string();
      } else {
        return stave::cli::usageError("follow", source +
                                                    " is a folder without events.jsonl; give a "
                                                    "run folder or its events.jsonl");
      }
    }
    file.open(source);
    if (!file) return stave::cli::usageError("follow", "cannot open " + source);
    in = &file;
  }
  stave::telemetry::EventLogFormatter formatter(stepEvery);
  std::string line;
  int64_t events = 0, others = 0, skipped = 0;
  // A line that meant to be an event but is not one (bad JSON, a number out of range, longer
  // than any event) is skipped and named; the lines after it are read on.
  auto skip = [&](int64_t lineNo, const std::string& why) {
    if (++skipped <= 5)
      std::cerr << "stave-train follow: " << source << ":" << lineNo << ": skipped: " << why
                << "\n";
  };
  stave::CappedLineReader reader(*in);
  for (stave::CappedLineReader::Got got;
       (got = reader.next(&line)) != stave::CappedLineReader::Got::End;) {
    if (got == stave::CappedLineReader::Got::TooLong) {
      skip(reader.lineNo(), "a line longer than " +
                                std::to_string(stave::kMaxEventLineBytes >> 20) +
                                " MiB (no event is that long)");
      continue;
    }
    if (line.empty()) continue;
    auto event = stave::telemetry::decodeEvent(line);
    if (!event) {
      // Not an event: the trainer's own lines are not ours to judge; a JSON object is.
      ++others;
      if (line.front() == '{') skip(reader.lineNo(), event.errorText());
      continue;
    }
    ++events;
    if (auto text = formatter.format(event.value())) std::cout << *text << std::endl;
  }
  if (skipped > 5)
    std::cerr << "stave-train follow: " << source << ": " << skipped
              << " lines skipped in all\n";
  const std::string& status = formatter.finalStatus();
  // Say why the exit code is 1: nothing readable, or a run that has not finished (well).
  if (events == 0)
    std::cerr << "stave-train follow: " << source << ": no Stave events in it (" << others
              << " other lines); is it a run's events.jsonl?\n";
  else if (status.empty())
    std::cerr << "stave-train follow: " << source << ": " << events
              << " events, no finished event yet (the run is still going, or was killed)\n";
  else if (status != "completed" && status != "stopped" && status != "early_stopped")
    std::cerr << "stave-train follow: the run ended " << status << "\n";
  return status == "completed" || status == "stopped" || status == "early_stopped"
             ? stave::cli::kOk
             : stave::cli::kProblems;
}

stave::cli::RunFunction setup(CLI::App& app) {
  struct Options {
    std::string events;
    double stepEvery = 10.0;
  };
  auto o = std::make_shared<Options>();
  app.add_option("EVENTS", o->events,
                 "a run's events.jsonl, its run folder, or - for standard input (the default)")
      ->type_name("");
  app.add_option("--step-every", o->stepEvery, "seconds between the step lines printed")
      ->type_name("SECONDS")
      ->check(stave::cli::numberAtLeast(0))
      ->capture_default_str();
  return [o] { return run(o->events, o->stepEvery); };
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "follow", "print a run's events (events.jsonl or stdin) as readable progress lines",
    "stave-train follow [EVENTS.jsonl|RUN_FOLDER|-] [--step-every SECONDS]",
    "Exit 0 when the run finished (completed, stopped, early_stopped), 1 otherwise.", setup});
