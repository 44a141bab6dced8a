#pragma once
// The checkpoint chooser of Predict… and Export Model…: an editable list of the project's runs'
// weights/best.pt and last.pt, and Browse… for any other file. A run on a cluster behind SSH
// lists its checkpoints too, though they are not here: they are fetched when used.
#include <QList>
#include <QWidget>

#include <functional>

class QComboBox;

namespace stave::studio {
class BackgroundJob;
class ProjectDocument;
struct RunSummary;
class WeightsFetch;
}

namespace stave::widgets {

class CheckpointField : public QWidget {
  Q_OBJECT
 public:
  explicit CheckpointField(studio::ProjectDocument* doc, QWidget* parent = nullptr);
  /// The list (editable: any path may be typed). The project's checkpoints are read off the GUI
  /// thread and added when read (listed()).
  QComboBox* box() const { return m_box; }
  /// Whether the project's checkpoints are in the list.
  bool isListed() const { return m_listed; }
  /// The path chosen or typed, trimmed.
  QString path() const;
  /// When the chosen checkpoint is a remote run's best.pt or last.pt that is not here yet:
  /// fetches it and returns true; `done(error)` follows ("" = the file is here now; else why
  /// not, naming the remote path). False: nothing to fetch.
  bool fetchIfRemote(std::function<void(const QString& error)> done);
  /// The fetch (its progress, cancel()).
  studio::WeightsFetch* fetchJob() const { return m_fetch; }

 signals:
  /// The project's checkpoints were read and are in the list.
  void listed();

 private:
  void offer(const QList<studio::RunSummary>& runs);
  QComboBox* m_box;
  studio::WeightsFetch* m_fetch;
  studio::BackgroundJob* m_scan;
  bool m_listed = false;
  std::function<void(const QString&)> m_done;
};

}  // namespace stave::widgets
