#include "core/studio/models/stored_run.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

namespace stave::studio {

namespace fs = std::filesystem;

StoredRun::Curve* StoredRun::curve(const std::string& key) {
  for (auto& c : curves)
    if (c.key == key) return &c;
  return nullptr;
}

const StoredRun::Samples* StoredRun::sample(const std::string& key) const {
  for (const auto& s : samples)
    if (s.key == key) return &s;
  return nullptr;
}

namespace {

/// A line (or stored event) that cannot be decoded, named as the store's ingestion names it.
void warnSkipped(StoredRun& run, const std::string& path, int64_t line,
                 const std::vector<Error>& why) {
  TextParts reason = textOfErrors(why);
  if (reason.empty()) reason = {Text("plain", {{"text", joinErrors(why)}})};
  Text t("store.line_skipped",
         {{"file", path}, {"line", std::to_string(line)}, {"reason", std::move(reason)}});
  run.warnings.push_back(english(t));
  run.warningTexts.push_back({std::move(t)});
}

/// Buckets as chart points: x since `t0`, y times `scale`, each bucket's minimum and maximum.
LodSeries bucketPoints(const std::vector<store::SamplePoint>& buckets, double t0, double scale) {
  LodSeries out;
  for (const auto& p : buckets) {
    const double t = p.time - t0;
    out.append(t, (p.count > 1 ? p.lo : p.value) * scale);
    if (p.count > 1 && p.hi != p.lo) out.append(t, p.hi * scale);
  }
  return out;
}

/// The last step event of each rank in the megabyte of `path` before `end`, newest first
/// until every one of `ranks` ranks was seen.
std::vector<RunEvent> lastSteps(const std::string& path, int64_t end, int ranks) {
  constexpr int64_t kTail = 1 << 20;
  std::ifstream in(path, std::ios::binary);
  const int64_t from = std::max<int64_t>(0, end - kTail);
  std::string data(static_cast<size_t>(end - from), '\0');
  if (!in || !in.seekg(from) || !in.read(data.data(), static_cast<std::streamsize>(data.size()))) return {};
  std::map<int, telemetry::Event> found;
  size_t stop = data.size();
  while (stop > 0 && static_cast<int>(found.size()) < ranks) {
    const size_t nl = data.rfind('\n', stop - 1);
    const size_t begin = nl == std::string::npos ? 0 : nl + 1;
    if (begin == 0 && from > 0) break;  // a line cut by the megabyte's start
    const std::string_view line(data.data() + begin, stop - begin);
    stop = nl == std::string::npos ? 0 : nl;
    if (telemetry::typeAtLineEnd(line) != telemetry::event_type::kStep) continue;
    auto e = telemetry::decodeEvent(line);
    if (e && e->type == telemetry::event_type::kStep && !found.count(e->rank))
      found.emplace(e->rank, std::move(e.value()));
  }
  std::vector<RunEvent> out;
  for (auto& [rank, e] : found) out.push_back(decodeRunEvent(std::move(e)));
  return out;
}

/// Series of sample points by their id, in the order first seen (keyed as the store keys them).
struct SampleCollector {
  std::vector<StoredRun::Samples>& out;
  std::map<SeriesId, size_t> index;
  /// Appends `points`, x moved by `shift`.
  void add(const std::vector<SeriesPoint>& points, double shift = 0) {
    for (const auto& p : points) {
      auto [it, fresh] = index.try_emplace(p.id, out.size());
      if (fresh) out.push_back({sampleKey(p.id), p.id, {}});
      out[it->second].points.append(p.x - shift, p.y);
    }
  }
};

/// A gpu_sample's or system_sample's points at x = `t` (none for another event).
std::vector<SeriesPoint> samplePoints(const telemetry::Event& e, double t) {
  if (e.type == telemetry::event_type::kGpuSample) {
    if (auto g = telemetry::gpuSampleFromEvent(e)) return seriesPoints(g.value(), t);
  } else if (e.type == telemetry::event_type::kSystemSample) {
    if (auto y = telemetry::systemSampleFromEvent(e)) return seriesPoints(y.value(), t);
  }
  return {};
}

/// Whether `line` is a launcher sample (a type ending in "_sample"), told from its end.
bool isSampleLine(std::string_view line) { return telemetry::isSampleType(telemetry::typeAtLineEnd(line)); }

/// What scanLines read.
struct LineScan {
  int64_t offset = 0;        ///< after the last whole line handed over
  int64_t bytesRead = 0;
  bool budgetEnded = false;  ///< `maxBytes` were read with more of the range left
  bool failed = false;       ///< a read failed (at `offset`)
};

/// Hands each whole line of `in` in [from, end) to `take` (false from it ends the scan),
/// reading up to `piece` bytes at a time and at most `maxBytes` in all. The line cut by `from`
/// (> 0) began before it and is skipped, unless `fromLineStart` says a line starts there; a
/// half-written last line is left.
template <typename F>
LineScan scanLines(std::ifstream& in, int64_t from, int64_t end, int64_t maxBytes, int64_t piece, F&& take,
                   bool fromLineStart = false) {
  LineScan r;
  r.offset = from;
  in.clear();
  if (!in.seekg(from)) {
    r.failed = true;
    return r;
  }
  std::string data, carry;
  bool skip = from > 0 && !fromLineStart;
  for (int64_t at = from; at < end;) {
    if (r.bytesRead >= maxBytes) {
      r.budgetEnded = true;
      return r;
    }
    const int64_t n = std::min({piece, end - at, maxBytes - r.bytesRead});
    data.resize(static_cast<size_t>(n));
    if (!in.read(data.data(), n)) {
      r.failed = true;
      return r;
    }
    size_t begin = 0;
    for (size_t nl; (nl = data.find('\n', begin)) != std::string::npos; begin = nl + 1) {
      std::string_view text(data.data() + begin, nl - begin);
      if (!carry.empty()) {
        carry.append(text);
        text = carry;
      }
      r.offset = at + static_cast<int64_t>(nl) + 1;
      const bool more = skip || take(text);
      skip = false;
      carry.clear();
      if (!more) return r;
    }
    carry.append(data, begin, std::string::npos);
    at += n;
    r.bytesRead += n;
  }
  return r;
}

/// The time of the first launcher sample that starts a line in the 64 kB of `in` from
/// `offset` (before `end`); NaN when there is none.
double sampleTimeAfter(std::ifstream& in, int64_t offset, int64_t end) {
  constexpr int64_t kProbe = 64 << 10;
  double time = std::nan("");
  scanLines(in, offset, end, kProbe, kProbe, [&](std::string_view line) {
    if (!isSampleLine(line)) return true;
    auto e = telemetry::decodeEvent(line);
    if (!e) return true;
    time = e->time;
    return false;
  });
  return time;
}

}  // namespace

Result<SampleDetail> readSampleDetail(const std::string& eventsPath, double t0, double lo, double hi,
                                      int64_t end, int64_t maxBytes) {
  std::ifstream in(eventsPath, std::ios::binary);
  if (!in) return Error{eventsPath, 0, "", std::string("cannot open: ") + std::strerror(errno)};
  // The last offset known to start before the first sample of [lo, hi] (a second early: the
  // launcher writes its samples in time order, the ranks' lines between them may lag).
  const double from = t0 + lo - 1;
  int64_t a = 0, b = end;
  while (b - a > (64 << 10)) {
    const int64_t mid = a + (b - a) / 2;
    const double t = sampleTimeAfter(in, mid, end);
    if (std::isnan(t) || t < from) a = mid;
    else b = mid;
  }
  SampleDetail out;
  out.lo = lo;
  out.hi = hi;
  SampleCollector samples{out.samples, {}};
  double last = lo;
  const LineScan scan = scanLines(in, a, end, maxBytes, 4 << 20, [&](std::string_view line) {
    if (!isSampleLine(line)) return true;
    auto e = telemetry::decodeEvent(line);
    if (!e) return true;
    const double t = e->time - t0;
    if (t > hi) return false;
    if (t >= lo) {
      last = t;
      samples.add(samplePoints(e.value(), t));
    }
    return true;
  });
  if (scan.failed) return Error{eventsPath, 0, "", "cannot read at byte " + std::to_string(scan.offset)};
  out.bytesRead = scan.bytesRead;
  if (scan.budgetEnded) out.hi = last;  // the budget ended the read: what was read, no more
  return out;
}

namespace {

/// Reads a run's events into a preview: every `every`-th step of rank 0 and every `every`-th
/// sample of each type, and all low-rate events.
class PreviewReader {
 public:
  PreviewReader(StoredRun& out, int64_t every) : m_out(out), m_every(every) {}

