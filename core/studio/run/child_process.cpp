#include "core/studio/run/child_process.h"

#include <signal.h>
#include <unistd.h>

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSysInfo>
#include <QThread>
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/base/atomic_file.h"
#include "core/studio/background_job.h"
#include "core/studio/engine_text.h"
#include "core/studio/gui_thread_reads.h"
#include "core/studio/regular_file.h"

namespace stave::studio {

namespace {

/// A small record file (a FIFO or a device in its place is not read: it could block or never end).
QString readText(const QString& path) {
  return QString::fromUtf8(readRegularFile(path, 1 << 20));
}

QString bootId() { return readText(QStringLiteral("/proc/sys/kernel/random/boot_id")).trimmed(); }

/// Field 22 of /proc/<pid>/stat (start time in clock ticks after boot); 0 when unknown. The
/// state (field 3) goes to `state`.
qint64 processStart(qint64 pid, QChar* state = nullptr) {
  const QString text = readText(QStringLiteral("/proc/%1/stat").arg(pid));
  const int close = text.lastIndexOf(QLatin1Char(')'));
  if (close < 0) return 0;
  const QStringList f = text.mid(close + 2).split(QLatin1Char(' '), Qt::SkipEmptyParts);
  // f[0] is field 3 (state); field 22 is f[19].
  if (state && !f.isEmpty()) *state = f[0].at(0);
  return f.size() > 19 ? f[19].toLongLong() : 0;
}

// The shell that waits for the process in its own session: it records the pid, and the exit
// status once the process ends (128 + N for a signal), both atomically.
const char* kWrapper =
    "echo $$ > \"$STAVE_RUN_DIR/wrapper.pid\"\n"
    "\"$@\" >/dev/null 2>>\"$STAVE_RUN_DIR/launcher.log\" &\n"
    "pid=$!\n"
    "echo \"$pid\" > \"$STAVE_RUN_DIR/launcher.pid.tmp\" && "
    "mv -f \"$STAVE_RUN_DIR/launcher.pid.tmp\" \"$STAVE_RUN_DIR/launcher.pid\"\n"
    "wait \"$pid\"\n"
    "rc=$?\n"
    "echo \"$rc\" > \"$STAVE_RUN_DIR/exit_status.tmp\" && "
    "mv -f \"$STAVE_RUN_DIR/exit_status.tmp\" \"$STAVE_RUN_DIR/exit_status\"\n";

/// How long a detached start waits for the shell to report the pid.
constexpr int kRecordWaitMs = 5000;

}  // namespace

ChildProcess::ChildProcess(Lifetime lifetime, int graceMs, QObject* parent)
    : QObject(parent), m_lifetime(lifetime), m_graceMs(graceMs) {
  m_kill.setSingleShot(true);
  connect(&m_kill, &QTimer::timeout, this, [this] {
    if (m_lifetime == Lifetime::Attached) {
      if (running()) {
        m_process->kill();
        emit killed();
      }
      return;
    }
    // The record is read where the process is signalled, on the signal job's thread.
    const QString folder = m_folder;
    const qint64 pid = m_stopPid;
    signalJob()->run<bool>([folder, pid] { return killGroup(folder, pid); },
                           [this, pid](bool sent) {
                             if (sent && pid == m_stopPid) emit killed();
                           });
  });
}

BackgroundJob* ChildProcess::signalJob() {
  if (!m_signalJob) m_signalJob = new BackgroundJob(this);
  return m_signalJob;
}

bool ChildProcess::killGroup(const QString& folder, qint64 pid) {
  countRead(OffGuiRead::RunStop);
  const auto rec = readRecord(folder);
  if (!rec.valid || rec.pid != pid || !alive(folder)) return false;
  const pid_t group = getpgid(static_cast<pid_t>(rec.pid));
  if (group > 0) ::kill(-group, SIGKILL);
  else ::kill(static_cast<pid_t>(rec.pid), SIGKILL);
  return true;
}

QString ChildProcess::signalTerm(const QString& folder, qint64* pid) {
  countRead(OffGuiRead::RunStop);
  const auto rec = readRecord(folder);
  if (!rec.valid || !alive(folder)) return tr("the run is not running");
  if (::kill(static_cast<pid_t>(rec.pid), SIGTERM) != 0)
    return tr("cannot signal process %1: %2").arg(rec.pid).arg(QString::fromLocal8Bit(std::strerror(errno)));
  *pid = rec.pid;
  return {};
}

ChildProcess::~ChildProcess() {
  if (m_lifetime != Lifetime::Attached || !running()) return;
  m_process->disconnect();  // the job is going away: nobody hears its end
  m_process->terminate();
  if (!m_process->waitForFinished(m_graceMs)) {
    m_process->kill();
    m_process->waitForFinished(2000);
  }
}

QProcess* ChildProcess::newProcess() {
  forgetStop();
  if (m_process) m_process->deleteLater();
  m_process = new QProcess(this);
  connect(m_process, &QProcess::finished, &m_kill, &QTimer::stop);
  return m_process;
}

bool ChildProcess::running() const {
  if (m_lifetime == Lifetime::Attached) return m_process && m_process->state() != QProcess::NotRunning;
  return m_starting || alive(m_folder);
}

bool ChildProcess::stop(QString* error) {
  if (m_lifetime == Lifetime::Attached) {
    if (!running()) {
      if (error) *error = tr("the process is not running");
      return false;
    }
    m_stopRequested = true;
    m_process->terminate();
    m_kill.start(m_graceMs);
    return true;
  }
  qint64 pid = 0;
  const QString why = signalTerm(m_folder, &pid);
  if (!why.isEmpty()) {
    if (error) *error = why;
    return false;
  }
  m_stopRequested = true;
  m_stopPid = pid;
  m_kill.start(m_graceMs);
  return true;
}

void ChildProcess::stopInBackground() {
  const QString folder = m_folder;
  signalJob()->run<std::pair<qint64, QString>>(
      [folder] {
        qint64 pid = 0;
        QString why = signalTerm(folder, &pid);
        return std::make_pair(pid, why);
      },
      [this, folder](std::pair<qint64, QString> r) {
        if (folder != m_folder) return;  // another folder is followed now
        if (r.second.isEmpty()) {
          m_stopRequested = true;
          m_stopPid = r.first;
          m_kill.start(m_graceMs);
        }
        emit stopped(r.second);
      });
}

ProcessOutcome ChildProcess::outcomeOf(int code, bool signalled, bool stopRequested, std::initializer_list<int> okCodes) {
  if (stopRequested) return ProcessOutcome::Stopped;
  if (signalled) return ProcessOutcome::Crashed;
  return std::find(okCodes.begin(), okCodes.end(), code) != okCodes.end() ? ProcessOutcome::Completed
                                                                          : ProcessOutcome::Failed;
}

// --- Detached ---

void ChildProcess::setFolder(const QString& folder) {
  const QString abs = folder.isEmpty() ? QString() : QFileInfo(folder).absoluteFilePath();
  if (abs == m_folder) return;
  m_folder = abs;
  forgetStop();  // a stop of the process left is not this folder's
  m_starting = false;
}

void ChildProcess::forgetStop() {
  m_kill.stop();
  m_stopPid = 0;
  m_stopRequested = false;
}

QString ChildProcess::spawn(const QString& exe, const QStringList& args, const QString& folder) {
  countRead(OffGuiRead::RunStart);
  if (exe.isEmpty() || !QFileInfo(exe).isExecutable())
    return tr("stave-train was not found (looked beside the studio and on PATH)");
  if (!QDir().mkpath(folder)) return tr("cannot create %1").arg(folder);
  for (const char* f : {"launcher.pid", "launcher.json", "exit_status", "wrapper.pid"})
    QFile::remove(QDir(folder).filePath(QString::fromLatin1(f)));
  QProcess p;
  // setsid: a session (and process group) of its own, so the studio's end, its terminal or its
  // crash never reaches the run.
  p.setProgram(QStringLiteral("setsid"));
  QStringList a{QStringLiteral("sh"), QStringLiteral("-c"), QString::fromLatin1(kWrapper), QStringLiteral("sh"), exe};
  a << args;
  p.setArguments(a);
  auto env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("STAVE_RUN_DIR"), folder);
  p.setProcessEnvironment(env);
  p.setWorkingDirectory(QFileInfo(folder).absolutePath());
  p.setStandardInputFile(QProcess::nullDevice());
  p.setStandardOutputFile(QProcess::nullDevice());
  p.setStandardErrorFile(QProcess::nullDevice());
  if (!p.startDetached()) return tr("cannot start setsid/sh for %1").arg(exe);
  return {};
}

