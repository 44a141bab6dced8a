#pragma once
// One loader of NVML (libnvidia-ml, opened at run time: no NVML header or library is needed to
// build, and a machine without an NVIDIA driver runs everything but GPU telemetry): the few
// declarations Stave uses, written out after NVML's public API (nvml.h), and the library
// opened, initialised and shut down once per user. Used by the GPU inventory (the Hardware
// page, `doctor`) and the GPU sampler (the launcher's gpu_sample events).
#include <string>

#include "core/base/message.h"

namespace stave::telemetry::nvml {

using Return = int;
using Device = struct nvmlDevice_st*;
constexpr Return kSuccess = 0;
constexpr int kTemperatureGpu = 0;  ///< NVML_TEMPERATURE_GPU
constexpr int kClockSm = 1;         ///< NVML_CLOCK_SM
constexpr int kP2pCapsIndexRead = 0;
constexpr unsigned kNvLinkMaxLinks = 18;  ///< NVML_NVLINK_MAX_LINKS (Hopper: 18)
constexpr unsigned kBuffer = 96;          ///< >= every NVML name, UUID and version buffer

struct Utilization {
  unsigned int gpu;
  unsigned int memory;
};
struct Memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
struct PciInfo {  // nvmlPciInfo_t (v2 and v3 share it)
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
};

class Library {
 public:
  /// Opens `path` (e.g. libnvidia-ml.so.1) and runs nvmlInit. ok() is false when that failed,
  /// and reason() says why: "NVML not found (no NVIDIA driver?): ...", "... lacks
  /// nvmlInit/nvmlDeviceGetCount (too old a driver?)", "nvmlInit failed: ...".
  explicit Library(const std::string& path);
  /// nvmlShutdown, then the library closed.
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  bool ok() const { return m_initialised; }
  const std::string& reason() const { return m_reason; }
  /// reason() as a catalog message (NVML's and the loader's own words kept as arguments).
  const Text& reasonText() const { return m_reasonText; }
  /// An entry point by name, or by `fallback` (an older driver's name); nullptr when neither
  /// exists: every entry point but the required ones below is optional.
  template <typename Fn>
  Fn symbol(const char* name, const char* fallback = nullptr) const {
    return reinterpret_cast<Fn>(find(name, fallback));
  }
  /// NVML's words for `rc` ("Insufficient Permissions (NVML 4)").
  std::string describe(Return rc) const;

  // The entry points every user needs (non-null when ok()).
  Return (*getCount)(unsigned int*) = nullptr;
  Return (*getHandle)(unsigned int, Device*) = nullptr;

 private:
  void* find(const char* name, const char* fallback) const;
  void* m_handle = nullptr;
  Return (*m_shutdown)() = nullptr;
  const char* (*m_errorString)(Return) = nullptr;
  bool m_initialised = false;
  std::string m_reason;
  Text m_reasonText;
  void fail(Text why) {
    m_reason = english(why);
    m_reasonText = std::move(why);
  }
};

}  // namespace stave::telemetry::nvml
