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
}  // namespace

Result<DataSpec> loadDataYaml(const std::string& path) {
  auto text = readFile(path);
  if (!text) return text.errors();
  if (auto deep = jsonTooDeep(text.value(), path)) return *deep;
  YAML::Node doc;
  try {
    doc = YAML::Load(text.value());
  } catch (const YAML::Exception& e) {
    return Error{path, e.mark.line >= 0 ? e.mark.line + 1 : 0, "", "not valid YAML: " + e.msg};
  }
  if (!doc.IsMap())
    return Error{path, 1, "", "expected a map with keys path, train, val, test, names"};

  DataSpec spec;
  std::error_code ec;
  spec.yamlPath = fs::absolute(path, ec).lexically_normal().string();
  const fs::path yamlDir = fs::path(spec.yamlPath).parent_path();
  std::vector<Error> errors;

  // path: the dataset root, relative to the yaml's folder.
  spec.root = yamlDir.string();
  if (auto p = doc["path"]) {
    if (!p.IsScalar()) {
      errors.push_back({path, lineOf(p), "path", "expected a folder path"});
    } else if (!p.Scalar().empty()) {
      spec.root = resolve(yamlDir, p.Scalar());
      if (!fs::is_directory(spec.root, ec))
        errors.push_back({path, lineOf(p), "path", "folder does not exist: " + spec.root});
    }
  }

  // names: a list, or a map {id: name} with ids 0..n-1.
  int ncFromNames = -1;
  if (auto n = doc["names"]) {
    if (n.IsSequence()) {
      for (const auto& item : n) {
        if (!item.IsScalar()) {
          errors.push_back({path, lineOf(item), "names", "each class name must be a string"});
          continue;
        }
        spec.names.push_back(item.Scalar());
      }
      ncFromNames = static_cast<int>(spec.names.size());
    } else if (n.IsMap()) {
      std::vector<std::pair<long, std::string>> items;
      for (const auto& kv : n) {
        long id = -1;
        try {
          id = kv.first.as<long>();
        } catch (const YAML::Exception&) {
          errors.push_back({path, lineOf(kv.first), "names",
                            "map keys must be class ids 0..n-1, not '" + kv.first.Scalar() + "'"});
          continue;
        }
        if (!kv.second.IsScalar()) {
          errors.push_back({path, lineOf(kv.second), "names", "each class name must be a string"});
          continue;
        }
        items.emplace_back(id, kv.second.Scalar());
      }
      std::sort(items.begin(), items.end());
      for (size_t i = 0; i < items.size(); ++i) {
        if (items[i].first != static_cast<long>(i)) {
          errors.push_back({path, lineOf(n), "names",
                            "class ids must be 0.." + std::to_string(items.size() - 1) +
                                " without gaps; id " + std::to_string(i) + " is missing"});
          break;
        }
        spec.names.push_back(items[i].second);
      }
      ncFromNames = static_cast<int>(items.size());
    } else {
      errors.push_back({path, lineOf(n), "names",
                        "expected a list of class names or a map {id: name}, not a single value"});
    }
  }
  if (auto nc = doc["nc"]) {
    int v = -1;
    try {
      v = nc.as<int>();
    } catch (const YAML::Exception&) {
    }
    if (v < 1) {
      errors.push_back({path, lineOf(nc), "nc", "expected a positive integer"});
    } else if (v > kMaxClasses) {
      errors.push_back({path, lineOf(nc), "nc",
                        std::to_string(v) + " classes: at most " + std::to_string(kMaxClasses) +
                            " are supported (the detection head and the metrics hold one row "
                            "per class)"});
      ncFromNames = v;  // said once: not also "names missing"
    } else if (ncFromNames >= 0 && v != ncFromNames) {
      errors.push_back({path, lineOf(nc), "nc",
                        "nc is " + std::to_string(v) + " but names has " +
                            std::to_string(ncFromNames) + " entries"});
    } else if (ncFromNames < 0) {
      for (int i = 0; i < v; ++i) spec.names.push_back("class" + std::to_string(i));
      ncFromNames = v;
    }
  }
  if (ncFromNames > kMaxClasses && !doc["nc"])
    errors.push_back({path, lineOf(doc["names"]), "names",
                      std::to_string(ncFromNames) + " classes: at most " +
                          std::to_string(kMaxClasses) + " are supported"});
  if (ncFromNames < 0)
    errors.push_back(
        {path, 0, "names", "missing: data.yaml needs class names (names: [a, b, ...])"});
  else if (ncFromNames == 0)
    errors.push_back({path, lineOf(doc["names"]), "names", "no classes given"});

  // train / val / test: a folder, a .txt list, an image, or a list of these.
  const fs::path rootDir(spec.root);
  auto readSources = [&](const char* key, std::vector<std::string>& out, bool required) {
    auto node = doc[key];
    if (!node || node.IsNull()) {
      if (required)
        errors.push_back({path, 0, key,
                          std::string("missing: data.yaml needs '") + key +
                              "' (a folder, a .txt list of images, or a list of them)"});
      return;
    }
    std::vector<YAML::Node> items;
    if (node.IsScalar())
      items.push_back(node);
    else if (node.IsSequence())
      for (const auto& i : node) items.push_back(i);
    else {
      errors.push_back({path, lineOf(node), key, "expected a path or a list of paths"});
      return;
    }
    if (items.empty() && required)
      errors.push_back({path, lineOf(node), key, "the list of paths is empty"});
    for (const auto& i : items) {
      if (!i.IsScalar()) {
        errors.push_back({path, lineOf(i), key, "expected a path"});
        continue;
      }
      const std::string p = resolve(rootDir, i.Scalar());
      if (!fs::exists(p, ec)) {
        errors.push_back({path, lineOf(i), key, "path does not exist: " + p});
        continue;
      }
      out.push_back(p);
    }
  };
  readSources("train", spec.train, true);
  readSources("val", spec.val, true);
  readSources("test", spec.test, false);
  if (!errors.empty()) return errors;
  return spec;
}

}  // namespace stave::data
