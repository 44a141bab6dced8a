#pragma once
// Events of a run's sessions, for tests of what the studio makes of them (run times, the Run
// page's log): a run_start and a finished event at given times.

#include <string>

#include "core/telemetry/events.h"

namespace stave::test {

/// run_start of a 3-epoch run at unix time `t`.
inline telemetry::Event runStart(double t) {
  telemetry::RunStartEvent rs;
  rs.config = {{"epochs", 3}};
  auto e = telemetry::toEvent(rs, 0);
  e.time = t;
  return e;
}

/// finished at `t`: `status` after `done` of 3 epochs, its `message` ("training X s, …") and
/// the session's wall time.
inline telemetry::Event finished(double t, telemetry::RunStatus status, int done,
                                 const std::string& message, double wall) {
  telemetry::FinishedEvent f;
  f.status = status;
  f.epochsCompleted = done;
  f.epochs = 3;
  f.totalTime = wall;
  f.message = message;
  auto e = telemetry::toEvent(f, 0);
  e.time = t;
  return e;
}

}  // namespace stave::test
