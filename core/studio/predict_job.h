#pragma once
// PredictJob: `stave-train predict` on a checkpoint and images, in the background (QProcess),
// with a typed outcome, Cancel (SIGTERM, then SIGKILL after a grace period), and its detections
// read back from predictions.csv for the Predict dialog.

#include <QMap>
#include <QObject>
#include <QProcess>
#include <QRectF>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <QVector>

namespace stave::studio {

/// One detection, in the image's pixels.
struct Detection {
  int cls = 0;
  double conf = 0;
  QRectF box;
};

class PredictJob : public QObject {
  Q_OBJECT
 public:
  enum class Outcome { None, Running, FailedToStart, Finished, Failed, Crashed, Cancelled };
  explicit PredictJob(QObject* parent = nullptr);
  ~PredictJob() override;
  void setExecutable(const QString& exe) { m_exe = exe; }
  /// Starts `stave-train predict`; every detection down to `conf` is kept (the dialog filters).
  bool start(const QString& weights, const QString& source, const QString& outDir,
             double conf = 0.05, QString* error = nullptr);
  void cancel();
  Outcome outcome() const { return m_outcome; }
  /// stave-train's error output when it failed.
  QString errorText() const { return m_error; }
  /// Detections by image path (absolute), for every image of the source.
  const QMap<QString, QVector<Detection>>& detections() const { return m_detections; }
  QStringList images() const { return m_images; }
  QString outDir() const { return m_outDir; }
  /// Reads predictions.csv (image,cls,conf,x1,y1,x2,y2; image relative to a folder source).
  static bool readPredictions(const QString& csvPath, const QString& source,
                              QMap<QString, QVector<Detection>>* out, QString* error);
  /// The first free runs/detect/predict, predict2, ... under `projectFolder`.
  static QString freeOutDir(const QString& projectFolder);

 signals:
  void finished();

 private:
  void done(int code, QProcess::ExitStatus status);
  QString m_exe;
  QProcess* m_process = nullptr;
  QTimer m_kill;
  Outcome m_outcome = Outcome::None;
  QString m_error, m_source, m_outDir;
  bool m_cancelled = false;
  QMap<QString, QVector<Detection>> m_detections;
  QStringList m_images;
};

}  // namespace stave::studio
