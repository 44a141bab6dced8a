#pragma once
// The run's state as Prometheus metrics: fed the same events as events.jsonl, rendered in the
// Prometheus text exposition format (version 0.0.4) for a scrape. Names follow Prometheus'
// conventions: a stave_ prefix, base units in the name (_seconds, _bytes, _watts, _celsius,
// _hertz, _ratio for 0..1), _total for counters; labels run, host, rank, gpu, phase, loss, rule.
// docs/metrics.md lists every family.

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/telemetry/event_dispatch.h"
#include "core/telemetry/events.h"

namespace stave::telemetry {

/// One metric family as the endpoint exports it (name, type, help).
struct MetricFamilyInfo {
  std::string name;  ///< e.g. "stave_gpu_utilization_ratio"
  std::string type;  ///< "gauge" or "counter"
  std::string help;  ///< the # HELP text
};

/// Every family the registry can export (those with samples appear in a scrape).
const std::vector<MetricFamilyInfo>& metricFamilies();

/// Thread-safe: observe() from the writer of events, render() from the HTTP server's threads.
class MetricsRegistry {
 public:
  /// `run` and `host` label every series ("" = learnt from run_start); so does `node` (the
  /// node's index) in a run of several nodes ("" = one node, no such label).
  MetricsRegistry(std::string run = "", std::string host = "", std::string node = "");

  /// Takes any event; those the endpoint has no metric for only count in stave_events_total.
  void observe(const Event& event);
  /// The exposition text of everything observed so far.
  std::string render() const;

 private:
  using Labels = std::vector<std::pair<std::string, std::string>>;
  void set(const std::string& family, Labels labels, double value);
  void add(const std::string& family, Labels labels, double value);
  Labels base() const;
  void onRunStart(const Event& e, const RunStartEvent& rs);
  void onStep(const Event& e, const StepEvent& s);
  void onGpu(const GpuSampleEvent& g);
  void onSystem(const SystemSampleEvent& s);
  void onDiagnosis(const DiagnosisEvent& d);
  EventDispatch m_dispatch;  ///< one handler per event type (built in the constructor)

  mutable std::mutex m_mutex;
  std::string m_run;
  std::string m_host;
  std::string m_node;  // "" = one node
  // family -> (rendered label set -> value)
  std::map<std::string, std::map<std::string, double>> m_values;
  std::map<std::string, std::string> m_activeFindings;  // rule -> label text, to zero on clear
};

/// The label set `labels` as the text format writes it: {a="x",b="y"} (values escaped).
std::string formatLabels(const std::vector<std::pair<std::string, std::string>>& labels);

}  // namespace stave::telemetry
