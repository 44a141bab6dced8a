#include "core/studio/hardware/hardware_models.h"

#include <QStringList>
#include <algorithm>
#include <cmath>

#include "core/studio/engine_text.h"
#include "core/telemetry/hardware_names.h"

namespace stave::studio {

namespace tel = telemetry;

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }
const QString kUnknown = QStringLiteral("—");

QString number(double v, int decimals = 0) {
  return v < 0 || !std::isfinite(v) ? kUnknown : QString::number(v, 'f', decimals);
}

}  // namespace

// ---------------------------------------------------------------------------------------------

QString TopologyText::meaning(tel::LinkKind kind) {
  switch (kind) {
    case tel::LinkKind::Self:
      return tr("the GPU itself");
    case tel::LinkKind::NVLink:
      return tr("joined by NVLink (the number says how many links are bonded). NCCL uses "
                "NVLink directly for P2P and all-reduce: the fastest path, nothing to set.");
    case tel::LinkKind::PIX:
      return tr("at most one PCIe bridge apart (one PCIe switch). P2P over PCIe works; NCCL "
                "uses it by default.");
    case tel::LinkKind::PXB:
      return tr("several PCIe bridges apart, without the host bridge. P2P over the PCIe "
                "switches works; NCCL uses it by default.");
    case tel::LinkKind::PHB:
      return tr("through a PCIe host bridge, i.e. the CPU. Traffic passes the CPU; NCCL "
                "usually keeps P2P off here and copies through host memory "
                "(nccl_p2p_level=PHB allows P2P).");
    case tel::LinkKind::NODE:
      return tr("across PCIe host bridges within one NUMA node: through the CPU like PHB, P2P "
                "is often disabled (nccl_p2p_level=PHB allows it).");
    case tel::LinkKind::SYS:
      return tr("across the interconnect between CPU sockets (QPI/UPI): the slowest path. NCCL "
                "copies through host memory (nccl_p2p_level=SYS forces P2P, rarely faster).");
    case tel::LinkKind::Unknown:
      break;
  }
  return tr("the driver could not tell how these GPUs connect.");
}

QString TopologyText::p2pStatus(tel::P2pStatus status) {
  switch (status) {
    case tel::P2pStatus::Ok:
      return tr("OK");
    case tel::P2pStatus::ChipsetNotSupported:
      return tr("not supported by the chipset");
    case tel::P2pStatus::GpuNotSupported:
      return tr("not supported by the GPU");
    case tel::P2pStatus::TopologyNotSupported:
      return tr("not supported by the topology");
    case tel::P2pStatus::DisabledByRegkey:
      return tr("disabled by a driver registry key");
    case tel::P2pStatus::NotSupported:
      return tr("not supported");
    case tel::P2pStatus::Unknown:
      break;
  }
  return tr("unknown");
}

QString TopologyText::suggestedP2pLevel(const tel::GpuInventory& inventory) {
  const tel::LinkKind worst = inventory.worstLink();
  // NCCL's default (on most systems) takes P2P over NVLink and PCIe switches, up to PXB.
  if (worst <= tel::LinkKind::PXB) return {};
  return QString::fromLatin1(tel::p2pLevelFor(worst));
}

QString TopologyText::nodeAdvice(const tel::GpuInventory& inventory) {
  const int n = static_cast<int>(inventory.devices.size());
  if (n < 2)
    return tr("One GPU: no GPU-to-GPU traffic on this node, so nccl_p2p_level does not matter "
              "here.");
  const tel::LinkKind worst = inventory.worstLink();
  QString text;
  if (worst == tel::LinkKind::Unknown) {
    text = tr("The driver could not tell how some GPUs connect: leave nccl_p2p_level empty "
              "(NCCL's choice).");
  } else if (worst <= tel::LinkKind::PXB) {
    text = tr("The slowest pair connects by %1: NCCL's default already uses P2P between every "
              "pair. Leave nccl_p2p_level empty (%2 would do the same here).")
               .arg(worst == tel::LinkKind::NVLink ? QStringLiteral("NVLink")
                                                   : QString::fromLatin1(tel::toString(worst)),
                    QString::fromLatin1(tel::p2pLevelFor(worst)));
  } else {
    text = tr("Some pairs connect only by %1: NCCL usually copies through host memory for "
              "them. nccl_p2p_level=%2 lets it use P2P between every pair; compare the "
              "all-reduce wait of a run with and without it and keep it only if it helps.")
               .arg(QString::fromLatin1(tel::toString(worst)),
                    QString::fromLatin1(tel::p2pLevelFor(worst)));
  }
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      const auto s = inventory.pair(a, b).p2pRead;
      if (s == tel::P2pStatus::Ok || s == tel::P2pStatus::Unknown) continue;
      text += QLatin1Char(' ') +
              tr("The driver reports P2P reads between GPU %1 and GPU %2 as %3: no P2P there, "
                 "whatever nccl_p2p_level says.")
                  .arg(a)
                  .arg(b)
                  .arg(p2pStatus(s));
    }
  }
  return text;
}

