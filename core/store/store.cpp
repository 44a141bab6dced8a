#include "core/store/store.h"
#include "core/store/store_sql.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/base/atomic_file.h"
#include <map>

#include "core/telemetry/events.h"

namespace fs = std::filesystem;

namespace stave::store {

using namespace sql;

namespace {

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

// Version 3: what each run trained with where the config leaves it to Stave (run_start's
// `resolved`), and its story (one status per process that trained it: resumes, crashes).
constexpr const char* kSchemaV3 = R"sql(
ALTER TABLE runs ADD COLUMN resolved_json TEXT NOT NULL DEFAULT '{}';
ALTER TABLE runs ADD COLUMN sessions TEXT NOT NULL DEFAULT '[]';
)sql";

// Version 6: the run's message as catalog messages (events.md), for the studio's language.
constexpr const char* kSchemaV6 = R"sql(
ALTER TABLE runs ADD COLUMN message_text TEXT NOT NULL DEFAULT '[]';
)sql";

// Version 4, for runs of a day or more: the launcher's samples as min / max / mean per time
// bucket at three resolutions (kSampleLevels) instead of one row per value, and no copy of the
// high-rate events (step, *_sample) in `events`: events.jsonl keeps them.
constexpr const char* kSchemaV4 = R"sql(
CREATE TABLE sample_buckets (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  rank INTEGER NOT NULL,
  level INTEGER NOT NULL,
  bucket INTEGER NOT NULL,
  n INTEGER NOT NULL,
  lo REAL NOT NULL,
  hi REAL NOT NULL,
  sum REAL NOT NULL,
  tsum REAL NOT NULL,
  PRIMARY KEY (run_id, key, rank, level, bucket)
) WITHOUT ROWID;
)sql";

}  // namespace

void addToStory(std::vector<std::string>& sessions, const std::string& type,
                const std::string& finishedStatus) {
  namespace et = telemetry::event_type;
  if (type == et::kRunStart) {
    if (!sessions.empty() && sessions.back() == "running") sessions.back() = "crashed";
    sessions.push_back("running");
  } else if (type == et::kFinished) {
    if (sessions.empty()) sessions.push_back("running");
    sessions.back() = finishedStatus;
  } else if (type == et::kError) {
    if (!sessions.empty() && sessions.back() == "running") sessions.back() = "failed";
  }
}

std::string sessionsJson(const RunRecord& run) {
  auto out = nlohmann::json::array();
  for (size_t i = 0; i < run.sessions.size(); ++i) {
    if (i >= run.sessionTimes.size()) {
      out.push_back(run.sessions[i]);
      continue;
    }
    const SessionTime& t = run.sessionTimes[i];
    out.push_back({{"status", run.sessions[i]}, {"train_s", t.train}, {"val_s", t.val}, {"wall_s", t.wall}});
  }
  return out.dump();
}

std::string Store::defaultPath(const std::string& projectDir) {
  return (fs::path(projectDir) / "stave.db").string();
}

Status Store::exec(const std::string& sql) {
  char* err = nullptr;
  const int rc = sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &err);
  if (rc == SQLITE_OK) return Ok{};
  std::string msg = err ? err : sqlite3_errstr(rc);
  sqlite3_free(err);
  if (rc == SQLITE_FULL) return textError(m_path, 0, "", Text("store.disk_full", {{"reason", msg}}));
  return Error{m_path, 0, "", msg};
}

namespace {

/// Whether opening failed only because another connection held the file a moment (SQLite's
/// "database is locked", which a new file's first WAL set-up can return at once, without waiting
/// in the busy handler, while another connection sets the file up).
bool lockedNow(const Result<std::unique_ptr<Store>>& r) {
  if (r.ok()) return false;
  for (const auto& e : r.errors())
    if (e.message.find(sqlite3_errstr(SQLITE_BUSY)) != std::string::npos ||
        e.message.find(sqlite3_errstr(SQLITE_LOCKED)) != std::string::npos)
      return true;
  return false;
}

}  // namespace

