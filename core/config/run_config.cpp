#include "core/config/run_config.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "core/base/atomic_file.h"
#include "core/base/bounded_read.h"
#include "core/config/json_keys.h"
#include "core/config/json_read.h"
#include "core/config/yaml_emit.h"

namespace stave::config {
namespace {

const char* kCommandLine = "command line";

// "unknown key (did you mean 'lr0'?); ...", as a catalog message.
Error unknownKeyError(const std::string& source, int line, const std::string& key) {
  const std::string near = closestParam(key);
  return textError(source, line, key,
                   Text("config.unknown_key",
                        {{"near", near.empty() ? Text("plain", {{"text", ""}})
                                               : Text("config.did_you_mean", {{"key", near}})}}));
}

Text describeNode(const YAML::Node& node) {
  if (node.IsNull()) return Text("config.node.null");
  if (node.IsSequence()) return Text("config.node.list");
  if (node.IsMap()) return Text("config.node.map");
  if (node.Tag() == "!") return Text("config.node.string", {{"value", node.Scalar()}});
  return Text("config.node.scalar", {{"value", node.Scalar()}});
}

// Converts one YAML value to the parameter's type. Quoted scalars are strings, so `epochs: "5"`
// is a type error just as it is in JSON.
std::optional<Value> valueFromYaml(const ParamSpec& spec, const YAML::Node& node,
                                   TextParts* why) {
  const bool stringType = spec.type == ParamType::String || spec.type == ParamType::Path ||
                          spec.type == ParamType::Enum;
  auto expected = [&]() -> std::optional<Value> {
    *why = {Text("config.expected", {{"range", describeRangeText(spec)}, {"value", describeNode(node)}})};
    return std::nullopt;
  };
  if (node.IsNull()) {
    if (stringType) return Value(std::string());
    return expected();
  }
  if (node.IsSequence()) {
    if (spec.type != ParamType::IntList) return expected();
    std::vector<int64_t> out;
    for (const auto& item : node) {
      if (!item.IsScalar() || item.Tag() == "!") return expected();
      std::string itemWhy;
      static const ParamSpec intSpec{"", ParamType::Int,    int64_t{0}, 0,    0,
                                     {}, ParamGroup::Model, "",         false};
      auto v = parseValueText(intSpec, item.Scalar(), &itemWhy);
      if (!v) return expected();
      out.push_back(std::get<int64_t>(*v));
    }
    return Value(out);
  }
  if (!node.IsScalar()) return expected();
  if (!stringType && node.Tag() == "!") return expected();
  std::string ignored;  // expected() says it with the range
  auto v = parseValueText(spec, node.Scalar(), &ignored);
  if (!v) return expected();
  return v;
}

std::optional<Value> valueFromJson(const ParamSpec& spec, const nlohmann::json& j,
                                   TextParts* why) {
  auto expected = [&]() -> std::optional<Value> {
    // The value as JSON writes it: a plain argument, never translated.
    *why = {Text("config.expected",
                 {{"range", describeRangeText(spec)},
                  {"value", j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)}})};
    return std::nullopt;
  };
  switch (spec.type) {
    case ParamType::Bool:
      if (!j.is_boolean()) return expected();
      return Value(j.get<bool>());
    case ParamType::Int:
      if (j.is_number_unsigned()) {
        if (j.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) return expected();
        return Value(static_cast<int64_t>(j.get<uint64_t>()));
      }
      if (!j.is_number_integer()) return expected();
      return Value(j.get<int64_t>());
    case ParamType::Float:
      if (j.is_number_integer()) return Value(static_cast<double>(j.get<int64_t>()));
      if (!j.is_number()) return expected();
      return Value(j.get<double>());
    case ParamType::String:
    case ParamType::Enum:
    case ParamType::Path:
      if (j.is_boolean() && enumTakesBool(spec))
        return Value(std::string(j.get<bool>() ? "true" : "false"));
      if (j.is_null()) return Value(std::string());
      if (!j.is_string()) return expected();
      return Value(j.get<std::string>());
    case ParamType::IntList: {
      if (!j.is_array()) return expected();
      std::vector<int64_t> out;
      for (const auto& item : j) {
        if (!item.is_number_integer()) return expected();
        out.push_back(item.get<int64_t>());
      }
      return Value(out);
    }
  }
  return expected();
}

// Rules across keys; single-key rules live in checkValue().
void crossChecks(const RunConfig& c, std::vector<Error>& errors, const std::string& source) {
  if (std::string why = runNameProblem(c.getString("name")); !why.empty())
    errors.push_back({source, 0, "name", why});
  if (c.getInt("node_rank") >= c.getInt("nnodes"))
    errors.push_back(textError(source, 0, "node_rank",
                               Text("config.node_rank", {{"nnodes", std::to_string(c.getInt("nnodes"))},
                                                         {"node_rank", std::to_string(c.getInt("node_rank"))}})));
  const std::string devices = c.getString("devices");
  if (!devices.empty() && devices != "cpu" && checkValue(*findParam("devices"), devices).empty()) {
    const int64_t count = 1 + std::count(devices.begin(), devices.end(), ',');
    if (c.getInt("nproc") > count)
      errors.push_back(textError(source, 0, "nproc",
                                 Text("config.nproc_devices", {{"nproc", std::to_string(c.getInt("nproc"))},
                                                               {"count", std::to_string(count)},
                                                               {"devices", devices}})));
  }
  // Rank 0's rendezvous store listens on master_port of the master; the metrics endpoint of
  // that node cannot take the same port.
  if (c.getInt("metrics_port") != 0 && c.getInt("metrics_port") == c.getInt("master_port"))
    errors.push_back({source, 0, "metrics_port",
                      "is master_port (" + std::to_string(c.getInt("master_port")) +
                          "), where the ranks meet; choose another port for the metrics"});
}

bool looksLikeJson(const std::string& text) {
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    return c == '{';
  }
  return false;
}

}  // namespace

