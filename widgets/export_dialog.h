#pragma once
// Export…: a config of the open project in every format of `stave-train export` (YAML, JSON,
// Ultralytics args.yaml, shell, Slurm, Kubeflow PyTorchJob), with the cluster options of the
// formats that use them, a live preview of the exact text, Copy and Save As… (atomic). The text
// comes from config::exportProjectConfig, the function the CLI uses, so both write the same bytes.
#include <QDialog>
#include <functional>

#include "core/config/export.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QVBoxLayout;

namespace stave::studio {
class ProjectDocument;
}

namespace stave::widgets {

class ExportDialog : public QDialog {
  Q_OBJECT
 public:
  explicit ExportDialog(studio::ProjectDocument* doc, QWidget* parent = nullptr);

  /// Chooses the config and format shown.
  void setConfig(const QString& name);
  void setFormat(config::ExportFormat format);
  /// The cluster options as edited.
  config::ExportOptions options() const;
  /// The previewed text ("" when the export fails; problems() says why).
  QString text() const;
  /// Why the export fails, one error per line ("" when it works).
  QString problems() const;
  /// Writes the text to `path` (atomically; scripts executable). False with the reason shown.
  bool saveTo(const QString& path);
  /// Replaces the Save As file dialog (tests): returns the chosen path, "" = cancelled.
  std::function<QString(const QString& suggestion)> askSavePath;

  QComboBox* formatBox() const { return m_format; }
  QSpinBox* nodesBox() const { return m_nodes; }
  QLineEdit* timeEdit() const { return m_time; }
  QLineEdit* imageEdit() const { return m_image; }

 private:
  /// The constructor's parts: the config and format rows, the cluster options.
  void buildChoiceForm(QVBoxLayout* layout);
  void buildClusterBox(QVBoxLayout* layout);
  void refresh();
  void saveAs();
  studio::ProjectDocument* m_doc;
  QComboBox* m_config = nullptr;
  QComboBox* m_format = nullptr;
  QWidget* m_clusterBox = nullptr;
  QSpinBox* m_nodes = nullptr;
  QSpinBox* m_gpus = nullptr;
  QSpinBox* m_cpus = nullptr;
  QLineEdit* m_time = nullptr;
  QLineEdit* m_partition = nullptr;
  QLineEdit* m_account = nullptr;
  QLineEdit* m_image = nullptr;
  QLineEdit* m_jobName = nullptr;
  QPlainTextEdit* m_preview = nullptr;
  QLabel* m_problem = nullptr;
  QPushButton* m_save = nullptr;
  QPushButton* m_copy = nullptr;
  QString m_text;
  QString m_problems;
};

}  // namespace stave::widgets