QString TopologyText::bytes(double b) {
  if (!(b >= 0) || !std::isfinite(b)) return kUnknown;
  const double gib = b / double(1ull << 30);
  if (gib >= 1) return tr("%1 GiB").arg(gib, 0, 'f', 1);
  return tr("%1 MiB").arg(b / double(1ull << 20), 0, 'f', 0);
}

// ---------------------------------------------------------------------------------------------

GpuTableModel::GpuTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void GpuTableModel::setInventory(const tel::GpuInventory& inventory) {
  beginResetModel();
  m_inventory = inventory;
  m_samples.clear();
  endResetModel();
}

void GpuTableModel::setSamples(const std::vector<tel::GpuSample>& samples) {
  m_samples = samples;
  if (rowCount() > 0)
    emit dataChanged(index(0, UtilColumn), index(rowCount() - 1, ClockColumn));
}

const tel::GpuSample* GpuTableModel::sampleOf(int row) const {
  const int want = m_inventory.devices[static_cast<size_t>(row)].index;
  for (const auto& s : m_samples)
    if (s.index == want) return &s;
  return nullptr;
}

int GpuTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_inventory.devices.size());
}
int GpuTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

// What every role of a row reads: the device, its latest sample (nullptr before the first) and
// the whole each gauge is measured against (the sample's own figure when it has one).
struct GpuTableModel::Row {
  const tel::GpuDeviceInfo& d;
  const tel::GpuSample* s;
  double memTotal;
  double powerLimit;
  bool narrow;  ///< the PCIe link runs on fewer lanes than it could
  bool hot;     ///< hot enough to lower its clocks
};

GpuTableModel::Row GpuTableModel::rowOf(int row) const {
  const tel::GpuDeviceInfo& d = m_inventory.devices[static_cast<size_t>(row)];
  const tel::GpuSample* s = sampleOf(row);
  const double memTotal = s && s->memoryTotal > 0 ? double(s->memoryTotal) : double(d.memoryTotal);
  const double powerLimit = s && s->powerLimitW > 0 ? s->powerLimitW : d.powerLimitW;
  const bool narrow = d.pcieWidth > 0 && d.pcieWidthMax > 0 && d.pcieWidth < d.pcieWidthMax;
  const bool hot = s && s->temperatureC >= 85;
  return Row{d, s, memTotal, powerLimit, narrow, hot};
}

QVariant GpuTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const Row r = rowOf(index.row());
  switch (role) {
    case FractionRole:
      return fraction(r, index.column());
    case WarningRole:
      return warning(r, index.column());
    case Qt::ToolTipRole:
      return toolTip(r, index.column());
    case Qt::DisplayRole:
      return display(r, index.column());
    default:
      return {};
  }
}

double GpuTableModel::fraction(const Row& r, int column) {
  auto part = [](double v, double whole) {
    return v >= 0 && whole > 0 ? std::clamp(v / whole, 0.0, 1.0) : -1.0;
  };
  const tel::GpuSample* s = r.s;
  switch (column) {
    case UtilColumn:
      return part(s ? s->utilization : -1, 100);
    case MemoryColumn:
      return part(s ? double(s->memoryUsed) : -1, r.memTotal);
    case PowerColumn:
      return part(s ? s->powerW : -1, r.powerLimit);
    case ClockColumn:
      return part(s ? s->smClockMHz : -1, r.d.maxSmClockMHz);
    default:
      return -1.0;
  }
}

QString GpuTableModel::warning(const Row& r, int column) {
  if (column == PcieColumn && r.narrow)
    return tr("The link runs at x%1 of x%2 lanes: reseat the card or check the slot and its "
              "BIOS setting.")
        .arg(r.d.pcieWidth)
        .arg(r.d.pcieWidthMax);
  if (column == TemperatureColumn && r.hot)
    return tr("Hot: the GPU lowers its clocks from about 85 °C on.");
  return QString();
}

