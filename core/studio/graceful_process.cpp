#include "core/studio/graceful_process.h"

namespace stave::studio {

GracefulProcess::GracefulProcess(int graceMs, QObject* parent)
    : QObject(parent), m_graceMs(graceMs) {
  m_kill.setSingleShot(true);
  connect(&m_kill, &QTimer::timeout, this, [this] {
    if (running()) m_process->kill();
  });
}

GracefulProcess::~GracefulProcess() {
  if (!running()) return;
  m_process->disconnect();  // the job is going away: nobody hears its end
  m_process->terminate();
  if (!m_process->waitForFinished(m_graceMs)) {
    m_process->kill();
    m_process->waitForFinished(2000);
  }
}

QProcess* GracefulProcess::newProcess() {
  m_kill.stop();
  if (m_process) m_process->deleteLater();
  m_process = new QProcess(this);
  connect(m_process, &QProcess::finished, &m_kill, &QTimer::stop);
  return m_process;
}

void GracefulProcess::stop() {
  if (!running()) return;
  m_process->terminate();
  m_kill.start(m_graceMs);
}

}  // namespace stave::studio
