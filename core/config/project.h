#pragma once
// A Stave project: one `.stave` file (JSON) beside its data, holding the dataset path (relative
// to the file), named run configs (only values that differ from the defaults), the active config
// and the GUI's state. Experiments (stave.db, runs/) live beside it.

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/result.h"
#include "core/config/run_config.h"

namespace stave::config {

/// The project file format version this build writes and reads (it refuses newer ones).
constexpr int kProjectFormatVersion = 1;
/// The value of "format" in every project file.
constexpr const char* kProjectFormatName = "stave-project";
/// Extension of project files.
constexpr const char* kProjectExtension = ".stave";

/// A project in memory. `data` in a config is not stored: the project's dataset is used.
struct Project {
  std::string path;     ///< the .stave file, absolute
  std::string name;     ///< shown to users; also names the file when created
  std::string dataset;  ///< data.yaml as stored: relative to the project folder, or absolute
  std::vector<std::pair<std::string, RunConfig>> configs;  ///< named configs, in order
  std::string activeConfig;                                ///< one of `configs`
  nlohmann::json uiState = nlohmann::json::object();       ///< opaque, owned by the GUI

  /// Folder that holds the project file (and runs/, stave.db).
  std::string folder() const;
  /// The dataset's absolute path.
  std::string datasetPath() const;
  /// Stores `path` (absolute or relative to the current directory) relative to the folder.
  void setDataset(const std::string& path);
  /// The config called `name`, or nullptr.
  const RunConfig* config(const std::string& name) const;
  /// Adds or replaces the config called `name` (keeps its position when replacing).
  void setConfig(const std::string& name, const RunConfig& config);
  /// Removes a config; false when absent.
  bool removeConfig(const std::string& name);
};

/// Creates DIR/NAME.stave (DIR is created when missing) with one config "default" and saves it.
/// Refuses to overwrite an existing file; the dataset must exist.
Result<Project> createProject(const std::string& dir, const std::string& name,
                              const std::string& dataYaml);
/// Reads a project file. Errors: unreadable, malformed or truncated JSON (with line), another
/// format, a newer version, bad fields or configs (naming the config and key).
Result<Project> loadProject(const std::string& path);
/// Writes the project to `project.path` atomically; on failure the old file is untouched.
Status saveProject(const Project& project);
/// The file content saveProject writes.
std::string projectToJson(const Project& project);
/// Problems that do not stop the project from opening: a missing dataset, a missing active config.
std::vector<Error> projectProblems(const Project& project);

/// The full config `configName` ("" = the active one) with `data` set to the dataset's absolute
/// path and `overrides` ("key=value") applied, validated. Errors if the dataset is missing.
Result<RunConfig> resolveProjectConfig(const Project& project, const std::string& configName,
                                       const std::vector<std::string>& overrides);

}  // namespace stave::config
