#pragma once
// The short-stave doctor: turns the ranks' step split, the node's GPU and system samples and the
// run's config into a diagnosis ("data-bound: ranks wait for data 45% of their step") and
// concrete advice (`workers=8 cache=ram`).
//
// The rules are a table (doctor.cpp, kRules): each reads one window of the run — the mean step
// split of every rank, the GPU and CPU samples of the same time, the config — and either stays
// silent or returns a finding with the numbers that made it fire. Two guards keep the advice
// steady: warm-up steps (the first steps of every rank, and the whole first epoch when the
// loader fills a cache) are never judged, and during a run a rule is reported only after it held
// for `confirmPeriods` periods in a row, and withdrawn only after it failed its (lower) clearing
// threshold as often — so no advice flaps between periods. The final report judges every step
// after the warm-up at once. In a run of several nodes every node's samples reach it (node 0's
// launcher relays them), and a finding names the node and GPU its numbers come from.
//
// Pure logic; not thread-safe (RunMonitor serialises it).

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/telemetry/event_dispatch.h"
#include "core/telemetry/events.h"

namespace stave::telemetry {

/// Tuning of the doctor. The thresholds are shares of a rank's mean step time (0..1).
struct DoctorOptions {
  int minSteps = 3;             ///< step samples a rank needs in a period to be judged
  int minFinalSteps = 6;        ///< step samples (all ranks) the final report needs
  int warmupSteps = 5;          ///< first steps of every rank that are never judged
  int confirmPeriods = 2;       ///< periods a rule must hold (or fail) in a row to change
  double dataWaitShare = 0.20;  ///< data-bound from this share of the step on ...
  double dataWaitClear = 0.12;  ///< ... until it falls below this one
  double h2dShare = 0.15;       ///< input-copy-bound
  double h2dClear = 0.08;
  double allreduceShare = 0.20; ///< communication-bound (all-reduce wait, balanced ranks)
  double allreduceClear = 0.12;
  double imbalance = 0.10;      ///< straggler: own-time excess of one rank over the others
  double imbalanceClear = 0.05;
  double cpuSaturated = 85;     ///< % of all cores busy: more loader threads would not help
  double gpuUtilLow = 70;       ///< % GPU utilisation below which a GPU is under-used ...
  double gpuUtilClear = 80;     ///< ... until it rises above this
  double memoryNearFull = 0.95; ///< GPU memory share at which OOM is near
  double memoryHeadroom = 0.40; ///< GPU memory share below which the batch could grow
};

/// What the doctor knows of the run from its run_start event (or a config alone).
struct RunFacts {
  std::string device = "cpu";                        ///< "cpu" or "cuda"
  int worldSize = 1;                                 ///< ranks
  int localRanks = 1;                                ///< ranks on one node
  nlohmann::json config = nlohmann::json::object();  ///< resolved run config
  int cores = 0;                                     ///< the node's logical cores (0 = unknown)
  int nodes = 1;                                     ///< machines in the run
};

/// One rank's share of a window.
struct RankWindow {
  StepTiming mean;  ///< mean step split
  int steps = 0;    ///< step samples behind it
};

/// Everything one evaluation of the rules sees.
struct DoctorWindow {
  std::map<int, RankWindow> ranks;   ///< judged ranks (warm-up excluded)
  int warmupSteps = 0;               ///< step samples left out as warm-up
  double gpuUtil = -1;               ///< mean % utilisation over the GPUs and samples (-1 none)
  double gpuMemoryShare = -1;        ///< highest used/total of any GPU in the window (-1 none)
  int gpuSamples = 0;                ///< gpu_sample readings behind those
  double cpuBusy = -1;               ///< mean % of all cores busy (-1 none); the busiest node's
  int cpuSamples = 0;                ///< system_sample readings behind it
  double periodS = 0;                ///< seconds the window covers
  // Where those numbers come from, so that a finding can name the node and GPU.
  int nodes = 1;                     ///< nodes in the run (from its samples and run_start)
  int cpuNode = 0;                   ///< the node whose CPU cpuBusy is
  int fullestGpuNode = 0;            ///< the GPU of gpuMemoryShare: its node ...
  int fullestGpuIndex = -1;          ///< ... and index (-1 none)
  int idlestGpuNode = 0;             ///< the GPU with the lowest mean utilisation: its node ...
  int idlestGpuIndex = -1;           ///< ... and index (-1 none)
  double idlestGpuUtil = -1;         ///< ... and its mean %
};

/// The result of one rule on one window.
struct RuleVerdict {
  bool fires = false;  ///< the finding holds (above the firing threshold)
  bool holds = false;  ///< it still holds by the (lower) clearing threshold
  Finding finding;     ///< what to report when it fires or keeps holding
};

/// The rules' ids, in the order the doctor evaluates them (docs/doctor.md explains each).
std::vector<std::string> doctorRuleIds();

/// Runs every rule on `window` (no hysteresis): the findings that fire, most severe first.
std::vector<Finding> evaluateRules(const DoctorWindow& window, const RunFacts& facts,
                                   const DoctorOptions& options = {});

/// Feeds on a run's events and reports a diagnosis per period and at the end.
class Doctor {
 public:
  explicit Doctor(DoctorOptions options = {});
  Doctor(const Doctor&) = delete;  // its event handlers hold `this`
  Doctor& operator=(const Doctor&) = delete;

