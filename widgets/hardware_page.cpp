#include "widgets/hardware_page.h"

#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QShowEvent>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "core/studio/models/config_form_model.h"
#include "core/studio/engine_text.h"
#include "core/studio/hardware/hardware_advice.h"
#include "core/studio/hardware/hardware_models.h"
#include "core/studio/hardware/hardware_monitor.h"
#include "core/studio/project/project_document.h"
#include "core/telemetry/hardware_names.h"
#include "core/studio/run/run_controller.h"
#include "widgets/diagnosis_banner.h"
#include "widgets/chart_clock.h"
#include "widgets/live_chart.h"

namespace stave::widgets {

using studio::GpuTableModel;
using studio::TopologyText;
namespace tel = telemetry;

namespace {

// The background of a topology cell: green for NVLink, paler the further the PCIe path goes.
QColor kindColor(int kind) {
  switch (static_cast<tel::LinkKind>(kind)) {
    case tel::LinkKind::Self:
      return QColor(230, 230, 230);
    case tel::LinkKind::NVLink:
      return QColor(165, 214, 167);
    case tel::LinkKind::PIX:
      return QColor(200, 230, 201);
    case tel::LinkKind::PXB:
      return QColor(220, 237, 200);
    case tel::LinkKind::PHB:
      return QColor(255, 236, 179);
    case tel::LinkKind::NODE:
      return QColor(255, 224, 178);
    case tel::LinkKind::SYS:
      return QColor(255, 205, 210);
    case tel::LinkKind::Unknown:
      break;
  }
  return QColor(255, 255, 255);
}

/// Draws a gauge behind a cell's text from FractionRole, and marks cells with a WarningRole.
class GaugeDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void paint(QPainter* p, const QStyleOptionViewItem& option, const QModelIndex& index) const override {
    const double f = index.data(GpuTableModel::FractionRole).toDouble();
    const bool warn = !index.data(GpuTableModel::WarningRole).toString().isEmpty();
    if (f >= 0 || warn) {
      p->save();
      const QRect r = option.rect.adjusted(3, 4, -3, -4);
      if (warn) p->fillRect(option.rect, QColor(255, 224, 178));
      if (f >= 0) {
        p->setPen(QColor(190, 190, 190));
        p->setBrush(QColor(245, 245, 245));
        p->drawRect(r);
        // Nearly full memory is the one gauge that means trouble (out of memory is close).
        const QColor fill = f > 0.9 && index.column() == GpuTableModel::MemoryColumn
                                ? QColor(239, 154, 154)
                                : QColor(144, 202, 249);
        p->fillRect(QRect(r.left() + 1, r.top() + 1, int((r.width() - 1) * f), r.height() - 1), fill);
      }
      p->restore();
    }
    QStyleOptionViewItem o(option);
    if (f >= 0) o.displayAlignment = Qt::AlignCenter;
    QStyledItemDelegate::paint(p, o, index);
  }
  QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override {
    return QStyledItemDelegate::sizeHint(option, index) + QSize(16, 0);  // room for the gauge
  }
};

/// Colours a topology cell by its kind of link.
class TopologyDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void initStyleOption(QStyleOptionViewItem* o, const QModelIndex& index) const override {
    QStyledItemDelegate::initStyleOption(o, index);
    const int kind = index.data(studio::TopologyModel::KindRole).toInt();
    if (kind >= 0) {
      o->backgroundBrush = kindColor(kind);
      o->palette.setColor(QPalette::Text, QColor(32, 32, 32));
    }
  }
};

/// Bold where a setting differs from its default.
class ChangedDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void initStyleOption(QStyleOptionViewItem* o, const QModelIndex& index) const override {
    QStyledItemDelegate::initStyleOption(o, index);
    if (index.column() == studio::ConfigFormModel::ValueColumn &&
        index.data(studio::ConfigFormModel::ChangedFromDefaultRole).toBool())
      o->font.setBold(true);
  }
};

QTableView* makeTable(QWidget* parent, const QString& name) {
  auto* t = new QTableView(parent);
  t->setObjectName(name);
  t->setSelectionMode(QAbstractItemView::NoSelection);
  t->setEditTriggers(QAbstractItemView::NoEditTriggers);
  t->verticalHeader()->setVisible(false);
  t->setWordWrap(false);
  return t;
}

