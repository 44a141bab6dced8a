#include "core/telemetry/doctor.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>
#include <thread>
#include <tuple>

#include "core/config/schema.h"
#include "core/telemetry/hardware_names.h"
#include "core/telemetry/straggler.h"

namespace stave::telemetry {
namespace {

double median(std::vector<double> v) { return medianOf(std::move(v)); }
double share(double part, double total) { return shareOf(part, total); }

std::string percent(double fraction) {
  return std::to_string(std::lround(fraction * 100)) + "%";
}

// What every rule reads: the window, the run and a few derived numbers.
struct Context {
  const DoctorWindow& w;
  const RunFacts& run;
  const DoctorOptions& opt;

  bool cuda() const { return run.device == "cuda"; }
  bool distributed() const { return run.worldSize > 1 && w.ranks.size() > 1; }
  // The median over ranks of a phase's share of the step.
  double phaseShare(StepPhase phase) const {
    std::vector<double> v;
    for (const auto& [rank, r] : w.ranks) v.push_back(share(phaseSeconds(r.mean, phase), r.mean.total));
    return median(std::move(v));
  }
  double stepSeconds() const {
    std::vector<double> v;
    for (const auto& [rank, r] : w.ranks) v.push_back(r.mean.total);
    return median(std::move(v));
  }
  int steps() const {
    int n = 0;
    for (const auto& [rank, r] : w.ranks) n += r.steps;
    return n;
  }
  // The run's value of `key`, or the schema's default when the run's config lacks it (or holds
  // another type): the doctor judges a run by the values it trained with.
  int64_t integer(const char* key) const {
    auto it = run.config.find(key);
    return it != run.config.end() && it->is_number()
               ? it->get<int64_t>()
               : static_cast<int64_t>(config::defaultNumber(key));
  }
  double number(const char* key) const {
    auto it = run.config.find(key);
    return it != run.config.end() && it->is_number() ? it->get<double>()
                                                     : config::defaultNumber(key);
  }
  // An enum row such as channels_last that takes true/false counts as false unless set true.
  bool boolean(const char* key) const {
    auto it = run.config.find(key);
    if (it != run.config.end() && it->is_boolean()) return it->get<bool>();
    const config::ParamSpec* spec = config::findParam(key);
    return spec != nullptr && spec->type == config::ParamType::Bool && config::defaultNumber(key);
  }
  std::string string(const char* key) const {
    auto it = run.config.find(key);
    if (it != run.config.end() && it->is_string()) return it->get<std::string>();
    return config::formatValue(config::runConfigSchema()[config::paramIndex(key)].defaultValue);
  }
  int coresPerRank() const {
    const int cores = run.cores > 0 ? run.cores
                                    : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    return std::max(1, cores / std::max(1, run.localRanks));
  }
  bool cpuSaturated() const { return w.cpuBusy >= opt.cpuSaturated; }
};

// A verdict for a value judged against a firing and a (lower) clearing threshold.
RuleVerdict above(double value, double fire, double clear) {
  RuleVerdict v;
  v.fires = value >= fire;
  v.holds = value >= clear;
  return v;
}
RuleVerdict below(double value, double fire, double clear) {
  RuleVerdict v;
  v.fires = value < fire;
  v.holds = value < clear;
  return v;
}

Text cpuText(const Context& c) {
  if (c.w.cpuBusy < 0) return Text("doctor.cpu_unknown");
  const std::string pct = std::to_string(std::lround(c.w.cpuBusy)) + "%";
  if (c.w.nodes > 1)
    return Text("doctor.cpu_busy_node", {{"percent", pct}, {"node", nodeNameText(c.w.cpuNode)}});
  return Text("doctor.cpu_busy", {{"percent", pct}});
}


// A finding's title and sentences are catalog messages (core/base/message.h); the English
// beside them is made from the same messages.
void setTitle(Finding& f, const char* titleId) {
  f.titleText = {Text(std::string("doctor.title.") + titleId)};
  f.title = english(f.titleText);
}
void say(Finding& f, Text t) {
  f.message += english(t);
  f.text.push_back(std::move(t));
}
void say(Finding& f, const char* id, std::vector<Text::Arg> args = {}) {
  say(f, Text(id, std::move(args)));
}

// In a run of several nodes, which GPU the memory finding's share is.
void sayFullestGpu(Finding& f, const Context& c) {
  if (c.w.nodes <= 1 || c.w.fullestGpuIndex < 0) return;
  say(f, "doctor.fullest_gpu", {{"gpu", gpuNameText(c.w.fullestGpuNode, c.w.fullestGpuIndex, true)}});
}

// --- The rules -------------------------------------------------------------------------------

// Ranks wait for the loader. With idle cores more loader threads help; with busy cores only
// less work per image does (a RAM cache saves decoding and resizing every epoch).
RuleVerdict dataBound(const Context& c) {
  const double data = c.phaseShare(StepPhase::DataWait);
  RuleVerdict v = above(data, c.opt.dataWaitShare, c.opt.dataWaitClear);
  if (!v.holds) return v;
  const int64_t workers = c.integer("workers");
  const std::string cache = c.string("cache");
  Finding& f = v.finding;
  setTitle(f, "data_bound");
  f.severity = data >= 0.4 ? Severity::Critical : Severity::Warning;
  f.evidence = {{"data_wait_share", data}, {"step_s", c.stepSeconds()}, {"cpu_busy", c.w.cpuBusy},
                {"workers", static_cast<double>(workers)}, {"cores_per_rank", c.coresPerRank()}};
  say(f, "doctor.data_bound",
      {{"share", percent(data)}, {"cpu", cpuText(c)}, {"workers", std::to_string(workers)}, {"cache", cache}});
  if (!c.cpuSaturated() && workers < c.coresPerRank()) {
    f.advice.push_back({"workers", std::to_string(c.coresPerRank())});
    say(f, "doctor.data_bound.idle_cores");
  }
  if (cache == "none") {
    f.advice.push_back({"cache", "ram"});
    say(f, f.advice.size() > 1 ? "doctor.data_bound.and_cache_ram" : "doctor.data_bound.cache_ram");
  }
  if (f.advice.empty())
    say(f, "doctor.data_bound.no_advice");
  return v;
}

// The host-to-device copy of the batch takes a large share: unpinned memory copies twice.
RuleVerdict inputCopyBound(const Context& c) {
  if (!c.cuda()) return {};
  const double h2d = c.phaseShare(StepPhase::H2D);
  RuleVerdict v = above(h2d, c.opt.h2dShare, c.opt.h2dClear);
  if (!v.holds) return v;
  Finding& f = v.finding;
  setTitle(f, "input_copy_bound");
  f.evidence = {{"h2d_share", h2d}, {"step_s", c.stepSeconds()}};
  say(f, "doctor.input_copy", {{"share", percent(h2d)}});
  if (!c.boolean("pin_memory")) {
    f.advice.push_back({"pin_memory", "true"});
    say(f, "doctor.input_copy.pin");
  } else {
    say(f, "doctor.input_copy.pinned");
  }
  return v;
}

// Balanced ranks wait in the all-reduce: the gradients travel slowly (small buckets, a slow
// link) or too often (no accumulation).
RuleVerdict communicationBound(const Context& c) {
  if (!c.distributed()) return {};
  const double wait = c.phaseShare(StepPhase::AllreduceWait);
  RuleVerdict v = above(wait, c.opt.allreduceShare, c.opt.allreduceClear);
  if (!v.holds) return v;
  // Waiting for a straggler is the straggler rule's finding, not the link's.
  StragglerDetector sd(StragglerOptions{1, c.opt.imbalance, 0.05});
  for (const auto& [rank, r] : c.w.ranks) sd.add(rank, r.mean);
  if (auto s = sd.report(); s && s->imbalance >= c.opt.imbalance) return {};
  const double bucket = c.number("bucket_mb");
  const int64_t batch = c.integer("batch");
  const int64_t nbs = c.integer("nbs");
  Finding& f = v.finding;
  setTitle(f, "communication_bound");
  f.evidence = {{"allreduce_wait_share", wait},
                {"step_s", c.stepSeconds()},
                {"bucket_mb", bucket},
                {"world_size", static_cast<double>(c.run.worldSize)}};
  say(f, "doctor.communication",
      {{"share", percent(wait)}, {"bucket_mb", config::formatValue(config::Value{bucket})}});
  if (bucket < 25) {
    f.advice.push_back({"bucket_mb", "25"});
    say(f, "doctor.communication.buckets");
  } else {
    const int64_t global = batch * c.run.worldSize;
    f.advice.push_back({"nbs", std::to_string(std::max<int64_t>(nbs * 2, global * 2))});
    say(f, "doctor.communication.nbs");
  }
  if (c.cuda())
    say(f, "doctor.communication.topology");
  return v;
}

// One rank is slower than the others and they wait for it.
RuleVerdict straggler(const Context& c) {
  if (!c.distributed()) return {};
  StragglerOptions so{1, c.opt.imbalanceClear, 0.05};
  if (c.run.worldSize > c.run.localRanks && c.run.localRanks > 0) so.ranksPerNode = c.run.localRanks;
  StragglerDetector sd(so);
  for (const auto& [rank, r] : c.w.ranks) sd.add(rank, r.mean);
  auto s = sd.report();
  if (!s) return {};
  RuleVerdict v = above(s->imbalance, c.opt.imbalance, c.opt.imbalanceClear);
  if (!v.holds) return v;
  Finding& f = v.finding;
  setTitle(f, "straggler");
  f.rank = s->slowRank;
  f.severity = s->imbalance >= 0.3 ? Severity::Critical : Severity::Warning;
  f.evidence = {{"imbalance", s->imbalance},
                {"slow_rank", s->slowRank},
                {"phase_share", s->fraction},
                {"others_share", s->othersFraction},
                {"step_s", s->stepTime}};
  say(f, "doctor.straggler",
      {{"rank", rankNameText(s->slowRank, s->slowNode)}, {"share", percent(s->imbalance)},
       {"detail", s->text}});
  switch (s->waitsOn) {
    case StepPhase::DataWait:
      if (c.string("cache") == "none") f.advice.push_back({"cache", "ram"});
      say(f, "doctor.straggler.loader");
      break;
    case StepPhase::H2D:
      if (!c.boolean("pin_memory")) f.advice.push_back({"pin_memory", "true"});
      say(f, "doctor.straggler.copy");
      break;
    case StepPhase::FwdBwd:
    case StepPhase::Optimizer:
    case StepPhase::AllreduceWait:
      say(f, "doctor.straggler.compute");
      break;
  }
  return v;
}

// GPU memory: near the limit (the next larger batch or image runs out) or mostly unused.
RuleVerdict memoryHeadroom(const Context& c) {
  if (!c.cuda() || c.w.gpuMemoryShare < 0) return {};
  const double used = c.w.gpuMemoryShare;
  const int64_t batch = c.integer("batch");
  const std::map<std::string, double> evidence = {{"memory_share", used},
                                                  {"batch", static_cast<double>(batch)}};
  const double fullClear = c.opt.memoryNearFull - 0.02;
  if (used >= fullClear) {
    RuleVerdict v = above(used, c.opt.memoryNearFull, fullClear);
    Finding& f = v.finding;
    setTitle(f, "near_oom");
    f.severity = Severity::Critical;
    f.evidence = evidence;
    say(f, "doctor.near_oom", {{"share", percent(used)}});
    sayFullestGpu(f, c);
    if (batch > 1)
      f.advice.push_back({"batch", std::to_string(std::max<int64_t>(1, batch * 3 / 4))});
    return v;
  }
  RuleVerdict v = below(used, c.opt.memoryHeadroom, c.opt.memoryHeadroom + 0.05);
  if (!v.holds) return v;
  Finding& f = v.finding;
  setTitle(f, "memory_headroom");
  f.severity = Severity::Info;
  f.evidence = evidence;
  say(f, "doctor.memory_headroom", {{"share", percent(used)}});
  sayFullestGpu(f, c);
  if (used * 2 < 0.85) f.advice.push_back({"batch", std::to_string(batch * 2)});
  return v;
}

// The GPU idles although nothing waits: fp32, small kernels (launch-bound), or NCHW convolutions.
RuleVerdict gpuUnderused(const Context& c) {
  if (!c.cuda() || c.w.gpuUtil < 0) return {};
  if (c.phaseShare(StepPhase::DataWait) >= c.opt.dataWaitClear ||
      c.phaseShare(StepPhase::AllreduceWait) >= c.opt.allreduceClear)
    return {};  // the GPU waits for data or peers: those rules say why
  RuleVerdict v = below(c.w.gpuUtil, c.opt.gpuUtilLow, c.opt.gpuUtilClear);
  if (!v.holds) return v;
  const int64_t batch = c.integer("batch");
  Finding& f = v.finding;
  setTitle(f, "gpu_underused");
  f.evidence = {{"gpu_util", c.w.gpuUtil}, {"batch", static_cast<double>(batch)}};
  say(f, "doctor.gpu_underused", {{"percent", std::to_string(std::lround(c.w.gpuUtil)) + "%"}});
  if (c.w.nodes > 1 && c.w.idlestGpuIndex >= 0) {
    f.evidence["idlest_gpu_util"] = c.w.idlestGpuUtil;
    say(f, "doctor.least_busy_gpu",
        {{"gpu", gpuNameText(c.w.idlestGpuNode, c.w.idlestGpuIndex, true)},
         {"percent", std::to_string(std::lround(c.w.idlestGpuUtil)) + "%"}});
  }
  if (!c.boolean("amp") || c.string("precision") == "fp32") {
    if (!c.boolean("amp")) f.advice.push_back({"amp", "true"});
    if (c.string("precision") == "fp32") f.advice.push_back({"precision", "auto"});
    say(f, "doctor.gpu_underused.fp32");
  }
  // A CUDA run: channels_last=auto is off there (older logs hold a bool).
  if (!c.boolean("channels_last") && c.string("channels_last") != "true") {
    f.advice.push_back({"channels_last", "true"});
    say(f, "doctor.gpu_underused.channels_last");
  }
  if (batch < 64 && (c.w.gpuMemoryShare < 0 || c.w.gpuMemoryShare * 2 < 0.85)) {
    f.advice.push_back({"batch", std::to_string(batch * 2)});
    say(f, "doctor.gpu_underused.small_batch");
  }
  return v;
}

struct Rule {
  const char* id;
  std::function<RuleVerdict(const Context&)> judge;
};

const std::vector<Rule>& rules() {
  static const std::vector<Rule> table = {
      {"data_bound", dataBound},
      {"input_copy_bound", inputCopyBound},
      {"communication_bound", communicationBound},
      {"straggler", straggler},
      {"memory_headroom", memoryHeadroom},
      {"gpu_underused", gpuUnderused},
  };
  return table;
}

std::vector<std::pair<std::string, RuleVerdict>> judgeAll(const DoctorWindow& w, const RunFacts& f,
                                                          const DoctorOptions& o) {
  std::vector<std::pair<std::string, RuleVerdict>> out;
  if (w.ranks.empty()) return out;
  const Context c{w, f, o};
  for (const auto& rule : rules()) {
    RuleVerdict v = rule.judge(c);
    v.finding.rule = rule.id;
    out.emplace_back(rule.id, std::move(v));
  }
  return out;
}

void sortBySeverity(std::vector<Finding>& findings) {
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    return static_cast<int>(a.severity) > static_cast<int>(b.severity);
  });
}

