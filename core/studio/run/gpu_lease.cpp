#include "core/studio/run/gpu_lease.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <signal.h>

#include <cerrno>

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QStandardPaths>
#include <QSysInfo>

#include "core/studio/run/run_controller.h"

namespace stave::studio {
namespace {
// Holds an exclusive flock on the lease folder's lock file for its lifetime.
class FolderLock {
 public:
  explicit FolderLock(const QString& folder) {
    m_fd = ::open(QDir(folder).filePath(QStringLiteral(".lock")).toLocal8Bit().constData(),
                  O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    if (m_fd >= 0) ::flock(m_fd, LOCK_EX);
  }
  ~FolderLock() {
    if (m_fd >= 0) {
      ::flock(m_fd, LOCK_UN);
      ::close(m_fd);
    }
  }
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int m_fd = -1;
};

struct Lease {
  QString runDir;
  qint64 studioPid = 0;
  QString host;
  qint64 taken = 0;  // seconds since the epoch
};

bool readLease(const QString& file, Lease* out) {
  QFile f(file);
  if (!f.open(QIODevice::ReadOnly)) return false;
  const auto o = QJsonDocument::fromJson(f.readAll()).object();
  out->runDir = o.value(QStringLiteral("run_dir")).toString();
  out->studioPid = o.value(QStringLiteral("studio_pid")).toInteger();
  out->host = o.value(QStringLiteral("host")).toString();
  out->taken = o.value(QStringLiteral("taken")).toInteger();
  return !out->runDir.isEmpty();
}

bool pidAlive(qint64 pid) {
  return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}

// A lease holds while its run lives, or while it starts (young lease, its studio alive).
bool leaseHeld(const Lease& l) {
  if (ChildProcess::alive(l.runDir)) return true;
  if (ChildProcess::readRecord(l.runDir).valid) return false;  // the run started and ended
  const qint64 age = QDateTime::currentSecsSinceEpoch() - l.taken;
  return l.host == QSysInfo::machineHostName() && pidAlive(l.studioPid) &&
         age < GpuLeases::kStartGraceSeconds;
}
}  // namespace

GpuLeases::GpuLeases(const QString& folder)
    : m_folder(folder.isEmpty() ? defaultFolder() : folder) {
  QDir().mkpath(m_folder);
}

QString GpuLeases::defaultFolder() {
  const QString env = qEnvironmentVariable("STAVE_RUNTIME_DIR");
  if (!env.isEmpty()) return QDir(env).filePath(QStringLiteral("gpus"));
  QString base = QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation);
  if (base.isEmpty()) base = QDir::temp().filePath(QStringLiteral("stave-%1").arg(::getuid()));
  return QDir(base).filePath(QStringLiteral("stave/gpus"));
}

QString GpuLeases::path(const QString& resource) const {
  return QDir(m_folder).filePath(resource + QStringLiteral(".lease"));
}

QString GpuLeases::holder(const QString& resource) const {
  Lease l;
  if (!readLease(path(resource), &l)) return {};
  return leaseHeld(l) ? l.runDir : QString();
}

bool GpuLeases::acquire(const QStringList& resources, const QString& runDir, QString* why) {
  QDir().mkpath(m_folder);
  FolderLock lock(m_folder);
  for (const QString& r : resources) {
    const QString h = holder(r);
    if (!h.isEmpty() && h != runDir) {
      if (why)
        *why = QCoreApplication::translate("stave::studio::GpuLeases", "%1 is used by %2")
                   .arg(r == QLatin1String("cpu")
                            ? QCoreApplication::translate("stave::studio::GpuLeases", "the CPU")
                            : r,
                        h);
      return false;
    }
  }
  QJsonObject o{{QStringLiteral("run_dir"), runDir},
                {QStringLiteral("studio_pid"), QCoreApplication::applicationPid()},
                {QStringLiteral("host"), QSysInfo::machineHostName()},
                {QStringLiteral("taken"), QDateTime::currentSecsSinceEpoch()}};
  const QByteArray bytes = QJsonDocument(o).toJson(QJsonDocument::Compact);
  QStringList written;
  for (const QString& r : resources) {
    QSaveFile f(path(r));
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit()) {
      for (const QString& w : written) QFile::remove(path(w));
      if (why)
        *why = QCoreApplication::translate("stave::studio::GpuLeases", "cannot write %1: %2")
                   .arg(path(r), f.errorString());
      return false;
    }
    written << r;
  }
  return true;
}

void GpuLeases::release(const QStringList& resources, const QString& runDir) {
  FolderLock lock(m_folder);
  for (const QString& r : resources) {
    Lease l;
    if (readLease(path(r), &l) && l.runDir == runDir) QFile::remove(path(r));
  }
}

}  // namespace stave::studio