QLabel* makeLabel(QWidget* parent, const QString& name) {
  auto* l = new QLabel(parent);
  l->setObjectName(name);
  l->setWordWrap(true);
  l->setTextFormat(Qt::RichText);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  l->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  return l;
}

}  // namespace

HardwarePage::HardwarePage(studio::ProjectDocument* doc, QWidget* parent)
    : QWidget(parent),
      m_doc(doc),
      m_monitor(new studio::HardwareMonitor(this)),
      m_gpuModel(new studio::GpuTableModel(this)),
      m_topologyModel(new studio::TopologyModel(this)),
      m_numaModel(new studio::NumaModel(this)),
      m_ncclForm(new studio::ConfigFormModel(this)),
      m_ncclFilter(new studio::ConfigFilterModel(this)),
      m_clock(new ChartClock(this)) {
  askConfigName = [this](const QString& suggestion) {
    bool ok = false;
    const QString name = QInputDialog::getText(this, tr("New config from the doctor's advice"),
                                               tr("Name of the new config:"), QLineEdit::Normal,
                                               suggestion, &ok);
    return ok ? name.trimmed() : QString();
  };
  auto* layout = new QVBoxLayout(this);
  m_summary = makeLabel(this, QStringLiteral("hardwareSummary"));
  m_summary->setText(tr("Reading the machine's hardware…"));
  layout->addWidget(m_summary);

  auto* split = new QSplitter(Qt::Vertical, this);
  buildTopArea(split);
  m_tabs = new QTabWidget(split);
  m_tabs->setObjectName(QStringLiteral("hardwareTabs"));
  buildHistoryTab();
  buildTopologyTab();
  buildHostTab();
  buildNcclTab();

  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 5);
  layout->addWidget(split, 1);

  connect(m_monitor, &studio::HardwareMonitor::inventoryReady, this, &HardwarePage::inventoryArrived);
  connect(m_monitor, &studio::HardwareMonitor::sampled, this, &HardwarePage::samplesArrived);
  connect(doc, &studio::ProjectDocument::opened, this, &HardwarePage::updateNccl);
  connect(doc, &studio::ProjectDocument::configsChanged, this, &HardwarePage::updateNccl);
  updateNccl();
  updateAdvice();
}

// The GPU table (or the note saying why there is none) above the doctor's advice.
void HardwarePage::buildTopArea(QSplitter* split) {
  auto* top = new QWidget(split);
  auto* topLayout = new QVBoxLayout(top);
  topLayout->setContentsMargins(0, 0, 0, 0);
  m_gpuTable = makeTable(top, QStringLiteral("gpuTable"));
  m_gpuTable->setModel(m_gpuModel);
  m_gpuTable->setItemDelegate(new GaugeDelegate(m_gpuTable));
  m_gpuTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_gpuTable->horizontalHeader()->setMinimumSectionSize(60);
  m_gpuTable->horizontalHeader()->setStretchLastSection(true);
  m_gpuTable->setVisible(false);
  m_noGpu = makeLabel(top, QStringLiteral("noGpu"));
  m_noGpu->setAlignment(Qt::AlignCenter);
  m_noGpu->setVisible(false);
  topLayout->addWidget(m_gpuTable, 1);
  topLayout->addWidget(m_noGpu, 1);

  m_adviceBox = new QGroupBox(tr("Doctor's advice"), top);
  m_adviceBox->setObjectName(QStringLiteral("adviceBox"));
  auto* adviceLayout = new QVBoxLayout(m_adviceBox);
  m_adviceHeader = makeLabel(m_adviceBox, QStringLiteral("adviceHeader"));
  adviceLayout->addWidget(m_adviceHeader);
  m_cardLayout = new QVBoxLayout;
  m_cardLayout->setSpacing(4);
  adviceLayout->addLayout(m_cardLayout);
  topLayout->addWidget(m_adviceBox);
  m_adviceBox->installEventFilter(this);
}

void HardwarePage::fitAdvice() {
  const int need = m_adviceBox->heightForWidth(m_adviceBox->width());
  if (need > 0 && need != m_adviceBox->minimumHeight()) m_adviceBox->setMinimumHeight(need);
}

