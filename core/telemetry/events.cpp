#include "core/telemetry/events.h"
#include "core/config/json_keys.h"

#include <chrono>
#include <cmath>
#include <limits>

namespace stave::telemetry {

using nlohmann::json;

namespace {

const char* jsonTypeName(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "bool";
  if (v.is_number_integer()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  return "object";
}

bool isIntegral(const json& v) {
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
      wrongType(key, "a number", *v);
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
      wrongType(key, "an integer", *v);
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
      wrongType(key, "true or false", *v);
    }
  }
  void str(const char* key, std::string& out, bool required = true) {
    const json* v = find(key, required);
    if (!v) return;
    if (v->is_string()) {
      out = v->get<std::string>();
    } else {
      wrongType(key, "a string", *v);
    }
  }
  void strList(const char* key, std::vector<std::string>& out, bool required = true) {
    const json* v = find(key, required);
    if (!v) return;
    if (!v->is_array()) return wrongType(key, "an array of strings", *v);
    out.clear();
    for (size_t i = 0; i < v->size(); ++i) {
      if (!(*v)[i].is_string()) {
        return error(std::string(key) + "[" + std::to_string(i) + "]",
                     std::string("must be a string, got ") + jsonTypeName((*v)[i]));
      }
      out.push_back((*v)[i].get<std::string>());
    }
  }
  void numList(const char* key, std::vector<double>& out, bool required = true) {
    const json* v = find(key, required);
    if (!v) return;
    if (!v->is_array()) return wrongType(key, "an array of numbers", *v);
    out.clear();
    for (size_t i = 0; i < v->size(); ++i) {
      const json& x = (*v)[i];
      if (x.is_null()) {
        out.push_back(std::numeric_limits<double>::quiet_NaN());
      } else if (x.is_number()) {
        out.push_back(x.get<double>());
      } else {
        return error(std::string(key) + "[" + std::to_string(i) + "]",
                     std::string("must be a number, got ") + jsonTypeName(x));
      }
    }
  }
  // A nested object; returns nullptr (after recording why) when absent or not an object.
  const json* object(const char* key, bool required = true) {
    const json* v = find(key, required);
    if (!v) return nullptr;
    if (!v->is_object()) {
      wrongType(key, "an object", *v);
      return nullptr;
    }
    return v;
  }
  const json* array(const char* key, bool required = true) {
    const json* v = find(key, required);
    if (!v) return nullptr;
    if (!v->is_array()) {
      wrongType(key, "an array", *v);
      return nullptr;
    }
    return v;
  }
  std::string path(const std::string& key) const { return m_prefix + key; }
  void error(const std::string& key, const std::string& message) {
    m_errors.push_back(Error{"", 0, path(key), message});
  }
  void append(const std::vector<Error>& errors) {
    m_errors.insert(m_errors.end(), errors.begin(), errors.end());
  }
  std::vector<Error>& errors() { return m_errors; }

 private:
  const json* find(const char* key, bool required) {
    auto it = m_obj.find(key);
    if (it == m_obj.end()) {
      if (required) error(key, "missing");
      return nullptr;
    }
    return &*it;
  }
  void wrongType(const char* key, const char* expected, const json& got) {
    error(key, std::string("must be ") + expected + ", got " + jsonTypeName(got));
  }