  /// Reads on after `stored` (the store's part of the run): its time origin, its world size
  /// and each rank's last samples/s (the sum at the tail's first steps).
  void resumeAfter(const StoredRun& stored) {
    m_haveT0 = true;
    m_out.t0 = stored.t0;
    m_world = stored.worldSize;
    m_maxRank = std::max(0, stored.worldSize - 1);
    for (const auto& e : stored.lastSteps)
      if (const auto* st = e.as<telemetry::StepEvent>()) m_rankSps[e.rank] = st->samplesPerSec;
  }

  /// Lines that cannot be decoded are named in `run`'s warnings (at most 20), as `path`:line.
  void nameBadLines(StoredRun* run, const std::string& path) {
    m_badLinesOf = run;
    m_path = path;
  }

  /// One whole, non-empty line of events.jsonl, the `lineNo`-th.
  void take(std::string_view text, int64_t lineNo = 0) {
    if (!keepLine(text)) return;
    auto e = telemetry::decodeEvent(text);
    if (!e) {  // else the store's read names the line
      if (m_badLinesOf && m_badLinesOf->warnings.size() < 20)
        warnSkipped(*m_badLinesOf, m_path, lineNo, e.errors());
      return;
    }
    if (e->type == telemetry::event_type::kStep) {
      takeStep(e.value());
    } else if (e->type == telemetry::event_type::kGpuSample ||
               e->type == telemetry::event_type::kSystemSample) {
      if (m_haveT0)
        m_samples.add(samplePoints(e.value(), e->time), m_out.t0);
      else
        m_early.push_back(samplePoints(e.value(), e->time));
    } else if (!telemetry::isHighRateType(e->type)) {
      takeLowRate(std::move(e.value()));
    }
  }

