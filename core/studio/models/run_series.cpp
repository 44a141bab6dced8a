#include "core/studio/models/run_series.h"

#include <cstdlib>

#include "core/store/store.h"

namespace stave::studio {

std::vector<SeriesPoint> seriesPoints(const telemetry::StepEvent& s, double totalSamplesPerSec) {
  const double it = static_cast<double>(telemetry::globalStep(s));
  return {{{RunChart::Losses, 0}, it, s.boxLoss},
          {{RunChart::Losses, 1}, it, s.clsLoss},
          {{RunChart::Losses, 2}, it, s.dflLoss},
          {{RunChart::Speed, 0}, it, totalSamplesPerSec}};
}

std::vector<SeriesPoint> seriesPoints(const telemetry::EpochEndEvent& e) {
  const double ep = e.epoch + 1;
  std::vector<SeriesPoint> out{{{RunChart::EpochLosses, 0}, ep, e.boxLoss},
                               {{RunChart::EpochLosses, 1}, ep, e.clsLoss},
                               {{RunChart::EpochLosses, 2}, ep, e.dflLoss}};
  for (size_t g = 0; g < e.lr.size(); ++g) out.push_back({{RunChart::Lr, static_cast<int>(g)}, ep, e.lr[g]});
  return out;
}

std::vector<SeriesPoint> seriesPoints(const telemetry::ValidationEvent& v) {
  const double ep = v.epoch + 1;
  return {{{RunChart::Metrics, 0}, ep, v.precision},   {{RunChart::Metrics, 1}, ep, v.recall},
          {{RunChart::Metrics, 2}, ep, v.map50},       {{RunChart::Metrics, 3}, ep, v.map5095},
          {{RunChart::EpochLosses, 3}, ep, v.boxLoss}, {{RunChart::EpochLosses, 4}, ep, v.clsLoss},
          {{RunChart::EpochLosses, 5}, ep, v.dflLoss}};
}

std::vector<SeriesPoint> seriesPoints(const telemetry::GpuSampleEvent& g, double t) {
  std::vector<SeriesPoint> out;
  for (const auto& gp : g.gpus) {
    if (gp.util >= 0) out.push_back({{RunChart::GpuUtil, gp.index, g.node}, t, gp.util});
    if (gp.memUsed >= 0) out.push_back({{RunChart::GpuMem, gp.index, g.node}, t, gp.memUsed / double(1 << 30)});
    if (gp.powerW >= 0) out.push_back({{RunChart::GpuPower, gp.index, g.node}, t, gp.powerW});
  }
  return out;
}

std::vector<SeriesPoint> seriesPoints(const telemetry::SystemSampleEvent& s, double t) {
  std::vector<SeriesPoint> out;
  if (s.cpuTotal >= 0) out.push_back({{RunChart::System, 0, s.node}, t, s.cpuTotal});
  if (s.memTotal > 0 && s.memUsed >= 0)
    out.push_back({{RunChart::System, 1, s.node}, t, 100.0 * s.memUsed / s.memTotal});
  return out;
}

std::optional<SeriesId> curveSeries(const std::string& key) {
  if (key == "step/box_loss") return SeriesId{RunChart::Losses, 0};
  if (key == "step/cls_loss") return SeriesId{RunChart::Losses, 1};
  if (key == "step/dfl_loss") return SeriesId{RunChart::Losses, 2};
  if (key == store::kTotalSamplesPerSecKey) return SeriesId{RunChart::Speed, 0};
  if (key == "step/samples_per_s") return SeriesId{RunChart::Speed, 1};
  return std::nullopt;
}

std::optional<SeriesId> sampleSeries(const std::string& fullKey, int gpu) {
  const auto [node, keyView] = telemetry::splitNodeKey(fullKey);
  const std::string key(keyView);
  if (key == "cpu_total") return SeriesId{RunChart::System, 0, node};
  if (key == "mem_used") return SeriesId{RunChart::System, 1, node};
  if (key.compare(0, 5, "gpus/") != 0) return std::nullopt;
  const auto slash = key.find('/', 5);
  if (slash == std::string::npos || slash == 5) return std::nullopt;
  for (size_t i = 5; i < slash; ++i)
    if (key[i] < '0' || key[i] > '9') return std::nullopt;
  const int index = gpu >= 0 ? gpu : std::atoi(key.c_str() + 5);
  const std::string leaf = key.substr(slash + 1);
  if (leaf == "util") return SeriesId{RunChart::GpuUtil, index, node};
  if (leaf == "mem_used") return SeriesId{RunChart::GpuMem, index, node};
  if (leaf == "power_w") return SeriesId{RunChart::GpuPower, index, node};
  return std::nullopt;
}

std::string sampleKey(SeriesId id) {
  const std::string node = telemetry::nodeKeyPrefix(id.node);
  switch (id.chart) {
    case RunChart::GpuUtil: return node + "gpus/" + std::to_string(id.series) + "/util";
    case RunChart::GpuMem: return node + "gpus/" + std::to_string(id.series) + "/mem_used";
    case RunChart::GpuPower: return node + "gpus/" + std::to_string(id.series) + "/power_w";
    case RunChart::System: return node + (id.series == 0 ? "cpu_total" : "mem_used");
    default: return {};
  }
}

}  // namespace stave::studio