  const json& m_obj;
  std::string m_prefix;
  std::vector<Error> m_errors;
};

Event makeEvent(const char* type, int rank, json data) {
  Event e;
  e.type = type;
  e.rank = rank;
  e.time = unixTimeNow();
  e.data = std::move(data);
  return e;
}

// Checks the type before reading; the error says which type was expected.
std::vector<Error> checkType(const Event& e, const char* expected) {
  if (e.type != expected) {
    return {Error{"", 0, "type",
                  "expected a \"" + std::string(expected) + "\" event, got \"" + e.type + "\""}};
  }
  if (!e.data.is_object()) {
    return {Error{"", 0, "data", std::string("must be an object, got ") + jsonTypeName(e.data)}};
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

json optionalInt(const std::optional<int>& v) {
  return v ? json(*v) : json(nullptr);
}

json timingToJson(const StepTiming& t) {
  return json{{"data_wait", t.dataWait},  {"h2d", t.h2d},
              {"fwd_bwd", t.fwdBwd},      {"allreduce_wait", t.allreduceWait},
              {"optimizer", t.optimizer}, {"total", t.total}};
}

void readTiming(FieldReader& r, const char* key, StepTiming& t) {
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
    r.error(key, "\"" + s + "\" is not one of " + valid);
  }
}

constexpr CheckpointKind kCheckpointKinds[] = {CheckpointKind::Last, CheckpointKind::Best,
                                               CheckpointKind::Periodic};
constexpr RunStatus kRunStatuses[] = {RunStatus::Completed, RunStatus::Stopped, RunStatus::Failed,
                                      RunStatus::EarlyStopped};
constexpr StepPhase kStepPhases[] = {StepPhase::DataWait, StepPhase::H2D, StepPhase::FwdBwd,
                                     StepPhase::AllreduceWait, StepPhase::Optimizer};
constexpr Severity kSeverities[] = {Severity::Info, Severity::Warning, Severity::Critical};

}  // namespace

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
    return Error{"", 0, "", "not JSON: the line is empty"};
  }
  if (auto deep = jsonTooDeep(line, "")) return Error{"", 0, deep->key, deep->message};
  json j;
  try {
    j = json::parse(line.begin(), line.end());
  } catch (const json::parse_error& ex) {
    std::string what = ex.what();
    const auto close = what.find("] ");
    if (close != std::string::npos) what = what.substr(close + 2);
    return Error{"", 0, "", "not JSON: " + what};
  }
  if (!j.is_object()) {
    return Error{"", 0, "",
                 std::string("not an event: expected a JSON object, got ") + jsonTypeName(j)};
  }
  Event e;
  FieldReader r(j, "");
  // The version comes first: a newer producer may have changed anything else.
  if (auto it = j.find("version"); it != j.end() && isIntegral(*it)) {
    const int64_t version =
        it->is_number_integer() ? it->get<int64_t>() : static_cast<int64_t>(it->get<double>());
    if (version > kEventVersion) {
      return Error{"", 0, "version",
                   "event version " + std::to_string(version) +
                       " is newer than this program reads (up to " + std::to_string(kEventVersion) +
                       "); update Stave"};
    }
    if (version < 1) {
      return Error{"", 0, "version", "must be 1 or more, got " + std::to_string(version)};
    }
  }
  r.str("type", e.type);
  r.integer("version", e.version);
  r.integer("rank", e.rank, false);
  if (rankPresent) *rankPresent = j.contains("rank");
  r.num("time", e.time, false);
  if (const json* data = r.object("data", false)) e.data = *data;
  if (r.errors().empty() && e.type.empty()) r.error("type", "must not be empty");
  if (!r.errors().empty()) return r.errors();
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

// ---------------------------------------------------------------------------------------------

Event toEvent(const RunStartEvent& e, int rank) {
  json versions = json::object();
  for (const auto& [k, v] : e.versions) versions[k] = v;
  json d{{"versions", versions},
         {"device", e.device},
         {"device_names", e.deviceNames},
         {"world_size", e.worldSize},
         {"nnodes", e.nnodes},
         {"dataset",
          {{"yaml", e.dataset.yaml},
           {"train_images", e.dataset.trainImages},
           {"val_images", e.dataset.valImages},
           {"nc", e.dataset.nc},
           {"names", e.dataset.names},
           {"content_hash", e.dataset.contentHash}}},
         {"config", e.config.is_object() ? e.config : json::object()},
         {"resolved", e.resolved.is_object() ? e.resolved : json::object()},
         {"nccl",
          {{"backend", e.nccl.backend},
           {"p2p_level", e.nccl.p2pLevel},
           {"shm_disable", e.nccl.shmDisable},
           {"debug", e.nccl.debug},
           {"async_error_handling", e.nccl.asyncErrorHandling},
           {"timeout_s", e.nccl.timeoutS},
           {"bucket_mb", e.nccl.bucketMb}}},
         {"run_dir", e.runDir},
         {"host", e.host}};
  return makeEvent(event_type::kRunStart, rank, std::move(d));
}

