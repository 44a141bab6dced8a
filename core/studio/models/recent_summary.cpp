#include "core/studio/models/recent_summary.h"
#include "core/studio/engine_text.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>

#include "core/config/project.h"

namespace stave::studio {
namespace {

// Whether `dir` holds a training run: its events, results or weights, or what the launcher
// and a cluster submission write first. runs/detect (Predict's output, as Ultralytics lays it
// out: runs/detect/predict, predict2, ...) holds none of these.
bool holdsTrainingRun(const QDir& dir) {
  static const QStringList files{QStringLiteral("events.jsonl"),  QStringLiteral("results.csv"),
                                 QStringLiteral("config.yaml"),   QStringLiteral("launcher.json"),
                                 QStringLiteral("launcher.pid"),  QStringLiteral("cluster_job.json"),
                                 QStringLiteral("weights")};
  return !dir.entryList(files, QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot).isEmpty();
}

// Texts in the start page's translation context (where they were first written).
QString summaryOf(const QString& projectFile) {
  auto project = config::loadProject(projectFile.toStdString());
  if (!project)
    return QCoreApplication::translate("stave::studio::RecentSummary", "cannot be read: %1")
        .arg(errorsText(project.errors()));
  QString text = QCoreApplication::translate("stave::studio::RecentSummary", "dataset %1")
                     .arg(QString::fromStdString(project->dataset));
  QDir runs(QDir(QString::fromStdString(project->folder())).filePath(QStringLiteral("runs")));
  QFileInfo last;
  for (const QFileInfo& entry : runs.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Time))
    if (holdsTrainingRun(QDir(entry.filePath()))) {
      last = entry;
      break;
    }
  if (last.filePath().isEmpty())
    return text + QCoreApplication::translate("stave::studio::RecentSummary", " · no runs yet");
  int epochs = 0;
  QFile csv(QDir(last.filePath()).filePath(QStringLiteral("results.csv")));
  if (csv.open(QIODevice::ReadOnly)) epochs = std::max(0, int(csv.readAll().count('\n')) - 1);
  return text +
         QCoreApplication::translate("stave::studio::RecentSummary", " · last run %1 (%2 epochs, %3)")
             .arg(last.fileName())
             .arg(epochs)
             .arg(last.lastModified().toString(QStringLiteral("yyyy-MM-dd HH:mm")));
}

}  // namespace

QList<RecentProjectInfo> describeRecentProjects(const QStringList& paths) {
  QList<RecentProjectInfo> out;
  for (const QString& path : paths) {
    RecentProjectInfo info;
    info.path = path;
    info.exists = QFileInfo::exists(path);
    if (info.exists) info.summary = summaryOf(path);
    out.append(info);
  }
  return out;
}

}  // namespace stave::studio
