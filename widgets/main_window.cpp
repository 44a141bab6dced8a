#include "widgets/main_window.h"

#include "widgets/help_dialogs.h"

#include <QApplication>
#include <QCloseEvent>
#include <cmath>
#include <QFileDialog>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QIcon>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QProgressBar>
#include <QScreen>
#include <QTimer>
#include <algorithm>
#include <QStackedWidget>
#include <QStatusBar>

#include "core/studio/engine_text.h"
#include "core/studio/project/project_document.h"
#include "core/telemetry/hardware_names.h"
#include "core/studio/project/preferences.h"
#include "widgets/config_form.h"
#include "widgets/dataset_page.h"
#include "widgets/export_dialog.h"
#include "core/studio/run/run_queue.h"
#include "widgets/new_project_wizard.h"
#include "widgets/model_export_dialog.h"
#include "widgets/predict_dialog.h"
#include "widgets/queue_panel.h"
#include "widgets/settings_dialog.h"
#include "widgets/start_page.h"
#include "widgets/hardware_page.h"
#include "widgets/history_page.h"
#include "widgets/run_page.h"
#include "core/studio/run/run_session.h"
#include "widgets/project_page.h"

// The compiled-in icons live in a static library: initialise them explicitly.
static void initStaveResources() { Q_INIT_RESOURCE(stave); }