Result<RunStartEvent> runStartFromEvent(const Event& ev) {
  return readTyped<RunStartEvent>(ev, event_type::kRunStart, [](FieldReader& r, RunStartEvent& e) {
    if (const json* versions = r.object("versions")) {
      for (auto it = versions->begin(); it != versions->end(); ++it) {
        if (!it->is_string()) {
          r.error("versions." + it.key(),
                  std::string("must be a string, got ") + jsonTypeName(*it));
        } else {
          e.versions[it.key()] = it->get<std::string>();
        }
      }
    }
    r.str("device", e.device);
    r.strList("device_names", e.deviceNames, false);
    r.integer("world_size", e.worldSize);
    r.integer("nnodes", e.nnodes, false);
    if (const json* ds = r.object("dataset")) {
      FieldReader s(*ds, r.path("dataset."));
      s.str("yaml", e.dataset.yaml, false);
      s.integer("train_images", e.dataset.trainImages);
      s.integer("val_images", e.dataset.valImages);
      s.integer("nc", e.dataset.nc);
      s.strList("names", e.dataset.names, false);
      s.str("content_hash", e.dataset.contentHash, false);
      r.append(s.errors());
    }
    if (const json* cfg = r.object("config", false)) e.config = *cfg;
    if (const json* res = r.object("resolved", false)) e.resolved = *res;
    if (const json* n = r.object("nccl", false)) {
      FieldReader s(*n, r.path("nccl."));
      s.str("backend", e.nccl.backend, false);
      s.str("p2p_level", e.nccl.p2pLevel, false);
      s.boolean("shm_disable", e.nccl.shmDisable, false);
      s.str("debug", e.nccl.debug, false);
      s.boolean("async_error_handling", e.nccl.asyncErrorHandling, false);
      s.num("timeout_s", e.nccl.timeoutS, false);
      s.num("bucket_mb", e.nccl.bucketMb, false);
      r.append(s.errors());
    }
    r.str("run_dir", e.runDir, false);
    r.str("host", e.host, false);
  });
}

Event toEvent(const StepEvent& e, int rank) {
  json d{{"epoch", e.epoch},
         {"iter", e.iter},
         {"iters_per_epoch", e.itersPerEpoch},
         {"box_loss", e.boxLoss},
         {"cls_loss", e.clsLoss},
         {"dfl_loss", e.dflLoss},
         {"lr", e.lr},
         {"samples_per_s", e.samplesPerSec},
         {"timing", timingToJson(e.timing)}};
  return makeEvent(event_type::kStep, rank, std::move(d));
}

Result<StepEvent> stepFromEvent(const Event& ev) {
  return readTyped<StepEvent>(ev, event_type::kStep, [](FieldReader& r, StepEvent& e) {
    r.integer("epoch", e.epoch);
    r.integer("iter", e.iter);
    r.integer("iters_per_epoch", e.itersPerEpoch);
    r.num("box_loss", e.boxLoss);
    r.num("cls_loss", e.clsLoss);
    r.num("dfl_loss", e.dflLoss);
    r.num("lr", e.lr);
    r.num("samples_per_s", e.samplesPerSec);
    readTiming(r, "timing", e.timing);
  });
}

Event toEvent(const EpochEndEvent& e, int rank) {
  json d{{"epoch", e.epoch},
         {"epochs", e.epochs},
         {"box_loss", e.boxLoss},
         {"cls_loss", e.clsLoss},
         {"dfl_loss", e.dflLoss},
         {"epoch_time", e.epochTime},
         {"lr", e.lr}};
  return makeEvent(event_type::kEpochEnd, rank, std::move(d));
}

