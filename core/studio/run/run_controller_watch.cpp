// RunController's watch of its run's process: what the run folder and /proc say (the launcher
// record, exit_status, the waiting shell, launcher.log) is read on a job's thread each poll tick
// and judged here, with the events read so far, into the run's outcome. (The class is declared
// in run_controller.h.)
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSysInfo>
#include <algorithm>

#include "core/base/signal_name.h"
#include "core/studio/background_job.h"
#include "core/studio/run/cluster_job.h"
#include "core/studio/gui_thread_reads.h"
#include "core/studio/regular_file.h"
#include "core/studio/run/run_controller.h"

namespace stave::studio {

namespace {

/// A run not started from a studio counts as running while its events are this recent.
constexpr double kQuietS = 120;

/// launcher.log's last bytes read for a failed run's message.
constexpr qint64 kLogTailBytes = 16384;

}  // namespace

RunController::ProcessLook RunController::lookAt(const QString& runDir, bool firstLook,
                                                 bool logTail) {
  countRead(OffGuiRead::RunProcess);
  ProcessLook look;
  if (firstLook) {
    look.folder = QFileInfo(runDir).isDir();
    if (!look.folder) return look;
    look.logSize = QFileInfo(QDir(runDir).filePath(QStringLiteral("events.jsonl"))).size();
    countRead(OffGuiRead::ClusterRecord);
    look.clusterRecord = QFileInfo::exists(QDir(runDir).filePath(clusterJobFileName()));
  }
  look.live = ChildProcess::alive(runDir);
  look.record = ChildProcess::readRecord(runDir);
  look.exit = ChildProcess::readExit(runDir);
  if (logTail && look.exit.known && look.exit.signal == 0 && look.exit.code != 0) {
    // Its last lines only, and only from a regular file (a FIFO there is never waited on).
    QFile f;
    if (openRegularFile(&f, QDir(runDir).filePath(QStringLiteral("launcher.log")))) {
      f.seek(std::max<qint64>(0, f.size() - kLogTailBytes));
      look.launcherLog =
          QString::fromUtf8(f.read(kLogTailBytes)).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }
  }
  return look;
}

void RunController::watch() {
  if (m_runDir.isEmpty()) return;
  if (m_cluster->isCluster()) {
    // Its job says whether it lives (ClusterJob asks Slurm on a thread of its own).
    if (m_reading) finishIfDead();
    return;
  }
  if (m_watchJob->busy()) return;  // the look in flight comes first
  const QString dir = m_runDir;
  const quint64 epoch = m_lookEpoch;
  const bool starting = m_child->starting();
  // The log's lines matter only to a run whose outcome is still open.
  const bool logTail = m_outcome == RunOutcome::Running || m_outcome == RunOutcome::Starting ||
                       m_outcome == RunOutcome::None;
  m_watchJob->run<ProcessLook>(
      [dir, starting, logTail] {
        ProcessLook look = lookAt(dir, false, logTail);
        look.startingAtLaunch = starting;
        return look;
      },
      [this, epoch](ProcessLook look) {
        if (epoch != m_lookEpoch) return;  // another run, or a new process of this one, since
        applyLook(look);
      },
      [this, epoch](const QString& error) {
        if (epoch == m_lookEpoch) emit warning(error);
      });
}

void RunController::lookFirst() {
  m_reading = true;  // the first read waits for the log's size: nothing else reads meanwhile
  const QString dir = m_runDir;
  const quint64 generation = m_generation, epoch = m_lookEpoch;
  const bool starting = m_child->starting();
  // Asked while a periodic look may be in flight: that one's result is dropped, this one's counts.
  m_watchJob->run<ProcessLook>(
      [dir, starting] {
        ProcessLook look = lookAt(dir, true, true);
        look.startingAtLaunch = starting;
        return look;
      },
      [this, generation, epoch](ProcessLook look) {
        if (generation != m_generation) return;  // another run, or read again, since
        m_reading = false;
        if (!look.folder) {
          const QString dir = m_runDir;
          detach();
          emit warning(tr("%1 is not a folder").arg(dir));
          emit stateChanged();
          return;
        }
        // Whether it is a cluster run, as the look found (a reread keeps the job followed).
        if (m_cluster->folder() != m_runDir) m_cluster->setFolder(m_runDir, look.clusterRecord);
        if (epoch == m_lookEpoch) applyLook(look);
        readFromStart(look.logSize, FirstRead::Reader);
      },
      [this, generation](const QString& error) {
        if (generation != m_generation) return;
        m_reading = false;
        emit warning(error);
        readFromStart(0, FirstRead::Reader);  // the file, whole
      });
}

void RunController::applyLook(const ProcessLook& look) {
  if (m_cluster->isCluster()) {
    finishIfDead();
    return;
  }
  m_look = look;
  m_haveLook = true;
  // A look asked for while the process was being started may have come before its record:
  // only one asked for later tells that it is not alive.
  const bool live = look.live || (look.startingAtLaunch ? m_wasLive : false);
  if (live != m_wasLive) {
    m_wasLive = live;
    emit stateChanged();
  }
  finishIfDead();
}

void RunController::finishIfDead() {
  if (m_cluster->isCluster()) {
    followCluster();
    return;
  }
  if (!m_haveLook) return;  // nothing known of the process yet: the look in flight tells
  const bool live = m_wasLive;
  const DetachedExit& exit = m_look.exit;
  const LauncherRecord& rec = m_look.record;
  if (!m_sawEnd && m_lastEventTime > 0 && !rec.valid && !exit.known) {
    // Not started from a studio (the command line, Slurm, another machine): no process to
    // ask, so the events tell. Recent ones: it runs; none for a while and no final event: it
    // ended without one.
    const double age = telemetry::unixTimeNow() - m_lastEventTime;
    if (age < kQuietS) {
      if (m_outcome != RunOutcome::Running) {
        m_message = tr("started outside the studio");
        setOutcome(RunOutcome::Running);
      }
    } else if (m_outcome != RunOutcome::Crashed) {
      m_message = tr("no final event, and no event for %1 min; the run was not started here")
                      .arg(static_cast<int>(age / 60));
      setOutcome(RunOutcome::Crashed);
    }
    return;
  }
  if (m_outcome != RunOutcome::Running && m_outcome != RunOutcome::Starting &&
      m_outcome != RunOutcome::None)
    return;
  if (live) {
    if (m_outcome == RunOutcome::None) setOutcome(RunOutcome::Running);
    return;
  }
  // Just started: the record may not be there yet.
  if (m_outcome == RunOutcome::Starting &&
      (m_child->starting() || m_look.startingAtLaunch ||
       QDateTime::currentMSecsSinceEpoch() - m_startedAt < 1500) &&
      !exit.known)
    return;
  if (m_sawEnd) return;
  if (exit.shellWaiting) return;  // the shell writes the exit status a moment after the end
  if (m_outcome == RunOutcome::None && !rec.valid && !exit.known) return;  // nothing yet
  // Its final event may be written and not read yet: a run that completed would show as
  // crashed for a moment (and the page fetch the log of a failure).
  if (!readPastEnd()) return;
  if (!rec.valid || (!exit.known && rec.host != QSysInfo::machineHostName())) {
    m_message = tr("started on %1; no final event").arg(rec.host);
    setOutcome(RunOutcome::Crashed);
    return;
  }
  const int code = exit.code;
  const bool ok = exit.known;
  if (ok && exit.signal > 0) {
    m_signal = exit.signal;
    m_message = QString::fromStdString(stave::signalName(m_signal));
    setOutcome(RunOutcome::Crashed);
  } else if (ok && code != 0) {
    if (m_message.isEmpty()) {
      const QStringList& log = m_look.launcherLog;  // read with the look, off this thread
      m_message = log.isEmpty()
                      ? tr("exit status %1").arg(code)
                      : log.mid(std::max<qsizetype>(0, log.size() - 3)).join(QLatin1Char('\n'));
    }
    setOutcome(RunOutcome::Failed);
  } else if (ok) {
    m_message = tr("the process ended without a final event");
    setOutcome(RunOutcome::Crashed);
  } else {
    if (m_message.isEmpty()) m_message = tr("killed with its process group (no exit status)");
    setOutcome(RunOutcome::Crashed);
  }
}

bool RunController::readPastEnd() {
  if (m_endSeenAtRead < 0) m_endSeenAtRead = static_cast<qint64>(m_readsStarted);
  return !m_reading && m_readApplied > static_cast<quint64>(m_endSeenAtRead) && m_readToEnd;
}

}  // namespace stave::studio
