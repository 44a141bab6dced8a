#include "core/dist/straggler.h"

#include <cmath>
#include <cstdio>

namespace stave::dist {
namespace {

double pick(const nlohmann::json& j, const char* snake, const char* camel, bool* found) {
  for (const char* k : {snake, camel}) {
    auto it = j.find(k);
    if (it != j.end() && it->is_number()) {
      *found = true;
      return it->get<double>();
    }
  }
  return 0.0;
}

}  // namespace

bool RankTiming::add(const nlohmann::json& data) {
  if (!data.is_object()) return false;
  const nlohmann::json& t = data.contains("timing") && data["timing"].is_object() ? data["timing"] : data;
  bool found = false;
  const double dw = pick(t, "data_wait", "dataWait", &found);
  const double hd = pick(t, "h2d", "h2d", &found);
  const double fb = pick(t, "fwd_bwd", "fwdBwd", &found);
  const double ar = pick(t, "allreduce_wait", "allreduceWait", &found);
  const double op = pick(t, "optimizer", "optimizer", &found);
  bool haveTotal = false;
  double tot = pick(t, "total", "total", &haveTotal);
  if (!found && !haveTotal) return false;
  if (!haveTotal) tot = dw + hd + fb + ar + op;
  dataWait += dw;
  h2d += hd;
  fwdBwd += fb;
  allreduceWait += ar;
  optimizer += op;
  total += tot;
  ++steps;
  return true;
}

nlohmann::json StragglerReport::toJson() const {
  return nlohmann::json{{"slowest_rank", rank},  {"waits_on", waitsOn}, {"fraction", fraction},
                        {"step_s", stepS},       {"own_s", ownS},       {"fastest_own_s", fastestOwnS},
                        {"message", message},    {"ranks", perRank}};
}

std::optional<StragglerReport> detectStraggler(const std::vector<RankTiming>& ranks) {
  std::vector<const RankTiming*> active;
  for (const auto& r : ranks)
    if (r.steps > 0 && r.total > 0) active.push_back(&r);
  if (active.size() < 2) return std::nullopt;

  // In synchronous data parallelism every rank's step takes about as long; the others absorb
  // the slow one's extra time as all-reduce wait, so the slow rank has the most time outside it.
  StragglerReport rep;
  rep.perRank = nlohmann::json::array();
  const RankTiming* slow = nullptr;
  double slowOwn = -1, fastOwn = 1e300;
  for (const auto* r : active) {
    const double own = (r->total - r->allreduceWait) / r->steps;
    rep.perRank.push_back({{"rank", r->rank},
                           {"steps", r->steps},
                           {"step_s", r->total / r->steps},
                           {"own_s", own},
                           {"data_wait", r->dataWait / r->total},
                           {"h2d", r->h2d / r->total},
                           {"fwd_bwd", r->fwdBwd / r->total},
                           {"allreduce_wait", r->allreduceWait / r->total},
                           {"optimizer", r->optimizer / r->total}});
    if (own > slowOwn) {
      slowOwn = own;
      slow = r;
    }
    fastOwn = std::min(fastOwn, own);
  }
  rep.rank = slow->rank;
  rep.stepS = slow->total / slow->steps;
  rep.ownS = slowOwn;
  rep.fastestOwnS = fastOwn;
  struct Part {
    const char* name;
    double seconds;
  } parts[] = {{"data", slow->dataWait},
               {"h2d", slow->h2d},
               {"compute", slow->fwdBwd},
               {"optimizer", slow->optimizer}};
  const Part* worst = &parts[0];
  for (const auto& p : parts)
    if (p.seconds > worst->seconds) worst = &p;
  rep.waitsOn = worst->name;
  rep.fraction = worst->seconds / slow->total;
  const int pct = static_cast<int>(std::lround(rep.fraction * 100));
  char buf[200];
  if (rep.waitsOn == "data")
    std::snprintf(buf, sizeof buf, "rank %d waits for data %d%% of its step", rep.rank, pct);
  else if (rep.waitsOn == "h2d")
    std::snprintf(buf, sizeof buf, "rank %d spends %d%% of its step copying to the device",
                  rep.rank, pct);
  else if (rep.waitsOn == "optimizer")
    std::snprintf(buf, sizeof buf, "rank %d spends %d%% of its step in the optimiser", rep.rank,
                  pct);
  else
    std::snprintf(buf, sizeof buf, "rank %d spends %d%% of its step in forward+backward",
                  rep.rank, pct);
  rep.message = buf;
  return rep;
}

}  // namespace stave::dist
