#pragma once
#include <QMainWindow>

class QListWidget;
class QStackedWidget;

namespace stave::widgets {

/// The studio's main window: a page list on the left, the selected page on the right.
class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  /// Opens a project file; returns false (and shows why in the status bar) when it cannot.
  bool openProject(const QString& path);
  /// The names of the pages, in order.
  QStringList pageNames() const;

 private:
  void addPage(const QString& name, QWidget* page);
  QListWidget* m_pages = nullptr;
  QStackedWidget* m_stack = nullptr;
  QString m_projectPath;
};

}  // namespace stave::widgets
