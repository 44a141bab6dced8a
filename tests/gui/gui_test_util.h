#pragma once
// What several GUI tests set up with the real stave-train: a tiny demo project, trained once.

#include <QDebug>
#include <QFile>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>

namespace stave::guitest {

/// Runs stave-train with `args`; true when it exits 0 (its stderr is printed otherwise).
inline bool runTrain(const QStringList& args, int timeoutMs = 300000) {
  QProcess p;
  p.start(STAVE_TRAIN_EXE, args);
  const bool ok = p.waitForFinished(timeoutMs) && p.exitCode() == 0;
  if (!ok) qWarning() << p.readAllStandardError();
  return ok;
}

/// A demo dataset of 8 + 4 images in DIR/data and a CPU project on it (one epoch, imgsz 64,
/// batch 4, no validation); returns DIR/proj/proj.stave, or "" when stave-train failed.
inline QString makeTinyProject(const QTemporaryDir& dir) {
  if (!runTrain({"make-demo", "--out", dir.filePath("data"), "--train", "8", "--val", "4",
                 "--imgsz", "64"}))
    return {};
  if (!runTrain({"new-project", dir.filePath("proj"), "--name", "proj", "--data",
                 dir.filePath("data/data.yaml"), "imgsz=64", "batch=4", "epochs=1", "devices=cpu",
                 "workers=0", "warmup_epochs=0", "threads=1", "val=false"}))
    return {};
  return dir.filePath("proj/proj.stave");
}

/// Trains `project` once into DIR/proj/runs/r1; returns its weights/last.pt, "" on failure.
inline QString trainOnce(const QTemporaryDir& dir, const QString& project) {
  if (!runTrain({"train", "--project", project, "--run-dir", dir.filePath("proj/runs/r1")}))
    return {};
  const QString last = dir.filePath("proj/runs/r1/weights/last.pt");
  return QFile::exists(last) ? last : QString();
}

}  // namespace stave::guitest
