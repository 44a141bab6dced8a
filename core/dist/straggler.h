#pragma once
// Names the slowest rank of a reporting period and what it waits on, from the ranks' step
// timing. Minimal on purpose: core/telemetry's StragglerDetector (helper "telemetry") is meant
// to replace detectStraggler() once merged; the launcher calls only this one function.

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace stave::dist {

/// Sums of one rank's step timing over a period (seconds).
struct RankTiming {
  int rank = 0;             ///< global rank
  int steps = 0;            ///< step events seen
  double dataWait = 0;      ///< waiting for the loader
  double h2d = 0;           ///< host-to-device copies
  double fwdBwd = 0;        ///< forward + backward
  double allreduceWait = 0; ///< blocked on gradient all-reduce
  double optimizer = 0;     ///< optimiser step
  double total = 0;         ///< whole step

  /// Adds one step event's `data` (timing under "timing" or at top level; snake_case or
  /// camelCase keys). Returns false when it holds no timing.
  bool add(const nlohmann::json& stepData);
};

/// The slow rank of a period.
struct StragglerReport {
  int rank = 0;              ///< the slowest rank (least time blocked in all-reduce)
  std::string waitsOn;       ///< "data", "h2d", "compute", "optimizer"
  double fraction = 0;       ///< share of its step spent on `waitsOn`
  double stepS = 0;          ///< its mean step time
  double ownS = 0;           ///< its mean step time outside the all-reduce wait
  double fastestOwnS = 0;    ///< the same for the fastest rank
  std::string message;       ///< e.g. "rank 1 waits for data 41% of its step"
  nlohmann::json perRank;    ///< [{rank, steps, step_s, own_s, data_wait, ...}]

  /// The event payload.
  nlohmann::json toJson() const;
};

/// The rank the others wait for: the one with the most step time outside the all-reduce wait.
/// nullopt when fewer than two ranks reported steps.
std::optional<StragglerReport> detectStraggler(const std::vector<RankTiming>& ranks);

}  // namespace stave::dist
