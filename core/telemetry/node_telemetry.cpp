#include "core/telemetry/node_telemetry.h"

#include <chrono>
#include <cstdlib>

#include "core/base/host_name.h"
#include "core/telemetry/gpu_sampler.h"
#include "core/telemetry/system_sampler.h"

namespace stave::telemetry {

NodeTelemetry::NodeTelemetry(NodeTelemetryOptions options, Sink sink)
    : m_opt(std::move(options)), m_sink(std::move(sink)) {}

NodeTelemetry::~NodeTelemetry() { stop(); }

void NodeTelemetry::setProcesses(std::vector<std::pair<int, int>> ranks) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_ranks = std::move(ranks);
}

void NodeTelemetry::start() {
  if (m_thread.joinable() || m_opt.periodS <= 0) return;
  m_stop = false;
  m_thread = std::thread([this] { loop(); });
}

void NodeTelemetry::stop() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
  }
  m_cv.notify_all();
  if (m_thread.joinable()) m_thread.join();
}

void NodeTelemetry::loop() {
  GpuSamplerOptions go;
  go.library = m_opt.nvmlLibrary;
  // Another NVML (an unusual driver install, or a test's fake): STAVE_NVML_LIBRARY.
  if (const char* env = std::getenv("STAVE_NVML_LIBRARY"); env && *env &&
      m_opt.nvmlLibrary == NodeTelemetryOptions{}.nvmlLibrary)
    go.library = env;
  GpuSampler gpu(go);
  const std::string host = m_opt.host.empty() ? hostName() : m_opt.host;
  const bool haveGpu = gpu.available() && gpu.deviceCount() > 0;
  if (!haveGpu) {
    GpuSampleEvent none;
    none.node = m_opt.node;
    none.nodes = m_opt.nodes;
    none.host = host;
    none.statusText = {
        Text("node.no_gpu", {{"reason", gpu.available() ? TextParts{Text("nvml.no_device")}
                                                        : gpu.unavailableReasonText()}})};
    none.status = english(none.statusText);
    m_sink(toEvent(none, -1));
  }
  SystemSampler system(m_opt.procRoot);
  if (!m_opt.diskPath.empty()) system.setDiskPath(m_opt.diskPath);
  const auto period = std::chrono::duration<double>(m_opt.periodS);
  auto next = std::chrono::steady_clock::now();
  for (;;) {
    if (haveGpu) {
      GpuSampleEvent e;
      e.node = m_opt.node;
      e.nodes = m_opt.nodes;
      e.host = host;
      double when = 0;
      for (const auto& s : gpu.sampleOnce()) {
        GpuReading g;
        g.index = s.index;
        g.name = s.name;
        g.util = s.utilization;
        g.memUtil = s.memoryUtilization;
        g.memUsed = static_cast<double>(s.memoryUsed);
        g.memTotal = static_cast<double>(s.memoryTotal);
        g.powerW = s.powerW;
        g.powerLimitW = s.powerLimitW;
        g.temperatureC = s.temperatureC;
        g.smClockMHz = s.smClockMHz;
        g.pcieTxBps = s.pcieTxBps;
        g.pcieRxBps = s.pcieRxBps;
        e.gpus.push_back(g);
        when = s.time;
      }
      auto ev = toEvent(e, -1);
      if (when > 0) ev.time = when;
      m_sink(std::move(ev));
    }
    std::vector<std::pair<int, int>> ranks;
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      ranks = m_ranks;
    }
    const double now =
        std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    SystemSampleEvent sys = system.sample(ranks, now);
    sys.node = m_opt.node;
    sys.nodes = m_opt.nodes;
    sys.host = host;
    m_sink(toEvent(sys, -1));
    next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(period);
    std::unique_lock<std::mutex> lock(m_mutex);
    if (m_cv.wait_until(lock, next, [this] { return m_stop; })) return;
  }
}

}  // namespace stave::telemetry
