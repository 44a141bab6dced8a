#include "core/telemetry/run_monitor.h"

#include <unistd.h>

#include <chrono>

#include "core/base/host_name.h"

namespace stave::telemetry {

RunMonitor::RunMonitor(const RunMonitorOptions& options)
    : m_options(options),
      m_doctor(options.doctor),
      m_registry(options.runName, options.host.empty() ? hostName() : options.host,
                 options.node) {}

Result<std::unique_ptr<RunMonitor>> RunMonitor::create(const RunMonitorOptions& options) {
  std::unique_ptr<RunMonitor> m(new RunMonitor(options));
  if (options.metricsPort > 0) {
    auto server = MetricsServer::start(options.metricsAddress, options.metricsPort, &m->m_registry);
    if (!server) return server.errors();
    m->m_server = std::move(server.value());
  }
  return m;
}

RunMonitor::~RunMonitor() {
  stopTimer();
  if (m_server) m_server->stop();
}

void RunMonitor::observe(const Event& event, bool thisNode) {
  // Another node's events (through the event relay) reach the doctor only: that node's
  // launcher exports them itself, with its own node label.
  if (thisNode) m_registry.observe(event);
  std::lock_guard<std::mutex> lock(m_mutex);
  if (m_periodStart <= 0) m_periodStart = unixTimeNow();
  m_doctor.add(event);
}

std::vector<Event> RunMonitor::due() {
  std::vector<Event> out;
  if (m_options.reportPeriodS <= 0) return out;
  std::lock_guard<std::mutex> lock(m_mutex);
  const double now = unixTimeNow();
  if (m_periodStart <= 0 || now - m_periodStart < m_options.reportPeriodS) return out;
  const double period = now - m_periodStart;
  m_periodStart = now;
  bool judged = false;
  DiagnosisEvent d = m_doctor.diagnose(period, &judged);
  // A period without steps (validation, a checkpoint, the start) has nothing new to say.
  if (judged || (d.warmupSteps > 0 && d.findings.empty())) out.push_back(toEvent(d, m_options.rank));
  return out;
}

Event RunMonitor::finalReport() {
  std::lock_guard<std::mutex> lock(m_mutex);
  return toEvent(m_doctor.finalReport(), m_options.rank);
}

void RunMonitor::startTimer(std::function<void(const Event&)> write) {
  stopTimer();
  {
    std::lock_guard<std::mutex> lock(m_timerMutex);
    m_timerStop = false;
  }
  m_timer = std::thread([this, write = std::move(write)] {
    std::unique_lock<std::mutex> lock(m_timerMutex);
    while (!m_timerStop) {
      m_timerWake.wait_for(lock, std::chrono::milliseconds(250));
      if (m_timerStop) break;
      lock.unlock();
      for (const auto& e : due()) write(e);
      lock.lock();
    }
  });
}

void RunMonitor::stopTimer() {
  {
    std::lock_guard<std::mutex> lock(m_timerMutex);
    m_timerStop = true;
  }
  m_timerWake.notify_all();
  if (m_timer.joinable()) m_timer.join();
}

}  // namespace stave::telemetry
