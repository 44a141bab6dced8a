// The Run page's charts: the grid of live charts (losses, metrics, learning rates, samples/s,
// GPU and system samples) and the per-rank step time split, linked where they share an x, with
// the smoothing of the per-iteration ones; clearing them for another run; and reading a zoomed
// range of a stored run at full resolution. run_page.cpp builds the page and drives the run,
// run_page_events.cpp turns the run's events into points.
#include <qcustomplot.h>
#include <QDir>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QSlider>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <optional>

#include "core/store/store.h"
#include "core/studio/background_job.h"
#include "core/studio/hardware/hardware_advice.h"
#include "core/studio/run/run_session.h"
#include "widgets/chart_legend.h"
#include "widgets/live_chart.h"
#include "widgets/run_page.h"

namespace stave::widgets {

namespace {

/// The split chart's title: with the straggler named, on as many lines as its width needs.
void setSplitTitle(QCustomPlot* split, const QString& straggler) {
  auto* title = qobject_cast<QCPTextElement*>(split->plotLayout()->element(0, 0));
  if (!title) return;
  const QString text = straggler.isEmpty() ? RunPage::tr("Step time per rank")
                                           : RunPage::tr("Step time per rank — %1").arg(straggler);
  title->setText(wrapText(text, title->font(), split->width() - 8));
}

}  // namespace

QWidget* RunPage::buildChartsTab() {
  auto* scroll = new QScrollArea(m_views);
  scroll->setWidgetResizable(true);
  auto* grid = new QWidget(scroll);
  auto* g = new QGridLayout(grid);
  g->setContentsMargins(0, 0, 0, 0);
  // Three columns of one width: a chart's size hint is its legend's and title's minimum, which
  // changes as they are fitted to the width.
  for (int c = 0; c < 3; ++c) g->setColumnStretch(c, 1);
  createCharts(grid);
  createSplitChart(grid);
  linkChartRanges();
  m_order.push_back(m_split);
  m_grid = g;
  relayout();
  scroll->setWidget(grid);
  // The per-iteration charts are noisy: a moving average over them, as TensorBoard's.
  auto* chartsTab = new QWidget(m_views);
  auto* chartsLayout = new QVBoxLayout(chartsTab);
  chartsLayout->setContentsMargins(0, 2, 0, 0);
  chartsLayout->addLayout(buildSmoothingRow(chartsTab));
  chartsLayout->addWidget(scroll, 1);
  scroll->setParent(chartsTab);
  m_smoothing->setValue(60);  // TensorBoard's default
  return chartsTab;
}

void RunPage::createCharts(QWidget* grid) {
  const QString iter = tr("iteration"), epoch = tr("epoch"), secs = tr("time since the start");
  struct Def {
    const char* name;
    QString title, x, y;
  };
  const Def defs[] = {
      {"losses", tr("Train losses per iteration"), iter, tr("loss")},
      {"epochLosses", tr("Losses per epoch (train, val)"), epoch, tr("loss")},
      {"metrics", tr("Validation: P, R, mAP"), epoch, QString()},
      {"lr", tr("Learning rate per group"), epoch, tr("lr")},
      {"speed", tr("Samples/s (all ranks)"), iter, tr("images/s")},
      {"gpuUtil", tr("GPU utilisation"), secs, QStringLiteral("%")},
      {"gpuMem", tr("GPU memory"), secs, tr("GiB")},
      {"gpuPower", tr("GPU power"), secs, tr("W")},
      {"system", tr("CPU and memory"), secs, QStringLiteral("%")},
  };
  for (const auto& d : defs) {
    auto* c = new LiveChart(d.title, grid);
    c->setObjectName(QString::fromLatin1(d.name));
    c->setClock(m_clock);  // the page's one timer
    c->setAxisLabels(d.x, d.y);
    // Epochs are counted (markers, whole-number ticks); iterations run to 250k and more;
    // seconds to days.
    c->setXKind(d.x == epoch  ? LiveChart::XKind::Whole
                : d.x == secs ? LiveChart::XKind::Duration
                              : LiveChart::XKind::Count);
    m_charts[QString::fromLatin1(d.name)] = c;
    m_order.push_back(c);
    if (d.x == secs)
      connect(c, &LiveChart::userRangeChanged, this,
              [this, c](const QCPRange& r) { wantDetail(c, r); });
  }
}

void RunPage::createSplitChart(QWidget* grid) {
  m_split = new QCustomPlot(grid);
  m_split->setObjectName(QStringLiteral("split"));
  m_split->setMinimumSize(280, 190);
  m_split->plotLayout()->insertRow(0);
  m_split->plotLayout()->addElement(
      0, 0,
      new QCPTextElement(m_split, tr("Step time per rank"),
                         QFont(font().family(), font().pointSize(), QFont::Bold)));
  m_split->axisRect()->insetLayout()->take(m_split->legend);
  m_split->plotLayout()->addElement(2, 0, m_split->legend);
  m_split->plotLayout()->setRowStretchFactor(2, 0.001);
  m_split->legend->setFillOrder(QCPLegend::foColumnsFirst);
  m_split->legend->setWrap(3);
  m_split->legend->setBorderPen(Qt::NoPen);
  m_split->legend->setBrush(Qt::NoBrush);
  m_split->legend->setVisible(true);
  m_split->legend->setFont(QFont(font().family(), std::max(7, font().pointSize() - 1)));
  m_split->legend->setIconSize(14, 10);
  m_split->legend->setIconTextPadding(4);
  m_splitEmpty = addEmptyText(m_split);
  m_split->yAxis->setLabel(tr("ms per step"));
  m_split->xAxis->setLabel(tr("rank"));
  {
    const QString phases[] = {tr("data wait"), tr("H2D"), tr("forward+backward"),
                              tr("all-reduce wait"), tr("optimiser")};
    QCPBars* below = nullptr;
    for (int p = 0; p < 5; ++p) {
      auto* b = new QCPBars(m_split->xAxis, m_split->yAxis);
      b->setName(phases[p]);
      b->setPen(Qt::NoPen);
      b->setBrush(seriesColor(p));
      b->setWidth(0.6);
      if (below) b->moveAbove(below);
      below = b;
    }
  }
  // Its phases whole at every width, and its title (which names the straggler) wrapped to it.
  auto* fitter = new LegendFitter(m_split, m_split->minimumHeight());
  fitter->setWidthHook([this](int) { setSplitTitle(m_split, m_straggler); });
  fitter->fit();
}

void RunPage::linkChartRanges() {
  // Charts over the same x (iteration, epoch, seconds) pan and zoom together.
  const std::vector<std::vector<const char*>> groups = {
      {"losses", "speed"},
      {"epochLosses", "metrics", "lr"},
      {"gpuUtil", "gpuMem", "gpuPower", "system"}};
  for (const auto& group : groups) {
    for (const char* a : group) {
      for (const char* b : group) {
        if (a == b) continue;
        LiveChart* from = chart(QString::fromLatin1(a));
        LiveChart* to = chart(QString::fromLatin1(b));
        connect(from, &LiveChart::userRangeChanged, to, &LiveChart::showRange);
        connect(from, &LiveChart::userReset, to, &LiveChart::follow);
      }
    }
  }
}

QLayout* RunPage::buildSmoothingRow(QWidget* tab) {
  auto* smoothRow = new QHBoxLayout;
  auto* smoothLabel = new QLabel(tr("Smoothing of the per-iteration charts"), tab);
  m_smoothing = new QSlider(Qt::Horizontal, tab);
  m_smoothing->setObjectName(QStringLiteral("runSmoothing"));
  m_smoothing->setRange(0, 99);
  m_smoothing->setMaximumWidth(220);
  m_smoothing->setToolTip(
      tr("Exponential moving average of the losses and samples/s per "
         "iteration (0 = off); the raw line stays faint behind"));
  auto* smoothValue = new QLabel(tab);
  smoothValue->setMinimumWidth(32);
  smoothRow->addWidget(smoothLabel);
  smoothRow->addWidget(m_smoothing);
  smoothRow->addWidget(smoothValue);
  smoothRow->addStretch(1);
  connect(m_smoothing, &QSlider::valueChanged, this, [this, smoothValue](int v) {
    smoothValue->setText(QString::number(v / 100.0, 'f', 2));
    for (const char* name : {"losses", "speed"})
      chart(QString::fromLatin1(name))->setSmoothing(v / 100.0);
  });
  return smoothRow;
}

void RunPage::relayout() {
  // The visible charts fill the grid in order, three per row, without holes.
  for (QWidget* w : m_order) m_grid->removeWidget(w);
  int k = 0;
  for (QWidget* w : m_order) {
    const bool gpu = w == chart(QStringLiteral("gpuUtil")) ||
                     w == chart(QStringLiteral("gpuMem")) || w == chart(QStringLiteral("gpuPower"));
    const bool hide = gpu && !gpuChartsShown();
    w->setVisible(!hide);
    if (hide) continue;
    m_grid->addWidget(w, k / 3, k % 3);
    ++k;
  }
}

bool RunPage::gpuChartsShown() const {
  return m_runGpu == 1 || (m_runGpu < 0 && m_machineGpu);
}

void RunPage::setMachineHasGpu(bool has) {
  if (has == m_machineGpu) return;
  m_machineGpu = has;
  relayout();
}

LiveChart* RunPage::chart(const QString& name) const {
  const auto it = m_charts.find(name);
  return it == m_charts.end() ? nullptr : it->second;
}

void RunPage::clearCharts() {
  for (auto& [name, c] : m_charts) {
    c->clearData();
  }
  m_targets.clear();
  m_detailWantHi = -1;  // a zoom of the run shown before is not read for the next one
  m_runGpu = -1;
  relayout();
  m_rankSplit.clear();
  m_rankSps.clear();
  m_straggler.clear();
  m_gpuUtil.clear();
  m_nodes = 1;
  m_log->clear();
  m_outcomeAt = QTextCursor();
  m_sessionTimes.clear();
  m_advice->clear();
  m_adviceProblem.clear();
  m_epoch = m_epochs = m_iter = m_iters = 0;
  m_sps = m_stepTime = 0;
  updateSplit();
  updateValidation(true);
}

bool RunPage::detailLoading() const {
  return m_detailTimer->isActive() || (m_session && m_session->detailLoading());
}

void RunPage::wantDetail(LiveChart* chart, const QCPRange& r) {
  m_detailWantLo = r.lower;
  m_detailWantHi = r.upper;
  m_detailColumns = chart->columns();
  m_detailTimer->start();  // once the wheel or the drag has settled
}

void RunPage::fetchDetail() {
  // The session reads the range into its store: every view of the run draws it.
  if (m_session) m_session->wantDetail(m_detailWantLo, m_detailWantHi, m_detailColumns);
}

void RunPage::updateSplit() {
  QVector<double> keys;
  QVector<QString> labels;
  for (const auto& [rank, v] : m_rankSplit) keys << rank;
  for (int p = 0; p < 5 && p < m_split->plottableCount(); ++p) {
    auto* b = qobject_cast<QCPBars*>(m_split->plottable(p));
    QVector<double> vals;
    for (const auto& [rank, v] : m_rankSplit) vals << v[static_cast<size_t>(p)] * 1000.0;
    b->setData(keys, vals, true);
  }
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  for (const auto& [rank, v] : m_rankSplit) ticker->addTick(rank, QString::number(rank));
  m_split->xAxis->setTicker(ticker);
  m_split->xAxis->setRange(-0.7, std::max<double>(0.7, keys.isEmpty() ? 0.7 : keys.back() + 0.7));
  m_split->rescaleAxes(true);
  double top = 0;
  for (const auto& [rank, v] : m_rankSplit)
    top = std::max(top, (v[0] + v[1] + v[2] + v[3] + v[4]) * 1000.0);
  m_split->yAxis->setRange(0, top > 0 ? top * 1.15 : 1);
  m_split->xAxis->setRange(-0.7, keys.isEmpty() ? 0.7 : keys.back() + 0.7);
  m_splitEmpty->setVisible(keys.isEmpty());
  m_split->yAxis->setTickLabels(!keys.isEmpty());
  m_split->yAxis->setTicks(!keys.isEmpty());
  m_split->yAxis->grid()->setVisible(!keys.isEmpty());
  setSplitTitle(m_split, m_straggler);
  m_split->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace stave::widgets
