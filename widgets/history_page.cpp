// The History page: the table of the project's runs (filter, selection kept across reloads),
// the current run's details and actions (title, tags, notes, open folder, new config, delete)
// and the CSV export. The comparison of the selected runs (curves, config diff, parallel
// coordinates, validation) is in history_page_compare.cpp.
#include "widgets/history_page.h"

#include <QDesktopServices>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QUrl>
#include <QVBoxLayout>
#include <algorithm>

#include "core/studio/run_times.h"
#include "core/studio/engine_text.h"
#include "core/studio/models/history_model.h"
#include "core/studio/project/project_document.h"
#include "core/studio/run/weights_fetch.h"

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
    for (int c :
         {HistoryModel::Name, HistoryModel::Status, HistoryModel::Model, HistoryModel::Tags}) {
      const QString text = sourceModel()->index(row, c, parent).data().toString();
      if (text.contains(needle, Qt::CaseInsensitive)) return true;
    }
    return false;
  }

 private:
  QString m_needle;
};

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
    const QString name =
        QInputDialog::getText(this, tr("New config from run"), tr("Name of the new config:"),
                              QLineEdit::Normal, suggestion, &ok);
    return ok ? name.trimmed() : QString();
  };

  m_proxy->setSourceModel(m_model);
  m_proxy->setSortRole(HistoryModel::SortRole);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(buildFilterBar());
  auto* split = new QSplitter(Qt::Vertical, this);
  layout->addWidget(split, 1);

  // The table across the page; below it the comparison, with the current run's details
  // beside it.
  buildTable(split);
  auto* bottom = new QSplitter(Qt::Horizontal, split);
  QWidget* details = buildDetailsPanel();
  buildComparisonTabs(bottom);
  bottom->addWidget(details);
  bottom->setStretchFactor(0, 1);
  bottom->setStretchFactor(1, 0);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);

  m_timer = new QTimer(this);
  m_timer->setInterval(3000);
  connect(m_timer, &QTimer::timeout, m_model, &studio::HistoryModel::refreshInBackground);
  connectRunActions();
  connectModel();
  updateDetails();
}

QLayout* HistoryPage::buildFilterBar() {
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
  connect(m_filter, &QLineEdit::textChanged, this,
          [this](const QString& text) { static_cast<RunFilter*>(m_proxy)->setNeedle(text); });
  connect(refreshButton, &QPushButton::clicked, this, &HistoryPage::refresh);
  connect(exportButton, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export runs as CSV"),
        QDir(m_model->projectDir()).filePath(QStringLiteral("runs.csv")), tr("CSV files (*.csv)"));
    if (!path.isEmpty()) exportCsv(path);
  });
  return bar;
}

void HistoryPage::buildTable(QWidget* parent) {
  m_table = new QTableView(parent);
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
  connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          &HistoryPage::selectionChanged);
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &HistoryPage::updateDetails);
}

QWidget* HistoryPage::buildDetailsPanel() {
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
  return details;
}

void HistoryPage::connectRunActions() {
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
    // A run on a cluster behind SSH: its checkpoints are fetched only when asked (whether it has
    // a cluster record was read with the rows; the fetch reads the record and refuses a run that
    // is not behind SSH).
    if (currentRow() >= 0 && m_model->mayBeRemote(currentRow()))
      menu.addAction(m_fetch && m_fetch->busy() ? tr("Stop fetching weights") : tr("Fetch weights from the cluster"), this,
                     &HistoryPage::fetchCurrentRunWeights);
    menu.addSeparator();
    menu.addAction(tr("Delete run…"), this, &HistoryPage::deleteCurrentRun);
    menu.exec(m_table->viewport()->mapToGlobal(pos));
  });
}

bool HistoryPage::fetchCurrentRunWeights() {
  if (!m_fetch) {
    m_fetch = new studio::WeightsFetch(this);
    connect(m_fetch, &studio::WeightsFetch::progress, this, [this] { emit message(m_fetch->progressText()); });
    connect(m_fetch, &studio::WeightsFetch::finished, this, [this](const QStringList& fetched, const QString& error) {
      QStringList names;
      for (const QString& f : fetched) names << QDir::toNativeSeparators(f);
      emit message(error.isEmpty() ? tr("Fetched %1").arg(names.join(QStringLiteral(", "))) : error);
    });
  }
  if (m_fetch->busy()) {
    m_fetch->cancel();
    return true;
  }
  const int row = currentRow();
  if (row < 0 || !m_fetch->startWeights(QString::fromStdString(m_model->run(row).dir))) return false;
  emit message(m_fetch->progressText());
  return true;
}