Result<EpochEndEvent> epochEndFromEvent(const Event& ev) {
  return readTyped<EpochEndEvent>(ev, event_type::kEpochEnd, [](FieldReader& r, EpochEndEvent& e) {
    r.integer("epoch", e.epoch);
    r.integer("epochs", e.epochs);
    r.num("box_loss", e.boxLoss);
    r.num("cls_loss", e.clsLoss);
    r.num("dfl_loss", e.dflLoss);
    r.num("epoch_time", e.epochTime);
    r.numList("lr", e.lr);
  });
}

Event toEvent(const ValidationEvent& e, int rank) {
  json d{{"epoch", e.epoch},      {"precision", e.precision}, {"recall", e.recall},
         {"map50", e.map50},      {"map50_95", e.map5095},    {"box_loss", e.boxLoss},
         {"cls_loss", e.clsLoss}, {"dfl_loss", e.dflLoss},    {"val_time", e.valTime}};
  if (!e.perClass.empty()) {
    json rows = json::array();
    for (const auto& c : e.perClass) {
      rows.push_back({{"cls", c.cls},
                      {"name", c.name},
                      {"images", c.images},
                      {"instances", c.instances},
                      {"precision", c.precision},
                      {"recall", c.recall},
                      {"map50", c.map50},
                      {"map50_95", c.map5095}});
    }
    d["per_class"] = std::move(rows);
  }
  return makeEvent(event_type::kValidation, rank, std::move(d));
}

Result<ValidationEvent> validationFromEvent(const Event& ev) {
  return readTyped<ValidationEvent>(
      ev, event_type::kValidation, [](FieldReader& r, ValidationEvent& e) {
        r.integer("epoch", e.epoch);
        r.num("precision", e.precision);
        r.num("recall", e.recall);
        r.num("map50", e.map50);
        r.num("map50_95", e.map5095);
        r.num("box_loss", e.boxLoss, false);
        r.num("cls_loss", e.clsLoss, false);
        r.num("dfl_loss", e.dflLoss, false);
        r.num("val_time", e.valTime);
        if (const json* rows = r.array("per_class", false)) {
          for (size_t i = 0; i < rows->size(); ++i) {
            const std::string prefix = r.path("per_class[" + std::to_string(i) + "].");
            const json& row = (*rows)[i];
            if (!row.is_object()) {
              r.error("per_class[" + std::to_string(i) + "]",
                      std::string("must be an object, got ") + jsonTypeName(row));
              continue;
            }
            FieldReader s(row, prefix);
            ClassMetricsRow c;
            s.integer("cls", c.cls);
            s.str("name", c.name, false);
            s.integer("images", c.images, false);
            s.integer("instances", c.instances, false);
            s.num("precision", c.precision);
            s.num("recall", c.recall);
            s.num("map50", c.map50);
            s.num("map50_95", c.map5095);
            r.append(s.errors());
            e.perClass.push_back(std::move(c));
          }
        }
      });
}

Event toEvent(const CheckpointEvent& e, int rank) {
  json d{{"path", e.path}, {"epoch", e.epoch}, {"kind", toString(e.kind)}};
  return makeEvent(event_type::kCheckpoint, rank, std::move(d));
}

Result<CheckpointEvent> checkpointFromEvent(const Event& ev) {
  return readTyped<CheckpointEvent>(ev, event_type::kCheckpoint,
                                    [](FieldReader& r, CheckpointEvent& e) {
                                      r.str("path", e.path);
                                      r.integer("epoch", e.epoch);
                                      readEnum(r, "kind", kCheckpointKinds, e.kind);
                                    });
}

Event toEvent(const WarningEvent& e, int rank) {
  json d{{"message", e.message}, {"source", e.source}};
  return makeEvent(event_type::kWarning, rank, std::move(d));
}

