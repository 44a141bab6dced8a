#include "core/store/store.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/config/atomic_file.h"
#include "core/telemetry/events.h"

namespace fs = std::filesystem;

namespace stave::store {
namespace {

/// A prepared statement, finalised on destruction.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) : m_db(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &m_stmt, nullptr) != SQLITE_OK) m_stmt = nullptr;
  }
  ~Stmt() { sqlite3_finalize(m_stmt); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  bool ok() const { return m_stmt != nullptr; }
  Stmt& bind(int i, int64_t v) {
    sqlite3_bind_int64(m_stmt, i, v);
    return *this;
  }
  Stmt& bind(int i, double v) {
    // NaN and inf are stored as NULL: SQLite has no NaN, and a NULL point is a gap in a curve.
    if (std::isfinite(v))
      sqlite3_bind_double(m_stmt, i, v);
    else
      sqlite3_bind_null(m_stmt, i);
    return *this;
  }
  Stmt& bind(int i, const std::string& v) {
    sqlite3_bind_text(m_stmt, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  /// SQLITE_ROW, SQLITE_DONE or an error code.
  int step() { return sqlite3_step(m_stmt); }
  void reset() {
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
  }
  int64_t i64(int c) const { return sqlite3_column_int64(m_stmt, c); }
  double f64(int c) const { return sqlite3_column_double(m_stmt, c); }
  std::string text(int c) const {
    const auto* t = sqlite3_column_text(m_stmt, c);
    return t ? std::string(reinterpret_cast<const char*>(t),
                           static_cast<size_t>(sqlite3_column_bytes(m_stmt, c)))
             : std::string();
  }

 private:
  sqlite3* m_db;
  sqlite3_stmt* m_stmt = nullptr;
};

std::string hashText(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// Version 1 of the schema. A migration to version N adds a function and a case in migrate().
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  dir TEXT NOT NULL UNIQUE,
  status TEXT NOT NULL DEFAULT 'unknown',
  message TEXT NOT NULL DEFAULT '',
  config_json TEXT NOT NULL DEFAULT '{}',
  config_hash TEXT NOT NULL DEFAULT '',
  dataset TEXT NOT NULL DEFAULT '',
  model TEXT NOT NULL DEFAULT '',
  imgsz INTEGER NOT NULL DEFAULT 0,
  batch INTEGER NOT NULL DEFAULT 0,
  world_size INTEGER NOT NULL DEFAULT 1,
  devices TEXT NOT NULL DEFAULT '',
  version TEXT NOT NULL DEFAULT '',
  started REAL NOT NULL DEFAULT 0,
  finished REAL NOT NULL DEFAULT 0,
  last_event REAL NOT NULL DEFAULT 0,
  epochs INTEGER NOT NULL DEFAULT 0,
  epochs_done INTEGER NOT NULL DEFAULT 0,
  best_map50 REAL NOT NULL DEFAULT 0,
  best_map5095 REAL NOT NULL DEFAULT 0,
  best_epoch INTEGER NOT NULL DEFAULT -1,
  sps_sum REAL NOT NULL DEFAULT 0,
  sps_count INTEGER NOT NULL DEFAULT 0,
  tags TEXT NOT NULL DEFAULT '[]',
  notes TEXT NOT NULL DEFAULT '',
  bad_lines INTEGER NOT NULL DEFAULT 0,
  ingested_bytes INTEGER NOT NULL DEFAULT 0,
  ingested_lines INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX runs_by_best ON runs(best_map5095 DESC);
CREATE TABLE metrics (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  step INTEGER NOT NULL,
  epoch INTEGER NOT NULL,
  value REAL,
  time REAL NOT NULL
);
CREATE INDEX metrics_by_curve ON metrics(run_id, key, step);
CREATE TABLE events (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  line INTEGER NOT NULL,
  type TEXT NOT NULL,
  rank INTEGER NOT NULL,
  time REAL NOT NULL,
  json TEXT NOT NULL
);
CREATE INDEX events_by_run ON events(run_id, type);
)sql";

// Version 2: a display title per run (the user's; the folder keeps its name), the host and
// the dataset's content hash (from run_start; empty for runs trained before), and the
// launcher's gpu_sample / system_sample events as rows (run, type, rank, key, time, value).
constexpr const char* kSchemaV2 = R"sql(
ALTER TABLE runs ADD COLUMN title TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN host TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN dataset_hash TEXT NOT NULL DEFAULT '';
CREATE TABLE samples (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  rank INTEGER NOT NULL,
  key TEXT NOT NULL,
  time REAL NOT NULL,
  value REAL
);
CREATE INDEX samples_by_key ON samples(run_id, key, time);
)sql";

bool isSampleType(const std::string& type) {
  return type.size() > 7 && type.compare(type.size() - 7, 7, "_sample") == 0;
}

std::string sqliteMessage(sqlite3* db, int rc) {
  std::string m = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  if (rc == SQLITE_NOTADB) m = "not an SQLite database (" + m + ")";
  if (rc == SQLITE_FULL) m = "the disk is full (" + m + "); nothing of this write was kept";
  if (rc == SQLITE_READONLY || rc == SQLITE_CANTOPEN)
    m += " (is the project folder writable?)";
  return m;
}

/// One run's columns read from a query of "SELECT <kRunColumns> FROM runs".
constexpr const char* kRunColumns =
    "id, name, dir, status, message, config_json, config_hash, dataset, model, imgsz, batch, "
    "world_size, devices, version, started, finished, last_event, epochs, epochs_done, "
    "best_map50, best_map5095, best_epoch, sps_sum, sps_count, tags, notes, bad_lines, "
    "ingested_bytes, title, host, dataset_hash";

RunRecord readRun(const Stmt& s) {
  RunRecord r;
  r.id = s.i64(0);
  r.name = s.text(1);
  r.dir = s.text(2);
  r.status = s.text(3);
  r.message = s.text(4);
  r.configJson = s.text(5);
  r.configHash = s.text(6);
  r.dataset = s.text(7);
  r.model = s.text(8);
  r.imgsz = s.i64(9);
  r.batch = s.i64(10);
  r.worldSize = static_cast<int>(s.i64(11));
  r.devices = s.text(12);
  r.version = s.text(13);
  r.started = s.f64(14);
  r.finished = s.f64(15);
  r.lastEvent = s.f64(16);
  r.epochs = static_cast<int>(s.i64(17));
  r.epochsDone = static_cast<int>(s.i64(18));
  r.bestMap50 = s.f64(19);
  r.bestMap5095 = s.f64(20);
  r.bestEpoch = static_cast<int>(s.i64(21));
  const int64_t n = s.i64(23);
  r.samplesPerSec = n > 0 ? s.f64(22) / static_cast<double>(n) : 0.0;
  const auto tags = nlohmann::json::parse(s.text(24), nullptr, false);
  if (tags.is_array())
    for (const auto& t : tags)
      if (t.is_string()) r.tags.push_back(t.get<std::string>());
  r.notes = s.text(25);
  r.badLines = s.i64(26);
  r.ingestedBytes = s.i64(27);
  r.title = s.text(28);
  r.host = s.text(29);
  r.datasetHash = s.text(30);
  return r;
}

}  // namespace

std::string Store::defaultPath(const std::string& projectDir) {
  return (fs::path(projectDir) / "stave.db").string();
}

Status Store::exec(const std::string& sql) {
  char* err = nullptr;
  const int rc = sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &err);
  if (rc == SQLITE_OK) return Ok{};
  std::string msg = err ? err : sqlite3_errstr(rc);
  sqlite3_free(err);
  if (rc == SQLITE_FULL) msg = "the disk is full (" + msg + "); nothing of this write was kept";
  return Error{m_path, 0, "", msg};
}

