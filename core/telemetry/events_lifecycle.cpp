// The run's lifecycle events: run_start, checkpoint, warning, error, finished, rank_exit,
// schedule_replanned.
#include "core/telemetry/events.h"
#include "core/telemetry/event_codec.h"
#include "core/telemetry/event_tables.h"

namespace stave::telemetry {

using nlohmann::json;
using namespace codec;

Event toEvent(const RunStartEvent& e, int rank) {
  json versions = json::object();
  for (const auto& [k, v] : e.versions) versions[k] = v;
  json d = config::membersToJson(runStartFields(), e);
  d["versions"] = std::move(versions);
  d["dataset"] = config::membersToJson(datasetSummaryFields(), e.dataset);
  d["config"] = e.config.is_object() ? e.config : json::object();
  d["resolved"] = e.resolved.is_object() ? e.resolved : json::object();
  d["nccl"] = config::membersToJson(ncclSettingsFields(), e.nccl);
  return makeEvent(event_type::kRunStart, rank, std::move(d));
}

Result<RunStartEvent> runStartFromEvent(const Event& ev) {
  return readTyped<RunStartEvent>(ev, event_type::kRunStart, [](FieldReader& r, RunStartEvent& e) {
    if (const json* versions = r.object("versions")) {
      for (auto it = versions->begin(); it != versions->end(); ++it) {
        if (!it->is_string()) {
          r.mustBe("versions." + it.key(), "event.json.string", *it);
        } else {
          e.versions[it.key()] = it->get<std::string>();
        }
      }
    }
    readMembers(r, runStartFields(), e);
    if (const json* ds = r.object("dataset")) {
      FieldReader s(*ds, r.path("dataset."));
      readMembers(s, datasetSummaryFields(), e.dataset);
      r.append(s.errors());
    }
    if (const json* cfg = r.object("config", false)) e.config = *cfg;
    if (const json* res = r.object("resolved", false)) e.resolved = *res;
    if (const json* n = r.object("nccl", false)) {
      FieldReader s(*n, r.path("nccl."));
      readMembers(s, ncclSettingsFields(), e.nccl);
      r.append(s.errors());
    }
  });
}

Event toEvent(const CheckpointEvent& e, int rank) {
  json d = config::membersToJson(checkpointFields(), e);
  d["kind"] = toString(e.kind);
  return makeEvent(event_type::kCheckpoint, rank, std::move(d));
}

Result<CheckpointEvent> checkpointFromEvent(const Event& ev) {
  return readTyped<CheckpointEvent>(ev, event_type::kCheckpoint,
                                    [](FieldReader& r, CheckpointEvent& e) {
                                      readMembers(r, checkpointFields(), e);
                                      readEnum(r, "kind", kCheckpointKinds, e.kind);
                                    });
}

Event toEvent(const WarningEvent& e, int rank) {
  json d = config::membersToJson(warningFields(), e);
  if (!e.text.empty()) d["message_text"] = textToJson(e.text);
  return makeEvent(event_type::kWarning, rank, std::move(d));
}

Result<WarningEvent> warningFromEvent(const Event& ev) {
  return readTyped<WarningEvent>(ev, event_type::kWarning, [](FieldReader& r, WarningEvent& e) {
    readMembers(r, warningFields(), e);
    r.text("message_text", e.text);
  });
}

Event toEvent(const ErrorEvent& e, int rank) {
  json d = config::membersToJson(errorFields(), e);
  d["exit_code"] = optionalInt(e.exitCode);
  d["signal"] = optionalInt(e.signal);
  if (!e.text.empty()) d["message_text"] = textToJson(e.text);
  if (!e.hintText.empty()) d["hint_text"] = textToJson(e.hintText);
  return makeEvent(event_type::kError, rank, std::move(d));
}

Result<ErrorEvent> errorFromEvent(const Event& ev) {
  return readTyped<ErrorEvent>(ev, event_type::kError, [](FieldReader& r, ErrorEvent& e) {
    readMembers(r, errorFields(), e);
    r.optInteger("exit_code", e.exitCode);
    r.optInteger("signal", e.signal);
    r.text("message_text", e.text);
    r.text("hint_text", e.hintText);
  });
}

const config::MemberTable<FinishedEvent>& finishedFields() {
  using F = FinishedEvent;
  static const config::MemberTable<F> table{
      {"epochs_completed", &F::epochsCompleted},
      {"epochs", &F::epochs},
      {"best_epoch", &F::bestEpoch, true},
      {"best_map50", &F::bestMap50, true},
      {"best_map50_95", &F::bestMap5095, true},
      {"total_time", &F::totalTime, true},
      {"message", &F::message, true},
  };
  return table;
}

Event toEvent(const FinishedEvent& e, int rank) {
  json d = config::membersToJson(finishedFields(), e);
  d["status"] = toString(e.status);
  if (!e.text.empty()) d["message_text"] = textToJson(e.text);
  return makeEvent(event_type::kFinished, rank, std::move(d));
}

Result<FinishedEvent> finishedFromEvent(const Event& ev) {
  return readTyped<FinishedEvent>(ev, event_type::kFinished, [](FieldReader& r, FinishedEvent& e) {
    readEnum(r, "status", kRunStatuses, e.status);
    readMembers(r, finishedFields(), e);
    r.text("message_text", e.text);
  });
}

Event toEvent(const RankExitEvent& e, int rank) {
  json d = config::membersToJson(rankExitFields(), e);
  d["exit_code"] = optionalInt(e.exitCode);
  d["signal"] = optionalInt(e.signal);
  return makeEvent(event_type::kRankExit, rank, std::move(d));
}

Result<RankExitEvent> rankExitFromEvent(const Event& ev) {
  return readTyped<RankExitEvent>(ev, event_type::kRankExit, [](FieldReader& r, RankExitEvent& e) {
    readMembers(r, rankExitFields(), e);
    r.optInteger("exit_code", e.exitCode);
    r.optInteger("signal", e.signal);
  });
}

const config::MemberTable<ScheduleReplannedEvent>& scheduleReplannedFields() {
  using S = ScheduleReplannedEvent;
  static const config::MemberTable<S> table{
      {"old_epochs", &S::oldEpochs},       {"new_epochs", &S::newEpochs},
      {"at_epoch", &S::atEpoch, true},     {"reason", &S::reason},
      {"epoch_time", &S::epochTime, true},
  };
  return table;
}

Event toEvent(const ScheduleReplannedEvent& e, int rank) {
  return makeEvent(event_type::kScheduleReplanned, rank,
                   config::membersToJson(scheduleReplannedFields(), e));
}

Result<ScheduleReplannedEvent> scheduleReplannedFromEvent(const Event& ev) {
  return readTyped<ScheduleReplannedEvent>(ev, event_type::kScheduleReplanned,
                                           [](FieldReader& r, ScheduleReplannedEvent& e) {
                                             readMembers(r, scheduleReplannedFields(), e);
                                           });
}


}  // namespace stave::telemetry
