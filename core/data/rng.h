#pragma once
// A small seeded random generator whose output is fixed by this file alone. std::mt19937 is
// portable but std::uniform_*_distribution is not (libstdc++ and libc++ differ), and Stave
// promises identical data for the same seed on every build.

#include <cmath>
#include <cstdint>

namespace stave::data {

/// SplitMix64 step: a strong 64-bit mixer, used to derive seeds from several integers.
inline uint64_t splitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Combines integers into one seed, order-sensitive (seed, epoch, index, stream...).
inline uint64_t mixSeed(uint64_t a, uint64_t b, uint64_t c = 0, uint64_t d = 0) {
  uint64_t h = splitMix64(a);
  h = splitMix64(h ^ b);
  h = splitMix64(h ^ c);
  return splitMix64(h ^ d);
}

/// xoshiro256** with helpers for uniform floats and integers. Same seed, same sequence.
class Rng {
 public:
  /// Seeds the four state words from `seed` through SplitMix64.
  explicit Rng(uint64_t seed = 0) {
    uint64_t x = seed;
    for (auto& s : m_s) {
      x += 0x9E3779B97F4A7C15ull;
      s = splitMix64(x);
    }
  }
  /// Next 64 random bits.
  uint64_t next() {
    const uint64_t result = rotl(m_s[1] * 5, 7) * 9;
    const uint64_t t = m_s[1] << 17;
    m_s[2] ^= m_s[0];
    m_s[3] ^= m_s[1];
    m_s[1] ^= m_s[2];
    m_s[0] ^= m_s[3];
    m_s[2] ^= t;
    m_s[3] = rotl(m_s[3], 45);
    return result;
  }
  /// Uniform double in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
  /// Uniform double in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Uniform integer in [0, n) (n > 0), by multiply-shift (bias negligible for small n).
  uint64_t below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }
  /// Uniform integer in [lo, hi] inclusive.
  int64_t range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(below(static_cast<uint64_t>(hi - lo + 1)));
  }
  /// Approximately normal(0, 1) from the sum of four uniforms (enough for texture noise).
  double roughNormal() {
    return (uniform() + uniform() + uniform() + uniform() - 2.0) * 1.7320508075688772;
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t m_s[4];
};

}  // namespace stave::data
