#include "widgets/history_page.h"

#include <QComboBox>
#include <QDesktopServices>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTimer>
#include <QUrl>
#include <QVBoxLayout>
#include <cmath>
#include <qcustomplot.h>

#include "core/studio/history_model.h"
#include "core/studio/project_document.h"
#include "widgets/live_chart.h"
#include "widgets/validation_view.h"

namespace stave::widgets {

using studio::HistoryModel;

namespace {

/// Filters on the name, status, model and tags columns at once.
class RunFilter : public QSortFilterProxyModel {
 public:
  using QSortFilterProxyModel::QSortFilterProxyModel;
  void setNeedle(const QString& text) {
    m_needle = text.trimmed();
    invalidateFilter();
  }

 protected:
  bool filterAcceptsRow(int row, const QModelIndex& parent) const override {
    const QString& needle = m_needle;
    if (needle.isEmpty()) return true;
    for (int c : {HistoryModel::Name, HistoryModel::Status, HistoryModel::Model, HistoryModel::Tags}) {
      const QString text = sourceModel()->index(row, c, parent).data().toString();
      if (text.contains(needle, Qt::CaseInsensitive)) return true;
    }
    return false;
  }

 private:
  QString m_needle;
};

void stylePlot(QCustomPlot* plot) {
  plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom | QCP::iSelectLegend);
  plot->legend->setVisible(true);
  plot->legend->setBrush(QColor(255, 255, 255, 220));
  plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  plot->setMinimumHeight(220);
}

}  // namespace

