#include "core/base/hash.h"

#include <xxhash.h>

#include <cstdio>
#include <stdexcept>

namespace stave {
namespace {
std::string hexOf(XXH128_hash_t h) {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return buf;
}
}  // namespace

uint64_t hash64(const void* data, size_t n, uint64_t seed) {
  return XXH3_64bits_withSeed(data, n, seed);
}

std::string hashHex(std::string_view s) { return hexOf(XXH3_128bits(s.data(), s.size())); }

struct ContentHash::State {
  XXH3_state_t* s = XXH3_createState();
  ~State() { XXH3_freeState(s); }
};

ContentHash::ContentHash() : m_state(std::make_unique<State>()) {
  if (!m_state->s) throw std::bad_alloc();
  XXH3_128bits_reset(m_state->s);
}

ContentHash::~ContentHash() = default;

void ContentHash::add(const void* data, size_t n) { XXH3_128bits_update(m_state->s, data, n); }

std::string ContentHash::hex() const { return hexOf(XXH3_128bits_digest(m_state->s)); }

}  // namespace stave
