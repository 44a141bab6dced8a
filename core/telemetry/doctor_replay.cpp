#include "core/telemetry/doctor_replay.h"

#include <cmath>
#include <cstdio>
#include <optional>

namespace stave::telemetry {

bool plausibleEventTime(double time, double runStart, double now) {
  if (!std::isfinite(time) || time < 0) return false;
  if (runStart > 0 && (time < runStart - kEventTimeSlackS || time > runStart + kMaxRunS))
    return false;
  return time <= now + kEventTimeSlackS;
}

void DoctorReplay::Skipped::add(int64_t line, const std::string& why) {
  if (count++ == 0) {
    firstLine = line;
    firstWhy = why;
  }
}

DoctorReplay::DoctorReplay(double now) : m_now(now) {
  m_facts
      .on<RunStartEvent>([this](const Event&, const RunStartEvent& rs) {
        const auto p = rs.config.find("report_period_s");
        if (p != rs.config.end() && p->is_number() && std::isfinite(p->get<double>()) &&
            p->get<double>() >= 1)
          m_period = p->get<double>();
      })
      .on<FinishedEvent>([this](const Event&, const FinishedEvent& f) {
        m_status = toString(f.status);
        m_finishMessage = f.message;
      });
}

void DoctorReplay::addTooLongLine(int64_t lineNo) {
  m_badLines.add(lineNo, "longer than any event");
}

void DoctorReplay::addLine(std::string_view line, int64_t lineNo) {
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return;
  std::optional<Result<Event>> decoded;
  try {
    decoded.emplace(decodeEvent(line));
  } catch (const std::exception& ex) {  // whatever the decoding throws costs this line only
    decoded.emplace(Error{"", 0, "", ex.what()});
  }
  auto& e = *decoded;
  if (!e) {
    m_badLines.add(lineNo, e.errorText());
    return;
  }
  if (e->type == event_type::kDiagnosis) {
    ++m_recorded;
    return;  // judged afresh
  }
  // Checked before anything steps through periods to reach it.
  if (e->time != 0 && !plausibleEventTime(e->time, m_runStart, m_now)) {
    char t[64];
    std::snprintf(t, sizeof t, "%g", e->time);
    m_badTimes.add(lineNo, e->type + " at time " + t);
    return;
  }
  m_facts(e.value());
  if (e->time > 0) {
    if (m_runStart <= 0) m_runStart = e->time;
    if (m_periodStart <= 0) m_periodStart = e->time;
    while (e->time - m_periodStart >= m_period) {
      bool judged = false;
      DiagnosisEvent d = m_doctor.diagnose(m_period, &judged);
      m_periodStart += m_period;
      if (!judged) continue;
      for (const auto& f : d.findings) ++m_periodsActive[f.rule];
      m_periods.push_back(std::move(d));
    }
  }
  if (!m_doctor.add(e.value()) && e->type == event_type::kStep)
    m_droppedSteps.add(lineNo, "impossible timings");
}

}  // namespace stave::telemetry