HistoryPage::HistoryPage(studio::ProjectDocument* doc, QWidget* parent)
    : QWidget(parent), m_doc(doc), m_model(new HistoryModel(this)), m_proxy(new RunFilter(this)) {
  confirm = [this](const QString& question) {
    return QMessageBox::question(this, tr("Delete run"), question,
                                 QMessageBox::Yes | QMessageBox::Cancel,
                                 QMessageBox::Cancel) == QMessageBox::Yes;
  };
  askConfigName = [this](const QString& suggestion) {
    bool ok = false;
    const QString name = QInputDialog::getText(this, tr("New config from run"),
                                               tr("Name of the new config:"), QLineEdit::Normal,
                                               suggestion, &ok);
    return ok ? name.trimmed() : QString();
  };

  m_proxy->setSourceModel(m_model);
  m_proxy->setSortRole(HistoryModel::SortRole);

  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  m_filter = new QLineEdit(this);
  m_filter->setObjectName(QStringLiteral("historyFilter"));
  m_filter->setPlaceholderText(tr("Filter by name, status, model or tag"));
  m_filter->setClearButtonEnabled(true);
  auto* refreshButton = new QPushButton(tr("Refresh"), this);
  auto* exportButton = new QPushButton(tr("Export CSV…"), this);
  bar->addWidget(m_filter, 1);
  bar->addWidget(refreshButton);
  bar->addWidget(exportButton);
  layout->addLayout(bar);

  auto* split = new QSplitter(Qt::Vertical, this);
  layout->addWidget(split, 1);

  // The table across the page; below it the comparison, with the current run's details
  // beside it.
  m_table = new QTableView(split);
  m_table->setObjectName(QStringLiteral("historyTable"));
  m_table->setModel(m_proxy);
  m_table->setSortingEnabled(true);
  m_table->sortByColumn(HistoryModel::Started, Qt::DescendingOrder);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_table->setContextMenuPolicy(Qt::CustomContextMenu);
  m_table->verticalHeader()->hide();
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->setAlternatingRowColors(true);

  auto* bottom = new QSplitter(Qt::Horizontal, split);
  auto* details = new QWidget;
  details->setMinimumWidth(260);
  details->setMaximumWidth(380);
  auto* detailsLayout = new QVBoxLayout(details);
  auto* form = new QFormLayout;
  detailsLayout->addLayout(form);
  detailsLayout->addStretch(1);
  m_status = new QLabel(details);
  m_status->setWordWrap(true);
  m_status->setObjectName(QStringLiteral("historyRunStatus"));
  form->addRow(m_status);
  m_title = new QLineEdit(details);
  m_title->setObjectName(QStringLiteral("historyTitle"));
  form->addRow(tr("Title"), m_title);
  m_tags = new QLineEdit(details);
  m_tags->setObjectName(QStringLiteral("historyTags"));
  m_tags->setPlaceholderText(tr("comma separated"));
  form->addRow(tr("Tags"), m_tags);
  m_notes = new QPlainTextEdit(details);
  m_notes->setObjectName(QStringLiteral("historyNotes"));
  m_notes->setMaximumHeight(80);
  form->addRow(tr("Notes"), m_notes);
  m_saveNotes = new QPushButton(tr("Save title, tags and notes"), details);
  form->addRow(m_saveNotes);
  auto* actions = new QHBoxLayout;
  m_openFolder = new QPushButton(tr("Open folder"), details);
  m_newConfig = new QPushButton(tr("New config…"), details);
  m_delete = new QPushButton(tr("Delete…"), details);
  actions->addWidget(m_openFolder);
  actions->addWidget(m_newConfig);
  actions->addWidget(m_delete);
  form->addRow(actions);

  // Comparison of the selected runs.
  m_tabs = new QTabWidget(bottom);
  m_tabs->setObjectName(QStringLiteral("historyTabs"));
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
  m_tabs->addTab(curvesTab, tr("Curves"));

  m_diff = new QTableWidget(m_tabs);
  m_diff->setObjectName(QStringLiteral("historyDiff"));
  m_diff->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_diff->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_tabs->addTab(m_diff, tr("Config diff"));

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
  m_tabs->addTab(parallelTab, tr("Parallel coordinates"));
  m_validation = new ValidationView(m_tabs);
  m_validation->setObjectName(QStringLiteral("historyValidation"));
  m_tabs->addTab(m_validation, tr("Validation"));
  connect(m_tabs, &QTabWidget::currentChanged, this, [this] { updateValidation(); });
  bottom->addWidget(details);
  bottom->setStretchFactor(0, 1);
  bottom->setStretchFactor(1, 0);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);

  m_timer = new QTimer(this);
  m_timer->setInterval(3000);
  connect(m_timer, &QTimer::timeout, m_model, &studio::HistoryModel::refreshInBackground);

  connect(m_filter, &QLineEdit::textChanged, this,
          [this](const QString& text) { static_cast<RunFilter*>(m_proxy)->setNeedle(text); });
  connect(refreshButton, &QPushButton::clicked, this, &HistoryPage::refresh);
  connect(exportButton, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export runs as CSV"), QDir(m_model->projectDir()).filePath(QStringLiteral("runs.csv")),
        tr("CSV files (*.csv)"));
    if (!path.isEmpty()) exportCsv(path);
  });
  connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          &HistoryPage::selectionChanged);
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &HistoryPage::updateDetails);
  connect(m_metric, &QComboBox::currentTextChanged, this, &HistoryPage::updateCurves);
  connect(m_axis, &QComboBox::currentIndexChanged, this, &HistoryPage::updateCurves);
  connect(m_params, &QListWidget::itemChanged, this, &HistoryPage::updateParallel);
  connect(m_saveNotes, &QPushButton::clicked, this, &HistoryPage::saveAnnotations);
  connect(m_openFolder, &QPushButton::clicked, this, [this] {
    const int row = currentRow();
    if (row >= 0)
      QDesktopServices::openUrl(QUrl::fromLocalFile(QString::fromStdString(m_model->run(row).dir)));
  });
  connect(m_newConfig, &QPushButton::clicked, this, &HistoryPage::newConfigFromCurrentRun);
  connect(m_delete, &QPushButton::clicked, this, &HistoryPage::deleteCurrentRun);
  connect(m_table, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
    if (currentRow() < 0) return;
    QMenu menu(this);
    menu.addAction(tr("Open run folder"), m_openFolder, &QPushButton::click)
        ->setEnabled(m_openFolder->isEnabled());
    menu.addAction(tr("New config from this run…"), this, &HistoryPage::newConfigFromCurrentRun);
    menu.addSeparator();
    menu.addAction(tr("Delete run…"), this, &HistoryPage::deleteCurrentRun);
    menu.exec(m_table->viewport()->mapToGlobal(pos));
  });
  connect(doc, &studio::ProjectDocument::opened, this, &HistoryPage::projectOpened);
  connect(m_model, &QAbstractItemModel::modelReset, this, &HistoryPage::selectionChanged);
  // A background refresh reloads the rows: the selection is kept by run id across it.
  connect(m_model, &QAbstractItemModel::modelAboutToBeReset, this, [this] {
    m_keepIds.clear();
    for (int row : selectedRows()) m_keepIds << m_model->run(row).id;
  });
  connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
    QList<int> rows;
    for (int64_t id : m_keepIds)
      if (int row = m_model->rowOfId(id); row >= 0) rows << row;
    if (!rows.isEmpty()) selectRows(rows);
  });
  connect(m_model, &studio::HistoryModel::refreshed, this, [this](const QString& error) {
    if (!error.isEmpty()) emit message(tr("History: %1").arg(error));
    for (const auto& w : m_model->warnings()) emit message(tr("History: %1").arg(w));
    if (m_firstListing && m_proxy->rowCount() > 0) {
      // The project's runs listed for the first time: columns fitted, the newest selected.
      m_firstListing = false;
      m_table->resizeColumnsToContents();
      if (selectedRows().isEmpty()) m_table->selectRow(0);
    }
    updateDetails();
  });
  updateDetails();
}

