#pragma once
// The checkpoint chooser of Predict… and Export Model…: an editable list of the project's runs'
// weights/best.pt and last.pt, and Browse… for any other file. A run on a cluster behind SSH
// lists its checkpoints too, though they are not here: they are fetched when used.
#include <QWidget>

#include <functional>

class QComboBox;

namespace stave::studio {
class ProjectDocument;
class WeightsFetch;
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
  /// When the chosen checkpoint is a remote run's best.pt or last.pt that is not here yet:
  /// fetches it and returns true; `done(error)` follows ("" = the file is here now; else why
  /// not, naming the remote path). False: nothing to fetch.
  bool fetchIfRemote(std::function<void(const QString& error)> done);
  /// The fetch (its progress, cancel()).
  studio::WeightsFetch* fetchJob() const { return m_fetch; }

 private:
  QComboBox* m_box;
  studio::WeightsFetch* m_fetch;
  std::function<void(const QString&)> m_done;
};

}  // namespace stave::widgets
