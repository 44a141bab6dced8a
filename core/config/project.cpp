#include "core/config/project.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "core/base/atomic_file.h"
#include "core/base/bounded_read.h"
#include "core/config/json_keys.h"
#include "core/config/json_read.h"

namespace stave::config {
namespace fs = std::filesystem;

namespace {

fs::path absoluteNormal(const fs::path& p) {
  std::error_code ec;
  fs::path a = fs::absolute(p, ec);
  return (ec ? p : a).lexically_normal();
}

std::string configNames(const Project& p) {
  std::string out;
  for (const auto& [name, cfg] : p.configs) out += (out.empty() ? "'" : ", '") + name + "'";
  return out.empty() ? "none" : out;
}

}  // namespace

std::string Project::folder() const {
  return absoluteNormal(path).parent_path().string();
}

std::string Project::datasetPath() const {
  const fs::path d(dataset);
  if (d.is_absolute()) return d.lexically_normal().string();
  return (fs::path(folder()) / d).lexically_normal().string();
}

void Project::setDataset(const std::string& p) {
  const fs::path abs = absoluteNormal(p);
  const fs::path rel = abs.lexically_relative(folder());
  dataset = rel.empty() ? abs.string() : rel.string();
}

const RunConfig* Project::config(const std::string& name) const {
  for (const auto& [n, c] : configs)
    if (n == name) return &c;
  return nullptr;
}

void Project::setConfig(const std::string& name, const RunConfig& config) {
  for (auto& [n, c] : configs) {
    if (n == name) {
      c = config;
      return;
    }
  }
  configs.emplace_back(name, config);
}

bool Project::removeConfig(const std::string& name) {
  auto it = std::find_if(configs.begin(), configs.end(),
                         [&](const auto& nc) { return nc.first == name; });
  if (it == configs.end()) return false;
  configs.erase(it);
  return true;
}

std::string projectToJson(const Project& project) {
  nlohmann::ordered_json j;
  j["format"] = kProjectFormatName;
  j["version"] = kProjectFormatVersion;
  j["name"] = project.name;
  j["dataset"] = project.dataset;
  j["active_config"] = project.activeConfig;
  nlohmann::ordered_json configs = nlohmann::ordered_json::object();
  for (const auto& [name, cfg] : project.configs) {
    auto values = toJsonObject(cfg, /*onlyChanged=*/true);
    values.erase("data");  // the project's dataset is the one source of truth
    configs[name] = values;
  }
  j["configs"] = configs;
  j["ui"] = project.uiState.is_object() ? project.uiState : nlohmann::json::object();
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Status saveProject(const Project& project) {
  STAVE_CHECK(!project.path.empty(), "project has no path");
  return writeFileAtomic(project.path, projectToJson(project));
}

namespace {

/// A project from its parsed file.
Result<Project> projectFromJson(const nlohmann::json& j, const std::string& path) {
  if (!j.is_object() || !j.contains("format") || j["format"] != kProjectFormatName)
    return textError(path, 0, "format", Text("project.not_a_project", {{"format", kProjectFormatName}}));
  if (!j.contains("version") || !j["version"].is_number_integer())
    return textError(path, 0, "version", Text("project.version_missing"));
  const int64_t version = j["version"].get<int64_t>();
  if (version > kProjectFormatVersion)
    return textError(path, 0, "version",
                     Text("project.newer", {{"version", std::to_string(version)},
                                            {"supported", std::to_string(kProjectFormatVersion)}}));
  if (version < 1)
    return textError(path, 0, "version", Text("project.version_low", {{"version", std::to_string(version)}}));

  Project p;
  p.path = absoluteNormal(path).string();
  std::vector<Error> errors;
  auto needString = [&](const char* key, std::string* out) {
    if (!j.contains(key) || !j[key].is_string())
      errors.push_back({path, 0, key, "missing or not a string"});
    else
      *out = j[key].get<std::string>();
  };
  needString("name", &p.name);
  needString("dataset", &p.dataset);
  if (j.contains("active_config")) {
    if (j["active_config"].is_string())
      p.activeConfig = j["active_config"].get<std::string>();
    else
      errors.push_back({path, 0, "active_config", "not a string"});
  }
  if (!j.contains("configs") || !j["configs"].is_object()) {
    errors.push_back({path, 0, "configs", "missing or not an object of named configs"});
  } else {
    for (const auto& [name, values] : j["configs"].items()) {
      auto cfg = runConfigFromJson(values, path + " (config '" + name + "')");
      if (!cfg) {
        errors.insert(errors.end(), cfg.errors().begin(), cfg.errors().end());
        continue;
      }
      p.configs.emplace_back(name, cfg.value());
    }
  }
  if (j.contains("ui")) {
    if (j["ui"].is_object())
      p.uiState = j["ui"];
    else
      errors.push_back({path, 0, "ui", "not an object"});
  }
  if (!errors.empty()) return errors;
  if (p.activeConfig.empty() && !p.configs.empty()) p.activeConfig = p.configs.front().first;
  return p;
}

}  // namespace

Result<Project> loadProject(const std::string& path) {
  auto text = readFileCapped(path);
  if (!text) return text.errors();
  // Random bytes or another format: say that, not "truncated" (what JSON's parser reports).
  const std::string& body = text.value();
  const auto first = body.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && body[first] != '{') {
    const unsigned char c = static_cast<unsigned char>(body[first]);
    return textError(path, lineOfByte(body, first), "",
                     Text("project.not_json", {{"start", std::isprint(c)
                                                             ? Text("config.node.scalar", {{"value", std::string(1, body[first])}})
                                                             : Text("project.binary")}}));
  }
  auto parsed = parseJson(body, path);
  if (!parsed) {
    std::vector<Error> errors = parsed.errors();
    for (auto& e : errors) e.message = "not a valid project file: " + e.message;
    return errors;
  }
  if (auto dup = duplicateJsonKeys(body, path); !dup.empty()) return dup;
  // The tree's values are read with their types checked; anything the checks missed is an
  // error naming the file, never an exception out of here.
  try {
    return projectFromJson(parsed.value(), path);
  } catch (const std::exception& e) {
    return jsonError(e, path);
  }
}

Result<Project> createProject(const std::string& dir, const std::string& name,
                              const std::string& dataYaml) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos)
    return Error{"", 0, "name", "must be a non-empty file name without '/', got '" + name + "'"};
  std::error_code ec;
  if (!fs::is_regular_file(dataYaml, ec))
    return Error{dataYaml, 0, "data", "dataset file not found (expected a data.yaml)"};
  fs::create_directories(dir, ec);
  if (ec) return Error{dir, 0, "", "cannot create folder: " + ec.message()};
  Project p;
  p.path = (absoluteNormal(dir) / (name + kProjectExtension)).string();
  if (fs::exists(p.path, ec))
    return Error{p.path, 0, "", "a project file already exists here; not overwritten"};
  p.name = name;
  p.setDataset(dataYaml);
  p.configs.emplace_back("default", RunConfig::defaults());
  p.activeConfig = "default";
  if (Status st = saveProject(p); !st) return st.errors();
  return p;
}

