#pragma once
// The start page's lines for the recent projects: whether each file is still there, its
// dataset and its last run. File work (each project file and its runs folder are read): call
// describeRecentProjects off the GUI thread.

#include <QList>
#include <QString>
#include <QStringList>

namespace stave::studio {

/// One recent project as the start page shows it.
struct RecentProjectInfo {
  QString path;  ///< the project file
  bool exists = false;
  QString summary;  ///< "dataset D · last run R (N epochs, time)", or why it cannot be read;
                    ///< R is the newest training run (runs/detect, Predict's output, is none)
};

/// Describes each of `paths` (in order).
QList<RecentProjectInfo> describeRecentProjects(const QStringList& paths);

}  // namespace stave::studio