Result<WarningEvent> warningFromEvent(const Event& ev) {
  return readTyped<WarningEvent>(ev, event_type::kWarning, [](FieldReader& r, WarningEvent& e) {
    r.str("message", e.message);
    r.str("source", e.source, false);
  });
}

Event toEvent(const ErrorEvent& e, int rank) {
  json d{{"rank", e.rank},
         {"message", e.message},
         {"exit_code", optionalInt(e.exitCode)},
         {"signal", optionalInt(e.signal)},
         {"log_tail", e.logTail},
         {"hint", e.hint}};
  return makeEvent(event_type::kError, rank, std::move(d));
}

Result<ErrorEvent> errorFromEvent(const Event& ev) {
  return readTyped<ErrorEvent>(ev, event_type::kError, [](FieldReader& r, ErrorEvent& e) {
    r.integer("rank", e.rank, false);
    r.str("message", e.message);
    r.optInteger("exit_code", e.exitCode);
    r.optInteger("signal", e.signal);
    r.strList("log_tail", e.logTail, false);
    r.str("hint", e.hint, false);
  });
}

Event toEvent(const FinishedEvent& e, int rank) {
  json d{{"status", toString(e.status)}, {"epochs_completed", e.epochsCompleted},
         {"epochs", e.epochs},           {"best_epoch", e.bestEpoch},
         {"best_map50", e.bestMap50},    {"best_map50_95", e.bestMap5095},
         {"total_time", e.totalTime},    {"message", e.message}};
  return makeEvent(event_type::kFinished, rank, std::move(d));
}

Result<FinishedEvent> finishedFromEvent(const Event& ev) {
  return readTyped<FinishedEvent>(ev, event_type::kFinished, [](FieldReader& r, FinishedEvent& e) {
    readEnum(r, "status", kRunStatuses, e.status);
    r.integer("epochs_completed", e.epochsCompleted);
    r.integer("epochs", e.epochs);
    r.integer("best_epoch", e.bestEpoch, false);
    r.num("best_map50", e.bestMap50, false);
    r.num("best_map50_95", e.bestMap5095, false);
    r.num("total_time", e.totalTime, false);
    r.str("message", e.message, false);
  });
}

Event toEvent(const StragglerEvent& e, int rank) {
  json d{{"slow_rank", e.slowRank}, {"waits_on", toString(e.waitsOn)},
         {"fraction", e.fraction},  {"others_fraction", e.othersFraction},
         {"step_time", e.stepTime}, {"imbalance", e.imbalance},
         {"steps", e.steps},        {"message", e.message}};
  return makeEvent(event_type::kStraggler, rank, std::move(d));
}

Result<StragglerEvent> stragglerFromEvent(const Event& ev) {
  return readTyped<StragglerEvent>(ev, event_type::kStraggler,
                                   [](FieldReader& r, StragglerEvent& e) {
                                     r.integer("slow_rank", e.slowRank);
                                     readEnum(r, "waits_on", kStepPhases, e.waitsOn);
                                     r.num("fraction", e.fraction);
                                     r.num("others_fraction", e.othersFraction, false);
                                     r.num("step_time", e.stepTime, false);
                                     r.num("imbalance", e.imbalance, false);
                                     r.integer("steps", e.steps, false);
                                     r.str("message", e.message);
                                   });
}

Event toEvent(const RankExitEvent& e, int rank) {
  json d{{"rank", e.rank},
         {"exit_code", optionalInt(e.exitCode)},
         {"signal", optionalInt(e.signal)},
         {"outcome", e.outcome}};
  return makeEvent(event_type::kRankExit, rank, std::move(d));
}

Result<RankExitEvent> rankExitFromEvent(const Event& ev) {
  return readTyped<RankExitEvent>(ev, event_type::kRankExit, [](FieldReader& r, RankExitEvent& e) {
    r.integer("rank", e.rank);
    r.optInteger("exit_code", e.exitCode);
    r.optInteger("signal", e.signal);
    r.str("outcome", e.outcome);
  });
}