QString ChildProcess::writeRecord(const QString& dir, const QString& exe, const QStringList& args) {
  countRead(OffGuiRead::RunStart);
  QElapsedTimer t;
  t.start();
  qint64 pid = 0;
  while (t.elapsed() < kRecordWaitMs) {
    pid = readText(QDir(dir).filePath(QStringLiteral("launcher.pid"))).trimmed().toLongLong();
    if (pid > 0) break;
    QThread::msleep(10);
  }
  if (pid <= 0)
    return tr("the run did not start within %1 s (see %2)")
        .arg(kRecordWaitMs / 1000)
        .arg(QDir(dir).filePath(QStringLiteral("launcher.log")));
  QJsonObject rec{{QStringLiteral("pid"), pid},
                  {QStringLiteral("start_ticks"), processStart(pid)},
                  {QStringLiteral("host"), QSysInfo::machineHostName()},
                  {QStringLiteral("boot_id"), bootId()},
                  {QStringLiteral("command"), (QStringList{exe} + args).join(QLatin1Char(' '))},
                  {QStringLiteral("started"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)}};
  auto st = writeFileAtomic(QDir(dir).filePath(QStringLiteral("launcher.json")).toStdString(),
                            QJsonDocument(rec).toJson().toStdString());
  return st ? QString() : errorsText(st.errors());
}