namespace stave::widgets {

namespace {

/// A bar of the status bar's GPU summary.
struct GpuBar {
  QString label, tip;
  double value = 0;  ///< % utilisation
};

/// The shown run's GPUs for the status bar: one bar per GPU on one node; on several, one per
/// node (its GPUs' mean) with the GPUs in its tooltip: eight GPUs a node would not fit.
std::vector<GpuBar> statusGpuBars(const RunPage& page) {
  std::vector<GpuBar> bars;
  const bool several = page.runNodes() > 1;
  std::map<int, std::pair<double, QStringList>> nodes;
  for (const auto& [gpu, value] : page.gpuUtilisation()) {
    const QString name = studio::engineText(telemetry::gpuNameText(gpu.first, gpu.second, several));
    if (!several) {
      bars.push_back({name, MainWindow::tr("%1 utilisation").arg(name), value});
      continue;
    }
    auto& [sum, lines] = nodes[gpu.first];
    sum += std::max(0.0, value);
    lines << MainWindow::tr("%1: %2%").arg(name).arg(std::lround(std::max(0.0, value)));
  }
  for (const auto& [node, n] : nodes) {
    const QString name = studio::engineText(telemetry::nodeNameText(node));
    bars.push_back({name,
                    MainWindow::tr("%1: mean GPU utilisation").arg(name) +
                        QLatin1Char('\n') + n.second.join(QLatin1Char('\n')),
                    n.first / n.second.size()});
  }
  return bars;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_doc(new studio::ProjectDocument(this)), m_sessions(new studio::RunSessions(this)) {
  initStaveResources();
  setWindowIcon(QIcon(QStringLiteral(":/icons/stave.svg")));
  buildCentralWidget();
  buildPages();
  QDockWidget* queueDock = buildQueueDock();
  connect(m_pages, &QListWidget::currentRowChanged, m_stack, &QStackedWidget::setCurrentIndex);
  m_pages->setCurrentRow(0);
  buildFileMenu(queueDock);
  buildHelpMenu();
  connectDocument();
  updateTitle();
  buildStatusBar();
  updateStatus();
  resize(1100, 720);
  const auto window = studio::WindowState::load();
  if (!window.geometry.isEmpty()) restoreGeometry(window.geometry);
  if (!window.state.isEmpty()) restoreState(window.state);
  fitOnScreen();
}

void MainWindow::buildCentralWidget() {
  // The start screen while no project is open, else the page list and the pages.
  m_top = new QStackedWidget(this);
  m_start = new StartPage(m_top);
  auto* central = new QWidget(m_top);
  m_top->addWidget(m_start);
  m_top->addWidget(central);
  auto* layout = new QHBoxLayout(central);
  m_pages = new QListWidget(central);
  m_pages->setObjectName(QStringLiteral("pageList"));
  m_pages->setFixedWidth(150);
  m_stack = new QStackedWidget(central);
  layout->addWidget(m_pages);
  layout->addWidget(m_stack, 1);
  setCentralWidget(m_top);
  connect(m_start, &StartPage::openRequested, this, [this](const QString& path) { openProject(path); });
  connect(m_start, &StartPage::newRequested, this, &MainWindow::newProject);
  connect(m_start, &StartPage::browseRequested, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open project"), QString(),
                                                      tr("Stave projects (*.stave)"));
    if (!path.isEmpty()) openProject(path);
  });
}

void MainWindow::buildPages() {
  m_form = new ConfigForm(m_doc);
  addPage(tr("Project"), new ProjectPage(m_doc), QStringLiteral("project"));
  m_dataset = new DatasetPage(m_doc);
  addPage(tr("Dataset"), m_dataset, QStringLiteral("dataset"));
  addPage(tr("Train"), m_form, QStringLiteral("train"));
  m_runPage = new RunPage(m_doc, m_sessions);
  connect(m_runPage, &RunPage::message, this,
          [this](const QString& text) { statusBar()->showMessage(text, 8000); });
  connect(m_runPage, &RunPage::statusChanged, this, &MainWindow::updateStatus);
  addPage(tr("Run"), m_runPage, QStringLiteral("run"));
  m_history = new HistoryPage(m_doc);
  connect(m_history, &HistoryPage::message, this,
          [this](const QString& text) { statusBar()->showMessage(text, 8000); });
  addPage(tr("History"), m_history, QStringLiteral("history"));
  // The machine's GPUs and topology, and the doctor's advice for the run on the Run page.
  m_hardware = new HardwarePage(m_doc);
  m_hardware->setAdvice(m_runPage->advice(), m_runPage->controller());
  connect(m_runPage, &RunPage::shownRunChanged, m_hardware,
          [this] { m_hardware->setAdvice(m_runPage->advice(), m_runPage->controller()); });
  connect(m_hardware, &HardwarePage::message, this,
          [this](const QString& text) { statusBar()->showMessage(text, 8000); });
  addPage(tr("Hardware"), m_hardware, QStringLiteral("hardware"));
  connect(m_runPage, &RunPage::detailsRequested, this, [this] {
    m_stack->setCurrentWidget(m_hardware);
    m_pages->setCurrentRow(m_stack->indexOf(m_hardware));
    m_hardware->showAdvice();
  });
}

QDockWidget* MainWindow::buildQueueDock() {
  // Runs waiting for free GPUs: a dock beside the pages, its free-GPU count in the status bar.
  m_queue = new studio::RunQueue(m_doc, m_sessions, this);
  m_queue->setHardware(m_hardware->monitor());  // one NVML sampler in the studio
  auto* queueDock = new QDockWidget(tr("Queue"), this);
  queueDock->setObjectName(QStringLiteral("queueDock"));
  m_queuePanel = new QueuePanel(m_queue, [this] {
    return std::make_pair(m_runPage->chosenConfig(), m_runPage->chosenNproc());
  });
  queueDock->setWidget(m_queuePanel);
  addDockWidget(Qt::RightDockWidgetArea, queueDock);
  queueDock->hide();  // the View menu and the first queued run show it
  connect(m_queue, &studio::RunQueue::runStarted, this, [this](const QString& runDir) {
    m_runPage->showRun(runDir);
    statusBar()->showMessage(tr("Queued run started: %1").arg(QFileInfo(runDir).fileName()), 8000);
  });
  connect(m_queue, &studio::RunQueue::message, this,
          [this](const QString& text) { statusBar()->showMessage(text, 8000); });
  connect(m_queue, &QAbstractItemModel::rowsInserted, queueDock, &QWidget::show);
  connect(m_queue, &QAbstractItemModel::modelReset, queueDock, [this, queueDock] {
    if (m_queue->pendingCount() > 0) queueDock->show();  // a reopened project's waiting runs
  });
  return queueDock;
}

void MainWindow::buildFileMenu(QDockWidget* queueDock) {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->setObjectName(QStringLiteral("fileMenu"));
  file->addAction(tr("&New Project…"), QKeySequence::New, this, &MainWindow::newProject);
  file->addAction(tr("&Open…"), QKeySequence::Open, this, [this] {
    if (!maybeSave()) return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Open project"), QString(),
                                                      tr("Stave projects (*.stave)"));
    if (!path.isEmpty()) openProject(path);
  });
  m_recentMenu = file->addMenu(tr("Open &Recent"));
  m_recentMenu->setObjectName(QStringLiteral("recentMenu"));
  connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::fillRecentMenu);
  fillRecentMenu();
  file->addSeparator();
  file->addAction(tr("&Save"), QKeySequence::Save, this, [this] { saveProject(); });
  file->addAction(tr("Save &As…"), QKeySequence::SaveAs, this, [this] {
    if (!m_doc->isOpen()) return;
    const QString path = askSaveAsPath
                             ? askSaveAsPath()
                             : QFileDialog::getSaveFileName(this, tr("Save project as"),
                                                            m_doc->path(),
                                                            tr("Stave projects (*.stave)"));
    if (!path.isEmpty()) saveProjectAs(path);
  });
  file->addAction(tr("&Close Project"), QKeySequence::Close, this, &MainWindow::closeProject);
  file->addSeparator();
  file->addAction(tr("&Export Run Config…"), QKeySequence(tr("Ctrl+E")), this, [this] {
    if (!m_doc->isOpen()) {
      statusBar()->showMessage(tr("Open a project first."), 5000);
      return;
    }
    ExportDialog dialog(m_doc, this);
    dialog.exec();
  });
  file->addAction(tr("&Predict…"), QKeySequence(tr("Ctrl+P")), this, [this] {
    if (!m_doc->isOpen()) {
      statusBar()->showMessage(tr("Open a project first."), 5000);
      return;
    }
    PredictDialog dialog(m_doc, this);
    dialog.exec();
  });
  file->addAction(tr("Export &Model…"), QKeySequence(tr("Ctrl+Shift+E")), this, [this] {
    if (!m_doc->isOpen()) {
      statusBar()->showMessage(tr("Open a project first."), 5000);
      return;
    }
    ModelExportDialog dialog(m_doc, this);
    // Float16 is checked on a GPU: not offered where the queue's probe found none.
    if (m_gpuMeasured && m_queue->lastProbe().gpus.empty()) dialog.setNoGpu(m_queue->lastProbe().problem);
    dialog.exec();
  });
  file->addSeparator();
  file->addAction(queueDock->toggleViewAction());
  queueDock->toggleViewAction()->setText(tr("Show the &Queue"));
  file->addAction(tr("Se&ttings…"), QKeySequence::Preferences, this, [this] {
    SettingsDialog dialog(this);
    if (dialog.exec() == QDialog::Accepted) m_runPage->reloadClusterProfiles();
  });
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
}