  /// After the last line: the world size and the step curves.
  void finish() {
    m_out.worldSize = std::max(m_world, m_maxRank + 1);
    const char* keys[] = {"step/box_loss", "step/cls_loss", "step/dfl_loss"};
    for (int i = 0; i < 3; ++i)
      if (!m_losses[i].empty()) m_out.curves.push_back({keys[i], std::move(m_losses[i])});
    if (!m_own.empty()) m_out.curves.push_back({"step/samples_per_s", std::move(m_own)});
    if (m_out.worldSize > 1 && !m_total.empty())
      m_out.curves.push_back({store::kTotalSamplesPerSecKey, std::move(m_total)});
  }

 private:
  /// Whether the line is decoded, told from its end: the strides' choice of steps and samples.
  bool keepLine(std::string_view text) {
    const std::string_view type = telemetry::typeAtLineEnd(text);
    if (type == telemetry::event_type::kStep) {
      const int r = telemetry::otherRanksStep(text);
      if (r != 0) {
        // The other ranks' samples/s are read only before a step of rank 0 that is kept.
        if (r > 0 && (m_maxRank < r || m_rank0Steps % m_every == 0)) {
          m_maxRank = std::max(m_maxRank, r);
          m_rankSps[r] = telemetry::stepSamplesPerSec(text);
        }
        return false;
      }
      if (m_rank0Steps++ % m_every != 0) return false;
    } else if (telemetry::isSampleType(type)) {
      auto it = m_sampleLines.find(type);
      if (it == m_sampleLines.end()) it = m_sampleLines.emplace(std::string(type), 0).first;
      if (it->second++ % m_every != 0) return false;
    }
    return true;
  }

