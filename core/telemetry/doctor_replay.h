#pragma once
// The doctor over a whole event log (stave-train doctor): the run's events replayed in event
// time, period by period as the run itself judged them, then the report over the whole run.
// A log is read as found: a line that is no event (bad JSON, a number out of range, longer than
// any event) is skipped and counted, and an event whose time cannot be the run's (not finite,
// long before the run started, in the far future) is left out before any period is stepped
// through to reach it — one time of 1e300 would otherwise step through periods for ever.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/telemetry/doctor.h"

namespace stave::telemetry {

/// Seconds an event's time may lie before the run's first event or after the present.
constexpr double kEventTimeSlackS = 86400;
/// The longest run whose events are replayed (a year): what lies later is not this run's.
constexpr double kMaxRunS = 366 * 86400.0;

/// Whether `time` (Unix seconds) can be the time of an event of a run whose first event came at
/// `runStart` (<= 0: none yet), read at `now`: finite, not negative, at most a day before
/// `runStart`, at most kMaxRunS after it, and at most a day after `now`.
bool plausibleEventTime(double time, double runStart, double now);

/// Replays one run's events.jsonl through a Doctor. Feed every line in order, then read the
/// results.
class DoctorReplay {
 public:
  /// `now`: the present in Unix seconds (the latest plausible time is a day after it).
  explicit DoctorReplay(double now = unixTimeNow());
  DoctorReplay(const DoctorReplay&) = delete;
  DoctorReplay& operator=(const DoctorReplay&) = delete;

  /// One line of the log, its 1-based number `lineNo`.
  void addLine(std::string_view line, int64_t lineNo);
  /// A line longer than the reader's cap, skipped without being read.
  void addTooLongLine(int64_t lineNo);

  /// Lines skipped and why: a count, the first one's number and its reason.
  struct Skipped {
    int count = 0;
    int64_t firstLine = 0;
    std::string firstWhy;
    void add(int64_t line, const std::string& why);
  };

  const Doctor& doctor() const { return m_doctor; }
  /// The run's reporting period (its run_start's report_period_s when at least 1 s, else 30 s).
  double period() const { return m_period; }
  /// The periods that had enough steps to be judged, in order.
  const std::vector<DiagnosisEvent>& periods() const { return m_periods; }
  /// Per rule: in how many judged periods it was active.
  const std::map<std::string, int>& periodsActive() const { return m_periodsActive; }
  /// Diagnosis events the run wrote itself (judged afresh, not counted as findings).
  int recordedDiagnoses() const { return m_recorded; }
  /// The run's final status ("" without a finished event) and its message.
  const std::string& status() const { return m_status; }
  const std::string& finishMessage() const { return m_finishMessage; }
  /// Lines that are not events (bad JSON, out of range, too long).
  const Skipped& badLines() const { return m_badLines; }
  /// Events left out for an implausible time.
  const Skipped& badTimes() const { return m_badTimes; }
  /// Step events with impossible timings (negative, not finite, zero step time).
  const Skipped& droppedSteps() const { return m_droppedSteps; }

 private:
  Doctor m_doctor;
  EventDispatch m_facts;
  double m_now;
  double m_period = 30;
  double m_periodStart = 0;
  double m_runStart = 0;
  std::vector<DiagnosisEvent> m_periods;
  std::map<std::string, int> m_periodsActive;
  int m_recorded = 0;
  std::string m_status, m_finishMessage;
  Skipped m_badLines, m_badTimes, m_droppedSteps;
};

}  // namespace stave::telemetry