void MainWindow::buildHelpMenu() {
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->setObjectName(QStringLiteral("helpMenu"));
  help->addAction(tr("&Documentation"), QKeySequence::HelpContents, this, [this] {
    // One documentation window, kept while the studio runs (like a help viewer).
    if (!m_docs) m_docs = new DocsDialog(this);
    m_docs->show();
    m_docs->raise();
    m_docs->activateWindow();
  });
  help->addAction(tr("&Keyboard Shortcuts"), this, [this] {
    ShortcutsDialog dialog(this, this);
    dialog.exec();
  });
  help->addSeparator();
  help->addAction(tr("&About Stave"), this, [this] {
    QMessageBox box(QMessageBox::NoIcon, tr("About Stave"), aboutText(), QMessageBox::Close, this);
    box.setObjectName(QStringLiteral("aboutBox"));
    box.setIconPixmap(windowIcon().pixmap(64, 64));
    box.exec();
  });
  help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::connectDocument() {
  connect(m_doc, &studio::ProjectDocument::opened, this, [this] { m_top->setCurrentIndex(1); });
  connect(m_doc, &studio::ProjectDocument::closed, this, [this] {
    m_start->refresh();
    m_top->setCurrentIndex(0);
    updateTitle();
    updateStatus();
  });
  connect(m_doc, &studio::ProjectDocument::dirtyChanged, this, &MainWindow::updateTitle);
  connect(m_doc, &studio::ProjectDocument::opened, this, &MainWindow::updateTitle);
}

void MainWindow::buildStatusBar() {
  // The status bar: the project, the run shown on the Run page, one bar per GPU.
  m_statusRun = new QLabel(this);
  m_statusRun->setObjectName(QStringLiteral("statusRun"));
  m_statusGpus = new QWidget(this);
  m_statusGpus->setObjectName(QStringLiteral("statusGpus"));
  // As wide as its bars: with the default policy the status bar's spare width went to it and
  // was spread between the bars, leaving "node 0" and "node 1" far apart.
  m_statusGpus->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Preferred);
  auto* gpuLayout = new QHBoxLayout(m_statusGpus);
  gpuLayout->setContentsMargins(0, 0, 0, 0);
  m_statusQueue = new QLabel(this);
  m_statusQueue->setObjectName(QStringLiteral("statusQueue"));
  m_statusQueue->setContentsMargins(0, 0, 12, 0);
  m_statusQueue->setToolTip(tr("GPUs not leased by another Stave run and with little memory in use"));
  connect(m_queue, &studio::RunQueue::freeTextChanged, m_statusQueue, &QLabel::setText);
  connect(m_dataset, &DatasetPage::datasetSized, m_form, &ConfigForm::setDatasetSize);
  connect(m_queue, &studio::RunQueue::measured, this,
          [this] {
            m_gpuMeasured = true;
            m_runPage->setMachineHasGpu(!m_queue->lastProbe().gpus.empty());
          });
  statusBar()->addPermanentWidget(m_statusQueue);
  statusBar()->addPermanentWidget(m_statusRun);
  statusBar()->addPermanentWidget(m_statusGpus);
}