  /// Sets what the doctor knows of the run (run_start sets it too).
  void setFacts(const RunFacts& facts);
  const RunFacts& facts() const { return m_facts; }

  /// Takes a run_start, step, epoch_end, gpu_sample or system_sample event; others are ignored.
  /// Step events with non-finite or negative timings are dropped. Returns whether it was used.
  bool add(const Event& event);

  /// Judges the period since the previous call (of `periodS` seconds) and starts a new one.
  /// A rule joins the findings once it held for confirmPeriods periods and leaves them once it
  /// failed as often; a period with too few steps changes nothing. `judged` (optional) says
  /// whether the period had enough steps to be judged at all.
  DiagnosisEvent diagnose(double periodS, bool* judged = nullptr);

  /// The report over the whole run so far (every step after the warm-up), final = true.
  DiagnosisEvent finalReport() const;

  /// Every step after the warm-up so far, as the final report judges it.
  DoctorWindow runWindow() const;

  /// Step samples seen so far (judged + warm-up).
  int stepsSeen() const { return m_stepsSeen; }

 private:
  bool addRunStart(const RunStartEvent& rs);
  bool addStep(const Event& e, const StepEvent& s);
  bool addGpu(const GpuSampleEvent& g);
  bool addSystem(const SystemSampleEvent& s);
  EventDispatch m_dispatch;  ///< the events the doctor reads, one handler each
  bool m_used = false;       ///< the event being added fed a rule
  struct Accumulator {
    std::map<int, std::pair<StepTiming, int>> ranks;  // sum, count
    int warmup = 0;
    double gpuUtilSum = 0;
    int gpuUtilCount = 0;
    double gpuMemoryShare = -1;
    std::pair<int, int> fullestGpu{0, -1};                    // (node, index) of that share
    std::map<std::pair<int, int>, std::pair<double, int>> gpuUtil;  // per (node, index): sum, n
    int gpuSamples = 0;
    std::map<int, std::pair<double, int>> cpu;  // per node: sum of cpu_total, samples
    int cpuSamples = 0;
  };
  DoctorWindow windowOf(const Accumulator& acc, double periodS) const;
  bool isWarmup(int rank, int epoch) const;
  DiagnosisEvent build(std::vector<Finding> findings, const DoctorWindow& window,
                       bool final) const;

  DoctorOptions m_options;
  RunFacts m_facts;
  Accumulator m_period;
  Accumulator m_run;
  std::map<int, int> m_rankSteps;   // steps seen per rank (warm-up counting)
  int m_firstEpoch = -1;            // the first epoch this process saw (a resume starts later)
  int m_stepsSeen = 0;
  double m_runStart = 0;
  double m_lastTime = 0;
  struct RuleState {
    int hits = 0;       // periods in a row it fired
    int misses = 0;     // periods in a row it did not hold
    bool active = false;
    Finding last;       // its latest finding while active
  };
  std::map<std::string, RuleState> m_state;
};

/// The report as a person reads it: one line per finding with its advice, or why there is none.
std::string formatDiagnosis(const DiagnosisEvent& report);

}  // namespace stave::telemetry
