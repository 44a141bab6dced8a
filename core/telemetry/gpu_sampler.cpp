#include "core/telemetry/gpu_sampler.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>

#include "core/telemetry/events.h"

namespace stave::telemetry {

namespace {

// The few NVML declarations Stave uses, written out so no NVML header is needed to build.
// Layouts and values follow NVML's public API (nvml.h).
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr int kNvmlTemperatureGpu = 0;
constexpr int kNvmlClockSm = 1;
constexpr unsigned kNvmlNameBuffer = 96;
struct NvmlUtilization {
  unsigned int gpu;
  unsigned int memory;
};
struct NvmlMemory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

template <typename Fn>
Fn symbol(void* lib, const char* name, const char* fallback = nullptr) {
  void* p = dlsym(lib, name);
  if (!p && fallback) p = dlsym(lib, fallback);
  return reinterpret_cast<Fn>(p);
}

}  // namespace

struct GpuSampler::Nvml {
  void* lib = nullptr;
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  const char* (*errorString)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*getCount)(unsigned int*) = nullptr;
  nvmlReturn_t (*getHandle)(unsigned int, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*getName)(nvmlDevice_t, char*, unsigned int) = nullptr;
  nvmlReturn_t (*getUtilization)(nvmlDevice_t, NvmlUtilization*) = nullptr;
  nvmlReturn_t (*getMemory)(nvmlDevice_t, NvmlMemory*) = nullptr;
  nvmlReturn_t (*getPower)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*getPowerLimit)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*getTemperature)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*getClock)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*getPcie)(nvmlDevice_t, int, unsigned int*) = nullptr;  ///< KB/s; optional
  bool initialised = false;

  std::string describe(nvmlReturn_t rc) const {
    const char* s = errorString ? errorString(rc) : nullptr;
    return s ? std::string(s) + " (NVML " + std::to_string(rc) + ")"
             : "NVML error " + std::to_string(rc);
  }

  ~Nvml() {
    if (initialised && shutdown) shutdown();
    if (lib) dlclose(lib);
  }
};

GpuSampler::GpuSampler(GpuSamplerOptions options) : m_options(std::move(options)) {
  auto nvml = std::make_unique<Nvml>();
  nvml->lib = dlopen(m_options.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!nvml->lib) {
    const char* err = dlerror();
    m_reason = "NVML not found (no NVIDIA driver?): " +
               (err ? std::string(err) : m_options.library + " could not be loaded");
    return;
  }
  void* lib = nvml->lib;
  nvml->init = symbol<decltype(nvml->init)>(lib, "nvmlInit_v2", "nvmlInit");
  nvml->shutdown = symbol<decltype(nvml->shutdown)>(lib, "nvmlShutdown");
  nvml->errorString = symbol<decltype(nvml->errorString)>(lib, "nvmlErrorString");
  nvml->getCount =
      symbol<decltype(nvml->getCount)>(lib, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
  nvml->getHandle = symbol<decltype(nvml->getHandle)>(lib, "nvmlDeviceGetHandleByIndex_v2",
                                                      "nvmlDeviceGetHandleByIndex");
  nvml->getName = symbol<decltype(nvml->getName)>(lib, "nvmlDeviceGetName");
  nvml->getUtilization =
      symbol<decltype(nvml->getUtilization)>(lib, "nvmlDeviceGetUtilizationRates");
  nvml->getMemory = symbol<decltype(nvml->getMemory)>(lib, "nvmlDeviceGetMemoryInfo");
  nvml->getPower = symbol<decltype(nvml->getPower)>(lib, "nvmlDeviceGetPowerUsage");
  nvml->getPowerLimit =
      symbol<decltype(nvml->getPowerLimit)>(lib, "nvmlDeviceGetEnforcedPowerLimit");
  nvml->getTemperature = symbol<decltype(nvml->getTemperature)>(lib, "nvmlDeviceGetTemperature");
  nvml->getClock = symbol<decltype(nvml->getClock)>(lib, "nvmlDeviceGetClockInfo");
  nvml->getPcie = symbol<decltype(nvml->getPcie)>(lib, "nvmlDeviceGetPcieThroughput");
  if (!nvml->init || !nvml->shutdown || !nvml->getCount || !nvml->getHandle) {
    m_reason = m_options.library + " lacks nvmlInit/nvmlDeviceGetCount (too old a driver?)";
    return;
  }
  if (const nvmlReturn_t rc = nvml->init(); rc != kNvmlSuccess) {
    m_reason = "nvmlInit failed: " + nvml->describe(rc);
    return;
  }
  nvml->initialised = true;
  unsigned int count = 0;
  if (const nvmlReturn_t rc = nvml->getCount(&count); rc != kNvmlSuccess) {
    m_reason = "nvmlDeviceGetCount failed: " + nvml->describe(rc);
    return;
  }
  if (m_options.devices.empty()) {
    for (unsigned i = 0; i < count; ++i) m_indices.push_back(static_cast<int>(i));
  } else {
    for (int i : m_options.devices) {
      if (i < 0 || static_cast<unsigned>(i) >= count) {
        m_reason = "GPU " + std::to_string(i) + " does not exist (NVML sees " +
                   std::to_string(count) + " devices)";
        return;
      }
      m_indices.push_back(i);
    }
  }
  for (int i : m_indices) {
    nvmlDevice_t dev = nullptr;
    char name[kNvmlNameBuffer] = {0};
    if (nvml->getHandle(static_cast<unsigned>(i), &dev) == kNvmlSuccess && nvml->getName &&
        nvml->getName(dev, name, kNvmlNameBuffer) == kNvmlSuccess) {
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
    if (n.getHandle(static_cast<unsigned>(s.index), &dev) != kNvmlSuccess) {
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
