// A stand-in worker for launcher tests (not a test itself). Usage:
//   fake_worker [--steps N] [--interval-ms M] [--sync DIR] MODE_RANK0 [MODE_RANK1 ...]
// The mode is picked by $RANK (the last one repeats). Every mode first prints a "hello" event
// with its pid and rank variables, and writes a few lines to stderr (the rank log).
// Modes:
//   ok         N step events, then exit 0 (events carry no "rank": the launcher adds it)
//   slowdata   like ok, but the step timing says most of the step waits for data
//   forever    step events until SIGTERM, then a "finished" event and exit 0
//   blocked    one event, then silent and deaf to SIGTERM (stuck in a collective)
//   hang       one event, then silent; SIGTERM ends it
//   sigstop    N step events, then stops itself with SIGSTOP (as `kill -STOP` would)
//   selfkill   two events, then SIGKILL on itself
//   exit3      one event, an error on stderr, exit code 3
//   garbage    a non-JSON line, a malformed event and an event, then exit 0
// With --sync DIR every rank marks DIR/ready-RANK once its signal handlers are in, and the
// failing modes (exit3, diskfull, selfkill) wait for all WORLD_SIZE marks first, as a real
// trainer fails only after the rendezvous: otherwise, on a loaded machine, the launcher's
// SIGTERM can reach a survivor before its handler is installed.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

volatile sig_atomic_t g_term = 0;
void onTerm(int) {
  g_term = 1;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

void event(const std::string& type, const std::string& data, bool withRank = true) {
  std::string line = "{\"type\":\"" + type + "\",\"version\":1,";
  if (withRank) line += "\"rank\":" + env("RANK") + ",";
  line += "\"time\":0,\"data\":" + data + "}\n";
  std::fputs(line.c_str(), stdout);
  std::fflush(stdout);
}

void step(int i, bool slowData) {
  char buf[600];
  std::snprintf(buf, sizeof buf,
                "{\"epoch\":0,\"iter\":%d,\"iters_per_epoch\":100,\"box_loss\":1.5,"
                "\"cls_loss\":2.0,\"dfl_loss\":1.1,\"lr\":0.01,\"samples_per_s\":160,"
                "\"timing\":{\"data_wait\":%.3f,\"h2d\":0.001,\"fwd_bwd\":0.05,"
                "\"allreduce_wait\":%.3f,\"optimizer\":0.005,\"total\":0.1}}",
                i, slowData ? 0.041 : 0.002, slowData ? 0.003 : 0.042);
  event("step", buf, false);
}

void sleepMs(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

/// Marks this rank ready in `dir` and, when `wait`, waits (at most 30 s) for every rank's mark.
void rendezvous(const std::string& dir, bool wait) {
  if (dir.empty()) return;
  std::ofstream(dir + "/ready-" + env("RANK")) << "ready\n";
  if (!wait) return;
  const int world = std::atoi(env("WORLD_SIZE").c_str());
  for (int tries = 0; tries < 3000; ++tries) {
    int ready = 0;
    for (int r = 0; r < world; ++r)
      ready += std::ifstream(dir + "/ready-" + std::to_string(r)).good() ? 1 : 0;
    if (ready >= world) return;
    sleepMs(10);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 5, intervalMs = 50;
  std::string syncDir;
  std::vector<std::string> modes;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--steps" && i + 1 < argc)
      steps = std::atoi(argv[++i]);
    else if (a == "--interval-ms" && i + 1 < argc)
      intervalMs = std::atoi(argv[++i]);
    else if (a == "--sync" && i + 1 < argc)
      syncDir = argv[++i];
    else
      modes.push_back(a);
  }
  const int rank = std::atoi(env("RANK").c_str());
  const std::string mode =
      modes.empty() ? "ok" : modes[std::min<size_t>(static_cast<size_t>(rank), modes.size() - 1)];

  // Handlers go in before the first event, so a stop that follows at once finds them.
  if (mode == "forever") signal(SIGTERM, onTerm);
  if (mode == "blocked") signal(SIGTERM, SIG_IGN);
  rendezvous(syncDir, mode == "exit3" || mode == "diskfull" || mode == "selfkill");
  event("hello", "{\"pid\":" + std::to_string(getpid()) + ",\"mode\":\"" + mode +
                     "\",\"env\":{\"RANK\":\"" + env("RANK") + "\",\"LOCAL_RANK\":\"" +
                     env("LOCAL_RANK") + "\",\"WORLD_SIZE\":\"" + env("WORLD_SIZE") +
                     "\",\"LOCAL_WORLD_SIZE\":\"" + env("LOCAL_WORLD_SIZE") +
                     "\",\"MASTER_ADDR\":\"" + env("MASTER_ADDR") + "\",\"MASTER_PORT\":\"" +
                     env("MASTER_PORT") + "\"}}");
  for (int i = 0; i < 3; ++i)
    std::fprintf(stderr, "rank %d: log line %d (%s)\n", rank, i, mode.c_str());

  if (mode == "ok" || mode == "slowdata") {
    for (int i = 0; i < steps; ++i) {
      step(i, mode == "slowdata");
      sleepMs(intervalMs);
    }
    return 0;
  }
  if (mode == "garbage") {
    std::puts("this is not json");
    std::puts("{\"type\":\"step\",\"version\":99}");
    std::fflush(stdout);
    step(0, false);
    return 0;
  }
  if (mode == "forever") {
    for (int i = 0; !g_term; ++i) {
      step(i, false);
      sleepMs(intervalMs);
    }
    event("finished", "{\"status\":\"stopped\"}");
    return 0;
  }
  if (mode == "blocked") {
    for (;;) sleepMs(1000);
  }
  if (mode == "hang") {
    for (;;) sleepMs(1000);
  }
  if (mode == "sigstop") {
    for (int i = 0; i < steps; ++i) {
      step(i, false);
      sleepMs(intervalMs);
    }
    raise(SIGSTOP);
    for (;;) sleepMs(1000);
  }
  if (mode == "selfkill") {
    step(0, false);
    sleepMs(intervalMs);
    std::fprintf(stderr, "rank %d: about to be killed\n", rank);
    raise(SIGKILL);
  }
  if (mode == "diskfull") {
    // What the trainer does when a checkpoint cannot be written: an error event, exit 1.
    step(0, false);
    event("error",
          "{\"rank\":" + env("RANK") +
              ",\"message\":\"weights/last.pt: write failed: No space left on device\","
              "\"hint\":\"check free disk space in the run folder\"}");
    return 1;
  }
  if (mode == "exit3") {
    std::fprintf(stderr, "rank %d: fatal: something broke\n", rank);
    return 3;
  }
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
