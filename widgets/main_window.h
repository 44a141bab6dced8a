#pragma once
#include <QMainWindow>

class QListWidget;
class QStackedWidget;

namespace stave::studio {
class ProjectDocument;
}

namespace stave::widgets {

class ConfigForm;
class HistoryPage;

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
  /// The names of the pages, in order.
  QStringList pageNames() const;
  /// Shows page `index`.
  void showPage(int index);
  studio::ProjectDocument* document() const { return m_doc; }
  ConfigForm* configForm() const { return m_form; }
  HistoryPage* historyPage() const { return m_history; }

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void addPage(const QString& name, QWidget* page);
  void updateTitle();
  studio::ProjectDocument* m_doc;
  QListWidget* m_pages = nullptr;
  QStackedWidget* m_stack = nullptr;
  ConfigForm* m_form = nullptr;
  HistoryPage* m_history = nullptr;
};

}  // namespace stave::widgets
