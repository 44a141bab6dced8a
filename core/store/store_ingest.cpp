// Ingestion: a run folder's events.jsonl read incrementally (byte offsets kept per run, a
// half-written last line waited for, a replaced or truncated file read anew) into the store.
#include "core/store/store.h"
#include "core/store/store_sql.h"

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

using namespace sql;

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
  if (offset == 0) cur.sessions.clear();  // read from the start: the story is told again
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
      cur.resolvedJson = r->resolved.is_object() ? r->resolved.dump() : std::string("{}");
      addToStory(cur.sessions, e.type);
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
      addToStory(cur.sessions, e.type, cur.status);
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
        addToStory(cur.sessions, e.type);
      }
    }
  }
  if (!ok) return fail("cannot store the events of " + eventsPath);

  Stmt upd(m_db,
           "UPDATE runs SET status=?, message=?, config_json=?, config_hash=?, dataset=?, model=?,"
           " imgsz=?, batch=?, world_size=?, devices=?, version=?, started=?, finished=?,"
           " last_event=?, epochs=?, epochs_done=?, best_map50=?, best_map5095=?, best_epoch=?,"
           " sps_sum=?, sps_count=?, bad_lines=?, ingested_bytes=?, ingested_lines=?, host=?,"
           " dataset_hash=?, resolved_json=?, sessions=? WHERE id=?");
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
      .bind(27, cur.resolvedJson.empty() ? std::string("{}") : cur.resolvedJson)
      .bind(28, nlohmann::json(cur.sessions).dump())
      .bind(29, runId);
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

}  // namespace stave::store
