// Ingestion: a run folder's events.jsonl read incrementally (byte offsets kept per run, a
// half-written last line waited for, a replaced or truncated file read anew) into the store.
#include "core/store/store.h"
#include "core/store/store_sql.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <map>
#include <string_view>
#include <optional>
#include <thread>
#include <tuple>
#include <unordered_map>

#include "core/base/atomic_file.h"
#include "core/telemetry/event_dispatch.h"
#include "core/telemetry/events.h"

namespace fs = std::filesystem;

namespace stave::store {

using namespace sql;

namespace {

/// One line of events.jsonl, read.
struct Parsed {
  enum Kind { Blank, OtherRanksStep, Sample, Decoded } kind = Blank;
  telemetry::ScannedEvent scanned;                              ///< Sample
  std::optional<Result<telemetry::Event>> decoded;              ///< Decoded
  int rank = 0;                                                 ///< OtherRanksStep
  double samplesPerSec = 0;                                     ///< OtherRanksStep
};

Parsed parseLine(std::string_view line) {
  Parsed p;
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return p;
  // Steps of ranks other than 0 are most of a multi-GPU log and feed nothing here (curves
  // are rank 0's): recognised from the line's end without decoding it.
  if (const int rank = telemetry::otherRanksStep(line)) {
    p.kind = Parsed::OtherRanksStep;
    p.rank = rank;
    if (rank > 0) p.samplesPerSec = telemetry::stepSamplesPerSec(line);
    return p;
  }
  // The launcher's samples: their numbers read without a JSON tree (most of the rest).
  if (telemetry::isSampleType(telemetry::typeAtLineEnd(line)) && telemetry::scanEventLeaves(line, &p.scanned) && telemetry::isSampleType(p.scanned.type)) {
    p.kind = Parsed::Sample;
    return p;
  }
  p.kind = Parsed::Decoded;
  p.decoded.emplace(telemetry::decodeEvent(line));
  return p;
}

/// The launcher's samples of one ingestion, gathered into buckets of the finest level and
/// written (merged with what the database holds) at each flush, with the coarser levels.
class SampleBuckets {
 public:
  void add(const std::string& key, int rank, double time, double value) {
    if (!std::isfinite(value) || !std::isfinite(time)) return;
    auto [it, fresh] = m_ids.try_emplace(key, static_cast<int>(m_keys.size()));
    if (fresh) m_keys.push_back(key);
    const auto bucket = static_cast<int64_t>(std::floor(time / kSampleBucketSeconds[0]));
    // Samples come in time order: each (key, rank) has one open bucket, closed when the next
    // begins; the launcher's (rank -1) by key id, others in a map.
    Slot* slot = nullptr;
    if (rank == -1) {
      if (m_launcher.size() <= static_cast<size_t>(it->second)) m_launcher.resize(m_keys.size());
      slot = &m_launcher[static_cast<size_t>(it->second)];
    } else {
      slot = &m_ranks[{it->second, rank}];
    }
    if (slot->agg.n > 0 && slot->bucket != bucket) {
      m_done[Key{it->second, rank, slot->bucket}].merge(slot->agg);
      slot->agg = Agg{};
    }
    slot->bucket = bucket;
    slot->agg.add(value, time);
  }

  /// Writes what was gathered in the open transaction and forgets it; false on a database error.
  bool flush(sqlite3* db, int64_t runId) {
    for (size_t id = 0; id < m_launcher.size(); ++id) close(static_cast<int>(id), -1, m_launcher[id]);
    for (auto& [k, slot] : m_ranks) close(k.first, k.second, slot);
    if (m_done.empty()) return true;
    Stmt up(db,
            "INSERT INTO sample_buckets(run_id, key, rank, level, bucket, n, lo, hi, sum, tsum) "
            "VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO UPDATE SET n = n + excluded.n, "
            "lo = min(lo, excluded.lo), hi = max(hi, excluded.hi), sum = sum + excluded.sum, "
            "tsum = tsum + excluded.tsum");
    std::map<Key, Agg> levels[kSampleLevels];
    levels[0].swap(m_done);
    for (int l = 1; l < kSampleLevels; ++l) {
      const double ratio = kSampleBucketSeconds[l] / kSampleBucketSeconds[0];
      for (const auto& [k, a] : levels[0]) {
        const Key coarse{k.key, k.rank, static_cast<int64_t>(std::floor(k.bucket / ratio))};
        levels[l][coarse].merge(a);
      }
    }
    for (int l = 0; l < kSampleLevels; ++l) {
      for (const auto& [k, a] : levels[l]) {
        up.bind(1, runId).bind(2, m_keys[static_cast<size_t>(k.key)]).bind(3, int64_t{k.rank})
            .bind(4, int64_t{l}).bind(5, k.bucket).bind(6, a.n).bind(7, a.lo).bind(8, a.hi)
            .bind(9, a.sum).bind(10, a.tsum);
        const bool ok = up.step() == SQLITE_DONE;
        up.reset();
        if (!ok) return false;
      }
    }
    return true;
  }

