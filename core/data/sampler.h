#pragma once
// Sharding for distributed training with PyTorch DistributedSampler's semantics.

#include <cstdint>
#include <vector>

namespace stave::data {

/// The dataset indices rank `rank` of `worldSize` visits in `epoch`: a permutation of 0..n-1
/// drawn from (seed, epoch) when `shuffle` (else 0..n-1), padded by repeating its start to a
/// multiple of worldSize, then every worldSize-th element from position `rank`. Every rank
/// gets ceil(n / worldSize) indices; all ranks together cover every index.
std::vector<int64_t> distributedIndices(int64_t n, int rank, int worldSize, bool shuffle,
                                        uint64_t seed, int epoch);

/// The shuffled permutation alone (Fisher-Yates driven by Rng(mixSeed(seed, epoch))).
std::vector<int64_t> epochPermutation(int64_t n, uint64_t seed, int epoch);

}  // namespace stave::data
