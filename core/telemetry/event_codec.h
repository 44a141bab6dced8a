#pragma once
// Internal to core/telemetry: what the event codec's files share (the field reader that
// collects every problem of a payload, the envelope's type check, enum and timing fields).
// Not a public header: include it only from core/telemetry/events*.cpp.

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/config/member_table.h"
#include "core/telemetry/events.h"

namespace stave::telemetry::codec {

using nlohmann::json;


inline const char* jsonTypeName(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "bool";
  if (v.is_number_integer()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  return "object";
}

inline bool isIntegral(const json& v) {
  if (v.is_number_integer()) return true;
  // Some writers (other languages) print integers as 3.0; accept those, refuse 3.5.
  if (v.is_number_float()) {
    const double d = v.get<double>();
    return std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15;
  }
  return false;
}

// Reads fields of one JSON object into typed members, collecting every problem (not just the
// first) so a bad producer is diagnosed in one go. Missing optional fields keep their default.
class FieldReader {
 public:
  FieldReader(const json& obj, std::string prefix) : m_obj(obj), m_prefix(std::move(prefix)) {}

  void num(const char* key, double& out, bool required = true) {
    const json* v = find(key, required);
    if (!v) return;
    if (v->is_null()) {
      out = std::numeric_limits<double>::quiet_NaN();  // how a non-finite value travels
    } else if (v->is_number()) {
      out = v->get<double>();
    } else {
      wrongType(key, "event.json.number", *v);
    }
  }
  template <typename Int>
  void integer(const char* key, Int& out, bool required = true) {
    const json* v = find(key, required);
    if (!v) return;
    if (isIntegral(*v)) {
      out = static_cast<Int>(v->is_number_integer() ? v->get<int64_t>()
                                                    : static_cast<int64_t>(v->get<double>()));
    } else {
      wrongType(key, "event.json.integer", *v);
    }
  }
  void optInteger(const char* key, std::optional<int>& out) {
    const json* v = find(key, false);
    if (!v || v->is_null()) return;
    int value = 0;
    integer(key, value);
    out = value;
  }
  void boolean(const char* key, bool& out, bool required = true) {
    const json* v = find(key, required);
    if (!v) return;
    if (v->is_boolean()) {
      out = v->get<bool>();
    } else {
      wrongType(key, "event.json.boolean", *v);
    }
  }
  void str(const char* key, std::string& out, bool required = true) {
    const json* v = find(key, required);
    if (!v) return;
    if (v->is_string()) {
      out = v->get<std::string>();
    } else {
      wrongType(key, "event.json.string", *v);
    }
  }
  void strList(const char* key, std::vector<std::string>& out, bool required = true) {
    const json* v = find(key, required);
    if (!v) return;
    if (!v->is_array()) return wrongType(key, "event.json.strings", *v);
    out.clear();
    for (size_t i = 0; i < v->size(); ++i) {
      if (!(*v)[i].is_string()) {
        return mustBe(std::string(key) + "[" + std::to_string(i) + "]", "event.json.string",
                      (*v)[i]);
      }
      out.push_back((*v)[i].get<std::string>());
    }
  }
  void numList(const char* key, std::vector<double>& out, bool required = true) {
    const json* v = find(key, required);
    if (!v) return;
    if (!v->is_array()) return wrongType(key, "event.json.numbers", *v);
    out.clear();
    for (size_t i = 0; i < v->size(); ++i) {
      const json& x = (*v)[i];
      if (x.is_null()) {
        out.push_back(std::numeric_limits<double>::quiet_NaN());
      } else if (x.is_number()) {
        out.push_back(x.get<double>());
      } else {
        return mustBe(std::string(key) + "[" + std::to_string(i) + "]", "event.json.number", x);
      }
    }
  }
  // A message's catalog form (events.h, textToJson); optional: old logs have none.
  void text(const char* key, TextParts& out) {
    const json* v = find(key, false);
    if (!v) return;
    auto parts = textFromJson(*v);
    if (!parts) {
      for (const auto& e : parts.errors()) {
        Error named = e;
        named.key = path(std::string(key) + e.key);
        m_errors.push_back(std::move(named));
      }
      return;
    }
    out = std::move(parts.value());
  }
  // A nested object; returns nullptr (after recording why) when absent or not an object.
  const json* object(const char* key, bool required = true) {
    const json* v = find(key, required);
    if (!v) return nullptr;
    if (!v->is_object()) {
      wrongType(key, "event.json.object", *v);
      return nullptr;
    }
    return v;
  }
  const json* array(const char* key, bool required = true) {
    const json* v = find(key, required);
    if (!v) return nullptr;
    if (!v->is_array()) {
      wrongType(key, "event.json.array", *v);
      return nullptr;
    }
    return v;
  }
  std::string path(const std::string& key) const { return m_prefix + key; }
  void error(const std::string& key, const std::string& message) {
    m_errors.push_back(Error{"", 0, path(key), message});
  }
  /// A problem as a catalog message (core/base/message.h), so the studio says it in its
  /// language.
  void error(const std::string& key, Text message) {
    m_errors.push_back(textError("", 0, path(key), std::move(message)));
  }
  /// "must be <expected>, got <JSON type>": `expected` is a catalog id (event.json.*).
  void mustBe(const std::string& key, const char* expected, const json& got) {
    error(key, Text("event.must_be", {{"expected", Text(expected)}, {"got", jsonTypeName(got)}}));
  }
  void append(const std::vector<Error>& errors) {
    m_errors.insert(m_errors.end(), errors.begin(), errors.end());
  }
  std::vector<Error>& errors() { return m_errors; }

 private:
  const json* find(const char* key, bool required) {
    auto it = m_obj.find(key);
    if (it == m_obj.end()) {
      if (required) error(key, Text("event.missing"));
      return nullptr;
    }
    return &*it;
  }
  void wrongType(const char* key, const char* expected, const json& got) {
    mustBe(key, expected, got);
  }

  const json& m_obj;
  std::string m_prefix;
  std::vector<Error> m_errors;
};

// Reads the members of a table through `r`, so an event's plain fields read with the codec's
// rules (null numbers as NaN, 3.0 as an integer, every problem collected) and its messages; a
// row is required unless optional. List members of other element types are not event fields.
template <class S>
void readMembers(FieldReader& r, const config::MemberTable<S>& table, S& s) {
  config::forEachMember(table, [&](const config::MemberField<S>& f, auto member) {
    using M = std::remove_reference_t<decltype(s.*member)>;
    const bool required = !f.optional;
    if constexpr (std::is_same_v<M, bool>)
      r.boolean(f.key, s.*member, required);
    else if constexpr (std::is_integral_v<M>)
      r.integer(f.key, s.*member, required);
    else if constexpr (std::is_same_v<M, double>)
      r.num(f.key, s.*member, required);
    else if constexpr (std::is_same_v<M, std::string>)
      r.str(f.key, s.*member, required);
    else if constexpr (std::is_same_v<M, std::vector<double>>)
      r.numList(f.key, s.*member, required);
    else
      r.strList(f.key, s.*member, required);
  });
}

inline Event makeEvent(const char* type, int rank, json data) {
  Event e;
  e.type = type;
  e.rank = rank;
  e.time = unixTimeNow();
  e.data = std::move(data);
  return e;
}

// Checks the type before reading; the error says which type was expected.
inline std::vector<Error> checkType(const Event& e, const char* expected) {
  if (e.type != expected) {
    return {textError("", 0, "type",
                      Text("event.expected_type", {{"expected", expected}, {"type", e.type}}))};
  }
  if (!e.data.is_object()) {
    return {textError("", 0, "data",
                      Text("event.must_be",
                           {{"expected", Text("event.json.object")}, {"got", jsonTypeName(e.data)}}))};
  }
  return {};
}

template <typename T, typename ReadFn>
Result<T> readTyped(const Event& e, const char* type, ReadFn read) {
  auto typeErrors = checkType(e, type);
  if (!typeErrors.empty()) return typeErrors;
  FieldReader r(e.data, "data.");
  T out;
  read(r, out);
  if (!r.errors().empty()) return r.errors();
  return out;
}

inline json optionalInt(const std::optional<int>& v) {
  return v ? json(*v) : json(nullptr);
}

inline json timingToJson(const StepTiming& t) {
  return json{{"data_wait", t.dataWait},  {"h2d", t.h2d},
              {"fwd_bwd", t.fwdBwd},      {"allreduce_wait", t.allreduceWait},
              {"optimizer", t.optimizer}, {"total", t.total}};
}

inline void readTiming(FieldReader& r, const char* key, StepTiming& t) {
  const json* obj = r.object(key);
  if (!obj) return;
  FieldReader sub(*obj, r.path(key) + ".");
  sub.num("data_wait", t.dataWait);
  sub.num("h2d", t.h2d);
  sub.num("fwd_bwd", t.fwdBwd);
  sub.num("allreduce_wait", t.allreduceWait);
  sub.num("optimizer", t.optimizer);
  sub.num("total", t.total);
  r.append(sub.errors());
}

template <typename Enum, size_t N>
bool enumFromString(const std::string& s, const Enum (&values)[N], Enum& out) {
  for (Enum v : values) {
    if (s == toString(v)) {
      out = v;
      return true;
    }
  }
  return false;
}

template <typename Enum, size_t N>
void readEnum(FieldReader& r, const char* key, const Enum (&values)[N], Enum& out) {
  std::string s;
  const size_t before = r.errors().size();
  r.str(key, s);
  if (r.errors().size() != before) return;
  if (!enumFromString(s, values, out)) {
    std::string valid;
    for (Enum v : values) valid += std::string(valid.empty() ? "" : ", ") + toString(v);
    r.error(key, Text("event.not_one_of", {{"value", s}, {"valid", valid}}));
  }
}

constexpr CheckpointKind kCheckpointKinds[] = {CheckpointKind::Last, CheckpointKind::Best,
                                               CheckpointKind::Periodic};
constexpr RunStatus kRunStatuses[] = {RunStatus::Completed, RunStatus::Stopped, RunStatus::Failed,
                                      RunStatus::EarlyStopped};
constexpr StepPhase kStepPhases[] = {StepPhase::DataWait, StepPhase::H2D, StepPhase::FwdBwd,
                                     StepPhase::AllreduceWait, StepPhase::Optimizer};
constexpr Severity kSeverities[] = {Severity::Info, Severity::Warning, Severity::Critical};


}  // namespace stave::telemetry::codec
