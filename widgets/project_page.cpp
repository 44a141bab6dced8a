#include "widgets/project_page.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QVBoxLayout>

#include "core/studio/background_job.h"
#include "core/studio/project/project_document.h"
#include "core/studio/run/run_folders.h"

namespace stave::widgets {
namespace {
constexpr int kNameRole = Qt::UserRole + 1;
}

ProjectPage::ProjectPage(studio::ProjectDocument* doc, QWidget* parent)
    : QWidget(parent), m_doc(doc), m_scan(new studio::BackgroundJob(this)) {
  auto* layout = new QVBoxLayout(this);
  auto* head = new QHBoxLayout;
  m_summary = new QLabel(this);
  m_summary->setTextFormat(Qt::RichText);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_summary->setObjectName(QStringLiteral("projectSummary"));
  m_summary->setWordWrap(true);
  head->addWidget(m_summary, 1);
  m_changeDataset = new QPushButton(tr("Change Dataset…"), this);
  m_changeDataset->setObjectName(QStringLiteral("changeDataset"));
  m_changeDataset->setToolTip(tr("Every config of the project trains on its dataset"));
  head->addWidget(m_changeDataset, 0, Qt::AlignBottom);
  layout->addLayout(head);

  layout->addWidget(new QLabel(tr("Run configs (the active one is marked):"), this));
  auto* configRow = new QHBoxLayout;
  m_configs = new QListWidget(this);
  m_configs->setObjectName(QStringLiteral("projectConfigs"));
  m_configs->setMaximumHeight(140);
  configRow->addWidget(m_configs, 1);
  auto* buttons = new QVBoxLayout;
  auto button = [&](const QString& text, const char* name) {
    auto* b = new QPushButton(text, this);
    b->setObjectName(QLatin1String(name));
    buttons->addWidget(b);
    return b;
  };
  m_new = button(tr("New…"), "newConfig");
  m_copy = button(tr("Copy…"), "copyConfig");
  m_rename = button(tr("Rename…"), "renameConfig");
  m_delete = button(tr("Delete"), "deleteConfig");
  m_activate = button(tr("Make Active"), "activateConfig");
  buttons->addStretch(1);
  configRow->addLayout(buttons);
  layout->addLayout(configRow);

  layout->addWidget(new QLabel(tr("Runs (runs/ beside the project, newest first):"), this));
  m_runs = new QListWidget(this);
  m_runs->setObjectName(QStringLiteral("projectRuns"));
  layout->addWidget(m_runs, 2);
  m_problems = new QLabel(this);
  m_problems->setObjectName(QStringLiteral("projectProblems"));
  m_problems->setStyleSheet(QStringLiteral("color: #b00020"));
  m_problems->setWordWrap(true);
  layout->addWidget(m_problems);

  connect(m_changeDataset, &QPushButton::clicked, this, &ProjectPage::changeDataset);
  connect(m_new, &QPushButton::clicked, this, [this] { newConfig(false); });
  connect(m_copy, &QPushButton::clicked, this, [this] { newConfig(true); });
  connect(m_rename, &QPushButton::clicked, this, &ProjectPage::renameConfig);
  connect(m_delete, &QPushButton::clicked, this, &ProjectPage::deleteConfig);
  connect(m_activate, &QPushButton::clicked, this, &ProjectPage::activateConfig);
  connect(m_configs, &QListWidget::itemDoubleClicked, this, &ProjectPage::activateConfig);
  connect(m_configs, &QListWidget::currentRowChanged, this, &ProjectPage::updateButtons);
  connect(doc, &studio::ProjectDocument::opened, this, &ProjectPage::refresh);
  connect(doc, &studio::ProjectDocument::closed, this, &ProjectPage::refresh);
  connect(doc, &studio::ProjectDocument::configsChanged, this, &ProjectPage::refresh);
  connect(doc, &studio::ProjectDocument::datasetChanged, this, &ProjectPage::refresh);
  refresh();
}

QString ProjectPage::selectedConfig() const {
  const QListWidgetItem* item = m_configs->currentItem();
  return item ? item->data(kNameRole).toString() : QString();
}

void ProjectPage::selectConfig(const QString& name) {
  for (int i = 0; i < m_configs->count(); ++i)
    if (m_configs->item(i)->data(kNameRole).toString() == name) m_configs->setCurrentRow(i);
}

void ProjectPage::refresh() {
  const QString keep = selectedConfig();
  m_configs->clear();
  if (!m_doc->isOpen()) {
    m_runs->clear();
    m_runsFolder.clear();
    m_scan->stop();
    m_summary->setText(
        tr("<h2>No project open</h2><p>Open a .stave file with File ▸ Open, or "
           "create one with <code>stave-train new-project</code>.</p>"));
    m_problems->clear();
    updateButtons();
    return;
  }
  m_summary->setText(tr("<h2>%1</h2><table><tr><td><b>File</b></td><td>%2</td></tr>"
                        "<tr><td><b>Dataset</b></td><td>%3</td></tr></table>")
                         .arg(m_doc->name().toHtmlEscaped(), m_doc->path().toHtmlEscaped(),
                              m_doc->datasetPath().toHtmlEscaped()));
  for (const QString& name : m_doc->configNames()) {
    auto* item =
        new QListWidgetItem(name == m_doc->activeConfig() ? tr("%1 (active)").arg(name) : name);
    item->setData(kNameRole, name);
    if (name == m_doc->activeConfig()) {
      QFont f = item->font();
      f.setBold(true);
      item->setFont(f);
    }
    m_configs->addItem(item);
  }
  selectConfig(m_doc->configNames().contains(keep) ? keep : m_doc->activeConfig());
  listRuns();
  m_problems->setText(m_doc->problems().join(QLatin1Char('\n')));
  updateButtons();
}

void ProjectPage::listRuns() {
  // Every run's results.csv is read: file work, never on the GUI thread. The list shown stays
  // until the new one is read; a listing of a project no longer open is dropped.
  const QString folder = QFileInfo(m_doc->path()).absolutePath();
  if (folder != m_runsFolder) m_runs->clear();  // another project's runs are not shown meanwhile
  m_scan->run<QList<studio::RunSummary>>([folder] { return studio::listRunSummaries(folder); },
                                         [this, folder](QList<studio::RunSummary> runs) {
                                           if (!m_doc->isOpen() || QFileInfo(m_doc->path()).absolutePath() != folder)
                                             return;
                                           m_runsFolder = folder;
                                           showRuns(runs);
                                         });
}

void ProjectPage::showRuns(const QList<studio::RunSummary>& runs) {
  m_runs->clear();
  for (const auto& run : runs) {
    if (!run.problem.isEmpty())
      m_runs->addItem(tr("%1 — %2").arg(run.id, run.problem));
    else
      m_runs->addItem(tr("%1 — %2 epoch(s), best mAP50-95 %3 (mAP50 %4)")
                          .arg(run.id)
                          .arg(run.epochs)
                          .arg(run.bestMap5095, 0, 'f', 4)
                          .arg(run.bestMap50, 0, 'f', 4));
  }
  if (m_runs->count() == 0) m_runs->addItem(tr("No runs yet."));
  emit runsListed();
}

void ProjectPage::updateButtons() {
  const bool open = m_doc->isOpen();
  const QString sel = selectedConfig();
  m_changeDataset->setEnabled(open);
  m_new->setEnabled(open);
  m_copy->setEnabled(open && !sel.isEmpty());
  m_rename->setEnabled(open && !sel.isEmpty());
  m_delete->setEnabled(open && !sel.isEmpty() && m_doc->configNames().size() > 1);
  m_activate->setEnabled(open && !sel.isEmpty() && sel != m_doc->activeConfig());
}

QString ProjectPage::askName(const QString& title, const QString& label, const QString& initial,
                             const QString& keep) {
  QString text = initial;
  QString problem;
  for (;;) {
    QInputDialog dialog(this);
    dialog.setObjectName(QStringLiteral("configNameDialog"));
    dialog.setWindowTitle(title);
    dialog.setLabelText(problem.isEmpty() ? label : problem + QLatin1Char('\n') + label);
    dialog.setTextValue(text);
    if (dialog.exec() != QDialog::Accepted) return {};
    text = dialog.textValue();
    if (!keep.isEmpty() && text == keep) return {};  // renamed to itself: nothing to do
    problem = m_doc->configNameProblem(text);
    if (problem.isEmpty()) return text;
  }
}

void ProjectPage::newConfig(bool copy) {
  const QString from = copy ? selectedConfig() : QString();
  if (copy && from.isEmpty()) return;
  QString suggestion = copy ? tr("%1 copy").arg(from) : tr("config");
  for (int i = 2; m_doc->configNames().contains(suggestion); ++i)
    suggestion = (copy ? tr("%1 copy").arg(from) : tr("config")) + QStringLiteral(" %1").arg(i);
  const QString name =
      askName(copy ? tr("Copy Config") : tr("New Config"),
              copy ? tr("Name of the copy of '%1':").arg(from)
                   : tr("Name of the new config (it starts from the defaults):"),
              suggestion);
  if (name.isEmpty()) return;
  QString error;
  if (!m_doc->addConfig(name, from, &error))
    QMessageBox::warning(this, tr("New Config"), error);
  else
    selectConfig(name);
}

void ProjectPage::renameConfig() {
  const QString from = selectedConfig();
  if (from.isEmpty()) return;
  const QString to = askName(tr("Rename Config"), tr("New name for '%1':").arg(from), from, from);
  if (to.isEmpty()) return;
  QString error;
  if (!m_doc->renameConfig(from, to, &error))
    QMessageBox::warning(this, tr("Rename Config"), error);
  else
    selectConfig(to);
}

void ProjectPage::deleteConfig() {
  const QString name = selectedConfig();
  if (name.isEmpty()) return;
  QMessageBox ask(QMessageBox::Question, tr("Delete Config"),
                  tr("Delete the config '%1' from the project?").arg(name),
                  QMessageBox::Cancel, this);
  ask.setObjectName(QStringLiteral("deleteConfigQuestion"));
  ask.setInformativeText(tr("Runs already trained with it keep their own copy (config.yaml in "
                            "the run folder). Nothing changes on disk until you save."));
  auto* del = ask.addButton(tr("Delete"), QMessageBox::DestructiveRole);
  del->setObjectName(QStringLiteral("confirmDelete"));
  ask.setDefaultButton(QMessageBox::Cancel);
  ask.exec();
  if (ask.clickedButton() != del) return;
  QString error;
  if (!m_doc->removeConfig(name, &error)) QMessageBox::warning(this, tr("Delete Config"), error);
}

void ProjectPage::activateConfig() {
  const QString name = selectedConfig();
  if (!name.isEmpty()) m_doc->setActiveConfig(name);
}

void ProjectPage::changeDataset() {
  if (!m_doc->isOpen()) return;
  const QString file = QFileDialog::getOpenFileName(
      this, tr("Choose the Project's Dataset"), QFileInfo(m_doc->datasetPath()).absolutePath(),
      tr("Dataset description (*.yaml *.yml)"));
  if (!file.isEmpty()) useDataset(file);
}

bool ProjectPage::useDataset(const QString& file) {
  QString error;
  if (m_doc->setDataset(file, &error)) return true;
  QMessageBox box(QMessageBox::Warning, tr("Change Dataset"),
                  tr("%1 cannot be the project's dataset.").arg(file), QMessageBox::Ok, this);
  box.setObjectName(QStringLiteral("datasetError"));
  box.setInformativeText(error);
  box.exec();
  return false;
}

}  // namespace stave::widgets