bool finiteTiming(const StepTiming& t) {
  for (double x : {t.dataWait, t.h2d, t.fwdBwd, t.allreduceWait, t.optimizer, t.total})
    if (!std::isfinite(x) || x < 0) return false;
  return t.total > 0;
}

}  // namespace

std::vector<std::string> doctorRuleIds() {
  std::vector<std::string> ids;
  for (const auto& r : rules()) ids.push_back(r.id);
  return ids;
}

std::vector<Finding> evaluateRules(const DoctorWindow& window, const RunFacts& facts,
                                   const DoctorOptions& options) {
  std::vector<Finding> findings;
  for (auto& [id, v] : judgeAll(window, facts, options))
    if (v.fires) findings.push_back(std::move(v.finding));
  sortBySeverity(findings);
  return findings;
}

Doctor::Doctor(DoctorOptions options) : m_options(options) {
  m_dispatch.on<RunStartEvent>([this](const Event&, const RunStartEvent& rs) { m_used = addRunStart(rs); })
      .on<StepEvent>([this](const Event& e, const StepEvent& s) { m_used = addStep(e, s); })
      .on<GpuSampleEvent>([this](const Event&, const GpuSampleEvent& g) { m_used = addGpu(g); })
      .on<SystemSampleEvent>([this](const Event&, const SystemSampleEvent& s) { m_used = addSystem(s); });
}

