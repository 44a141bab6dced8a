#include "core/studio/run/predict_job.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "core/studio/background_job.h"
#include "core/studio/run/child_process.h"
#include "core/studio/engine_text.h"
#include "core/studio/run/run_controller.h"

namespace stave::studio {
namespace {
// What the worker thread hands back after the process ended.
struct ReadResult {
  QMap<QString, QVector<Detection>> detections;
  QStringList images;
  QString error;
};
}  // namespace

PredictJob::PredictJob(QObject* parent)
    : QObject(parent),
      m_exe(RunController::findTrainExecutable()),
      m_child(new ChildProcess(ChildProcess::Lifetime::Attached, kGraceMs, this)),
      m_reader(new BackgroundJob(this)) {}

QString PredictJob::freeOutDir(const QString& projectFolder) {
  const QDir base(QDir(projectFolder).filePath(QStringLiteral("runs/detect")));
  QString dir = base.filePath(QStringLiteral("predict"));
  for (int i = 2; QFileInfo::exists(dir); ++i)
    dir = base.filePath(QStringLiteral("predict%1").arg(i));
  return dir;
}

QStringList PredictJob::sourceImages(const QString& source) {
  const QFileInfo info(source);
  if (!info.isDir())
    return info.exists() ? QStringList{QDir::cleanPath(info.absoluteFilePath())} : QStringList{};
  QStringList images;
  // The extensions stave-train reads (name filters are case-insensitive).
  QDirIterator it(info.absoluteFilePath(),
                  {"*.jpg", "*.jpeg", "*.png", "*.bmp", "*.tif", "*.tiff", "*.webp"}, QDir::Files,
                  QDirIterator::Subdirectories);
  while (it.hasNext()) images << QDir::cleanPath(it.next());
  images.sort();
  return images;
}

bool PredictJob::start(const QString& weights, const QString& source, const QString& outDir,
                       const PredictOptions& options, QString* error) {
  if (isRunning()) {
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
  m_names.clear();
  m_error.clear();
  m_source = QDir::cleanPath(QFileInfo(source).absoluteFilePath());
  m_outDir = QFileInfo(outDir).absoluteFilePath();
  m_process = m_child->newProcess();
  connect(m_process, &QProcess::finished, this, &PredictJob::done);
  connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e != QProcess::FailedToStart) return;
    m_outcome = Outcome::FailedToStart;
    m_error = tr("cannot start %1").arg(m_exe);
    emit finished();
  });
  QStringList args{QStringLiteral("predict"),
                   QStringLiteral("--weights"),
                   weights,
                   QStringLiteral("--source"),
                   m_source,
                   QStringLiteral("--out"),
                   m_outDir,
                   QStringLiteral("--conf"),
                   QString::number(options.conf),
                   QStringLiteral("--iou"),
                   QString::number(options.iou),
                   QStringLiteral("--json")};
  if (options.imgsz > 0) args << QStringLiteral("--imgsz") << QString::number(options.imgsz);
  m_outcome = Outcome::Running;
  m_process->start(m_exe, args);
  return true;
}

void PredictJob::cancel() {
  if (!m_child->running()) return;
  m_child->stop();
}

void PredictJob::done(int code, QProcess::ExitStatus status) {
  const QString err = QString::fromUtf8(m_process->readAllStandardError()).trimmed();
  const QByteArray out = m_process->readAllStandardOutput();
  // --json: the summary, or the errors, with each message's catalog ids.
  const QJsonObject j = QJsonDocument::fromJson(out).object();
  // 1: done, with problems listed. Done: still running until the predictions are read.
  if (const Outcome ended = m_child->outcome(code, status, {0, 1}); ended != Outcome::Completed) {
    m_outcome = ended;
    if (m_outcome == Outcome::Crashed) m_error = err.isEmpty() ? tr("stave-train predict crashed") : err;
    if (m_outcome == Outcome::Failed) {
      std::vector<Error> errors;
      for (const auto& e : j.value(QStringLiteral("errors")).toArray())
        errors.push_back(errorFromJson(e.toObject()));
      m_error = !errors.empty() ? errorsText(errors)
                : err.isEmpty() ? tr("stave-train predict exited with code %1").arg(code)
                                : err;
    }
    emit finished();
    return;
  }
  if (j.isEmpty()) {
    m_outcome = Outcome::Failed;
    m_error = tr("stave-train predict printed no summary") +
              (err.isEmpty() ? QString() : QStringLiteral("\n") + err);
    emit finished();
    return;
  }
  for (const auto& n : j.value(QStringLiteral("names")).toArray()) m_names << n.toString();
  QStringList problems;
  const QJsonArray english = j.value(QStringLiteral("problems")).toArray();
  const QJsonArray texts = j.value(QStringLiteral("problems_text")).toArray();
  for (qsizetype i = 0; i < english.size(); ++i)
    problems << engineText(textFromJson(i < texts.size() ? texts.at(i) : QJsonValue()),
                           english.at(i).toString().toStdString());
  m_error = problems.join(QLatin1Char('\n'));
  QString csv = j.value(QStringLiteral("csv")).toString();
  if (csv.isEmpty()) csv = QDir(m_outDir).filePath(QStringLiteral("predictions.csv"));
  // A folder of many images makes a long CSV: read it and list the folder off the GUI thread.
  m_reader->run<ReadResult>(
      [csv, source = m_source] {
        ReadResult r;
        if (!readPredictions(csv, source, &r.detections, &r.error)) return r;
        r.images = sourceImages(source);
        for (auto it = r.detections.cbegin(); it != r.detections.cend(); ++it)
          if (!r.images.contains(it.key())) r.images << it.key();
        return r;
      },
      [this](ReadResult r) {
        if (!r.error.isEmpty()) {
          m_outcome = Outcome::Failed;
          m_error = r.error;
        } else {
          m_outcome = Outcome::Completed;
          m_detections = std::move(r.detections);
          m_images = std::move(r.images);
        }
        emit finished();
      },
      [this](const QString& message) {
        m_outcome = Outcome::Failed;
        m_error = message;
        emit finished();
      });
}

bool PredictJob::readPredictions(const QString& csvPath, const QString& source,
                                 QMap<QString, QVector<Detection>>* out, QString* error) {
  QFile f(csvPath);
  if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) {
    if (error) *error = tr("cannot read %1").arg(csvPath);
    return false;
  }
  const QFileInfo sourceInfo(source);
  const bool folder = sourceInfo.isDir();
  int lineNo = 0;
  while (!f.atEnd()) {
    const QString line = QString::fromUtf8(f.readLine()).trimmed();
    ++lineNo;
    if (line.isEmpty()) continue;
    if (lineNo == 1) {
      if (!line.startsWith(QLatin1String("image,cls,conf"))) {
        if (error) *error = tr("%1:1: not a predictions file (header %2)").arg(csvPath, line);
        return false;
      }
      continue;
    }
    // The image name may hold commas: the last six fields are numbers.
    const QStringList cols = line.split(QLatin1Char(','));
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
    const QString image =
        folder ? QDir(sourceInfo.absoluteFilePath()).filePath(name) : sourceInfo.absoluteFilePath();
    (*out)[QDir::cleanPath(image)].push_back(d);
  }
  return true;
}

}  // namespace stave::studio
