#pragma once
// The one hash of Stave (XXH3 from xxhash) for cache keys and content hashes. Not for security:
// a key only has to tell contents apart, and a changed content must change the key.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

namespace stave {

/// XXH3-64 of `n` bytes at `data`, with `seed`.
uint64_t hash64(const void* data, size_t n, uint64_t seed = 0);
inline uint64_t hash64(std::string_view s, uint64_t seed = 0) {
  return hash64(s.data(), s.size(), seed);
}

/// XXH3-128 of `s` as 32 lower-case hex digits: a content hash shown to users and stored.
std::string hashHex(std::string_view s);

/// XXH3-128 over bytes added piece by piece (equal to hashHex of the concatenation).
class ContentHash {
 public:
  ContentHash();
  ~ContentHash();
  ContentHash(const ContentHash&) = delete;
  ContentHash& operator=(const ContentHash&) = delete;

  void add(const void* data, size_t n);
  void add(std::string_view s) { add(s.data(), s.size()); }
  /// The bytes of an integer or floating-point value (a struct's fields are added one by one:
  /// its padding is not content).
  template <typename T>
  void addValue(const T& v) {
    static_assert(std::is_arithmetic_v<T>, "add a struct's fields one by one");
    add(&v, sizeof v);
  }
  /// 32 lower-case hex digits of what was added so far.
  std::string hex() const;

 private:
  struct State;
  std::unique_ptr<State> m_state;
};

}  // namespace stave