void Doctor::setFacts(const RunFacts& facts) {
  m_facts = facts;
}

bool Doctor::isWarmup(int rank, int epoch) const {
  auto it = m_rankSteps.find(rank);
  const int seen = it == m_rankSteps.end() ? 0 : it->second;
  if (seen < m_options.warmupSteps) return true;
  // The first epoch with a cache fills it: its loader decodes every image once.
  const auto cache = m_facts.config.find("cache");
  const bool caching = cache != m_facts.config.end() && cache->is_string() && *cache != "none";
  return caching && epoch == m_firstEpoch;
}

bool Doctor::add(const Event& e) {
  if (e.time > 0) {
    if (m_runStart <= 0) m_runStart = e.time;
    m_lastTime = std::max(m_lastTime, e.time);
  }
  m_used = false;
  m_dispatch(e);
  return m_used;
}

bool Doctor::addRunStart(const RunStartEvent& rs) {
  m_facts.device = rs.device;
  m_facts.worldSize = std::max(1, rs.worldSize);
  m_facts.localRanks = std::max(1, rs.worldSize / std::max(1, rs.nnodes));
  m_facts.nodes = std::max(m_facts.nodes, rs.nnodes);
  if (rs.config.is_object()) m_facts.config = rs.config;
  return true;
}

