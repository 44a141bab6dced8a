// The run folder's lock (core/train/run_lock): the folder itself is locked, so deleting or
// replacing run.lock lets no second run in; a run.lock that is a link is replaced, never
// written through; a record naming a process on another host is refused (that host's lock is
// not seen here), one naming an ended process of this host is taken over; a run that ends
// normally leaves nothing that refuses the next.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include "core/base/host_name.h"
#include "core/train/run_lock.h"

using stave::RunFolderLock;

namespace {

QByteArray readFile(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeFile(const QString& path, const QByteArray& text) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  f.write(text);
}

// Field 22 of /proc/PID/stat, read here independently of the code under test.
QByteArray startTicks(qint64 pid) {
  const QByteArray stat = readFile(QStringLiteral("/proc/%1/stat").arg(pid));
  return stat.mid(stat.lastIndexOf(')') + 2).split(' ').value(19);
}

QByteArray bootId() {
  return readFile("/proc/sys/kernel/random/boot_id").trimmed();
}

QByteArray record(qint64 pid, const QByteArray& host, const QByteArray& ticks,
                  const QByteArray& boot) {
  return "pid=" + QByteArray::number(pid) + "\nhost=" + host + "\nstarted=2026-12-05T09:00:00Z\n" +
         "command=stave-train train\nstart_ticks=" + ticks + "\nboot_id=" + boot + "\n";
}

QByteArray here() {
  return QByteArray::fromStdString(stave::hostName());
}

}  // namespace

class TestRunLock : public QObject {
  Q_OBJECT
  QTemporaryDir m_tmp;
  int m_case = 0;

  QString freshRun() {
    const QString dir = m_tmp.filePath(QStringLiteral("run%1").arg(++m_case));
    QDir().mkpath(dir);
    return dir;
  }

 private slots:
  void initTestCase() { QVERIFY(m_tmp.isValid()); }

  // The holder keeps the folder even when its run.lock is deleted (or replaced by an empty
  // file): a second acquire is refused naming the holder's pid.
  void deletedRecordLetsNoOneIn() {
    const QString dir = freshRun();
    auto first = RunFolderLock::acquire(dir.toStdString(), "stave-train train");
    QVERIFY2(first, first ? "" : first.errors()[0].toString().c_str());
    QVERIFY(readFile(dir + "/run.lock").contains("pid=" + QByteArray::number(getpid())));
    QVERIFY(QFile::remove(dir + "/run.lock"));
    auto second = RunFolderLock::acquire(dir.toStdString(), "stave-train train resume=true");
    QVERIFY(!second);
    const QString why = QString::fromStdString(second.errors()[0].toString());
    QVERIFY2(why.contains("in use by a live run"), qPrintable(why));
    QVERIFY(RunFolderLock::holder(dir.toStdString()).has_value());
    QVERIFY(!RunFolderLock::holder(dir.toStdString())->remote);
    writeFile(dir + "/run.lock", "");
    QVERIFY(!RunFolderLock::acquire(dir.toStdString(), "stave-train train"));
    first->release();
    QVERIFY(RunFolderLock::acquire(dir.toStdString(), "stave-train train"));
  }

  // A run.lock that links to a project file: the lock is taken, the record replaces the link,
  // and the project file is neither truncated nor written; release removes only the record.
  void linkedRecordIsNotFollowed() {
    const QString dir = freshRun();
    const QString project = m_tmp.filePath("precious.stave");
    const QByteArray text = "{\"name\": \"demo\", \"configs\": {}}\n";
    writeFile(project, text);
    QVERIFY(QFile::link(project, dir + "/run.lock"));
    QVERIFY(!RunFolderLock::holder(dir.toStdString()).has_value());
    {
      auto lock = RunFolderLock::acquire(dir.toStdString(), "stave-train train resume=true");
      QVERIFY2(lock, lock ? "" : lock.errors()[0].toString().c_str());
      QCOMPARE(readFile(project), text);
      QVERIFY(!QFileInfo(dir + "/run.lock").isSymLink());
      QVERIFY(readFile(dir + "/run.lock").contains("pid=" + QByteArray::number(getpid())));
    }
    QCOMPARE(readFile(project), text);
    QVERIFY(QFileInfo::exists(project));
    // No temporary file is left beside it either.
    QCOMPARE(QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
             QStringList());
  }