void MainWindow::fitOnScreen() {
  // A geometry saved on another monitor setup (a laptop undocked, a screen removed) restored
  // the window partly off-screen: bring it whole onto the screen it is mostly on.
  QScreen* screen = QGuiApplication::screenAt(geometry().center());
  if (!screen) screen = QGuiApplication::primaryScreen();
  if (!screen) return;
  const QRect avail = screen->availableGeometry();
  const QMargins frame(geometry().left() - frameGeometry().left(),
                       geometry().top() - frameGeometry().top(),
                       frameGeometry().right() - geometry().right(),
                       frameGeometry().bottom() - geometry().bottom());
  if (isMaximized() || isFullScreen()) return;  // the window manager places those
  const QRect g = studio::fitWindowOnScreen(geometry(), frame, avail, minimumSizeHint());
  if (g != geometry()) setGeometry(g);
}

bool MainWindow::event(QEvent* event) {
  // main() fits the window right after show(), but the window manager may not have framed and
  // placed it yet (no frame margins, its own placement to come): a restored width of the whole
  // screen then stayed, frame past the edge. Fit again when it is first activated, framed.
  if (event->type() == QEvent::WindowActivate && !m_fittedInFrame) {
    m_fittedInFrame = true;
    QTimer::singleShot(0, this, &MainWindow::fitOnScreen);
  }
  return QMainWindow::event(event);
}

bool MainWindow::reopenLastProject() {
  // The project that was open when the studio was closed (none when it had been closed).
  const QString last = studio::WindowState::load().openProject;
  if (last.isEmpty() || !QFileInfo::exists(last)) return false;
  return openProject(last);
}

bool MainWindow::startShown() const {
  return m_top->currentWidget() == m_start;
}

void MainWindow::newProject() {
  if (!maybeSave()) return;
  NewProjectWizard wizard(this);
  if (prepareWizard) prepareWizard(&wizard);
  if (wizard.exec() != QDialog::Accepted || wizard.createdProject().isEmpty()) return;
  openProject(wizard.createdProject());
}

void MainWindow::closeProject() {
  if (!m_doc->isOpen() || !maybeSave()) return;
  // A run keeps training on its own; reopening the project shows it again.
  if (m_runPage) m_runPage->showNoRun();
  m_doc->close();
}

