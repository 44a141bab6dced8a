// stave-train bench store: history ingestion speed against a plain INSERT loop in the same
// run, and the GUI's curve query (20 runs x 10,000 points). Prints JSON.
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/stave-train/command.h"
#include "core/store/store.h"
#include "core/telemetry/events.h"

namespace fs = std::filesystem;
namespace tel = stave::telemetry;

namespace {

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// A run's events.jsonl with `steps` step events (5 metric rows each).
void writeRun(const fs::path& dir, int steps) {
  fs::create_directories(dir);
  std::ofstream out(dir / "events.jsonl", std::ios::binary);
  tel::RunStartEvent rs;
  rs.config = {{"model", "yolov8n"}, {"epochs", 1}};
  out << tel::encodeEvent(tel::toEvent(rs, 0)) << "\n";
  for (int i = 0; i < steps; ++i) {
    tel::StepEvent s;
    s.iter = i;
    s.itersPerEpoch = steps;
    s.boxLoss = 1.0 / (1 + i);
    s.clsLoss = 2.0 / (1 + i);
    s.dflLoss = 0.5;
    s.lr = 0.01;
    s.samplesPerSec = 100;
    out << tel::encodeEvent(tel::toEvent(s, 0)) << "\n";
  }
}

struct BenchStoreOptions {
  int rows = 200000;   ///< metric rows ingested and inserted
  int runs = 20;       ///< runs of the curve query
  int points = 10000;  ///< points per run of the curve query
};

int run(const BenchStoreOptions& o) {
  const int rows = o.rows, runs = o.runs, points = o.points;
  const fs::path tmp =
      fs::temp_directory_path() / ("stave-bench-store-" + std::to_string(getpid()));
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  } cleanup{tmp};
  fs::create_directories(tmp);

  // Reference: the same number of rows through one prepared INSERT in one transaction.
  double refSeconds = 0;
  {
    sqlite3* db = nullptr;
    sqlite3_open((tmp / "ref.db").c_str(), &db);
    sqlite3_exec(db,
                 "PRAGMA journal_mode=WAL; CREATE TABLE m(run_id INTEGER, key TEXT, step INTEGER,"
                 " epoch INTEGER, value REAL, time REAL);",
                 nullptr, nullptr, nullptr);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, "INSERT INTO m VALUES (1, ?, ?, 0, ?, ?)", -1, &st, nullptr);
    const char* keys[] = {"step/box_loss", "step/cls_loss", "step/dfl_loss", "step/lr",
                          "step/samples_per_s"};
    const auto t0 = std::chrono::steady_clock::now();
    sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
    for (int i = 0; i < rows; ++i) {
      sqlite3_bind_text(st, 1, keys[i % 5], -1, SQLITE_STATIC);
      sqlite3_bind_int64(st, 2, i / 5);
      sqlite3_bind_double(st, 3, 1.0 / (1 + i));
      sqlite3_bind_double(st, 4, 1e9 + i);
      sqlite3_step(st);
      sqlite3_reset(st);
    }
    sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
    refSeconds = since(t0);
    sqlite3_finalize(st);
    sqlite3_close(db);
  }

  // Stave: decode events.jsonl and store events, metrics and the run row.
  writeRun(tmp / "runs" / "big", rows / 5);
  auto store = stave::store::Store::open((tmp / "stave.db").string());
  if (!store) return stave::cli::usageError("bench store", store.errorText());
  const auto t1 = std::chrono::steady_clock::now();
  auto report = store.value()->ingestRun((tmp / "runs" / "big").string());
  const double ingestSeconds = since(t1);
  if (!report) return stave::cli::usageError("bench store", report.errorText());

  // The GUI's query: one key's curve for many runs.
  for (int r = 0; r < runs; ++r) writeRun(tmp / "runs" / ("r" + std::to_string(r)), points);
  if (auto all = store.value()->ingestRuns((tmp / "runs").string()); !all)
    return stave::cli::usageError("bench store", all.errorText());
  const auto t2 = std::chrono::steady_clock::now();
  int64_t got = 0;
  for (const auto& rec : store.value()->runs())
    if (rec.name != "big")
      got += static_cast<int64_t>(store.value()->curve(rec.id, "step/box_loss").size());
  const double querySeconds = since(t2);

  const double rowsPerS = static_cast<double>(report->metricRows) / ingestSeconds;
  nlohmann::json j;
  j["bench"] = "store";
  j["metric_rows"] = report->metricRows;
  j["events"] = report->events;
  j["ingest_s"] = ingestSeconds;
  j["ingest_metric_rows_per_s"] = rowsPerS;
  j["reference_insert_rows_per_s"] = static_cast<double>(rows) / refSeconds;
  j["ratio_to_plain_insert"] = rowsPerS / (static_cast<double>(rows) / refSeconds);
  j["target_rows_per_s"] = 50000;
  j["meets_target"] = rowsPerS >= 50000;
  j["curve_query"] = {
      {"runs", runs}, {"points_per_run", points}, {"points", got}, {"seconds", querySeconds}};
  std::cout << j.dump(2) << "\n";
  return stave::cli::kOk;
}

stave::cli::RunFunction setup(CLI::App& app) {
  using stave::cli::atLeast;
  auto o = std::make_shared<BenchStoreOptions>();
  app.add_option("--rows", o->rows, "metric rows ingested (and inserted by the reference)")
      ->type_name("N")
      ->check(atLeast(1000))
      ->capture_default_str();
  app.add_option("--runs", o->runs, "runs of the curve query")
      ->type_name("N")
      ->check(atLeast(1))
      ->capture_default_str();
  app.add_option("--points", o->points, "points per run of the curve query")
      ->type_name("N")
      ->check(atLeast(10))
      ->capture_default_str();
  return [o] { return run(*o); };
}

}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "bench store", "history ingestion rows/s vs a plain INSERT loop; curve query (JSON)",
    "stave-train bench store [--rows N] [--runs N] [--points N]", "", setup});