// ---- RunConfig -------------------------------------------------------------------------------

RunConfig RunConfig::defaults() {
  RunConfig c;
  for (const auto& p : runConfigSchema()) c.m_values.push_back(p.defaultValue);
  return c;
}

const Value& RunConfig::get(std::string_view key) const {
  return m_values.at(paramIndex(key));
}

bool RunConfig::getBool(std::string_view key) const {
  const Value& v = get(key);
  STAVE_CHECK(std::holds_alternative<bool>(v), "config key '" << key << "' is not a bool");
  return std::get<bool>(v);
}

int64_t RunConfig::getInt(std::string_view key) const {
  const Value& v = get(key);
  STAVE_CHECK(std::holds_alternative<int64_t>(v), "config key '" << key << "' is not an int");
  return std::get<int64_t>(v);
}

double RunConfig::getFloat(std::string_view key) const {
  const Value& v = get(key);
  if (std::holds_alternative<int64_t>(v)) return static_cast<double>(std::get<int64_t>(v));
  STAVE_CHECK(std::holds_alternative<double>(v), "config key '" << key << "' is not a float");
  return std::get<double>(v);
}

std::string RunConfig::getString(std::string_view key) const {
  const Value& v = get(key);
  STAVE_CHECK(std::holds_alternative<std::string>(v), "config key '" << key << "' is not a string");
  return std::get<std::string>(v);
}

std::vector<int64_t> RunConfig::getIntList(std::string_view key) const {
  const Value& v = get(key);
  STAVE_CHECK(std::holds_alternative<std::vector<int64_t>>(v),
              "config key '" << key << "' is not an int list");
  return std::get<std::vector<int64_t>>(v);
}

Status RunConfig::set(std::string_view key, Value value) {
  const ParamSpec* spec = findParam(key);
  if (!spec) return unknownKeyError("", 0, std::string(key));
  if (spec->type == ParamType::Float && std::holds_alternative<int64_t>(value))
    value = static_cast<double>(std::get<int64_t>(value));
  if (!valueHasType(spec->type, value))
    return textError("", 0, spec->name,
                     Text("config.expected", {{"range", describeRangeText(*spec)}, {"value", formatValue(value)}}));
  m_values[paramIndex(key)] = std::move(value);
  return Ok{};
}

bool RunConfig::isDefault(std::string_view key) const {
  return get(key) == findParam(key)->defaultValue;
}

std::vector<std::string> RunConfig::changedKeys() const {
  std::vector<std::string> out;
  for (const auto& p : runConfigSchema())
    if (!isDefault(p.name)) out.push_back(p.name);
  return out;
}

