#pragma once
// Names the short stave: fed the step timings of every rank over a reporting period, finds the
// rank the others wait for and what holds it back ("rank 1 waits for data 41% of its step").
//
// In data-parallel training every rank's step ends at the same all-reduce, so total step times
// look alike; the slow rank is the one with the most time of its own (step minus all-reduce
// wait) while the others wait in the all-reduce for it. What holds it back is the phase in which
// it spends most beyond the other ranks. When no rank stands out (or there is one rank), the
// report names the rank's largest wait (data, host-to-device, all-reduce) or, when it barely
// waits, its compute.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/telemetry/events.h"

namespace stave::telemetry {

/// Tuning of StragglerDetector.
struct StragglerOptions {
  int minSteps = 3;               ///< step samples a rank needs in a period to be judged
  double minImbalance = 0.05;     ///< own-time excess over the others (share of the step) that
                                  ///< makes a rank the straggler for a specific phase
  double minWaitFraction = 0.05;  ///< a balanced rank waiting less than this is compute-bound
  int ranksPerNode = 0;           ///< several nodes: ranks per node, so the slow rank's node is
                                  ///< named (rank / ranksPerNode); 0 = one node, none named
};

/// Collects per-rank step timings for a period and reports the slowest rank. Pure logic; not
/// thread-safe (the launcher feeds it from one thread).
class StragglerDetector {
 public:
  explicit StragglerDetector(StragglerOptions options = {});

  /// Adds one step sample of `rank`.
  void add(int rank, const StepTiming& timing);
  /// Adds the timing of a step event (using the event's rank); other events are ignored.
  /// Returns whether the event was used.
  bool addEvent(const Event& event);
  /// Ranks with at least one sample in the current period.
  int rankCount() const { return static_cast<int>(m_ranks.size()); }
  /// Analyses the period and starts a new one. nullopt when no rank has minSteps samples.
  std::optional<StragglerEvent> report();
  /// Drops the samples of the current period.
  void clear() { m_ranks.clear(); }

 private:
  struct RankSamples {
    StepTiming sum;
    int count = 0;
  };
  StragglerOptions m_options;
  std::map<int, RankSamples> m_ranks;
};

/// The median of `values` (0 when empty).
double medianOf(std::vector<double> values);
/// part / total, 0 when total is not positive.
double shareOf(double part, double total);

/// The sentence of a straggler event, e.g. "rank 1 waits for data 41% of its step; other
/// ranks 2%", or "rank 3 on node 1 waits ..." when `node` >= 0. `othersFraction` < 0 leaves out
/// the comparison (one rank).
std::string describeStraggler(int rank, StepPhase phase, double fraction, double othersFraction,
                              int node = -1);
/// The same sentence as catalog messages (core/base/message.h), for the studio to translate.
TextParts describeStragglerText(int rank, StepPhase phase, double fraction, double othersFraction,
                                int node = -1);
/// "rank 3", or "rank 3 on node 1" when `node` >= 0.
std::string rankName(int rank, int node);
/// The same as a catalog message.
Text rankNameText(int rank, int node);

}  // namespace stave::telemetry