bool MainWindow::maybeSave() {
  if (!m_doc->isOpen() || !m_doc->isDirty()) return true;
  const auto answer =
      askUnsaved ? askUnsaved()
                 : QMessageBox::question(this, tr("Unsaved changes"),
                                         tr("Save the changes to %1 first?").arg(m_doc->name()),
                                         QMessageBox::Save | QMessageBox::Discard |
                                             QMessageBox::Cancel);
  if (answer == QMessageBox::Cancel) return false;
  if (answer == QMessageBox::Save) return saveProject();
  return true;
}

void MainWindow::fillRecentMenu() {
  m_recentMenu->clear();
  const QStringList recent = studio::RecentProjects::list();
  for (const QString& path : recent) {
    QAction* action = m_recentMenu->addAction(QDir::toNativeSeparators(path), this, [this, path] {
      if (!maybeSave()) return;
      if (!QFileInfo::exists(path)) {
        statusBar()->showMessage(tr("%1 no longer exists; removed from the recent projects")
                                     .arg(QDir::toNativeSeparators(path)),
                                 8000);
        studio::RecentProjects::remove(path);
        return;
      }
      openProject(path);
    });
    action->setEnabled(QFileInfo::exists(path));
    if (!action->isEnabled()) action->setText(tr("%1 (not found)").arg(action->text()));
  }
  if (recent.isEmpty()) m_recentMenu->addAction(tr("No recent projects"))->setEnabled(false);
  m_recentMenu->addSeparator();
  m_recentMenu->addAction(tr("Clear the list"), this, [] { studio::RecentProjects::clear(); })
      ->setEnabled(!recent.isEmpty());
}

bool MainWindow::saveProjectAs(const QString& path) {
  QString error;
  if (!m_doc->saveAs(path, &error)) {
    statusBar()->showMessage(tr("Cannot save as %1: %2").arg(path, error));
    return false;
  }
  studio::RecentProjects::add(m_doc->path());
  statusBar()->showMessage(
      tr("Saved as %1 (earlier runs stay beside the old project file)").arg(m_doc->path()), 8000);
  return true;
}

void MainWindow::updateStatus() {
  QString text = m_doc->isOpen() ? m_doc->name() : tr("no project");
  const QString run = m_runPage ? m_runPage->statusText() : QString();
  if (!run.isEmpty()) text += QStringLiteral(" · ") + run;
  m_statusRun->setText(text);
  // The bars are the run's GPUs now: only while it runs (a finished run's last sample is not).
  const auto outcome = m_runPage ? m_runPage->controller()->outcome() : studio::RunOutcome::None;
  const bool live = outcome == studio::RunOutcome::Running || outcome == studio::RunOutcome::Starting;
  m_statusGpus->setVisible(live);
  if (!live) return;
  const auto util = statusGpuBars(*m_runPage);
  auto* layout = static_cast<QHBoxLayout*>(m_statusGpus->layout());
  const int want = util.empty() ? 1 : static_cast<int>(util.size());
  while (layout->count() > want) delete layout->takeAt(0)->widget();
  while (layout->count() < want) {
    auto* bar = new QProgressBar(m_statusGpus);
    bar->setRange(0, 100);
    bar->setMaximumHeight(16);
    layout->addWidget(bar);
  }
  // Wide enough for the text at 100% with a margin each side: a fixed 90 px cut "node 0: 90%"
  // at both edges. Sized for 100% so that the bar does not change width as the value moves.
  const auto fitText = [](QProgressBar* bar, const QString& format) {
    bar->setFormat(format);
    QString widest = format;
    widest.replace(QLatin1String("%p"), QLatin1String("100"));
    bar->setFixedWidth(std::max(90, bar->fontMetrics().horizontalAdvance(widest) + 16));
  };
  if (util.empty()) {
    auto* bar = static_cast<QProgressBar*>(layout->itemAt(0)->widget());
    bar->setValue(0);
    fitText(bar, tr("CPU only"));
    bar->setToolTip(tr("No GPU samples in this run"));
    return;
  }
  int i = 0;
  for (const auto& gpu : util) {
    auto* bar = static_cast<QProgressBar*>(layout->itemAt(i++)->widget());
    bar->setValue(static_cast<int>(std::lround(std::max(0.0, gpu.value))));
    fitText(bar, MainWindow::tr("%1: %p%").arg(gpu.label));
    bar->setToolTip(gpu.tip);
  }
}