Result<std::unique_ptr<Store>> Store::open(const std::string& dbPath) {
  std::error_code ec;
  if (fs::is_directory(dbPath, ec)) return Error{dbPath, 0, "", "is a folder, not a database"};
  std::unique_ptr<Store> s(new Store);
  s->m_path = dbPath;
  int rc = sqlite3_open_v2(dbPath.c_str(), &s->m_db,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) return Error{dbPath, 0, "", "cannot open: " + sqliteMessage(s->m_db, rc)};
  sqlite3_busy_timeout(s->m_db, 5000);
  // The first real read tells whether this is an SQLite file at all.
  int version = 0;
  {
    Stmt v(s->m_db, "PRAGMA user_version");
    if (!v.ok() || v.step() != SQLITE_ROW) {
      const int code = sqlite3_errcode(s->m_db);
      return Error{dbPath, 0, "", sqliteMessage(s->m_db, code)};
    }
    version = static_cast<int>(v.i64(0));
  }
  if (version < 0)
    return Error{dbPath, 0, "user_version",
                 "the history database has schema version " + std::to_string(version) +
                     ", which no Stave writes (changed by another program?); "
                     "`stave-train history PROJECT --rebuild` recreates it from the runs' "
                     "events.jsonl. The file was not changed"};
  if (version > kSchemaVersion) {
    return Error{dbPath, 0, "",
                 "the history database has schema version " + std::to_string(version) +
                     ", written by a newer Stave; this build reads up to version " +
                     std::to_string(kSchemaVersion) + ". The file was not changed"};
  }
  if (version > 0) {
    Stmt check(s->m_db, "PRAGMA integrity_check(1)");
    if (!check.ok() || check.step() != SQLITE_ROW || check.text(0) != "ok") {
      return Error{dbPath, 0, "",
                   "the history database is corrupt (" +
                       (check.ok() ? check.text(0) : std::string(sqlite3_errmsg(s->m_db))) +
                       "); `stave-train history PROJECT --rebuild` recreates it from the runs' "
                       "events.jsonl"};
    }
  }
  if (auto st = s->exec("PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON;"); !st) return st.errors();
  if (version < kSchemaVersion) {
    // Migrations run in one transaction: a database is either at the old or the new version.
    if (auto st = s->exec("BEGIN IMMEDIATE"); !st) return st.errors();
    Status st = Ok{};
    if (version < 1) st = s->exec(kSchemaV1);
    if (st && version < 2) st = s->migrateToV2();
    if (st) st = s->exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
    if (!st) {
      s->exec("ROLLBACK");
      return st.errors();
    }
    if (auto c = s->exec("COMMIT"); !c) return c.errors();
  }
  return s;
}

