// data.yaml parsing: Ultralytics' keys, resolved paths, errors with file, line and key.
#include <filesystem>

#include <yaml-cpp/yaml.h>

#include "core/base/atomic_file.h"
#include "core/config/json_keys.h"
#include "core/data/dataset.h"

namespace stave::data {
namespace fs = std::filesystem;

const std::vector<std::string>* DataSpec::sources(const std::string& split) const {
  if (split == "train") return &train;
  if (split == "val") return &val;
  if (split == "test") return &test;
  return nullptr;
}

namespace {
/// More classes than any public detection set has (LVIS: 1,203); far fewer than would take
/// the machine's memory (10,000,000 took 3.9 GB and 30 s before this limit).
constexpr int kMaxClasses = 100000;
int lineOf(const YAML::Node& n) {
  return n.Mark().line >= 0 ? n.Mark().line + 1 : 0;
}

std::string resolve(const fs::path& base, const std::string& p) {
  fs::path q(p);
  if (q.is_relative()) q = base / q;
  return q.lexically_normal().string();
}

/// Reads one data.yaml's keys into a DataSpec, gathering every error (file, line, key).
class DataYamlReader {
 public:
  DataYamlReader(const std::string& path, YAML::Node& doc, std::vector<Error>& errors)
      : m_path(path), m_doc(doc), m_errors(errors) {}

  /// path: the dataset root, relative to the yaml's folder.
  void readRoot(const fs::path& yamlDir, DataSpec& spec) {
    std::error_code ec;
    spec.root = yamlDir.string();
    if (auto p = m_doc["path"]) {
      if (!p.IsScalar()) {
        error(lineOf(p), "path", "expected a folder path");
      } else if (!p.Scalar().empty()) {
        spec.root = resolve(yamlDir, p.Scalar());
        if (!fs::is_directory(spec.root, ec))
          error(lineOf(p), "path", Text("data.folder_missing", {{"path", spec.root}}));
      }
    }
  }

  /// names: a list, or a map {id: name} with ids 0..n-1; nc: a count that agrees with it (or
  /// stands for names class0, class1, ...).
  void readClasses(DataSpec& spec) {
    int ncFromNames = readNames(spec.names);
    readNc(spec.names, ncFromNames);
    if (ncFromNames > kMaxClasses && !m_doc["nc"])
      error(lineOf(m_doc["names"]), "names",
            std::to_string(ncFromNames) + " classes: at most " + std::to_string(kMaxClasses) +
                " are supported");
    if (ncFromNames < 0)
      error(0, "names", Text("data.names_missing"));
    else if (ncFromNames == 0)
      error(lineOf(m_doc["names"]), "names", Text("data.no_classes"));
  }

  /// train / val / test: a folder, a .txt list, an image, or a list of these.
  void readSources(const fs::path& rootDir, const char* key, std::vector<std::string>& out,
                   bool required) {
    auto node = m_doc[key];
    if (!node || node.IsNull()) {
      if (required)
        error(0, key, Text("data.split_missing", {{"key", key}}));
      return;
    }
    std::vector<YAML::Node> items;
    if (node.IsScalar())
      items.push_back(node);
    else if (node.IsSequence())
      for (const auto& i : node) items.push_back(i);
    else {
      error(lineOf(node), key, "expected a path or a list of paths");
      return;
    }
    if (items.empty() && required) error(lineOf(node), key, Text("data.paths_empty"));
    std::error_code ec;
    for (const auto& i : items) {
      if (!i.IsScalar()) {
        error(lineOf(i), key, "expected a path");
        continue;
      }
      const std::string p = resolve(rootDir, i.Scalar());
      if (!fs::exists(p, ec)) {
        error(lineOf(i), key, Text("data.path_missing", {{"path", p}}));
        continue;
      }
      out.push_back(p);
    }
  }

 private:
  void error(int line, const std::string& key, const std::string& message) {
    m_errors.push_back({m_path, line, key, message});
  }
  void error(int line, const std::string& key, Text text) {
    m_errors.push_back(textError(m_path, line, key, std::move(text)));
  }

