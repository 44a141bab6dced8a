#include "core/data/sampler.h"

#include <numeric>

#include "core/base/result.h"
#include "core/data/rng.h"

namespace stave::data {

std::vector<int64_t> epochPermutation(int64_t n, uint64_t seed, int epoch) {
  std::vector<int64_t> p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  Rng rng(mixSeed(seed, static_cast<uint64_t>(epoch), 0x53414D504C4552ull));
  for (int64_t i = n - 1; i > 0; --i) std::swap(p[i], p[rng.below(static_cast<uint64_t>(i + 1))]);
  return p;
}

std::vector<int64_t> distributedIndices(int64_t n, int rank, int worldSize, bool shuffle,
                                        uint64_t seed, int epoch) {
  STAVE_CHECK(worldSize >= 1 && rank >= 0 && rank < worldSize,
              "rank " << rank << " of " << worldSize);
  if (n <= 0) return {};
  std::vector<int64_t> all;
  if (shuffle) {
    all = epochPermutation(n, seed, epoch);
  } else {
    all.resize(static_cast<size_t>(n));
    std::iota(all.begin(), all.end(), 0);
  }
  const int64_t total = (n + worldSize - 1) / worldSize * worldSize;
  for (int64_t i = n; i < total; ++i) all.push_back(all[static_cast<size_t>((i - n) % n)]);
  std::vector<int64_t> mine;
  for (int64_t i = rank; i < total; i += worldSize) mine.push_back(all[static_cast<size_t>(i)]);
  return mine;
}

}  // namespace stave::data