  void takeStep(const telemetry::Event& e) {
    auto st = telemetry::stepFromEvent(e);
    if (!st) return;
    if (e.rank != 0) {  // a layout the line's end did not tell
      m_maxRank = std::max(m_maxRank, e.rank);
      m_rankSps[e.rank] = st->samplesPerSec;
      return;
    }
    const double x = static_cast<double>(telemetry::globalStep(st.value()));
    m_losses[0].append(x, st->boxLoss);
    m_losses[1].append(x, st->clsLoss);
    m_losses[2].append(x, st->dflLoss);
    m_own.append(x, st->samplesPerSec);
    m_rankSps[0] = st->samplesPerSec;
    // Summed once every rank has been seen (as the store sums them).
    if (static_cast<int>(m_rankSps.size()) >= std::max(m_world, m_maxRank + 1)) {
      double sum = 0;
      for (const auto& [r, v] : m_rankSps) sum += v;
      m_total.append(x, sum);
    }
  }

  void takeLowRate(telemetry::Event in) {
    RunEvent e = decodeRunEvent(std::move(in));
    if (const auto* r = e.as<telemetry::RunStartEvent>()) m_world = std::max(m_world, r->worldSize);
    if (!m_haveT0) {
      m_haveT0 = true;
      m_out.t0 = e.time;
      for (const auto& points : m_early) m_samples.add(points, m_out.t0);
      m_early.clear();
    }
    m_out.events.push_back(std::move(e));
  }

  StoredRun& m_out;
  const int64_t m_every;
  LodSeries m_losses[3], m_own, m_total;
  std::map<int, double> m_rankSps;  // each rank's latest samples/s
  int m_maxRank = 0, m_world = 0;   // the highest rank seen; run_start's world size
  int64_t m_rank0Steps = 0;
  std::map<std::string, int64_t, std::less<>> m_sampleLines;  // per sample type
  SampleCollector m_samples{m_out.samples, {}};
  // Samples before the first low-rate event (x = 0) wait for it: x is seconds since then.
  std::vector<std::vector<SeriesPoint>> m_early;
  bool m_haveT0 = false;
  StoredRun* m_badLinesOf = nullptr;
  std::string m_path;
};

}  // namespace

Result<StoredRun> previewRun(const std::string& runDir, const std::atomic<bool>* stop,
                             int64_t bytesPerStride) {
  const std::string path = (fs::path(runDir) / "events.jsonl").string();
  std::error_code ec;
  const auto size = static_cast<int64_t>(fs::file_size(path, ec));
  if (ec) return Error{path, 0, "", "cannot read: " + ec.message()};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path, 0, "", std::string("cannot open: ") + std::strerror(errno)};
  StoredRun out;
  out.preview = true;
  out.sampleEvery = std::max<int64_t>(1, size / std::max<int64_t>(1, bytesPerStride));
  PreviewReader reader(out, out.sampleEvery);
  bool stopped = false;
  const LineScan scan = scanLines(in, 0, size, size, 16 << 20, [&](std::string_view text) {
    if (stop && stop->load()) {
      stopped = true;
      return false;
    }
    ++out.lineNo;
    if (!text.empty()) reader.take(text);
    return true;
  });
  if (stopped) return Error{path, 0, "", "stopped"};
  if (scan.failed) return Error{path, 0, "", "cannot read at byte " + std::to_string(scan.offset)};
  out.offset = scan.offset;
  reader.finish();
  for (auto& smp : out.samples) {
    if (!smp.points.empty()) out.bucketsUntil = std::max(out.bucketsUntil, smp.points.x(smp.points.size() - 1));
  }
  out.lastSteps = lastSteps(path, out.offset, out.worldSize);
  return out;
}

