// The History page's comparison of the selected runs: the tabs below the table (curves of a
// metric overlaid, the config keys that differ, parallel coordinates of hyperparameters against
// best mAP50-95, the validation views) and what fills them when the selection changes.
#include <qcustomplot.h>
#include <QComboBox>
#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/studio/models/history_model.h"
#include "widgets/history_label_diff.h"
#include "widgets/history_page.h"
#include "widgets/live_chart.h"
#include "widgets/validation_view.h"

namespace stave::widgets {

using studio::HistoryModel;

namespace {

void stylePlot(QCustomPlot* plot) {
  plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom | QCP::iSelectLegend);
  plot->legend->setVisible(true);
  plot->legend->setBrush(QColor(255, 255, 255, 220));
  plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  plot->setMinimumHeight(220);
}

// One axis of the parallel coordinates at x = `a`: its line and its ends' values.
void addParallelAxis(QCustomPlot* plot, int a, double lo, double hi, const QFont& font) {
  for (const auto& [y, v, align] :
       {std::tuple{1.035, hi, Qt::AlignBottom}, std::tuple{-0.035, lo, Qt::AlignTop}}) {
    auto* label = new QCPItemText(plot);
    label->position->setCoords(a, y);
    label->setPositionAlignment(align | Qt::AlignHCenter);
    label->setText(QString::number(v, 'g', 4));
    label->setFont(QFont(font.family(), std::max(7, font.pointSize() - 1)));
    label->setColor(QColor(90, 90, 90));
  }
  auto* line = new QCPItemLine(plot);
  line->start->setCoords(a, 0);
  line->end->setCoords(a, 1);
  line->setPen(QPen(QColor(160, 160, 160), 1));
}

}  // namespace

void HistoryPage::buildComparisonTabs(QWidget* parent) {
  m_tabs = new QTabWidget(parent);
  m_tabs->setObjectName(QStringLiteral("historyTabs"));
  m_tabs->addTab(buildCurvesTab(), tr("Curves"));

  m_diff = new QTableWidget(m_tabs);
  m_diff->setObjectName(QStringLiteral("historyDiff"));
  m_diff->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_diff->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_tabs->addTab(m_diff, tr("Config diff"));

  m_tabs->addTab(buildParallelTab(), tr("Parallel coordinates"));
  // Which label files the two runs' datasets differ in; its tab tells how many.
  auto* labels = new HistoryLabelDiff(m_tabs);
  labels->setObjectName(QStringLiteral("historyLabelDiff"));
  const int labelsTab = m_tabs->addTab(labels, tr("Labels"));
  connect(labels, &HistoryLabelDiff::compared, this, [this, labelsTab](int n) {
    m_tabs->setTabText(labelsTab, n >= 0 ? tr("Labels (%1)").arg(n) : tr("Labels"));
  });
  m_validation = new ValidationView(m_tabs);
  m_validation->setObjectName(QStringLiteral("historyValidation"));
  m_tabs->addTab(m_validation, tr("Validation"));
  connect(m_tabs, &QTabWidget::currentChanged, this, [this] { updateValidation(); });
  connect(m_metric, &QComboBox::currentTextChanged, this, &HistoryPage::updateCurves);
  connect(m_axis, &QComboBox::currentIndexChanged, this, &HistoryPage::updateCurves);
  connect(m_params, &QListWidget::itemChanged, this, &HistoryPage::updateParallel);
}

QWidget* HistoryPage::buildCurvesTab() {
  auto* curvesTab = new QWidget(m_tabs);
  auto* curvesLayout = new QVBoxLayout(curvesTab);
  auto* curveBar = new QHBoxLayout;
  m_metric = new QComboBox(curvesTab);
  m_metric->setObjectName(QStringLiteral("historyMetric"));
  m_metric->setMinimumContentsLength(22);
  m_axis = new QComboBox(curvesTab);
  m_axis->setObjectName(QStringLiteral("historyAxis"));
  m_axis->addItem(tr("Epoch"), int(studio::CurveAxis::Epoch));
  m_axis->addItem(tr("Wall time (s)"), int(studio::CurveAxis::WallTime));
  m_axis->addItem(tr("Images seen"), int(studio::CurveAxis::ImagesSeen));
  curveBar->addWidget(new QLabel(tr("Metric"), curvesTab));
  curveBar->addWidget(m_metric, 1);
  curveBar->addWidget(new QLabel(tr("x axis"), curvesTab));
  curveBar->addWidget(m_axis);
  curvesLayout->addLayout(curveBar);
  m_curves = new QCustomPlot(curvesTab);
  m_curves->setObjectName(QStringLiteral("historyCurves"));
  stylePlot(m_curves);
  curvesLayout->addWidget(m_curves, 1);
  return curvesTab;
}

