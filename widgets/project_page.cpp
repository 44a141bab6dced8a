#include "widgets/project_page.h"

#include <QFormLayout>
#include <QLabel>
#include <QListWidget>
#include <QVBoxLayout>

#include "core/studio/project_document.h"

namespace stave::widgets {

ProjectPage::ProjectPage(studio::ProjectDocument* doc, QWidget* parent)
    : QWidget(parent), m_doc(doc) {
  auto* layout = new QVBoxLayout(this);
  m_summary = new QLabel(this);
  m_summary->setTextFormat(Qt::RichText);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_summary->setObjectName(QStringLiteral("projectSummary"));
  layout->addWidget(m_summary);
  layout->addWidget(new QLabel(tr("Run configs (the active one is marked):"), this));
  m_configs = new QListWidget(this);
  m_configs->setObjectName(QStringLiteral("projectConfigs"));
  m_configs->setMaximumHeight(120);
  layout->addWidget(m_configs);
  layout->addWidget(new QLabel(tr("Runs (runs/ beside the project, newest first):"), this));
  m_runs = new QListWidget(this);
  m_runs->setObjectName(QStringLiteral("projectRuns"));
  layout->addWidget(m_runs, 2);
  m_problems = new QLabel(this);
  m_problems->setObjectName(QStringLiteral("projectProblems"));
  m_problems->setStyleSheet(QStringLiteral("color: #b00020"));
  m_problems->setWordWrap(true);
  layout->addWidget(m_problems);
  connect(doc, &studio::ProjectDocument::opened, this, &ProjectPage::refresh);
  connect(doc, &studio::ProjectDocument::configsChanged, this, &ProjectPage::refresh);
  refresh();
}

void ProjectPage::refresh() {
  if (!m_doc->isOpen()) {
    m_summary->setText(
        tr("<h2>No project open</h2><p>Open a .stave file with File ▸ Open, or "
           "create one with <code>stave-train new-project</code>.</p>"));
    m_configs->clear();
    m_runs->clear();
    m_problems->clear();
    return;
  }
  m_summary->setText(tr("<h2>%1</h2><table><tr><td><b>File</b></td><td>%2</td></tr>"
                        "<tr><td><b>Dataset</b></td><td>%3</td></tr></table>")
                         .arg(m_doc->name().toHtmlEscaped(), m_doc->path().toHtmlEscaped(),
                              m_doc->datasetPath().toHtmlEscaped()));
  m_configs->clear();
  for (const QString& name : m_doc->configNames()) {
    auto* item =
        new QListWidgetItem(name == m_doc->activeConfig() ? tr("%1 (active)").arg(name) : name);
    m_configs->addItem(item);
  }
  m_runs->clear();
  for (const auto& run : m_doc->runs()) {
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
  m_problems->setText(m_doc->problems().join(QLatin1Char('\n')));
}

}  // namespace stave::widgets