namespace {

/// What the store holds of run `rec`: its low-rate events, rank 0's curves, the sample buckets
/// (in the charts' units) and each rank's last step before the store's offset.
StoredRun readStored(store::Store& db, const store::RunRecord& rec, const std::string& eventsPath) {
  StoredRun out;
  out.offset = rec.ingestedBytes;
  out.lineNo = rec.ingestedLines;
  out.worldSize = std::max(1, rec.worldSize);
  for (auto& stored : db.events(rec.id)) {
    auto e = telemetry::decodeEvent(stored.json);
    if (!e) {
      warnSkipped(out, eventsPath, stored.line, e.errors());
      continue;
    }
    out.events.push_back(decodeRunEvent(std::move(e.value())));
  }
  for (const char* key : {"step/box_loss", "step/cls_loss", "step/dfl_loss", "step/samples_per_s",
                          store::kTotalSamplesPerSecKey}) {
    StoredRun::Curve c;
    c.key = key;
    for (const auto& p : db.curve(rec.id, key)) c.points.append(static_cast<double>(p.step), p.value);
    if (!c.points.empty()) out.curves.push_back(std::move(c));
  }
  // The time charts start at the run's first event, as when the file is read.
  out.t0 = out.events.empty() ? rec.started : out.events.front().time;
  const auto keys = db.sampleKeys(rec.id);
  const auto has = [&keys](const std::string& k) { return std::find(keys.begin(), keys.end(), k) != keys.end(); };
  for (const auto& key : keys) {
    auto id = sampleSeries(key);
    if (!id) continue;
    double scale = 1.0;
    if (id->chart == RunChart::System && id->series == 1) {
      // In % of the node's memory (its total as last sampled).
      const std::string totalKey = telemetry::nodeKeyPrefix(id->node) + "mem_total";
      const auto total = has(totalKey) ? db.samples(rec.id, totalKey, 1) : std::vector<store::SamplePoint>{};
      if (total.empty() || !(total.back().value > 0)) continue;
      scale = 100.0 / total.back().value;
    } else if (id->chart != RunChart::System) {
      // The GPU's index as sampled (the key's slot when not).
      const std::string indexKey = key.substr(0, key.rfind('/')) + "/index";
      if (has(indexKey))
        if (const auto idx = db.samples(rec.id, indexKey, 1); !idx.empty()) id->series = static_cast<int>(std::lround(idx.front().value));
      if (id->chart == RunChart::GpuMem) scale = 1.0 / double(1 << 30);
    }
    out.samples.push_back({key, *id, bucketPoints(db.samples(rec.id, key), out.t0, scale)});
  }
  for (const auto& s : out.samples)
    if (!s.points.empty()) out.bucketsUntil = std::max(out.bucketsUntil, s.points.x(s.points.size() - 1));
  out.lastSteps = lastSteps(eventsPath, out.offset, out.worldSize);
  return out;
}

/// Appends `from`'s points to `to` (x after `to`'s).
void appendPoints(LodSeries& to, const LodSeries& from) {
  for (size_t i = 0; i < from.size(); ++i) to.append(from.x(i), from.y(i));
}

/// Decodes events.jsonl from `run.offset` (where the store stopped, a line's start) to `end`
/// into `run`: every `every`-th of rank 0's steps and of the samples (previewRun's choice), all
/// low-rate events, appended to the store's series; `run` then shows the file up to the last
/// whole line read. Lines that cannot be decoded are named in run.warnings.
Status readTail(StoredRun& run, const std::string& path, int64_t end, int64_t every, const std::atomic<bool>* stop) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path, 0, "", std::string("cannot open: ") + std::strerror(errno)};
  StoredRun tail;
  PreviewReader reader(tail, every);
  reader.resumeAfter(run);
  reader.nameBadLines(&run, path);
  int64_t lineNo = run.lineNo;
  bool stopped = false;
  const LineScan scan = scanLines(
      in, run.offset, end, end - run.offset, 16 << 20,
      [&](std::string_view text) {
        if (stop && stop->load()) {
          stopped = true;
          return false;
        }
        ++lineNo;
        if (text.find_first_not_of(" \t\r") != std::string_view::npos) reader.take(text, lineNo);
        return true;
      },
      /*fromLineStart=*/true);
  if (stopped) return Error{path, 0, "", "stopped"};
  if (scan.failed) return Error{path, 0, "", "cannot read at byte " + std::to_string(scan.offset)};
  reader.finish();
  run.tailBytes = scan.offset - run.offset;
  run.offset = scan.offset;
  run.lineNo = lineNo;
  run.worldSize = std::max(run.worldSize, tail.worldSize);
  for (auto& e : tail.events) run.events.push_back(std::move(e));
  // A store filled before it summed the ranks' samples/s has rank 0's alone: the tail's sum
  // would draw only the tail (the page draws one or the other).
  const bool storeSummed = run.curves.empty() || run.curve(store::kTotalSamplesPerSecKey);
  for (auto& c : tail.curves) {
    if (auto* to = run.curve(c.key)) appendPoints(to->points, c.points);
    else if (storeSummed || c.key != store::kTotalSamplesPerSecKey) run.curves.push_back(std::move(c));
  }
  for (auto& smp : tail.samples) {
    const auto to = std::find_if(run.samples.begin(), run.samples.end(),
                                 [&](const StoredRun::Samples& s) { return s.id == smp.id; });
    if (to != run.samples.end()) appendPoints(to->points, smp.points);
    else run.samples.push_back(std::move(smp));
  }
  if (run.tailBytes > 0) run.lastSteps = lastSteps(path, run.offset, run.worldSize);
  return Ok{};
}

}  // namespace