// ---- reading ---------------------------------------------------------------------------------

Result<RunConfig> runConfigFromJson(const nlohmann::json& object, const std::string& sourceName,
                                    const RunConfig& base) {
  if (!object.is_object())
    return textError(sourceName, 0, "", Text("config.json_not_object"));
  RunConfig config = base;
  std::vector<Error> errors;
  for (const auto& [key, j] : object.items()) {
    const ParamSpec* spec = findParam(key);
    if (!spec) {
      errors.push_back(unknownKeyError(sourceName, 0, key));
      continue;
    }
    TextParts why;
    auto v = valueFromJson(*spec, j, &why);
    if (!v) {
      errors.push_back(textError(sourceName, 0, key, std::move(why)));
      continue;
    }
    if (TextParts bad = checkValueText(*spec, *v); !bad.empty()) {
      errors.push_back(textError(sourceName, 0, key, std::move(bad)));
      continue;
    }
    config.set(key, *v);
  }
  if (errors.empty()) crossChecks(config, errors, sourceName);
  if (!errors.empty()) return errors;
  return config;
}

Result<RunConfig> parseRunConfigYaml(const std::string& text, const std::string& sourceName) {
  // Flow collections nest the same way in YAML as in JSON ("[[[...").
  if (auto deep = jsonTooDeep(text, sourceName)) return *deep;
  nlohmann::json jsonFallback;
  const bool json = looksLikeJson(text);
  if (json) {
    // Check JSON syntax strictly first (YAML would accept more), then read it with the YAML
    // parser below, which knows the line of every key.
    auto parsed = parseJson(text, sourceName);
    if (!parsed) return parsed.errors();
    jsonFallback = std::move(parsed.value());
  }
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    if (json) return runConfigFromJson(jsonFallback, sourceName);
    return textError(sourceName, e.mark.line >= 0 ? e.mark.line + 1 : 0, "",
                     Text("data.not_yaml", {{"detail", e.msg}}));
  }
  RunConfig config = RunConfig::defaults();
  if (root.IsNull()) return config;  // an empty file: all defaults
  if (!root.IsMap())
    return textError(sourceName, root.Mark().line + 1, "", Text("config.not_a_mapping"));
  // A dataset description where a run config belongs (`train coco.yaml`, as some Ultralytics
  // examples read): say what it is rather than listing its keys as unknown.
  if (const YAML::Node& r = root; r["names"] && (r["train"] || r["val"]) && !r["data"] && !r["model"])
    return textError(sourceName, 1, "", Text("config.is_data_yaml", {{"file", sourceName}}));
  std::vector<Error> errors;
  std::map<std::string, int> seen;
  for (const auto& kv : root) {
    const int line = kv.first.Mark().line + 1;
    if (!kv.first.IsScalar()) {
      errors.push_back(textError(sourceName, line, "", Text("config.key_not_plain")));
      continue;
    }
    const std::string key = kv.first.Scalar();
    if (auto it = seen.find(key); it != seen.end()) {
      errors.push_back(textError(sourceName, line, key,
                                 Text("config.duplicate_key", {{"line", std::to_string(it->second)}})));
      continue;
    }
    seen[key] = line;
    const ParamSpec* spec = findParam(key);
    if (!spec) {
      errors.push_back(unknownKeyError(sourceName, line, key));
      continue;
    }
    TextParts why;
    auto v = valueFromYaml(*spec, kv.second, &why);
    if (!v) {
      errors.push_back(textError(sourceName, line, key, std::move(why)));
      continue;
    }
    if (TextParts bad = checkValueText(*spec, *v); !bad.empty()) {
      errors.push_back(textError(sourceName, line, key, std::move(bad)));
      continue;
    }
    config.set(key, *v);
  }
  if (errors.empty()) {
    crossChecks(config, errors, sourceName);
    for (auto& e : errors)  // point at the line that set the key, when the file set it
      if (auto it = seen.find(e.key); it != seen.end()) e.line = it->second;
  }
  if (!errors.empty()) return errors;
  return config;
}

