#include "core/studio/run/model_export_job.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "core/studio/run/child_process.h"
#include "core/studio/engine_text.h"
#include "core/studio/run/run_controller.h"

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
  // --json: the summary and the refusals with their catalog ids, shown in the UI language.
  m_process->start(m_exe, arguments(weights, m_out, options) << QStringLiteral("--json"));
  return true;
}

QString ModelExportJob::studioWords(const Error& error) {
  // The refusals of export-weights that name its flags (--force, --half) say what to do in the
  // dialog instead; the others as stave-train says them, in the UI language.
  const std::string id = error.text.size() == 1 ? error.text.front().id : std::string();
  const QString file = QDir::toNativeSeparators(QString::fromStdString(error.file));
  if (id == "output.exists")
    return tr("%1 already exists. Tick “Replace the file if it exists” to write over it.").arg(file);
  if (id == "output.is_folder") return tr("%1 is a folder; choose a file name.").arg(file);
  if (id == "export.half_no_gpu") {
    QString reason;
    for (const auto& a : error.text.front().args)
      if (a.name == "reason") reason = QString::fromStdString(a.value);
    return tr("A float16 model is checked on a GPU before it is written, and this machine has "
              "none (%1). Untick Float16 to export float32, or export on a machine with a GPU.")
        .arg(reason);
  }
  return studio::errorText(error);
}

void ModelExportJob::cancel() {
  if (!m_child->running()) return;
  m_child->stop();
}

void ModelExportJob::done(int code, QProcess::ExitStatus status) {
  const QString err = QString::fromUtf8(m_process->readAllStandardError()).trimmed();
  // --json: what was written, or why not, with each message's catalog ids.
  const QJsonObject reply = QJsonDocument::fromJson(m_process->readAllStandardOutput()).object();
  m_outcome = m_child->outcome(code, status);
  if (m_outcome == Outcome::Crashed) {
    m_error = err.isEmpty() ? tr("stave-train export-weights crashed") : err;
  } else if (m_outcome == Outcome::Failed) {
    QStringList lines;
    for (const auto& e : reply.value(QStringLiteral("errors")).toArray())
      lines << studioWords(errorFromJson(e.toObject()));
    m_error = !lines.isEmpty() ? lines.join(QLatin1Char('\n'))
              : err.isEmpty()  ? tr("stave-train export-weights exited with code %1").arg(code)
                               : err;
  } else if (m_outcome == Outcome::Completed) {
    // What the file is and its check; the dialog names the file itself.
    m_summary = engineText(textFromJson(reply.value(QStringLiteral("summary_text"))),
                           reply.value(QStringLiteral("summary")).toString().toStdString());
  }
  emit finished();
}

}  // namespace stave::studio
