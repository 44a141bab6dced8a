#include "widgets/main_window.h"

#include <QCloseEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QStackedWidget>
#include <QStatusBar>

#include "core/studio/project_document.h"
#include "widgets/config_form.h"
#include "widgets/history_page.h"
#include "widgets/project_page.h"

namespace stave::widgets {
namespace {
QWidget* placeholder(const QString& text) {
  auto* label = new QLabel(text);
  label->setAlignment(Qt::AlignCenter);
  label->setWordWrap(true);
  return label;
}
}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_doc(new studio::ProjectDocument(this)) {
  auto* central = new QWidget(this);
  auto* layout = new QHBoxLayout(central);
  m_pages = new QListWidget(central);
  m_pages->setObjectName(QStringLiteral("pageList"));
  m_pages->setFixedWidth(150);
  m_stack = new QStackedWidget(central);
  layout->addWidget(m_pages);
  layout->addWidget(m_stack, 1);
  setCentralWidget(central);

  m_form = new ConfigForm(m_doc);
  addPage(tr("Project"), new ProjectPage(m_doc));
  addPage(tr("Dataset"), placeholder(tr("The dataset browser is not built yet. Check a dataset "
                                        "with: stave-train check-dataset DATA.yaml")));
  addPage(tr("Train"), m_form);
  addPage(tr("Monitor"), placeholder(tr("Live GPU, loss and mAP charts are not built yet. A run's "
                                        "events are in runs/<id>/events.jsonl.")));
  m_history = new HistoryPage(m_doc);
  connect(m_history, &HistoryPage::message, this,
          [this](const QString& text) { statusBar()->showMessage(text, 8000); });
  addPage(tr("History"), m_history);
  connect(m_pages, &QListWidget::currentRowChanged, m_stack, &QStackedWidget::setCurrentIndex);
  m_pages->setCurrentRow(0);

  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open…"), QKeySequence::Open, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open project"), QString(),
                                                      tr("Stave projects (*.stave)"));
    if (!path.isEmpty()) openProject(path);
  });
  file->addAction(tr("&Save"), QKeySequence::Save, this, [this] { saveProject(); });
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

  connect(m_doc, &studio::ProjectDocument::dirtyChanged, this, &MainWindow::updateTitle);
  connect(m_doc, &studio::ProjectDocument::opened, this, &MainWindow::updateTitle);
  updateTitle();
  resize(1100, 720);
}

void MainWindow::addPage(const QString& name, QWidget* page) {
  m_pages->addItem(name);
  m_stack->addWidget(page);
}

void MainWindow::showPage(int index) {
  m_pages->setCurrentRow(index);
}

QStringList MainWindow::pageNames() const {
  QStringList names;
  for (int i = 0; i < m_pages->count(); ++i) names << m_pages->item(i)->text();
  return names;
}

bool MainWindow::openProject(const QString& path) {
  QString error;
  if (!m_doc->open(path, &error)) {
    statusBar()->showMessage(tr("Cannot open %1: %2").arg(path, error));
    return false;
  }
  const auto ui = m_doc->uiState();
  if (ui.contains("page") && ui["page"].is_number_integer()) showPage(ui["page"].get<int>());
  statusBar()->showMessage(tr("Opened %1").arg(path), 5000);
  return true;
}

bool MainWindow::saveProject() {
  if (!m_doc->isOpen()) return false;
  auto ui = m_doc->uiState();
  ui["page"] = m_pages->currentRow();
  m_doc->setUiState(ui);
  QString error;
  if (!m_doc->save(&error)) {
    statusBar()->showMessage(tr("Cannot save: %1").arg(error));
    return false;
  }
  statusBar()->showMessage(tr("Saved %1").arg(m_doc->path()), 5000);
  return true;
}

void MainWindow::updateTitle() {
  QString title = tr("Stave");
  if (m_doc->isOpen()) title = tr("%1 — Stave").arg(m_doc->name());
  if (m_doc->isDirty()) title.prepend(QLatin1Char('*'));
  setWindowTitle(title);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (m_doc->isDirty()) {
    const auto answer =
        QMessageBox::question(this, tr("Unsaved changes"),
                              tr("Save the changes to %1 before closing?").arg(m_doc->name()),
                              QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (answer == QMessageBox::Cancel || (answer == QMessageBox::Save && !saveProject())) {
      event->ignore();
      return;
    }
  }
  event->accept();
}

}  // namespace stave::widgets