QVariant GpuTableModel::toolTip(const Row& r, int column) {
  const tel::GpuSample* s = r.s;
  switch (column) {
    case NameColumn:
      return nameToolTip(r.d);
    case UtilColumn:
      return s && s->memoryUtilization >= 0
                 ? tr("A kernel ran %1 % of the time; memory was read or written %2 % of it")
                       .arg(s->utilization, 0, 'f', 0)
                       .arg(s->memoryUtilization, 0, 'f', 0)
                 : QVariant();
    case PcieColumn:
      return pcieToolTip(r);
    case NvLinkColumn:
      return nvLinkToolTip(r.d);
    case TemperatureColumn:
      return r.hot ? QVariant(warning(r, column)) : QVariant();
    default:
      return {};
  }
}

QString GpuTableModel::nameToolTip(const tel::GpuDeviceInfo& d) {
  QStringList lines{q(d.name)};
  if (!d.uuid.empty()) lines << tr("UUID %1").arg(q(d.uuid));
  if (!d.pciBusId.empty()) lines << tr("PCI bus %1").arg(q(d.pciBusId));
  lines << tr("Memory %1").arg(TopologyText::bytes(double(d.memoryTotal)));
  if (d.powerLimitW > 0) lines << tr("Power limit %1 W").arg(d.powerLimitW, 0, 'f', 0);
  if (d.maxSmClockMHz > 0) lines << tr("Max SM clock %1 MHz").arg(d.maxSmClockMHz, 0, 'f', 0);
  return lines.join(QLatin1Char('\n'));
}

QString GpuTableModel::pcieToolTip(const Row& r) {
  const tel::GpuDeviceInfo& d = r.d;
  const tel::GpuSample* s = r.s;
  QString t =
      d.pciBusId.empty() ? QString() : tr("PCI bus %1").arg(q(d.pciBusId)) + QLatin1Char('\n');
  t += tr("Current and maximum link: generation %1 / %2, x%3 / x%4.")
           .arg(number(d.pcieGen), number(d.pcieGenMax), number(d.pcieWidth),
                number(d.pcieWidthMax));
  t += QLatin1Char('\n') + tr("A lower generation at idle is normal (power saving).");
  if (s && s->pcieRxBps >= 0)
    t += QLatin1Char('\n') + tr("Now: %1 MB/s in, %2 MB/s out")
                                 .arg(s->pcieRxBps / 1e6, 0, 'f', 1)
                                 .arg(s->pcieTxBps / 1e6, 0, 'f', 1);
  if (r.narrow) t += QLatin1Char('\n') + warning(r, PcieColumn);
  return t;
}

QVariant GpuTableModel::nvLinkToolTip(const tel::GpuDeviceInfo& d) {
  QStringList lines;
  for (const auto& l : d.nvlinks) {
    QString end = l.remoteDevice >= 0     ? tr("GPU %1").arg(l.remoteDevice)
                  : l.remoteBusId.empty() ? QString()
                                          : tr("NVSwitch %1").arg(q(l.remoteBusId));
    lines << tr("link %1: %2%3%4")
                 .arg(l.link)
                 .arg(l.active ? tr("up") : tr("down"))
                 .arg(l.version > 0 ? tr(", NVLink %1").arg(l.version) : QString())
                 .arg(end.isEmpty() ? QString() : tr(" → %1").arg(end));
  }
  return lines.isEmpty() ? QVariant() : QVariant(lines.join(QLatin1Char('\n')));
}

