#include "widgets/main_window.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QStackedWidget>
#include <QStatusBar>

namespace stave::widgets {
namespace {
QWidget* placeholder(const QString& text) {
  auto* label = new QLabel(text);
  label->setAlignment(Qt::AlignCenter);
  label->setWordWrap(true);
  return label;
}
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("Stave"));
  auto* central = new QWidget(this);
  auto* layout = new QHBoxLayout(central);
  m_pages = new QListWidget(central);
  m_pages->setFixedWidth(160);
  m_stack = new QStackedWidget(central);
  layout->addWidget(m_pages);
  layout->addWidget(m_stack, 1);
  setCentralWidget(central);
  addPage(tr("Project"), placeholder(tr("No project open.")));
  addPage(tr("Dataset"), placeholder(tr("The dataset page arrives with the data pipeline.")));
  addPage(tr("Train"), placeholder(tr("The training form arrives with the trainer.")));
  addPage(tr("Monitor"), placeholder(tr("Live GPU and loss charts arrive with the trainer.")));
  addPage(tr("History"), placeholder(tr("The experiment history arrives with the store.")));
  connect(m_pages, &QListWidget::currentRowChanged, m_stack, &QStackedWidget::setCurrentIndex);
  m_pages->setCurrentRow(0);
  resize(1100, 700);
}

void MainWindow::addPage(const QString& name, QWidget* page) {
  m_pages->addItem(name);
  m_stack->addWidget(page);
}

QStringList MainWindow::pageNames() const {
  QStringList names;
  for (int i = 0; i < m_pages->count(); ++i) names << m_pages->item(i)->text();
  return names;
}

bool MainWindow::openProject(const QString& path) {
  if (!QFileInfo::exists(path)) {
    statusBar()->showMessage(tr("Project file not found: %1").arg(path));
    return false;
  }
  m_projectPath = path;
  setWindowTitle(tr("Stave — %1").arg(QFileInfo(path).completeBaseName()));
  return true;
}

}  // namespace stave::widgets