void HistoryPage::connectModel() {
  connect(m_doc, &studio::ProjectDocument::opened, this, &HistoryPage::projectOpened);
  connect(m_model, &QAbstractItemModel::modelReset, this, &HistoryPage::selectionChanged);
  connect(m_model, &studio::HistoryModel::curvesRead, this, &HistoryPage::showCurves);
  connect(m_model, &studio::HistoryModel::runRemoved, this,
          [this](qint64, const QString& name, const QString& error) {
            emit message(error.isEmpty() ? tr("Deleted %1").arg(name)
                                         : tr("Cannot delete %1: %2").arg(name, error));
            selectionChanged();
          });
  connect(m_model, &studio::HistoryModel::annotated, this,
          [this](qint64, const QString& name, const QString& error) {
            emit message(error.isEmpty() ? tr("Saved the notes of %1").arg(name)
                                         : tr("Cannot save the notes: %1").arg(error));
            drawCurves();  // the names in the legend
            updateParallel();
          });
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
    // The database could not be opened: the page says so (the model stays empty).
    if (!m_model->isOpen() && !error.isEmpty()) m_status->setText(tr("The history cannot be read: %1").arg(error));
  });
}

void HistoryPage::projectOpened() {
  // The runs the database holds are read off this thread and listed when they come
  // (refreshed), then what is new under runs/.
  m_firstListing = true;
  m_model->openInBackground(QFileInfo(m_doc->path()).absolutePath());
  updateDetails();
}

void HistoryPage::refresh() {
  // Off this thread; the selection is kept across the reload by the model's reset signals.
  if (m_model->isOpen()) m_model->refreshInBackground();
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
  m_table->selectionModel()->select(
      sel, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  if (!rows.isEmpty())
    m_table->selectionModel()->setCurrentIndex(
        m_proxy->mapFromSource(m_model->index(rows.first(), 0)), QItemSelectionModel::NoUpdate);
}

int HistoryPage::currentRow() const {
  const QModelIndex i = m_table->selectionModel()->currentIndex();
  if (!i.isValid()) {
    const auto rows = selectedRows();
    return rows.isEmpty() ? -1 : rows.first();
  }
  return m_proxy->mapToSource(i).row();
}

void HistoryPage::updateDetails() {
  const int row = currentRow();
  const bool has = row >= 0 && row < m_model->rowCount();
  for (QWidget* w : std::initializer_list<QWidget*>{m_title, m_tags, m_notes, m_saveNotes,
                                                    m_openFolder, m_newConfig, m_delete})
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
  QString status = QStringLiteral("<b>%1</b> — %2")
                       .arg(QString::fromStdString(r.name).toHtmlEscaped(),
                            m_model->index(row, HistoryModel::Status).data().toString());
  if (r.sessions.size() > 1) {
    QStringList story;
    for (const auto& st : r.sessions) story << HistoryModel::statusName(st);
    status += QStringLiteral("<br>") + tr("Sessions: %1").arg(story.join(QStringLiteral(" → ")));
  }
  // A resumed run's message is its last session's: said so, above the whole run's times.
  if (!r.message.empty()) {
    const QString message = studio::engineText(r.messageText, r.message).toHtmlEscaped();
    status += QStringLiteral("<br><small>%1</small>")
                  .arg(r.sessions.size() > 1 ? tr("last session: %1").arg(message) : message);
  }
  // The message's times are the last session's: a resumed run's are the sum of its sessions'.
  if (r.sessionTimes.size() > 1)
    if (const QString times = studio::sessionTimesText(r.sessionTimes); !times.isEmpty())
      status += QStringLiteral("<br>") + tr("The whole run: %1").arg(times.toHtmlEscaped());
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
  m_openFolder->setToolTip(
      m_model->folderMissing(row)
          ? tr("The run folder %1 no longer exists.").arg(QString::fromStdString(r.dir))
          : QString());
}

void HistoryPage::saveAnnotations() {
  const int row = currentRow();
  if (row < 0) return;
  // Written on a thread of its own (the database, the run's annotations.json); the model says
  // when (annotated).
  m_model->annotateInBackground(row, m_title->text(), m_tags->text().split(QLatin1Char(',')),
                                m_notes->toPlainText());
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
  // The folder (a day-long run's gigabytes) and the rows go on a thread of their own; the model
  // says when (runRemoved).
  if (!m_model->removeRunInBackground(row, &error)) {
    emit message(tr("Cannot delete %1: %2").arg(name, error));
    return false;
  }
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
