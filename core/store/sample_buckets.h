#pragma once
// Internal to core/store: the launcher's samples (gpu_sample, system_sample, ...) of one
// ingestion, gathered into buckets of time. Not a public header: include it only from
// core/store/*.cpp.

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

struct sqlite3;

namespace stave::store::detail {

/// The launcher's samples of one ingestion, gathered into buckets of the finest level and
/// written (merged with what the database holds) at each flush, with the coarser levels.
class SampleBuckets {
 public:
  /// One value of `key` from `rank` (-1: the launcher) at `time`; non-finite ones are dropped.
  void add(const std::string& key, int rank, double time, double value);
  /// Writes what was gathered in the open transaction and forgets it; false on a database error.
  bool flush(sqlite3* db, int64_t runId);

 private:
  struct Key {
    int key;
    int rank;
    int64_t bucket;
    bool operator<(const Key& o) const;
  };
  struct Agg {
    int64_t n = 0;
    double lo = 0, hi = 0, sum = 0, tsum = 0;
    void add(double v, double t);
    void merge(const Agg& o);
  };
  struct Slot {
    int64_t bucket = 0;
    Agg agg;
  };
  /// An open bucket is written as it is (the database merges it with the rest of the bucket
  /// that the next ingestion brings).
  void close(int key, int rank, Slot& slot);
  std::unordered_map<std::string, int> m_ids;
  std::vector<std::string> m_keys;
  std::vector<Slot> m_launcher;
  std::map<std::pair<int, int>, Slot> m_ranks;
  std::map<Key, Agg> m_done;
};

}  // namespace stave::store::detail