quint64 ChildProcess::beginLaunch(const QString& folder) {
  setFolder(folder);
  forgetStop();  // the same folder again (a resume): a stop of the last process is done
  m_starting = true;
  if (!m_recordJob) m_recordJob = new BackgroundJob(this);
  return ++m_launchSeq;
}

void ChildProcess::recordLaunch(const QString& exe, const QStringList& args, quint64 seq) {
  // The shell writes the pid at once; then the record of who runs the folder is written.
  // Waited for on a thread of its own (the window goes on).
  const QString dir = m_folder;
  m_recordJob->run<QString>([dir, exe, args] { return writeRecord(dir, exe, args); },
                            [this, dir, seq](QString error) {
                              if (dir != m_folder || seq != m_launchSeq) return;  // another start since
                              m_starting = false;
                              if (!error.isEmpty()) emit startFailed(error);
                            });
}

bool ChildProcess::startDetached(const QString& exe, const QStringList& args, const QString& folder, QString* error) {
  if (const QString why = spawn(exe, args, folder); !why.isEmpty()) {
    if (error) *error = why;
    return false;
  }
  recordLaunch(exe, args, beginLaunch(folder));
  return true;
}

void ChildProcess::startDetachedInBackground(const QString& exe, const QStringList& args, const QString& folder) {
  const quint64 seq = beginLaunch(folder);
  const QString dir = m_folder;
  // The folder and the process first; the record once the process runs (the job before has
  // ended then, so the second starts at once on the same job).
  m_recordJob->run<QString>([dir, exe, args] { return spawn(exe, args, dir); },
                            [this, dir, exe, args, seq](QString why) {
                              if (dir != m_folder || seq != m_launchSeq) return;  // another start since
                              if (!why.isEmpty()) {
                                m_starting = false;
                                emit launched(why);
                                return;
                              }
                              recordLaunch(exe, args, seq);
                              emit launched({});
                            });
}

LauncherRecord ChildProcess::readRecord(const QString& folder) {
  LauncherRecord r;
  if (folder.isEmpty()) return r;
  const auto doc = QJsonDocument::fromJson(readText(QDir(folder).filePath(QStringLiteral("launcher.json"))).toUtf8());
  if (doc.isObject()) {
    const auto o = doc.object();
    r.pid = o.value(QStringLiteral("pid")).toInteger();
    r.startTicks = o.value(QStringLiteral("start_ticks")).toInteger();
    r.host = o.value(QStringLiteral("host")).toString();
    r.bootId = o.value(QStringLiteral("boot_id")).toString();
    r.valid = r.pid > 0;
    return r;
  }
  // Started, but the record is not written yet: the shell's pid file, here.
  const qint64 pid = readText(QDir(folder).filePath(QStringLiteral("launcher.pid"))).trimmed().toLongLong();
  if (pid > 0) {
    r.pid = pid;
    r.host = QSysInfo::machineHostName();
    r.bootId = bootId();
    r.valid = true;
  }
  return r;
}

