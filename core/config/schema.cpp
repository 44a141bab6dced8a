#include "core/config/schema.h"

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "core/base/result.h"

namespace stave::config {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

using G = ParamGroup;
using T = ParamType;

size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The spellings of a bool a config accepts: true/yes/on, false/no/off, any case.
std::optional<bool> boolFromText(const std::string& text) {
  const std::string l = lower(text);
  if (l == "true" || l == "yes" || l == "on") return true;
  if (l == "false" || l == "no" || l == "off") return false;
  return std::nullopt;
}

bool parseInt(const std::string& t, int64_t* out) {
  if (t.empty()) return false;
  size_t i = (t[0] == '-' || t[0] == '+') ? 1 : 0;
  if (i >= t.size()) return false;
  for (size_t k = i; k < t.size(); ++k)
    if (!std::isdigit(static_cast<unsigned char>(t[k]))) return false;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(t.c_str(), &end, 10);
  if (errno == ERANGE || *end != '\0') return false;
  *out = static_cast<int64_t>(v);
  return true;
}

bool parseFloat(const std::string& t, double* out) {
  if (t.empty()) return false;
  // strtod also reads hex, inf and nan; a config value is plain decimal.
  for (char c : t)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' ||
          c == '-' || c == '+'))
      return false;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

std::string quoteForMessage(std::string_view text) {
  return "'" + std::string(text) + "'";
}

std::string formatBound(const ParamSpec& spec, double v) {
  if (spec.type == ParamType::Int) {
    std::ostringstream os;
    os << static_cast<int64_t>(v);
    return os.str();
  }
  return formatFloat(v);
}

// Rules a range cannot express. Keyed by name so each row's extra rule sits in one place.
std::string extraRule(const ParamSpec& spec, const Value& value) {
  if (spec.name == "imgsz") {
    if (std::get<int64_t>(value) % 32 != 0)
      return "must be a multiple of 32 (the largest stride), got " + formatValue(value);
  } else if (spec.name == "devices") {
    const auto& s = std::get<std::string>(value);
    if (s.empty() || s == "cpu") return "";
    bool ok = true, digit = false;
    for (size_t i = 0; i < s.size(); ++i) {
      char c = s[i];
      if (std::isdigit(static_cast<unsigned char>(c))) {
        digit = true;
      } else if (c == ',' && digit && i + 1 < s.size()) {
        digit = false;
      } else {
        ok = false;
        break;
      }
    }
    if (!ok || !digit)
      return "expected '' (all visible GPUs), 'cpu' or GPU indices such as '0,1,3', got " +
             quoteForMessage(s);
    // Two ranks on one GPU would each assume the whole card (memory, NCCL peers).
    std::vector<std::string> seen;
    std::istringstream in(s);
    for (std::string id; std::getline(in, id, ',');) {
      id.erase(0, std::min(id.find_first_not_of('0'), id.size() - 1));  // "00" is GPU 0
      if (std::find(seen.begin(), seen.end(), id) != seen.end())
        return "GPU " + id + " is listed twice in " + quoteForMessage(s) +
               "; each rank needs a GPU of its own";
      seen.push_back(id);
    }
  } else if (spec.name == "master_addr") {
    if (std::get<std::string>(value).empty()) return "must not be empty (e.g. 127.0.0.1)";
  } else if (spec.name == "socket_ifname") {
    // Interface names, as NCCL_SOCKET_IFNAME takes them: a comma list, '^' to exclude, '=' for
    // an exact name.
    const std::string& s = std::get<std::string>(value);
    if (s.size() > 256) return "is too long for interface names (at most 256 characters)";
    for (unsigned char c : s)
      if (!std::isalnum(c) && std::string_view("_-.:,^=@").find(static_cast<char>(c)) ==
                                  std::string_view::npos)
        return quoteForMessage(s) +
               " is not a list of interface names (letters, digits, _ - . : @, commas, ^ and =)";
  }
  return "";
}

}  // namespace

const ParamSpec* findParam(std::string_view name) {
  for (const auto& p : runConfigSchema())
    if (p.name == name) return &p;
  return nullptr;
}

size_t paramIndex(std::string_view name) {
  const auto& s = runConfigSchema();
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i].name == name) return i;
  STAVE_CHECK(false, "unknown config key '" << name << "'");
  return 0;
}