bool Doctor::addStep(const Event& e, const StepEvent& s) {
  if (!finiteTiming(s.timing)) return false;
  if (m_firstEpoch < 0 || s.epoch < m_firstEpoch) m_firstEpoch = s.epoch;
  ++m_stepsSeen;
  const bool warm = isWarmup(e.rank, s.epoch);
  ++m_rankSteps[e.rank];
  for (Accumulator* acc : {&m_period, &m_run}) {
    if (warm) {
      ++acc->warmup;
      continue;
    }
    auto& [sum, n] = acc->ranks[e.rank];
    sum = sum + s.timing;
    ++n;
  }
  return true;
}

bool Doctor::addGpu(const GpuSampleEvent& g) {
  if (g.gpus.empty()) return false;
  m_facts.nodes = std::max({m_facts.nodes, g.nodes, g.node + 1});
  for (Accumulator* acc : {&m_period, &m_run}) {
    ++acc->gpuSamples;
    for (const auto& r : g.gpus) {
      if (r.util >= 0 && std::isfinite(r.util)) {
        acc->gpuUtilSum += r.util;
        ++acc->gpuUtilCount;
        auto& [sum, n] = acc->gpuUtil[{g.node, r.index}];
        sum += r.util;
        ++n;
      }
      if (r.memUsed >= 0 && r.memTotal > 0 && r.memUsed / r.memTotal > acc->gpuMemoryShare) {
        acc->gpuMemoryShare = r.memUsed / r.memTotal;
        acc->fullestGpu = {g.node, r.index};
      }
    }
  }
  return true;
}