Status Store::migrateToV2() {
  if (auto st = exec(kSchemaV2); !st) return st;
  // Sample events a version-1 database kept only as raw events become rows.
  Stmt q(m_db, "SELECT run_id, type, rank, time, json FROM events WHERE type LIKE '%\\_sample' ESCAPE '\\'");
  Stmt ins(m_db, "INSERT INTO samples(run_id, type, rank, key, time, value) VALUES (?,?,?,?,?,?)");
  while (q.ok() && q.step() == SQLITE_ROW) {
    const auto j = nlohmann::json::parse(q.text(4), nullptr, false);
    if (!j.is_object() || !j.contains("data")) continue;
    std::vector<std::pair<std::string, double>> leaves;
    telemetry::flattenNumbers(j["data"], "", leaves);
    for (const auto& [key, value] : leaves) {
      ins.bind(1, q.i64(0)).bind(2, q.text(1)).bind(3, q.i64(2)).bind(4, key).bind(5, q.f64(3))
          .bind(6, value);
      if (ins.step() != SQLITE_DONE) return Error{m_path, 0, "", sqlite3_errmsg(m_db)};
      ins.reset();
    }
  }
  return Ok{};
}

Store::~Store() {
  if (m_db) sqlite3_close_v2(m_db);
}

Result<IngestReport> Store::ingestRun(const std::string& runDirIn) {
  IngestReport report;
  report.runsSeen = 1;
  const fs::path runDir = fs::absolute(runDirIn).lexically_normal();
  const std::string eventsPath = (runDir / "events.jsonl").string();
  std::error_code ec;
  const auto size = fs::file_size(eventsPath, ec);
  if (ec) return Error{eventsPath, 0, "", "cannot read: " + ec.message()};

  // The run's row, created on first sight.
  int64_t runId = 0, offset = 0, lineNo = 0;
  {
    Stmt q(m_db, "SELECT id, ingested_bytes, ingested_lines FROM runs WHERE dir = ?");
    q.bind(1, runDir.string());
    if (q.step() == SQLITE_ROW) {
      runId = q.i64(0);
      offset = q.i64(1);
      lineNo = q.i64(2);
    }
  }
  if (runId == 0) {
    // The project folder was moved or copied (another machine, a new path): the run of the
    // same name whose recorded folder is gone is this one, with its tags and notes.
    Stmt q(m_db, "SELECT id, ingested_bytes, ingested_lines, dir FROM runs WHERE name = ?");
    q.bind(1, runDir.filename().string());
    while (q.step() == SQLITE_ROW) {
      std::error_code e2;
      if (fs::exists(fs::path(q.text(3)) / "events.jsonl", e2)) continue;
      Stmt u(m_db, "UPDATE runs SET dir = ? WHERE id = ?");
      u.bind(1, runDir.string()).bind(2, q.i64(0));
      if (u.step() != SQLITE_DONE) return Error{m_path, 0, "", sqlite3_errmsg(m_db)};
      runId = q.i64(0);
      offset = q.i64(1);
      lineNo = q.i64(2);
      break;
    }
  }
  if (static_cast<int64_t>(size) == offset && runId != 0) return report;  // nothing new

  std::string data;
  {
    std::ifstream in(eventsPath, std::ios::binary);
    if (!in) return Error{eventsPath, 0, "", "cannot open"};
    if (static_cast<int64_t>(size) < offset) {
      // The file is shorter than what was read: replaced (e.g. moved aside by exist_ok).
      report.warnings.push_back(eventsPath + ": shorter than before; read again from the start");
      offset = 0;
      lineNo = 0;
      if (runId != 0) {
        if (auto st = exec("DELETE FROM metrics WHERE run_id = " + std::to_string(runId) +
                           "; DELETE FROM events WHERE run_id = " + std::to_string(runId) +
                           "; DELETE FROM samples WHERE run_id = " + std::to_string(runId));
            !st)
          return st.errors();
      }
    }
    in.seekg(offset);
    data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  // Only whole lines: the writer may be in the middle of one.
  const size_t end = data.rfind('\n');
  if (end == std::string::npos) return report;
  data.resize(end + 1);

  if (auto st = exec("BEGIN IMMEDIATE"); !st) return st.errors();
  auto fail = [&](const std::string& what) -> Result<IngestReport> {
    const std::string msg = sqliteMessage(m_db, sqlite3_errcode(m_db));
    exec("ROLLBACK");
    return Error{m_path, 0, "", what + ": " + msg};
  };
  if (runId == 0) {
    Stmt ins(m_db, "INSERT INTO runs(name, dir) VALUES (?, ?)");
    ins.bind(1, runDir.filename().string()).bind(2, runDir.string());
    if (ins.step() != SQLITE_DONE) return fail("cannot add run " + runDir.string());
    runId = sqlite3_last_insert_rowid(m_db);
    // The user's title, tags and notes are kept in the run folder too: a rebuilt store (or
    // another machine's) gets them back.
    const fs::path notesPath = runDir / kAnnotationsFile;
    if (fs::exists(notesPath, ec)) {
      auto text = readFile(notesPath.string());
      const auto j = text ? nlohmann::json::parse(text.value(), nullptr, false) : nlohmann::json();
      if (!j.is_object()) {
        report.warnings.push_back(notesPath.string() + ": not a JSON object; title, tags and "
                                  "notes not restored");
      } else {
        Stmt u(m_db, "UPDATE runs SET title = ?, tags = ?, notes = ? WHERE id = ?");
        const auto str = [&](const char* k) {
          return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string();
        };
        nlohmann::json tags = nlohmann::json::array();
        if (j.contains("tags") && j["tags"].is_array())
          for (const auto& t : j["tags"])
            if (t.is_string()) tags.push_back(t);
        u.bind(1, str("title")).bind(2, tags.dump()).bind(3, str("notes")).bind(4, runId);
        if (u.step() != SQLITE_DONE) return fail("cannot restore the notes of " + runDir.string());
      }
    }
  }

  Stmt metric(m_db, "INSERT INTO metrics(run_id, key, step, epoch, value, time) VALUES (?,?,?,?,?,?)");
  Stmt event(m_db, "INSERT INTO events(run_id, line, type, rank, time, json) VALUES (?,?,?,?,?,?)");
  Stmt sample(m_db, "INSERT INTO samples(run_id, type, rank, key, time, value) VALUES (?,?,?,?,?,?)");
  auto putMetric = [&](const std::string& key, int64_t step, int epoch, double value, double t) {
    metric.bind(1, runId).bind(2, key).bind(3, step).bind(4, int64_t{epoch}).bind(5, value).bind(6, t);
    const bool ok = metric.step() == SQLITE_DONE;
    metric.reset();
    ++report.metricRows;
    return ok;
  };

  // Run-level fields gathered from this batch of events, written once at the end.
  RunRecord cur;
  {
    Stmt q(m_db, (std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?").c_str());
    q.bind(1, runId);
    if (q.step() == SQLITE_ROW) cur = readRun(q);
  }
  double spsSum = 0;
  int64_t spsCount = 0;
  {
    Stmt q(m_db, "SELECT sps_sum, sps_count FROM runs WHERE id = ?");
    q.bind(1, runId);
    if (q.step() == SQLITE_ROW) {
      spsSum = q.f64(0);
      spsCount = q.i64(1);
    }
  }
  int64_t badLines = cur.badLines;
  bool ok = true;
  size_t pos = 0;
  while (ok && pos < data.size()) {
    const size_t nl = data.find('\n', pos);
    const std::string line = data.substr(pos, nl - pos);
    pos = nl + 1;
    ++lineNo;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto decoded = telemetry::decodeEvent(line);
    if (!decoded) {
      ++badLines;
      report.warnings.push_back(eventsPath + ":" + std::to_string(lineNo) +
                                ": skipped: " + decoded.errorText());
      continue;
    }
    const telemetry::Event& e = decoded.value();
    event.bind(1, runId).bind(2, lineNo).bind(3, e.type).bind(4, int64_t{e.rank}).bind(5, e.time)
        .bind(6, line);
    ok = event.step() == SQLITE_DONE;
    event.reset();
    ++report.events;
    cur.lastEvent = std::max(cur.lastEvent, e.time);
    namespace et = telemetry::event_type;
    auto skipTyped = [&](const std::string& why) {
      ++badLines;
      report.warnings.push_back(eventsPath + ":" + std::to_string(lineNo) + ": " + e.type +
                                " event skipped: " + why);
    };
    if (e.type == et::kRunStart) {
      auto r = telemetry::runStartFromEvent(e);
      if (!r) {
        skipTyped(r.errorText());
        continue;
      }
      cur.configJson = r->config.dump();
      cur.configHash = hashText(cur.configJson);
      cur.dataset = r->dataset.yaml;
      cur.datasetHash = r->dataset.contentHash;
      cur.host = r->host;
      if (r->config.contains("model") && r->config["model"].is_string())
        cur.model = r->config["model"].get<std::string>();
      if (r->config.contains("imgsz") && r->config["imgsz"].is_number_integer())
        cur.imgsz = r->config["imgsz"].get<int64_t>();
      if (r->config.contains("batch") && r->config["batch"].is_number_integer())
        cur.batch = r->config["batch"].get<int64_t>();
      if (r->config.contains("epochs") && r->config["epochs"].is_number_integer())
        cur.epochs = static_cast<int>(r->config["epochs"].get<int64_t>());
      cur.worldSize = r->worldSize;
      cur.devices.clear();
      for (const auto& d : r->deviceNames) cur.devices += (cur.devices.empty() ? "" : ",") + d;
      if (auto v = r->versions.find("stave"); v != r->versions.end()) cur.version = v->second;
      if (cur.started == 0) cur.started = e.time;
      cur.status = "running";
      cur.finished = 0;
    } else if (e.type == et::kStep) {
      if (e.rank != 0) continue;  // curves are rank 0's; every rank's split is in events
      auto s = telemetry::stepFromEvent(e);
      if (!s) {
        skipTyped(s.errorText());
        continue;
      }
      for (const auto& [key, value] : telemetry::metricsOf(s.value()))
        ok = ok && putMetric(key, telemetry::globalStep(s.value()), s->epoch, value, e.time);
      if (std::isfinite(s->samplesPerSec) && s->samplesPerSec > 0) {
        spsSum += s->samplesPerSec;
        ++spsCount;
      }
    } else if (e.type == et::kEpochEnd) {
      auto s = telemetry::epochEndFromEvent(e);
      if (!s) {
        skipTyped(s.errorText());
        continue;
      }
      for (const auto& [key, value] : telemetry::metricsOf(s.value()))
        ok = ok && putMetric(key, s->epoch, s->epoch, value, e.time);
      cur.epochs = s->epochs;
      cur.epochsDone = std::max(cur.epochsDone, s->epoch + 1);
    } else if (e.type == et::kValidation) {
      auto v = telemetry::validationFromEvent(e);
      if (!v) {
        skipTyped(v.errorText());
        continue;
      }
      for (const auto& [key, value] : telemetry::metricsOf(v.value()))
        ok = ok && putMetric(key, v->epoch, v->epoch, value, e.time);
      if (std::isfinite(v->map5095) && (cur.bestEpoch < 0 || v->map5095 > cur.bestMap5095)) {
        cur.bestMap5095 = v->map5095;
        cur.bestMap50 = std::isfinite(v->map50) ? v->map50 : 0.0;
        cur.bestEpoch = v->epoch;
      }
    } else if (e.type == et::kFinished) {
      auto f = telemetry::finishedFromEvent(e);
      if (!f) {
        skipTyped(f.errorText());
        continue;
      }
      cur.status = telemetry::toString(f->status);
      cur.message = f->message;
      cur.finished = e.time;
      cur.epochs = f->epochs;
      cur.epochsDone = std::max(cur.epochsDone, f->epochsCompleted);
    } else if (isSampleType(e.type)) {
      std::vector<std::pair<std::string, double>> leaves;
      telemetry::flattenNumbers(e.data, "", leaves);
      for (size_t k = 0; ok && k < leaves.size(); ++k) {
        sample.bind(1, runId).bind(2, e.type).bind(3, int64_t{e.rank}).bind(4, leaves[k].first)
            .bind(5, e.time).bind(6, leaves[k].second);
        ok = sample.step() == SQLITE_DONE;
        sample.reset();
      }
    } else if (e.type == et::kError) {
      auto f = telemetry::errorFromEvent(e);
      if (f && cur.finished == 0) {
        cur.message = f->message;
        cur.status = "failed";
      }
    }
  }
  if (!ok) return fail("cannot store the events of " + eventsPath);

  Stmt upd(m_db,
           "UPDATE runs SET status=?, message=?, config_json=?, config_hash=?, dataset=?, model=?,"
           " imgsz=?, batch=?, world_size=?, devices=?, version=?, started=?, finished=?,"
           " last_event=?, epochs=?, epochs_done=?, best_map50=?, best_map5095=?, best_epoch=?,"
           " sps_sum=?, sps_count=?, bad_lines=?, ingested_bytes=?, ingested_lines=?, host=?,"
           " dataset_hash=? WHERE id=?");
  upd.bind(1, cur.status.empty() ? std::string("unknown") : cur.status)
      .bind(2, cur.message)
      .bind(3, cur.configJson.empty() ? std::string("{}") : cur.configJson)
      .bind(4, cur.configHash)
      .bind(5, cur.dataset)
      .bind(6, cur.model)
      .bind(7, cur.imgsz)
      .bind(8, cur.batch)
      .bind(9, int64_t{cur.worldSize})
      .bind(10, cur.devices)
      .bind(11, cur.version)
      .bind(12, cur.started)
      .bind(13, cur.finished)
      .bind(14, cur.lastEvent)
      .bind(15, int64_t{cur.epochs})
      .bind(16, int64_t{cur.epochsDone})
      .bind(17, cur.bestMap50)
      .bind(18, cur.bestMap5095)
      .bind(19, int64_t{cur.bestEpoch})
      .bind(20, spsSum)
      .bind(21, spsCount)
      .bind(22, badLines)
      .bind(23, offset + static_cast<int64_t>(data.size()))
      .bind(24, lineNo)
      .bind(25, cur.host)
      .bind(26, cur.datasetHash)
      .bind(27, runId);
  if (upd.step() != SQLITE_DONE) return fail("cannot update run " + runDir.string());
  if (auto st = exec("COMMIT"); !st) {
    exec("ROLLBACK");
    return st.errors();
  }
  report.runsUpdated = 1;
  return report;
}

Result<IngestReport> Store::ingestRuns(const std::string& runsDir) {
  IngestReport total;
  std::error_code ec;
  if (!fs::is_directory(runsDir, ec)) return total;  // no runs yet
  std::vector<fs::path> dirs;
  for (fs::directory_iterator it(runsDir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory() && fs::exists(it->path() / "events.jsonl")) dirs.push_back(it->path());
  if (ec) return Error{runsDir, 0, "", "cannot list: " + ec.message()};
  std::sort(dirs.begin(), dirs.end());
  for (const auto& d : dirs) {
    auto r = ingestRun(d.string());
    if (!r) return r.errors();
    total.runsSeen += r->runsSeen;
    total.runsUpdated += r->runsUpdated;
    total.events += r->events;
    total.metricRows += r->metricRows;
    total.warnings.insert(total.warnings.end(), r->warnings.begin(), r->warnings.end());
  }
  return total;
}

std::vector<RunRecord> Store::runs() const {
  std::vector<RunRecord> out;
  Stmt q(m_db, (std::string("SELECT ") + kRunColumns +
                " FROM runs ORDER BY started DESC, name DESC")
                   .c_str());
  while (q.ok() && q.step() == SQLITE_ROW) out.push_back(readRun(q));
  return out;
}

Result<RunRecord> Store::findRun(const std::string& key) const {
  std::vector<RunRecord> matches;
  for (auto& r : runs()) {
    if (r.name == key || std::to_string(r.id) == key) return r;
    if (r.name.rfind(key, 0) == 0) matches.push_back(r);
  }
  if (matches.size() == 1) return matches[0];
  if (matches.empty()) return Error{m_path, 0, "run", "no run named '" + key + "'"};
  std::string names;
  for (const auto& m : matches) names += (names.empty() ? "" : ", ") + m.name;
  return Error{m_path, 0, "run", "'" + key + "' matches several runs: " + names};
}

std::vector<MetricPoint> Store::curve(int64_t runId, const std::string& key) const {
  std::vector<MetricPoint> out;
  Stmt q(m_db,
         "SELECT step, epoch, value, time FROM metrics WHERE run_id = ? AND key = ? "
         "AND value IS NOT NULL ORDER BY step, time");
  q.bind(1, runId).bind(2, key);
  while (q.ok() && q.step() == SQLITE_ROW)
    out.push_back({q.i64(0), static_cast<int>(q.i64(1)), q.f64(2), q.f64(3)});
  return out;
}

std::vector<std::string> Store::metricKeys(int64_t runId) const {
  std::vector<std::string> out;
  Stmt q(m_db, "SELECT DISTINCT key FROM metrics WHERE run_id = ? ORDER BY key");
  q.bind(1, runId);
  while (q.ok() && q.step() == SQLITE_ROW) out.push_back(q.text(0));
  return out;
}

Status Store::annotate(int64_t runId, const std::string* title,
                       const std::vector<std::string>* tags, const std::string* notes) {
  RunRecord r;
  {
    Stmt q(m_db, (std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?").c_str());
    q.bind(1, runId);
    if (q.step() != SQLITE_ROW) return Error{m_path, 0, "run", "no run with id " + std::to_string(runId)};
    r = readRun(q);
  }
  if (title) r.title = *title;
  if (tags) r.tags = *tags;
  if (notes) r.notes = *notes;
  // The run folder's copy first: if it cannot be written, the database is not changed either.
  std::error_code ec;
  if (fs::is_directory(r.dir, ec)) {
    const nlohmann::json j = {{"title", r.title}, {"tags", r.tags}, {"notes", r.notes}};
    if (auto st = writeFileAtomic((fs::path(r.dir) / kAnnotationsFile).string(), j.dump(2) + "\n");
        !st)
      return st;
  }
  Stmt u(m_db, "UPDATE runs SET title = ?, tags = ?, notes = ? WHERE id = ?");
  u.bind(1, r.title).bind(2, nlohmann::json(r.tags).dump()).bind(3, r.notes).bind(4, runId);
  if (u.step() != SQLITE_DONE)
    return Error{m_path, 0, "", sqliteMessage(m_db, sqlite3_errcode(m_db))};
  return Ok{};
}

Status Store::setTitle(int64_t runId, const std::string& title) {
  return annotate(runId, &title, nullptr, nullptr);
}

Status Store::setTags(int64_t runId, const std::vector<std::string>& tags) {
  return annotate(runId, nullptr, &tags, nullptr);
}

Status Store::setNotes(int64_t runId, const std::string& notes) {
  return annotate(runId, nullptr, nullptr, &notes);
}

std::vector<SamplePoint> Store::samples(int64_t runId, const std::string& key) const {
  std::vector<SamplePoint> out;
  Stmt q(m_db,
         "SELECT rank, time, value FROM samples WHERE run_id = ? AND key = ? AND value IS NOT NULL"
         " ORDER BY time");
  q.bind(1, runId).bind(2, key);
  while (q.ok() && q.step() == SQLITE_ROW)
    out.push_back({static_cast<int>(q.i64(0)), q.f64(1), q.f64(2)});
  return out;
}

std::vector<std::string> Store::sampleKeys(int64_t runId) const {
  std::vector<std::string> out;
  Stmt q(m_db, "SELECT DISTINCT key FROM samples WHERE run_id = ? ORDER BY key");
  q.bind(1, runId);
  while (q.ok() && q.step() == SQLITE_ROW) out.push_back(q.text(0));
  return out;
}

Status Store::removeRun(int64_t runId) {
  return exec("DELETE FROM runs WHERE id = " + std::to_string(runId));
}

void Store::limitPagesForTesting(int64_t pages) {
  exec("PRAGMA max_page_count = " + std::to_string(pages > 0 ? pages : 4294967294LL));
}

int64_t Store::pageCountForTesting() const {
  Stmt q(m_db, "PRAGMA page_count");
  return q.step() == SQLITE_ROW ? q.i64(0) : 0;
}

Result<std::unique_ptr<Store>> rebuildStore(const std::string& dbPath, const std::string& runsDir,
                                            IngestReport* report) {
  std::error_code ec;
  if (fs::exists(dbPath, ec)) {
    char stamp[32];
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    const std::string aside = dbPath + ".broken-" + stamp;
    fs::rename(dbPath, aside, ec);
    if (ec) return Error{dbPath, 0, "", "cannot move the old database aside: " + ec.message()};
    for (const char* suffix : {"-wal", "-shm"}) {
      std::error_code e2;
      if (fs::exists(dbPath + suffix, e2)) fs::rename(dbPath + suffix, aside + suffix, e2);
    }
  }
  auto store = Store::open(dbPath);
  if (!store) return store.errors();
  auto r = store.value()->ingestRuns(runsDir);
  if (!r) return r.errors();
  if (report) *report = r.value();
  return store;
}

std::vector<std::array<std::string, 3>> configDiff(const std::string& a, const std::string& b) {
  std::vector<std::array<std::string, 3>> out;
  const auto ja = nlohmann::json::parse(a, nullptr, false);
  const auto jb = nlohmann::json::parse(b, nullptr, false);
  if (!ja.is_object() || !jb.is_object()) return out;
  std::map<std::string, std::pair<std::string, std::string>> keys;
  for (auto it = ja.begin(); it != ja.end(); ++it) keys[it.key()].first = it.value().dump();
  for (auto it = jb.begin(); it != jb.end(); ++it) keys[it.key()].second = it.value().dump();
  for (const auto& [k, v] : keys)
    if (v.first != v.second) out.push_back({k, v.first, v.second});
  return out;
}

}  // namespace stave::store