bool HardwarePage::eventFilter(QObject* watched, QEvent* event) {
  // A new width wraps the cards' text anew; new cards ask for a new layout.
  if (watched == m_adviceBox && (event->type() == QEvent::Resize || event->type() == QEvent::LayoutRequest))
    fitAdvice();
  return QWidget::eventFilter(watched, event);
}

// History: one chart per metric, one series per GPU; the charts pan and zoom together.
void HardwarePage::buildHistoryTab() {
  m_historyTab = new QWidget(m_tabs);
  auto* grid = new QGridLayout(m_historyTab);
  grid->setContentsMargins(2, 2, 2, 2);
  const QString secs = tr("seconds");
  struct Def {
    const char* name;
    QString title, y;
  };
  const Def defs[] = {
      {"gpuUtil", tr("GPU utilisation"), QStringLiteral("%")},
      {"gpuMem", tr("GPU memory used"), tr("GiB")},
      {"gpuPower", tr("GPU power"), tr("W")},
      {"gpuTemp", tr("GPU temperature"), tr("°C")},
      {"gpuClock", tr("SM clock"), tr("MHz")},
      {"gpuPcie", tr("PCIe traffic (in + out)"), tr("MB/s")},
  };
  int k = 0;
  for (const auto& d : defs) {
    auto* c = new LiveChart(d.title, m_historyTab);
    c->setObjectName(QString::fromLatin1(d.name));
    c->setClock(m_clock);  // the page's one timer
    c->setAxisLabels(secs, d.y);
    m_charts[QString::fromLatin1(d.name)] = c;
    grid->addWidget(c, k / 3, k % 3);
    ++k;
  }
  for (const auto& [a, from] : m_charts) {
    for (const auto& [b, to] : m_charts) {
      if (a == b) continue;
      connect(from, &LiveChart::userRangeChanged, to, &LiveChart::showRange);
      connect(from, &LiveChart::userReset, to, &LiveChart::follow);
    }
  }
  m_tabs->addTab(m_historyTab, tr("History"));
}

// Topology: the matrix, what each entry means, the fitting nccl_p2p_level.
void HardwarePage::buildTopologyTab() {
  m_topologyTab = new QWidget(m_tabs);
  auto* topo = new QHBoxLayout(m_topologyTab);
  m_topology = makeTable(m_topologyTab, QStringLiteral("topologyTable"));
  m_topology->setModel(m_topologyModel);
  m_topology->setItemDelegate(new TopologyDelegate(m_topology));
  m_topology->verticalHeader()->setVisible(true);
  m_topology->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_topology->horizontalHeader()->setStretchLastSection(true);
  m_topology->setMinimumWidth(320);
  auto* topoLeft = new QVBoxLayout;
  topoLeft->addWidget(m_topology);
  m_topologyAdvice = makeLabel(m_topologyTab, QStringLiteral("topologyAdvice"));
  topoLeft->addWidget(m_topologyAdvice);
  topoLeft->addStretch(1);
  topo->addLayout(topoLeft, 2);
  auto* legendScroll = new QScrollArea(m_topologyTab);
  legendScroll->setWidgetResizable(true);
  legendScroll->setFrameShape(QFrame::NoFrame);
  m_legend = makeLabel(legendScroll, QStringLiteral("topologyLegend"));
  m_legend->setText(legendHtml());
  legendScroll->setWidget(m_legend);
  topo->addWidget(legendScroll, 3);
  m_tabs->addTab(m_topologyTab, tr("Topology"));
}

// The host: CPUs, NUMA nodes, memory.
void HardwarePage::buildHostTab() {
  auto* hostTab = new QWidget(m_tabs);
  auto* hostLayout = new QVBoxLayout(hostTab);
  m_host = makeLabel(hostTab, QStringLiteral("hostSummary"));
  hostLayout->addWidget(m_host);
  m_numa = makeTable(hostTab, QStringLiteral("numaTable"));
  m_numa->setModel(m_numaModel);
  m_numa->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_numa->horizontalHeader()->setStretchLastSection(true);
  hostLayout->addWidget(m_numa, 1);
  m_tabs->addTab(hostTab, tr("CPU and memory"));
}

