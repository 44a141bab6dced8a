#include "core/studio/model_export_job.h"

#include <QDir>
#include <QFileInfo>
#include <QLocale>
#include <QRegularExpression>

#include "core/studio/child_process.h"
#include "core/studio/run_controller.h"

namespace stave::studio {

ModelExportJob::ModelExportJob(QObject* parent)
    : QObject(parent),
      m_exe(RunController::findTrainExecutable()),
      m_child(new ChildProcess(ChildProcess::Lifetime::Attached, kGraceMs, this)) {}

QStringList ModelExportJob::arguments(const QString& weights, const QString& out,
                                      const ModelExportOptions& o) {
  QStringList args{QStringLiteral("export-weights"), weights, QStringLiteral("--format"), o.format,
                   QStringLiteral("--out"),          out};
  if (o.format == QLatin1String("onnx")) {
    if (o.imgsz > 0) args << QStringLiteral("--imgsz") << QString::number(o.imgsz);
    if (o.dynamic)
      args << QStringLiteral("--dynamic");
    else if (o.batch != 1)
      args << QStringLiteral("--batch") << QString::number(o.batch);
    args << QStringLiteral("--opset") << QString::number(o.opset);
    if (o.half) args << QStringLiteral("--half");
  }
  if (o.force) args << QStringLiteral("--force");
  return args;
}

QString ModelExportJob::defaultOutput(const QString& weights, const QString& format) {
  const QFileInfo info(weights);
  const QString suffix = format == QLatin1String("onnx")    ? QStringLiteral(".onnx")
                         : format == QLatin1String("stave") ? QStringLiteral("-weights.pt")
                                                            : QStringLiteral("-ultralytics.pt");
  return QDir(info.path()).filePath(info.completeBaseName() + suffix);
}

bool ModelExportJob::start(const QString& weights, const QString& out,
                           const ModelExportOptions& options, QString* error) {
  if (isRunning()) {
    if (error) *error = tr("an export is running");
    return false;
  }
  if (m_exe.isEmpty() || !QFileInfo(m_exe).isExecutable()) {
    if (error) *error = tr("stave-train was not found beside the studio or on PATH");
    m_outcome = Outcome::FailedToStart;
    return false;
  }
  m_summary.clear();
  m_error.clear();
  m_out = QFileInfo(out).absoluteFilePath();
  m_process = m_child->newProcess();
  connect(m_process, &QProcess::finished, this, &ModelExportJob::done);
  connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e != QProcess::FailedToStart) return;
    m_outcome = Outcome::FailedToStart;
    m_error = tr("cannot start %1").arg(m_exe);
    emit finished();
  });
  m_outcome = Outcome::Running;
  m_process->start(m_exe, arguments(weights, m_out, options));
  return true;
}

QString ModelExportJob::studioWords(const QString& stderrText) {
  // The refusals of export-weights (core/config/output_path.cpp, core/train/onnx_export.cpp)
  // that name its flags; matched whole, so a changed message is shown as stave-train wrote it.
  static const QRegularExpression prefix(QStringLiteral("^stave-train [a-z-]+: error: "));
  static const QRegularExpression exists(QStringLiteral("^(.+): --out: already exists; pass --force to replace it$"));
  static const QRegularExpression folder(QStringLiteral("^(.+): --out: is a folder; give a file name$"));
  static const QRegularExpression noGpu(QStringLiteral(
      "^half: a float16 model is checked on a CUDA device before it is written, and there is none "
      "here \\((.*)\\); export float32 \\(without --half\\) or run this on a machine with a GPU$"));
  QStringList out;
  for (QString line : stderrText.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
    line = line.trimmed().remove(prefix);
    if (const auto m = exists.match(line); m.hasMatch())
      out << tr("%1 already exists. Tick “Replace the file if it exists” to write over it.")
                 .arg(QDir::toNativeSeparators(m.captured(1)));
    else if (const auto m = folder.match(line); m.hasMatch())
      out << tr("%1 is a folder; choose a file name.").arg(QDir::toNativeSeparators(m.captured(1)));
    else if (const auto m = noGpu.match(line); m.hasMatch())
      out << tr("A float16 model is checked on a GPU before it is written, and this machine has "
                "none (%1). Untick Float16 to export float32, or export on a machine with a GPU.")
                 .arg(m.captured(1));
    else
      out << line;
  }
  return out.join(QLatin1Char('\n'));
}

QString ModelExportJob::readableSizes(const QString& summary) {
  // "12079274 bytes" and the Stave format's "(N bytes; M before)".
  static const QRegularExpression size(QStringLiteral("\\b(\\d+) bytes\\b|(?<=; )(\\d+)(?= before\\))"));
  QString out;
  qsizetype at = 0;
  for (auto it = size.globalMatch(summary); it.hasNext();) {
    const auto m = it.next();
    out += summary.mid(at, m.capturedStart() - at);
    const QString digits = m.captured(1).isEmpty() ? m.captured(2) : m.captured(1);
    out += QLocale().formattedDataSize(digits.toLongLong(), 1);
    at = m.capturedEnd();
  }
  return out + summary.mid(at);
}

void ModelExportJob::cancel() {
  if (!m_child->running()) return;
  m_child->stop();
}

void ModelExportJob::done(int code, QProcess::ExitStatus status) {
  const QString err = QString::fromUtf8(m_process->readAllStandardError()).trimmed();
  const QString out = QString::fromUtf8(m_process->readAllStandardOutput()).trimmed();
  m_outcome = m_child->outcome(code, status);
  if (m_outcome == Outcome::Crashed) {
    m_error = err.isEmpty() ? tr("stave-train export-weights crashed") : err;
  } else if (m_outcome == Outcome::Failed) {
    m_error = err.isEmpty() ? tr("stave-train export-weights exited with code %1").arg(code) : studioWords(err);
  } else if (m_outcome == Outcome::Completed) {
    // "wrote <file>: what it is" first: the dialog names the file itself.
    m_summary = out;
    const QString prefix = QStringLiteral("wrote %1: ").arg(m_out);
    if (m_summary.startsWith(prefix)) m_summary = m_summary.mid(prefix.size());
    m_summary = readableSizes(m_summary);
  }
  emit finished();
}

}  // namespace stave::studio
