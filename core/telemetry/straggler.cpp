#include "core/telemetry/straggler.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace stave::telemetry {

double medianOf(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double shareOf(double part, double total) {
  return total > 0 ? part / total : 0;
}

namespace {
double median(std::vector<double> v) { return medianOf(std::move(v)); }
double share(double part, double total) { return shareOf(part, total); }
}  // namespace

StragglerDetector::StragglerDetector(StragglerOptions options) : m_options(options) {}

void StragglerDetector::add(int rank, const StepTiming& timing) {
  auto& r = m_ranks[rank];
  r.sum = r.sum + timing;
  ++r.count;
}

bool StragglerDetector::addEvent(const Event& event) {
  if (event.type != event_type::kStep) return false;
  auto step = stepFromEvent(event);
  if (!step) return false;
  add(event.rank, step->timing);
  return true;
}

std::optional<StragglerEvent> StragglerDetector::report() {
  struct RankMean {
    int rank;
    StepTiming mean;
    int count;
    double busy;  // time of its own: step minus waiting for the others in the all-reduce
  };
  std::vector<RankMean> ranks;
  for (const auto& [rank, s] : m_ranks) {
    if (s.count < m_options.minSteps) continue;
    const StepTiming mean = s.sum * (1.0 / s.count);
    ranks.push_back({rank, mean, s.count, mean.total - mean.allreduceWait});
  }
  m_ranks.clear();
  if (ranks.empty()) return std::nullopt;

  // Highest own time; on a tie the lower rank (stable order from the map).
  const RankMean* slow = &ranks.front();
  for (const auto& r : ranks) {
    if (r.busy > slow->busy) slow = &r;
  }
  std::vector<const RankMean*> others;
  for (const auto& r : ranks) {
    if (&r != slow) others.push_back(&r);
  }
  auto othersMedian = [&](auto value) {
    std::vector<double> v;
    for (const auto* o : others) v.push_back(value(*o));
    return median(std::move(v));
  };

  const StepTiming& t = slow->mean;
  StragglerEvent ev;
  ev.slowRank = slow->rank;
  ev.stepTime = t.total;
  ev.steps = slow->count;

  bool decided = false;
  if (!others.empty()) {
    ev.imbalance =
        share(slow->busy - othersMedian([](const RankMean& r) { return r.busy; }), t.total);
    if (ev.imbalance >= m_options.minImbalance) {
      // The rank the others wait for: blame the phase where it spends most beyond them.
      double bestExcess = 0;
      for (StepPhase p :
           {StepPhase::DataWait, StepPhase::H2D, StepPhase::FwdBwd, StepPhase::Optimizer}) {
        const double excess = phaseSeconds(t, p) - othersMedian([p](const RankMean& r) {
                                return phaseSeconds(r.mean, p);
                              });
        if (excess > bestExcess) {
          bestExcess = excess;
          ev.waitsOn = p;
          decided = true;
        }
      }
    }
  }
  if (!decided) {
    // Balanced (or alone): what does this rank wait on most? If it hardly waits, it computes.
    double bestWait = -1;
    for (StepPhase p : {StepPhase::DataWait, StepPhase::H2D, StepPhase::AllreduceWait}) {
      if (phaseSeconds(t, p) > bestWait) {
        bestWait = phaseSeconds(t, p);
        ev.waitsOn = p;
      }
    }
    if (share(bestWait, t.total) < m_options.minWaitFraction) ev.waitsOn = StepPhase::FwdBwd;
  }
  ev.fraction = share(phaseSeconds(t, ev.waitsOn), t.total);
  const StepPhase phase = ev.waitsOn;
  ev.othersFraction = others.empty() ? 0 : othersMedian([phase](const RankMean& r) {
    return share(phaseSeconds(r.mean, phase), r.mean.total);
  });
  if (m_options.ranksPerNode > 0) ev.slowNode = ev.slowRank / m_options.ranksPerNode;
  ev.text = describeStragglerText(ev.slowRank, ev.waitsOn, ev.fraction,
                                  others.empty() ? -1.0 : ev.othersFraction, ev.slowNode);
  ev.message = english(ev.text);
  return ev;
}

Text rankNameText(int rank, int node) {
  if (node >= 0) return Text("rank_on_node", {{"rank", std::to_string(rank)}, {"node", std::to_string(node)}});
  return Text("rank", {{"rank", std::to_string(rank)}});
}

std::string rankName(int rank, int node) {
  return english(rankNameText(rank, node));
}

TextParts describeStragglerText(int rank, StepPhase phase, double fraction, double othersFraction,
                                int node) {
  const auto pct = [](double f) { return std::to_string(std::lround(f * 100)) + "%"; };
  const char* id = "straggler.data_wait";
  switch (phase) {
    case StepPhase::DataWait: id = "straggler.data_wait"; break;
    case StepPhase::H2D: id = "straggler.h2d"; break;
    case StepPhase::AllreduceWait: id = "straggler.allreduce_wait"; break;
    case StepPhase::FwdBwd: id = "straggler.fwd_bwd"; break;
    case StepPhase::Optimizer: id = "straggler.optimizer"; break;
  }
  TextParts out{Text(id, {{"rank", rankNameText(rank, node)}, {"share", pct(fraction)}})};
  if (othersFraction >= 0) out.emplace_back("straggler.others", std::vector<Text::Arg>{{"share", pct(othersFraction)}});
  return out;
}

std::string describeStraggler(int rank, StepPhase phase, double fraction, double othersFraction,
                              int node) {
  return english(describeStragglerText(rank, phase, fraction, othersFraction, node));
}

}  // namespace stave::telemetry