QVariant GpuTableModel::display(const Row& r, int column) {
  const tel::GpuDeviceInfo& d = r.d;
  const tel::GpuSample* s = r.s;
  const double memTotal = r.memTotal;
  const double powerLimit = r.powerLimit;
  switch (column) {
    case IndexColumn:
      return engineText(tel::gpuNameText(0, d.index, false));  // this machine's: one node
    case NameColumn:
      return d.name.empty() ? kUnknown : q(d.name);
    case UtilColumn:
      return s && s->utilization >= 0 ? tr("%1 %").arg(s->utilization, 0, 'f', 0) : kUnknown;
    case MemoryColumn:
      return s && s->memoryUsed >= 0 && memTotal > 0
                 ? tr("%1 / %2 GiB")
                       .arg(double(s->memoryUsed) / double(1ull << 30), 0, 'f', 1)
                       .arg(memTotal / double(1ull << 30), 0, 'f', 1)
                 : TopologyText::bytes(memTotal);
    case PowerColumn:
      if (s && s->powerW >= 0)
        return powerLimit > 0 ? tr("%1 / %2 W").arg(s->powerW, 0, 'f', 0).arg(powerLimit, 0, 'f', 0)
                              : tr("%1 W").arg(s->powerW, 0, 'f', 0);
      return powerLimit > 0 ? tr("limit %1 W").arg(powerLimit, 0, 'f', 0) : kUnknown;
    case TemperatureColumn:
      return s && s->temperatureC >= 0 ? tr("%1 °C").arg(s->temperatureC, 0, 'f', 0) : kUnknown;
    case ClockColumn:
      if (s && s->smClockMHz >= 0)
        return d.maxSmClockMHz > 0
                   ? tr("%1 / %2 MHz").arg(s->smClockMHz, 0, 'f', 0).arg(d.maxSmClockMHz, 0, 'f', 0)
                   : tr("%1 MHz").arg(s->smClockMHz, 0, 'f', 0);
      return d.maxSmClockMHz > 0 ? tr("max %1 MHz").arg(d.maxSmClockMHz, 0, 'f', 0) : kUnknown;
    case PcieColumn:
      if (d.pcieGen < 0 && d.pcieWidth < 0) return kUnknown;
      if (r.narrow)
        return tr("Gen %1 x%2 (of x%3)")
            .arg(number(d.pcieGen))
            .arg(d.pcieWidth)
            .arg(d.pcieWidthMax);
      return tr("Gen %1 x%2").arg(number(d.pcieGen), number(d.pcieWidth));
    case NvLinkColumn:
      return nvLinkText(d);
    case ComputeColumn:
      return d.ccMajor >= 0 ? QStringLiteral("%1.%2").arg(d.ccMajor).arg(d.ccMinor) : kUnknown;
    case AffinityColumn: {
      QStringList parts;
      if (d.numaNode >= 0) parts << tr("NUMA %1").arg(d.numaNode);
      if (!d.cpus.empty()) parts << tr("CPUs %1").arg(q(tel::cpuListText(d.cpus)));
      return parts.isEmpty() ? kUnknown : parts.join(QStringLiteral(" · "));
    }
    default:
      return {};
  }
}

QString GpuTableModel::nvLinkText(const tel::GpuDeviceInfo& d) {
  if (d.nvlinks.empty()) return tr("none");
  const int up = d.activeNvLinks();
  QStringList peers;
  std::vector<int> seen;
  bool toSwitch = false;
  for (const auto& l : d.nvlinks) {
    if (!l.active) continue;
    if (l.remoteDevice < 0) {
      toSwitch = toSwitch || !l.remoteBusId.empty();
    } else if (std::find(seen.begin(), seen.end(), l.remoteDevice) == seen.end()) {
      seen.push_back(l.remoteDevice);
      peers << tr("GPU %1").arg(l.remoteDevice);
    }
  }
  if (toSwitch) peers << tr("NVSwitch");
  QString t = tr("%1 of %2 up").arg(up).arg(d.nvlinks.size());
  if (!peers.isEmpty()) t += tr(" → %1").arg(peers.join(QStringLiteral(", ")));
  return t;
}

QVariant GpuTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole && section == ComputeColumn) return tr("CUDA compute capability");
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case IndexColumn:
      return tr("GPU");
    case NameColumn:
      return tr("Name");
    case UtilColumn:
      return tr("Utilisation");
    case MemoryColumn:
      return tr("Memory");
    case PowerColumn:
      return tr("Power");
    case TemperatureColumn:
      return tr("Temperature");
    case ClockColumn:
      return tr("SM clock");
    case PcieColumn:
      return tr("PCIe");
    case NvLinkColumn:
      return tr("NVLink");
    case ComputeColumn:
      return tr("CC");
    case AffinityColumn:
      return tr("NUMA / CPUs");
    default:
      return {};
  }
}

// ---------------------------------------------------------------------------------------------

TopologyModel::TopologyModel(QObject* parent) : QAbstractTableModel(parent) {}

void TopologyModel::setInventory(const tel::GpuInventory& inventory) {
  beginResetModel();
  m_inventory = inventory;
  endResetModel();
}

int TopologyModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : gpuCount();
}
int TopologyModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() || gpuCount() == 0 ? 0 : gpuCount() + 2;
}

