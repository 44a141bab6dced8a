#include "core/telemetry/gpu_sampler.h"

#include <algorithm>
#include <chrono>

#include "core/telemetry/events.h"
#include "core/telemetry/nvml.h"

namespace stave::telemetry {

namespace {
using nvmlReturn_t = nvml::Return;
using nvmlDevice_t = nvml::Device;
constexpr nvmlReturn_t kNvmlSuccess = nvml::kSuccess;
constexpr int kNvmlTemperatureGpu = nvml::kTemperatureGpu;
constexpr int kNvmlClockSm = nvml::kClockSm;
using NvmlUtilization = nvml::Utilization;
using NvmlMemory = nvml::Memory;
}  // namespace

/// The library (core/telemetry/nvml) and the entry points the sampler reads (each optional).
struct GpuSampler::Nvml {
  explicit Nvml(const std::string& path) : lib(path) {}
  nvml::Library lib;
  nvmlReturn_t (*getName)(nvmlDevice_t, char*, unsigned int) = nullptr;
  nvmlReturn_t (*getUtilization)(nvmlDevice_t, NvmlUtilization*) = nullptr;
  nvmlReturn_t (*getMemory)(nvmlDevice_t, NvmlMemory*) = nullptr;
  nvmlReturn_t (*getPower)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*getPowerLimit)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*getTemperature)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*getClock)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*getPcie)(nvmlDevice_t, int, unsigned int*) = nullptr;  ///< KB/s; optional
};

GpuSampler::GpuSampler(GpuSamplerOptions options) : m_options(std::move(options)) {
  auto nvml = std::make_unique<Nvml>(m_options.library);
  if (!nvml->lib.ok()) {
    m_reasonText = {nvml->lib.reasonText()};
    m_reason = english(m_reasonText);
    return;
  }
  const nvml::Library& lib = nvml->lib;
  nvml->getName = lib.symbol<decltype(nvml->getName)>("nvmlDeviceGetName");
  nvml->getUtilization = lib.symbol<decltype(nvml->getUtilization)>("nvmlDeviceGetUtilizationRates");
  nvml->getMemory = lib.symbol<decltype(nvml->getMemory)>("nvmlDeviceGetMemoryInfo");
  nvml->getPower = lib.symbol<decltype(nvml->getPower)>("nvmlDeviceGetPowerUsage");
  nvml->getPowerLimit = lib.symbol<decltype(nvml->getPowerLimit)>("nvmlDeviceGetEnforcedPowerLimit");
  nvml->getTemperature = lib.symbol<decltype(nvml->getTemperature)>("nvmlDeviceGetTemperature");
  nvml->getClock = lib.symbol<decltype(nvml->getClock)>("nvmlDeviceGetClockInfo");
  nvml->getPcie = lib.symbol<decltype(nvml->getPcie)>("nvmlDeviceGetPcieThroughput");
  unsigned int count = 0;
  if (const nvmlReturn_t rc = lib.getCount(&count); rc != kNvmlSuccess) {
    m_reasonText = {Text("nvml.count_failed", {{"reason", lib.describe(rc)}})};
    m_reason = english(m_reasonText);
    return;
  }
  if (m_options.devices.empty()) {
    for (unsigned i = 0; i < count; ++i) m_indices.push_back(static_cast<int>(i));
  } else {
    for (int i : m_options.devices) {
      if (i < 0 || static_cast<unsigned>(i) >= count) {
        m_reasonText = {Text("nvml.no_such_gpu",
                             {{"index", std::to_string(i)}, {"count", std::to_string(count)}})};
        m_reason = english(m_reasonText);
        return;
      }
      m_indices.push_back(i);
    }
  }
  for (int i : m_indices) {
    nvmlDevice_t dev = nullptr;
    char name[nvml::kBuffer] = {0};
    if (lib.getHandle(static_cast<unsigned>(i), &dev) == kNvmlSuccess && nvml->getName &&
        nvml->getName(dev, name, nvml::kBuffer) == kNvmlSuccess) {
      m_names.emplace_back(name);
    } else {
      m_names.push_back("GPU " + std::to_string(i));
    }
  }
  m_nvml = std::move(nvml);
}

