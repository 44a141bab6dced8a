// Ultralytics args.yaml export and import. Ultralytics' `yolo train cfg=FILE` rejects keys it
// does not know, so the export writes only keys marked `ultralytics` in the schema, converted to
// the types Ultralytics expects.
#include <algorithm>
#include <utility>

#include <yaml-cpp/yaml.h>

#include "core/config/export.h"
#include "core/config/yaml_emit.h"

namespace stave::config {
namespace {

std::string stripSuffix(std::string s, const std::string& suffix) {
  if (s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0)
    s.resize(s.size() - suffix.size());
  return s;
}

// A value as it would be written in YAML, for the comment that lists Stave-only settings.
std::string scalarText(const Value& v) {
  YAML::Emitter out;
  emitValue(out, v);
  STAVE_CHECK(out.good(), "YAML emitter: " << out.GetLastError());
  return out.c_str();
}

int64_t worldSize(const RunConfig& c) {
  return c.getInt("nproc") * c.getInt("nnodes");
}

}  // namespace

std::string toUltralyticsYaml(const RunConfig& c, const std::string& description) {
  const int64_t world = worldSize(c);
  YAML::Emitter out;
  out.SetNullFormat(YAML::LowerNull);  // Ultralytics' own files say null
  emitComment(out, "Ultralytics args.yaml exported by Stave; use: yolo train cfg=THIS_FILE");
  if (!description.empty()) emitComment(out, commentText(description));
  emitComment(out, "batch is Ultralytics' global batch: Stave's per-rank batch " +
                       std::to_string(c.getInt("batch")) + " x " + std::to_string(world) +
                       " rank(s)");
  emitComment(out,
              "Stave-only settings (Ultralytics does not know them; devices became 'device'):");
  for (const auto& p : runConfigSchema())
    if (!p.ultralytics && p.name != "devices")
      emitComment(out, "  " + p.name + ": " + scalarText(c.get(p.name)));
  // Ultralytics loads only checkpoints Ultralytics wrote; a Stave checkpoint needs
  // `export-weights --format ultralytics` first, so the path stays a comment.
  if (!c.getString("pretrained").empty())
    emitComment(out, "  pretrained: " + scalarText(c.get("pretrained")) +
                         "  (Ultralytics loads a Stave checkpoint only after `stave-train "
                         "export-weights --format ultralytics`)");
  out << YAML::BeginMap;
  out << YAML::Key << "task" << YAML::Value << "detect";
  out << YAML::Key << "mode" << YAML::Value << "train";
  for (const auto& p : runConfigSchema()) {
    if (!p.ultralytics) continue;
    out << YAML::Key << p.name << YAML::Value;
    if (p.name == "model") {
      const std::string model = c.getString("model");
      out << YAML::DoubleQuoted
          << (isCheckpointModel(model) ? model : stripSuffix(model, ".yaml") + ".yaml");
    } else if (p.name == "pretrained") {
      out << false;
    } else if (p.name == "cache") {
      // Ultralytics' cache is false, true, 'ram' or 'disk'.
      if (c.getString("cache") == "none")
        out << false;
      else
        out << c.getString("cache");
    } else if (p.name == "batch") {
      out << c.getInt("batch") * world;
    } else if ((p.name == "time" && c.getFloat("time") == 0.0) ||
               ((p.name == "name" || p.name == "project") && c.getString(p.name).empty())) {
      out << YAML::Null;
    } else {
      emitValue(out, c.get(p.name));
    }
  }
  const std::string devices = c.getString("devices");
  out << YAML::Key << "device" << YAML::Value;
  if (devices.empty())
    out << YAML::Null;
  else
    out << YAML::DoubleQuoted << devices;
  out << YAML::EndMap;
  return emittedText(out);
}

namespace {

// One args.yaml being read into a RunConfig: what the entries found so far left behind (errors,
// warnings, Ultralytics' global batch, the ranks its device list names).
class UltralyticsImporter {
 public:
  explicit UltralyticsImporter(const std::string& sourceName) : m_sourceName(sourceName) {}

  void readEntry(const YAML::Node& keyNode, const YAML::Node& v) {
    const std::string key = keyNode.Scalar();
    const int line = keyNode.Mark().line + 1;
    const std::string scalar = v.IsScalar() ? v.Scalar() : std::string();
    if (key == "mode" || key == "cfg") return;  // how Ultralytics was called, not a setting
    if (key == "task") {
      if (scalar != "detect")
        warn(line, key, "task '" + scalar + "' is not supported; Stave trains detection");
      return;
    }
    if (key == "device") {
      readDevice(line, key, v, scalar);
      return;
    }
    const ParamSpec* spec = findParam(key);
    // A Stave key that Ultralytics does not have under this meaning (rect: Ultralytics trains
    // in rectangular batches, Stave validates in them) is not carried over.
    if (!spec || !spec->ultralytics) {
      m_out.droppedKeys.push_back(key);
      return;
    }
    if (v.IsNull()) return;  // Ultralytics' "not set": keep Stave's default
    if (key == "batch")
      readBatch(line, key, *spec, scalar);
    else if (key == "model")
      readModel(line, key, scalar);
    else if (key == "pretrained")
      readPretrained(line, key, scalar);
    else if (key == "cache")
      readCache(line, key, scalar);
    else
      readOther(line, key, *spec, v, scalar);
  }

