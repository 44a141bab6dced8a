// The launcher's samples into buckets of time: the finest level gathered as they come, the
// coarser levels derived from it at each flush.
#include "core/store/sample_buckets.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/store/store.h"
#include "core/store/store_sql.h"

namespace stave::store::detail {

using sql::Stmt;

void SampleBuckets::add(const std::string& key, int rank, double time, double value) {
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

bool SampleBuckets::flush(sqlite3* db, int64_t runId) {
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
      up.bind(1, runId)
          .bind(2, m_keys[static_cast<size_t>(k.key)])
          .bind(3, int64_t{k.rank})
          .bind(4, int64_t{l})
          .bind(5, k.bucket)
          .bind(6, a.n)
          .bind(7, a.lo)
          .bind(8, a.hi)
          .bind(9, a.sum)
          .bind(10, a.tsum);
      const bool ok = up.step() == SQLITE_DONE;
      up.reset();
      if (!ok) return false;
    }
  }
  return true;
}

bool SampleBuckets::Key::operator<(const Key& o) const {
  return std::tie(key, rank, bucket) < std::tie(o.key, o.rank, o.bucket);
}

void SampleBuckets::Agg::add(double v, double t) {
  lo = n == 0 ? v : std::min(lo, v);
  hi = n == 0 ? v : std::max(hi, v);
  ++n;
  sum += v;
  tsum += t;
}

void SampleBuckets::Agg::merge(const Agg& o) {
  if (o.n == 0) return;
  lo = n == 0 ? o.lo : std::min(lo, o.lo);
  hi = n == 0 ? o.hi : std::max(hi, o.hi);
  n += o.n;
  sum += o.sum;
  tsum += o.tsum;
}

void SampleBuckets::close(int key, int rank, Slot& slot) {
  if (slot.agg.n == 0) return;
  m_done[Key{key, rank, slot.bucket}].merge(slot.agg);
  slot.agg = Agg{};
}

}  // namespace stave::store::detail
