#pragma once
// The start screen, shown while no project is open: recent projects (with their dataset and last
// run), New project…, Open…, and Open the demo project (made on first use, as scripts/run does).
#include <QWidget>

class QLabel;
class QListWidget;
class QPushButton;

namespace stave::studio {
class DemoProjectMaker;
}

namespace stave::widgets {

class StartPage : public QWidget {
  Q_OBJECT
 public:
  explicit StartPage(QWidget* parent = nullptr);
  /// Re-reads the recent projects.
  void refresh();
  /// Makes (first time) and opens the demo project in `folder` ("" = the per-user default).
  void openDemo(const QString& folder = {});
  QListWidget* recentList() const { return m_recent; }
  QLabel* statusLabel() const { return m_status; }
  studio::DemoProjectMaker* demoMaker() const { return m_maker; }

 signals:
  void openRequested(const QString& path);
  void newRequested();
  void browseRequested();

 private:
  QListWidget* m_recent = nullptr;
  QLabel* m_status = nullptr;
  QPushButton* m_demo = nullptr;
  studio::DemoProjectMaker* m_maker = nullptr;
};

/// A line about a project for the start screen: its dataset and its newest run (reads only the
/// project file and the newest runs/<id>/results.csv).
QString projectSummary(const QString& projectFile);

}  // namespace stave::widgets
