#pragma once
// The start screen, shown while no project is open: recent projects (with their dataset and last
// run), New project…, Open…, and Open the demo project (made on first use, as scripts/run does).
#include <QWidget>

#include <optional>

#include "core/studio/models/recent_summary.h"

class QLabel;
class QListWidget;
class QPushButton;

namespace stave::studio {
class BackgroundJob;
class DemoProjectMaker;
}

namespace stave::widgets {

class StartPage : public QWidget {
  Q_OBJECT
 public:
  explicit StartPage(QWidget* parent = nullptr);
  /// Re-reads the recent projects: the list at once, each line's dataset and last run from a
  /// background job (recentDescribed() when they are in).
  void refresh();
  /// Makes (first time) and opens the demo project in `folder` ("" = the per-user default).
  void openDemo(const QString& folder = {});
  QListWidget* recentList() const { return m_recent; }
  QLabel* statusLabel() const { return m_status; }
  studio::DemoProjectMaker* demoMaker() const { return m_maker; }

 signals:
  void openRequested(const QString& path);
  /// The recent projects' lines are filled in (after refresh()).
  void recentDescribed();
  void newRequested();
  void browseRequested();

 private:
  /// Item role: whether the project file exists (invalid until the scan has looked).
  static constexpr int kExistsRole = Qt::UserRole + 1;
  QString itemText(const QString& path,
                   const std::optional<studio::RecentProjectInfo>& info) const;

  QListWidget* m_recent = nullptr;
  QLabel* m_status = nullptr;
  QPushButton* m_demo = nullptr;
  studio::DemoProjectMaker* m_maker = nullptr;
  studio::BackgroundJob* m_scan = nullptr;
};

}  // namespace stave::widgets
