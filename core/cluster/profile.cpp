#include "core/cluster/profile.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <type_traits>

#include "core/base/atomic_file.h"
#include "core/config/export.h"

namespace stave::cluster {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

bool absolute(const std::string& p) { return !p.empty() && p.front() == '/'; }

/// `path` without a trailing '/' (but "/" stays).
std::vector<Profile> readProfiles(const std::string& path, std::vector<Error>* problems);

std::string trimSlash(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

}  // namespace

const config::MemberTable<Profile>& profileFields() {
  using P = Profile;
  static const config::MemberTable<P> fields{
      {"name", &P::name, true},
      {"destination", &P::destination, true},
      {"port", &P::port, true},
      {"ssh_config", &P::sshConfig, true},
      {"partition", &P::partition, true},
      {"account", &P::account, true},
      {"time", &P::timeLimit, true},
      {"gpus_per_node", &P::gpusPerNode, true},
      {"nodes", &P::nodes, true},
      {"cpus_per_task", &P::cpusPerTask, true},
      {"run_folder", &P::runFolder, true},
      {"dataset_local", &P::datasetLocal, true},
      {"dataset_remote", &P::datasetRemote, true},
      {"dataset_on_cluster", &P::datasetOnCluster, true},
      {"stave_train", &P::trainExecutable, true},
      {"commands_folder", &P::commandsFolder, true}};
  return fields;
}

std::vector<std::string> Profile::problems() const {
  std::vector<std::string> out;
  for (const auto& t : problemTexts()) out.push_back(english(t));
  return out;
}

std::vector<Text> Profile::problemTexts() const {
  std::vector<Text> out;
  const Text who = name.empty() ? Text("cluster.who_unnamed") : Text("cluster.who", {{"name", name}});
  const auto problem = [&](const Text& by, const std::string& field, TextParts what) {
    out.push_back(Text("cluster.problem", {{"who", by}, {"field", field}, {"problem", std::move(what)}}));
  };
  if (name.find_first_not_of(" \t") == std::string::npos)
    problem(Text("cluster.who_unnamed"), "name", {Text("cluster.needs_name")});
  const auto mustBeAbsolute = [&](const std::string& value, const char* field) {
    if (!value.empty() && !absolute(value)) problem(who, field, {Text("cluster.absolute", {{"value", value}})});
  };
  mustBeAbsolute(runFolder, "run_folder");
  mustBeAbsolute(trainExecutable, "stave_train");
  mustBeAbsolute(commandsFolder, "commands_folder");
  if (remote()) {
    if (Text why = destinationProblemText(destination); !why.id.empty()) problem(who, "destination", {why});
    if (port < 0 || port > 65535) problem(who, "port", {Text("cluster.port", {{"port", std::to_string(port)}})});
    if (runFolder.empty()) problem(who, "run_folder", {Text("cluster.run_folder_ssh")});
    mustBeAbsolute(datasetRemote, "dataset_remote");
    mustBeAbsolute(datasetOnCluster, "dataset_on_cluster");
    if (datasetLocal.empty() != datasetRemote.empty())
      problem(who, "dataset_local, dataset_remote", {Text("cluster.mapping_both")});
  } else {
    for (const auto& [value, field] : {std::pair{port != 0, "port"}, {!sshConfig.empty(), "ssh_config"},
                                       {!datasetRemote.empty() || !datasetLocal.empty(), "dataset_local"},
                                       {!datasetOnCluster.empty(), "dataset_on_cluster"}})
      if (value) problem(who, field, {Text("cluster.ssh_only")});
  }
  config::ExportOptions o;
  o.nodes = nodes;
  o.cpusPerTask = cpusPerTask;
  o.gpusPerNode = gpusPerNode;
  o.time = timeLimit;
  o.partition = partition;
  o.account = account;
  if (Status st = config::checkClusterOptions(o); !st)
    for (const auto& e : st.errors())
      problem(who, e.key, e.text.empty() ? TextParts{Text("plain", {{"text", e.message}})} : e.text);
  return out;
}

SshEndpoint Profile::endpoint() const {
  SshEndpoint e;
  e.destination = destination;
  e.port = port;
  e.configFile = sshConfig;
  return e;
}

Result<std::string> Profile::clusterDataPath(const std::string& localData) const {
  if (!datasetOnCluster.empty()) return datasetOnCluster;
  if (!datasetLocal.empty()) {
    const std::string from = trimSlash(datasetLocal);
    if (localData == from) return trimSlash(datasetRemote);
    if (localData.compare(0, from.size() + 1, from + "/") == 0 || from == "/")
      return trimSlash(datasetRemote) + "/" + localData.substr(from == "/" ? 1 : from.size() + 1);
    return textError("", 0, "dataset_local",
                     Text("cluster.not_under", {{"name", name}, {"dataset", localData}, {"from", from},
                                                {"remote", datasetRemote}}));
  }
  return textError("", 0, "dataset_on_cluster", Text("cluster.where_data", {{"name", name}}));
}

std::string defaultProfilesPath() {
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return std::string(x) + "/Stave/clusters.json";
  const char* home = std::getenv("HOME");
  return std::string(home ? home : "") + "/.config/Stave/clusters.json";
}

std::vector<Profile> readGoodProfiles(const std::string& path, std::vector<Error>* problems) {
  std::vector<Error> errors;
  std::vector<Profile> all = readProfiles(path, &errors);
  std::vector<Profile> good;
  for (const auto& p : all)
    if (p.problems().empty()) good.push_back(p);
  if (problems) *problems = errors;
  return good;
}

Result<std::vector<Profile>> loadProfiles(const std::string& path) {
  std::vector<Error> errors;
  std::vector<Profile> all = readProfiles(path, &errors);
  if (!errors.empty()) return errors;
  return all;
}

namespace {
std::vector<Profile> readProfiles(const std::string& path, std::vector<Error>* out) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return {};
  auto text = readFile(path);
  if (!text) {
    *out = text.errors();
    return {};
  }
  json doc;
  try {
    doc = json::parse(text.value());
  } catch (const std::exception& e) {
    out->push_back(textError(path, 0, "", Text("cluster.not_json", {{"detail", e.what()}})));
    return {};
  }
  if (!doc.is_object() || !doc.contains("clusters") || !doc["clusters"].is_array()) {
    out->push_back(textError(path, 0, "clusters", Text("cluster.expected_list")));
    return {};
  }
  std::vector<Profile> result;
  std::vector<Error>& errors = *out;
  std::set<std::string> names;
  int index = 0;
  for (const auto& item : doc["clusters"]) {
    const std::string where = "clusters[" + std::to_string(index++) + "]";
    if (!item.is_object()) {
      errors.push_back(textError(path, 0, where, Text("cluster.expected_object")));
      continue;
    }
    Profile p;
    // The table's own read loop, with the errors as catalog messages (the studio shows them).
    config::forEachMember(profileFields(), [&](const ProfileField& f, auto member) {
      const auto v = item.find(f.key);
      if (v == item.end()) return;  // the default
      using M = std::decay_t<decltype(p.*member)>;
      if (!config::memberFromJson(*v, p.*member))
        errors.push_back(textError(path, 0, where + "." + f.key,
                                   Text(std::is_same_v<M, std::string> ? "cluster.expected_string"
                                                                       : "cluster.expected_number")));
    });
    for (const auto& problem : p.problemTexts()) errors.push_back(textError(path, 0, where, problem));
    if (!names.insert(p.name).second)
      errors.push_back(textError(path, 0, where + ".name", Text("cluster.name_twice", {{"name", p.name}})));
    result.push_back(p);
  }
  return result;
}
}  // namespace

Status saveProfiles(const std::string& path, const std::vector<Profile>& profiles) {
  json list = json::array();
  for (const auto& p : profiles) {
    list.push_back(config::membersToJson(profileFields(), p));
  }
  json doc{{"version", 1}, {"clusters", list}};
  return writeFileAtomic(path, doc.dump(2) + "\n");
}

Result<Profile> findProfile(const std::string& path, const std::string& name) {
  auto all = loadProfiles(path);
  if (!all) return all.errors();
  std::string names;
  for (const auto& p : all.value()) {
    if (p.name == name) return p;
    names += (names.empty() ? "" : ", ") + p.name;
  }
  return textError(path, 0, "profile",
                   Text("cluster.no_profile",
                        {{"name", name},
                         {"known", names.empty() ? Text("cluster.none_in_file") : Text("cluster.there_are", {{"names", names}})}}));
}

}  // namespace stave::cluster
