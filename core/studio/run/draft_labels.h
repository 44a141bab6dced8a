#pragma once
// Model-assisted labelling: the images of a dataset that have no label file yet (new images
// dropped into it), and a model's predictions on them as draft labels. The predictions come from
// `stave-train predict` run as a child process (PredictJob) on a folder of hard links to just those
// images, so a dataset of a million images with a hundred new ones predicts a hundred. Nothing
// here writes a label file: the label editor offers the drafts and writes what the user accepts.

#include <QMap>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QVector>
#include <atomic>
#include <memory>

#include "core/studio/run/predict_job.h"

class QTemporaryDir;

namespace stave::studio {

class BackgroundJob;

/// An image and where its label file is (or would be).
struct ImageAndLabel {
  QString image;  ///< absolute
  QString label;  ///< absolute; "" = the YOLO pairing of `image`
};

/// The images of `candidates` whose label file does not exist, in their order. Reads the file
/// system: call it off the GUI thread. `stop` (may be null) ends the listing early.
QVector<ImageAndLabel> imagesWithoutLabelFile(const QVector<ImageAndLabel>& candidates,
                                              const std::atomic<bool>* stop = nullptr);

/// The checkpoint offered first for drafts: the newest run's weights/best.pt (else its
/// last.pt), of the runs given newest first; "" when none has one. Reads the file system.
QString defaultDraftCheckpoint(const QStringList& runDirsNewestFirst);

/// Runs a checkpoint on a list of images and hands back its detections by image.
class DraftPredictor : public QObject {
  Q_OBJECT
 public:
  /// How the last prediction ended (Running also covers preparing and reading).
  using Outcome = ProcessOutcome;
  /// The lowest confidence kept as a draft (Ultralytics' predict default).
  static constexpr double kDefaultConf = 0.25;

  explicit DraftPredictor(QObject* parent = nullptr);
  ~DraftPredictor() override;
  /// The stave-train to run (default: found as RunController finds it).
  void setExecutable(const QString& exe);
  /// Predicts `images` (absolute paths) with `weights`, keeping boxes of confidence >= `conf`;
  /// finished() follows. False with the reason in `error` when it cannot start.
  bool start(const QString& weights, const QStringList& images, double conf = kDefaultConf,
             QString* error = nullptr);
  /// Stops the prediction in flight (SIGTERM, then SIGKILL).
  void cancel();
  bool isRunning() const { return m_outcome == Outcome::Running; }
  Outcome outcome() const { return m_outcome; }
  /// Why it failed, or the problems with single images when it finished.
  QString errorText() const { return m_error; }
  /// Detections (pixels of the image) by image path as given to start().
  const QMap<QString, QVector<Detection>>& detections() const { return m_detections; }
  /// The checkpoint's class names as stave-train reported them.
  QStringList names() const { return m_names; }
  /// The checkpoint of the last start().
  QString weights() const { return m_weights; }

 signals:
  void finished();

 private:
  void predicted();
  BackgroundJob* m_prepare;
  PredictJob* m_job;
  std::shared_ptr<QTemporaryDir> m_dir;       ///< the links predict reads, and its output
  QMap<QString, QString> m_linkToImage;       ///< link path in m_dir → the image
  QMap<QString, QString> m_canonicalToImage;  ///< the image's resolved path → the image
  QMap<QString, QVector<Detection>> m_detections;
  QStringList m_names;
  QString m_weights, m_error;
  double m_conf = kDefaultConf;
  Outcome m_outcome = Outcome::None;
};

}  // namespace stave::studio