  /// The class names given by `names` into `names`; their count, -1 without `names`.
  int readNames(std::vector<std::string>& names) {
    auto n = m_doc["names"];
    if (!n) return -1;
    if (n.IsSequence()) {
      for (const auto& item : n) {
        if (!item.IsScalar()) {
          error(lineOf(item), "names", "each class name must be a string");
          continue;
        }
        names.push_back(item.Scalar());
      }
      return static_cast<int>(names.size());
    }
    if (n.IsMap()) return readNameMap(n, names);
    error(lineOf(n), "names",
          "expected a list of class names or a map {id: name}, not a single value");
    return -1;
  }

  int readNameMap(const YAML::Node& n, std::vector<std::string>& names) {
    std::vector<std::pair<long, std::string>> items;
    for (const auto& kv : n) {
      long id = -1;
      try {
        id = kv.first.as<long>();
      } catch (const YAML::Exception&) {
        error(lineOf(kv.first), "names",
              "map keys must be class ids 0..n-1, not '" + kv.first.Scalar() + "'");
        continue;
      }
      if (!kv.second.IsScalar()) {
        error(lineOf(kv.second), "names", "each class name must be a string");
        continue;
      }
      items.emplace_back(id, kv.second.Scalar());
    }
    std::sort(items.begin(), items.end());
    for (size_t i = 0; i < items.size(); ++i) {
      if (items[i].first != static_cast<long>(i)) {
        error(lineOf(n), "names",
              "class ids must be 0.." + std::to_string(items.size() - 1) + " without gaps; id " +
                  std::to_string(i) + " is missing");
        break;
      }
      names.push_back(items[i].second);
    }
    return static_cast<int>(items.size());
  }

  /// `nc` checked against the count of names (updated where nc settles it).
  void readNc(std::vector<std::string>& names, int& ncFromNames) {
    auto nc = m_doc["nc"];
    if (!nc) return;
    int v = -1;
    try {
      v = nc.as<int>();
    } catch (const YAML::Exception&) {
    }
    if (v < 1) {
      error(lineOf(nc), "nc", "expected a positive integer");
    } else if (v > kMaxClasses) {
      error(lineOf(nc), "nc",
            std::to_string(v) + " classes: at most " + std::to_string(kMaxClasses) +
                " are supported (the detection head and the metrics hold one row per class)");
      ncFromNames = v;  // said once: not also "names missing"
    } else if (ncFromNames >= 0 && v != ncFromNames) {
      error(lineOf(nc), "nc",
            Text("data.nc_mismatch", {{"nc", std::to_string(v)}, {"count", std::to_string(ncFromNames)}}));
    } else if (ncFromNames < 0) {
      for (int i = 0; i < v; ++i) names.push_back("class" + std::to_string(i));
      ncFromNames = v;
    }
  }

  const std::string& m_path;
  YAML::Node& m_doc;
  std::vector<Error>& m_errors;
};

/// The YAML document of `path`, a map; errors: unreadable, too deep, not YAML, not a map.
Result<YAML::Node> readYamlMap(const std::string& path) {
  auto text = readFile(path);
  if (!text) return text.errors();
  if (auto deep = jsonTooDeep(text.value(), path)) return *deep;
  YAML::Node doc;
  try {
    doc = YAML::Load(text.value());
  } catch (const YAML::Exception& e) {
    return textError(path, e.mark.line >= 0 ? e.mark.line + 1 : 0, "", Text("data.not_yaml", {{"detail", e.msg}}));
  }
  if (!doc.IsMap())
    return textError(path, 1, "", Text("data.not_a_map"));
  return doc;
}
}  // namespace

Result<DataSpec> loadDataYaml(const std::string& path) {
  auto parsed = readYamlMap(path);
  if (!parsed) return parsed.errors();
  YAML::Node doc = parsed.value();
  DataSpec spec;
  std::error_code ec;
  spec.yamlPath = fs::absolute(path, ec).lexically_normal().string();
  std::vector<Error> errors;
  DataYamlReader reader(path, doc, errors);
  reader.readRoot(fs::path(spec.yamlPath).parent_path(), spec);
  reader.readClasses(spec);
  const fs::path rootDir(spec.root);
  reader.readSources(rootDir, "train", spec.train, true);
  reader.readSources(rootDir, "val", spec.val, true);
  reader.readSources(rootDir, "test", spec.test, false);
  if (!errors.empty()) return errors;
  return spec;
}

}  // namespace stave::data