QVariant TopologyModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= gpuCount()) return {};
  const int a = index.row(), b = index.column();
  const tel::GpuDeviceInfo& d = m_inventory.devices[static_cast<size_t>(a)];
  if (b >= gpuCount()) {
    if (role == KindRole) return -1;
    if (role != Qt::DisplayRole) return {};
    if (b == cpuAffinityColumn()) return d.cpus.empty() ? QStringLiteral("N/A") : q(tel::cpuListText(d.cpus));
    return d.numaNode >= 0 ? QString::number(d.numaNode) : QStringLiteral("N/A");
  }
  const tel::GpuPair p = m_inventory.pair(a, b);
  switch (role) {
    case Qt::DisplayRole:
      return q(p.label());
    case Qt::TextAlignmentRole:
      return int(Qt::AlignCenter);
    case KindRole:
      return static_cast<int>(p.kind);
    case P2pLevelRole:
      return QString::fromLatin1(tel::p2pLevelFor(p.kind));
    case Qt::ToolTipRole: {
      if (a == b) return tr("GPU %1: %2").arg(a).arg(TopologyText::meaning(p.kind));
      QStringList lines;
      lines << tr("GPU %1 ↔ GPU %2: %3 — %4")
                   .arg(a)
                   .arg(b)
                   .arg(q(p.label()), TopologyText::meaning(p.kind));
      if (p.kind == tel::LinkKind::NVLink)
        lines << tr("PCIe path without NVLink: %1").arg(QString::fromLatin1(tel::toString(p.pcie)));
      lines << tr("P2P read: %1").arg(TopologyText::p2pStatus(p.p2pRead));
      if (*tel::p2pLevelFor(p.kind))
        lines << tr("nccl_p2p_level that covers this pair: %1")
                     .arg(QString::fromLatin1(tel::p2pLevelFor(p.kind)));
      return lines.join(QLatin1Char('\n'));
    }
    default:
      return {};
  }
}

QVariant TopologyModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole) return {};
  // As nvidia-smi topo -m labels them.
  if (orientation == Qt::Vertical || section < gpuCount())
    return QStringLiteral("GPU%1").arg(section);
  return section == cpuAffinityColumn() ? tr("CPU Affinity") : tr("NUMA Affinity");
}

// ---------------------------------------------------------------------------------------------

NumaModel::NumaModel(QObject* parent) : QAbstractTableModel(parent) {}

void NumaModel::setHost(const tel::HostInfo& host, const tel::GpuInventory& inventory) {
  beginResetModel();
  m_host = host;
  m_gpus.clear();
  for (const auto& node : m_host.numa) {
    QStringList gpus;
    for (const auto& d : inventory.devices) {
      bool near = d.numaNode == node.id;
      if (d.numaNode < 0 && !d.cpus.empty())  // no NUMA id: near when its CPUs lie in the node
        near = std::all_of(d.cpus.begin(), d.cpus.end(), [&](int c) {
          return std::find(node.cpus.begin(), node.cpus.end(), c) != node.cpus.end();
        });
      if (near) gpus << tr("GPU %1").arg(d.index);
    }
    m_gpus.push_back(gpus.join(QStringLiteral(", ")));
  }
  endResetModel();
}

int NumaModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_host.numa.size());
}
int NumaModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant NumaModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || role != Qt::DisplayRole) return {};
  const tel::NumaNodeInfo& n = m_host.numa[static_cast<size_t>(index.row())];
  switch (index.column()) {
    case NodeColumn:
      return tr("node %1").arg(n.id);
    case CpusColumn:
      return n.cpus.empty() ? kUnknown
                            : tr("%1 (%2 CPUs)").arg(q(tel::cpuListText(n.cpus))).arg(n.cpus.size());
    case MemoryColumn:
      return TopologyText::bytes(double(n.memTotal));
    case FreeColumn:
      return TopologyText::bytes(double(n.memFree));
    case GpusColumn:
      return m_gpus[static_cast<size_t>(index.row())].isEmpty() ? kUnknown
                                                                : m_gpus[static_cast<size_t>(index.row())];
    default:
      return {};
  }
}

QVariant NumaModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section == FreeColumn)
    return tr("Memory nothing uses (MemFree). The host's \"available\" also counts the page "
              "cache, which the kernel frees when a process needs it.");
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case NodeColumn:
      return tr("NUMA node");
    case CpusColumn:
      return tr("CPUs");
    case MemoryColumn:
      return tr("Memory");
    case FreeColumn:
      return tr("Unused");
    case GpusColumn:
      return tr("GPUs near it");
    default:
      return {};
  }
}

}  // namespace stave::studio
