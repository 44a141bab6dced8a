#pragma once
// Predict…: a checkpoint of the project (best.pt / last.pt of a run, or any file) on an image or
// a folder, run by `stave-train predict` in the background; the results drawn with their boxes
// and the checkpoint's class names, filtered live by a confidence slider and per-class toggles
// (no second run); annotated images saved on request, off the GUI thread.
#include <QDialog>
#include <QImage>
#include <QMap>
#include <utility>

#include "core/studio/run/predict_job.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSlider;
class QSpinBox;
class QVBoxLayout;

namespace stave::studio {
class BackgroundJob;
class ProjectDocument;
}  // namespace stave::studio

namespace stave::widgets {

class CheckpointField;

class PredictDialog : public QDialog {
  Q_OBJECT
 public:
  explicit PredictDialog(studio::ProjectDocument* doc, QWidget* parent = nullptr);
  ~PredictDialog() override;
  studio::PredictJob* job() const { return m_job; }
  QComboBox* checkpointBox() const { return m_weights; }
  QLineEdit* sourceEdit() const { return m_source; }
  QSlider* confidenceSlider() const { return m_conf; }
  QDoubleSpinBox* iouBox() const { return m_iou; }
  QSpinBox* imgszBox() const { return m_imgsz; }
  QListWidget* classList() const { return m_classes; }
  QListWidget* imageList() const { return m_images; }
  QLabel* statusLabel() const { return m_status; }
  /// Where the next run writes (the CLI's runs/detect/predict, predict2, ... rule).
  QString nextOutDir() const;
  /// Starts the prediction; false with the reason in the status line.
  bool run();
  /// The boxes shown for `image` now (confidence and class filters applied).
  QVector<studio::Detection> visible(const QString& image) const;
  /// The class names the boxes are labelled with: the checkpoint's after a run, the project's
  /// dataset's before.
  QStringList classNames() const { return m_names; }
  /// Writes every result image with its visible boxes into `folder` (PNG, each atomically,
  /// subfolders of a folder source kept); the number written. Runs on the calling thread.
  int saveAnnotated(const QString& folder, QString* error = nullptr);
  /// Draws `image` at full size with its visible boxes (null when it cannot be read).
  QImage annotated(const QString& image) const;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  /// The constructor's parts, in order: the checkpoint, images, options and output rows (the
  /// two browse buttons returned for connectSignals()), the run/cancel/confidence/save row with
  /// the status line, the image and class lists beside the view, then the connections.
  std::pair<QPushButton*, QPushButton*> buildInputForm(QVBoxLayout* layout);
  void buildActions(QVBoxLayout* layout);
  void buildResultsView(QVBoxLayout* layout);
  void connectSignals(QPushButton* browseImages, QPushButton* browseFolder);
  void finished();
  void showImage();
  void setClassNames(const QStringList& names);
  studio::ProjectDocument* m_doc;
  studio::PredictJob* m_job;
  studio::BackgroundJob* m_saver;
  QStringList m_names, m_projectNames;
  QComboBox* m_weights = nullptr;
  CheckpointField* m_field = nullptr;  ///< fetches a remote run's checkpoint first
  QLineEdit* m_source = nullptr;
  QDoubleSpinBox* m_iou = nullptr;
  QSpinBox* m_imgsz = nullptr;
  QLabel* m_outLabel = nullptr;
  QPushButton* m_run = nullptr;
  QPushButton* m_cancel = nullptr;
  QPushButton* m_save = nullptr;
  QSlider* m_conf = nullptr;
  QLabel* m_confLabel = nullptr;
  QListWidget* m_classes = nullptr;
  QListWidget* m_images = nullptr;
  QLabel* m_view = nullptr;
  QLabel* m_status = nullptr;
  // The image shown, decoded once and scaled to the view (the filters only redraw its boxes).
  QString m_shownPath;
  QImage m_shownFull, m_shownScaled;
  QSize m_shownViewSize;
  double m_shownScale = 1;
};

}  // namespace stave::widgets