double defaultNumber(std::string_view name) {
  const Value& v = runConfigSchema()[paramIndex(name)].defaultValue;
  if (const auto* b = std::get_if<bool>(&v)) return *b ? 1.0 : 0.0;
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  const auto* d = std::get_if<double>(&v);
  STAVE_CHECK(d, "config key '" << name << "' has no numeric default");
  return *d;
}

std::string closestParam(std::string_view name) {
  std::string best;
  size_t bestDist = std::numeric_limits<size_t>::max();
  const std::string lname = lower(std::string(name));
  for (const auto& p : runConfigSchema()) {
    size_t d = editDistance(lname, p.name);
    if (d < bestDist) {
      bestDist = d;
      best = p.name;
    }
  }
  // Close enough to be a typo: one edit per four characters, at least one.
  const size_t limit = std::max<size_t>(1, name.size() / 4);
  return bestDist <= limit ? best : std::string();
}

const char* paramTypeName(ParamType type) {
  switch (type) {
    case T::Bool:
      return "bool";
    case T::Int:
      return "int";
    case T::Float:
      return "float";
    case T::String:
      return "string";
    case T::Enum:
      return "enum";
    case T::Path:
      return "path";
    case T::IntList:
      return "int list";
  }
  return "?";
}

const char* paramGroupName(ParamGroup group) {
  switch (group) {
    case G::Model:
      return "model";
    case G::Data:
      return "data";
    case G::Optimisation:
      return "optimisation";
    case G::Augmentation:
      return "augmentation";
    case G::Hardware:
      return "hardware";
    case G::Distributed:
      return "distributed";
    case G::Logging:
      return "logging";
  }
  return "?";
}

const std::vector<ParamGroup>& paramGroups() {
  static const std::vector<ParamGroup> groups = {
      G::Model, G::Data, G::Optimisation, G::Augmentation, G::Hardware, G::Distributed, G::Logging};
  return groups;
}

bool valueHasType(ParamType type, const Value& value) {
  switch (type) {
    case T::Bool:
      return std::holds_alternative<bool>(value);
    case T::Int:
      return std::holds_alternative<int64_t>(value);
    case T::Float:
      return std::holds_alternative<double>(value);
    case T::String:
    case T::Enum:
    case T::Path:
      return std::holds_alternative<std::string>(value);
    case T::IntList:
      return std::holds_alternative<std::vector<int64_t>>(value);
  }
  return false;
}

std::string formatFloat(double v) {
  char buf[64];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s(buf);
  if (s.find_first_of(".eEn") == std::string::npos) {
    s += ".0";
  } else if (auto e = s.find('e'); e != std::string::npos && s.find('.') == std::string::npos) {
    s.insert(e, ".0");  // PyYAML (YAML 1.1) reads 1e-05 as a string, 1.0e-05 as a float
  }
  return s;
}

std::string formatValue(const Value& value) {
  struct Visitor {
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return formatFloat(d); }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(const std::vector<int64_t>& v) const {
      std::string out;
      for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
      return out;
    }
  };
  return std::visit(Visitor{}, value);
}

Text describeRangeText(const ParamSpec& spec) {
  switch (spec.type) {
    case T::Bool:
      return Text("config.range.bool");
    case T::Int:
    case T::Float: {
      const std::string what = spec.type == T::Int ? "config.range.integer" : "config.range.number";
      if (std::isinf(spec.min) && std::isinf(spec.max)) return Text(what);
      if (std::isinf(spec.max)) return Text(what + "_min", {{"min", formatBound(spec, spec.min)}});
      if (std::isinf(spec.min)) return Text(what + "_max", {{"max", formatBound(spec, spec.max)}});
      return Text(what + "_in", {{"min", formatBound(spec, spec.min)}, {"max", formatBound(spec, spec.max)}});
    }
    case T::Enum: {
      std::string out;
      for (size_t i = 0; i < spec.choices.size(); ++i) {
        if (i) out += ", ";
        out += spec.choices[i].empty() ? "'' (empty)" : spec.choices[i];
      }
      return Text("config.range.one_of", {{"choices", out}});
    }
    case T::String:
      return Text("config.range.string");
    case T::Path:
      return Text("config.range.path");
    case T::IntList:
      return Text("config.range.int_list");
  }
  return Text("plain", {{"text", ""}});
}

std::string describeRange(const ParamSpec& spec) {
  return english(describeRangeText(spec));
}

bool enumTakesBool(const ParamSpec& spec) {
  auto has = [&spec](const char* c) {
    return std::find(spec.choices.begin(), spec.choices.end(), c) != spec.choices.end();
  };
  return spec.type == T::Enum && has("true") && has("false");
}