 private:
  struct Key {
    int key;
    int rank;
    int64_t bucket;
    bool operator<(const Key& o) const {
      return std::tie(key, rank, bucket) < std::tie(o.key, o.rank, o.bucket);
    }
  };
  struct Agg {
    int64_t n = 0;
    double lo = 0, hi = 0, sum = 0, tsum = 0;
    void add(double v, double t) {
      lo = n == 0 ? v : std::min(lo, v);
      hi = n == 0 ? v : std::max(hi, v);
      ++n;
      sum += v;
      tsum += t;
    }
    void merge(const Agg& o) {
      if (o.n == 0) return;
      lo = n == 0 ? o.lo : std::min(lo, o.lo);
      hi = n == 0 ? o.hi : std::max(hi, o.hi);
      n += o.n;
      sum += o.sum;
      tsum += o.tsum;
    }
  };
  struct Slot {
    int64_t bucket = 0;
    Agg agg;
  };
  /// An open bucket is written as it is (the database merges it with the rest of the bucket
  /// that the next ingestion brings).
  void close(int key, int rank, Slot& slot) {
    if (slot.agg.n == 0) return;
    m_done[Key{key, rank, slot.bucket}].merge(slot.agg);
    slot.agg = Agg{};
  }
  std::unordered_map<std::string, int> m_ids;
  std::vector<std::string> m_keys;
  std::vector<Slot> m_launcher;
  std::map<std::pair<int, int>, Slot> m_ranks;
  std::map<Key, Agg> m_done;
};

}  // namespace

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

  if (auto st = exec("BEGIN IMMEDIATE"); !st) return st.errors();
  auto fail = [&](const std::string& what) -> Result<IngestReport> {
    const std::string msg = sqliteMessage(m_db, sqlite3_errcode(m_db));
    exec("ROLLBACK");
    return Error{m_path, 0, "", what + ": " + msg};
  };
  {
    // Another connection (the studio's other page, `stave-train history`) may have read on
    // while this one waited for the lock: start again from where it stopped, never twice.
    Stmt q(m_db, "SELECT id, ingested_bytes FROM runs WHERE dir = ?");
    q.bind(1, runDir.string());
    const bool found = q.step() == SQLITE_ROW;
    if (found != (runId != 0) || (found && (q.i64(0) != runId || q.i64(1) != offset))) {
      exec("ROLLBACK");
      return ingestRun(runDirIn);
    }
  }