namespace {
// A config file with nothing in it is a mistake (a file cut off, the wrong file), not a request
// for the defaults: without this, the first complaint was about the missing dataset, as if it
// had come from the command line.
Result<std::string> readConfigFile(const std::string& path) {
  auto text = readFileCapped(path);  // a regular file, not a FIFO or a device; capped
  if (!text) return text.errors();
  bool blank = true, comments = false;
  std::istringstream lines(text.value());
  for (std::string line; blank && std::getline(lines, line);) {
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    if (line[first] == '#')
      comments = true;
    else
      blank = false;
  }
  if (blank)
    return textError(path, 0, "",
                     Text(text->empty() ? "config.empty_file"
                          : comments    ? "config.empty_comments"
                                        : "config.empty_blank"));
  return text;
}
}  // namespace

Result<RunConfig> loadRunConfig(const std::string& path) {
  auto text = readConfigFile(path);
  if (!text) return text.errors();
  return parseRunConfigYaml(text.value(), path);
}

Result<RunConfig> loadRunConfigWithOverrides(const std::string& path,
                                             const std::vector<std::string>& overrides) {
  auto text = readConfigFile(path);
  if (!text) return text.errors();
  auto config = parseRunConfigYaml(text.value(), path);
  // Report problems in the overrides too, even when the file has some.
  RunConfig c = config ? config.value() : RunConfig::defaults();
  Status st = applyOverrides(c, overrides);
  std::vector<Error> errors = config.errors();
  if (!st) errors.insert(errors.end(), st.errors().begin(), st.errors().end());
  if (!errors.empty()) return errors;
  return c;
}

// ---- writing ---------------------------------------------------------------------------------

std::string toYaml(const RunConfig& config) {
  YAML::Emitter out;
  out << YAML::Comment("Stave run configuration ('stave-train config-docs' describes every key)");
  out << YAML::BeginMap;
  bool firstGroup = true;
  for (ParamGroup g : paramGroups()) {
    // A blank line before each group's heading. The first Newline ends the line of the previous
    // key's comment; after the header comment the map's start has ended that line already.
    if (!firstGroup) out << YAML::Newline;
    firstGroup = false;
    out << YAML::Newline << YAML::Comment(paramGroupName(g));
    for (const auto& p : runConfigSchema()) {
      if (p.group != g) continue;
      out << YAML::Key << p.name << YAML::Value;
      emitValue(out, config.get(p.name));
      out << YAML::Comment(p.help);
    }
  }
  out << YAML::EndMap;
  return emittedText(out);
}

nlohmann::ordered_json toJsonObject(const RunConfig& config, bool onlyChanged) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& p : runConfigSchema()) {
    if (onlyChanged && config.isDefault(p.name)) continue;
    std::visit([&](const auto& v) { j[p.name] = v; }, config.get(p.name));
  }
  return j;
}

std::string toJson(const RunConfig& config) {
  return toJsonObject(config).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

// ---- overrides, validation, derived values ---------------------------------------------------

Status applyOverrides(RunConfig& config, const std::vector<std::string>& keyValues) {
  std::vector<Error> errors;
  for (const auto& item : keyValues) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      errors.push_back({kCommandLine, 0, "", "expected key=value, got '" + item + "'"});
      continue;
    }
    const std::string key = item.substr(0, eq);
    const std::string text = item.substr(eq + 1);
    const ParamSpec* spec = findParam(key);
    if (!spec) {
      errors.push_back(unknownKeyError(kCommandLine, 0, key));
      continue;
    }
    std::string why;
    auto v = parseValueText(*spec, text, &why);
    if (!v) {
      errors.push_back({kCommandLine, 0, key, why});
      continue;
    }
    if (TextParts bad = checkValueText(*spec, *v); !bad.empty()) {
      errors.push_back(textError(kCommandLine, 0, key, std::move(bad)));
      continue;
    }
    config.set(key, *v);
  }
  if (errors.empty()) crossChecks(config, errors, kCommandLine);
  if (!errors.empty()) return errors;
  return Ok{};
}

std::string runNameProblem(const std::string& name) {
  if (name.empty()) return "";
  if (name == "." || name == "..")
    return "'" + name + "' is not a run name: it must be one folder name inside the runs folder";
  // File systems allow 255 bytes per name; a taken name gets a number, a replaced run a
  // "-replaced-<time>" suffix.
  if (name.size() > 200)
    return "is " + std::to_string(name.size()) +
           " bytes long; a run name may have at most 200 (it becomes a folder name)";
  for (unsigned char ch : name) {
    if (ch == '/')
      return "'" + name + "' must be one folder name (no '/'): runs stay inside the runs "
                          "folder; use project=FOLDER to put them elsewhere";
    if (ch < 0x20 || ch == 0x7f)
      return "must be one folder name without control characters or line breaks";
  }
  return "";
}

