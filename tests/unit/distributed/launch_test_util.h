#pragma once
// What the launcher tests share: the events the launcher reports, captured per type, and
// launch options with short timeouts and no signal handling of their own.

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/distributed/launcher.h"

namespace stave::dist::testing {

/// The launcher's events (JSON lines), collected from its callback thread.
struct Captured {
  std::mutex mutex;
  std::vector<nlohmann::json> events;

  /// The events of one type, in arrival order.
  std::vector<nlohmann::json> ofType(const std::string& type) {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<nlohmann::json> out;
    for (const auto& e : events)
      if (e.value("type", "") == type) out.push_back(e);
    return out;
  }
};

/// `nproc` ranks of `argv` with their run folder under `dir`, events into `cap`, SIGTERM ->
/// SIGKILL after `graceS`, no straggler reports, no signal handlers.
inline LaunchOptions testLaunchOptions(const std::string& dir, Captured* cap,
                                       std::vector<std::string> argv, int nproc, double graceS) {
  LaunchOptions o;
  o.workerArgv = std::move(argv);
  o.nproc = nproc;
  o.runDir = dir + "/run";
  o.echoStdout = false;
  o.graceS = graceS;
  o.hangTimeoutS = 60;
  o.reportPeriodS = 0;
  o.handleSignals = false;
  o.onEvent = [cap](const std::string& line) {
    std::lock_guard<std::mutex> lock(cap->mutex);
    cap->events.push_back(nlohmann::json::parse(line));
  };
  return o;
}

/// Seconds since `t`.
inline double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace stave::dist::testing