  std::ifstream in(eventsPath, std::ios::binary);
  if (!in) {
    exec("ROLLBACK");
    return Error{eventsPath, 0, "", "cannot open"};
  }
  if (static_cast<int64_t>(size) < offset) {
    // The file is shorter than what was read: replaced (e.g. moved aside by exist_ok).
    report.warnings.push_back(eventsPath + ": shorter than before; read again from the start");
    offset = 0;
    lineNo = 0;
    if (runId != 0) {
      if (auto st = exec("DELETE FROM metrics WHERE run_id = " + std::to_string(runId) +
                         "; DELETE FROM events WHERE run_id = " + std::to_string(runId) +
                         "; DELETE FROM sample_buckets WHERE run_id = " + std::to_string(runId));
          !st) {
        exec("ROLLBACK");
        return st.errors();
      }
    }
  }
  in.seekg(offset);
  // What is read now: up to the size seen above (a run still writing is followed next time),
  // in chunks, so memory stays bounded whatever the log's size.
  const int64_t readable = static_cast<int64_t>(size) - offset;

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
  SampleBuckets buckets;
  // Every rank's latest samples/s, for the run's total at each of rank 0's steps (kept only
  // once every rank has been seen in this ingestion).
  std::map<int, double> rankSps;
  // What each event type adds to the run's row and curves (one handler per type).
  const auto addSampleLeaves = [&](const telemetry::Event& e) {
    std::vector<std::pair<std::string, double>> leaves;
    telemetry::flattenNumbers(e.data, "", leaves);
    for (const auto& [key, value] : leaves)
      if (key.compare(0, 4, "cpu/") != 0) buckets.add(key, e.rank, e.time, value);
  };
  telemetry::EventDispatch dispatch;
  dispatch
      .invalid([&](const telemetry::Event& e, const std::string& why) {
        ++badLines;
        report.warnings.push_back(eventsPath + ":" + std::to_string(lineNo) + ": " + e.type +
                                  " event skipped: " + why);
      })
      .on<telemetry::RunStartEvent>([&](const telemetry::Event& e, const telemetry::RunStartEvent& r) {
        rankSps.clear();  // a resume may have another number of ranks
        cur.configJson = r.config.dump();
        cur.configHash = hashHex(cur.configJson);
        cur.resolvedJson = r.resolved.is_object() ? r.resolved.dump() : std::string("{}");
        addToStory(cur.sessions, e.type);
        cur.dataset = r.dataset.yaml;
        cur.datasetHash = r.dataset.contentHash;
        cur.host = r.host;
        if (r.config.contains("model") && r.config["model"].is_string())
          cur.model = r.config["model"].get<std::string>();
        if (r.config.contains("imgsz") && r.config["imgsz"].is_number_integer())
          cur.imgsz = r.config["imgsz"].get<int64_t>();
        if (r.config.contains("batch") && r.config["batch"].is_number_integer())
          cur.batch = r.config["batch"].get<int64_t>();
        if (r.config.contains("epochs") && r.config["epochs"].is_number_integer())
          cur.epochs = static_cast<int>(r.config["epochs"].get<int64_t>());
        cur.worldSize = r.worldSize;
        cur.devices.clear();
        for (const auto& d : r.deviceNames) cur.devices += (cur.devices.empty() ? "" : ",") + d;
        if (auto v = r.versions.find("stave"); v != r.versions.end()) cur.version = v->second;
        if (cur.started == 0) cur.started = e.time;
        cur.status = "running";
        cur.finished = 0;
      })
      .on<telemetry::StepEvent>([&](const telemetry::Event& e, const telemetry::StepEvent& s) {
        if (e.rank != 0) return;  // curves are rank 0's; every rank's split is in events
        for (const auto& [key, value] : telemetry::metricsOf(s))
          ok = ok && putMetric(key, telemetry::globalStep(s), s.epoch, value, e.time);
        // The run's samples/s: one rank's own, or with several every rank's summed (what the
        // Run page shows), once every rank has been seen.
        rankSps[0] = s.samplesPerSec;
        double runSps = cur.worldSize > 1 ? std::nan("") : s.samplesPerSec;
        if (cur.worldSize > 1 && static_cast<int>(rankSps.size()) >= cur.worldSize) {
          double total = 0;
          for (const auto& [r, v] : rankSps) total += v;
          if (std::isfinite(total))
            ok = ok && putMetric(kTotalSamplesPerSecKey, telemetry::globalStep(s), s.epoch, total, e.time);
          runSps = total;
        }
        if (std::isfinite(runSps) && runSps > 0) {
          spsSum += runSps;
          ++spsCount;
        }
      })
      .on<telemetry::EpochEndEvent>([&](const telemetry::Event& e, const telemetry::EpochEndEvent& s) {
        for (const auto& [key, value] : telemetry::metricsOf(s)) ok = ok && putMetric(key, s.epoch, s.epoch, value, e.time);
        cur.epochs = s.epochs;
        cur.epochsDone = std::max(cur.epochsDone, s.epoch + 1);
      })
      .on<telemetry::ValidationEvent>([&](const telemetry::Event& e, const telemetry::ValidationEvent& v) {
        for (const auto& [key, value] : telemetry::metricsOf(v)) ok = ok && putMetric(key, v.epoch, v.epoch, value, e.time);
        if (std::isfinite(v.map5095) && (cur.bestEpoch < 0 || v.map5095 > cur.bestMap5095)) {
          cur.bestMap5095 = v.map5095;
          cur.bestMap50 = std::isfinite(v.map50) ? v.map50 : 0.0;
          cur.bestEpoch = v.epoch;
        }
      })
      .on<telemetry::FinishedEvent>([&](const telemetry::Event& e, const telemetry::FinishedEvent& f) {
        cur.status = telemetry::toString(f.status);
        cur.message = f.message;
        cur.finished = e.time;
        addToStory(cur.sessions, e.type, cur.status);
        cur.epochs = f.epochs;
        cur.epochsDone = std::max(cur.epochsDone, f.epochsCompleted);
      })
      .otherwise([&](const telemetry::Event& e) {
        if (telemetry::isSampleType(e.type)) addSampleLeaves(e);  // gpu_sample, system_sample, ...
      })
      .on<telemetry::ErrorEvent>([&](const telemetry::Event& e, const telemetry::ErrorEvent& f) {
        if (cur.finished != 0) return;
        cur.message = f.message;
        cur.status = "failed";
        addToStory(cur.sessions, e.type);
      });
  // A line is first read (parse: no shared state, so two threads share a chunk's lines), then
  // applied in file order (apply: the database and the run's fields).
  const auto apply = [&](std::string_view line, Parsed& parsed) {
    ++lineNo;
    if (parsed.kind == Parsed::Blank) return;
    if (parsed.kind == Parsed::OtherRanksStep) {
      ++report.events;
      if (parsed.rank > 0) rankSps[parsed.rank] = parsed.samplesPerSec;
      return;
    }
    if (parsed.kind == Parsed::Sample) {
      ++report.events;
      cur.lastEvent = std::max(cur.lastEvent, parsed.scanned.time);
      for (const auto& [key, value] : parsed.scanned.leaves)
        if (key.compare(0, 4, "cpu/") != 0) buckets.add(key, parsed.scanned.rank, parsed.scanned.time, value);
      return;
    }
    auto& decoded = *parsed.decoded;
    if (!decoded) {
      ++badLines;
      report.warnings.push_back(eventsPath + ":" + std::to_string(lineNo) +
                                ": skipped: " + decoded.errorText());
      return;
    }
    const telemetry::Event& e = decoded.value();
    // The high-rate events are not copied (events.jsonl keeps them).
    if (!telemetry::isHighRateType(e.type)) {
      event.bind(1, runId).bind(2, lineNo).bind(3, e.type).bind(4, int64_t{e.rank}).bind(5, e.time)
          .bind(6, std::string(line));
      ok = event.step() == SQLITE_DONE;
      event.reset();
    }
    ++report.events;
    cur.lastEvent = std::max(cur.lastEvent, e.time);
    dispatch(e);
  };
  // Whole lines only, chunk by chunk; a half-written last line is left for the next call.
  constexpr int64_t kChunk = 16 << 20;
  std::string carry, chunk;
  int64_t consumed = 0, left = readable;
  while (ok && left > 0) {
    chunk.resize(static_cast<size_t>(std::min(kChunk, left)));
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const auto got = static_cast<int64_t>(in.gcount());
    if (got <= 0) break;
    chunk.resize(static_cast<size_t>(got));
    left -= got;
    carry += chunk;
    size_t pos = 0;
    std::vector<std::string_view> lines;
    for (size_t nl; (nl = carry.find('\n', pos)) != std::string::npos; pos = nl + 1)
      lines.push_back(std::string_view(carry).substr(pos, nl - pos));
    std::vector<Parsed> parsed(lines.size());
    const size_t half = lines.size() / 2;
    std::thread second([&] {
      for (size_t i = half; i < lines.size(); ++i) parsed[i] = parseLine(lines[i]);
    });
    for (size_t i = 0; i < half; ++i) parsed[i] = parseLine(lines[i]);
    second.join();
    for (size_t i = 0; ok && i < lines.size(); ++i) apply(lines[i], parsed[i]);
    consumed += static_cast<int64_t>(pos);
    carry.erase(0, pos);
    ok = ok && buckets.flush(m_db, runId);
    if (ok && left > 0 && stopRequested()) {  // what was read is committed; the next call goes on
      report.stopped = true;
      break;
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
      .bind(23, offset + consumed)
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
    if (r->stopped || stopRequested()) {
      total.stopped = true;
      break;
    }
  }
  return total;
}

}  // namespace stave::store
