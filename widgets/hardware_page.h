#pragma once
// The Hardware page: the studio machine's GPUs (name, memory, PCIe link, NVLink, compute
// capability, affinity) with live gauges and a history chart per metric, the topology matrix
// as `nvidia-smi topo -m` prints it with what each link means for NCCL and the nccl_p2p_level
// that fits, the CPUs, NUMA nodes and memory, the NCCL-related settings of the active config,
// and the doctor's latest advice for the run on the Run page, each finding with Apply… (a new
// config with the advised change). NVML and /proc are read off the GUI thread
// (studio::HardwareMonitor). Without an NVIDIA GPU the page says so, with the reason, and still
// shows the host.
#include <QWidget>
#include <functional>
#include <map>

class QGroupBox;
class QLabel;
class QSplitter;
class QTabWidget;
class QTableView;
class QVBoxLayout;

namespace stave::studio {
class ConfigFilterModel;
class ConfigFormModel;
class DoctorAdvice;
class GpuTableModel;
class HardwareMonitor;
class NumaModel;
class ProjectDocument;
class RunController;
class TopologyModel;
}  // namespace stave::studio

namespace stave::widgets {

class FindingCard;
class ChartClock;
class LiveChart;

class HardwarePage : public QWidget {
  Q_OBJECT
 public:
  explicit HardwarePage(studio::ProjectDocument* doc, QWidget* parent = nullptr);

  /// Shows the advice of the run `run` follows (the Run page's); nullptr for none.
  void setAdvice(studio::DoctorAdvice* advice, studio::RunController* run);
  /// Starts reading the hardware (the first show does it too).
  void start();

  studio::HardwareMonitor* monitor() const { return m_monitor; }
  QLabel* summaryLabel() const { return m_summary; }
  QTableView* gpuTable() const { return m_gpuTable; }
  QTableView* topologyTable() const { return m_topology; }
  QLabel* legendLabel() const { return m_legend; }
  QLabel* topologyAdviceLabel() const { return m_topologyAdvice; }
  QLabel* hostLabel() const { return m_host; }
  QTableView* numaTable() const { return m_numa; }
  /// The active config's distributed settings: the config form, read-only, filtered to the
  /// distributed group.
  QTableView* ncclTable() const { return m_nccl; }
  studio::ConfigFormModel* ncclForm() const { return m_ncclForm; }
  studio::ConfigFilterModel* ncclFilter() const { return m_ncclFilter; }
  QLabel* ncclAdviceLabel() const { return m_ncclAdvice; }
  QLabel* adviceHeader() const { return m_adviceHeader; }
  QTabWidget* tabs() const { return m_tabs; }
  /// One card per finding of the latest diagnosis.
  const std::vector<FindingCard*>& findingCards() const { return m_cards; }
  /// The history charts: "gpuUtil", "gpuMem", "gpuPower", "gpuTemp", "gpuClock", "gpuPcie".
  LiveChart* chart(const QString& name) const;

  /// Asked for the name of the config Apply makes; replaceable by tests. "" cancels.
  std::function<QString(const QString& suggestion)> askConfigName;
  /// Apply on finding `index`: a new config with its advice.
  bool applyFinding(int index);
  /// Brings the doctor's findings into view (the Run page's Details).
  void showAdvice();

 signals:
  /// Something to tell the user in the status bar.
  void message(const QString& text);

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  // The parts of the page, built once by the constructor in this order.
  /// The splitter's upper half: the GPU table, the no-GPU note and the doctor's advice.
  void buildTopArea(QSplitter* split);
  /// One live chart per GPU metric, ranges linked.
  void buildHistoryTab();
  void buildTopologyTab();
  void buildHostTab();
  /// The config form's distributed group, read-only.
  void buildNcclTab();
  void inventoryArrived();
  void samplesArrived();
  void updateAdvice();
  /// Keeps the advice box at least as high as its wrapped text needs at its width: in the
  /// splitter's pane a word-wrapped label's height for its width is not asked, and the cards
  /// were squeezed to one line each.
  void fitAdvice();
  bool eventFilter(QObject* watched, QEvent* event) override;
  void updateNccl();
  QString legendHtml() const;

  studio::ProjectDocument* m_doc;
  studio::HardwareMonitor* m_monitor;
  studio::GpuTableModel* m_gpuModel;
  studio::TopologyModel* m_topologyModel;
  studio::NumaModel* m_numaModel;
  studio::ConfigFormModel* m_ncclForm;
  studio::ConfigFilterModel* m_ncclFilter;
  studio::DoctorAdvice* m_advice = nullptr;
  studio::RunController* m_run = nullptr;
  QLabel* m_summary = nullptr;
  QLabel* m_noGpu = nullptr;
  QTableView* m_gpuTable = nullptr;
  QGroupBox* m_adviceBox = nullptr;
  QLabel* m_adviceHeader = nullptr;
  QVBoxLayout* m_cardLayout = nullptr;
  std::vector<FindingCard*> m_cards;
  QTabWidget* m_tabs = nullptr;
  QWidget* m_historyTab = nullptr;
  ChartClock* m_clock = nullptr;  ///< the one timer that refreshes the charts
  QWidget* m_topologyTab = nullptr;
  QTableView* m_topology = nullptr;
  QLabel* m_legend = nullptr;
  QLabel* m_topologyAdvice = nullptr;
  QLabel* m_host = nullptr;
  QTableView* m_numa = nullptr;
  QTableView* m_nccl = nullptr;
  QLabel* m_ncclAdvice = nullptr;
  std::map<QString, LiveChart*> m_charts;
  double m_t0 = 0;  ///< time of the first sample (x of the charts)
};

}  // namespace stave::widgets
