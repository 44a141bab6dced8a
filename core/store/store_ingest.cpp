// Ingestion: a run folder's events.jsonl read incrementally (byte offsets kept per run, a
// half-written last line waited for, a replaced or truncated file read anew) into the store.
#include "core/store/sample_buckets.h"
#include "core/store/store.h"
#include "core/store/store_sql.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <thread>

#include "core/base/atomic_file.h"
#include "core/base/bounded_read.h"
#include "core/config/json_read.h"
#include "core/telemetry/event_dispatch.h"
#include "core/telemetry/events.h"

namespace fs = std::filesystem;

namespace stave::store {

using namespace sql;

namespace {

// Why an event cannot be read, as the catalog's messages where the decoder gives them (the
// studio shows the warning in its language), else in English.
Text::Arg reasonArg(const std::vector<Error>& why) {
  TextParts text = textOfErrors(why);
  if (text.empty()) text = {Text("plain", {{"text", joinErrors(why)}})};
  return Text::Arg("reason", std::move(text));
}

/// One line of events.jsonl, read.
struct Parsed {
  enum Kind { Blank, OtherRanksStep, Sample, Decoded } kind = Blank;
  telemetry::ScannedEvent scanned;                              ///< Sample
  std::optional<Result<telemetry::Event>> decoded;              ///< Decoded
  int rank = 0;                                                 ///< OtherRanksStep
  double samplesPerSec = 0;                                     ///< OtherRanksStep
};

Parsed parseLineUnguarded(std::string_view line) {
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

/// One line, read; whatever the reading throws (a JSON error, no memory) makes it a bad line,
/// never an exception out of the reading thread (which would end the program).
Parsed parseLine(std::string_view line) {
  try {
    return parseLineUnguarded(line);
  } catch (const std::exception& e) {
    Parsed p;
    p.kind = Parsed::Decoded;
    p.decoded.emplace(Error{"", 0, "", withoutJsonPrefix(e.what())});
    return p;
  }
}

/// Where a run's ingestion stands: its row (0: none yet), the bytes and lines read so far.
struct RunCursor {
  int64_t runId = 0;
  int64_t offset = 0;
  int64_t lineNo = 0;
};

/// A failed statement's error as the ingestion reports it; read while the statement lives,
/// before anything else touches the connection.
std::string failureText(sqlite3* db, const std::string& what) {
  return what + ": " + sqliteMessage(db, sqlite3_errcode(db));
}

/// The run's row, by its folder; else the row of the run of the same name whose recorded
/// folder is gone, which takes this folder (none: runId 0).
Result<RunCursor> findRunRow(sqlite3* db, const std::string& dbPath, const fs::path& runDir) {
  RunCursor at;
  {
    Stmt q(db, "SELECT id, ingested_bytes, ingested_lines FROM runs WHERE dir = ?");
    q.bind(1, runDir.string());
    if (q.step() == SQLITE_ROW) {
      at.runId = q.i64(0);
      at.offset = q.i64(1);
      at.lineNo = q.i64(2);
    }
  }
  if (at.runId != 0) return at;
  // The project folder was moved or copied (another machine, a new path): the run of the
  // same name whose recorded folder is gone is this one, with its tags and notes.
  Stmt q(db, "SELECT id, ingested_bytes, ingested_lines, dir FROM runs WHERE name = ?");
  q.bind(1, runDir.filename().string());
  while (q.step() == SQLITE_ROW) {
    std::error_code e2;
    if (fs::exists(fs::path(q.text(3)) / "events.jsonl", e2)) continue;
    Stmt u(db, "UPDATE runs SET dir = ? WHERE id = ?");
    u.bind(1, runDir.string()).bind(2, q.i64(0));
    if (u.step() != SQLITE_DONE) return Error{dbPath, 0, "", sqlite3_errmsg(db)};
    at.runId = q.i64(0);
    at.offset = q.i64(1);
    at.lineNo = q.i64(2);
    break;
  }
  return at;
}

/// Adds the run's row (its id into `runId`) with the title, tags and notes its folder keeps;
/// the failure's text on a database error.
std::optional<std::string> addRunRow(sqlite3* db, const fs::path& runDir, IngestReport& report,
                                     int64_t& runId) {
  Stmt ins(db, "INSERT INTO runs(name, dir) VALUES (?, ?)");
  ins.bind(1, runDir.filename().string()).bind(2, runDir.string());
  if (ins.step() != SQLITE_DONE) return failureText(db, "cannot add run " + runDir.string());
  runId = sqlite3_last_insert_rowid(db);
  // The user's title, tags and notes are kept in the run folder too: a rebuilt store (or
  // another machine's) gets them back.
  const fs::path notesPath = runDir / kAnnotationsFile;
  std::error_code ec;
  if (!fs::exists(notesPath, ec)) return std::nullopt;
  // A regular file of at most 16 MiB (a FIFO would block the ingestion), parsed where every
  // JSON error is an error naming the file and line.
  auto text = readFileCapped(notesPath.string(), size_t{16} << 20);
  auto parsed = text ? parseJson(text.value(), notesPath.string()) : Result<nlohmann::json>(text.errors());
  if (!parsed || !parsed->is_object()) {
    report.warn(parsed ? Text("store.notes_not_object", {{"file", notesPath.string()}})
                       : Text("store.notes_unreadable", {{"reason", parsed.errorText()}}));
    return std::nullopt;
  }
  const nlohmann::json& j = parsed.value();
  Stmt u(db, "UPDATE runs SET title = ?, tags = ?, notes = ? WHERE id = ?");
  const auto str = [&](const char* k) {
    return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string();
  };
  nlohmann::json tags = nlohmann::json::array();
  if (j.contains("tags") && j["tags"].is_array())
    for (const auto& t : j["tags"])
      if (t.is_string()) tags.push_back(t);
  u.bind(1, str("title")).bind(2, tags.dump()).bind(3, str("notes")).bind(4, runId);
  if (u.step() != SQLITE_DONE)
    return failureText(db, "cannot restore the notes of " + runDir.string());
  return std::nullopt;
}

/// One ingestion's reading of events.jsonl in the open transaction: metric and event rows,
/// sample buckets, and the run-level fields gathered from the events, written at the end.
class RunIngestion {
 public:
  RunIngestion(sqlite3* db, const RunCursor& at, const std::string& eventsPath,
               IngestReport& report)
      : m_db(db),
        m_runId(at.runId),
        m_eventsPath(eventsPath),
        m_report(report),
        m_lineNo(at.lineNo),
        m_metric(db,
                 "INSERT INTO metrics(run_id, key, step, epoch, value, time) VALUES (?,?,?,?,?,?)"),
        m_event(db,
                "INSERT INTO events(run_id, line, type, rank, time, json) VALUES (?,?,?,?,?,?)") {
    loadRun(at.offset);
    registerHandlers();
  }
  ~RunIngestion() {
    if (m_fd >= 0) ::close(m_fd);
  }
  RunIngestion(const RunIngestion&) = delete;
  RunIngestion& operator=(const RunIngestion&) = delete;

  /// Reads up to `readable` bytes of `in`, whole lines only, in chunks (memory stays bounded
  /// whatever the log's size); a half-written last line is left for the next call. Returns
  /// the bytes consumed; ok() tells whether the database took everything.
  int64_t read(std::istream& in, int64_t readable, const std::function<bool()>& stopRequested);
  bool ok() const { return m_ok; }
  /// Writes the run's row: its fields, and `ingestedBytes` and the lines read as where the
  /// next ingestion goes on; the failure's text on a database error.
  std::optional<std::string> writeRun(int64_t ingestedBytes, const std::string& runDir);

 private:
  void loadRun(int64_t offset);
  void registerHandlers();
  size_t applyLines(const std::string& text);
  /// Where the file's data starts again at or after `at` (lseek SEEK_DATA; `end` when only a
  /// hole is left), -1 when the file system cannot say.
  int64_t nextData(int64_t at, int64_t end);
  void apply(std::string_view line, Parsed& parsed);
  bool putMetric(const std::string& key, int64_t step, int epoch, double value, double t);
  void addSampleLeaves(const telemetry::Event& e);
  void onRunStart(const telemetry::Event& e, const telemetry::RunStartEvent& r);
  void onStep(const telemetry::Event& e, const telemetry::StepEvent& s);

  sqlite3* m_db;
  int64_t m_runId;
  const std::string& m_eventsPath;
  IngestReport& m_report;
  int64_t m_lineNo;
  Stmt m_metric;
  Stmt m_event;
  RunRecord m_cur;  ///< the run's row, updated by this batch of events
  double m_spsSum = 0;
  int64_t m_spsCount = 0;
  int64_t m_badLines = 0;
  bool m_ok = true;
  int m_fd = -1;  ///< events.jsonl once more, to find where a hole ends (nextData)
  detail::SampleBuckets m_buckets;
  /// Every rank's latest samples/s, for the run's total at each of rank 0's steps (kept only
  /// once every rank has been seen in this ingestion).
  std::map<int, double> m_rankSps;
  telemetry::EventDispatch m_dispatch;
};

void RunIngestion::loadRun(int64_t offset) {
  {
    Stmt q(m_db, ("SELECT " + runColumns() + " FROM runs WHERE id = ?").c_str());
    q.bind(1, m_runId);
    if (q.step() == SQLITE_ROW) m_cur = readRun(q);
  }
  if (offset == 0) {  // read from the start: the story is told again
    m_cur.sessions.clear();
    m_cur.sessionTimes.clear();
  }
  {
    Stmt q(m_db, "SELECT sps_sum, sps_count FROM runs WHERE id = ?");
    q.bind(1, m_runId);
    if (q.step() == SQLITE_ROW) {
      m_spsSum = q.f64(0);
      m_spsCount = q.i64(1);
    }
  }
  m_badLines = m_cur.badLines;
}

bool RunIngestion::putMetric(const std::string& key, int64_t step, int epoch, double value,
                             double t) {
  m_metric.bind(1, m_runId)
      .bind(2, key)
      .bind(3, step)
      .bind(4, int64_t{epoch})
      .bind(5, value)
      .bind(6, t);
  const bool ok = m_metric.step() == SQLITE_DONE;
  m_metric.reset();
  ++m_report.metricRows;
  return ok;
}

void RunIngestion::addSampleLeaves(const telemetry::Event& e) {
  std::vector<std::pair<std::string, double>> leaves;
  telemetry::flattenNumbers(e.data, "", leaves);
  for (const auto& [key, value] : leaves)
    if (key.compare(0, 4, "cpu/") != 0) m_buckets.add(key, e.rank, e.time, value);
}

// What each event type adds to the run's row and curves (one handler per type).
void RunIngestion::registerHandlers() {
  using namespace telemetry;
  m_dispatch
      .invalid([this](const Event& e, const std::vector<Error>& why) {
        ++m_badLines;
        m_report.warn(Text("store.event_skipped", {{"file", m_eventsPath},
                                                   {"line", std::to_string(m_lineNo)},
                                                   {"type", e.type},
                                                   reasonArg(why)}));
      })
      .on<RunStartEvent>([this](const Event& e, const RunStartEvent& r) { onRunStart(e, r); })
      .on<StepEvent>([this](const Event& e, const StepEvent& s) { onStep(e, s); })
      .on<EpochEndEvent>([this](const Event& e, const EpochEndEvent& s) {
        for (const auto& [key, value] : metricsOf(s))
          m_ok = m_ok && putMetric(key, s.epoch, s.epoch, value, e.time);
        m_cur.epochs = s.epochs;
        m_cur.epochsDone = std::max(m_cur.epochsDone, s.epoch + 1);
      })
      .on<ValidationEvent>([this](const Event& e, const ValidationEvent& v) {
        for (const auto& [key, value] : metricsOf(v))
          m_ok = m_ok && putMetric(key, v.epoch, v.epoch, value, e.time);
        if (std::isfinite(v.map5095) && (m_cur.bestEpoch < 0 || v.map5095 > m_cur.bestMap5095)) {
          m_cur.bestMap5095 = v.map5095;
          m_cur.bestMap50 = std::isfinite(v.map50) ? v.map50 : 0.0;
          m_cur.bestEpoch = v.epoch;
        }
      })
      .on<FinishedEvent>([this](const Event& e, const FinishedEvent& f) {
        m_cur.status = toString(f.status);
        m_cur.message = f.message;
        m_cur.messageText = f.text;
        m_cur.finished = e.time;
        addToStory(m_cur.sessions, e.type, m_cur.status);
        m_cur.sessionTimes.resize(m_cur.sessions.size());
        m_cur.sessionTimes.back() = sessionTimeFromFinished(f.message, f.totalTime);
        m_cur.epochs = f.epochs;
        m_cur.epochsDone = std::max(m_cur.epochsDone, f.epochsCompleted);
      })
      .otherwise([this](const Event& e) {
        if (isSampleType(e.type)) addSampleLeaves(e);  // gpu_sample, system_sample, ...
      })
      .on<ErrorEvent>([this](const Event& e, const ErrorEvent& f) {
        if (m_cur.finished != 0) return;
        m_cur.message = f.message;
        m_cur.messageText = f.text;
        m_cur.status = "failed";
        addToStory(m_cur.sessions, e.type);
      });
}

void RunIngestion::onRunStart(const telemetry::Event& e, const telemetry::RunStartEvent& r) {
  m_rankSps.clear();  // a resume may have another number of ranks
  RunRecord& cur = m_cur;
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
}

void RunIngestion::onStep(const telemetry::Event& e, const telemetry::StepEvent& s) {
  if (e.rank != 0) return;  // curves are rank 0's; every rank's split is in events
  for (const auto& [key, value] : telemetry::metricsOf(s))
    m_ok = m_ok && putMetric(key, telemetry::globalStep(s), s.epoch, value, e.time);
  // The run's samples/s: one rank's own, or with several every rank's summed (what the
  // Run page shows), once every rank has been seen.
  m_rankSps[0] = s.samplesPerSec;
  double runSps = m_cur.worldSize > 1 ? std::nan("") : s.samplesPerSec;
  if (m_cur.worldSize > 1 && static_cast<int>(m_rankSps.size()) >= m_cur.worldSize) {
    double total = 0;
    for (const auto& [r, v] : m_rankSps) total += v;
    if (std::isfinite(total))
      m_ok = m_ok &&
             putMetric(kTotalSamplesPerSecKey, telemetry::globalStep(s), s.epoch, total, e.time);
    runSps = total;
  }
  if (std::isfinite(runSps) && runSps > 0) {
    m_spsSum += runSps;
    ++m_spsCount;
  }
}

// A line is first read (parse: no shared state, so two threads share a chunk's lines), then
// applied in file order (apply: the database and the run's fields).
void RunIngestion::apply(std::string_view line, Parsed& parsed) {
  ++m_lineNo;
  if (parsed.kind == Parsed::Blank) return;
  if (parsed.kind == Parsed::OtherRanksStep) {
    ++m_report.events;
    if (parsed.rank > 0) m_rankSps[parsed.rank] = parsed.samplesPerSec;
    return;
  }
  if (parsed.kind == Parsed::Sample) {
    ++m_report.events;
    m_cur.lastEvent = std::max(m_cur.lastEvent, parsed.scanned.time);
    for (const auto& [key, value] : parsed.scanned.leaves)
      if (key.compare(0, 4, "cpu/") != 0)
        m_buckets.add(key, parsed.scanned.rank, parsed.scanned.time, value);
    return;
  }
  auto& decoded = *parsed.decoded;
  if (!decoded) {
    ++m_badLines;
    m_report.warn(Text("store.line_skipped", {{"file", m_eventsPath},
                                              {"line", std::to_string(m_lineNo)},
                                              reasonArg(decoded.errors())}));
    return;
  }
  const telemetry::Event& e = decoded.value();
  // The high-rate events are not copied (events.jsonl keeps them).
  if (!telemetry::isHighRateType(e.type)) {
    m_event.bind(1, m_runId)
        .bind(2, m_lineNo)
        .bind(3, e.type)
        .bind(4, int64_t{e.rank})
        .bind(5, e.time)
        .bind(6, std::string(line));
    m_ok = m_event.step() == SQLITE_DONE;
    m_event.reset();
  }
  ++m_report.events;
  m_cur.lastEvent = std::max(m_cur.lastEvent, e.time);
  try {
    m_dispatch(e);
  } catch (const std::exception& ex) {  // a value the handlers could not take: this line only
    ++m_badLines;
    m_report.warn(Text("store.line_skipped", {{"file", m_eventsPath},
                                              {"line", std::to_string(m_lineNo)},
                                              {"reason", withoutJsonPrefix(ex.what())}}));
  }
}

/// Parses and applies the whole lines of `text`; the bytes they span.
size_t RunIngestion::applyLines(const std::string& text) {
  size_t pos = 0;
  std::vector<std::string_view> lines;
  for (size_t nl; (nl = text.find('\n', pos)) != std::string::npos; pos = nl + 1)
    lines.push_back(std::string_view(text).substr(pos, nl - pos));
  std::vector<Parsed> parsed(lines.size());
  const size_t half = lines.size() / 2;
  std::thread second([&] {
    for (size_t i = half; i < lines.size(); ++i) parsed[i] = parseLine(lines[i]);
  });
  for (size_t i = 0; i < half; ++i) parsed[i] = parseLine(lines[i]);
  second.join();
  for (size_t i = 0; m_ok && i < lines.size(); ++i) apply(lines[i], parsed[i]);
  return pos;
}

int64_t RunIngestion::read(std::istream& in, int64_t readable,
                           const std::function<bool()>& stopRequested) {
  constexpr int64_t kChunk = 16 << 20;
  std::string carry, chunk;
  int64_t consumed = 0, left = readable;
  // Inside a line longer than any event (kMaxEventLineBytes; e.g. a sparse hole of gigabytes
  // with no newline): its bytes are passed over as they come, never held.
  bool skipping = false;
  while (m_ok && left > 0) {
    if (skipping) {
      // A sparse file's hole holds no newline: go on where its data starts again, unread.
      const int64_t at = static_cast<int64_t>(in.tellg());
      const int64_t data = at >= 0 ? nextData(at, at + left) : -1;
      if (data > at) {
        const int64_t jump = std::min(data - at, left);
        in.seekg(at + jump);
        consumed += jump;
        left -= jump;
        if (left <= 0) break;
      }
    }
    chunk.resize(static_cast<size_t>(std::min(kChunk, left)));
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const auto got = static_cast<int64_t>(in.gcount());
    if (got <= 0) break;
    chunk.resize(static_cast<size_t>(got));
    left -= got;
    size_t from = 0;
    if (skipping) {
      const void* nl = std::memchr(chunk.data(), '\n', chunk.size());
      from = nl ? static_cast<size_t>(static_cast<const char*>(nl) - chunk.data()) + 1 : chunk.size();
      consumed += static_cast<int64_t>(from);
      skipping = nl == nullptr;
    }
    carry.append(chunk, from, std::string::npos);
    const size_t pos = carry.empty() ? 0 : applyLines(carry);
    consumed += static_cast<int64_t>(pos);
    carry.erase(0, pos);
    if (carry.size() > kMaxEventLineBytes) {
      ++m_lineNo;
      ++m_badLines;
      m_report.warn(Text("store.line_too_long", {{"file", m_eventsPath},
                                                 {"line", std::to_string(m_lineNo)},
                                                 {"mib", std::to_string(kMaxEventLineBytes >> 20)}}));
      consumed += static_cast<int64_t>(carry.size());
      std::string().swap(carry);
      skipping = true;
    }
    m_ok = m_ok && m_buckets.flush(m_db, m_runId);
    if (m_ok && left > 0 && stopRequested()) {  // what was read is committed; the next call goes on
      m_report.stopped = true;
      break;
    }
  }
  return consumed;
}

int64_t RunIngestion::nextData(int64_t at, int64_t end) {
  if (m_fd < 0) m_fd = ::open(m_eventsPath.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (m_fd < 0) return -1;
  const off_t data = ::lseek(m_fd, static_cast<off_t>(at), SEEK_DATA);
  if (data >= 0) return static_cast<int64_t>(data);
  return errno == ENXIO ? end : -1;  // ENXIO: only hole from here on; else not known
}

std::optional<std::string> RunIngestion::writeRun(int64_t ingestedBytes,
                                                  const std::string& runDir) {
  const RunRecord& cur = m_cur;
  Stmt upd(m_db,
           "UPDATE runs SET status=?, message=?, config_json=?, config_hash=?, dataset=?, model=?,"
           " imgsz=?, batch=?, world_size=?, devices=?, version=?, started=?, finished=?,"
           " last_event=?, epochs=?, epochs_done=?, best_map50=?, best_map5095=?, best_epoch=?,"
           " sps_sum=?, sps_count=?, bad_lines=?, ingested_bytes=?, ingested_lines=?, host=?,"
           " dataset_hash=?, resolved_json=?, sessions=?, message_text=? WHERE id=?");
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
      .bind(20, m_spsSum)
      .bind(21, m_spsCount)
      .bind(22, m_badLines)
      .bind(23, ingestedBytes)
      .bind(24, m_lineNo)
      .bind(25, cur.host)
      .bind(26, cur.datasetHash)
      .bind(27, cur.resolvedJson.empty() ? std::string("{}") : cur.resolvedJson)
      .bind(28, sessionsJson(cur))
      .bind(29, cur.messageText.empty() ? std::string("[]")
                                        : telemetry::textToJson(cur.messageText).dump())
      .bind(30, m_runId);
  if (upd.step() != SQLITE_DONE) return failureText(m_db, "cannot update run " + runDir);
  return std::nullopt;
}

}  // namespace

Result<IngestReport> Store::ingestRun(const std::string& runDirIn) {
  IngestReport report;
  report.runsSeen = 1;
  const fs::path runDir = fs::absolute(runDirIn).lexically_normal();
  const std::string eventsPath = (runDir / "events.jsonl").string();
  std::error_code ec;
  // A FIFO or a device in its place would block the read or never end: refused, named.
  if (const auto st = fs::status(eventsPath, ec); !ec && !fs::is_regular_file(st))
    return textError(eventsPath, 0, "",
                     Text(fs::is_directory(st) ? "io.is_folder"
                          : fs::is_fifo(st)    ? "io.fifo"
                                               : "io.not_regular"));
  const auto size = fs::file_size(eventsPath, ec);
  if (ec) return textError(eventsPath, 0, "", Text("io.cannot_read", {{"reason", ec.message()}}));

  // The run's row, created on first sight.
  auto found = findRunRow(m_db, m_path, runDir);
  if (!found) return found.errors();
  RunCursor at = found.value();
  if (static_cast<int64_t>(size) == at.offset && at.runId != 0) return report;  // nothing new

  if (auto st = exec("BEGIN IMMEDIATE"); !st) return st.errors();
  auto fail = [&](const std::string& message) -> Result<IngestReport> {
    exec("ROLLBACK");
    return Error{m_path, 0, "", message};
  };
  {
    // Another connection (the studio's other page, `stave-train history`) may have read on
    // while this one waited for the lock: start again from where it stopped, never twice.
    Stmt q(m_db, "SELECT id, ingested_bytes FROM runs WHERE dir = ?");
    q.bind(1, runDir.string());
    const bool found = q.step() == SQLITE_ROW;
    if (found != (at.runId != 0) || (found && (q.i64(0) != at.runId || q.i64(1) != at.offset))) {
      exec("ROLLBACK");
      return ingestRun(runDirIn);
    }
  }

  std::ifstream in(eventsPath, std::ios::binary);
  if (!in) {
    exec("ROLLBACK");
    return textError(eventsPath, 0, "", Text("store.cannot_open_file"));
  }
  if (static_cast<int64_t>(size) < at.offset) {
    // The file is shorter than what was read: replaced (e.g. moved aside by exist_ok).
    report.warn(Text("store.shorter", {{"file", eventsPath}}));
    at.offset = 0;
    at.lineNo = 0;
    if (at.runId != 0) {
      const std::string id = std::to_string(at.runId);
      if (auto st = exec("DELETE FROM metrics WHERE run_id = " + id +
                         "; DELETE FROM events WHERE run_id = " + id +
                         "; DELETE FROM sample_buckets WHERE run_id = " + id);
          !st) {
        exec("ROLLBACK");
        return st.errors();
      }
    }
  }
  in.seekg(at.offset);
  // What is read now: up to the size seen above (a run still writing is followed next time).
  const int64_t readable = static_cast<int64_t>(size) - at.offset;

  if (at.runId == 0) {
    if (auto failed = addRunRow(m_db, runDir, report, at.runId)) return fail(*failed);
  }
  RunIngestion ingestion(m_db, at, eventsPath, report);
  const int64_t consumed = ingestion.read(in, readable, [this] { return stopRequested(); });
  if (!ingestion.ok()) return fail(failureText(m_db, "cannot store the events of " + eventsPath));
  if (auto failed = ingestion.writeRun(at.offset + consumed, runDir.string())) return fail(*failed);
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
  for (fs::directory_iterator it(runsDir, ec), end; !ec && it != end; it.increment(ec)) {
    // An entry whose kind cannot be known (a link to itself or in a loop, no permission) is
    // named and passed over; the other runs are listed.
    // A link to nothing, or an entry gone meanwhile, is no run and needs no word.
    std::error_code entryEc;
    fs::path looked = it->path();
    bool events = it->is_directory(entryEc) && !entryEc;
    if (events) events = fs::exists(looked = it->path() / "events.jsonl", entryEc);
    if (entryEc && entryEc != std::errc::no_such_file_or_directory)
      total.warn(Text("store.run_not_read", {{"run", it->path().filename().string()},
                                             {"reason", looked.string() + ": " + entryEc.message()}}));
    else if (events)
      dirs.push_back(it->path());
  }
  if (ec) return textError(runsDir, 0, "", Text("store.cannot_list", {{"reason", ec.message()}}));
  std::sort(dirs.begin(), dirs.end());
  for (const auto& d : dirs) {
    // One run that cannot be read never hides the others: its problem is a warning naming it.
    std::optional<Result<IngestReport>> read;
    try {
      read.emplace(ingestRun(d.string()));
    } catch (const std::exception& e) {
      exec("ROLLBACK");  // what this run's transaction held is dropped; the others stay
      read.emplace(Error{(d / "events.jsonl").string(), 0, "",
                         std::string("not read: ") + withoutJsonPrefix(e.what())});
    }
    auto& r = *read;
    if (!r) {
      for (const auto& e : r.errors()) {
        // "run: not read: file: why", the why in catalog form where it has one.
        Error where = e;
        where.message.clear();
        TextParts reason{Text("plain", {{"text", where.toString()}})};
        if (e.text.empty()) reason.push_back(Text("plain", {{"text", e.message}}));
        else reason.insert(reason.end(), e.text.begin(), e.text.end());
        total.warn(Text("store.run_not_read", {{"run", d.filename().string()}, {"reason", std::move(reason)}}));
      }
      ++total.runsSeen;
      continue;
    }
    total.runsSeen += r->runsSeen;
    total.runsUpdated += r->runsUpdated;
    total.events += r->events;
    total.metricRows += r->metricRows;
    total.addWarnings(r.value());
    if (r->stopped || stopRequested()) {
      total.stopped = true;
      break;
    }
  }
  return total;
}

}  // namespace stave::store
