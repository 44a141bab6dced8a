#pragma once
// The plain payload fields of the event structs, each struct's listed once as a generic member
// table (core/config/member_table.h): toEvent writes them with config::membersToJson and
// <type>FromEvent reads them with codec::readMembers (the codec's rules and messages). What a
// table cannot say stays by hand beside it: enums, catalog texts, optional ints written as null,
// a field written only when known, nested lists and maps. Optional rows are fields older logs
// lack. finishedFields and scheduleReplannedFields are declared in events.h.

#include "core/config/member_table.h"
#include "core/telemetry/events.h"

namespace stave::telemetry {

/// run_start: device, device_names, world_size, nnodes, run_dir, host (versions, config,
/// resolved, dataset and nccl by hand, the last two through their own tables).
const config::MemberTable<RunStartEvent>& runStartFields();
/// run_start's "dataset" object.
const config::MemberTable<DatasetSummary>& datasetSummaryFields();
/// run_start's "nccl" object (every row optional: older logs lack it).
const config::MemberTable<NcclSettings>& ncclSettingsFields();
/// step (its timing by hand).
const config::MemberTable<StepEvent>& stepFields();
/// epoch_end.
const config::MemberTable<EpochEndEvent>& epochEndFields();
/// validation (per_class by hand, each row through classMetricsFields).
const config::MemberTable<ValidationEvent>& validationFields();
/// One row of validation's per_class.
const config::MemberTable<ClassMetricsRow>& classMetricsFields();
/// checkpoint (kind by hand).
const config::MemberTable<CheckpointEvent>& checkpointFields();
/// warning (message_text by hand).
const config::MemberTable<WarningEvent>& warningFields();
/// error (exit_code, signal and the texts by hand).
const config::MemberTable<ErrorEvent>& errorFields();
/// straggler (waits_on, slow_node — written only when known — and message_text by hand).
const config::MemberTable<StragglerEvent>& stragglerFields();
/// rank_exit (exit_code and signal by hand).
const config::MemberTable<RankExitEvent>& rankExitFields();

}  // namespace stave::telemetry
