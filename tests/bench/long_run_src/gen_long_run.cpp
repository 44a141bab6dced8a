// stave-bench-gen-run: writes the events.jsonl of a long run (see long_run.h) into a run folder,
// finished or, with --live, still running: it then keeps appending in real time until stopped
// (SIGTERM, SIGINT).
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "long_run.h"

namespace {
volatile std::sig_atomic_t g_stop = 0;
void onSignal(int) { g_stop = 1; }

int usage() {
  std::fprintf(stderr,
               "usage: stave-bench-gen-run --out RUN_DIR [--hours H] [--planned-hours P] [--ranks R] [--nodes N]\n"
               "                           [--cores C] [--epoch-minutes M] [--live] [--seed S]\n"
               "  Writes RUN_DIR/events.jsonl: an H-hour run of R ranks (default 1 h, 8 ranks on one\n"
               "  node) at the engine's rates, of a run planned for P hours (default H; its epochs and\n"
               "  schedule). --live leaves it unfinished and appends in real time\n"
               "  until SIGTERM. Prints what it wrote as JSON.\n");
  return 2;
}
}  // namespace

int main(int argc, char** argv) {
  stave::bench::LongRunOptions o;
  std::string out;
  bool live = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "--live") {
      live = true;
      continue;
    }
    if (!(v = next())) return usage();
    char* end = nullptr;
    const double x = std::strtod(v, &end);
    const bool number = end && *end == '\0';
    if (a == "--out") out = v;
    else if (a == "--hours" && number && x > 0) o.hours = x;
    else if (a == "--planned-hours" && number && x > 0) o.plannedHours = x;
    else if (a == "--ranks" && number && x >= 1) o.ranks = static_cast<int>(x);
    else if (a == "--nodes" && number && x >= 1) o.nodes = static_cast<int>(x);
    else if (a == "--cores" && number && x >= 1) o.cores = static_cast<int>(x);
    else if (a == "--epoch-minutes" && number && x > 0) o.epochMinutes = x;
    else if (a == "--seed" && number) o.seed = static_cast<uint32_t>(x);
    else {
      std::fprintf(stderr, "stave-bench-gen-run: %s %s: not understood\n", a.c_str(), v);
      return usage();
    }
  }
  if (out.empty()) return usage();
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  o.finished = !live && (o.plannedHours <= o.hours);
  if (live && o.plannedHours <= o.hours) o.plannedHours = o.hours * 2;  // room to go on
  o.name = std::filesystem::path(out).filename().string();
  const std::string path = (std::filesystem::path(out) / "events.jsonl").string();
  stave::bench::LongRunStats stats;
  std::string error;
  if (!stave::bench::writeLongRun(o, path, &stats, &error)) {
    std::fprintf(stderr, "stave-bench-gen-run: %s\n", error.c_str());
    return 1;
  }
  std::printf("{\"path\": \"%s\", \"events\": %lld, \"bytes\": %lld, \"steps\": %lld, \"epochs\": %d}\n",
              path.c_str(), static_cast<long long>(stats.events), static_cast<long long>(stats.bytes),
              static_cast<long long>(stats.steps), stats.epochs);
  std::fflush(stdout);
  if (!live) return 0;
  std::signal(SIGTERM, onSignal);
  std::signal(SIGINT, onSignal);
  const long long appended = stave::bench::appendLive(o, path, stats.endTime, [] { return g_stop == 0; });
  std::fprintf(stderr, "stave-bench-gen-run: appended %lld events live\n", appended);
  return 0;
}