// The NCCL-related settings of the active config: the config form's distributed group, shown
// here and edited on the Train page.
void HardwarePage::buildNcclTab() {
  m_ncclForm->setReadOnly(true);
  m_ncclFilter->setSourceModel(m_ncclForm);
  m_ncclFilter->setGroup(
      QString::fromLatin1(config::paramGroupName(config::ParamGroup::Distributed)));
  auto* ncclTab = new QWidget(m_tabs);
  auto* ncclLayout = new QVBoxLayout(ncclTab);
  m_ncclAdvice = makeLabel(ncclTab, QStringLiteral("ncclAdvice"));
  ncclLayout->addWidget(m_ncclAdvice);
  m_nccl = makeTable(ncclTab, QStringLiteral("ncclTable"));
  m_nccl->setModel(m_ncclFilter);
  m_nccl->setItemDelegate(new ChangedDelegate(m_nccl));
  m_nccl->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_nccl->horizontalHeader()->setStretchLastSection(true);
  ncclLayout->addWidget(m_nccl, 1);
  m_tabs->addTab(ncclTab, tr("NCCL settings"));
}

void HardwarePage::setAdvice(studio::DoctorAdvice* advice, studio::RunController* run) {
  if (m_advice) disconnect(m_advice, nullptr, this, nullptr);
  if (m_run) disconnect(m_run, nullptr, this, nullptr);
  m_advice = advice;
  m_run = run;
  if (m_advice) connect(m_advice, &studio::DoctorAdvice::changed, this, &HardwarePage::updateAdvice);
  if (m_run) connect(m_run, &studio::RunController::stateChanged, this, &HardwarePage::updateAdvice);
  updateAdvice();
}

void HardwarePage::start() {
  m_monitor->start();
}

void HardwarePage::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  start();  // the studio's queue has started it already; a page on its own starts it here
}

LiveChart* HardwarePage::chart(const QString& name) const {
  const auto it = m_charts.find(name);
  return it == m_charts.end() ? nullptr : it->second;
}

void HardwarePage::inventoryArrived() {
  const tel::GpuInventory& inv = m_monitor->inventory();
  const tel::HostInfo& host = m_monitor->host();
  m_gpuModel->setInventory(inv);
  m_topologyModel->setInventory(inv);
  m_numaModel->setHost(host, inv);
  const bool gpu = m_monitor->hasGpu();
  if (gpu) {
    QStringList parts;
    parts << tr("<b>NVIDIA GPUs: %1</b>").arg(inv.devices.size());
    parts << tr("driver %1").arg(inv.driverVersion.empty() ? tr("unknown") : QString::fromStdString(inv.driverVersion));
    if (!inv.cudaDriverVersion.empty()) parts << tr("CUDA %1").arg(QString::fromStdString(inv.cudaDriverVersion));
    if (!inv.nvmlVersion.empty()) parts << tr("NVML %1").arg(QString::fromStdString(inv.nvmlVersion));
    parts << tr("library %1").arg(m_monitor->library().toHtmlEscaped());
    m_summary->setText(parts.join(QStringLiteral(" · ")));
  } else {
    // The note in the GPU table's place says it, with the reason: the line above it would
    // only repeat it.
    m_summary->clear();
    m_noGpu->setText(tr("<p style='font-size:large'><b>No NVIDIA GPU</b></p><p>%1</p><p>Runs train "
                        "on the CPU (Gloo ranks). The CPUs and memory of this machine are on the "
                        "CPU and memory tab.</p>")
                         .arg(m_monitor->noGpuReason().toHtmlEscaped()));
  }
  m_summary->setVisible(gpu);
  m_gpuTable->setVisible(gpu);
  m_noGpu->setVisible(!gpu);
  m_tabs->setTabVisible(m_tabs->indexOf(m_historyTab), gpu);
  m_tabs->setTabVisible(m_tabs->indexOf(m_topologyTab), gpu);
  if (!gpu) m_tabs->setCurrentIndex(m_tabs->indexOf(m_host->parentWidget()));
  m_gpuTable->resizeColumnsToContents();
  m_topology->resizeColumnsToContents();
  // Tall enough for every GPU up to eight (then it scrolls); no empty rows below them.
  auto fit = [](QTableView* t, int rows, int most) {
    const int h = t->horizontalHeader()->sizeHint().height() +
                  std::min(rows, most) * t->verticalHeader()->defaultSectionSize() +
                  t->horizontalScrollBar()->sizeHint().height() + 2 * t->frameWidth();
    t->setMinimumHeight(h);
    t->setMaximumHeight(rows <= most ? h : QWIDGETSIZE_MAX);
  };
  fit(m_gpuTable, m_gpuModel->rowCount(), 8);
  fit(m_topology, m_topologyModel->rowCount(), 16);
  m_topologyAdvice->setText(gpu ? tr("<b>For NCCL:</b> %1").arg(TopologyText::nodeAdvice(inv).toHtmlEscaped())
                                : QString());

  QStringList h;
  h << tr("<b>CPU</b>: %1").arg(host.cpuModel.empty() ? tr("unknown") : QString::fromStdString(host.cpuModel).toHtmlEscaped());
  QString cores = tr("logical cores: %1").arg(host.logicalCores);
  if (host.physicalCores > 0) cores += tr(", physical: %1").arg(host.physicalCores);
  if (host.sockets > 0) cores += tr(", sockets: %1").arg(host.sockets);
  h << cores;
  // "available" counts the page cache the kernel can reclaim; the NUMA table's "Unused" does
  // not. Both are said, so the two figures do not contradict each other.
  if (host.memFree >= 0)
    h << tr("<b>Memory</b>: %1 (%2 available: %3 unused + page cache)")
             .arg(TopologyText::bytes(double(host.memTotal)),
                  TopologyText::bytes(double(host.memAvailable)),
                  TopologyText::bytes(double(host.memFree)));
  else
    h << tr("<b>Memory</b>: %1 (%2 available)")
             .arg(TopologyText::bytes(double(host.memTotal)), TopologyText::bytes(double(host.memAvailable)));
  h << (host.numa.empty() ? tr("NUMA: not reported by /sys")
                          : tr("NUMA nodes: %1").arg(host.numa.size()));
  m_host->setText(h.join(QStringLiteral(" · ")));
  updateNccl();
}