  // A run.lock naming a process on another host, the folder's lock free here (NFS locks a
  // folder per client): refused, naming the host, pid and start, and how to override.
  void otherHostRecordIsRefused() {
    const QString dir = freshRun();
    writeFile(dir + "/run.lock", record(4242, "gpu-node-17.example", "99", "some-other-boot"));
    auto lock = RunFolderLock::acquire(dir.toStdString(), "stave-train train resume=true");
    QVERIFY(!lock);
    const QString why = QString::fromStdString(lock.errors()[0].toString());
    QVERIFY2(why.contains("another host") && why.contains("pid 4242 on gpu-node-17.example") &&
                 why.contains("since 2026-12-05T09:00:00Z") &&
                 why.contains("remove " + dir + "/run.lock"),
             qPrintable(why));
    const auto h = RunFolderLock::holder(dir.toStdString());
    QVERIFY(h.has_value());
    QCOMPARE(QString::fromStdString(h->host), QString("gpu-node-17.example"));
    QVERIFY(h->remote);
    QVERIFY(QString::fromStdString(h->remoteHint(dir.toStdString()))
                .contains("remove " + dir + "/run.lock"));
    // The record is left as it was (it is the other host's).
    QVERIFY(readFile(dir + "/run.lock").contains("gpu-node-17.example"));
    // A Slurm job's record says which job to ask about.
    writeFile(dir + "/run.lock",
              record(4242, "gpu-node-17.example", "99", "b") + "slurm_job=555\n");
    const QString slurm = QString::fromStdString(
        RunFolderLock::acquire(dir.toStdString(), "stave-train worker").errors()[0].toString());
    QVERIFY2(slurm.contains("Slurm job 555") && slurm.contains("squeue -j 555"), qPrintable(slurm));
    // Removed after checking that host: the folder is free.
    QVERIFY(QFile::remove(dir + "/run.lock"));
    QVERIFY(RunFolderLock::acquire(dir.toStdString(), "stave-train train"));
    // Taken inside a Slurm job: the record names it (the studio clears the record of a job
    // Slurm says has ended).
    qputenv("SLURM_JOB_ID", "777");
    auto inJob = RunFolderLock::acquire(dir.toStdString(), "stave-train worker");
    qunsetenv("SLURM_JOB_ID");
    QVERIFY(inJob);
    QVERIFY(readFile(dir + "/run.lock").contains("\nslurm_job=777\n"));
  }

