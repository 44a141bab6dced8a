#pragma once
// Helpers for end-to-end tests: run the real stave-train binary and capture what it prints.
#include <QDir>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

namespace stave::e2e {

/// What one run of a binary produced.
struct RunResult {
  int exitCode = -1;
  bool crashed = false;
  QString out;
  QString err;
};

/// Runs stave-train with `args` (in `workDir` when given), waiting up to `timeoutMs`.
inline RunResult runStaveTrain(const QStringList& args, const QString& workDir = {},
                               int timeoutMs = 300000, const QStringList& extraEnv = {}) {
  QProcess p;
  if (!workDir.isEmpty()) p.setWorkingDirectory(workDir);
  if (!extraEnv.isEmpty()) {
    QStringList env = QProcess::systemEnvironment();
    env << extraEnv;
    p.setEnvironment(env);
  }
  p.start(QStringLiteral(STAVE_TRAIN_EXE), args);
  RunResult r;
  if (!p.waitForStarted(20000)) return r;
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished(5000);
    r.crashed = true;
  }
  r.exitCode = p.exitCode();
  r.crashed = r.crashed || p.exitStatus() == QProcess::CrashExit;
  r.out = QString::fromUtf8(p.readAllStandardOutput());
  r.err = QString::fromUtf8(p.readAllStandardError());
  return r;
}

}  // namespace stave::e2e
