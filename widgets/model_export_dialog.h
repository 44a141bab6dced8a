#pragma once
// File ▸ Export Model…: a checkpoint of the project as ONNX (for ONNX Runtime, TensorRT,
// OpenVINO), as Ultralytics' checkpoint, or as a Stave checkpoint without optimiser state, by
// `stave-train export-weights` in the background. The ONNX settings (input size, batch or
// dynamic shapes, opset, float16) show only for ONNX; the result's path and stave-train's
// check summary are shown when it is written, its error when not.
#include <QDialog>

class QCheckBox;
class QComboBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QVBoxLayout;

namespace stave::studio {
class ModelExportJob;
class ProjectDocument;
struct ModelExportOptions;
}  // namespace stave::studio

namespace stave::widgets {

class CheckpointField;

class ModelExportDialog : public QDialog {
  Q_OBJECT
 public:
  explicit ModelExportDialog(studio::ProjectDocument* doc, QWidget* parent = nullptr);
  studio::ModelExportJob* job() const { return m_job; }
  QComboBox* checkpointBox() const { return m_weights; }
  QComboBox* formatBox() const { return m_format; }
  QLineEdit* outputEdit() const { return m_out; }
  QGroupBox* onnxGroup() const { return m_onnx; }
  QSpinBox* imgszBox() const { return m_imgsz; }
  QSpinBox* batchBox() const { return m_batch; }
  QCheckBox* dynamicBox() const { return m_dynamic; }
  QSpinBox* opsetBox() const { return m_opset; }
  QCheckBox* halfBox() const { return m_half; }
  QCheckBox* replaceBox() const { return m_replace; }
  QLabel* resultLabel() const { return m_result; }
  /// The studio knows this machine has no GPU (`reason`: why, as its hardware probe says):
  /// float16, which is checked on a GPU before it is written, is unticked and disabled.
  void setNoGpu(const QString& reason);
  /// The options the form holds now.
  studio::ModelExportOptions options() const;
  /// Starts the export (a remote run's checkpoint is fetched first, its progress in the result
  /// line); false with the reason in the result line.
  bool exportModel();

 private:
  /// The constructor's parts: the checkpoint and format rows, the ONNX settings group, the
  /// output file row with its Replace box (its Save As… button returned for the connection).
  void buildSourceForm(QVBoxLayout* layout);
  void buildOnnxGroup(QVBoxLayout* layout);
  QPushButton* buildOutputForm(QVBoxLayout* layout);
  void formatChanged();
  void finished();
  studio::ProjectDocument* m_doc;
  studio::ModelExportJob* m_job;
  CheckpointField* m_field = nullptr;  ///< fetches a remote run's checkpoint first
  QComboBox* m_weights = nullptr;
  QComboBox* m_format = nullptr;
  QLineEdit* m_out = nullptr;
  QGroupBox* m_onnx = nullptr;
  QSpinBox* m_imgsz = nullptr;
  QSpinBox* m_batch = nullptr;
  QCheckBox* m_dynamic = nullptr;
  QSpinBox* m_opset = nullptr;
  QCheckBox* m_half = nullptr;
  QCheckBox* m_replace = nullptr;
  QPushButton* m_export = nullptr;
  QPushButton* m_cancel = nullptr;
  QLabel* m_result = nullptr;
  QString m_autoOut;  ///< the output filled in for the checkpoint and format (not typed)
};

}  // namespace stave::widgets
