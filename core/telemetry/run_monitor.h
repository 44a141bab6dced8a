#pragma once
// What watches a run from the process that keeps its event log (the launcher, or a single
// training process): the doctor, with a diagnosis every reporting period and a final report,
// and the Prometheus metrics of the run, served when a metrics port is set.
//
// Every event the log gets goes through observe() (any thread). The owner asks due() for the
// diagnoses whose period has ended and writes them like any other event (and observes them, so
// the metrics see them); a single process lets the monitor's own timer thread do that.

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/base/result.h"
#include "core/telemetry/doctor.h"
#include "core/telemetry/metrics.h"
#include "core/telemetry/metrics_server.h"

namespace stave::telemetry {

struct RunMonitorOptions {
  double reportPeriodS = 30;               ///< a diagnosis every this long (0 = final report only)
  DoctorOptions doctor;                    ///< the doctor's thresholds
  std::string runName;                     ///< label `run` of the metrics (the run folder's name)
  std::string host;                        ///< label `host` ("" = this machine's name)
  int metricsPort = 0;                     ///< serve metrics on this port (0 = no server)
  std::string metricsAddress = "127.0.0.1";  ///< the address it listens on
  int rank = -1;                           ///< rank its diagnosis events carry
  std::string node;                        ///< label `node` of the metrics in a run of several
                                           ///< nodes ("" = one node)
};

class RunMonitor {
 public:
  /// Starts the metrics server when a port is set; the error names the port and the reason.
  static Result<std::unique_ptr<RunMonitor>> create(const RunMonitorOptions& options);
  ~RunMonitor();
  RunMonitor(const RunMonitor&) = delete;
  RunMonitor& operator=(const RunMonitor&) = delete;

  /// Feeds one event to the doctor and (an event of this node: `thisNode`) the metrics.
  /// Thread-safe.
  void observe(const Event& event, bool thisNode = true);
  /// The diagnosis of the period that has just ended, when one has (and had steps to judge);
  /// the caller writes it and observes it.
  std::vector<Event> due();
  /// The doctor's report over the whole run.
  Event finalReport();
  /// Calls `write` with each due diagnosis from a thread of its own until stopTimer().
  void startTimer(std::function<void(const Event&)> write);
  void stopTimer();

  /// The metrics server, or null.
  const MetricsServer* server() const { return m_server.get(); }
  const MetricsRegistry& registry() const { return m_registry; }

 private:
  explicit RunMonitor(const RunMonitorOptions& options);

  RunMonitorOptions m_options;
  std::mutex m_mutex;
  Doctor m_doctor;
  double m_periodStart = 0;
  MetricsRegistry m_registry;
  std::unique_ptr<MetricsServer> m_server;

  std::mutex m_timerMutex;
  std::condition_variable m_timerWake;
  bool m_timerStop = false;
  std::thread m_timer;
};

}  // namespace stave::telemetry
