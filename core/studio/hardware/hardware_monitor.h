#pragma once
// HardwareMonitor: what the studio's own machine has — the GPU inventory (NVML) and the host's
// CPUs, NUMA nodes and memory — read once on a background thread, then the GPUs sampled about
// once a second by a GpuSampler on its thread. Every result is handed to the GUI thread as a
// queued call, so NVML and /proc never run there; the owner's thread only keeps the latest
// round and a bounded history. QtCore only.

#include <QObject>
#include <QString>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/telemetry/gpu_inventory.h"
#include "core/telemetry/gpu_sampler.h"
#include "core/telemetry/host_info.h"

namespace stave::studio {

/// Reads the machine's hardware and samples its GPUs; signals on the thread that owns it.
class HardwareMonitor : public QObject {
  Q_OBJECT
 public:
  explicit HardwareMonitor(QObject* parent = nullptr);
  /// Stops the sampler and joins the probe (bounded by one NVML round).
  ~HardwareMonitor() override;

  /// The NVML library to load (default: $STAVE_NVML_LIBRARY, else libnvidia-ml.so.1). Takes
  /// effect at start().
  void setLibrary(const QString& library) { m_library = library; }
  QString library() const { return m_library; }
  /// Seconds between GPU samples (default 1).
  void setPeriod(double seconds) { m_periodS = seconds; }
  /// Rounds of samples kept (default 3600: an hour at one a second).
  void setHistoryCapacity(int rounds);

  /// Starts reading in the background; inventoryReady() follows, then sampled() every period.
  /// No-op when already started.
  void start();
  bool started() const { return m_started; }
  /// Whether the inventory has arrived.
  bool ready() const { return m_ready; }

  /// The GPUs (valid once ready()).
  const telemetry::GpuInventory& inventory() const { return m_inventory; }
  /// The host (valid once ready()).
  const telemetry::HostInfo& host() const { return m_host; }
  /// Whether there is a GPU to show: NVML works and lists a device.
  bool hasGpu() const { return m_inventory.available && !m_inventory.devices.empty(); }
  /// Why there is none, e.g. "NVML not found (no NVIDIA driver?): …" ("" when hasGpu()).
  QString noGpuReason() const;
  /// The latest round, one sample per device; empty before the first.
  const std::vector<telemetry::GpuSample>& latest() const { return m_latest; }
  /// Past rounds, oldest first, at most the history capacity.
  const std::deque<std::vector<telemetry::GpuSample>>& history() const { return m_history; }

 signals:
  /// inventory() and host() were read.
  void inventoryReady();
  /// A new round of samples arrived (latest(), the end of history()).
  void sampled();

 private:
  void probe(const std::string& library, double periodS);
  void received(std::vector<telemetry::GpuSample> round);

  QString m_library;
  double m_periodS = 1.0;
  size_t m_capacity = 3600;
  bool m_started = false;
  bool m_ready = false;
  telemetry::GpuInventory m_inventory;
  telemetry::HostInfo m_host;
  std::vector<telemetry::GpuSample> m_latest;
  std::deque<std::vector<telemetry::GpuSample>> m_history;

  std::mutex m_mutex;  // guards m_sampler and m_stopping between the probe and the owner
  bool m_stopping = false;
  std::unique_ptr<telemetry::GpuSampler> m_sampler;
  std::thread m_probe;
};

}  // namespace stave::studio