  // Called once, after the last entry: the importer is spent.
  Result<UltralyticsImport> finish() {
    // Ultralytics' batch is global; Stave's is per rank.
    if (m_ultralyticsBatch > 0) {
      if (m_ultralyticsBatch % m_ranks != 0)
        warn(m_batchLine, "batch",
             "global batch " + std::to_string(m_ultralyticsBatch) + " does not divide by " +
                 std::to_string(m_ranks) + " GPUs; using " +
                 std::to_string(std::max<int64_t>(1, m_ultralyticsBatch / m_ranks)) + " per rank");
      setChecked(m_batchLine, "batch", std::max<int64_t>(1, m_ultralyticsBatch / m_ranks));
    }
    RunConfig& c = m_out.config;
    c.set("nproc", m_ranks);
    if (!m_errors.empty()) return std::move(m_errors);
    for (auto& e : validate(c)) {
      e.file = m_sourceName;
      m_errors.push_back(e);
    }
    if (!m_errors.empty()) return std::move(m_errors);
    return std::move(m_out);
  }

 private:
  void warn(int line, const std::string& key, const std::string& msg) {
    m_out.warnings.push_back({m_sourceName, line, key, msg});
  }

  void setChecked(int line, const std::string& key, const Value& v) {
    const ParamSpec* spec = findParam(key);
    if (std::string bad = checkValue(*spec, v); !bad.empty())
      m_errors.push_back({m_sourceName, line, key, bad});
    else
      m_out.config.set(key, v);
  }

  void readDevice(int line, const std::string& key, const YAML::Node& v,
                  const std::string& scalar) {
    std::string d;
    if (v.IsSequence()) {
      for (const auto& item : v) d += (d.empty() ? "" : ",") + item.Scalar();
    } else if (!v.IsNull()) {
      d = scalar;
    }
    std::string cleaned;
    for (char ch : d)
      if (ch != ' ') cleaned += ch;
    if (cleaned.rfind("cuda:", 0) == 0) cleaned = cleaned.substr(5);
    if (cleaned == "mps") {
      warn(line, key, "device 'mps' is not supported; using the CPU");
      cleaned = "cpu";
    }
    setChecked(line, "devices", cleaned);
    if (!cleaned.empty() && cleaned != "cpu")
      m_ranks = 1 + static_cast<int64_t>(std::count(cleaned.begin(), cleaned.end(), ','));
  }

  void readBatch(int line, const std::string& key, const ParamSpec& spec,
                 const std::string& scalar) {
    int64_t b = 0;
    std::string why;
    auto parsed = parseValueText(spec, scalar, &why);
    if (parsed) b = std::get<int64_t>(*parsed);
    if (!parsed || b < 1) {
      warn(line, key,
           "batch " + scalar + " (AutoBatch) has no Stave equivalent; using " +
               formatValue(spec.defaultValue) + " per rank");
      return;
    }
    m_ultralyticsBatch = b;
    m_batchLine = line;
  }

  void readModel(int line, const std::string& key, const std::string& scalar) {
    // A checkpoint gives architecture and weights, as in Ultralytics; Stave reads Ultralytics'
    // files itself but never downloads one, so a bare name such as yolo11n.pt must be a file
    // by the time the run starts.
    if (isCheckpointModel(scalar)) {
      if (scalar.find('/') == std::string::npos && !modelName(stripSuffix(scalar, ".pt")).empty())
        warn(line, key,
             "'" + scalar + "' must be a file when the run starts: Stave does not download "
             "weights (Ultralytics publishes them at github.com/ultralytics/assets/releases)");
      setChecked(line, key, scalar);
      return;
    }
    std::string m = scalar;
    if (auto slash = m.find_last_of('/'); slash != std::string::npos) m = m.substr(slash + 1);
    setChecked(line, key, stripSuffix(m, ".yaml"));
  }

  void readPretrained(int line, const std::string& key, const std::string& scalar) {
    // true/false: Ultralytics' switch for the weights of a model=.pt, which Stave always takes.
    if (scalar == "true" || scalar == "True" || scalar == "false" || scalar == "False") return;
    setChecked(line, key, scalar);
  }

  void readCache(int line, const std::string& key, const std::string& scalar) {
    std::string m = scalar;
    if (m == "true" || m == "True") m = "ram";
    if (m == "false" || m == "False") m = "none";
    setChecked(line, key, m);
  }

  void readOther(int line, const std::string& key, const ParamSpec& spec, const YAML::Node& v,
                 const std::string& scalar) {
    std::string why;
    std::optional<Value> parsed;
    if (v.IsScalar() && !(spec.type != ParamType::String && spec.type != ParamType::Path &&
                          spec.type != ParamType::Enum && v.Tag() == "!"))
      parsed = parseValueText(spec, scalar, &why);
    if (!parsed) {
      m_errors.push_back(
          {m_sourceName, line, key,
           "expected " + describeRange(spec) + ", got " +
               (v.IsScalar() ? "'" + scalar + "'" : std::string("a list or mapping"))});
      return;
    }
    setChecked(line, key, *parsed);
  }

  const std::string& m_sourceName;
  UltralyticsImport m_out;
  std::vector<Error> m_errors;
  int64_t m_ultralyticsBatch = 0;
  int m_batchLine = 0;
  int64_t m_ranks = 1;
};

}  // namespace

Result<UltralyticsImport> importUltralytics(const std::string& text,
                                            const std::string& sourceName) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Error{sourceName, e.mark.line >= 0 ? e.mark.line + 1 : 0, "",
                 "not valid YAML: " + e.msg};
  }
  if (!root.IsMap())
    return Error{sourceName, 0, "", "expected Ultralytics' args.yaml: a mapping of 'key: value'"};
  UltralyticsImporter importer(sourceName);
  for (const auto& kv : root) importer.readEntry(kv.first, kv.second);
  return importer.finish();
}

}  // namespace stave::config
