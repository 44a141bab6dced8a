#pragma once
// PredictJob: `stave-train predict` on a checkpoint and images, in the background (QProcess),
// with a typed outcome, Cancel (SIGTERM, then SIGKILL after a grace period), and its detections
// read back from predictions.csv (on a worker thread) for the Predict dialog.

#include <QMap>
#include <QObject>
#include <QProcess>
#include <QRectF>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <QVector>

#include "core/studio/process_outcome.h"

namespace stave::studio {

class BackgroundJob;
class ChildProcess;

/// One detection, in the image's pixels.
struct Detection {
  int cls = 0;
  double conf = 0;
  QRectF box;
};

/// What `stave-train predict` is asked for.
struct PredictOptions {
  double conf = 0.001;  ///< lowest confidence kept; the dialog's slider filters above it
  double iou = 0.7;     ///< IoU threshold of the non-maximum suppression
  int imgsz = 0;        ///< inference size (a multiple of 32); 0 = the checkpoint's
};

/// Runs one `stave-train predict` at a time and holds its results.
class PredictJob : public QObject {
  Q_OBJECT
 public:
  /// How the last one ended (Running also covers reading its results; Stopped: cancelled).
  using Outcome = ProcessOutcome;
  /// Seconds between Cancel's SIGTERM and its SIGKILL.
  static constexpr int kGraceMs = 5000;

  explicit PredictJob(QObject* parent = nullptr);
  /// The stave-train to run (default: found as RunController finds it).
  void setExecutable(const QString& exe) { m_exe = exe; }
  /// Starts `stave-train predict --weights W --source S --out DIR --json --conf ... --iou ...
  /// [--imgsz N]`. False with the reason in `error` when it cannot start.
  bool start(const QString& weights, const QString& source, const QString& outDir,
             const PredictOptions& options = {}, QString* error = nullptr);
  /// SIGTERM now, SIGKILL after kGraceMs; the outcome becomes Cancelled.
  void cancel();
  bool isRunning() const { return m_outcome == Outcome::Running; }
  Outcome outcome() const { return m_outcome; }
  /// stave-train's error output when it failed; the problems with single images when finished.
  QString errorText() const { return m_error; }
  /// Detections by image path (absolute), for every image of the source.
  const QMap<QString, QVector<Detection>>& detections() const { return m_detections; }
  /// Every image of the source (absolute paths, sorted), with or without detections.
  QStringList images() const { return m_images; }
  /// The checkpoint's class names, as stave-train reported them ("" list when it did not).
  QStringList names() const { return m_names; }
  /// The folder stave-train wrote (its annotated images and predictions.csv).
  QString outDir() const { return m_outDir; }
  /// The source as given to start(), absolute.
  QString source() const { return m_source; }

  /// Reads predictions.csv (image,cls,conf,x1,y1,x2,y2; image relative to a folder source, the
  /// file name for a single image). False with "file:line: why" in `error`.
  static bool readPredictions(const QString& csvPath, const QString& source,
                              QMap<QString, QVector<Detection>>* out, QString* error);
  /// The images stave-train reads from `source` (a file, or a folder searched recursively for
  /// .jpg .jpeg .png .bmp .tif .tiff .webp), absolute and sorted.
  static QStringList sourceImages(const QString& source);
  /// The first free runs/detect/predict, predict2, ... under `projectFolder` (the CLI's rule).
  static QString freeOutDir(const QString& projectFolder);

 signals:
  /// The prediction ended (any outcome); results are in place.
  void finished();

 private:
  void done(int code, QProcess::ExitStatus status);
  QString m_exe;
  ChildProcess* m_child;  ///< stopped gracefully, also when the job is destroyed
  QProcess* m_process = nullptr;
  BackgroundJob* m_reader = nullptr;
  Outcome m_outcome = Outcome::None;
  QString m_error, m_source, m_outDir;
  QMap<QString, QVector<Detection>> m_detections;
  QStringList m_images, m_names;
};

}  // namespace stave::studio
