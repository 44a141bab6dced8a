// stave-train doctor: the short-stave doctor's report for a run folder, finished or running.
// Replays runs/<id>/events.jsonl through the doctor (core/telemetry/doctor.h) in event time,
// period by period as the run itself did, and prints the report over the whole run.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "app/stave-train/command.h"
#include "core/base/bounded_read.h"
#include "core/telemetry/doctor_replay.h"

namespace fs = std::filesystem;
using namespace stave::telemetry;
using stave::CappedLineReader;

namespace {

std::string pct(double share) {
  return std::to_string(std::lround(share * 100)) + "%";
}

nlohmann::json splitJson(const StepTiming& t) {
  auto s = [&](double v) { return t.total > 0 ? v / t.total : 0.0; };
  return {{"step_s", t.total},
          {"data_wait", s(t.dataWait)},
          {"h2d", s(t.h2d)},
          {"fwd_bwd", s(t.fwdBwd)},
          {"allreduce_wait", s(t.allreduceWait)},
          {"optimizer", s(t.optimizer)}};
}

int run(const fs::path& dir, bool json) {
  const fs::path log = dir / "events.jsonl";
  std::error_code dirEc;
  if (fs::is_directory(log, dirEc))  // opens as a stream, and reads as empty
    return stave::cli::usageError("doctor", log.string() + ": is a folder, not an event log");
  if (fs::exists(log, dirEc) && !fs::is_regular_file(log, dirEc))  // a FIFO would block the read
    return stave::cli::usageError("doctor", log.string() + ": is not a regular file; not read");
  std::ifstream in(log, std::ios::binary);
  if (!in) {
    std::error_code ec;
    const std::string why = !fs::exists(dir, ec)   ? "no such folder"
                            : !fs::exists(log, ec) ? "no events.jsonl in it (not a run folder)"
                                                   : "cannot be read";
    return stave::cli::usageError("doctor",
                                  (fs::exists(dir, ec) ? log : dir).string() + ": " + why);
  }

  // Replayed line by line; a line longer than any event is passed over without being held.
  DoctorReplay replay;
  stave::CappedLineReader reader(in);
  std::string line;
  for (CappedLineReader::Got got; (got = reader.next(&line)) != CappedLineReader::Got::End;) {
    if (got == CappedLineReader::Got::TooLong)
      replay.addTooLongLine(reader.lineNo());
    else
      replay.addLine(line, reader.lineNo());
  }
  const Doctor& doctor = replay.doctor();
  const double period = replay.period();
  const auto& periods = replay.periods();
  const auto& periodsActive = replay.periodsActive();
  const std::string& status = replay.status();
  const int recorded = replay.recordedDiagnoses();
  const int badLines = replay.badLines().count, droppedSteps = replay.droppedSteps().count;
  const DiagnosisEvent report = doctor.finalReport();
  const DoctorWindow window = doctor.runWindow();
  const std::string state = !status.empty()
                                ? "finished: " + status
                                : "no finished event (running, or it ended without one)";

  if (json) {
    nlohmann::json ranks = nlohmann::json::array();
    for (const auto& [rank, r] : window.ranks) {
      auto j = splitJson(r.mean);
      j["rank"] = rank;
      j["steps"] = r.steps;
      ranks.push_back(j);
    }
    nlohmann::json periodsJson = nlohmann::json::array();
    for (const auto& d : periods) periodsJson.push_back(toEvent(d, -1).data);
    nlohmann::json out{
        {"run_dir", fs::absolute(dir).lexically_normal().string()},
        {"state", state},
        {"device", doctor.facts().device},
        {"world_size", doctor.facts().worldSize},
        {"report_period_s", period},
        {"ranks", ranks},
        {"cpu_busy", window.cpuBusy >= 0 ? nlohmann::json(window.cpuBusy) : nlohmann::json()},
        {"gpu_util", window.gpuUtil >= 0 ? nlohmann::json(window.gpuUtil) : nlohmann::json()},
        {"report", toEvent(report, -1).data},
        {"periods", periodsJson},
        {"periods_active", periodsActive},
        {"recorded_diagnoses", recorded},
        {"bad_lines", badLines},
        {"bad_times", replay.badTimes().count},
        {"dropped_steps", droppedSteps}};
    std::cout << out.dump(2) << "\n";
    return 0;
  }

  std::cout << "run: " << fs::absolute(dir).lexically_normal().string() << " (" << state << ")\n";
  std::cout << "device: " << doctor.facts().device << ", " << doctor.facts().worldSize
            << (doctor.facts().worldSize == 1 ? " rank" : " ranks");
  if (window.cpuBusy >= 0) std::cout << ", CPU " << std::lround(window.cpuBusy) << "% busy";
  if (window.gpuUtil >= 0) std::cout << ", GPU " << std::lround(window.gpuUtil) << "% busy";
  std::cout << "\n";
  if (badLines > 0)
    std::cout << "note: " << badLines << " line(s) of " << log.string()
              << " are not events and were skipped (first: line " << replay.badLines().firstLine
              << ": " << replay.badLines().firstWhy << ")\n";
  if (const auto& t = replay.badTimes(); t.count > 0)
    std::cout << "note: " << t.count << " event(s) of " << log.string()
              << " have a time that cannot be the run's (not finite, a day before its start, a "
                 "year after it or in the future) and were left out (first: line "
              << t.firstLine << ": " << t.firstWhy << ")\n";
  if (droppedSteps > 0)
    std::cout << "note: " << droppedSteps << " step event(s) of " << log.string()
              << " have impossible timings (negative, not finite, or a zero step time) and "
                 "were left out (first: line "
              << replay.droppedSteps().firstLine << ")\n";
  if (!window.ranks.empty()) {
    std::cout << "step split (share of each rank's mean step):\n";
    for (const auto& [rank, r] : window.ranks) {
      const auto& t = r.mean;
      auto s = [&](double v) { return pct(t.total > 0 ? v / t.total : 0); };
      std::printf(
          "  rank %d: %.3f s/step  data %s  h2d %s  fwd+bwd %s  all-reduce %s  optimiser %s  (%d "
          "samples)\n",
          rank, t.total, s(t.dataWait).c_str(), s(t.h2d).c_str(), s(t.fwdBwd).c_str(),
          s(t.allreduceWait).c_str(), s(t.optimizer).c_str(), r.steps);
    }
    std::fflush(stdout);
  }
  std::cout << formatDiagnosis(report);
  if (!periodsActive.empty()) {
    std::cout << "during the run (" << periods.size() << " periods of " << period << " s judged):";
    for (const auto& [rule, n] : periodsActive) std::cout << " " << rule << " in " << n;
    std::cout << "\n";
  }
  return 0;
}

stave::cli::RunFunction setup(CLI::App& app) {
  struct Options {
    std::string dir;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  app.add_option("RUN_DIR", o->dir, "a run folder (runs/<id>), finished or running")
      ->type_name("")
      ->required();
  app.add_flag("--json", o->json, "print the same as one JSON object");
  return [o] { return run(o->dir, o->json); };
}

}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "doctor", "why a run is slow: the doctor's report for a run folder",
    "stave-train doctor RUN_DIR [--json]",
    "Replays RUN_DIR/events.jsonl (a finished or a running run) through the doctor: the step\n"
    "split of every rank, what holds the run back and the config changes to try\n"
    "(e.g. workers=8 cache=ram).",
    setup});
