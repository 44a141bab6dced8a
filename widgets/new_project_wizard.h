#pragma once
// New project wizard: name and folder; the dataset as a data.yaml, an images folder with YOLO
// labels (the wizard asks for the class names and writes the data.yaml), or an Ultralytics
// args.yaml to import; the dataset is checked in the background before the project is made,
// and its problems are shown, with settings proposed for the machine and what the training
// starts from: a network with random weights, or a checkpoint (.pt, Stave's or Ultralytics':
// yolo11n.pt). Finish creates the project (config::createProject).
#include <QWizard>

#include "core/studio/project/settings_proposal.h"

#include "core/studio/project/new_project.h"

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;

namespace stave::studio {
class BackgroundJob;
}

namespace stave::widgets {

class NewProjectWizard : public QWizard {
  Q_OBJECT
 public:
  enum Source { DataYaml = 0, ImagesFolder = 1, UltralyticsArgs = 2 };
  explicit NewProjectWizard(QWidget* parent = nullptr);

  /// The created project file ("" until Finish succeeded).
  QString createdProject() const { return m_created; }
  /// Fields by name, for tests: "name", "folder", "path", "classes".
  QLineEdit* field(const QString& name) const;
  void setSource(Source source);
  Source source() const;
  /// The check page's text and whether the dataset is usable (after the check finished).
  QString checkText() const;
  bool checkFinished() const { return m_checkDone; }
  bool datasetUsable() const { return m_checkDone && m_checkCode < 2; }
  /// The data.yaml the project will use (written for an images folder on entering the check).
  QString datasetFile() const { return m_dataYaml; }
  /// The settings proposed for this machine and dataset (key=value), shown after the check;
  /// the project's config "default" gets them while "Use them" is ticked. Empty when an
  /// Ultralytics args.yaml gives the settings.
  QStringList proposedSettings() const;
  /// What the training starts from ("Start from" on the last page): a network with random
  /// weights, or a checkpoint file. Not asked for an Ultralytics args.yaml (its model is kept).
  enum StartFrom { StartNetwork = 0, StartCheckpoint = 1 };
  /// Chooses a network (yolov8n..x, yolo11n..x), from random weights.
  void setStartNetwork(const QString& name);
  /// Chooses a checkpoint file to start from (its network and weights).
  void setStartCheckpoint(const QString& path);
  StartFrom startFrom() const;
  /// The project's `model` as Finish will write it: the network's name, or the checkpoint's
  /// path as typed ("" for an args.yaml import).
  QString startFromSetting() const;
  /// The problem shown under "Start from" ("" = none).
  QString startProblem() const;
  /// The machine the proposals are for (tests set one; default: this machine, probed).
  void setMachine(const studio::MachineShape& machine) { m_machine = machine; m_machineSet = true; }

  bool validateCurrentPage() override;
  int nextId() const override;

 private:
  enum Page { NamePage, DatasetPage, ClassesPage, CheckPage };
  /// The four pages, each built and added with setPage().
  void buildNamePage();
  void buildDatasetPage();
  void buildClassesPage();
  void buildCheckPage();
  QGroupBox* buildStartFrom(QWidget* page);
  void startCheck();
  void showProposals(const studio::MachineShape& machine, const studio::DatasetCheckResult& check);
  void inspectFolder();
  QLineEdit* m_name = nullptr;
  QLineEdit* m_folder = nullptr;
  QButtonGroup* m_source = nullptr;
  QLineEdit* m_path = nullptr;
  QLabel* m_pathHint = nullptr;
  QLabel* m_datasetProblem = nullptr;
  QLabel* m_folderInfo = nullptr;
  QLineEdit* m_classes = nullptr;
  QLabel* m_classesProblem = nullptr;
  QProgressBar* m_busy = nullptr;
  QPlainTextEdit* m_check = nullptr;
  QLabel* m_verdict = nullptr;
  QLabel* m_proposal = nullptr;
  QCheckBox* m_useProposal = nullptr;
  QGroupBox* m_startBox = nullptr;
  QButtonGroup* m_start = nullptr;
  QComboBox* m_network = nullptr;
  bool m_networkChosen = false;  // by the user: the proposal no longer replaces it
  QLabel* m_networkWhy = nullptr;
  QLineEdit* m_startFile = nullptr;
  QLabel* m_startProblem = nullptr;
  QList<studio::SettingProposal> m_proposals;
  studio::MachineShape m_machine;
  bool m_machineSet = false;
  studio::BackgroundJob* m_job = nullptr;
  studio::ImagesFolder m_images;
  bool m_inspected = false;
  QString m_dataYaml;
  QString m_created;
  bool m_checkDone = false;
  int m_checkCode = 2;
};

}  // namespace stave::widgets
