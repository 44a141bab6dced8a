// The run's lifecycle events: run_start, checkpoint, warning, error, finished, rank_exit,
// schedule_replanned.
#include "core/telemetry/events.h"
#include "core/telemetry/event_codec.h"

namespace stave::telemetry {

using nlohmann::json;
using namespace codec;

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
           {"content_hash", e.dataset.contentHash},
           {"label_edits", e.dataset.labelEdits}}},
         {"config", e.config.is_object() ? e.config : json::object()},
         {"resolved", e.resolved.is_object() ? e.resolved : json::object()},
         {"nccl",
          {{"backend", e.nccl.backend},
           {"p2p_level", e.nccl.p2pLevel},
           {"shm_disable", e.nccl.shmDisable},
           {"debug", e.nccl.debug},
           {"async_error_handling", e.nccl.asyncErrorHandling},
           {"timeout_s", e.nccl.timeoutS},
           {"bucket_mb", e.nccl.bucketMb},
           {"interface", e.nccl.interface}}},
         {"run_dir", e.runDir},
         {"host", e.host}};
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
      s.integer("label_edits", e.dataset.labelEdits, false);
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
      s.str("interface", e.nccl.interface, false);
      r.append(s.errors());
    }
    r.str("run_dir", e.runDir, false);
    r.str("host", e.host, false);
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
  if (!e.text.empty()) d["message_text"] = textToJson(e.text);
  return makeEvent(event_type::kWarning, rank, std::move(d));
}

Result<WarningEvent> warningFromEvent(const Event& ev) {
  return readTyped<WarningEvent>(ev, event_type::kWarning, [](FieldReader& r, WarningEvent& e) {
    r.str("message", e.message);
    r.str("source", e.source, false);
    r.text("message_text", e.text);
  });
}

Event toEvent(const ErrorEvent& e, int rank) {
  json d{{"rank", e.rank},
         {"message", e.message},
         {"exit_code", optionalInt(e.exitCode)},
         {"signal", optionalInt(e.signal)},
         {"log_tail", e.logTail},
         {"hint", e.hint}};
  if (!e.text.empty()) d["message_text"] = textToJson(e.text);
  if (!e.hintText.empty()) d["hint_text"] = textToJson(e.hintText);
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
