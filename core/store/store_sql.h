#pragma once
// Internal to core/store: what the store's files share (prepared statements, SQLite's error
// text, one run's row). Not a public header: include it only from core/store/*.cpp.

#include <sqlite3.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "core/base/hash.h"
#include "core/config/member_table.h"
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
  /// The index of the result column named `name`; a name the query does not select is a
  /// broken invariant (the query and its reader disagree).
  int column(const char* name) const {
    const int n = sqlite3_column_count(m_stmt);
    for (int c = 0; c < n; ++c)
      if (std::strcmp(sqlite3_column_name(m_stmt, c), name) == 0) return c;
    STAVE_CHECK(false, "the query has no column '" << name << "'");
    return -1;
  }
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

/// The runs table's columns that hold a RunRecord member as it is, by column name (SQLite's
/// integer, real and text: int and int64_t, double, std::string members).
inline const config::MemberTable<RunRecord>& runColumnTable() {
  using R = RunRecord;
  static const config::MemberTable<R> table{
      {"id", &R::id},
      {"name", &R::name},
      {"dir", &R::dir},
      {"status", &R::status},
      {"message", &R::message},
      {"config_json", &R::configJson},
      {"config_hash", &R::configHash},
      {"dataset", &R::dataset},
      {"model", &R::model},
      {"imgsz", &R::imgsz},
      {"batch", &R::batch},
      {"world_size", &R::worldSize},
      {"devices", &R::devices},
      {"version", &R::version},
      {"started", &R::started},
      {"finished", &R::finished},
      {"last_event", &R::lastEvent},
      {"epochs", &R::epochs},
      {"epochs_done", &R::epochsDone},
      {"best_map50", &R::bestMap50},
      {"best_map5095", &R::bestMap5095},
      {"best_epoch", &R::bestEpoch},
      {"notes", &R::notes},
      {"bad_lines", &R::badLines},
      {"ingested_bytes", &R::ingestedBytes},
      {"title", &R::title},
      {"host", &R::host},
      {"dataset_hash", &R::datasetHash},
      {"resolved_json", &R::resolvedJson},
      {"ingested_lines", &R::ingestedLines},
  };
  return table;
}

/// The runs table's columns that readRun() converts by hand (a mean from a sum and a count,
/// JSON lists and the message's catalog form).
inline constexpr const char* kRunConvertedColumns[] = {"sps_sum", "sps_count", "tags", "sessions",
                                                       "message_text"};

/// The column list of a query whose rows readRun() reads: "SELECT " + runColumns() + " FROM
/// runs ...".
inline const std::string& runColumns() {
  static const std::string columns = [] {
    // The table is fixed at compile time: a key twice would read one column into two members.
    STAVE_CHECK(config::memberTableProblems(runColumnTable()).empty(), "runColumnTable is unsound");
    std::string c;
    for (const auto& f : runColumnTable()) c += (c.empty() ? "" : ", ") + std::string(f.key);
    for (const char* name : kRunConvertedColumns) c += std::string(", ") + name;
    return c;
  }();
  return columns;
}

/// One run from the current row of a query of "SELECT <runColumns()> FROM runs", each column
/// found by its name.
inline RunRecord readRun(const Stmt& s) {
  RunRecord r;
  using Field = config::MemberField<RunRecord>;
  config::forEachMember(runColumnTable(), [&](const Field& f, auto member) {
    using M = std::remove_reference_t<decltype(r.*member)>;
    const int c = s.column(f.key);
    if constexpr (std::is_same_v<M, std::string>)
      r.*member = s.text(c);
    else if constexpr (std::is_same_v<M, double>)
      r.*member = s.f64(c);
    else if constexpr (std::is_integral_v<M> && !std::is_same_v<M, bool>)
      r.*member = static_cast<M>(s.i64(c));
    else
      STAVE_CHECK(false, std::string("run column '") + f.key + "' has no SQLite type");
  });
  const int64_t n = s.i64(s.column("sps_count"));
  r.samplesPerSec = n > 0 ? s.f64(s.column("sps_sum")) / static_cast<double>(n) : 0.0;
  const auto tags = nlohmann::json::parse(s.text(s.column("tags")), nullptr, false);
  if (tags.is_array())
    for (const auto& t : tags)
      if (t.is_string()) r.tags.push_back(t.get<std::string>());
  // The message's catalog form; a damaged one leaves the English alone.
  const auto messageText = nlohmann::json::parse(s.text(s.column("message_text")), nullptr, false);
  if (!messageText.is_discarded() && !messageText.empty())
    if (auto text = telemetry::textFromJson(messageText)) r.messageText = std::move(text.value());
  const auto sessions = nlohmann::json::parse(s.text(s.column("sessions")), nullptr, false);
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
  return r;
}

}  // namespace stave::store::sql
