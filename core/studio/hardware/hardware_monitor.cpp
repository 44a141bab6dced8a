#include "core/studio/hardware/hardware_monitor.h"

#include <QMetaObject>
#include <QtGlobal>
#include <algorithm>
#include <utility>

#include "core/studio/engine_text.h"

namespace stave::studio {

HardwareMonitor::HardwareMonitor(QObject* parent) : QObject(parent) {
  // The same variable the launcher's node telemetry reads: one NVML for the whole studio.
  const QString env = qEnvironmentVariable("STAVE_NVML_LIBRARY");
  m_library = env.isEmpty() ? QString::fromStdString(telemetry::GpuSamplerOptions{}.library) : env;
}

HardwareMonitor::~HardwareMonitor() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stopping = true;
  }
  if (m_probe.joinable()) m_probe.join();
  // Stop and join the sampler's thread while this object still exists; calls it already
  // queued die with the object (~QObject drops its posted events).
  std::unique_ptr<telemetry::GpuSampler> sampler;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    sampler = std::move(m_sampler);
  }
  sampler.reset();
}

void HardwareMonitor::setHistoryCapacity(int rounds) {
  m_capacity = static_cast<size_t>(std::max(1, rounds));
  while (m_history.size() > m_capacity) m_history.pop_front();
}

QString HardwareMonitor::noGpuReason() const {
  if (hasGpu()) return {};
  if (!m_ready) return {};
  if (m_inventory.reason.empty()) return engineText(Text("nvml.no_device"));
  return engineText(m_inventory.reasonText, m_inventory.reason);
}

void HardwareMonitor::start() {
  if (m_started) return;
  m_started = true;
  m_probe = std::thread([this, lib = m_library.toStdString(), period = m_periodS] {
    probe(lib, period);
  });
}

void HardwareMonitor::probe(const std::string& library, double periodS) {
  // NVML's first init on a real node takes tens to hundreds of milliseconds: here, not on the
  // GUI thread.
  telemetry::GpuInventoryOptions io;
  io.library = library;
  auto inventory = std::make_shared<telemetry::GpuInventory>(telemetry::readGpuInventory(io));
  auto host = std::make_shared<telemetry::HostInfo>(telemetry::readHostInfo());
  const bool gpus = inventory->available && !inventory->devices.empty();
  // The inventory is queued before the sampler starts, so it arrives before the first round.
  QMetaObject::invokeMethod(
      this,
      [this, inventory, host] {
        m_inventory = std::move(*inventory);
        m_host = std::move(*host);
        m_ready = true;
        emit inventoryReady();
      },
      Qt::QueuedConnection);
  if (!gpus) return;
  telemetry::GpuSamplerOptions so;
  so.library = library;
  so.periodSeconds = periodS;
  auto sampler = std::make_unique<telemetry::GpuSampler>(so);
  std::lock_guard<std::mutex> lock(m_mutex);
  if (m_stopping || !sampler->available()) return;
  sampler->start([this](const std::vector<telemetry::GpuSample>& round) {
    QMetaObject::invokeMethod(
        this, [this, round] { received(round); }, Qt::QueuedConnection);
  });
  m_sampler = std::move(sampler);
}

void HardwareMonitor::received(std::vector<telemetry::GpuSample> round) {
  m_latest = round;
  m_history.push_back(std::move(round));
  while (m_history.size() > m_capacity) m_history.pop_front();
  emit sampled();
}

}  // namespace stave::studio
