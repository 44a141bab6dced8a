#pragma once
// What the Run page lists and reads of a project's run folders: file work, done here so that
// widgets can run it on a BackgroundJob (never on the GUI thread).

#include <QList>
#include <QString>
#include <QStringList>

namespace stave::studio {

/// One run folder of a project.
struct RunFolderEntry {
  QString dir;        ///< absolute path
  QString name;       ///< folder name (the run id)
  bool live = false;  ///< its process is alive on this machine
  bool cluster = false;  ///< a cluster run (cluster_job.json)
};

/// A project's runs: every folder under runs/ that holds a run (events.jsonl or launcher.pid),
/// newest first, and the live ones in RunController::liveRuns' order (the last is reattached).
struct RunFolders {
  QList<RunFolderEntry> runs;
  QStringList live;
  /// Runs started elsewhere (the command line, a Slurm job: no process record here) that train
  /// on this machine: events.jsonl written in the last 2 minutes, no `finished` event after its last
  /// `run_start`, and the folder's run lock held by a live process of this host. Newest last.
  QStringList recent;
  /// Cluster runs whose Slurm job was not yet seen ending (no final state in cluster_job.json),
  /// newest last: the studio follows them again when the project opens.
  QStringList cluster;
};

/// Lists `projectFolder`/runs. Reads the file system: call it off the GUI thread (counted:
/// readCount(OffGuiRead::RunFolders)).
RunFolders listRunFolders(const QString& projectFolder);

/// One run folder of the project (runs/<id>/), as read from its results.csv, with the
/// checkpoints it offers (Predict, Export Model, drafts).
struct RunSummary {
  QString id;              ///< folder name under runs/
  QString path;            ///< absolute folder
  int epochs = 0;          ///< rows in results.csv (epochs finished)
  double bestMap50 = 0;    ///< mAP50 of the epoch with the best mAP50-95
  double bestMap5095 = 0;  ///< the best mAP50-95
  QString problem;         ///< why results.csv could not be read, "" when fine
  QStringList checkpoints;  ///< its weights/best.pt and weights/last.pt that are here
  bool mayBeRemote = false;  ///< a run with a cluster record: its checkpoints may be fetched
};

/// The runs of the project in `projectFolder` (runs/<id>/ beside the project file), newest
/// first; a folder of other outputs (runs/detect/…) is not one. Reads every run's results.csv
/// (a regular file up to 64 MiB; anything else is named in `problem`): call it off the GUI
/// thread.
QList<RunSummary> listRunSummaries(const QString& projectFolder);

/// The last lines a run's own process wrote: logs/rank0.log (with a launcher), else
/// launcher.log; at most the last 64 KiB of the file are read, however long the log.
struct LogTail {
  QString file;       ///< the log the lines come from ("" when neither has lines)
  QStringList lines;  ///< at most `n`, oldest first
};
LogTail runLogTail(const QString& runDir, int n);

}  // namespace stave::studio
