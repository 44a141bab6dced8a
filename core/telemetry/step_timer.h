#pragma once
// Splits each training step into phases on the steady clock. On CUDA the trainer synchronises
// (or records events) before ending a phase; the timer only measures host wall time.

#include <chrono>

#include "core/telemetry/events.h"

namespace stave::telemetry {

/// Accumulates the time of each phase within one step. Not thread-safe (one per training loop).
class StepTimer {
 public:
  using Clock = std::chrono::steady_clock;

  /// Starts a step (ends any open phase of the previous one without counting it).
  void startStep();
  /// Starts `phase` now, ending the open phase (if any) first.
  void begin(StepPhase phase);
  /// Ends the open phase, adding its time to the step. No-op when none is open.
  void end();
  /// Adds seconds measured elsewhere (e.g. the all-reduce wait returned by GradientSync).
  void add(StepPhase phase, double seconds);
  /// Ends the step: closes the open phase, sets total to the time since startStep(), returns
  /// the timing and starts nothing (call startStep() for the next one).
  StepTiming finishStep();
  /// The timing so far (total = time since startStep()).
  StepTiming current() const;

  /// Times one phase for the lifetime of the object.
  class Scope {
   public:
    Scope(StepTimer& timer, StepPhase phase) : m_timer(timer) { m_timer.begin(phase); }
    ~Scope() { m_timer.end(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    StepTimer& m_timer;
  };

 private:
  double& slot(StepPhase phase);
  StepTiming m_timing;
  Clock::time_point m_stepStart = Clock::now();
  Clock::time_point m_phaseStart;
  StepPhase m_phase = StepPhase::DataWait;
  bool m_phaseOpen = false;
};

/// Mean of the step timings added since the last take(); for "every few iterations" reports.
class StepTimingAverage {
 public:
  /// Adds one step.
  void add(const StepTiming& timing);
  /// Steps added since the last take().
  int count() const { return m_count; }
  /// The mean since the last take(), and starts over. All zero when nothing was added.
  StepTiming take();

 private:
  StepTiming m_sum;
  int m_count = 0;
};

}  // namespace stave::telemetry