QWidget* HistoryPage::buildParallelTab() {
  auto* parallelTab = new QWidget(m_tabs);
  auto* parallelLayout = new QHBoxLayout(parallelTab);
  m_params = new QListWidget(parallelTab);
  m_params->setObjectName(QStringLiteral("historyParams"));
  m_params->setMaximumWidth(180);
  m_params->setToolTip(tr("Hyperparameters that differ among the selected runs"));
  parallelLayout->addWidget(m_params);
  m_parallel = new QCustomPlot(parallelTab);
  m_parallel->setObjectName(QStringLiteral("historyParallel"));
  stylePlot(m_parallel);
  m_parallel->setInteractions(QCP::iSelectLegend);
  // The legend below the axes: inside, it would cover the axes' end labels.
  m_parallel->axisRect()->insetLayout()->take(m_parallel->legend);
  m_parallel->plotLayout()->addElement(1, 0, m_parallel->legend);
  m_parallel->plotLayout()->setRowStretchFactor(1, 0.001);
  m_parallel->legend->setFillOrder(QCPLegend::foColumnsFirst);
  m_parallel->legend->setWrap(4);
  m_parallel->legend->setBorderPen(Qt::NoPen);
  m_parallel->yAxis->setTicks(false);
  m_parallel->yAxis->grid()->setVisible(false);
  parallelLayout->addWidget(m_parallel, 1);
  return parallelTab;
}

QColor HistoryPage::colorOf(int row) const {
  const auto id = m_model->run(row).id;
  return seriesColor(static_cast<int>(id % 10));  // the palette repeats every ten
}

void HistoryPage::selectionChanged() {
  const QList<int> rows = selectedRows();
  // Parallel-coordinates axes: the numeric hyperparameters that vary.
  {
    QSignalBlocker block(m_params);
    QSet<QString> checked;
    for (int i = 0; i < m_params->count(); ++i)
      if (m_params->item(i)->checkState() == Qt::Checked) checked.insert(m_params->item(i)->text());
    const bool fresh = m_params->count() == 0;
    m_params->clear();
    for (const QString& key : m_model->numericVaryingKeys(rows)) {
      auto* item = new QListWidgetItem(key, m_params);
      item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
      item->setCheckState(fresh || checked.contains(key) || checked.isEmpty() ? Qt::Checked
                                                                              : Qt::Unchecked);
    }
  }
  updateCurves();
  updateDiff();
  updateParallel();
  updateDetails();
  updateValidation(true);
  if (auto* labels = m_tabs->findChild<HistoryLabelDiff*>(QStringLiteral("historyLabelDiff"))) {
    if (rows.size() < 2) {
      labels->clear(tr("Select two runs to see which label files their datasets differ in."));
      m_tabs->setTabText(m_tabs->indexOf(labels), tr("Labels"));
    } else {
      store::RunRecord a = m_model->run(rows[0]), b = m_model->run(rows[1]);
      if (b.started < a.started) std::swap(a, b);  // earlier → later
      labels->compare(a, b);
    }
  }
}

void HistoryPage::updateValidation(bool changed) {
  m_validationStale = m_validationStale || changed;
  if (m_tabs->currentWidget() != m_validation || !m_validationStale) return;
  m_validationStale = false;
  const QList<int> rows = selectedRows();
  if (rows.isEmpty()) {
    m_validation->clear(tr("Select a run to see its validation views, or two to compare them."));
    return;
  }
  QStringList dirs, titles;
  for (int row : rows.mid(0, 2)) {
    dirs << QDir(QString::fromStdString(m_model->run(row).dir)).filePath(QStringLiteral("val"));
    titles << HistoryModel::displayName(m_model->run(row));
  }
  m_validation->showFolders(dirs, titles);
}