bool Doctor::addSystem(const SystemSampleEvent& s) {
  if (s.cpuTotal < 0 || !std::isfinite(s.cpuTotal)) return false;
  m_facts.nodes = std::max({m_facts.nodes, s.nodes, s.node + 1});
  if (!s.cpu.empty() && s.node == 0) m_facts.cores = static_cast<int>(s.cpu.size());
  for (Accumulator* acc : {&m_period, &m_run}) {
    auto& [sum, n] = acc->cpu[s.node];
    sum += s.cpuTotal;
    ++n;
    ++acc->cpuSamples;
  }
  return true;
}

DoctorWindow Doctor::windowOf(const Accumulator& acc, double periodS) const {
  DoctorWindow w;
  for (const auto& [rank, sn] : acc.ranks) w.ranks[rank] = {sn.first * (1.0 / sn.second), sn.second};
  w.warmupSteps = acc.warmup;
  w.gpuUtil = acc.gpuUtilCount > 0 ? acc.gpuUtilSum / acc.gpuUtilCount : -1;
  w.gpuMemoryShare = acc.gpuMemoryShare;
  std::tie(w.fullestGpuNode, w.fullestGpuIndex) = acc.fullestGpu;
  for (const auto& [gpu, sn] : acc.gpuUtil) {
    const double mean = sn.first / sn.second;
    if (w.idlestGpuIndex < 0 || mean < w.idlestGpuUtil) {
      std::tie(w.idlestGpuNode, w.idlestGpuIndex) = gpu;
      w.idlestGpuUtil = mean;
    }
  }
  w.gpuSamples = acc.gpuSamples;
  // Several nodes: the busiest node's CPU (a saturated node is not helped by more loader
  // threads, whatever the others do); one node: its mean, as ever.
  for (const auto& [node, sn] : acc.cpu) {
    const double mean = sn.first / sn.second;
    if (mean > w.cpuBusy) {
      w.cpuBusy = mean;
      w.cpuNode = node;
    }
  }
  w.cpuSamples = acc.cpuSamples;
  w.nodes = m_facts.nodes;
  w.periodS = periodS;
  return w;
}

