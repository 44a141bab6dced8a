#include "core/telemetry/step_timer.h"

namespace stave::telemetry {

namespace {
double seconds(StepTimer::Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}
}  // namespace

void StepTimer::startStep() {
  m_timing = StepTiming{};
  m_phaseOpen = false;
  m_stepStart = Clock::now();
}

void StepTimer::begin(StepPhase phase) {
  const auto now = Clock::now();
  if (m_phaseOpen) slot(m_phase) += seconds(now - m_phaseStart);
  m_phase = phase;
  m_phaseStart = now;
  m_phaseOpen = true;
}

void StepTimer::end() {
  if (!m_phaseOpen) return;
  slot(m_phase) += seconds(Clock::now() - m_phaseStart);
  m_phaseOpen = false;
}

void StepTimer::add(StepPhase phase, double s) {
  slot(phase) += s;
}

StepTiming StepTimer::finishStep() {
  end();
  m_timing.total = seconds(Clock::now() - m_stepStart);
  return m_timing;
}

StepTiming StepTimer::current() const {
  StepTiming t = m_timing;
  t.total = seconds(Clock::now() - m_stepStart);
  return t;
}

double& StepTimer::slot(StepPhase phase) {
  switch (phase) {
    case StepPhase::DataWait:
      return m_timing.dataWait;
    case StepPhase::H2D:
      return m_timing.h2d;
    case StepPhase::FwdBwd:
      return m_timing.fwdBwd;
    case StepPhase::AllreduceWait:
      return m_timing.allreduceWait;
    case StepPhase::Optimizer:
      return m_timing.optimizer;
  }
  return m_timing.optimizer;
}

void StepTimingAverage::add(const StepTiming& timing) {
  m_sum = m_sum + timing;
  ++m_count;
}

StepTiming StepTimingAverage::take() {
  StepTiming mean = m_count > 0 ? m_sum * (1.0 / m_count) : StepTiming{};
  m_sum = StepTiming{};
  m_count = 0;
  return mean;
}

}  // namespace stave::telemetry
