#include "core/studio/recent_summary.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>

#include "core/config/project.h"

namespace stave::studio {
namespace {

// Texts in the start page's translation context (where they were first written).
QString summaryOf(const QString& projectFile) {
  auto project = config::loadProject(projectFile.toStdString());
  if (!project)
    return QCoreApplication::translate("stave::studio::RecentSummary", "cannot be read: %1")
        .arg(QString::fromStdString(project.errorText()));
  QString text = QCoreApplication::translate("stave::studio::RecentSummary", "dataset %1")
                     .arg(QString::fromStdString(project->dataset));
  QDir runs(QDir(QString::fromStdString(project->folder())).filePath(QStringLiteral("runs")));
  const auto entries = runs.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Time);
  if (entries.isEmpty())
    return text + QCoreApplication::translate("stave::studio::RecentSummary", " · no runs yet");
  const QFileInfo last = entries.first();
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