DiagnosisEvent Doctor::build(std::vector<Finding> findings, const DoctorWindow& w,
                             bool final) const {
  DiagnosisEvent d;
  d.final = final;
  d.periodS = w.periodS;
  for (const auto& [rank, r] : w.ranks) d.steps += r.steps;
  d.warmupSteps = w.warmupSteps;
  sortBySeverity(findings);
  d.findings = std::move(findings);
  if (!d.findings.empty()) {
    const Finding& top = d.findings.front();
    d.summaryText.emplace_back("doctor.summary.finding",
                               std::vector<Text::Arg>{{"title", top.titleText}, {"message", top.text}});
    const std::string advice = adviceText(top.advice);
    if (!advice.empty()) d.summaryText.emplace_back("doctor.summary.try", std::vector<Text::Arg>{{"advice", advice}});
    if (d.findings.size() > 1)
      d.summaryText.emplace_back("doctor.summary.more",
                                 std::vector<Text::Arg>{{"count", std::to_string(d.findings.size() - 1)}});
  } else if (w.ranks.empty()) {
    d.summaryText = {w.warmupSteps > 0
                         ? Text("doctor.summary.warmup", {{"count", std::to_string(w.warmupSteps)}})
                         : Text("doctor.summary.no_timings")};
  } else {
    std::vector<double> compute, data, wait;
    for (const auto& [rank, r] : w.ranks) {
      compute.push_back(share(r.mean.fwdBwd + r.mean.optimizer, r.mean.total));
      data.push_back(share(r.mean.dataWait, r.mean.total));
      wait.push_back(share(r.mean.allreduceWait, r.mean.total));
    }
    d.summaryText = {Text("doctor.summary.clean",
                          {{"detail", Text("doctor.summary.clean_detail",
                                           {{"compute", percent(median(compute))},
                                            {"data", percent(median(data))},
                                            {"wait", percent(median(wait))}})}})};
  }
  d.summary = english(d.summaryText);
  return d;
}

