#include "core/studio/project/cluster_profile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QSet>

#include <cstring>
#include <string>
#include <type_traits>

#include "core/studio/engine_text.h"

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

// The studio's fields (QString, int) and core/cluster's (std::string, int) meet by key.
cluster::Profile ClusterProfile::toCore() const {
  cluster::Profile c;
  config::forEachMember(clusterProfileFields(), [&](const auto& f, auto mine) {
    config::forEachMember(cluster::profileFields(), [&](const cluster::ProfileField& g, auto member) {
      if (std::strcmp(f.key, g.key) != 0) return;
      using M = std::decay_t<decltype(c.*member)>;
      using Mine = std::decay_t<decltype(this->*mine)>;
      if constexpr (std::is_same_v<M, std::string> && std::is_same_v<Mine, QString>)
        c.*member = (this->*mine).trimmed().toStdString();
      else if constexpr (std::is_same_v<M, Mine>)
        c.*member = this->*mine;
    });
  });
  return c;
}

ClusterProfile ClusterProfile::fromCore(const cluster::Profile& c) {
  ClusterProfile p;
  config::forEachMember(clusterProfileFields(), [&](const auto& f, auto mine) {
    config::forEachMember(cluster::profileFields(), [&](const cluster::ProfileField& g, auto member) {
      if (std::strcmp(f.key, g.key) != 0) return;
      using M = std::decay_t<decltype(c.*member)>;
      using Mine = std::decay_t<decltype(p.*mine)>;
      if constexpr (std::is_same_v<M, std::string> && std::is_same_v<Mine, QString>)
        p.*mine = QString::fromStdString(c.*member);
      else if constexpr (std::is_same_v<M, Mine>)
        p.*mine = c.*member;
    });
  });
  return p;
}

ClusterProfile clusterProfileFromSettings(const QSettings& s) {
  ClusterProfile p;
  config::forEachMember(clusterProfileFields(), [&](const auto& f, auto member) {
    const QVariant v = s.value(QString::fromLatin1(f.key));
    if (!v.isValid()) return;  // the default
    using M = std::decay_t<decltype(p.*member)>;
    if constexpr (std::is_same_v<M, QString>) {
      p.*member = v.toString();
    } else if constexpr (std::is_same_v<M, int>) {
      bool ok = false;
      if (const int number = v.toInt(&ok); ok) p.*member = number;
    }
  });
  return p;
}

QStringList ClusterProfile::problems() const {
  QStringList out;
  if (remote() || port != 0 || !sshConfig.isEmpty() || !datasetLocal.isEmpty() || !datasetRemote.isEmpty() ||
      !datasetOnCluster.isEmpty()) {
    // The cluster behind SSH is core/cluster's, checked there (stave-train checks the same).
    for (const auto& p : toCore().problemTexts()) out << engineText(p);
    return out;
  }
  // The words are the engine's catalog messages, in the UI language; the fields as the form
  // names them.
  const Text who = name.isEmpty() ? Text("cluster.who_unnamed") : Text("cluster.who", {{"name", name.toStdString()}});
  const auto problem = [&](const Text& by, const QString& field, TextParts what) {
    out << engineText(Text("cluster.problem", {{"who", by}, {"field", field.toStdString()}, {"problem", std::move(what)}}));
  };
  if (name.trimmed().isEmpty()) problem(Text("cluster.who_unnamed"), QStringLiteral("name"), {Text("cluster.needs_name")});
  if (!runFolder.isEmpty() && QDir::isRelativePath(runFolder))
    problem(who, QCoreApplication::translate("stave::studio::ClusterProfile", "run folder"), {Text("cluster.absolute", {{"value", runFolder.toStdString()}})});
  if (!trainExecutable.isEmpty() && QDir::isRelativePath(trainExecutable))
    problem(who, QStringLiteral("stave-train"), {Text("cluster.absolute", {{"value", trainExecutable.toStdString()}})});
  if (!commandsFolder.isEmpty() && QDir::isRelativePath(commandsFolder))
    problem(who, QCoreApplication::translate("stave::studio::ClusterProfile", "Slurm commands"), {Text("cluster.absolute_folder", {{"value", commandsFolder.toStdString()}})});
  // The export's own checks (nodes, GPUs, time, partition and account characters).
  if (stave::Status st = config::checkClusterOptions(exportOptions(QStringLiteral("check"))); !st)
    for (const auto& e : st.errors()) {
      const std::string key = e.key;
      out << engineText(Text("cluster.problem",
                             {{"who", who},
                              {"field", key},
                              {"problem", e.text.empty() ? TextParts{Text("plain", {{"text", e.message}})} : e.text}}));
    }
  return out;
}

QString slurmCommand(const QString& folder, const QString& name) {
  return folder.isEmpty() ? name : QDir(folder).filePath(name);
}

QString ClusterProfile::command(const QString& cmd) const { return slurmCommand(commandsFolder, cmd); }

const ClusterProfileTable& clusterProfileFields() {
  using P = ClusterProfile;
  static const ClusterProfileTable fields{
      {"name", &P::name},
      {"partition", &P::partition},
      {"account", &P::account},
      {"time", &P::timeLimit},
      {"gpus_per_node", &P::gpusPerNode},
      {"nodes", &P::nodes},
      {"cpus_per_task", &P::cpusPerTask},
      {"run_folder", &P::runFolder},
      {"stave_train", &P::trainExecutable},
      {"commands_folder", &P::commandsFolder},
      {"destination", &P::destination},
      {"port", &P::port},
      {"ssh_config", &P::sshConfig},
      {"dataset_local", &P::datasetLocal},
      {"dataset_remote", &P::datasetRemote},
      {"dataset_on_cluster", &P::datasetOnCluster}};
  return fields;
}

bool ClusterProfile::operator==(const ClusterProfile& o) const {
  bool same = true;
  config::forEachMember(clusterProfileFields(), [&](const auto&, auto member) {
    same = same && this->*member == o.*member;
  });
  return same;
}

QStringList clusterProfileProblems(const QList<ClusterProfile>& profiles) {
  QStringList out;
  QSet<QString> names;
  for (const auto& p : profiles) {
    out << p.problems();
    if (!p.name.trimmed().isEmpty() && names.contains(p.name.trimmed()))
      out << engineText(Text("cluster.problem", {{"who", Text("cluster.who", {{"name", p.name.toStdString()}})},
                                                 {"field", "name"},
                                                 {"problem", Text("cluster.given_twice")}}));
    names.insert(p.name.trimmed());
  }
  return out;
}

}  // namespace stave::studio
