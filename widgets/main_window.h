#pragma once
#include <QMainWindow>
#include <functional>
#include <memory>

class QDockWidget;
class QLabel;
class QListWidget;
class QMenu;
class QMessageBox;
class QStackedWidget;

namespace stave::studio {
class ProjectDocument;
class RunQueue;
class RunSessions;
}

namespace stave::widgets {

class ConfigForm;
class DatasetPage;
class DocsDialog;
class NewProjectWizard;
class QueuePanel;
class StartPage;
class HardwarePage;
class HistoryPage;
class RunPage;

/// The studio's main window: a page list on the left, the selected page on the right, and the
/// open project's file menu.
class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  /// Opens a project file; returns false (and shows why in the status bar) when it cannot.
  bool openProject(const QString& path);
  /// Saves the open project; false (with the reason in the status bar) when it cannot.
  bool saveProject();
  /// Saves the open project under a new path and continues there (runs stay beside the old one).
  bool saveProjectAs(const QString& path);
  /// File > New Project…: the wizard, then opens what it made.
  void newProject();
  /// File > Close Project: back to the start screen (a run keeps training).
  void closeProject();
  /// Asks whether to save unsaved changes; false when the user cancels (or saving fails).
  bool maybeSave();
  /// The names of the pages, in order.
  QStringList pageNames() const;
  /// Shows page `index`.
  void showPage(int index);
  /// Opens the project that was open when the studio was last closed, when its file still
  /// exists; false when there was none or it cannot be opened (then the reason was shown).
  bool reopenLastProject();
  /// Moves and, if need be, shrinks the window so all of it is on a screen.
  void fitOnScreen();
  studio::ProjectDocument* document() const { return m_doc; }
  /// The followed runs (one session, one reader per run folder).
  studio::RunSessions* sessions() const { return m_sessions; }
  ConfigForm* configForm() const { return m_form; }
  HistoryPage* historyPage() const { return m_history; }
  RunPage* runPage() const { return m_runPage; }
  HardwarePage* hardwarePage() const { return m_hardware; }
  /// Replaces the close question while a run trains (tests): Yes keeps it training, No stops
  /// it, Cancel keeps the window.
  std::function<int()> askOnClose;
  /// The close question while run `runId` trains, its buttons saying what they do: "Keep
  /// Training" (Yes), "Stop the Run" (No), Cancel. exec() answers with closeAnswer().
  std::unique_ptr<QMessageBox> closeQuestion(const QString& runId);
  /// Yes, No or Cancel for the button clicked in a closeQuestion() box.
  static int closeAnswer(const QMessageBox& box);
  /// Replaces the unsaved-changes question (tests): QMessageBox::Save, Discard or Cancel.
  std::function<int()> askUnsaved;
  /// Replaces the Save As file dialog (tests): the chosen path, "" = cancelled.
  std::function<QString()> askSaveAsPath;
  /// Called with the new-project wizard before it runs (tests drive it from here).
  std::function<void(NewProjectWizard*)> prepareWizard;
  StartPage* startPage() const { return m_start; }
  DatasetPage* datasetPage() const { return m_dataset; }
  studio::RunQueue* queue() const { return m_queue; }
  QueuePanel* queuePanel() const { return m_queuePanel; }
  /// True while the start screen is shown (no project open).
  bool startShown() const;

 protected:
  void closeEvent(QCloseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  /// The constructor's parts, in the order it runs them.
  void buildCentralWidget();
  void buildPages();
  QDockWidget* buildQueueDock();
  void buildFileMenu(QDockWidget* queueDock);
  void buildHelpMenu();
  void connectDocument();
  void buildStatusBar();
  void addPage(const QString& name, QWidget* page, const QString& icon);
  void updateTitle();
  void fillRecentMenu();
  QMenu* m_recentMenu = nullptr;
  DocsDialog* m_docs = nullptr;
  QStackedWidget* m_top = nullptr;
  StartPage* m_start = nullptr;
  DatasetPage* m_dataset = nullptr;
  studio::RunQueue* m_queue = nullptr;
  bool m_fittedInFrame = false;  ///< fitted once the window manager had framed the window
  bool m_gpuMeasured = false;  ///< the queue has probed this machine's GPUs at least once
  QueuePanel* m_queuePanel = nullptr;
  QLabel* m_statusQueue = nullptr;
  studio::ProjectDocument* m_doc;
  /// The studio's followed runs, one session per run folder (the Run page's and the queue's).
  studio::RunSessions* m_sessions;
  QListWidget* m_pages = nullptr;
  QStackedWidget* m_stack = nullptr;
  ConfigForm* m_form = nullptr;
  HistoryPage* m_history = nullptr;
  RunPage* m_runPage = nullptr;
  HardwarePage* m_hardware = nullptr;
  QLabel* m_statusRun = nullptr;
  QWidget* m_statusGpus = nullptr;
  void updateStatus();
};

}  // namespace stave::widgets