Result<std::unique_ptr<Store>> Store::open(const std::string& dbPath) {
  // Tried again for up to the busy timeout (5 s) while another connection holds the file: the
  // studio's History page and Run page may open a project's new store at the same moment.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (;;) {
    auto r = openOnce(dbPath);
    if (!lockedNow(r) || std::chrono::steady_clock::now() >= until) return r;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

Result<std::unique_ptr<Store>> Store::openOnce(const std::string& dbPath) {
  std::error_code ec;
  if (fs::is_directory(dbPath, ec)) return textError(dbPath, 0, "", Text("store.is_folder"));
  std::unique_ptr<Store> s(new Store);
  s->m_path = dbPath;
  int rc = sqlite3_open_v2(dbPath.c_str(), &s->m_db,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                           nullptr);
  if (rc != SQLITE_OK)
    return textError(dbPath, 0, "", Text("store.cannot_open", {{"reason", sqliteText(s->m_db, rc)}}));
  s->setBusyTimeout(5000);
  // The first real read tells whether this is an SQLite file at all.
  int version = 0;
  {
    Stmt v(s->m_db, "PRAGMA user_version");
    if (!v.ok() || v.step() != SQLITE_ROW) {
      const int code = sqlite3_errcode(s->m_db);
      return textError(dbPath, 0, "", sqliteText(s->m_db, code));
    }
    version = static_cast<int>(v.i64(0));
  }
  if (version < 0)
    return textError(dbPath, 0, "user_version",
                     Text("store.schema_negative", {{"version", std::to_string(version)}}));
  if (version > kSchemaVersion) {
    return textError(dbPath, 0, "",
                     Text("store.schema_newer", {{"version", std::to_string(version)},
                                                 {"supported", std::to_string(kSchemaVersion)}}));
  }
  // The whole-file check reads every page: done for files up to kFullCheckBytes (a minute for
  // the database of a few day-long runs otherwise, at every start). A larger file is checked
  // page by page as it is read: SQLite reports a damaged page as SQLITE_CORRUPT, and the
  // message names the file and the way out (sqliteMessage).
  constexpr std::uintmax_t kFullCheckBytes = 64ull << 20;
  const auto bytes = fs::file_size(dbPath, ec);
  if (version > 0 && !ec && bytes <= kFullCheckBytes) {
    Stmt check(s->m_db, "PRAGMA integrity_check(1)");
    if (!check.ok() || check.step() != SQLITE_ROW || check.text(0) != "ok") {
      return textError(dbPath, 0, "",
                       Text("store.corrupt", {{"reason", check.ok() ? check.text(0)
                                                                     : std::string(sqlite3_errmsg(s->m_db))}}));
    }
  }
  // Pages mapped rather than read (a refresh touches a few pages of a large file), and a
  // cache that holds the index pages an ingestion walks.
  if (auto st = s->exec("PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON; PRAGMA mmap_size=268435456; "
                        "PRAGMA cache_size=-32768;");
      !st)
    return st.errors();
  if (version < kSchemaVersion) {
    // Migrations run in one transaction: a database is either at the old or the new version.
    if (auto st = s->exec("BEGIN IMMEDIATE"); !st) return st.errors();
    // The version again, now that this connection holds the write lock: two connections that
    // opened a new file at once (History's ingest and the Run page's) both read 0, and the one
    // that waited must not create the tables the other has just made ("table runs already
    // exists").
    {
      Stmt v(s->m_db, "PRAGMA user_version");
      if (!v.ok() || v.step() != SQLITE_ROW) {
        const int code = sqlite3_errcode(s->m_db);
        s->exec("ROLLBACK");
        return textError(dbPath, 0, "", sqliteText(s->m_db, code));
      }
      version = static_cast<int>(v.i64(0));
    }
    if (version > kSchemaVersion) {
      s->exec("ROLLBACK");
      return textError(dbPath, 0, "",
                       Text("store.schema_newer", {{"version", std::to_string(version)},
                                                   {"supported", std::to_string(kSchemaVersion)}}));
    }
    Status st = Ok{};
    if (version < 1) st = s->exec(kSchemaV1);
    if (st && version < 2) st = s->migrateToV2();
    if (st && version < 3) st = s->migrateToV3();
    if (st && version < 4) st = s->migrateToV4();
    if (st && version < 5) st = s->migrateToV5();
    if (st && version < 6) st = s->migrateToV6();
    if (st && version < kSchemaVersion)
      st = s->exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
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

Status Store::migrateToV3() {
  if (auto st = exec(kSchemaV3); !st) return st;
  // The raw events of older databases hold run_start's `resolved` and each session's end.
  std::map<int64_t, std::pair<std::string, std::vector<std::string>>> runs;
  Stmt q(m_db,
         "SELECT run_id, type, json FROM events WHERE type IN ('run_start', 'finished', 'error') "
         "ORDER BY run_id, line");
  while (q.ok() && q.step() == SQLITE_ROW) {
    auto& [resolved, sessions] = runs[q.i64(0)];
    auto decoded = telemetry::decodeEvent(q.text(2));
    if (!decoded) continue;
    const telemetry::Event& e = decoded.value();
    std::string status;
    if (e.type == telemetry::event_type::kRunStart) {
      if (auto r = telemetry::runStartFromEvent(e); r && !r->resolved.empty())
        resolved = r->resolved.dump();
    } else if (e.type == telemetry::event_type::kFinished) {
      auto f = telemetry::finishedFromEvent(e);
      if (!f) continue;
      status = telemetry::toString(f->status);
    }
    addToStory(sessions, e.type, status);
  }
  Stmt upd(m_db, "UPDATE runs SET resolved_json = ?, sessions = ? WHERE id = ?");
  for (const auto& [id, v] : runs) {
    upd.bind(1, v.first.empty() ? std::string("{}") : v.first)
        .bind(2, nlohmann::json(v.second).dump())
        .bind(3, id);
    if (upd.step() != SQLITE_DONE) return Error{m_path, 0, "", sqlite3_errmsg(m_db)};
    upd.reset();
  }
  return Ok{};
}

Status Store::migrateToV4() {
  if (auto st = exec(kSchemaV4); !st) return st;
  // The version-2/3 sample rows become buckets; the high-rate raw events go (events.jsonl
  // keeps them). Per-core CPU values are not kept (docs/history.md).
  for (int level = 0; level < kSampleLevels; ++level) {
    const std::string width = std::to_string(kSampleBucketSeconds[level]);
    if (auto st = exec("INSERT INTO sample_buckets SELECT run_id, key, rank, " + std::to_string(level) +
                       ", CAST(time / " + width + " AS INTEGER), count(*), min(value), max(value), "
                       "sum(value), sum(time) FROM samples WHERE value IS NOT NULL AND key NOT LIKE 'cpu/%' "
                       "GROUP BY run_id, key, rank, CAST(time / " + width + " AS INTEGER)");
        !st)
      return st;
  }
  return exec("DROP TABLE samples; DELETE FROM events WHERE type = 'step' OR type LIKE '%\\_sample' ESCAPE '\\'");
}

Status Store::migrateToV5() {
  // Config hashes were FNV-1a; they are now the one content hash of Stave (hashHex), so runs
  // ingested before and after group together.
  std::vector<std::pair<int64_t, std::string>> rows;
  {
    Stmt q(m_db, "SELECT id, config_json FROM runs");
    if (!q.ok()) return Error{m_path, 0, "", sqlite3_errmsg(m_db)};
    while (q.step() == SQLITE_ROW) rows.emplace_back(q.i64(0), q.text(1));
  }
  Stmt u(m_db, "UPDATE runs SET config_hash=? WHERE id=?");
  for (const auto& [id, json] : rows) {
    u.reset();
    u.bind(1, hashHex(json)).bind(2, id);
    if (u.step() != SQLITE_DONE) return Error{m_path, 0, "", sqlite3_errmsg(m_db)};
  }
  return Ok{};
}

Status Store::migrateToV6() {
  return exec(kSchemaV6);
}

Store::~Store() {
  if (m_db) sqlite3_close_v2(m_db);
}
Result<int> Store::settleEndedRuns(
    const std::function<bool(const std::string& runDir)>& holdsFolder) {
  std::vector<RunRecord> ended;
  {
    Stmt q(m_db,
           ("SELECT " + runColumns() + " FROM runs WHERE status = 'running'").c_str());
    while (q.ok() && q.step() == SQLITE_ROW) {
      RunRecord r = readRun(q);
      if (!holdsFolder(r.dir)) ended.push_back(std::move(r));
    }
  }
  Stmt upd(m_db,
           "UPDATE runs SET status = 'crashed', message = ?, sessions = ?, message_text = ? WHERE "
           "id = ? AND status = 'running'");
  for (RunRecord& r : ended) {
    if (r.sessions.empty()) r.sessions.push_back("running");
    if (r.sessions.back() == "running") r.sessions.back() = "crashed";
    const TextParts text{Text("history.ended_without_final", {{"done", std::to_string(r.epochsDone)},
                                                               {"epochs", std::to_string(r.epochs)}})};
    upd.bind(1, english(text))
        .bind(2, sessionsJson(r))
        .bind(3, telemetry::textToJson(text).dump())
        .bind(4, r.id);
    if (upd.step() != SQLITE_DONE) return Error{m_path, 0, "", sqlite3_errmsg(m_db)};
    upd.reset();
  }
  return static_cast<int>(ended.size());
}

std::vector<RunRecord> Store::runs() const {
  std::vector<RunRecord> out;
  Stmt q(m_db, ("SELECT " + runColumns() +
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

void Store::setBusyTimeout(int ms) {
  m_busyMs = ms;
  sqlite3_busy_handler(m_db, &Store::onBusy, this);
}

int Store::onBusy(void* self, int tries) {
  // Waits for another connection's lock in steps of 10 ms, up to the busy timeout; a stop
  // request ends the wait (SQLITE_BUSY).
  auto* s = static_cast<Store*>(self);
  if (s->stopRequested() || static_cast<int64_t>(tries) * 10 >= s->m_busyMs) return 0;
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return 1;
}

void Store::setStopFlag(const std::atomic<bool>* stop) { m_stop = stop; }

void Store::setMemory(int64_t mmapBytes, int64_t cacheBytes) {
  exec("PRAGMA mmap_size=" + std::to_string(std::max<int64_t>(0, mmapBytes)) +
       "; PRAGMA cache_size=-" + std::to_string(std::max<int64_t>(1024, cacheBytes) / 1024));
}

Result<RunRecord> Store::runByDir(const std::string& runDir) const {
  const std::string dir = fs::absolute(runDir).lexically_normal().string();
  Stmt q(m_db, ("SELECT " + runColumns() + " FROM runs WHERE dir = ?").c_str());
  q.bind(1, dir);
  if (q.ok() && q.step() == SQLITE_ROW) return readRun(q);
  return Error{m_path, 0, "run", "no run stored for " + dir};
}

std::vector<StoredEvent> Store::events(int64_t runId) const {
  std::vector<StoredEvent> out;
  Stmt q(m_db, "SELECT line, json FROM events WHERE run_id = ? ORDER BY line");
  q.bind(1, runId);
  while (q.ok() && q.step() == SQLITE_ROW) out.push_back({q.i64(0), q.text(1)});
  return out;
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

double Store::itersPerEpoch(int64_t runId) const {
  // The first step of a later epoch tells (an index seek); else the steps of the one epoch.
  Stmt q(m_db,
         "SELECT step, epoch FROM metrics WHERE run_id = ? AND key = 'step/box_loss' AND epoch > 0 "
         "ORDER BY step LIMIT 1");
  q.bind(1, runId);
  if (q.ok() && q.step() == SQLITE_ROW && q.i64(1) > 0) return static_cast<double>(q.i64(0)) / static_cast<double>(q.i64(1));
  Stmt m(m_db, "SELECT MAX(step) FROM metrics WHERE run_id = ? AND key = 'step/box_loss'");
  m.bind(1, runId);
  if (m.ok() && m.step() == SQLITE_ROW && !m.isNull(0)) return static_cast<double>(m.i64(0) + 1);
  return 0;
}

std::vector<std::string> Store::metricKeys(int64_t runId) const {
  std::vector<std::string> out;
  // One index seek per key (a skip scan), not a read of the run's every row: a day-long run
  // has a million (a DISTINCT took ~110 ms, on the GUI thread when History selects a run).
  Stmt q(m_db,
         "WITH RECURSIVE k(key) AS (SELECT MIN(key) FROM metrics WHERE run_id = ?1 UNION ALL "
         "SELECT (SELECT MIN(key) FROM metrics WHERE run_id = ?1 AND key > k.key) FROM k "
         "WHERE k.key IS NOT NULL) SELECT key FROM k WHERE key IS NOT NULL");
  q.bind(1, runId);
  while (q.ok() && q.step() == SQLITE_ROW) out.push_back(q.text(0));
  return out;
}

Status Store::annotate(int64_t runId, const std::string* title,
                       const std::vector<std::string>* tags, const std::string* notes) {
  RunRecord r;
  {
    Stmt q(m_db, ("SELECT " + runColumns() + " FROM runs WHERE id = ?").c_str());
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

std::vector<SamplePoint> Store::samples(int64_t runId, const std::string& key, int maxPoints,
                                       double from, double to) const {
  // The finest level that draws the range in at most maxPoints points per rank.
  int level = 0;
  if (maxPoints > 0) {
    Stmt span(m_db, "SELECT min(tsum / n), max(tsum / n) FROM sample_buckets WHERE run_id = ? AND key = ? AND level = 0");
    span.bind(1, runId).bind(2, key);
    if (span.step() == SQLITE_ROW) {
      const double lo = std::max(from, span.f64(0)), hi = std::min(to, span.f64(1));
      while (level + 1 < kSampleLevels && (hi - lo) / kSampleBucketSeconds[level] > maxPoints) ++level;
    }
  }
  std::vector<SamplePoint> out;
  Stmt q(m_db,
         "SELECT rank, tsum / n, sum / n, lo, hi, n FROM sample_buckets WHERE run_id = ? AND key = ? "
         "AND level = ? AND bucket >= ? AND bucket <= ? ORDER BY bucket, rank");
  const double width = kSampleBucketSeconds[level];
  const auto bucketOf = [width](double t) {
    return static_cast<int64_t>(std::clamp(std::floor(t / width), -9e15, 9e15));
  };
  q.bind(1, runId).bind(2, key).bind(3, int64_t{level}).bind(4, bucketOf(from)).bind(5, bucketOf(to));
  while (q.ok() && q.step() == SQLITE_ROW) {
    SamplePoint p;
    p.rank = static_cast<int>(q.i64(0));
    p.time = q.f64(1);
    p.value = q.f64(2);
    p.lo = q.f64(3);
    p.hi = q.f64(4);
    p.count = q.i64(5);
    out.push_back(p);
  }
  return out;
}

std::vector<std::string> Store::sampleKeys(int64_t runId) const {
  std::vector<std::string> out;
  Stmt q(m_db, "SELECT DISTINCT key FROM sample_buckets WHERE run_id = ? AND level = ? ORDER BY key");
  q.bind(1, runId).bind(2, int64_t{kSampleLevels - 1});
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
