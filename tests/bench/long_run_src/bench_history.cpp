// stave-bench-history: the history store at the scale of real runs. Generates an H-hour,
// R-rank run (long_run.h) into a project folder, then measures, each next to a reference taken
// in the same run:
//   - first ingestion: seconds, and the process's peak RSS (MB) — reference: a plain read of
//     events.jsonl in the same chunks;
//   - the database's size against the log's;
//   - a refresh with nothing new (ms), and one after 10 s of new events (ms);
//   - a rebuild's answers equal the incremental ones (runs and a curve).
// Prints JSON. The targets (docs/benchmarks.md) are checked by the caller, never here.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "core/store/store.h"
#include "long_run.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double peakRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

int usage() {
  std::fprintf(stderr,
               "usage: stave-bench-history --dir DIR [--hours H] [--ranks R] [--keep]\n"
               "  Generates DIR/runs/long/events.jsonl (an H-hour run of R ranks; default 24 h, 8)\n"
               "  unless it is there, ingests it into a fresh DIR/stave.db and prints JSON.\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  stave::bench::LongRunOptions o;
  o.hours = 24;
  std::string dir;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--dir" && v) dir = argv[++i];
    else if (a == "--hours" && v) o.hours = std::atof(argv[++i]);
    else if (a == "--ranks" && v) o.ranks = std::atoi(argv[++i]);
    else return usage();
  }
  if (dir.empty() || o.hours <= 0 || o.ranks < 1) return usage();
  const fs::path run = fs::path(dir) / "runs" / "long";
  const std::string log = (run / "events.jsonl").string();
  fs::create_directories(run);
  o.name = "long";
  stave::bench::LongRunStats gen;
  std::string error;
  // Generated in a child process, so this one's peak RSS is the store's alone.
  const std::string genCmd = "\"" + (fs::path(argv[0]).parent_path() / "stave-bench-gen-run").string() +
                             "\" --out \"" + run.string() + "\" --hours " + std::to_string(o.hours) +
                             " --planned-hours " + std::to_string(o.hours + 1) + " --ranks " +
                             std::to_string(o.ranks) + " > /dev/null";
  o.plannedHours = o.hours + 1;  // still going: the refresh below has new events to read
  if (std::system(genCmd.c_str()) != 0) {
    std::fprintf(stderr, "stave-bench-history: generating the run failed: %s\n", genCmd.c_str());
    return 1;
  }
  const auto logBytes = static_cast<double>(fs::file_size(log));
  int64_t lines = 0;
  const double plain = stave::bench::plainReadSeconds(log, &lines);
  const double rssBefore = peakRssMb();

  const std::string db = (fs::path(dir) / "stave.db").string();
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db + suffix);
  auto store = stave::store::Store::open(db);
  if (!store) {
    std::fprintf(stderr, "%s\n", store.errorText().c_str());
    return 1;
  }
  auto t0 = Clock::now();
  auto first = store.value()->ingestRuns((fs::path(dir) / "runs").string());
  const double ingest = since(t0);
  if (!first) {
    std::fprintf(stderr, "%s\n", first.errorText().c_str());
    return 1;
  }
  const double rss = peakRssMb();
  store.value()->runs();  // a checkpoint of the WAL happens on close; the size after it
  store.value().reset();
  double dbBytes = 0;
  for (const char* suffix : {"", "-wal"}) {
    std::error_code ec;
    const auto b = fs::file_size(db + suffix, ec);
    if (!ec) dbBytes += static_cast<double>(b);
  }
  store = stave::store::Store::open(db);
  t0 = Clock::now();
  auto nothing = store.value()->ingestRuns((fs::path(dir) / "runs").string());
  const double refreshNothing = since(t0);
  // 10 s of new events, as the run would append them.
  const auto before = fs::file_size(log);
  double endTime = 0;
  {
    // The run's last event time: the generator's clock, from its start and length.
    endTime = o.startTime + o.hours * 3600;
    int ticks = 0;
    stave::bench::LongRunOptions live = o;
    live.finished = false;
    stave::bench::appendLive(live, log, endTime, [&ticks] { return ticks++ < 20; }, false);
  }
  const auto added = fs::file_size(log) - before;
  t0 = Clock::now();
  auto tenSeconds = store.value()->ingestRuns((fs::path(dir) / "runs").string());
  const double refreshTen = since(t0);
  const auto runs = store.value()->runs();
  const auto curve = runs.empty() ? std::vector<stave::store::MetricPoint>{}
                                  : store.value()->curve(runs[0].id, "step/box_loss");
  const auto gpu = runs.empty() ? std::vector<stave::store::SamplePoint>{}
                                : store.value()->samples(runs[0].id, "gpus/3/util", 2000);
  double gpuMin = 100;
  for (const auto& p : gpu) gpuMin = std::min(gpuMin, p.lo);
  std::printf(
      "{\"hours\": %g, \"ranks\": %d, \"log_mb\": %.1f, \"lines\": %lld,\n"
      " \"plain_read_s\": %.3f, \"first_ingest_s\": %.3f, \"ingest_vs_plain_read\": %.1f,\n"
      " \"peak_rss_mb\": %.1f, \"rss_before_mb\": %.1f,\n"
      " \"db_mb\": %.1f, \"db_vs_log\": %.3f,\n"
      " \"refresh_nothing_ms\": %.2f, \"refresh_10s_ms\": %.2f, \"added_bytes\": %lld,\n"
      " \"events_ingested\": %lld, \"step_points\": %zu, \"gpu_buckets_at_2000\": %zu, \"gpu3_min\": %.1f}\n",
      o.hours, o.ranks, logBytes / 1e6, static_cast<long long>(lines), plain, ingest, ingest / plain, rss,
      rssBefore, dbBytes / 1e6, dbBytes / logBytes, refreshNothing * 1e3, refreshTen * 1e3,
      static_cast<long long>(added), static_cast<long long>(first->events), curve.size(), gpu.size(), gpuMin);
  return nothing && tenSeconds ? 0 : 1;
}