bool HistoryPage::curvesPending() const {
  return m_model->readingCurves();
}

void HistoryPage::updateCurves() {
  // The metric list and the curves are database queries: read off the GUI thread. The metric
  // asked for stays when the runs have it, else mAP50-95, else their first.
  m_model->readCurves(selectedRows(),
                      {m_metric->currentText(), QStringLiteral("metrics/mAP50-95(B)")},
                      static_cast<studio::CurveAxis>(m_axis->currentData().toInt()));
}

void HistoryPage::showCurves(const studio::HistoryCurves& curves) {
  if (!curves.error.isEmpty()) emit message(tr("History: %1").arg(curves.error));
  // Read for a selection that is no longer the current one: a newer read is on its way.
  // (In any order: the table may have been sorted meanwhile.)
  QList<int64_t> ids, read = curves.ids;
  for (int row : selectedRows()) ids << m_model->run(row).id;
  std::sort(ids.begin(), ids.end());
  std::sort(read.begin(), read.end());
  if (read != ids) return;
  {
    QSignalBlocker block(m_metric);
    m_metric->clear();
    m_metric->addItems(curves.keys);
    m_metric->setCurrentText(curves.key);
  }
  m_shown = curves;
  drawCurves();
  emit curvesShown();
}

void HistoryPage::drawCurves() {
  m_curves->clearGraphs();
  const QString key = m_shown.key;
  const auto axis = m_shown.axis;
  bool any = false;
  for (int i = 0; i < m_shown.ids.size() && i < m_shown.points.size(); ++i) {
    const auto& points = m_shown.points[i];
    const int row = m_model->rowOfId(m_shown.ids[i]);
    if (points.isEmpty() || row < 0) continue;
    QVector<double> x, y;
    x.reserve(points.size());
    y.reserve(points.size());
    for (const auto& p : points) {
      x << p.x;
      y << p.y;
    }
    auto* g = m_curves->addGraph();
    g->setName(HistoryModel::displayName(m_model->run(row)));
    g->setPen(QPen(colorOf(row), 2));
    if (points.size() < 30) g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
    g->setData(x, y, true);
    any = true;
  }
  m_curves->xAxis->setLabel(m_axis->itemText(m_axis->findData(int(axis))));
  m_curves->yAxis->setLabel(key);
  m_curves->legend->setVisible(any);
  // Losses fall and metrics rise: the legend goes where the curves are not.
  m_curves->axisRect()->insetLayout()->setInsetAlignment(
      0,
      Qt::AlignRight | (key.contains(QLatin1String("loss")) || key.startsWith(QLatin1String("lr"))
                            ? Qt::AlignTop
                            : Qt::AlignBottom));
  // Epochs are whole: steps of 1, 2, 5, 10, ... (never 1.5, 2.5), as on the Run page.
  if (axis == studio::CurveAxis::Epoch) {
    auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    m_curves->xAxis->setTicker(ticker);
  } else {
    m_curves->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
  }
  if (any) {
    m_curves->rescaleAxes();
    // A little air around single points and flat lines.
    for (QCPAxis* a : {m_curves->xAxis, m_curves->yAxis}) {
      QCPRange r = a->range();
      const double pad =
          r.size() > 0 ? r.size() * 0.05 : std::max(1e-3, std::abs(r.center()) * 0.1);
      a->setRange(r.lower - pad, r.upper + pad);
    }
    // Precision, recall and mAP live in [0, 1]: never below 0, and a line of zeros sits on the
    // floor of a readable range instead of in the middle of -2 .. 2.
    if (key.startsWith(QLatin1String("metrics/"))) {
      double top = 0;
      for (int g = 0; g < m_curves->graphCount(); ++g) {
        bool found = false;
        const QCPRange v = m_curves->graph(g)->data()->valueRange(found);
        if (found) top = std::max(top, v.upper);
      }
      m_curves->yAxis->setRange(0.0, std::max(top * 1.05, 0.05));
    }
  }
  m_curves->replot();
}

