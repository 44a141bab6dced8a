#pragma once
// Predict…: a checkpoint of the project (best.pt / last.pt of a run, or any file) on images or a
// folder, run by `stave-train predict` in the background; the results drawn with their boxes,
// filtered live by a confidence slider and per-class toggles; annotated images saved on request.
#include <QDialog>
#include <QMap>
#include <functional>

#include "core/studio/predict_job.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSlider;

namespace stave::studio {
class ProjectDocument;
}

namespace stave::widgets {

class PredictDialog : public QDialog {
  Q_OBJECT
 public:
  explicit PredictDialog(studio::ProjectDocument* doc, QWidget* parent = nullptr);
  studio::PredictJob* job() const { return m_job; }
  QComboBox* checkpointBox() const { return m_weights; }
  QLineEdit* sourceEdit() const { return m_source; }
  QSlider* confidenceSlider() const { return m_conf; }
  QListWidget* classList() const { return m_classes; }
  QListWidget* imageList() const { return m_images; }
  QLabel* statusLabel() const { return m_status; }
  /// Starts the prediction; false with the reason in the status line.
  bool run();
  /// The boxes shown for `image` now (confidence and class filters applied).
  QVector<studio::Detection> visible(const QString& image) const;
  /// Writes every result image with its visible boxes into `folder`; the number written.
  int saveAnnotated(const QString& folder, QString* error = nullptr);
  /// Draws `image` with its visible boxes (null when it cannot be read).
  QImage annotated(const QString& image) const;

 private:
  void finished();
  void showImage();
  studio::ProjectDocument* m_doc;
  studio::PredictJob* m_job;
  QStringList m_names;
  QComboBox* m_weights = nullptr;
  QLineEdit* m_source = nullptr;
  QPushButton* m_run = nullptr;
  QPushButton* m_cancel = nullptr;
  QPushButton* m_save = nullptr;
  QSlider* m_conf = nullptr;
  QLabel* m_confLabel = nullptr;
  QListWidget* m_classes = nullptr;
  QListWidget* m_images = nullptr;
  QLabel* m_view = nullptr;
  QLabel* m_status = nullptr;
};

}  // namespace stave::widgets