DiagnosisEvent Doctor::diagnose(double periodS, bool* judged) {
  DoctorWindow w = windowOf(m_period, periodS);
  m_period = Accumulator{};
  // Ranks with too few samples are not judged this period.
  for (auto it = w.ranks.begin(); it != w.ranks.end();)
    it = it->second.steps < m_options.minSteps ? w.ranks.erase(it) : std::next(it);
  const bool enough = !w.ranks.empty();
  if (judged) *judged = enough;
  std::vector<Finding> findings;
  if (enough) {
    for (auto& [id, v] : judgeAll(w, m_facts, m_options)) {
      RuleState& st = m_state[id];
      if (v.fires) {
        ++st.hits;
        st.misses = 0;
      } else if (v.holds) {
        st.hits = st.active ? st.hits : 0;
        st.misses = 0;
      } else {
        st.hits = 0;
        ++st.misses;
      }
      if (!st.active && st.hits >= m_options.confirmPeriods) st.active = true;
      if (st.active && st.misses >= m_options.confirmPeriods) st.active = false;
      if (st.active && (v.fires || v.holds)) st.last = v.finding;
    }
  }
  for (const auto& [id, st] : m_state)
    if (st.active) findings.push_back(st.last);
  return build(std::move(findings), w, false);
}

DoctorWindow Doctor::runWindow() const {
  return windowOf(m_run, m_lastTime > m_runStart ? m_lastTime - m_runStart : 0);
}

DiagnosisEvent Doctor::finalReport() const {
  DoctorWindow w = runWindow();
  int steps = 0;
  for (const auto& [rank, r] : w.ranks) steps += r.steps;
  if (steps < m_options.minFinalSteps) {
    DiagnosisEvent d;
    d.final = true;
    d.periodS = w.periodS;
    d.steps = steps;
    d.warmupSteps = w.warmupSteps;
    d.summaryText = {Text("doctor.summary.too_few", {{"steps", std::to_string(steps)},
                                                     {"warmup", std::to_string(w.warmupSteps)},
                                                     {"needed", std::to_string(m_options.minFinalSteps)}})};
    d.summary = english(d.summaryText);
    return d;
  }
  return build(evaluateRules(w, m_facts, m_options), w, true);
}

std::string formatDiagnosis(const DiagnosisEvent& d) {
  std::ostringstream out;
  out << (d.final ? "diagnosis of the run" : "diagnosis of the last period") << " ("
      << d.steps << " step samples judged, " << d.warmupSteps << " of warm-up left out)\n";
  if (d.findings.empty()) {
    out << "  " << d.summary << "\n";
    return out.str();
  }
  for (const auto& f : d.findings) {
    out << "  [" << toString(f.severity) << "] " << f.title;
    if (f.rank >= 0) out << " (rank " << f.rank << ")";
    out << ": " << f.message << "\n";
    const std::string advice = adviceText(f.advice);
    if (!advice.empty()) out << "      try: " << advice << "\n";
  }
  return out.str();
}

}  // namespace stave::telemetry
