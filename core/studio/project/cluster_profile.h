#pragma once
// A cluster profile: where the studio sends a run when the user picks "Run on cluster" — a
// Slurm cluster whose commands (sbatch, squeue, sacct, scontrol, scancel) run on this machine,
// and a run folder on storage that the cluster's nodes and this machine share; or, with a
// destination, a Slurm cluster behind SSH whose runs are followed through a local mirror
// (core/cluster). Kept in the studio's one profiles file, clusters.json, which `stave-train
// cluster` reads too (Preferences::clusters); each field maps to one sbatch option of the
// export (config::ExportOptions), to where the run goes, or to how ssh reaches the cluster.

#include <QList>
#include <QString>
#include <QStringList>

#include "core/cluster/profile.h"
#include "core/config/export.h"

class QSettings;

namespace stave::studio {

struct ClusterProfile {
  QString name;                        ///< shown in the Run page's target list; unique
  QString partition;                   ///< #SBATCH --partition; "" = the cluster's default
  QString account;                     ///< #SBATCH --account; "" = the user's default
  QString timeLimit = QStringLiteral("24:00:00");  ///< #SBATCH --time ([D-]HH:MM:SS or minutes)
  int gpusPerNode = -1;                ///< -1: the config's nproc (none for devices=cpu); 0: CPU ranks
  int nodes = 1;                       ///< #SBATCH --nodes
  int cpusPerTask = 0;                 ///< #SBATCH --cpus-per-task; 0 = the config's workers + 2
  /// Where the run folders go, on storage the nodes share with this machine: <runFolder>/
  /// <project name>/<run id>, linked from the project's runs/ so the studio lists and follows
  /// it as any run. "" = the project's own runs/ folder (the project is on shared storage).
  QString runFolder;
  /// stave-train as the nodes start it; "" = the studio's own (shared storage, same path).
  QString trainExecutable;
  /// The folder of the Slurm commands; "" = found on PATH.
  QString commandsFolder;
  /// Over SSH: the OpenSSH destination (user@host or a Host of ~/.ssh/config); "" = the Slurm
  /// commands run on this machine. With it, runFolder and trainExecutable are the cluster's.
  QString destination;
  int port = 0;              ///< ssh -p; 0 = the ssh configuration's
  QString sshConfig;         ///< ssh -F; "" = ~/.ssh/config
  QString datasetLocal;      ///< the dataset folder as this machine sees it …
  QString datasetRemote;     ///< … and as the cluster's nodes see it
  QString datasetOnCluster;  ///< the dataset's data.yaml already on the cluster (wins)

  /// A cluster reached over SSH (a destination).
  bool remote() const { return !destination.trimmed().isEmpty(); }
  /// The same profile as core/cluster has it (stave-train's form).
  cluster::Profile toCore() const;
  static ClusterProfile fromCore(const cluster::Profile& profile);

  /// What is wrong, one line per field, naming it ("" name, a run folder not absolute, ...);
  /// the sbatch fields are checked as the export checks them.
  QStringList problems() const;
  /// The export options of a job of this profile named `jobName`.
  config::ExportOptions exportOptions(const QString& jobName) const;
  /// `command` (sbatch, squeue, ...) in commandsFolder, or the bare name (PATH).
  QString command(const QString& name) const;
  /// Every field equal (clusterProfileFields()).
  bool operator==(const ClusterProfile& o) const;
};

/// The fields of ClusterProfile by key: the generic member table (core/config/member_table.h)
/// with the studio's QString members beside its numbers. Its keys are core/cluster's
/// (cluster::profileFields()), which toCore/fromCore meet by key; every field is here, once.
using ClusterProfileTable = config::MemberTable<ClusterProfile, QString>;
/// Every field of a profile, in the order Settings shows them.
const ClusterProfileTable& clusterProfileFields();
/// A profile from the current group of `settings`, one settings key per field of
/// clusterProfileFields() (how earlier studios kept profiles); an absent key or a number that
/// does not read keeps the default.
ClusterProfile clusterProfileFromSettings(const QSettings& settings);

/// Slurm command `name` in `folder`, or the bare name (found on PATH) when `folder` is "".
QString slurmCommand(const QString& folder, const QString& name);

/// Problems of a list of profiles: each one's, and names given twice.
QStringList clusterProfileProblems(const QList<ClusterProfile>& profiles);

}  // namespace stave::studio
