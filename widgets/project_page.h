#pragma once
#include <QList>
#include <QWidget>

class QLabel;
class QListWidget;
class QPushButton;

namespace stave::studio {
class BackgroundJob;
class ProjectDocument;
struct RunSummary;
}  // namespace stave::studio

namespace stave::widgets {

/// Shows the open project: its file, dataset, configs and any problems. Here the dataset is
/// changed and configs are added, copied, renamed, deleted and made active.
class ProjectPage : public QWidget {
  Q_OBJECT
 public:
  explicit ProjectPage(studio::ProjectDocument* doc, QWidget* parent = nullptr);

  /// The config selected in the list ("" when none).
  QString selectedConfig() const;
  /// Selects `name` in the list.
  void selectConfig(const QString& name);
  /// The project's runs as listed (read off the GUI thread: runsListed() says when).
  QListWidget* runList() const { return m_runs; }

 signals:
  /// The runs of the open project were read and are listed.
  void runsListed();

 public slots:
  /// Asks for a data.yaml and makes it the project's dataset.
  void changeDataset();
  /// Makes `dataYaml` the project's dataset; a dialog names the file and the reason when it
  /// cannot be (false).
  bool useDataset(const QString& dataYaml);
  /// Asks for a name and adds a config with the defaults (copy = false) or a copy of the
  /// selected one.
  void newConfig(bool copy = false);
  /// Asks for a new name for the selected config.
  void renameConfig();
  /// Asks, then deletes the selected config.
  void deleteConfig();
  /// Makes the selected config the active one.
  void activateConfig();

 private:
  void refresh();
  /// Reads the runs' folders and results.csv on m_scan; shown by showRuns.
  void listRuns();
  void showRuns(const QList<studio::RunSummary>& runs);
  void updateButtons();
  /// Asks for a config name (re-asking while it is not usable); "" when cancelled.
  QString askName(const QString& title, const QString& label, const QString& initial,
                  const QString& keep = {});
  studio::ProjectDocument* m_doc;
  QLabel* m_summary = nullptr;
  QPushButton* m_changeDataset = nullptr;
  QListWidget* m_configs = nullptr;
  QPushButton* m_new = nullptr;
  QPushButton* m_copy = nullptr;
  QPushButton* m_rename = nullptr;
  QPushButton* m_delete = nullptr;
  QPushButton* m_activate = nullptr;
  QListWidget* m_runs = nullptr;
  QLabel* m_problems = nullptr;
  studio::BackgroundJob* m_scan = nullptr;  ///< lists the runs (file work off the GUI thread)
  QString m_runsFolder;                     ///< the project folder whose runs the list shows
};

}  // namespace stave::widgets