void MainWindow::addPage(const QString& name, QWidget* page, const QString& icon) {
  m_pages->addItem(new QListWidgetItem(QIcon(QStringLiteral(":/icons/%1.svg").arg(icon)), name));
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
  // An empty name (`stave ""`, a script's unset variable) is said as such: loading it would
  // name the current folder ("cannot open .").
  const bool named = !path.trimmed().isEmpty();
  if (!named) error = tr("No project file was named: give a project file (.stave), or use File ▸ Open….");
  if (!named || !m_doc->open(path, &error)) {
    // A dialog, not the status bar (where a long reason was cut off behind the hardware
    // summary): the file and the whole reason, with its line and key. Not modal to the event
    // loop (open(), not exec()): the caller goes on.
    auto* box = new QMessageBox(
        QMessageBox::Warning, tr("Cannot open the project"),
        named ? tr("Stave cannot open %1.").arg(QDir::toNativeSeparators(path))
              : tr("Stave cannot open a project without a file name."),
        QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("openProjectError"));
    box->setInformativeText(error);
    box->setTextInteractionFlags(Qt::TextSelectableByMouse);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    if (named) statusBar()->showMessage(tr("Cannot open %1").arg(QFileInfo(path).fileName()), 8000);
    return false;
  }
  const auto ui = m_doc->uiState();
  if (ui.contains("page") && ui["page"].is_number_integer()) showPage(ui["page"].get<int>());
  studio::RecentProjects::add(path);
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

std::unique_ptr<QMessageBox> MainWindow::closeQuestion(const QString& runId) {
  auto box = std::make_unique<QMessageBox>(
      QMessageBox::Question, tr("A run is training"),
      tr("%1 is still training. Keep it training in the background (reopen the project to "
         "watch it again), or stop it?")
          .arg(runId),
      QMessageBox::NoButton, this);
  auto* keep = box->addButton(tr("Keep Training"), QMessageBox::AcceptRole);
  keep->setObjectName(QStringLiteral("keepTraining"));
  box->addButton(tr("Stop the Run"), QMessageBox::DestructiveRole)
      ->setObjectName(QStringLiteral("stopRun"));
  box->addButton(QMessageBox::Cancel);
  box->setDefaultButton(keep);
  return box;
}

int MainWindow::closeAnswer(const QMessageBox& box) {
  const QAbstractButton* clicked = box.clickedButton();
  if (!clicked) return QMessageBox::Cancel;  // closed with Escape or the title bar
  if (clicked->objectName() == QLatin1String("keepTraining")) return QMessageBox::Yes;
  if (clicked->objectName() == QLatin1String("stopRun")) return QMessageBox::No;
  return QMessageBox::Cancel;
}

void MainWindow::closeEvent(QCloseEvent* event) {
  // The geometry the user left the window in: stopping the run below updates the pages while
  // the window closes, and a size they grew it to for that moment is not the one to restore.
  const QByteArray geometry = saveGeometry();
  if (m_runPage && m_runPage->controller()->isLive()) {
    // The run lives in its own session: closing the window never stops it by itself.
    int answer = QMessageBox::Cancel;
    if (askOnClose) {
      answer = askOnClose();
    } else {
      auto box = closeQuestion(m_runPage->controller()->runId());
      box->exec();
      answer = closeAnswer(*box);
    }
    if (answer == QMessageBox::Cancel) {
      event->ignore();
      return;
    }
    if (answer == QMessageBox::No) m_runPage->stopRun();
  }
  if (!maybeSave()) {
    event->ignore();
    return;
  }
  studio::WindowState{geometry, saveState(), m_doc->isOpen() ? m_doc->path() : QString()}
      .save();
  event->accept();
}

}  // namespace stave::widgets