GpuSampler::~GpuSampler() {
  stop();
}

bool GpuSampler::available() const {
  return m_nvml != nullptr;
}
const std::string& GpuSampler::unavailableReason() const {
  return m_reason;
}
int GpuSampler::deviceCount() const {
  return available() ? static_cast<int>(m_indices.size()) : 0;
}
std::vector<std::string> GpuSampler::deviceNames() const {
  return available() ? m_names : std::vector<std::string>{};
}

std::vector<GpuSample> GpuSampler::sampleOnce() {
  std::vector<GpuSample> out;
  if (!available()) return out;
  std::lock_guard<std::mutex> lock(m_nvmlMutex);
  const Nvml& n = *m_nvml;
  const double now = unixTimeNow();
  for (size_t k = 0; k < m_indices.size(); ++k) {
    GpuSample s;
    s.index = m_indices[k];
    s.name = m_names[k];
    s.time = now;
    nvmlDevice_t dev = nullptr;
    if (n.lib.getHandle(static_cast<unsigned>(s.index), &dev) != kNvmlSuccess) {
      out.push_back(std::move(s));  // the device vanished (reset, Xid): all fields stay -1
      continue;
    }
    NvmlUtilization util{};
    if (n.getUtilization && n.getUtilization(dev, &util) == kNvmlSuccess) {
      s.utilization = util.gpu;
      s.memoryUtilization = util.memory;
    }
    NvmlMemory mem{};
    if (n.getMemory && n.getMemory(dev, &mem) == kNvmlSuccess) {
      s.memoryUsed = static_cast<int64_t>(mem.used);
      s.memoryTotal = static_cast<int64_t>(mem.total);
    }
    unsigned int v = 0;
    if (n.getPower && n.getPower(dev, &v) == kNvmlSuccess) s.powerW = v / 1000.0;  // milliwatts
    if (n.getPowerLimit && n.getPowerLimit(dev, &v) == kNvmlSuccess) s.powerLimitW = v / 1000.0;
    if (n.getTemperature && n.getTemperature(dev, kNvmlTemperatureGpu, &v) == kNvmlSuccess) {
      s.temperatureC = v;
    }
    if (n.getClock && n.getClock(dev, kNvmlClockSm, &v) == kNvmlSuccess) s.smClockMHz = v;
    // NVML_PCIE_UTIL_TX_BYTES = 0, NVML_PCIE_UTIL_RX_BYTES = 1, in KB/s.
    if (n.getPcie && n.getPcie(dev, 0, &v) == kNvmlSuccess) s.pcieTxBps = v * 1024.0;
    if (n.getPcie && n.getPcie(dev, 1, &v) == kNvmlSuccess) s.pcieRxBps = v * 1024.0;
    out.push_back(std::move(s));
  }
  return out;
}

bool GpuSampler::start(Callback callback) {
  if (!available() || !callback) return false;
  std::lock_guard<std::mutex> lock(m_mutex);
  if (m_running) return false;
  if (m_thread.joinable()) m_thread.join();  // a previous loop that ended on a callback error
  m_stop = false;
  m_running = true;
  m_error = nullptr;
  m_thread = std::thread([this, cb = std::move(callback)] { loop(cb); });
  return true;
}

void GpuSampler::stop() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
  }
  m_wake.notify_all();
  if (m_thread.joinable()) m_thread.join();
  std::lock_guard<std::mutex> lock(m_mutex);
  m_running = false;
}

bool GpuSampler::running() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_running;
}

std::exception_ptr GpuSampler::callbackError() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_error;
}

void GpuSampler::loop(Callback callback) {
  const auto period = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(std::max(0.001, m_options.periodSeconds)));
  auto next = std::chrono::steady_clock::now();
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(m_mutex);
      if (m_wake.wait_until(lock, next, [this] { return m_stop; })) break;
    }
    next += period;
    try {
      callback(sampleOnce());
    } catch (...) {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_error = std::current_exception();
      m_running = false;
      return;
    }
  }
}

}  // namespace stave::telemetry