Event toEvent(const ScheduleReplannedEvent& e, int rank) {
  json d{{"old_epochs", e.oldEpochs},
         {"new_epochs", e.newEpochs},
         {"at_epoch", e.atEpoch},
         {"reason", e.reason},
         {"epoch_time", e.epochTime}};
  return makeEvent(event_type::kScheduleReplanned, rank, std::move(d));
}

Result<ScheduleReplannedEvent> scheduleReplannedFromEvent(const Event& ev) {
  return readTyped<ScheduleReplannedEvent>(ev, event_type::kScheduleReplanned,
                                           [](FieldReader& r, ScheduleReplannedEvent& e) {
                                             r.integer("old_epochs", e.oldEpochs);
                                             r.integer("new_epochs", e.newEpochs);
                                             r.integer("at_epoch", e.atEpoch, false);
                                             r.str("reason", e.reason);
                                             r.num("epoch_time", e.epochTime, false);
                                           });
}

// Sample values: -1 (the device or system does not report it) travels as null.
json knownOrNull(double v) { return v < 0 || !std::isfinite(v) ? json(nullptr) : json(v); }
double knownOrMinusOne(double v) { return std::isnan(v) ? -1.0 : v; }

Event toEvent(const GpuSampleEvent& e, int rank) {
  json gpus = json::array();
  for (const auto& g : e.gpus)
    gpus.push_back({{"index", g.index},
                    {"name", g.name},
                    {"util", knownOrNull(g.util)},
                    {"mem_util", knownOrNull(g.memUtil)},
                    {"mem_used", knownOrNull(g.memUsed)},
                    {"mem_total", knownOrNull(g.memTotal)},
                    {"power_w", knownOrNull(g.powerW)},
                    {"power_limit_w", knownOrNull(g.powerLimitW)},
                    {"temp_c", knownOrNull(g.temperatureC)},
                    {"sm_clock_mhz", knownOrNull(g.smClockMHz)},
                    {"pcie_tx_bps", knownOrNull(g.pcieTxBps)},
                    {"pcie_rx_bps", knownOrNull(g.pcieRxBps)}});
  json d{{"gpus", gpus}};
  if (!e.status.empty()) d["status"] = e.status;
  return makeEvent(event_type::kGpuSample, rank, std::move(d));
}

Result<GpuSampleEvent> gpuSampleFromEvent(const Event& ev) {
  return readTyped<GpuSampleEvent>(ev, event_type::kGpuSample, [](FieldReader& r, GpuSampleEvent& e) {
    r.str("status", e.status, false);
    const json* gpus = r.array("gpus");
    if (!gpus) return;
    for (size_t i = 0; i < gpus->size(); ++i) {
      if (!(*gpus)[i].is_object()) {
        r.error("gpus[" + std::to_string(i) + "]", "must be an object");
        continue;
      }
      FieldReader g((*gpus)[i], r.path("gpus[" + std::to_string(i) + "]."));
      GpuReading x;
      g.integer("index", x.index);
      g.str("name", x.name, false);
      g.num("util", x.util, false);
      g.num("mem_util", x.memUtil, false);
      g.num("mem_used", x.memUsed, false);
      g.num("mem_total", x.memTotal, false);
      g.num("power_w", x.powerW, false);
      g.num("power_limit_w", x.powerLimitW, false);
      g.num("temp_c", x.temperatureC, false);
      g.num("sm_clock_mhz", x.smClockMHz, false);
      g.num("pcie_tx_bps", x.pcieTxBps, false);
      g.num("pcie_rx_bps", x.pcieRxBps, false);
      r.append(g.errors());
      for (double* v : {&x.util, &x.memUtil, &x.memUsed, &x.memTotal, &x.powerW, &x.powerLimitW,
                        &x.temperatureC, &x.smClockMHz, &x.pcieTxBps, &x.pcieRxBps})
        *v = knownOrMinusOne(*v);
      e.gpus.push_back(x);
    }
  });
}

