#pragma once
#include <QWidget>

class QLabel;
class QListWidget;

namespace stave::studio {
class ProjectDocument;
}

namespace stave::widgets {

/// Shows the open project: its file, dataset, configs and any problems.
class ProjectPage : public QWidget {
  Q_OBJECT
 public:
  explicit ProjectPage(studio::ProjectDocument* doc, QWidget* parent = nullptr);

 private:
  void refresh();
  studio::ProjectDocument* m_doc;
  QLabel* m_summary = nullptr;
  QListWidget* m_configs = nullptr;
  QListWidget* m_runs = nullptr;
  QLabel* m_problems = nullptr;
};

}  // namespace stave::widgets
