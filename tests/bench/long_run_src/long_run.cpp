#include "long_run.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <thread>

#include "core/base/message.h"
#include "core/telemetry/events.h"
#include "core/telemetry/straggler.h"

namespace stave::bench {
namespace {

namespace tel = stave::telemetry;

/// Produces the run's events in time order, tick by tick.
class Generator {
 public:
  explicit Generator(const LongRunOptions& o) : m_o(o), m_rng(o.seed) {
    const double epochS = std::max(1.0, o.epochMinutes * 60);
    m_itersPerEpoch = std::max(1, static_cast<int>(std::lround(epochS / o.stepPeriodS)));
    const double planned = o.plannedHours > 0 ? std::max(o.plannedHours, o.hours) : o.hours;
    m_epochs = std::max(1, static_cast<int>(std::ceil(planned * 3600 / epochS)));
    m_totalSteps = static_cast<int64_t>(std::llround(planned * 3600 / o.stepPeriodS));
  }

  int epochs() const { return m_epochs; }
  bool quiet = false;  ///< tick() advances the state without encoding (catching up)

  /// run_start (rank 0).
  std::string start() {
    tel::RunStartEvent rs;
    rs.versions = {{"stave", "0.1.0"}, {"torch", "2.11.0"}};
    rs.device = "cuda";
    for (int g = 0; g < m_o.ranks / std::max(1, m_o.nodes); ++g) rs.deviceNames.push_back("NVIDIA H100 80GB HBM3");
    rs.worldSize = m_o.ranks;
    rs.nnodes = m_o.nodes;
    rs.config = {{"model", "yolov8s"}, {"imgsz", 640},      {"batch", 32},        {"epochs", m_epochs},
                 {"lr0", 0.01},        {"optimizer", "SGD"}, {"name", m_o.name}, {"workers", 8}};
    rs.host = "node0";
    return line(tel::toEvent(rs, 0), m_o.startTime);
  }