Event toEvent(const SystemSampleEvent& e, int rank) {
  json ranks = json::array();
  for (const auto& p : e.ranks)
    ranks.push_back({{"rank", p.rank}, {"pid", p.pid}, {"rss", knownOrNull(p.rss)},
                     {"cpu", knownOrNull(p.cpu)}});
  json d{{"cpu", e.cpu},
         {"cpu_total", knownOrNull(e.cpuTotal)},
         {"mem_used", knownOrNull(e.memUsed)},
         {"mem_total", knownOrNull(e.memTotal)},
         {"ranks", ranks},
         {"disk_read_bps", knownOrNull(e.diskReadBps)},
         {"disk", e.disk}};
  return makeEvent(event_type::kSystemSample, rank, std::move(d));
}

Result<SystemSampleEvent> systemSampleFromEvent(const Event& ev) {
  return readTyped<SystemSampleEvent>(ev, event_type::kSystemSample,
                                      [](FieldReader& r, SystemSampleEvent& e) {
    r.numList("cpu", e.cpu, false);
    r.num("cpu_total", e.cpuTotal, false);
    r.num("mem_used", e.memUsed, false);
    r.num("mem_total", e.memTotal, false);
    r.num("disk_read_bps", e.diskReadBps, false);
    r.str("disk", e.disk, false);
    e.cpuTotal = knownOrMinusOne(e.cpuTotal);
    e.memUsed = knownOrMinusOne(e.memUsed);
    e.memTotal = knownOrMinusOne(e.memTotal);
    e.diskReadBps = knownOrMinusOne(e.diskReadBps);
    if (const json* ranks = r.array("ranks", false)) {
      for (size_t i = 0; i < ranks->size(); ++i) {
        if (!(*ranks)[i].is_object()) {
          r.error("ranks[" + std::to_string(i) + "]", "must be an object");
          continue;
        }
        FieldReader p((*ranks)[i], r.path("ranks[" + std::to_string(i) + "]."));
        ProcessReading x;
        p.integer("rank", x.rank);
        p.integer("pid", x.pid, false);
        p.num("rss", x.rss, false);
        p.num("cpu", x.cpu, false);
        r.append(p.errors());
        x.rss = knownOrMinusOne(x.rss);
        x.cpu = knownOrMinusOne(x.cpu);
        e.ranks.push_back(x);
      }
    }
  });
}

Event toEvent(const DiagnosisEvent& e, int rank) {
  json findings = json::array();
  for (const auto& f : e.findings) {
    json advice = json::array();
    for (const auto& a : f.advice) advice.push_back({{"key", a.key}, {"value", a.value}});
    json evidence = json::object();
    for (const auto& [k, v] : f.evidence) evidence[k] = std::isfinite(v) ? json(v) : json(nullptr);
    findings.push_back({{"rule", f.rule},
                        {"severity", toString(f.severity)},
                        {"rank", f.rank},
                        {"title", f.title},
                        {"message", f.message},
                        {"advice", advice},
                        {"advice_text", adviceText(f.advice)},
                        {"evidence", evidence}});
  }
  json d{{"final", e.final},         {"period_s", e.periodS}, {"steps", e.steps},
         {"warmup_steps", e.warmupSteps}, {"findings", findings}, {"summary", e.summary}};
  return makeEvent(event_type::kDiagnosis, rank, std::move(d));
}

