#pragma once
// Monotonic time for measuring stages and steps (never wall-clock time).

#include <chrono>

namespace stave {

/// Seconds on the steady clock (only differences mean something).
inline double monotonicSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Seconds elapsed since `t` on the steady clock.
inline double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace stave
