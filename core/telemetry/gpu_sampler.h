#pragma once
// GPU utilisation, memory, power, temperature and clocks from NVML. libnvidia-ml.so.1 is loaded
// with dlopen() at run time, so nothing needs a driver to build and a machine without one simply
// reports the sampler as unavailable, with the reason.

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/base/message.h"

namespace stave::telemetry {

/// One reading of one GPU. Values a device does not support are -1.
struct GpuSample {
  int index = 0;                  ///< NVML device index
  std::string name;               ///< e.g. "NVIDIA H100 80GB HBM3"
  double time = 0;                ///< unix seconds of the reading
  double utilization = -1;        ///< % of time a kernel ran over the last sample period
  double memoryUtilization = -1;  ///< % of time memory was read or written
  int64_t memoryUsed = -1;        ///< bytes
  int64_t memoryTotal = -1;       ///< bytes
  double powerW = -1;             ///< current board power, watts
  double powerLimitW = -1;        ///< enforced power limit, watts
  double temperatureC = -1;       ///< GPU core temperature, Celsius
  double smClockMHz = -1;         ///< current SM clock, MHz
  double pcieTxBps = -1;          ///< PCIe bytes/s sent by the GPU (NVML's ~20 ms window)
  double pcieRxBps = -1;          ///< PCIe bytes/s received by the GPU
};

/// Options of GpuSampler.
struct GpuSamplerOptions {
  double periodSeconds = 1.0;                 ///< time between samples of the polling thread
  std::string library = "libnvidia-ml.so.1";  ///< the NVML library to dlopen (tests use a fake)
  std::vector<int> devices;                   ///< NVML indices to sample; empty = all
};

/// Polls NVML on its own thread and hands each round of samples (one per device) to a callback.
/// The destructor stops and joins the thread.
class GpuSampler {
 public:
  /// Called on the sampler's thread with one sample per device.
  using Callback = std::function<void(const std::vector<GpuSample>&)>;

  /// Loads and initialises NVML; check available() afterwards.
  explicit GpuSampler(GpuSamplerOptions options = {});
  ~GpuSampler();
  GpuSampler(const GpuSampler&) = delete;
  GpuSampler& operator=(const GpuSampler&) = delete;

  /// Whether NVML loaded and initialised.
  bool available() const;
  /// Why not, e.g. "libnvidia-ml.so.1: cannot open shared object file" ("" when available).
  const std::string& unavailableReason() const;
  /// unavailableReason() as catalog messages (NVML's and the loader's words kept).
  const TextParts& unavailableReasonText() const { return m_reasonText; }
  /// Number of devices sampled (0 when unavailable).
  int deviceCount() const;
  /// Their names, by position.
  std::vector<std::string> deviceNames() const;

  /// Reads every device now (on the caller's thread). Empty when unavailable.
  std::vector<GpuSample> sampleOnce();
  /// Starts the polling thread; false when unavailable or already running.
  bool start(Callback callback);
  /// Stops the polling thread (bounded by one NVML round); no-op when not running.
  void stop();
  /// Whether the polling thread runs.
  bool running() const;
  /// The exception a callback threw (it stopped the polling), or null.
  std::exception_ptr callbackError() const;

 private:
  struct Nvml;
  void loop(Callback callback);

  GpuSamplerOptions m_options;
  std::unique_ptr<Nvml> m_nvml;
  std::string m_reason;
  TextParts m_reasonText;
  std::vector<int> m_indices;
  std::vector<std::string> m_names;
  mutable std::mutex m_nvmlMutex;  // serialises NVML reads of sampleOnce and the thread

  mutable std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  bool m_running = false;
  std::exception_ptr m_error;
  std::thread m_thread;
};

}  // namespace stave::telemetry
