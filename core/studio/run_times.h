#pragma once
// How long a run trained, in words: each session's time (one process that trained it: the
// start, then each resume) and their sum, for the Run page and History.

#include <QString>
#include <vector>

#include "core/store/session_time.h"
#include "core/telemetry/events.h"

namespace stave::studio {

/// A duration for a person ("0.7 s", "42 s", "12 min 5 s", "3 h 12 min"), translated.
QString durationWords(double seconds);

/// The times of the sessions whose finished event is among `events`, in file order.
std::vector<store::SessionTime> sessionTimes(const std::vector<telemetry::Event>& events);

/// The training and validation time of a run: "training 5.2 s, validation 0.8 s" for one
/// session; for several, the sum, then each session's: "training 1 min 44 s, validation 6.1 s
/// in 2 sessions (training 1 min 20 s + 24 s, validation 4.2 s + 1.9 s)". "" when no session
/// says its times.
QString sessionTimesText(const std::vector<store::SessionTime>& sessions);

}  // namespace stave::studio
