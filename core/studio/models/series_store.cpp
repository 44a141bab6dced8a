// SeriesStore: a followed run's chart points by series id (series_store.h says what for).
#include "core/studio/models/series_store.h"

#include <algorithm>

#include "core/store/store.h"
#include "core/studio/models/stored_run.h"

namespace stave::studio {

namespace tel = telemetry;

SeriesStore::SeriesStore(QObject* parent) : QObject(parent) {}

const LodSeries* SeriesStore::find(SeriesId id) const {
  const auto it = m_series.find(id);
  return it == m_series.end() ? nullptr : &it->second.points;
}

std::vector<SeriesId> SeriesStore::ids() const {
  std::vector<SeriesId> out;
  out.reserve(m_series.size());
  for (const auto& [id, e] : m_series) out.push_back(id);
  return out;
}

uint64_t SeriesStore::generation(SeriesId id) const {
  const auto it = m_series.find(id);
  return it == m_series.end() ? 0 : it->second.generation;
}

size_t SeriesStore::points() const {
  size_t n = 0;
  for (const auto& [id, e] : m_series) n += e.points.size();
  return n;
}

size_t SeriesStore::bytes() const {
  size_t n = 0;
  for (const auto& [id, e] : m_series) n += e.points.bytes();
  return n;
}

SeriesStore::Entry& SeriesStore::entry(SeriesId id) {
  auto [it, made] = m_series.try_emplace(id);
  if (made) it->second.generation = ++m_stamp;
  return it->second;
}

void SeriesStore::changed(SeriesId id) {
  // A live run touches the same few series in every batch: a short list, searched.
  if (std::find(m_changed.begin(), m_changed.end(), id) == m_changed.end()) m_changed.push_back(id);
}

void SeriesStore::append(SeriesId id, double x, double y) {
  entry(id).points.append(x, y);
  changed(id);
}

void SeriesStore::append(const std::vector<SeriesPoint>& points) {
  for (const auto& p : points) append(p.id, p.x, p.y);
}

void SeriesStore::setPoints(SeriesId id, LodSeries&& points) {
  Entry& e = entry(id);
  e.points = std::move(points);
  e.generation = ++m_stamp;
  changed(id);
}

void SeriesStore::setDetail(SeriesId id, double lo, double hi, LodSeries&& points) {
  entry(id).points.setDetail(lo, hi, std::move(points));
  changed(id);
}

void SeriesStore::reset() {
  m_series.clear();  // generations go on: a series made again is not taken for the old one
  m_changed.clear();
  m_rankSps.clear();
  m_nodes = 1;
  m_t0 = 0;
  m_bucketsUntil = 0;
  emit cleared();
}

void SeriesStore::flush() {
  if (m_changed.empty()) return;
  QVector<SeriesId> ids(m_changed.begin(), m_changed.end());
  m_changed.clear();
  emit seriesChanged(ids);
}

void SeriesStore::apply(const std::vector<RunEvent>& events, size_t first, StoredRun* stored) {
  if (first == 0) {
    reset();
    if (stored) takeStored(*stored);
  }
  for (size_t i = first; i < events.size(); ++i) {
    if (m_t0 == 0) m_t0 = events[i].time;  // the origin of the time charts
    applyOne(events[i]);
  }
  flush();
}

void SeriesStore::takeStored(StoredRun& run) {
  m_t0 = run.t0;  // as when the file is read
  m_bucketsUntil = run.bucketsUntil;
  // Samples/s of all ranks; a store filled before it kept the sum has rank 0's alone.
  const bool summed = run.curve(store::kTotalSamplesPerSecKey) != nullptr;
  for (auto& c : run.curves) {
    const auto id = curveSeries(c.key);
    if (!id || (summed && id->chart == RunChart::Speed && id->series == 1)) continue;
    // Rank 0's own is all the ranks' for one rank.
    const SeriesId shown =
        id->chart == RunChart::Speed && run.worldSize == 1 ? SeriesId{id->chart, 0} : *id;
    setPoints(shown, std::move(c.points));
  }
  // The launcher's samples (buckets: their minimum and maximum, so one-sample dips show).
  for (const auto& s : run.samples) m_nodes = std::max(m_nodes, s.id.node + 1);
  for (auto& s : run.samples) setPoints(s.id, std::move(s.points));
  // The summed samples/s goes on from each rank's last stored step.
  for (const auto& e : run.lastSteps)
    if (const auto* st = e.as<tel::StepEvent>()) m_rankSps[e.rank] = st->samplesPerSec;
}

void SeriesStore::applyOne(const RunEvent& e) {
  if (const auto* s = e.as<tel::StepEvent>()) {
    // Samples/s of all ranks: the sum of the ranks' latest, at rank 0's iteration.
    m_rankSps[e.rank] = s->samplesPerSec;
    if (e.rank != 0) return;
    double total = 0;
    for (const auto& [r, v] : m_rankSps) total += v;
    append(seriesPoints(*s, total));
  } else if (const auto* ep = e.as<tel::EpochEndEvent>()) {
    append(seriesPoints(*ep));
  } else if (const auto* v = e.as<tel::ValidationEvent>()) {
    append(seriesPoints(*v));
  } else if (const auto* g = e.as<tel::GpuSampleEvent>()) {
    if (!g->status.empty()) return;  // no GPU on the node
    m_nodes = std::max({m_nodes, g->nodes, g->node + 1});
    append(seriesPoints(*g, e.time - m_t0));
  } else if (const auto* ss = e.as<tel::SystemSampleEvent>()) {
    m_nodes = std::max({m_nodes, ss->nodes, ss->node + 1});
    append(seriesPoints(*ss, e.time - m_t0));
  }
}

}  // namespace stave::studio
