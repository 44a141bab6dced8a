// The event envelope (type, version, rank, time, data): encoding, decoding, and the names
// of the enums; each family of payloads has its own file (events_*.cpp).
#include "core/telemetry/events.h"
#include "core/config/json_keys.h"
#include "core/config/json_read.h"
#include "core/telemetry/event_codec.h"

#include <chrono>
#include <cmath>
#include <limits>

namespace stave::telemetry {

using nlohmann::json;
using namespace codec;

double unixTimeNow() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

std::string encodeEvent(const Event& event) {
  json j = json::object();
  j["type"] = event.type;
  j["version"] = event.version;
  j["rank"] = event.rank;
  j["time"] = event.time;
  j["data"] = event.data.is_null() ? json::object() : event.data;
  // Log tails and paths may hold bytes that are not UTF-8; replace them rather than throw.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<Event> decodeEvent(std::string_view line, bool* rankPresent) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (line.find_first_not_of(" \t") == std::string_view::npos) {
    return textError("", 0, "", Text("event.empty_line"));
  }
  if (auto deep = jsonTooDeep(line, "")) return Error{"", 0, deep->key, deep->message};
  json j;
  try {
    j = json::parse(line.begin(), line.end());
  } catch (const json::out_of_range&) {
    // A number that overflows a double (1e999) must cost one line, never the reader: parsed
    // again by the files' parser, which names the key where it happened.
    auto named = parseJson(line, "");
    Error e = named ? textError("", 0, "", Text("event.number_out_of_range"))
                    : named.errors().front();
    TextParts why = e.text;
    if (why.empty()) why = {Text("plain", {{"text", e.message}})};
    return textError("", 0, e.key, Text("event.not_json", {{"reason", std::move(why)}}));
  } catch (const json::exception& ex) {
    // Any other of the library's errors.
    std::string what = ex.what();
    const auto close = what.find("] ");
    if (close != std::string::npos) what = what.substr(close + 2);
    return textError("", 0, "", Text("event.not_json", {{"reason", what}}));
  }
  if (!j.is_object()) {
    return textError("", 0, "", Text("event.not_an_object", {{"got", jsonTypeName(j)}}));
  }
  Event e;
  FieldReader r(j, "");
  // The version comes first: a newer producer may have changed anything else.
  if (auto it = j.find("version"); it != j.end() && isIntegral(*it)) {
    const int64_t version =
        it->is_number_integer() ? it->get<int64_t>() : static_cast<int64_t>(it->get<double>());
    if (version > kEventVersion) {
      return textError("", 0, "version",
                       Text("event.version_newer", {{"version", std::to_string(version)},
                                                    {"max", std::to_string(kEventVersion)}}));
    }
    if (version < 1) {
      return textError("", 0, "version",
                       Text("event.at_least", {{"min", "1"}, {"value", std::to_string(version)}}));
    }
  }
  r.str("type", e.type);
  r.integer("version", e.version);
  r.integer("rank", e.rank, false);
  if (rankPresent) *rankPresent = j.contains("rank");
  r.num("time", e.time, false);
  const bool hasData = r.object("data", false) != nullptr;
  if (r.errors().empty() && e.type.empty()) r.error("type", Text("event.not_empty"));
  if (!r.errors().empty()) return r.errors();
  if (hasData) e.data = std::move(j["data"]);  // moved, not copied: samples are large
  return e;
}

StepTiming operator+(const StepTiming& a, const StepTiming& b) {
  return StepTiming{a.dataWait + b.dataWait,   a.h2d + b.h2d,
                    a.fwdBwd + b.fwdBwd,       a.allreduceWait + b.allreduceWait,
                    a.optimizer + b.optimizer, a.total + b.total};
}

StepTiming operator*(const StepTiming& a, double f) {
  return StepTiming{a.dataWait * f,      a.h2d * f,       a.fwdBwd * f,
                    a.allreduceWait * f, a.optimizer * f, a.total * f};
}

const char* toString(CheckpointKind kind) {
  switch (kind) {
    case CheckpointKind::Last:
      return "last";
    case CheckpointKind::Best:
      return "best";
    case CheckpointKind::Periodic:
      return "periodic";
  }
  return "?";
}

const char* toString(RunStatus status) {
  switch (status) {
    case RunStatus::Completed:
      return "completed";
    case RunStatus::Stopped:
      return "stopped";
    case RunStatus::Failed:
      return "failed";
    case RunStatus::EarlyStopped:
      return "early_stopped";
  }
  return "?";
}

const char* toString(Severity severity) {
  switch (severity) {
    case Severity::Info:
      return "info";
    case Severity::Warning:
      return "warning";
    case Severity::Critical:
      return "critical";
  }
  return "?";
}

std::string adviceText(const std::vector<Advice>& advice) {
  std::string s;
  for (const auto& a : advice) s += (s.empty() ? "" : " ") + a.key + "=" + a.value;
  return s;
}

const char* toString(StepPhase phase) {
  switch (phase) {
    case StepPhase::DataWait:
      return "data_wait";
    case StepPhase::H2D:
      return "h2d";
    case StepPhase::FwdBwd:
      return "fwd_bwd";
    case StepPhase::AllreduceWait:
      return "allreduce_wait";
    case StepPhase::Optimizer:
      return "optimizer";
  }
  return "?";
}

double phaseSeconds(const StepTiming& t, StepPhase phase) {
  switch (phase) {
    case StepPhase::DataWait:
      return t.dataWait;
    case StepPhase::H2D:
      return t.h2d;
    case StepPhase::FwdBwd:
      return t.fwdBwd;
    case StepPhase::AllreduceWait:
      return t.allreduceWait;
    case StepPhase::Optimizer:
      return t.optimizer;
  }
  return 0;
}

}  // namespace stave::telemetry
