#pragma once
// Dataset ▸ Label new images…: finds the dataset's images without a label file (off the GUI
// thread), and asks which model offers their draft labels — the project's newest run's best.pt
// first — and from which confidence. Accepting opens the label editor on those images with the
// model's predictions as drafts; nothing is written until the user accepts them there.
#include <QDialog>

#include "core/studio/run/draft_labels.h"

class QDialogButtonBox;
class QDoubleSpinBox;
class QLabel;

namespace stave::studio {
class BackgroundJob;
class ProjectDocument;
}  // namespace stave::studio

namespace stave::widgets {

class CheckpointField;

class DraftLabelsDialog : public QDialog {
  Q_OBJECT
 public:
  /// Looks among `candidates` (the dataset's images with no label box) for those without a
  /// label file; the checkpoints offered are `doc`'s runs', newest first.
  DraftLabelsDialog(studio::ProjectDocument* doc, const QVector<studio::ImageAndLabel>& candidates,
                    QWidget* parent = nullptr);
  /// The images found without a label file (complete once found() was emitted).
  const QVector<studio::ImageAndLabel>& images() const { return m_images; }
  bool searched() const { return m_searched; }
  /// The checkpoint chosen ("" = no drafts, label by hand).
  QString weights() const;
  double conf() const;
  CheckpointField* checkpoint() const { return m_checkpoint; }
  QDoubleSpinBox* confBox() const { return m_conf; }
  QLabel* summaryLabel() const { return m_summary; }
  QDialogButtonBox* buttons() const { return m_buttons; }

 signals:
  /// The search for images without a label file ended.
  void found();

 private:
  studio::BackgroundJob* m_job;
  CheckpointField* m_checkpoint;
  QDoubleSpinBox* m_conf;
  QLabel* m_summary;
  QDialogButtonBox* m_buttons;
  QVector<studio::ImageAndLabel> m_images;
  bool m_searched = false;
};

}  // namespace stave::widgets
