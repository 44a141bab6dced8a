#pragma once
// The Hardware page's tables as item models: the node's GPUs with their latest readings, the
// topology matrix as `nvidia-smi topo -m` prints it and the host's NUMA nodes (the config's
// NCCL-related settings are the config form's distributed group: core/studio/config_form_model).
// TopologyText says in words what each kind of link means for NCCL and which nccl_p2p_level fits
// the node. QtCore only: colours and gauges are the widget's business, drawn from the roles.

#include <QAbstractTableModel>
#include <QString>
#include <vector>

#include "core/telemetry/gpu_inventory.h"
#include "core/telemetry/gpu_sampler.h"
#include "core/telemetry/host_info.h"

namespace stave::studio {

/// Words about links, P2P and the NCCL settings, in the user's language.
class TopologyText : public QObject {
  Q_OBJECT
 public:
  /// What a kind of link is and what NCCL does over it (one or two sentences).
  static QString meaning(telemetry::LinkKind kind);
  /// The driver's P2P status in words.
  static QString p2pStatus(telemetry::P2pStatus status);
  /// The nccl_p2p_level that fits the node: "" (NCCL's default) when P2P already reaches every
  /// pair by default or the topology is unknown, else the level that covers the slowest pair.
  static QString suggestedP2pLevel(const telemetry::GpuInventory& inventory);
  /// A paragraph on the node: the slowest pair, the fitting nccl_p2p_level and why, pairs whose
  /// P2P the driver refuses.
  static QString nodeAdvice(const telemetry::GpuInventory& inventory);
  /// A byte count as "80.0 GiB" / "512 MiB".
  static QString bytes(double bytes);
};

/// One row per GPU: static facts from the inventory, live values from the latest samples.
class GpuTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    IndexColumn = 0,
    NameColumn,
    UtilColumn,
    MemoryColumn,
    PowerColumn,
    TemperatureColumn,
    ClockColumn,
    PcieColumn,
    NvLinkColumn,
    ComputeColumn,
    AffinityColumn,
    ColumnCount
  };
  enum Roles {
    FractionRole = Qt::UserRole + 1,  ///< double 0..1 for a gauge column, -1 unknown
    WarningRole,                      ///< QString: what is off about the value ("" when fine)
  };
  Q_ENUM(Roles)

  explicit GpuTableModel(QObject* parent = nullptr);
  void setInventory(const telemetry::GpuInventory& inventory);
  /// The latest round (matched to rows by NVML index).
  void setSamples(const std::vector<telemetry::GpuSample>& samples);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  struct Row;  // one row's device, sample and gauge limits (hardware_models.cpp)
  const telemetry::GpuSample* sampleOf(int row) const;
  Row rowOf(int row) const;
  // data() by role; the tooltips and the NVLink text by column.
  static double fraction(const Row& r, int column);
  static QString warning(const Row& r, int column);
  static QVariant toolTip(const Row& r, int column);
  static QVariant display(const Row& r, int column);
  static QString nameToolTip(const telemetry::GpuDeviceInfo& d);
  static QString pcieToolTip(const Row& r);
  static QVariant nvLinkToolTip(const telemetry::GpuDeviceInfo& d);
  static QString nvLinkText(const telemetry::GpuDeviceInfo& d);
  telemetry::GpuInventory m_inventory;
  std::vector<telemetry::GpuSample> m_samples;
};

/// The matrix of `nvidia-smi topo -m`: GPU rows, GPU columns, then CPU and NUMA affinity.
class TopologyModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Roles {
    KindRole = Qt::UserRole + 1,  ///< int telemetry::LinkKind of a GPU cell (-1 elsewhere)
    P2pLevelRole,                 ///< QString: the nccl_p2p_level covering the pair
  };
  Q_ENUM(Roles)

  explicit TopologyModel(QObject* parent = nullptr);
  void setInventory(const telemetry::GpuInventory& inventory);
  /// Columns after the GPUs.
  int cpuAffinityColumn() const { return gpuCount(); }
  int numaColumn() const { return gpuCount() + 1; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  int gpuCount() const { return static_cast<int>(m_inventory.devices.size()); }
  telemetry::GpuInventory m_inventory;
};

/// One row per NUMA node: its CPUs, memory and the GPUs near it.
class NumaModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { NodeColumn = 0, CpusColumn, MemoryColumn, FreeColumn, GpusColumn, ColumnCount };
  explicit NumaModel(QObject* parent = nullptr);
  void setHost(const telemetry::HostInfo& host, const telemetry::GpuInventory& inventory);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  telemetry::HostInfo m_host;
  std::vector<QString> m_gpus;  // per row
};

}  // namespace stave::studio
