#include "core/studio/run_folders.h"
#include "core/train/run_lock.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include "core/studio/regular_file.h"
#include "core/studio/run_controller.h"
#include "core/studio/slurm_job.h"
#include "core/telemetry/events.h"

#include <algorithm>

namespace stave::studio {

namespace {

/// Whether the newest events of an open events.jsonl say the run ended: a `finished` event after
/// its last `run_start` (a resume starts again). After `finished` come the launcher's last
/// samples and the doctor's final report, so the last line alone does not tell.
bool endedInTail(QFile& f) {
  constexpr qint64 kTail = 64 * 1024;  // a run's last events, validation's per-class table included
  const qint64 start = std::max<qint64>(0, f.size() - kTail);
  f.seek(start);
  const QList<QByteArray> lines = f.readAll().split('\n');
  for (qsizetype i = lines.size() - 1; i >= (start > 0 ? 1 : 0); --i) {  // a cut first line: no
    const QByteArray& line = lines[i];
    if (line.trimmed().isEmpty()) continue;
    auto e = telemetry::decodeEvent(std::string_view(line.constData(), size_t(line.size())));
    if (!e) continue;
    if (e->type == telemetry::event_type::kFinished) return true;
    if (e->type == telemetry::event_type::kRunStart) return false;
  }
  return false;
}

}  // namespace

RunFolders listRunFolders(const QString& projectFolder) {
  RunFolders out;
  const QDir runs(QDir(projectFolder).filePath(QStringLiteral("runs")));
  for (const QFileInfo& d : runs.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Time)) {
    const bool cluster = QFileInfo::exists(QDir(d.filePath()).filePath(clusterJobFileName()));
    if (!QFileInfo::exists(d.filePath() + QStringLiteral("/events.jsonl")) &&
        !QFileInfo::exists(d.filePath() + QStringLiteral("/launcher.pid")) && !cluster)
      continue;
    out.runs.append(
        {d.absoluteFilePath(), d.fileName(), ChildProcess::alive(d.absoluteFilePath()), cluster});
  }
  // A record that cannot be read (not a regular file, damaged) is no job to follow: the run is
  // listed, and showing it says what is wrong with its record.
  for (auto it = out.runs.crbegin(); it != out.runs.crend(); ++it) {
    if (!it->cluster) continue;
    const ClusterJobRecord record = readClusterJob(it->dir);
    if (record.valid && record.finalState.isEmpty()) out.cluster << it->dir;
  }
  out.live = RunController::liveRuns(projectFolder);
  // A stat per run; the tail of the log only for the ones written lately.
  const QDateTime now = QDateTime::currentDateTimeUtc();
  for (auto it = out.runs.crbegin(); it != out.runs.crend(); ++it) {
    if (it->live) continue;  // a cluster run too: its ranks hold the lock where they train
    const QString log = QDir(it->dir).filePath(QStringLiteral("events.jsonl"));
    const QFileInfo info(log);
    if (!info.exists() || info.lastModified().toUTC().secsTo(now) > 120) continue;
    // Started here (a process record) and not alive: it ended, however recent its events.
    QFile f;
    if (ChildProcess::readRecord(it->dir).valid || !openRegularFile(&f, log)) continue;
    if (endedInTail(f)) continue;
    // Trains on this machine only while a process here holds the folder's run lock: a run whose
    // trainer was killed (no final event) or that trains on another host (shared storage)
    // keeps this machine's CPU free.
    const auto holder = RunFolderLock::holder(QFile::encodeName(it->dir).toStdString());
    if (holder && !holder->remote) out.recent << it->dir;
  }
  return out;
}

LogTail runLogTail(const QString& runDir, int n) {
  const QDir dir(runDir);
  for (const QString& name : {QStringLiteral("logs/rank0.log"), QStringLiteral("launcher.log")}) {
    QFile f;
    if (!openRegularFile(&f, dir.filePath(name))) continue;
    const qint64 start = std::max<qint64>(0, f.size() - 65536);
    f.seek(start);
    QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    if (start > 0 && !lines.isEmpty()) lines.removeFirst();  // cut mid-line
    if (lines.isEmpty()) continue;
    return {dir.filePath(name), lines.mid(std::max<qsizetype>(0, lines.size() - n))};
  }
  return {};
}

}  // namespace stave::studio