  // A record of this host whose process has ended (its pid gone, or reused by a process that
  // started at another time, or written before the last boot) is taken over; one whose process
  // lives (same pid and start) is refused even though the folder's lock is free.
  void localRecordJudgedByItsProcess() {
    const QString dir = freshRun();
    const pid_t child = fork();
    if (child == 0) _exit(0);
    QVERIFY(child > 0);
    int status = 0;
    QCOMPARE(waitpid(child, &status, 0), child);
    writeFile(dir + "/run.lock", record(child, here(), "12345", bootId()));
    QVERIFY(!RunFolderLock::holder(dir.toStdString()).has_value());
    {
      auto lock = RunFolderLock::acquire(dir.toStdString(), "stave-train train resume=true");
      QVERIFY2(lock, lock ? "" : lock.errors()[0].toString().c_str());
    }
    // The pid lives but started at another time: a reused pid, not the holder.
    const QByteArray mine = startTicks(getpid());
    QVERIFY(!mine.isEmpty());
    writeFile(dir + "/run.lock",
              record(getpid(), here(), QByteArray::number(mine.toLongLong() + 1), bootId()));
    QVERIFY(!RunFolderLock::holder(dir.toStdString()).has_value());
    QVERIFY(RunFolderLock::acquire(dir.toStdString(), "stave-train train"));
    // Written before this boot.
    writeFile(dir + "/run.lock", record(getpid(), here(), mine, "another-boot"));
    QVERIFY(RunFolderLock::acquire(dir.toStdString(), "stave-train train"));
    // The same pid and start: that process lives, so the folder is refused.
    const pid_t sleeper = fork();
    if (sleeper == 0) {
      pause();
      _exit(0);
    }
    QVERIFY(sleeper > 0);
    QByteArray ticks;
    for (int i = 0; i < 100 && ticks.isEmpty(); ++i) ticks = startTicks(sleeper);
    writeFile(dir + "/run.lock", record(sleeper, here(), ticks, bootId()));
    auto refused = RunFolderLock::acquire(dir.toStdString(), "stave-train train");
    QVERIFY(!refused);
    QVERIFY2(QString::fromStdString(refused.errors()[0].toString())
                 .contains("in use by a live run: pid " + QString::number(sleeper)),
             refused.errors()[0].toString().c_str());
    QVERIFY(RunFolderLock::holder(dir.toStdString()).has_value());
    kill(sleeper, SIGKILL);
    QCOMPARE(waitpid(sleeper, &status, 0), sleeper);
    QVERIFY(RunFolderLock::acquire(dir.toStdString(), "stave-train train"));
  }

  // A record written before the folder itself was locked (the file was locked, and stayed after
  // every run): its holder lives while that file's lock is held.
  void legacyRecordJudgedByItsFileLock() {
    const QString dir = freshRun();
    writeFile(dir + "/run.lock",
              "pid=1\nhost=old-node\nstarted=2026-01-01T00:00:00Z\ncommand=stave-train train\n");
    const int fd = ::open(QFile::encodeName(dir + "/run.lock").constData(), O_RDWR | O_CLOEXEC);
    QVERIFY(fd >= 0);
    QCOMPARE(::flock(fd, LOCK_EX | LOCK_NB), 0);
    QVERIFY(!RunFolderLock::acquire(dir.toStdString(), "stave-train train"));
    QVERIFY(RunFolderLock::holder(dir.toStdString()).has_value());
    ::close(fd);
    QVERIFY(!RunFolderLock::holder(dir.toStdString()).has_value());
    QVERIFY(RunFolderLock::acquire(dir.toStdString(), "stave-train train"));
  }

  // A run released normally leaves no record: the next resume is let in, and nobody is named.
  void releasedRunLeavesNothing() {
    const QString dir = freshRun();
    {
      auto lock = RunFolderLock::acquire(dir.toStdString(), "stave-train train");
      QVERIFY(lock);
      QVERIFY(RunFolderLock::holder(dir.toStdString()).has_value());
      // A moved lock is still one lock.
      RunFolderLock moved = std::move(lock.value());
      QVERIFY(moved.held());
      QVERIFY(RunFolderLock::holder(dir.toStdString()).has_value());
    }
    QVERIFY(!QFileInfo::exists(dir + "/run.lock"));
    QVERIFY(!RunFolderLock::holder(dir.toStdString()).has_value());
    QVERIFY(RunFolderLock::acquire(dir.toStdString(), "stave-train train resume=true"));
  }

  // A run.lock that is a FIFO or a folder does not hang or crash the probe.
  void oddRecordNeverBlocks() {
    const QString dir = freshRun();
    QCOMPARE(::mkfifo(QFile::encodeName(dir + "/run.lock").constData(), 0600), 0);
    QVERIFY(!RunFolderLock::holder(dir.toStdString()).has_value());
    auto lock = RunFolderLock::acquire(dir.toStdString(), "stave-train train");
    QVERIFY2(lock, lock ? "" : lock.errors()[0].toString().c_str());
    QVERIFY(QFileInfo(dir + "/run.lock").isFile());
  }
};

QTEST_GUILESS_MAIN(TestRunLock)
#include "tst_run_lock.moc"
