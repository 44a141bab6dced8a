#pragma once
// Human-readable lines for trainer events: what `stave-train follow` prints for a person
// watching a headless run (the JSON lines stay the machine-readable record).

#include <optional>
#include <string>

#include "core/telemetry/events.h"

namespace stave::telemetry {

/// Formats events as console lines. Step events are thinned to one line per `stepEvery`
/// seconds of run time so a fast run does not flood the terminal.
class EventLogFormatter {
 public:
  /// `stepEvery`: minimum seconds between two step lines (0 = every step event).
  explicit EventLogFormatter(double stepEvery = 10.0) : m_stepEvery(stepEvery) {}
  /// The line(s) for `event`, without a trailing newline; nullopt when it prints nothing.
  std::optional<std::string> format(const Event& event);
  /// The finished event's status, once seen ("" before).
  const std::string& finalStatus() const { return m_finalStatus; }

 private:
  double m_stepEvery;
  double m_lastStepTime = -1e300;
  std::string m_finalStatus;
};

}  // namespace stave::telemetry