bool ChildProcess::alive(const QString& folder) {
  const auto rec = readRecord(folder);
  if (!rec.valid) return false;
  if (rec.host != QSysInfo::machineHostName() || rec.bootId != bootId()) return false;  // copied
  QChar state;
  const qint64 start = processStart(rec.pid, &state);
  if (start == 0 || state == QLatin1Char('Z') || state == QLatin1Char('X')) return false;
  if (rec.startTicks > 0 && start != rec.startTicks) return false;  // the pid was reused
  if (rec.startTicks == 0 &&
      !readText(QStringLiteral("/proc/%1/cmdline").arg(rec.pid)).contains(QLatin1String("stave-train")))
    return false;
  return true;
}

DetachedExit ChildProcess::readExit(const QString& folder) {
  DetachedExit x;
  const QString status = readText(QDir(folder).filePath(QStringLiteral("exit_status"))).trimmed();
  bool ok = false;
  const int rc = status.toInt(&ok);
  if (ok) {
    x.known = true;
    if (rc > 128) x.signal = rc - 128;
    else x.code = rc;
    return x;
  }
  // The waiting shell writes the exit status a moment after the process ends.
  const qint64 shell = readText(QDir(folder).filePath(QStringLiteral("wrapper.pid"))).trimmed().toLongLong();
  QChar state;
  x.shellWaiting = shell > 0 && processStart(shell, &state) > 0 && state != QLatin1Char('Z');
  return x;
}

ChildProcess::CommandResult ChildProcess::runToEnd(const QString& program, const QStringList& args,
                                                   const QStringList& env, const QString& workDir,
                                                   int timeoutMs, const std::atomic<bool>* stop) {
  QProcess p;
  if (!env.isEmpty()) p.setEnvironment(QProcess::systemEnvironment() + env);
  if (!workDir.isEmpty()) p.setWorkingDirectory(workDir);
  p.start(program, args);
  CommandResult r;
  if (!p.waitForStarted(10000)) {
    r.err = tr("%1 cannot be started (%2)").arg(program, p.errorString());
    return r;
  }
  r.started = true;
  QElapsedTimer waited;
  waited.start();
  // Read as it comes, one stream then the other (a wait returns as soon as the stream it
  // watches has data), and keep only the cap of each: a command that answers without end must
  // not grow the studio.
  QByteArray out, err;
  const auto keep = [&r](QByteArray& into, const QByteArray& more) {
    const qint64 room = kCommandOutputCap - into.size();
    if (more.size() > room) r.cut = true;
    into.append(more.constData(), std::min<qint64>(room, more.size()));
  };
  for (int turn = 0;; ++turn) {
    p.setReadChannel(turn % 2 ? QProcess::StandardError : QProcess::StandardOutput);
    if (!p.waitForReadyRead(100) && p.state() != QProcess::NotRunning) p.waitForFinished(10);
    keep(out, p.readAllStandardOutput());
    keep(err, p.readAllStandardError());
    if (p.state() == QProcess::NotRunning) break;
    const bool stopped = stop && stop->load();
    if (stopped || waited.elapsed() > timeoutMs) {
      p.terminate();
      if (!p.waitForFinished(2000)) {
        p.kill();
        p.waitForFinished(5000);
      }
      r.err = stopped ? tr("%1 was not waited for").arg(program)
                      : tr("%1 gave no answer in %2 s").arg(program).arg(timeoutMs / 1000.0);
      r.out = QString::fromUtf8(out).trimmed();  // what it said before (capped)
      return r;
    }
  }
  keep(out, p.readAllStandardOutput());
  keep(err, p.readAllStandardError());
  r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = QString::fromUtf8(out).trimmed();
  r.err = QString::fromUtf8(err).trimmed();
  return r;
}

}  // namespace stave::studio