Result<StoredRun> loadStoredRun(const std::string& dbPath, const std::string& runDir,
                                const std::atomic<bool>* stop, const std::function<void(StoredRun)>& preview,
                                int64_t tailBytes) {
  auto opened = store::Store::open(dbPath);
  if (!opened) return opened.errors();
  auto& db = *opened.value();
  db.setBusyTimeout(kBackgroundBusyMs);  // the History page may be ingesting the same run
  db.setMemory(0, kStudioStoreCache);
  db.setStopFlag(stop);
  const std::string eventsPath = (fs::path(runDir) / "events.jsonl").string();
  std::error_code ec;
  const auto size = static_cast<int64_t>(fs::file_size(eventsPath, ec));
  const auto known = db.runByDir(runDir);
  const int64_t held = known ? known->ingestedBytes : 0;
  tailBytes = std::max<int64_t>(1, tailBytes);
  if (!ec && held > 0 && size >= held) {
    // The store holds a part of the run: drawn at once, and only the tail decoded. Its rows
    // are read in several queries: read again if another connection (the History page) stored
    // more of the run meanwhile (one transaction each), so the tail starts where they end.
    StoredRun out = readStored(db, known.value(), eventsPath);
    for (int again = 0; again < 3; ++again) {
      const auto now = db.runByDir(runDir);
      if (!now || now->ingestedBytes == out.offset) break;
      out = readStored(db, now.value(), eventsPath);
    }
    const int64_t behind = size - out.offset;
    if (behind <= tailBytes) {
      if (auto st = readTail(out, eventsPath, size, 1, stop); !st) return st.errors();
      out.storeBehind = out.tailBytes > 0;
      return out;
    }
    if (preview) {
      // Far behind (the studio was closed for hours while the run went on): the store's part
      // and a first look at the tail while the store reads it.
      const int64_t every = std::max<int64_t>(1, behind / tailBytes);
      if (readTail(out, eventsPath, size, every, stop)) {
        out.preview = true;
        out.sampleEvery = every;
        preview(std::move(out));
      }
    }
  } else if (preview && !ec && size - held > kStoredRunBytes) {
    // Nothing of it stored (a run trained elsewhere, opened the first time): a first look while
    // the store reads the whole log.
    if (auto first = previewRun(runDir, stop)) preview(std::move(first.value()));
  }
  auto ingested = db.ingestRun(runDir);
  if (!ingested) return ingested.errors();
  if (ingested->stopped || db.stopRequested()) return Error{dbPath, 0, "", "stopped before " + runDir + " was read"};
  auto rec = db.runByDir(runDir);
  if (!rec) return rec.errors();
  StoredRun out = readStored(db, rec.value(), eventsPath);
  // Ingestion warnings repeat what the file says; the first few name the lines.
  for (size_t i = 0; i < ingested->warnings.size() && i < 20; ++i) {
    out.warnings.push_back(ingested->warnings[i]);
    out.warningTexts.push_back(i < ingested->warningTexts.size() ? ingested->warningTexts[i]
                                                                 : TextParts{});
  }
  return out;
}

Result<store::IngestReport> catchUpStore(const std::string& dbPath, const std::string& runDir,
                                         const std::atomic<bool>* stop) {
  auto opened = store::Store::open(dbPath);
  if (!opened) return opened.errors();
  auto& db = *opened.value();
  db.setBusyTimeout(kBackgroundBusyMs);
  db.setMemory(0, kStudioStoreCache);
  db.setStopFlag(stop);
  return db.ingestRun(runDir);
}

}  // namespace stave::studio