void HardwarePage::samplesArrived() {
  const auto& round = m_monitor->latest();
  m_gpuModel->setSamples(round);
  for (const auto& s : round) {
    if (m_t0 == 0) m_t0 = s.time;
    const double t = s.time - m_t0;
    const QString name = studio::engineText(tel::gpuNameText(0, s.index, false));  // this machine's
    const QColor c = seriesColor(s.index);
    auto add = [&](const char* chart, double v, double scale, const QString& series) {
      if (v < 0) return;
      LiveChart* lc = this->chart(QString::fromLatin1(chart));
      lc->append(lc->series(series, c), t, v * scale);
    };
    add("gpuUtil", s.utilization, 1, name);
    add("gpuMem", double(s.memoryUsed), 1.0 / double(1ull << 30), name);
    add("gpuPower", s.powerW, 1, name);
    add("gpuTemp", s.temperatureC, 1, name);
    add("gpuClock", s.smClockMHz, 1, name);
    if (s.pcieRxBps >= 0 && s.pcieTxBps >= 0) add("gpuPcie", s.pcieRxBps + s.pcieTxBps, 1e-6, name);
  }
}

void HardwarePage::updateAdvice() {
  for (FindingCard* c : m_cards) c->deleteLater();
  m_cards.clear();
  const QString run = m_run && !m_run->runDir().isEmpty() ? m_run->runId() : QString();
  if (!m_advice || run.isEmpty()) {
    m_adviceHeader->setText(tr("No run is shown on the Run page: the doctor's advice for it "
                               "appears here."));
    return;
  }
  if (!m_advice->hasDiagnosis()) {
    m_adviceHeader->setText(tr("No diagnosis of %1 yet: the doctor reports every "
                               "report_period_s while a run trains, and once at its end.")
                                .arg(run.toHtmlEscaped()));
    return;
  }
  const auto& d = m_advice->diagnosis();
  QString head = (d.final ? tr("<b>%1</b>, final report (steps judged: %2)")
                          : tr("<b>%1</b>, latest report (steps judged: %2)"))
                     .arg(run.toHtmlEscaped())
                     .arg(d.steps);
  // The doctor's summary of a clean run already opens with "no bottleneck found: ranks
  // compute …": said once, in the user's language, before the rest of the summary.
  QString summary = studio::engineText(d.summaryText, d.summary);
  const QString none = QStringLiteral("no bottleneck found");
  // A clean run's summary from an engine with message ids: its detail, in the user's language.
  if (d.findings.empty() && d.summaryText.size() == 1 && d.summaryText[0].id == "doctor.summary.clean" &&
      d.summaryText[0].args.size() == 1) {
    const QString detail = studio::engineText(d.summaryText[0].args[0].text);
    if (!detail.isEmpty()) summary = detail;
  }
  if (d.findings.empty()) {
    if (summary.startsWith(none)) summary = summary.mid(none.size());
    if (summary.startsWith(QLatin1Char(':'))) summary = summary.mid(1).trimmed();
    head += QStringLiteral(": ") + tr("no bottleneck found");
    if (!summary.isEmpty()) head += QStringLiteral(" — ") + summary.toHtmlEscaped();
  } else if (!summary.isEmpty()) {
    head += QStringLiteral(": ") + summary.toHtmlEscaped();
  }
  m_adviceHeader->setText(head);
  for (size_t i = 0; i < d.findings.size(); ++i) {
    auto* card = new FindingCard(m_adviceBox);
    card->setFinding(d.findings[i]);
    connect(card, &FindingCard::applyClicked, this, [this, i] { applyFinding(static_cast<int>(i)); });
    m_cardLayout->addWidget(card);
    m_cards.push_back(card);
  }
}

