#pragma once
// The tests' own one-node Slurm (tests/e2e/slurm_cluster.sh: munged, slurmctld and slurmd with a
// generated slurm.conf, ports and state of the test's own; no GPUs), and running a command
// with a timeout. Needs root and Debian's slurm-wlm and munge; skipReason() says what is
// missing. down() stops only the daemons up() started.
#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QStringList>

#include <unistd.h>

#include "common/loopback.h"

namespace stave::test {

/// What a command did.
struct Ran {
  int code = -1;  ///< exit code; -1: not started, crashed or timed out
  QString out, err;
};

/// Runs `program args` (with `env` added to this process's environment) and waits for it.
inline Ran runProgram(const QString& program, const QStringList& args, const QStringList& env = {},
                      const QString& workDir = {}, int timeoutMs = 120000) {
  QProcess p;
  if (!env.isEmpty()) p.setEnvironment(QProcess::systemEnvironment() + env);
  if (!workDir.isEmpty()) p.setWorkingDirectory(workDir);
  p.start(program, args);
  Ran r;
  if (!p.waitForStarted(10000)) return r;
  if (!p.waitForFinished(timeoutMs)) p.kill();
  p.waitForFinished(5000);
  r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = QString::fromUtf8(p.readAllStandardOutput());
  r.err = QString::fromUtf8(p.readAllStandardError());
  return r;
}

class SlurmCluster {
 public:
  /// Why no test cluster can be brought up here ("" when it can).
  static QString skipReason() {
    if (::geteuid() != 0) return "a test Slurm cluster needs root (slurmd runs the job steps)";
    for (const char* p : {"munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "scontrol"})
      if (QStandardPaths::findExecutable(p).isEmpty() &&
          QStandardPaths::findExecutable(p, {"/usr/sbin", "/sbin"}).isEmpty())
        return QString("%1 is not installed (Debian's slurm-wlm and munge; scripts/setup installs them)").arg(p);
    return {};
  }
  /// Brings the cluster up in `dir` (its conf, state and logs); false with the logs' tails.
  bool up(const QString& dir, QString* error) {
    m_dir = dir;
    const int ctld = freeLoopbackPort();
    int slurmd = freeLoopbackPort();
    while (slurmd == ctld) slurmd = freeLoopbackPort();
    const Ran r = runProgram(STAVE_SOURCE_DIR "/tests/e2e/slurm_cluster.sh",
                             {"up", dir, QString::number(ctld), QString::number(slurmd)});
    m_started = true;
    if (r.code != 0 && error) *error = r.err + tail("slurmctld.log") + tail("slurmd.log");
    return r.code == 0;
  }
  /// Cancels the partition's jobs and stops the daemons up() started.
  void down() {
    if (!m_started) return;
    runProgram("scancel", {"--user=root", "--partition=stave"}, env());
    runProgram(STAVE_SOURCE_DIR "/tests/e2e/slurm_cluster.sh", {"down", m_dir});
    m_started = false;
  }
  QString conf() const { return m_dir + "/slurm.conf"; }
  /// SLURM_CONF=..., for the environment of a Slurm command.
  QStringList env() const { return {"SLURM_CONF=" + conf()}; }

 private:
  QString tail(const QString& log) const {
    QFile f(m_dir + "/" + log);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()).right(2000) : QString();
  }
  QString m_dir;
  bool m_started = false;
};

}  // namespace stave::test