bool resumeMayChange(std::string_view key) {
  const ParamSpec* p = findParam(key);
  return p != nullptr && p->resumable;
}

std::vector<Error> validate(const RunConfig& config) {
  std::vector<Error> errors;
  for (const auto& p : runConfigSchema())
    if (TextParts bad = checkValueText(p, config.get(p.name)); !bad.empty())
      errors.push_back(textError("", 0, p.name, std::move(bad)));
  if (errors.empty()) crossChecks(config, errors, "");
  return errors;
}

OptimizerChoice chooseOptimizer(const char* name, double lr0, double momentum, int64_t iterations,
                                int nc) {
  std::string n(name);
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
  OptimizerChoice c;
  if (n == "auto") {
    c.autoChosen = true;
    c.momentum = 0.9;
    if (iterations > 10000) {
      c.sgd = true;
      c.lr0 = 0.01;
    } else {
      c.sgd = false;
      c.lr0 = std::round(0.002 * 5.0 / (4.0 + nc) * 1e6) / 1e6;
    }
    return c;
  }
  STAVE_CHECK(n == "sgd" || n == "adamw", "unknown optimizer '" << name << "'");
  c.sgd = n == "sgd";
  c.lr0 = lr0;
  c.momentum = momentum;
  return c;
}

double scaledWeightDecay(double weightDecay, int64_t globalBatch, int64_t accumulate, int64_t nbs) {
  STAVE_CHECK(nbs > 0, "nbs " << nbs);
  return weightDecay * static_cast<double>(globalBatch) * static_cast<double>(accumulate) /
         static_cast<double>(nbs);
}

Derived derive(const RunConfig& config, int worldSize, const DatasetSize& dataset) {
  STAVE_CHECK(worldSize >= 1, "world size must be positive, got " << worldSize);
  Derived d{};
  const int64_t nbs = config.getInt("nbs");
  d.globalBatch = config.getInt("batch") * worldSize;
  // nearbyint rounds halves to even, like Python's round() in Ultralytics.
  d.accumulate = std::max<int64_t>(
      static_cast<int64_t>(std::nearbyint(static_cast<double>(nbs) / d.globalBatch)), 1);
  d.weightDecay = scaledWeightDecay(config.getFloat("weight_decay"), d.globalBatch, d.accumulate, nbs);
  // Linear scaling rule against the reference batch of 64 (lr0 x global batch / 64).
  d.lrScale = config.getBool("scale_lr_with_batch") ? static_cast<double>(d.globalBatch) / 64.0 : 1.0;
  const std::string name = config.getString("optimizer");
  const bool known = dataset.trainImages >= 0 && dataset.nc > 0;
  const int64_t perStep = std::max(d.globalBatch, nbs);
  d.iterations = known ? (dataset.trainImages + perStep - 1) / perStep * config.getInt("epochs") : -1;
  d.warmupBiasLr = config.getFloat("warmup_bias_lr");
  if (name == "auto" && !known) {
    // Not resolvable yet: the configured values, as a named optimiser would use them.
    d.optimizer = "auto";
    d.autoChosen = true;
    d.lr0 = config.getFloat("lr0") * d.lrScale;
    d.momentum = config.getFloat("momentum");
    d.warmupBiasLr = 0.0;
    return d;
  }
  const OptimizerChoice c = chooseOptimizer(name.c_str(), config.getFloat("lr0"),
                                            config.getFloat("momentum"), d.iterations, dataset.nc);
  d.optimizer = c.sgd ? "SGD" : "AdamW";
  d.autoChosen = c.autoChosen;
  d.lr0 = c.lr0 * d.lrScale;
  d.momentum = c.momentum;
  // optimizer=auto sets warmup_bias_lr to 0, as Ultralytics does (AdamW must not start at 0.1).
  if (c.autoChosen) d.warmupBiasLr = 0.0;
  return d;
}

}  // namespace stave::config