bool HardwarePage::applyFinding(int index) {
  QString text;
  const bool made = widgets::applyFinding(m_doc, m_advice, index, askConfigName, &text);
  if (!text.isEmpty()) emit message(text);
  return made;
}

void HardwarePage::showAdvice() {
  if (!m_cards.empty()) m_cards.front()->setFocus();
  m_adviceBox->setVisible(true);
}

void HardwarePage::updateNccl() {
  const QString name = m_doc->isOpen() ? m_doc->activeConfig() : QString();
  const config::RunConfig* cfg = name.isEmpty() ? nullptr : m_doc->config(name);
  if (cfg)
    m_ncclForm->setCommitted(*cfg, name);
  else
    m_ncclForm->clearCommitted();
  m_nccl->resizeColumnsToContents();
  QString text = cfg ? tr("The NCCL-related settings of the active config <b>%1</b>; change them on "
                          "the Train page.")
                           .arg(name.toHtmlEscaped())
                     : tr("Open a project to see its config's values.");
  if (m_monitor->ready() && m_monitor->hasGpu()) {
    const tel::GpuInventory& inv = m_monitor->inventory();
    const QString level = TopologyText::suggestedP2pLevel(inv);
    text += QStringLiteral("<br>") +
            tr("For this node: nccl_p2p_level = <b>%1</b>. %2")
                .arg(level.isEmpty() ? tr("(empty: NCCL's choice)") : level,
                     TopologyText::nodeAdvice(inv).toHtmlEscaped());
    if (cfg) {
      const QString now = QString::fromStdString(cfg->getString("nccl_p2p_level"));
      if (now != level)
        text += QStringLiteral(" ") + tr("The config has %1.")
                                          .arg(now.isEmpty() ? tr("(empty)") : now.toHtmlEscaped());
    }
  }
  m_ncclAdvice->setText(text);
}

QString HardwarePage::legendHtml() const {
  struct Row {
    const char* label;
    tel::LinkKind kind;
  };
  const Row rows[] = {{"X", tel::LinkKind::Self},   {"NV#", tel::LinkKind::NVLink},
                      {"PIX", tel::LinkKind::PIX},  {"PXB", tel::LinkKind::PXB},
                      {"PHB", tel::LinkKind::PHB},  {"NODE", tel::LinkKind::NODE},
                      {"SYS", tel::LinkKind::SYS}};
  QString html = tr("<b>Legend</b> (as <code>nvidia-smi topo -m</code>), best first:") +
                 QStringLiteral("<table cellspacing='0' cellpadding='3'>");
  for (const auto& r : rows) {
    const QString level = QString::fromLatin1(tel::p2pLevelFor(r.kind));
    html += QStringLiteral("<tr><td style='background:%1'><b>%2</b></td><td>%3</td><td>%4</td></tr>")
                .arg(kindColor(static_cast<int>(r.kind)).name(), QString::fromLatin1(r.label),
                     TopologyText::meaning(r.kind).toHtmlEscaped(),
                     level.isEmpty() ? QString() : tr("nccl_p2p_level&nbsp;%1").arg(level));
  }
  html += QStringLiteral("</table>");
  return html;
}

}  // namespace stave::widgets
