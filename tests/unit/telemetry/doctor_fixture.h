#pragma once
// Planted events for the doctor's tests (tst_doctor, tst_doctor_words): step timings per rank,
// run_start, CPU and GPU samples, and options that judge from the first step.

#include <string>
#include <utility>
#include <vector>

#include "core/telemetry/doctor.h"

namespace stave::telemetry::test {

inline StepTiming timing(double data, double h2d, double fwd, double wait, double opt) {
  StepTiming t{data, h2d, fwd, wait, opt, 0};
  t.total = data + h2d + fwd + wait + opt;
  return t;
}

inline Event stepEvent(int rank, int epoch, const StepTiming& t, double time = 1000) {
  StepEvent s;
  s.epoch = epoch;
  s.itersPerEpoch = 100;
  s.timing = t;
  Event e = toEvent(s, rank);
  e.time = time;
  return e;
}

/// Feeds `steps` samples to every rank in `ranks` (timings per rank).
inline void feed(Doctor& d, const std::vector<StepTiming>& ranks, int steps, int epoch = 1) {
  for (int i = 0; i < steps; ++i)
    for (size_t r = 0; r < ranks.size(); ++r) d.add(stepEvent(static_cast<int>(r), epoch, ranks[r]));
}

inline Event runStart(const std::string& device, int world, nlohmann::json config) {
  RunStartEvent rs;
  rs.device = device;
  rs.worldSize = world;
  rs.config = std::move(config);
  Event e = toEvent(rs, 0);
  e.time = 1000;
  return e;
}

inline Event cpuSample(double busy, int cores) {
  SystemSampleEvent s;
  s.cpu.assign(static_cast<size_t>(cores), busy);
  s.cpuTotal = busy;
  return toEvent(s, -1);
}

/// `gpus` GPUs (indices 0..gpus-1) at `util` % with `memShare` of 80 GB used.
inline Event gpuSample(double util, double memShare, int gpus = 2) {
  GpuSampleEvent g;
  for (int i = 0; i < gpus; ++i) {
    GpuReading r;
    r.index = i;
    r.name = "GPU";
    r.util = util;
    r.memTotal = 80e9;
    r.memUsed = memShare * 80e9;
    g.gpus.push_back(r);
  }
  return toEvent(g, -1);
}

inline DoctorOptions quick() {
  DoctorOptions o;
  o.warmupSteps = 0;
  return o;
}

}  // namespace stave::telemetry::test
