#include "core/studio/predict_job.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

#include "core/studio/run_controller.h"

namespace stave::studio {

PredictJob::PredictJob(QObject* parent)
    : QObject(parent), m_exe(RunController::findTrainExecutable()) {
  m_kill.setSingleShot(true);
  connect(&m_kill, &QTimer::timeout, this, [this] {
    if (m_process && m_process->state() != QProcess::NotRunning) m_process->kill();
  });
}

PredictJob::~PredictJob() {
  if (m_process && m_process->state() != QProcess::NotRunning) {
    m_process->kill();
    m_process->waitForFinished(5000);
  }
}

QString PredictJob::freeOutDir(const QString& projectFolder) {
  const QDir base(QDir(projectFolder).filePath(QStringLiteral("runs/detect")));
  QString dir = base.filePath(QStringLiteral("predict"));
  for (int i = 2; QFileInfo::exists(dir); ++i)
    dir = base.filePath(QStringLiteral("predict%1").arg(i));
  return dir;
}

bool PredictJob::start(const QString& weights, const QString& source, const QString& outDir,
                       double conf, QString* error) {
  if (m_process && m_process->state() != QProcess::NotRunning) {
    if (error) *error = tr("a prediction is running");
    return false;
  }
  if (m_exe.isEmpty() || !QFileInfo(m_exe).isExecutable()) {
    if (error) *error = tr("stave-train was not found beside the studio or on PATH");
    m_outcome = Outcome::FailedToStart;
    return false;
  }
  m_detections.clear();
  m_images.clear();
  m_error.clear();
  m_cancelled = false;
  m_source = QFileInfo(source).absoluteFilePath();
  m_outDir = QFileInfo(outDir).absoluteFilePath();
  if (m_process) m_process->deleteLater();
  m_process = new QProcess(this);
  connect(m_process, &QProcess::finished, this, &PredictJob::done);
  connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e != QProcess::FailedToStart) return;
    m_outcome = Outcome::FailedToStart;
    m_error = tr("cannot start %1").arg(m_exe);
    emit finished();
  });
  m_outcome = Outcome::Running;
  m_process->start(m_exe,
                   {QStringLiteral("predict"), QStringLiteral("--weights"), weights,
                    QStringLiteral("--source"), source, QStringLiteral("--out"), m_outDir,
                    QStringLiteral("--conf"), QString::number(conf), QStringLiteral("--json")});
  return true;
}

void PredictJob::cancel() {
  if (!m_process || m_process->state() == QProcess::NotRunning) return;
  m_cancelled = true;
  m_process->terminate();
  m_kill.start(5000);
}

void PredictJob::done(int code, QProcess::ExitStatus status) {
  m_kill.stop();
  const QString err = QString::fromUtf8(m_process->readAllStandardError()).trimmed();
  const QByteArray out = m_process->readAllStandardOutput();
  if (m_cancelled) {
    m_outcome = Outcome::Cancelled;
  } else if (status != QProcess::NormalExit) {
    m_outcome = Outcome::Crashed;
    m_error = err.isEmpty() ? tr("stave-train predict crashed") : err;
  } else if (code != 0 && code != 1) {  // 1: done, with problems listed
    m_outcome = Outcome::Failed;
    m_error = err.isEmpty() ? tr("stave-train predict exited with code %1").arg(code) : err;
  } else {
    m_outcome = Outcome::Finished;
    m_error = err;  // problems with single images
    const auto j = QJsonDocument::fromJson(out).object();
    const QString csv = j.value(QStringLiteral("csv")).toString();
    QString readError;
    if (!readPredictions(
            csv.isEmpty() ? QDir(m_outDir).filePath(QStringLiteral("predictions.csv")) : csv,
            m_source, &m_detections, &readError)) {
      m_outcome = Outcome::Failed;
      m_error = readError;
    }
    // Every image of the source, with or without detections.
    if (QFileInfo(m_source).isDir()) {
      QDirIterator it(m_source, {"*.jpg", "*.jpeg", "*.png", "*.bmp", "*.webp", "*.JPG", "*.PNG"},
                      QDir::Files, QDirIterator::Subdirectories);
      while (it.hasNext()) m_images << it.next();
      m_images.sort();
    } else {
      m_images << m_source;
    }
    for (const QString& image : m_detections.keys())
      if (!m_images.contains(image)) m_images << image;
  }
  emit finished();
}

bool PredictJob::readPredictions(const QString& csvPath, const QString& source,
                                 QMap<QString, QVector<Detection>>* out, QString* error) {
  QFile f(csvPath);
  if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) {
    if (error) *error = tr("cannot read %1").arg(csvPath);
    return false;
  }
  const bool folder = QFileInfo(source).isDir();
  int lineNo = 0;
  while (!f.atEnd()) {
    const QString line = QString::fromUtf8(f.readLine()).trimmed();
    if (++lineNo == 1 || line.isEmpty()) continue;  // header
    // The image name may hold commas: the last six fields are numbers.
    QStringList cols = line.split(QLatin1Char(','));
    if (cols.size() < 7) {
      if (error) *error = tr("%1:%2: expected 7 columns").arg(csvPath).arg(lineNo);
      return false;
    }
    const QStringList nums = cols.mid(cols.size() - 6);
    const QString name = cols.mid(0, cols.size() - 6).join(QLatin1Char(','));
    bool ok[6];
    Detection d;
    d.cls = nums[0].toInt(&ok[0]);
    d.conf = nums[1].toDouble(&ok[1]);
    const double x1 = nums[2].toDouble(&ok[2]), y1 = nums[3].toDouble(&ok[3]);
    const double x2 = nums[4].toDouble(&ok[4]), y2 = nums[5].toDouble(&ok[5]);
    for (bool b : ok)
      if (!b) {
        if (error) *error = tr("%1:%2: not a number").arg(csvPath).arg(lineNo);
        return false;
      }
    d.box = QRectF(QPointF(x1, y1), QPointF(x2, y2));
    const QString image = folder ? QDir(source).filePath(name) : source;
    (*out)[QFileInfo(image).absoluteFilePath()].push_back(d);
  }
  return true;
}

}  // namespace stave::studio