void HistoryPage::updateDiff() {
  const QList<int> rows = selectedRows();
  const auto diff = m_model->configDiff(rows);
  m_diff->clear();
  m_diff->setColumnCount(rows.size());
  QStringList heads;
  for (int row : rows) heads << HistoryModel::displayName(m_model->run(row));
  m_diff->setHorizontalHeaderLabels(heads);
  if (rows.size() < 2) {
    m_diff->setRowCount(1);
    m_diff->setVerticalHeaderLabels({QString()});
    m_diff->setColumnCount(1);
    m_diff->setItem(0, 0, new QTableWidgetItem(tr("Select two or more runs to see what differs.")));
    m_diff->setHorizontalHeaderLabels({QString()});
    return;
  }
  m_diff->setRowCount(diff.isEmpty() ? 1 : diff.size());
  QStringList keys;
  if (diff.isEmpty()) {
    keys << QString();
    m_diff->setItem(0, 0, new QTableWidgetItem(tr("The configs are identical.")));
  }
  for (int i = 0; i < diff.size(); ++i) {
    keys << diff[i].first;
    for (int c = 0; c < diff[i].second.size(); ++c)
      m_diff->setItem(i, c, new QTableWidgetItem(diff[i].second[c]));
  }
  m_diff->setVerticalHeaderLabels(keys);
}

void HistoryPage::updateParallel() {
  m_parallel->clearPlottables();
  m_parallel->clearItems();
  const QList<int> rows = selectedRows();
  QStringList axes;
  for (int i = 0; i < m_params->count(); ++i)
    if (m_params->item(i)->checkState() == Qt::Checked) axes << m_params->item(i)->text();
  const QString target = tr("best mAP50-95");
  auto value = [&](int row, int a) {
    return a < axes.size()
               ? m_model->configNumber(row, axes[a])
               : (m_model->run(row).bestEpoch >= 0 ? m_model->run(row).bestMap5095 : std::nan(""));
  };
  const int n = axes.size() + 1;
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  for (int a = 0; a < n; ++a) ticker->addTick(a, a < axes.size() ? axes[a] : target);
  m_parallel->xAxis->setTicker(ticker);
  m_parallel->xAxis->setTickLabelRotation(axes.size() > 4 ? 30 : 0);
  m_parallel->xAxis->setRange(-0.3, n - 0.7);
  m_parallel->yAxis->setRange(-0.1, 1.12);
  m_parallel->yAxis->setTickLabels(false);
  m_parallel->yAxis->setLabel(tr("each axis: its own range"));
  if (rows.size() < 1) {
    m_parallel->legend->setVisible(false);
    m_parallel->replot();
    return;
  }
  // Each axis spans its own range over the selected runs; the ends are labelled.
  QVector<double> lo(n, 0), hi(n, 0);
  for (int a = 0; a < n; ++a) {
    bool first = true;
    for (int row : rows) {
      const double v = value(row, a);
      if (std::isnan(v)) continue;
      lo[a] = first ? v : std::min(lo[a], v);
      hi[a] = first ? v : std::max(hi[a], v);
      first = false;
    }
    addParallelAxis(m_parallel, a, lo[a], hi[a], font());
  }
  for (int row : rows) {
    QVector<double> keys, values;
    for (int a = 0; a < n; ++a) {
      const double v = value(row, a);
      if (std::isnan(v)) continue;
      keys << a;
      values << (hi[a] > lo[a] ? (v - lo[a]) / (hi[a] - lo[a]) : 0.5);
    }
    auto* curve = new QCPCurve(m_parallel->xAxis, m_parallel->yAxis);
    curve->setName(HistoryModel::displayName(m_model->run(row)));
    curve->setPen(QPen(colorOf(row), 2));
    curve->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 6));
    curve->setData(keys, values);
  }
  m_parallel->legend->setVisible(true);
  m_parallel->replot();
}

}  // namespace stave::widgets
