#pragma once
// Internal to core/store: what the store's files share (prepared statements, SQLite's error
// text, one run's row). Not a public header: include it only from core/store/*.cpp.

#include <sqlite3.h>

#include <cmath>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "core/base/hash.h"
#include "core/store/store.h"
#include "core/telemetry/events.h"

namespace stave::store::sql {

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
  bool isNull(int c) const { return sqlite3_column_type(m_stmt, c) == SQLITE_NULL; }
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


/// sqliteMessage as catalog messages (SQLite's own words stay English: an argument).
inline TextParts sqliteText(sqlite3* db, int rc) {
  const std::string raw = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  TextParts m{Text("plain", {{"text", raw}})};
  if (rc == SQLITE_NOTADB) m = {Text("store.not_sqlite", {{"reason", raw}})};
  if (rc == SQLITE_FULL) m = {Text("store.disk_full", {{"reason", raw}})};
  if ((rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB) m.push_back(Text("store.rebuild"));
  if (rc == SQLITE_READONLY || rc == SQLITE_CANTOPEN) m.push_back(Text("store.writable"));
  return m;
}
inline std::string sqliteMessage(sqlite3* db, int rc) { return english(sqliteText(db, rc)); }

/// One run's columns read from a query of "SELECT <kRunColumns> FROM runs".
inline constexpr const char* kRunColumns =
    "id, name, dir, status, message, config_json, config_hash, dataset, model, imgsz, batch, "
    "world_size, devices, version, started, finished, last_event, epochs, epochs_done, "
    "best_map50, best_map5095, best_epoch, sps_sum, sps_count, tags, notes, bad_lines, "
    "ingested_bytes, title, host, dataset_hash, resolved_json, sessions, ingested_lines, "
    "message_text";

inline RunRecord readRun(const Stmt& s) {
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
  r.resolvedJson = s.text(31);
  // The message's catalog form; a damaged one leaves the English alone.
  const auto messageText = nlohmann::json::parse(s.text(34), nullptr, false);
  if (!messageText.is_discarded() && !messageText.empty())
    if (auto text = telemetry::textFromJson(messageText)) r.messageText = std::move(text.value());
  const auto sessions = nlohmann::json::parse(s.text(32), nullptr, false);
  if (sessions.is_array())
    for (const auto& t : sessions) {
      if (t.is_string()) {
        r.sessions.push_back(t.get<std::string>());
      } else if (t.is_object() && t.contains("status") && t["status"].is_string()) {
        r.sessions.push_back(t["status"].get<std::string>());
        const auto num = [&t](const char* key) {
          return t.contains(key) && t[key].is_number() ? t[key].get<double>() : -1.0;
        };
        r.sessionTimes.resize(r.sessions.size());
        r.sessionTimes.back() = SessionTime{num("train_s"), num("val_s"), num("wall_s")};
      }
    }
  r.ingestedLines = s.i64(33);
  return r;
}

}  // namespace stave::store::sql
