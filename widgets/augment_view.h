#pragma once
// "Show augmentation": a training batch rendered by the real loader with the project's active
// config (mosaic, HSV, flips, scale, ...) on a worker thread, drawn as a grid of images with
// their target boxes; "Another batch" draws the next one.
#include <QStringList>
#include <QWidget>
#include <memory>

#include "core/studio/models/augment_preview.h"

class QLabel;
class QPushButton;

namespace stave::studio {
class BackgroundJob;
class ProjectDocument;
}  // namespace stave::studio

namespace stave::widgets {

/// The batch as a grid: each image scaled to its cell with its boxes.
class BatchGrid : public QWidget {
  Q_OBJECT
 public:
  explicit BatchGrid(QWidget* parent = nullptr);
  void setBatch(const studio::AugmentPreview& preview, const QStringList& names);
  int imageCount() const { return m_images.size(); }
  QSize sizeHint() const override { return {800, 600}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QVector<QImage> m_images;
  QVector<QVector<studio::AugmentPreview::Box>> m_boxes;
  QStringList m_names;
};

class AugmentView : public QWidget {
  Q_OBJECT
 public:
  explicit AugmentView(studio::ProjectDocument* doc, QWidget* parent = nullptr);
  ~AugmentView() override;
  /// The train split of the latest scan (null: nothing to show) and the class names.
  void setTrain(std::shared_ptr<const data::SplitIndex> train, const QStringList& names);
  /// Builds the next batch in the background (nothing when one is being built).
  void showBatch();
  bool busy() const;
  /// The last batch built (empty before the first).
  const studio::AugmentPreview& preview() const { return m_preview; }
  QPushButton* button() const { return m_button; }
  QLabel* infoLabel() const { return m_info; }
  BatchGrid* grid() const { return m_grid; }

 signals:
  /// A batch was built (or failed: preview().error says why).
  void batchShown();

 private:
  studio::ProjectDocument* m_doc;
  studio::BackgroundJob* m_job;
  std::shared_ptr<const data::SplitIndex> m_train;
  QStringList m_names;
  studio::AugmentPreview m_preview;
  int m_draw = 0;
  QPushButton* m_button = nullptr;
  QLabel* m_info = nullptr;
  BatchGrid* m_grid = nullptr;
};

}  // namespace stave::widgets