std::vector<Error> projectProblems(const Project& project) {
  std::vector<Error> out;
  std::error_code ec;
  if (!fs::is_regular_file(project.datasetPath(), ec))
    out.push_back({project.path, 0, "dataset",
                   "dataset not found: " + project.datasetPath() + " (stored as '" +
                       project.dataset + "', relative to the project folder)"});
  if (!project.config(project.activeConfig))
    out.push_back(
        {project.path, 0, "active_config",
         "no config named '" + project.activeConfig + "' (configs: " + configNames(project) + ")"});
  return out;
}

Result<RunConfig> resolveProjectConfig(const Project& project, const std::string& configName,
                                       const std::vector<std::string>& overrides) {
  const std::string name = configName.empty() ? project.activeConfig : configName;
  const RunConfig* base = project.config(name);
  if (!base)
    return textError(project.path, 0, "config",
                     Text("project.no_config", {{"name", name}, {"configs", configNames(project)}}));
  std::vector<Error> errors;
  std::error_code ec;
  if (!fs::is_regular_file(project.datasetPath(), ec))
    errors.push_back(textError(project.path, 0, "dataset",
                               Text("project.dataset_not_found",
                                    {{"path", project.datasetPath()}, {"stored", project.dataset}})));
  RunConfig c = *base;
  c.set("data", project.datasetPath());
  if (Status st = applyOverrides(c, overrides); !st)
    errors.insert(errors.end(), st.errors().begin(), st.errors().end());
  if (errors.empty())
    for (auto& e : validate(c)) {
      e.file = project.path + " (config '" + name + "')";
      errors.push_back(e);
    }
  if (!errors.empty()) return errors;
  return c;
}

}  // namespace stave::config