  /// Everything from time t to t + dt (exclusive); false once the run's planned steps are done.
  bool tick(double t, std::string& out, LongRunStats* stats) {
    const double rel = t - m_o.startTime;
    // Steps: one per rank per step period.
    if (rel >= m_nextStep * m_o.stepPeriodS - 1e-9) {
      if (m_step >= m_totalSteps) return false;
      const int epoch = static_cast<int>(m_step / m_itersPerEpoch);
      const int iter = static_cast<int>(m_step % m_itersPerEpoch);
      const double progress = static_cast<double>(m_step) / std::max<int64_t>(1, m_totalSteps);
      for (int r = 0; r < m_o.ranks; ++r) {
        tel::StepEvent s;
        s.epoch = epoch;
        s.iter = iter;
        s.itersPerEpoch = m_itersPerEpoch;
        s.boxLoss = 1.2 * std::exp(-2 * progress) + 0.3 + noise(0.02);
        s.clsLoss = 2.0 * std::exp(-3 * progress) + 0.4 + noise(0.03);
        s.dflLoss = 1.1 * std::exp(-1.5 * progress) + 0.8 + noise(0.01);
        s.lr = 0.01 * (1 - 0.99 * progress);
        s.samplesPerSec = 64 + noise(4) - (r == 5 ? 8 : 0);
        s.timing.dataWait = 0.02 + (r == 5 ? 0.05 : 0.0) + std::abs(noise(0.005));
        s.timing.h2d = 0.01;
        s.timing.fwdBwd = 0.35 + noise(0.01);
        s.timing.allreduceWait = 0.03 + std::abs(noise(0.01));
        s.timing.optimizer = 0.02;
        s.timing.total = s.timing.dataWait + s.timing.h2d + s.timing.fwdBwd + s.timing.allreduceWait + s.timing.optimizer;
        put(out, tel::toEvent(s, r), t + r * 1e-4);
        ++stats->events;
      }
      ++stats->steps;
      ++m_step;
      ++m_nextStep;
      // The epoch's end: epoch_end, validation and checkpoints from rank 0.
      if (iter + 1 == m_itersPerEpoch) {
        tel::EpochEndEvent ee;
        ee.epoch = epoch;
        ee.epochs = m_epochs;
        ee.boxLoss = 1.2 * std::exp(-2 * progress) + 0.3;
        ee.clsLoss = 2.0 * std::exp(-3 * progress) + 0.4;
        ee.dflLoss = 1.1 * std::exp(-1.5 * progress) + 0.8;
        ee.epochTime = m_itersPerEpoch * m_o.stepPeriodS;
        ee.lr = {0.01 * (1 - 0.99 * progress), 0.01 * (1 - 0.99 * progress), 0.01 * (1 - 0.99 * progress)};
        put(out, tel::toEvent(ee, 0), t + 0.01);
        tel::ValidationEvent v;
        v.epoch = epoch;
        v.map5095 = 0.45 * (1 - std::exp(-4 * progress)) + noise(0.005);
        v.map50 = v.map5095 * 1.45;
        v.precision = 0.5 + 0.3 * progress;
        v.recall = 0.4 + 0.3 * progress;
        v.boxLoss = ee.boxLoss + 0.1;
        v.clsLoss = ee.clsLoss + 0.1;
        v.dflLoss = ee.dflLoss + 0.05;
        v.valTime = 60;
        put(out, tel::toEvent(v, 0), t + 0.02);
        tel::CheckpointEvent c;
        c.path = "runs/" + m_o.name + "/weights/last.pt";
        c.epoch = epoch;
        put(out, tel::toEvent(c, 0), t + 0.03);
        stats->events += 3;
        stats->epochs = epoch + 1;
      }
    }
    // Node samples: gpu_sample and system_sample per node, from the launcher.
    if (rel >= m_nextSample * m_o.samplePeriodS - 1e-9) {
      ++m_nextSample;
      const int perNode = std::max(1, m_o.ranks / std::max(1, m_o.nodes));
      for (int n = 0; n < m_o.nodes; ++n) {
        tel::GpuSampleEvent g;
        g.node = n;
        g.nodes = m_o.nodes;
        g.host = "node" + std::to_string(n);
        for (int i = 0; i < perNode; ++i) {
          tel::GpuReading r;
          r.index = i;
          r.name = "NVIDIA H100 80GB HBM3";
          // A one-sample dip on GPU 3 every 1000 samples: what level of detail must not hide.
          r.util = (i == 3 && m_nextSample % 1000 == 0) ? 0.0 : 92 + noise(4);
          r.memUtil = 40 + noise(5);
          r.memUsed = 61.5e9 + noise(1e8);
          r.memTotal = 85.0e9;
          r.powerW = 560 + noise(30);
          r.powerLimitW = 700;
          r.temperatureC = 62 + noise(2);
          r.smClockMHz = 1980;
          r.pcieTxBps = 2.0e9 + noise(1e8);
          r.pcieRxBps = 6.0e9 + noise(2e8);
          g.gpus.push_back(r);
        }
        put(out, tel::toEvent(g, -1), t + 0.001 + n * 1e-3);
        tel::SystemSampleEvent s;
        s.node = n;
        s.nodes = m_o.nodes;
        s.host = g.host;
        for (int c = 0; c < m_o.cores; ++c) s.cpu.push_back(50 + noise(20));
        s.cpuTotal = 50 + noise(5);
        s.memUsed = 310e9 + noise(1e9);
        s.memTotal = 2.0e12;
        for (int i = 0; i < perNode; ++i) s.ranks.push_back({n * perNode + i, 10000 + i, 12e9 + noise(1e8), 180 + noise(20)});
        s.diskReadBps = 4.0e8 + noise(5e7);
        s.disk = "nvme0n1";
        put(out, tel::toEvent(s, -1), t + 0.002 + n * 1e-3);
        stats->events += 2;
      }
    }
    // Every ten minutes the launcher's straggler report and the doctor's diagnosis.
    if (rel >= m_nextReport * 600.0 && rel > 0) {
      ++m_nextReport;
      tel::StragglerEvent st;
      st.slowRank = 5;
      st.waitsOn = tel::StepPhase::DataWait;
      st.fraction = 0.16;
      st.othersFraction = 0.05;
      st.stepTime = 0.48;
      st.imbalance = 0.1;
      st.steps = 1200;
      // In the words the launcher and the doctor write, message ids included, so that a
      // generated run reads as a real one in every language.
      const int perNode = std::max(1, m_o.ranks / std::max(1, m_o.nodes));
      st.slowNode = m_o.nodes > 1 ? st.slowRank / perNode : -1;
      st.text = tel::describeStragglerText(st.slowRank, st.waitsOn, st.fraction, st.othersFraction,
                                           st.slowNode);
      st.message = english(st.text);
      put(out, tel::toEvent(st, 5), t + 0.004);
      tel::DiagnosisEvent d;
      d.periodS = 600;
      d.steps = 1200 * m_o.ranks;
      tel::Finding f;
      f.rule = "straggler";
      f.rank = 5;
      f.titleText = {Text("doctor.title.straggler")};
      f.title = english(f.titleText);
      f.text = {Text("doctor.straggler", {{"rank", tel::rankNameText(5, st.slowNode)},
                                          {"share", "10%"},
                                          {"detail", st.text}}),
                Text("doctor.straggler.loader")};
      f.message = english(f.text);
      f.advice = {{"cache", "ram"}};
      d.findings.push_back(f);
      d.summaryText = {
          Text("doctor.summary.finding", {{"title", f.titleText}, {"message", f.text}}),
          Text("doctor.summary.try", {{"advice", tel::adviceText(f.advice)}})};
      d.summary = english(d.summaryText);
      put(out, tel::toEvent(d, -1), t + 0.005);
      stats->events += 2;
    }
    return true;
  }

