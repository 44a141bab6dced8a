#pragma once
// ModelExportJob: `stave-train export-weights` on a checkpoint, in the background (QProcess), for
// File ▸ Export Model…: ONNX (checked by ONNX's checker before it is written), Ultralytics'
// checkpoint, or a Stave checkpoint without optimiser state. What stave-train prints on success
// (the file, its input and output, the check) is the summary the dialog shows; stave-train's
// --json gives it (and its refusals) as catalog messages, shown in the UI language.

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

#include "core/base/result.h"
#include "core/studio/process_outcome.h"

namespace stave::studio {

/// What `stave-train export-weights` is asked for.
struct ModelExportOptions {
  QString format = QStringLiteral("onnx");  ///< onnx, ultralytics or stave
  int imgsz = 0;         ///< ONNX input size (multiple of 32); 0 = the checkpoint's training size
  int batch = 1;         ///< ONNX fixed batch
  bool dynamic = false;  ///< ONNX batch, height and width left free
  int opset = 17;        ///< ONNX opset, 13..17
  bool half = false;     ///< ONNX float16 (checked on a CUDA device; refused without one)
  bool force = false;    ///< replace an existing output file
};

class ChildProcess;

class ModelExportJob : public QObject {
  Q_OBJECT
 public:
  /// How the last one ended (Running also covers reading its results; Stopped: cancelled).
  using Outcome = ProcessOutcome;
  static constexpr int kGraceMs = 5000;

  explicit ModelExportJob(QObject* parent = nullptr);
  void setExecutable(const QString& exe) { m_exe = exe; }

  /// The command line for these options (ONNX settings only with format onnx).
  static QStringList arguments(const QString& weights, const QString& out,
                               const ModelExportOptions& options);
  /// Where stave-train writes by default: beside the checkpoint, best.onnx,
  /// best-ultralytics.pt or best-weights.pt.
  static QString defaultOutput(const QString& weights, const QString& format);

  /// Starts the export. False with the reason in `error` when it cannot start.
  bool start(const QString& weights, const QString& out, const ModelExportOptions& options,
             QString* error = nullptr);
  /// SIGTERM now, SIGKILL after kGraceMs (nothing is half-written: stave-train writes
  /// atomically).
  void cancel();
  bool isRunning() const { return m_outcome == Outcome::Running; }
  Outcome outcome() const { return m_outcome; }
  /// What stave-train said when it finished (what the file is, its check) in the UI language,
  /// sizes for a person ("11.5 MiB"), without the file's name.
  QString summary() const { return m_summary; }
  /// Why it failed, in the UI language.
  QString errorText() const { return m_error; }
  /// A refusal of stave-train in the dialog's words: the ones that name its command-line flags
  /// (--force, --half) say which control to change; the others are errorText(error).
  static QString studioWords(const Error& error);
  /// The file asked for (absolute).
  QString output() const { return m_out; }

 signals:
  void finished();

 private:
  void done(int code, QProcess::ExitStatus status);
  QString m_exe;
  ChildProcess* m_child;  ///< stopped gracefully, also when the job is destroyed
  QProcess* m_process = nullptr;
  Outcome m_outcome = Outcome::None;
  QString m_summary, m_error, m_out;
};

}  // namespace stave::studio