Result<DiagnosisEvent> diagnosisFromEvent(const Event& ev) {
  return readTyped<DiagnosisEvent>(ev, event_type::kDiagnosis, [](FieldReader& r, DiagnosisEvent& e) {
    r.boolean("final", e.final, false);
    r.num("period_s", e.periodS, false);
    r.integer("steps", e.steps, false);
    r.integer("warmup_steps", e.warmupSteps, false);
    r.str("summary", e.summary, false);
    const json* findings = r.array("findings");
    if (!findings) return;
    for (size_t i = 0; i < findings->size(); ++i) {
      const std::string at = "findings[" + std::to_string(i) + "]";
      if (!(*findings)[i].is_object()) {
        r.error(at, "must be an object");
        continue;
      }
      FieldReader f((*findings)[i], r.path(at + "."));
      Finding x;
      f.str("rule", x.rule);
      readEnum(f, "severity", kSeverities, x.severity);
      f.integer("rank", x.rank, false);
      f.str("title", x.title, false);
      f.str("message", x.message);
      if (const json* advice = f.array("advice", false)) {
        for (size_t k = 0; k < advice->size(); ++k) {
          const json& a = (*advice)[k];
          if (!a.is_object() || !a.contains("key") || !a["key"].is_string() ||
              !a.contains("value") || !a["value"].is_string()) {
            f.error("advice[" + std::to_string(k) + "]", "must be {\"key\": string, \"value\": string}");
            continue;
          }
          x.advice.push_back({a["key"].get<std::string>(), a["value"].get<std::string>()});
        }
      }
      if (const json* evidence = f.object("evidence", false)) {
        for (auto it = evidence->begin(); it != evidence->end(); ++it) {
          if (it.value().is_number())
            x.evidence[it.key()] = it.value().get<double>();
          else if (it.value().is_null())
            x.evidence[it.key()] = std::numeric_limits<double>::quiet_NaN();
          else
            f.error("evidence." + it.key(), "must be a number");
        }
      }
      r.append(f.errors());
      e.findings.push_back(std::move(x));
    }
  });
}

void flattenNumbers(const json& j, const std::string& prefix,
                    std::vector<std::pair<std::string, double>>& out) {
  if (j.is_number()) {
    out.emplace_back(prefix, j.get<double>());
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      if (it.key() != "index" && it.key() != "rank" && it.key() != "pid")
        flattenNumbers(it.value(), prefix.empty() ? it.key() : prefix + "/" + it.key(), out);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) {
      std::string id = std::to_string(i);
      for (const char* k : {"index", "rank"})
        if (j[i].is_object() && j[i].contains(k) && j[i][k].is_number_integer())
          id = std::to_string(j[i][k].get<int64_t>());
      flattenNumbers(j[i], prefix.empty() ? id : prefix + "/" + id, out);
    }
  }
}

std::vector<std::pair<std::string, double>> metricsOf(const StepEvent& e) {
  return {{"step/box_loss", e.boxLoss},
          {"step/cls_loss", e.clsLoss},
          {"step/dfl_loss", e.dflLoss},
          {"step/lr", e.lr},
          {"step/samples_per_s", e.samplesPerSec}};
}

std::vector<std::pair<std::string, double>> metricsOf(const EpochEndEvent& e) {
  std::vector<std::pair<std::string, double>> out{{"train/box_loss", e.boxLoss},
                                                  {"train/cls_loss", e.clsLoss},
                                                  {"train/dfl_loss", e.dflLoss},
                                                  {"time/epoch_s", e.epochTime}};
  for (size_t g = 0; g < e.lr.size(); ++g) out.emplace_back("lr/pg" + std::to_string(g), e.lr[g]);
  return out;
}

std::vector<std::pair<std::string, double>> metricsOf(const ValidationEvent& e) {
  return {{"metrics/precision(B)", e.precision}, {"metrics/recall(B)", e.recall},
          {"metrics/mAP50(B)", e.map50},         {"metrics/mAP50-95(B)", e.map5095},
          {"val/box_loss", e.boxLoss},           {"val/cls_loss", e.clsLoss},
          {"val/dfl_loss", e.dflLoss}};
}

int64_t globalStep(const StepEvent& e) { return int64_t{e.epoch} * e.itersPerEpoch + e.iter; }

}  // namespace stave::telemetry
