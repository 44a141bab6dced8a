#pragma once
// The checkpoint chooser of Predict… and Export Model…: an editable list of the project's runs'
// weights/best.pt and last.pt, and Browse… for any other file.
#include <QWidget>

class QComboBox;

namespace stave::studio {
class ProjectDocument;
}

namespace stave::widgets {

class CheckpointField : public QWidget {
  Q_OBJECT
 public:
  explicit CheckpointField(studio::ProjectDocument* doc, QWidget* parent = nullptr);
  /// The list (editable: any path may be typed).
  QComboBox* box() const { return m_box; }
  /// The path chosen or typed, trimmed.
  QString path() const;

 private:
  QComboBox* m_box;
};

}  // namespace stave::widgets