std::optional<Value> parseValueText(const ParamSpec& spec, std::string_view raw, std::string* why) {
  const std::string text =
      (spec.type == T::String || spec.type == T::Path) ? std::string(raw) : trim(raw);
  auto fail = [&](const std::string& expected) -> std::optional<Value> {
    if (why) *why = "expected " + expected + ", got " + quoteForMessage(text);
    return std::nullopt;
  };
  switch (spec.type) {
    case T::Bool: {
      if (auto b = boolFromText(text)) return Value(*b);
      return fail("true or false");
    }
    case T::Int: {
      int64_t v = 0;
      if (!parseInt(text, &v)) return fail("an integer");
      return Value(v);
    }
    case T::Float: {
      double v = 0;
      if (!parseFloat(text, &v)) return fail("a number");
      return Value(v);
    }
    case T::Enum:
      // An auto/true/false key reads the spellings a bool key reads (old files held a bool).
      if (enumTakesBool(spec)) {
        if (auto b = boolFromText(text)) return Value(std::string(*b ? "true" : "false"));
      }
      return Value(text);
    case T::String:
    case T::Path:
      return Value(text);
    case T::IntList: {
      std::vector<int64_t> out;
      std::string t = text;
      if (t.size() >= 2 && t.front() == '[' && t.back() == ']') t = t.substr(1, t.size() - 2);
      if (trim(t).empty()) return Value(out);
      std::stringstream ss(t);
      std::string item;
      while (std::getline(ss, item, ',')) {
        int64_t v = 0;
        if (!parseInt(trim(item), &v)) return fail("a list of integers such as 0,1,2");
        out.push_back(v);
      }
      return Value(out);
    }
  }
  return std::nullopt;
}

std::string checkValue(const ParamSpec& spec, const Value& value) {
  return english(checkValueText(spec, value));
}

TextParts checkValueText(const ParamSpec& spec, const Value& value) {
  if (!valueHasType(spec.type, value)) {
    if (!(spec.type == T::Float && std::holds_alternative<int64_t>(value)))
      return {Text("config.wrong_type", {{"type", paramTypeName(spec.type)},
                                         {"range", describeRangeText(spec)},
                                         {"value", formatValue(value)}})};
  }
  switch (spec.type) {
    case T::Int:
    case T::Float: {
      const double v = std::holds_alternative<int64_t>(value)
                           ? static_cast<double>(std::get<int64_t>(value))
                           : std::get<double>(value);
      if (v < spec.min || v > spec.max)
        return {Text("config.out_of_range", {{"value", formatValue(value)}, {"range", describeRangeText(spec)}})};
      break;
    }
    case T::Enum: {
      std::string s = std::get<std::string>(value);
      // model accepts Ultralytics' architecture file names too, and a checkpoint to start from.
      if (spec.name == "model" && isCheckpointModel(s)) break;
      if (spec.name == "model" && s.size() > 5 && s.compare(s.size() - 5, 5, ".yaml") == 0)
        s.resize(s.size() - 5);
      if (std::find(spec.choices.begin(), spec.choices.end(), s) == spec.choices.end())
        return {Text("config.not_a_choice", {{"value", quoteForMessage(std::get<std::string>(value))},
                                             {"range", describeRangeText(spec)}})};
      break;
    }
    default:
      break;
  }
  if (std::string extra = extraRule(spec, value); !extra.empty())
    return {Text("plain", {{"text", std::move(extra)}})};
  return {};
}

std::string modelName(std::string_view model) {
  std::string m(model);
  if (m.size() > 5 && m.compare(m.size() - 5, 5, ".yaml") == 0) m.resize(m.size() - 5);
  if (m.size() == 1) m = "yolov8" + m;  // checkpoints of Stave before YOLO11 hold the letter
  for (const char* family : {"yolov8", "yolo11"}) {
    const size_t n = std::char_traits<char>::length(family);
    if (m.size() == n + 1 && m.compare(0, n, family) == 0 &&
        std::string_view("nsmlx").find(m[n]) != std::string_view::npos)
      return m;
  }
  return "";
}

std::string modelScale(std::string_view model) {
  const std::string name = modelName(model);
  return name.empty() ? "" : name.substr(name.size() - 1);
}

bool isCheckpointModel(std::string_view model) {
  return model.size() > 3 && model.compare(model.size() - 3, 3, ".pt") == 0;
}
}  // namespace stave::config
