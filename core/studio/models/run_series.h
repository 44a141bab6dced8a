#pragma once
// What the Run page draws of a run, decided in one place off the widgets: its charts, the
// series of each, and the points each event (or what the history store holds) puts on them.
// The page only gives a series its name and colour and hands the points to its chart. No Qt.
#include <optional>
#include <string>
#include <vector>

#include "core/telemetry/events.h"

namespace stave::studio {

/// The Run page's charts.
enum class RunChart { Losses, EpochLosses, Metrics, Lr, Speed, GpuUtil, GpuMem, GpuPower, System };

/// A series of a chart:
///   Losses: 0 box, 1 cls, 2 dfl (rank 0, x: global iteration)
///   EpochLosses: train 0 box, 1 cls, 2 dfl; val 3 box, 4 cls, 5 dfl (x: epoch, 1-based)
///   Metrics: 0 P, 1 R, 2 mAP50, 3 mAP50-95 (x: epoch)
///   Lr: parameter group i (x: epoch)
///   Speed: 0 the ranks' samples/s summed, 1 rank 0's own (a store that did not sum them)
///   GpuUtil (%), GpuMem (GiB), GpuPower (W): the GPU's index (x: seconds since the start)
///   System: 0 CPU (% of all cores), 1 memory (% of the node's total)
/// The GPU and System series of a run of several nodes are per node (`node`).
struct SeriesId {
  RunChart chart = RunChart::Losses;
  int series = 0;
  int node = 0;  ///< the node a sample series is of (0 for every other series)
  bool operator==(const SeriesId& o) const {
    return chart == o.chart && series == o.series && node == o.node;
  }
  bool operator<(const SeriesId& o) const {
    if (chart != o.chart) return chart < o.chart;
    return node != o.node ? node < o.node : series < o.series;
  }
};

struct SeriesPoint {
  SeriesId id;
  double x = 0, y = 0;
};

/// Rank 0's step: its losses and `totalSamplesPerSec` (the ranks' latest, summed) at its global
/// iteration.
std::vector<SeriesPoint> seriesPoints(const telemetry::StepEvent& s, double totalSamplesPerSec);
std::vector<SeriesPoint> seriesPoints(const telemetry::EpochEndEvent& e);
std::vector<SeriesPoint> seriesPoints(const telemetry::ValidationEvent& v);
/// A launcher sample at `t` seconds since the start; unsampled fields (negative) give none.
std::vector<SeriesPoint> seriesPoints(const telemetry::GpuSampleEvent& g, double t);
std::vector<SeriesPoint> seriesPoints(const telemetry::SystemSampleEvent& s, double t);

/// The series a curve of the history store draws (store::Store::curve keys: step/box_loss,
/// step/samples_per_s_all, ...); none for a key the page does not draw.
std::optional<SeriesId> curveSeries(const std::string& key);
/// The series a sample key of the store draws (gpus/<i>/util, gpus/<i>/mem_used,
/// gpus/<i>/power_w, cpu_total, mem_used; another node's with its node/<K>/ prefix), for the
/// GPU of index `gpu` (-1: the key's slot).
std::optional<SeriesId> sampleSeries(const std::string& key, int gpu = -1);
/// The store's key of a sample series (gpus/<i>/util, ..., cpu_total, mem_used; node/<K>/...).
std::string sampleKey(SeriesId id);

}  // namespace stave::studio