void HistoryPage::projectOpened() {
  QString error;
  const QString dir = QFileInfo(m_doc->path()).absolutePath();
  if (!m_model->open(dir, &error)) {
    emit message(tr("History: %1").arg(error));
    m_status->setText(tr("The history cannot be read: %1").arg(error));
    return;
  }
  // The runs the database holds show now; what is new is read in the background.
  m_firstListing = true;
  if (m_proxy->rowCount() > 0) {
    m_firstListing = false;
    m_table->resizeColumnsToContents();
    m_table->selectRow(0);
  }
  updateDetails();
}

void HistoryPage::refresh() {
  if (!m_model->isOpen()) return;
  QString error;  // the selection is kept across a reload by the model's reset signals
  if (!m_model->refresh(&error)) emit message(tr("History: %1").arg(error));
}

void HistoryPage::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  m_model->refreshInBackground();
  m_timer->start();
}

void HistoryPage::hideEvent(QHideEvent* event) {
  QWidget::hideEvent(event);
  m_timer->stop();
}

QList<int> HistoryPage::selectedRows() const {
  QList<int> rows;
  const auto sel = m_table->selectionModel()->selectedRows();
  QList<QModelIndex> sorted(sel.begin(), sel.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
  for (const auto& index : sorted) rows << m_proxy->mapToSource(index).row();
  return rows;
}

void HistoryPage::selectRows(const QList<int>& rows) {
  QItemSelection sel;
  for (int row : rows) {
    const QModelIndex i = m_proxy->mapFromSource(m_model->index(row, 0));
    if (i.isValid()) sel.select(i, i);
  }
  m_table->selectionModel()->select(sel, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  if (!rows.isEmpty())
    m_table->selectionModel()->setCurrentIndex(m_proxy->mapFromSource(m_model->index(rows.first(), 0)),
                                               QItemSelectionModel::NoUpdate);
}

int HistoryPage::currentRow() const {
  const QModelIndex i = m_table->selectionModel()->currentIndex();
  if (!i.isValid()) {
    const auto rows = selectedRows();
    return rows.isEmpty() ? -1 : rows.first();
  }
  return m_proxy->mapToSource(i).row();
}

QColor HistoryPage::colorOf(int row) const {
  const auto id = m_model->run(row).id;
  return seriesColor(static_cast<int>(id % 10));  // the palette repeats every ten
}

void HistoryPage::selectionChanged() {
  const QList<int> rows = selectedRows();
  // The metric list: what the selected runs have; mAP50-95 first when present.
  const QString previous = m_metric->currentText();
  const QStringList keys = m_model->metricKeys(rows);
  {
    QSignalBlocker block(m_metric);
    m_metric->clear();
    m_metric->addItems(keys);
    QString want = previous;
    if (want.isEmpty() || !keys.contains(want)) want = QStringLiteral("metrics/mAP50-95(B)");
    if (!keys.contains(want) && !keys.isEmpty()) want = keys.first();
    m_metric->setCurrentText(want);
  }
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

void HistoryPage::updateCurves() {
  m_curves->clearGraphs();
  const QString key = m_metric->currentText();
  const auto axis = static_cast<studio::CurveAxis>(m_axis->currentData().toInt());
  const QList<int> rows = selectedRows();
  bool any = false;
  for (int row : rows) {
    const auto points = m_model->curve(row, key, axis);
    if (points.isEmpty()) continue;
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
  m_curves->xAxis->setLabel(m_axis->currentText());
  m_curves->yAxis->setLabel(key);
  m_curves->legend->setVisible(any);
  // Losses fall and metrics rise: the legend goes where the curves are not.
  m_curves->axisRect()->insetLayout()->setInsetAlignment(
      0, Qt::AlignRight | (key.contains(QLatin1String("loss")) || key.startsWith(QLatin1String("lr"))
                               ? Qt::AlignTop
                               : Qt::AlignBottom));
  if (any) {
    m_curves->rescaleAxes();
    // A little air around single points and flat lines.
    for (QCPAxis* a : {m_curves->xAxis, m_curves->yAxis}) {
      QCPRange r = a->range();
      const double pad = r.size() > 0 ? r.size() * 0.05 : std::max(1e-3, std::abs(r.center()) * 0.1);
      a->setRange(r.lower - pad, r.upper + pad);
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
    return a < axes.size() ? m_model->configNumber(row, axes[a])
                           : (m_model->run(row).bestEpoch >= 0 ? m_model->run(row).bestMap5095
                                                               : std::nan(""));
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
    for (const auto& [y, v, align] :
         {std::tuple{1.035, hi[a], Qt::AlignBottom}, std::tuple{-0.035, lo[a], Qt::AlignTop}}) {
      auto* label = new QCPItemText(m_parallel);
      label->position->setCoords(a, y);
      label->setPositionAlignment(align | Qt::AlignHCenter);
      label->setText(QString::number(v, 'g', 4));
      label->setFont(QFont(font().family(), std::max(7, font().pointSize() - 1)));
      label->setColor(QColor(90, 90, 90));
    }
    auto* line = new QCPItemLine(m_parallel);
    line->start->setCoords(a, 0);
    line->end->setCoords(a, 1);
    line->setPen(QPen(QColor(160, 160, 160), 1));
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

void HistoryPage::updateDetails() {
  const int row = currentRow();
  const bool has = row >= 0 && row < m_model->rowCount();
  for (QWidget* w : std::initializer_list<QWidget*>{m_title, m_tags, m_notes, m_saveNotes, m_openFolder,
                                                    m_newConfig, m_delete})
    w->setEnabled(has);
  if (!has) {
    // Said from the project, not the model: the model is reset (closed) while it opens, and a
    // project without runs stayed "Open a project to see its runs".
    if (!m_doc->isOpen())
      m_status->setText(tr("Open a project to see its runs."));
    else if (!m_model->isOpen())
      m_status->setText(tr("Reading the history…"));
    else if (m_model->rowCount() == 0)
      m_status->setText(tr("No runs yet: a run started on the Run page appears here."));
    else
      m_status->setText(tr("No run selected."));
    m_title->clear();
    m_tags->clear();
    m_notes->clear();
    return;
  }
  // Several runs selected: the panel would describe only one of them. It says what is
  // selected; the comparison views (curves, diff, parallel coordinates) show them all.
  if (const QList<int> rows = selectedRows(); rows.size() > 1) {
    QStringList names;
    for (int r : rows) names << HistoryModel::displayName(m_model->run(r)).toHtmlEscaped();
    m_status->setText(tr("<b>%n runs selected</b>: %1<br><small>The curves, the config diff and "
                         "the parallel coordinates compare them, the validation views the first "
                         "two; select one run to annotate it.</small>",
                         nullptr, int(rows.size()))
                          .arg(names.join(QStringLiteral(", "))));
    for (QWidget* w : std::initializer_list<QWidget*>{m_title, m_tags, m_notes, m_saveNotes,
                                                      m_openFolder, m_newConfig, m_delete})
      w->setEnabled(false);
    m_title->clear();
    m_title->setPlaceholderText(QString());
    m_tags->clear();
    m_notes->clear();
    return;
  }
  const auto& r = m_model->run(row);
  QString status = QStringLiteral("<b>%1</b> — %2").arg(QString::fromStdString(r.name).toHtmlEscaped(),
                                                       m_model->index(row, HistoryModel::Status).data().toString());
  if (r.sessions.size() > 1) {
    QStringList story;
    for (const auto& st : r.sessions) story << HistoryModel::statusName(st);
    status += QStringLiteral("<br>") + tr("Sessions: %1").arg(story.join(QStringLiteral(" → ")));
  }
  if (!r.message.empty())
    status += QStringLiteral("<br><small>%1</small>").arg(QString::fromStdString(r.message).toHtmlEscaped());
  if (r.bestEpoch >= 0)
    status += QStringLiteral("<br>") + tr("best mAP50 %1, mAP50-95 %2 (epoch %3)")
                                           .arg(r.bestMap50, 0, 'f', 4)
                                           .arg(r.bestMap5095, 0, 'f', 4)
                                           .arg(r.bestEpoch + 1);
  m_status->setText(status);
  m_title->setText(QString::fromStdString(r.title));
  m_title->setPlaceholderText(QString::fromStdString(r.name));
  QStringList tags;
  for (const auto& t : r.tags) tags << QString::fromStdString(t);
  m_tags->setText(tags.join(QStringLiteral(", ")));
  m_notes->setPlainText(QString::fromStdString(r.notes));
  // A run still going cannot be deleted; one whose folder is gone can (it only leaves the
  // history), whatever its last recorded status.
  m_delete->setEnabled(r.status != "running" || m_model->folderMissing(row));
  // Nothing to open when the folder is gone.
  m_openFolder->setEnabled(!m_model->folderMissing(row));
  m_openFolder->setToolTip(m_model->folderMissing(row)
                               ? tr("The run folder %1 no longer exists.")
                                     .arg(QString::fromStdString(r.dir))
                               : QString());
}

void HistoryPage::saveAnnotations() {
  const int row = currentRow();
  if (row < 0) return;
  QString error;
  const int64_t id = m_model->run(row).id;
  bool ok = m_model->setTitle(row, m_title->text(), &error);
  ok = ok && m_model->setTags(m_model->rowOfId(id), m_tags->text().split(QLatin1Char(',')), &error);
  ok = ok && m_model->setNotes(m_model->rowOfId(id), m_notes->toPlainText(), &error);
  emit message(ok ? tr("Saved the notes of %1").arg(QString::fromStdString(m_model->run(row).name))
                  : tr("Cannot save the notes: %1").arg(error));
  updateCurves();
  updateParallel();
}

bool HistoryPage::deleteCurrentRun() {
  const int row = currentRow();
  if (row < 0) return false;
  const auto& r = m_model->run(row);
  const QString dir = QString::fromStdString(r.dir);
  const QString question =
      !m_model->folderMissing(row)
          ? tr("Delete the run %1? Its folder %2 is removed with its weights and logs.")
          : tr("Remove the run %1 from the history? Its folder %2 no longer exists.");
  if (!confirm(question.arg(QString::fromStdString(r.name), dir))) return false;
  const QString name = QString::fromStdString(r.name);
  QString error;
  if (!m_model->removeRun(row, &error)) {
    emit message(tr("Cannot delete %1: %2").arg(name, error));
    return false;
  }
  emit message(tr("Deleted %1").arg(name));
  selectionChanged();
  return true;
}

bool HistoryPage::newConfigFromCurrentRun() {
  const int row = currentRow();
  if (row < 0 || !m_doc->isOpen()) return false;
  config::RunConfig cfg = config::RunConfig::defaults();
  QString error;
  if (!m_model->configOf(row, &cfg, &error)) {
    emit message(tr("Cannot take the config of the run: %1").arg(error));
    return false;
  }
  QString suggestion = QString::fromStdString(m_model->run(row).name);
  for (int k = 2; m_doc->configNames().contains(suggestion); ++k)
    suggestion = QStringLiteral("%1-%2").arg(QString::fromStdString(m_model->run(row).name)).arg(k);
  const QString name = askConfigName(suggestion);
  if (name.isEmpty()) return false;
  if (m_doc->configNames().contains(name)) {
    emit message(tr("There is already a config called %1").arg(name));
    return false;
  }
  m_doc->setConfig(name, cfg);
  emit message(tr("New config %1 from the run %2 (save the project to keep it)")
                   .arg(name, QString::fromStdString(m_model->run(row).name)));
  return true;
}

bool HistoryPage::exportCsv(const QString& path) {
  QString error;
  if (!m_model->exportCsv(path, &error)) {
    emit message(tr("Cannot export: %1").arg(error));
    return false;
  }
  emit message(tr("Exported %1 runs to %2").arg(m_model->rowCount()).arg(path));
  return true;
}

}  // namespace stave::widgets
