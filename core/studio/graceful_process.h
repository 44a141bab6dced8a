#pragma once
// GracefulProcess: the one child process of a studio job (predict, model export) that is never
// just dropped: stop() sends SIGTERM and, after a grace period, SIGKILL; the destructor does the
// same and waits. Each newProcess() is a fresh QProcess, which the job connects to and starts.

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTimer>

namespace stave::studio {

class GracefulProcess : public QObject {
  Q_OBJECT
 public:
  /// `graceMs`: between stop()'s SIGTERM and its SIGKILL.
  explicit GracefulProcess(int graceMs, QObject* parent = nullptr);
  /// SIGTERM, the grace period, SIGKILL, waiting for each: a job's process outlives no job.
  ~GracefulProcess() override;
  /// A new QProcess, not started (the previous one is deleted later): the job connects its
  /// signals, then starts it.
  QProcess* newProcess();
  /// SIGTERM now, SIGKILL after the grace period unless it ended by then.
  void stop();
  /// True while the process runs.
  bool running() const { return m_process && m_process->state() != QProcess::NotRunning; }

 private:
  QProcess* m_process = nullptr;
  QTimer m_kill;
  int m_graceMs;
};

}  // namespace stave::studio
