#pragma once
// The times of one session of a run (one process that trained it: the start, then each
// resume), read from the session's finished event. The trainer says them in its message
// ("...; training 12 min 5 s, validation 42 s"), one session's alone: a resumed run's totals
// are the sum over its sessions.

#include <optional>
#include <string>
#include <vector>

namespace stave::store {

/// Seconds one session spent (-1: not known).
struct SessionTime {
  double train = -1;  ///< in training (the trainer's "training X")
  double val = -1;    ///< in validation (its "validation Y")
  double wall = -1;   ///< from the session's start to its finished event (total_time)
};

/// A duration in the trainer's words ("0.7 s", "42 s", "12 min 5 s", "3 h 12 min") in seconds;
/// nullopt when `text` is none of these.
std::optional<double> parseDurationWords(const std::string& text);

/// The times of a session from its finished event: "training X, validation Y" of `message`
/// (-1 each when the message has none) and `wallSeconds`.
SessionTime sessionTimeFromFinished(const std::string& message, double wallSeconds);

/// The sum of the known times of `sessions` (-1 where no session knows one).
SessionTime totalTime(const std::vector<SessionTime>& sessions);

}  // namespace stave::store