  /// finished (rank 0).
  std::string finish(double t) {
    tel::FinishedEvent f;
    f.status = tel::RunStatus::Completed;
    f.epochs = m_epochs;
    f.epochsCompleted = m_epochs;
    f.bestEpoch = m_epochs - 1;
    f.bestMap50 = 0.65;
    f.bestMap5095 = 0.45;
    f.totalTime = t - m_o.startTime;
    // As the trainer words a length: "42 s", "12 min 5 s", "3 h 12 min".
    const auto seconds = [](double s) {
      const int n = static_cast<int>(std::lround(std::max(0.0, s)));
      if (n < 120) return Text("duration.s", {{"n", std::to_string(n)}});
      if (n < 7200)
        return Text("duration.min_s",
                    {{"min", std::to_string(n / 60)}, {"s", std::to_string(n % 60)}});
      return Text("duration.h_min",
                  {{"h", std::to_string(n / 3600)}, {"min", std::to_string(n % 3600 / 60)}});
    };
    const double valS = 0.05 * f.totalTime;  // validation: a twentieth of the run
    f.text = {
        Text("train.times", {{"train", seconds(f.totalTime - valS)}, {"val", seconds(valS)}})};
    f.message = english(f.text);
    return line(tel::toEvent(f, 0), t);
  }

  /// The time step of the tick loop.
  double dt() const { return std::min(m_o.stepPeriodS, m_o.samplePeriodS); }

 private:
  double noise(double scale) { return scale * m_normal(m_rng); }
  /// Appends one event, unless only the state is being replayed.
  void put(std::string& out, tel::Event e, double time) {
    if (!quiet) out += line(std::move(e), time);
  }
  static std::string line(tel::Event e, double time) {
    e.time = time;
    return tel::encodeEvent(e) + "\n";
  }

  LongRunOptions m_o;
  std::mt19937 m_rng;
  std::normal_distribution<double> m_normal{0.0, 1.0};
  int m_itersPerEpoch = 1, m_epochs = 1;
  int64_t m_totalSteps = 0, m_step = 0, m_nextStep = 0, m_nextSample = 0, m_nextReport = 1;
};

}  // namespace

bool writeLongRun(const LongRunOptions& options, const std::string& path, LongRunStats* stats,
                  std::string* error) {
  LongRunStats local;
  if (!stats) stats = &local;
  *stats = {};
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    if (error) *error = path + ": cannot write";
    return false;
  }
  Generator gen(options);
  std::string buf = gen.start();
  ++stats->events;
  double t = options.startTime;
  const double end = options.startTime + options.hours * 3600;
  bool ok = true;
  while (t < end) {
    if (!gen.tick(t, buf, stats)) break;
    t += gen.dt();
    if (buf.size() > (8u << 20)) {
      ok = ok && std::fwrite(buf.data(), 1, buf.size(), f) == buf.size();
      stats->bytes += static_cast<int64_t>(buf.size());
      buf.clear();
    }
  }
  if (options.finished) {
    buf += gen.finish(t);
    ++stats->events;
  }
  ok = ok && std::fwrite(buf.data(), 1, buf.size(), f) == buf.size();
  stats->bytes += static_cast<int64_t>(buf.size());
  ok = std::fclose(f) == 0 && ok;
  stats->endTime = t;
  if (!ok && error) *error = path + ": write failed (disk full?)";
  return ok;
}

int64_t appendLive(const LongRunOptions& options, const std::string& path, double from,
                   const std::function<bool()>& keepGoing, bool realTime) {
  // The generator's clock continues where the written part ended; its step counter too.
  LongRunOptions o = options;
  Generator gen(o);
  LongRunStats stats;
  std::string skip;
  gen.quiet = true;
  for (double t = o.startTime; t < from; t += gen.dt()) gen.tick(t, skip, &stats);
  gen.quiet = false;
  stats = {};
  const auto wall0 = std::chrono::steady_clock::now();
  double t = from;
  while (keepGoing()) {
    std::string buf;
    gen.tick(t, buf, &stats);
    if (!buf.empty()) {
      std::FILE* f = std::fopen(path.c_str(), "ab");
      if (!f) break;
      std::fwrite(buf.data(), 1, buf.size(), f);
      std::fclose(f);
    }
    t += gen.dt();
    if (realTime) std::this_thread::sleep_until(wall0 + std::chrono::duration<double>(t - from));
  }
  return stats.events;
}

double plainReadSeconds(const std::string& path, int64_t* lines) {
  const auto t0 = std::chrono::steady_clock::now();
  std::FILE* f = std::fopen(path.c_str(), "rb");
  std::string buf(16 << 20, '\0');
  int64_t n = 0;
  for (size_t got; f && (got = std::fread(buf.data(), 1, buf.size(), f)) > 0;)
    for (size_t i = 0; i < got; ++i) n += buf[i] == '\n';
  if (f) std::fclose(f);
  if (lines) *lines = n;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace stave::bench
