// The node samples: gpu_sample, system_sample, and numbers flattened for charts.
#include "core/telemetry/events.h"
#include "core/telemetry/event_codec.h"

namespace stave::telemetry {

using nlohmann::json;
using namespace codec;

// Sample values: -1 (the device or system does not report it) travels as null.
json knownOrNull(double v) { return v < 0 || !std::isfinite(v) ? json(nullptr) : json(v); }
double knownOrMinusOne(double v) { return std::isnan(v) ? -1.0 : v; }

Event toEvent(const GpuSampleEvent& e, int rank) {
  json gpus = json::array();
  for (const auto& g : e.gpus)
    gpus.push_back({{"index", g.index},
                    {"name", g.name},
                    {"util", knownOrNull(g.util)},
                    {"mem_util", knownOrNull(g.memUtil)},
                    {"mem_used", knownOrNull(g.memUsed)},
                    {"mem_total", knownOrNull(g.memTotal)},
                    {"power_w", knownOrNull(g.powerW)},
                    {"power_limit_w", knownOrNull(g.powerLimitW)},
                    {"temp_c", knownOrNull(g.temperatureC)},
                    {"sm_clock_mhz", knownOrNull(g.smClockMHz)},
                    {"pcie_tx_bps", knownOrNull(g.pcieTxBps)},
                    {"pcie_rx_bps", knownOrNull(g.pcieRxBps)}});
  json d{{"gpus", gpus}};
  if (!e.status.empty()) d["status"] = e.status;
  return makeEvent(event_type::kGpuSample, rank, std::move(d));
}

Result<GpuSampleEvent> gpuSampleFromEvent(const Event& ev) {
  return readTyped<GpuSampleEvent>(ev, event_type::kGpuSample, [](FieldReader& r, GpuSampleEvent& e) {
    r.str("status", e.status, false);
    const json* gpus = r.array("gpus");
    if (!gpus) return;
    for (size_t i = 0; i < gpus->size(); ++i) {
      if (!(*gpus)[i].is_object()) {
        r.error("gpus[" + std::to_string(i) + "]", "must be an object");
        continue;
      }
      FieldReader g((*gpus)[i], r.path("gpus[" + std::to_string(i) + "]."));
      GpuReading x;
      g.integer("index", x.index);
      g.str("name", x.name, false);
      g.num("util", x.util, false);
      g.num("mem_util", x.memUtil, false);
      g.num("mem_used", x.memUsed, false);
      g.num("mem_total", x.memTotal, false);
      g.num("power_w", x.powerW, false);
      g.num("power_limit_w", x.powerLimitW, false);
      g.num("temp_c", x.temperatureC, false);
      g.num("sm_clock_mhz", x.smClockMHz, false);
      g.num("pcie_tx_bps", x.pcieTxBps, false);
      g.num("pcie_rx_bps", x.pcieRxBps, false);
      r.append(g.errors());
      for (double* v : {&x.util, &x.memUtil, &x.memUsed, &x.memTotal, &x.powerW, &x.powerLimitW,
                        &x.temperatureC, &x.smClockMHz, &x.pcieTxBps, &x.pcieRxBps})
        *v = knownOrMinusOne(*v);
      e.gpus.push_back(x);
    }
  });
}

Event toEvent(const SystemSampleEvent& e, int rank) {
  json ranks = json::array();
  for (const auto& p : e.ranks)
    ranks.push_back({{"rank", p.rank}, {"pid", p.pid}, {"rss", knownOrNull(p.rss)},
                     {"cpu", knownOrNull(p.cpu)}});
  json d{{"cpu", e.cpu},
         {"cpu_total", knownOrNull(e.cpuTotal)},
         {"mem_used", knownOrNull(e.memUsed)},
         {"mem_total", knownOrNull(e.memTotal)},
         {"ranks", ranks},
         {"disk_read_bps", knownOrNull(e.diskReadBps)},
         {"disk", e.disk}};
  return makeEvent(event_type::kSystemSample, rank, std::move(d));
}

Result<SystemSampleEvent> systemSampleFromEvent(const Event& ev) {
  return readTyped<SystemSampleEvent>(ev, event_type::kSystemSample,
                                      [](FieldReader& r, SystemSampleEvent& e) {
    r.numList("cpu", e.cpu, false);
    r.num("cpu_total", e.cpuTotal, false);
    r.num("mem_used", e.memUsed, false);
    r.num("mem_total", e.memTotal, false);
    r.num("disk_read_bps", e.diskReadBps, false);
    r.str("disk", e.disk, false);
    e.cpuTotal = knownOrMinusOne(e.cpuTotal);
    e.memUsed = knownOrMinusOne(e.memUsed);
    e.memTotal = knownOrMinusOne(e.memTotal);
    e.diskReadBps = knownOrMinusOne(e.diskReadBps);
    if (const json* ranks = r.array("ranks", false)) {
      for (size_t i = 0; i < ranks->size(); ++i) {
        if (!(*ranks)[i].is_object()) {
          r.error("ranks[" + std::to_string(i) + "]", "must be an object");
          continue;
        }
        FieldReader p((*ranks)[i], r.path("ranks[" + std::to_string(i) + "]."));
        ProcessReading x;
        p.integer("rank", x.rank);
        p.integer("pid", x.pid, false);
        p.num("rss", x.rss, false);
        p.num("cpu", x.cpu, false);
        r.append(p.errors());
        x.rss = knownOrMinusOne(x.rss);
        x.cpu = knownOrMinusOne(x.cpu);
        e.ranks.push_back(x);
      }
    }
  });
}

void flattenNumbers(const json& j, const std::string& prefix,
                    std::vector<std::pair<std::string, double>>& out) {
  if (j.is_number()) {
    out.emplace_back(prefix, j.get<double>());
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      if (it.key() != "index" && it.key() != "rank" && it.key() != "pid")
        flattenNumbers(it.value(), prefix.empty() ? it.key() : prefix + "/" + it.key(), out);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) {
      std::string id = std::to_string(i);
      for (const char* k : {"index", "rank"})
        if (j[i].is_object() && j[i].contains(k) && j[i][k].is_number_integer())
          id = std::to_string(j[i][k].get<int64_t>());
      flattenNumbers(j[i], prefix.empty() ? id : prefix + "/" + id, out);
    }
  }
}

}  // namespace stave::telemetry
