#include "core/studio/cluster_profile.h"

#include <QDir>
#include <QFileInfo>
#include <QSet>

#include <cstring>

namespace stave::studio {

config::ExportOptions ClusterProfile::exportOptions(const QString& jobName) const {
  config::ExportOptions o;
  o.jobName = jobName.toStdString();
  o.nodes = nodes;
  o.cpusPerTask = cpusPerTask;
  o.gpusPerNode = gpusPerNode;
  o.time = timeLimit.trimmed().toStdString();
  o.partition = partition.trimmed().toStdString();
  o.account = account.trimmed().toStdString();
  return o;
}

cluster::Profile ClusterProfile::toCore() const {
  cluster::Profile c;
  for (const auto& f : clusterProfileFields())
    for (const auto& g : cluster::profileFields()) {
      if (std::strcmp(f.key, g.key) != 0) continue;
      if (f.text && g.text) c.*g.text = (this->*f.text).trimmed().toStdString();
      if (f.number && g.number) c.*g.number = this->*f.number;
    }
  return c;
}

ClusterProfile ClusterProfile::fromCore(const cluster::Profile& c) {
  ClusterProfile p;
  for (const auto& f : clusterProfileFields())
    for (const auto& g : cluster::profileFields()) {
      if (std::strcmp(f.key, g.key) != 0) continue;
      if (f.text && g.text) p.*f.text = QString::fromStdString(c.*g.text);
      if (f.number && g.number) p.*f.number = c.*g.number;
    }
  return p;
}

QStringList ClusterProfile::problems() const {
  QStringList out;
  if (remote() || port != 0 || !sshConfig.isEmpty() || !datasetLocal.isEmpty() || !datasetRemote.isEmpty() ||
      !datasetOnCluster.isEmpty()) {
    // The cluster behind SSH is core/cluster's, checked there (stave-train checks the same).
    for (const auto& p : toCore().problems()) out << QString::fromStdString(p);
    return out;
  }
  const QString who = name.isEmpty() ? QStringLiteral("cluster profile") : QStringLiteral("cluster '%1'").arg(name);
  if (name.trimmed().isEmpty()) out << QStringLiteral("cluster profile: name: a profile needs a name");
  if (!runFolder.isEmpty() && QDir::isRelativePath(runFolder))
    out << QStringLiteral("%1: run folder: expected an absolute path, got '%2'").arg(who, runFolder);
  if (!trainExecutable.isEmpty() && QDir::isRelativePath(trainExecutable))
    out << QStringLiteral("%1: stave-train: expected an absolute path, got '%2'").arg(who, trainExecutable);
  if (!commandsFolder.isEmpty() && QDir::isRelativePath(commandsFolder))
    out << QStringLiteral("%1: Slurm commands: expected an absolute folder, got '%2'").arg(who, commandsFolder);
  // The export's own checks (nodes, GPUs, time, partition and account characters).
  if (stave::Status st = config::checkClusterOptions(exportOptions(QStringLiteral("check"))); !st)
    for (const auto& e : st.errors())
      out << QStringLiteral("%1: %2: %3").arg(who, QString::fromStdString(e.key), QString::fromStdString(e.message));
  return out;
}

QString slurmCommand(const QString& folder, const QString& name) {
  return folder.isEmpty() ? name : QDir(folder).filePath(name);
}

QString ClusterProfile::command(const QString& cmd) const { return slurmCommand(commandsFolder, cmd); }

const QList<ClusterProfileField>& clusterProfileFields() {
  using P = ClusterProfile;
  static const QList<ClusterProfileField> fields{
      {"name", &P::name},           {"partition", &P::partition},
      {"account", &P::account},     {"time", &P::timeLimit},
      {"gpus_per_node", nullptr, &P::gpusPerNode},
      {"nodes", nullptr, &P::nodes},
      {"cpus_per_task", nullptr, &P::cpusPerTask},
      {"run_folder", &P::runFolder}, {"stave_train", &P::trainExecutable},
      {"commands_folder", &P::commandsFolder},
      {"destination", &P::destination}, {"port", nullptr, &P::port},
      {"ssh_config", &P::sshConfig},   {"dataset_local", &P::datasetLocal},
      {"dataset_remote", &P::datasetRemote}, {"dataset_on_cluster", &P::datasetOnCluster}};
  return fields;
}

bool ClusterProfile::operator==(const ClusterProfile& o) const {
  for (const auto& f : clusterProfileFields())
    if (f.text ? this->*f.text != o.*f.text : this->*f.number != o.*f.number) return false;
  return true;
}

QStringList clusterProfileProblems(const QList<ClusterProfile>& profiles) {
  QStringList out;
  QSet<QString> names;
  for (const auto& p : profiles) {
    out << p.problems();
    if (!p.name.trimmed().isEmpty() && names.contains(p.name.trimmed()))
      out << QStringLiteral("cluster '%1': name: given to two profiles").arg(p.name);
    names.insert(p.name.trimmed());
  }
  return out;
}

}  // namespace stave::studio
