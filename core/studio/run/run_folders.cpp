#include "core/studio/run/run_folders.h"
#include "core/train/run_lock.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTextStream>

#include "core/studio/gui_thread_reads.h"
#include "core/studio/project/project_document.h"
#include "core/studio/regular_file.h"
#include "core/studio/run/run_controller.h"
#include "core/studio/run/slurm_job.h"
#include "core/studio/run/weights_fetch.h"
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

/// Reads the run's results.csv into `run` (epochs, best mAP) or says in `problem` why not.
void readResults(RunSummary* run) {
  // The words are the project document's, where they were first translated. Only a regular
  // file, and not a huge one: a FIFO in its place would block the reading thread for good.
  QFile csv;
  const QString csvPath = QDir(run->path).filePath(QStringLiteral("results.csv"));
  if (!QFileInfo::exists(csvPath)) {
    run->problem = ProjectDocument::tr("no results.csv yet");
    return;
  }
  QString why;  // the file's own words (English), as other file errors
  if (!openRegularFile(&csv, csvPath, &why) || csv.size() > (64 << 20)) {
    run->problem =
        why.isEmpty() ? QStringLiteral("%1: larger than 64 MiB; not read").arg(csvPath) : why;
    return;
  }
  QTextStream in(&csv);
  const QStringList header = in.readLine().split(QLatin1Char(','));
  const int c50 = header.indexOf(QStringLiteral("metrics/mAP50(B)"));
  const int c5095 = header.indexOf(QStringLiteral("metrics/mAP50-95(B)"));
  if (c50 < 0 || c5095 < 0) {
    run->problem = ProjectDocument::tr("results.csv has no mAP columns");
    return;
  }
  int line = 1;
  while (!in.atEnd()) {
    const QString text = in.readLine();
    ++line;
    if (text.trimmed().isEmpty()) continue;
    const QStringList cells = text.split(QLatin1Char(','));
    bool ok50 = false, ok5095 = false;
    const double m50 = cells.value(c50).toDouble(&ok50);
    const double m5095 = cells.value(c5095).toDouble(&ok5095);
    if (!ok50 || !ok5095) {
      run->problem = ProjectDocument::tr("results.csv line %1 is malformed").arg(line);
      return;
    }
    ++run->epochs;
    if (run->epochs == 1 || m5095 > run->bestMap5095) {
      run->bestMap5095 = m5095;
      run->bestMap50 = m50;
    }
  }
}

}  // namespace

QList<RunSummary> listRunSummaries(const QString& projectFolder) {
  countRead(OffGuiRead::RunSummaries);
  QList<RunSummary> out;
  const QDir runsDir(QDir(projectFolder).filePath(QStringLiteral("runs")));
  for (const QFileInfo& dir :
       runsDir.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Time)) {
    // A folder of other outputs is not a run: `predict` writes runs/detect/predict, ... (as
    // Ultralytics lays them out). A run has its files, or nothing yet when just started.
    const QDir d(dir.absoluteFilePath());
    const bool runFiles =
        !d.entryList({QStringLiteral("config.yaml"), QStringLiteral("events.jsonl"),
                      QStringLiteral("results.csv"), QStringLiteral("launcher.json"),
                      clusterJobFileName(), QStringLiteral("weights")},
                     QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot)
             .isEmpty();
    if (!runFiles && !d.isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot)) continue;
    RunSummary run;
    run.id = dir.fileName();
    run.path = dir.absoluteFilePath();
    readResults(&run);
    for (const char* w : {"weights/best.pt", "weights/last.pt"})
      if (const QString path = d.filePath(QLatin1String(w)); QFileInfo::exists(path))
        run.checkpoints << path;
    run.mayBeRemote = WeightsFetch::mayBeRemote(run.path);
    out << run;
  }
  return out;
}

RunFolders listRunFolders(const QString& projectFolder) {
  countRead(OffGuiRead::RunFolders);
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
