#include "core/bench/bench_store.h"

#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "core/bench/scratch_dir.h"
#include "core/store/store.h"
#include "core/telemetry/events.h"

namespace fs = std::filesystem;
namespace tel = stave::telemetry;

namespace stave::bench {
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

/// Seconds to insert `rows` rows through one prepared INSERT in one transaction: the
/// reference the ingestion is compared with.
double plainInsertSeconds(const fs::path& dbPath, int rows) {
  sqlite3* db = nullptr;
  sqlite3_open(dbPath.c_str(), &db);
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
  const double seconds = since(t0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return seconds;
}

/// The GUI's query: one key's curve for each of o.runs runs of o.points steps.
Result<nlohmann::json> curveQuery(store::Store& s, const fs::path& runs,
                                  const BenchStoreOptions& o) {
  for (int r = 0; r < o.runs; ++r) writeRun(runs / ("r" + std::to_string(r)), o.points);
  if (auto all = s.ingestRuns(runs.string()); !all) return all.errors();
  const auto t0 = std::chrono::steady_clock::now();
  int64_t got = 0;
  for (const auto& rec : s.runs())
    if (rec.name != "big") got += static_cast<int64_t>(s.curve(rec.id, "step/box_loss").size());
  const double seconds = since(t0);
  return nlohmann::json{
      {"runs", o.runs}, {"points_per_run", o.points}, {"points", got}, {"seconds", seconds}};
}

}  // namespace

Result<nlohmann::json> benchStore(const BenchStoreOptions& o) {
  const ScratchDir tmp(scratchPath("stave-bench-store-"));
  fs::create_directories(tmp.path());
  const double refSeconds = plainInsertSeconds(tmp.path() / "ref.db", o.rows);

  // Stave: decode events.jsonl and store events, metrics and the run row.
  writeRun(tmp.path() / "runs" / "big", o.rows / 5);
  auto db = store::Store::open((tmp.path() / "stave.db").string());
  if (!db) return db.errors();
  const auto t1 = std::chrono::steady_clock::now();
  auto report = db.value()->ingestRun((tmp.path() / "runs" / "big").string());
  const double ingestSeconds = since(t1);
  if (!report) return report.errors();
  auto query = curveQuery(*db.value(), tmp.path() / "runs", o);
  if (!query) return query.errors();

  const double rowsPerS = static_cast<double>(report->metricRows) / ingestSeconds;
  const double refRowsPerS = static_cast<double>(o.rows) / refSeconds;
  nlohmann::json j;
  j["bench"] = "store";
  j["metric_rows"] = report->metricRows;
  j["events"] = report->events;
  j["ingest_s"] = ingestSeconds;
  j["ingest_metric_rows_per_s"] = rowsPerS;
  j["reference_insert_rows_per_s"] = refRowsPerS;
  j["ratio_to_plain_insert"] = rowsPerS / refRowsPerS;
  j["target_rows_per_s"] = 50000;
  j["meets_target"] = rowsPerS >= 50000;
  j["curve_query"] = query.value();
  return j;
}

}  // namespace stave::bench
