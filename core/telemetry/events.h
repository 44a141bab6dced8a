#pragma once
// The event protocol between trainer, launcher and studio: versioned JSON objects, one per line.
// Every producer encodes with encodeEvent and every consumer decodes with decodeEvent, so the
// two sides cannot drift apart. A line is
//   {"type":"step","version":1,"rank":0,"time":1764680000.25,"data":{...}}
// Typed structs below describe the `data` of each event type; toEvent() builds an Event from
// one and <type>FromEvent() reads it back, naming the field that is missing or mistyped.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/message.h"
#include "core/base/result.h"
#include "core/config/member_table.h"

namespace stave::telemetry {

/// Version of the event protocol written by this program. Readers refuse newer versions.
constexpr int kEventVersion = 1;

/// Names of the event types (the "type" field).
namespace event_type {
inline constexpr const char* kRunStart = "run_start";
inline constexpr const char* kStep = "step";
inline constexpr const char* kEpochEnd = "epoch_end";
inline constexpr const char* kValidation = "validation";
inline constexpr const char* kCheckpoint = "checkpoint";
inline constexpr const char* kWarning = "warning";
inline constexpr const char* kError = "error";
inline constexpr const char* kFinished = "finished";
inline constexpr const char* kStraggler = "straggler";
inline constexpr const char* kRankExit = "rank_exit";
inline constexpr const char* kScheduleReplanned = "schedule_replanned";
inline constexpr const char* kGpuSample = "gpu_sample";
inline constexpr const char* kSystemSample = "system_sample";
inline constexpr const char* kDiagnosis = "diagnosis";
}  // namespace event_type

/// One event as it travels: type, protocol version, emitting rank, wall time, payload.
struct Event {
  std::string type;             ///< one of event_type::k*
  int version = kEventVersion;  ///< protocol version the producer wrote
  int rank = 0;                 ///< rank that emitted it (the launcher uses its own, or -1)
  double time = 0;              ///< unix time in seconds
  nlohmann::json data = nlohmann::json::object();  ///< type-specific payload (always an object)
};

/// Seconds since the unix epoch, as stored in Event::time.
double unixTimeNow();

/// One line of JSON (no newline). Non-finite numbers become null.
std::string encodeEvent(const Event& event);

/// Parses one line. Errors name what is wrong: not JSON (with position), not an object,
/// missing "type", a field of the wrong type, or a version newer than kEventVersion.
/// A trailing "\r" or "\n" is accepted. Unknown top-level fields are ignored.
/// `rankPresent` (optional) says whether the line named its rank (Event::rank is 0 otherwise).
Result<Event> decodeEvent(std::string_view line, bool* rankPresent = nullptr);

// ---------------------------------------------------------------------------------------------
// Typed events. Times are seconds; losses are the per-item means Ultralytics reports.

/// Where one optimiser step's wall time went, in seconds.
struct StepTiming {
  double dataWait = 0;       ///< waiting for the loader to hand over a batch
  double h2d = 0;            ///< host-to-device copy and normalisation
  double fwdBwd = 0;         ///< forward and backward (including loss)
  double allreduceWait = 0;  ///< waiting for gradient all-reduce after backward
  double optimizer = 0;      ///< unscale, clip, optimiser step, EMA update
  double total = 0;          ///< whole step, start to end (>= the sum of the phases)
};

/// Sum of two timings, phase by phase.
StepTiming operator+(const StepTiming& a, const StepTiming& b);
/// Every phase multiplied by `factor` (e.g. 1/n for a mean).
StepTiming operator*(const StepTiming& a, double factor);

/// What the dataset holds, for the run header.
struct DatasetSummary {
  std::string yaml;                ///< data.yaml path
  int64_t trainImages = 0;         ///< images in the train split
  int64_t valImages = 0;           ///< images in the val split
  int nc = 0;                      ///< number of classes
  std::vector<std::string> names;  ///< class names
  std::string contentHash;         ///< hash of the splits' images (paths, sizes) and boxes ("" = unknown)
  /// Edits in the dataset's label edit log (<root>/.stave/label-edits.jsonl) when the run
  /// started: where the log stood, so History can tell which label files two runs' datasets
  /// differ in. -1 = not recorded (runs before it was).
  int64_t labelEdits = -1;
};

/// NCCL-related settings in effect, recorded in the run header.
struct NcclSettings {
  std::string backend;             ///< "nccl", "gloo" or "" (single process)
  std::string p2pLevel;            ///< NCCL_P2P_LEVEL ("" = NCCL's default)
  bool shmDisable = false;         ///< NCCL_SHM_DISABLE
  std::string debug;               ///< NCCL_DEBUG
  bool asyncErrorHandling = true;  ///< NCCL async error handling
  double timeoutS = 1800;          ///< collective timeout
  double bucketMb = 25;            ///< gradient bucket size
  /// Where Gloo's collectives run: the interface (socket_ifname, GLOO_SOCKET_IFNAME) or the
  /// address that routes to the master; "" for NCCL and single-process runs.
  std::string interface;
};

/// run_start: what runs where. Emitted once by rank 0 (and by the launcher).
struct RunStartEvent {
  std::map<std::string, std::string> versions;       ///< e.g. stave, torch, cuda, cudnn, nccl
  std::string device;                                ///< "cpu" or "cuda"
  std::vector<std::string> deviceNames;              ///< one per local device used
  int worldSize = 1;                                 ///< number of ranks
  int nnodes = 1;                                    ///< number of machines
  DatasetSummary dataset;                            ///< dataset summary
  nlohmann::json config = nlohmann::json::object();  ///< resolved run config (key -> value)
  /// What the device-dependent `auto` keys became on this device: {precision: "bf16",
  /// channels_last: true}; empty when unknown (older event logs).
  nlohmann::json resolved = nlohmann::json::object();
  NcclSettings nccl;                                 ///< distributed settings
  std::string runDir;                                ///< runs/<id>
  std::string host;                                  ///< rank 0's host name ("" = unknown)
};

/// step: one optimiser step (or the mean of the last few), per rank.
struct StepEvent {
  int epoch = 0;             ///< 0-based epoch
  int iter = 0;              ///< 0-based iteration within the epoch
  int itersPerEpoch = 0;     ///< iterations in this epoch
  double boxLoss = 0;        ///< running mean box loss of the epoch
  double clsLoss = 0;        ///< running mean cls loss of the epoch
  double dflLoss = 0;        ///< running mean dfl loss of the epoch
  double lr = 0;             ///< learning rate of parameter group 0
  double samplesPerSec = 0;  ///< images per second on this rank
  StepTiming timing;         ///< where the step's time went
};

/// epoch_end: training part of an epoch finished.
struct EpochEndEvent {
  int epoch = 0;           ///< 0-based epoch just finished
  int epochs = 0;          ///< planned number of epochs
  double boxLoss = 0;      ///< mean train box loss
  double clsLoss = 0;      ///< mean train cls loss
  double dflLoss = 0;      ///< mean train dfl loss
  double epochTime = 0;    ///< training time of the epoch (validation excluded)
  std::vector<double> lr;  ///< lr per parameter group (pg0, pg1, pg2)
};

/// Metrics of one class in a validation.
struct ClassMetricsRow {
  int cls = 0;            ///< class index
  std::string name;       ///< class name
  int64_t images = 0;     ///< images containing the class
  int64_t instances = 0;  ///< ground-truth boxes
  double precision = 0;   ///< P at the operating point
  double recall = 0;      ///< R at the operating point
  double map50 = 0;       ///< AP at IoU .5 (-1 when the class has no ground truth)
  double map5095 = 0;     ///< AP at IoU .5:.95 (-1 when the class has no ground truth)
};

/// validation: metrics of one validation pass.
struct ValidationEvent {
  int epoch = 0;                          ///< 0-based epoch validated
  double precision = 0;                   ///< mean P
  double recall = 0;                      ///< mean R
  double map50 = 0;                       ///< mAP at IoU .5
  double map5095 = 0;                     ///< mAP at IoU .5:.95
  double boxLoss = 0;                     ///< val box loss
  double clsLoss = 0;                     ///< val cls loss
  double dflLoss = 0;                     ///< val dfl loss
  double valTime = 0;                     ///< seconds the validation took
  std::vector<ClassMetricsRow> perClass;  ///< optional, empty when not reported
};

/// Which checkpoint was written.
enum class CheckpointKind { Last, Best, Periodic };
/// "last", "best", "periodic".
const char* toString(CheckpointKind kind);

/// checkpoint: a checkpoint file was written (atomically).
struct CheckpointEvent {
  std::string path;                            ///< file written
  int epoch = 0;                               ///< 0-based epoch it holds
  CheckpointKind kind = CheckpointKind::Last;  ///< last, best or periodic
};

/// warning: something the user should know, the run goes on.
struct WarningEvent {
  std::string message;  ///< what happened and what to try
  std::string source;   ///< subsystem ("data", "amp", "dist", ...) or ""
  TextParts text = {};  ///< `message` as catalog messages ("message_text"; empty: English only)
};

/// error: the run (or one rank) failed.
struct ErrorEvent {
  int rank = -1;                     ///< rank that failed, -1 when not rank specific
  std::string message;               ///< the cause in words
  std::optional<int> exitCode;       ///< exit code of the failed process, if it exited
  std::optional<int> signal;         ///< signal that killed it, if any
  std::vector<std::string> logTail;  ///< last lines of its log
  std::string hint;                  ///< what to try, or ""
  TextParts text = {};               ///< `message` as catalog messages (empty: English only)
  TextParts hintText = {};           ///< `hint` as catalog messages (empty: English only)
};

/// How a run ended.
enum class RunStatus { Completed, Stopped, Failed, EarlyStopped };
/// "completed", "stopped", "failed", "early_stopped".
const char* toString(RunStatus status);

/// finished: the last event of a run.
struct FinishedEvent {
  RunStatus status = RunStatus::Completed;  ///< how it ended
  int epochsCompleted = 0;                  ///< epochs fully trained
  int epochs = 0;                           ///< epochs planned
  int bestEpoch = -1;                       ///< epoch of best.pt, -1 when none
  double bestMap50 = 0;                     ///< mAP50 of the best epoch
  double bestMap5095 = 0;                   ///< mAP50-95 of the best epoch
  double totalTime = 0;                     ///< wall seconds of the run
  std::string message;                      ///< a line for the user, or ""
  TextParts text = {};                      ///< `message` as catalog messages ("message_text")
};

/// The phases a step's time is split into, in StepTiming order.
enum class StepPhase { DataWait, H2D, FwdBwd, AllreduceWait, Optimizer };
/// "data_wait", "h2d", "fwd_bwd", "allreduce_wait", "optimizer".
const char* toString(StepPhase phase);
/// The seconds of `phase` in `timing`.
double phaseSeconds(const StepTiming& timing, StepPhase phase);

/// straggler: the slowest rank of a reporting period and what holds it back.
struct StragglerEvent {
  int slowRank = 0;                         ///< the slowest rank
  int slowNode = -1;                        ///< its node in a run of several nodes, else -1
  StepPhase waitsOn = StepPhase::DataWait;  ///< its dominant phase
  double fraction = 0;                      ///< that phase's share of the rank's step (0..1)
  double othersFraction = 0;  ///< the same share on the other ranks (median), 0 with one rank
  double stepTime = 0;        ///< the slow rank's mean step time
  double imbalance = 0;       ///< (its busy time - median busy time of the others) / its step
  int steps = 0;              ///< step samples of the slow rank in the period
  std::string message;        ///< e.g. "rank 1 waits for data 41% of its step"
  TextParts text;             ///< the same as catalog messages ("message_text"; empty in old logs)
};

/// rank_exit: a rank process ended (emitted by the launcher).
struct RankExitEvent {
  int rank = 0;                 ///< which rank
  std::optional<int> exitCode;  ///< exit code, if it exited
  std::optional<int> signal;    ///< signal, if it was killed
  std::string outcome;          ///< "finished", "stopped", "crashed", "killed", "timed_out"
};

/// schedule_replanned: epochs changed during a run (time budget, resume with more epochs).
struct ScheduleReplannedEvent {
  int oldEpochs = 0;     ///< epochs planned before
  int newEpochs = 0;     ///< epochs planned now
  int atEpoch = 0;       ///< epoch at which the plan changed
  std::string reason;    ///< "time_budget", "resume_extended", ...
  double epochTime = 0;  ///< measured seconds per epoch behind the decision, 0 if unused
};

/// One GPU in a gpu_sample. -1 where the device does not report a value.
struct GpuReading {
  int index = 0;               ///< NVML device index
  std::string name;            ///< device name
  double util = -1;            ///< % of time a kernel ran
  double memUtil = -1;         ///< % of time memory was read or written
  double memUsed = -1;         ///< bytes
  double memTotal = -1;        ///< bytes
  double powerW = -1;          ///< board power, watts
  double powerLimitW = -1;     ///< enforced power limit, watts
  double temperatureC = -1;    ///< core temperature, Celsius
  double smClockMHz = -1;      ///< SM clock, MHz
  double pcieTxBps = -1;       ///< PCIe bytes/s sent
  double pcieRxBps = -1;       ///< PCIe bytes/s received
};

/// gpu_sample: the node's GPUs, written by the launcher every sample period. No GPU (no
/// driver, no NVML): one event with no gpus and `status` saying why.
struct GpuSampleEvent {
  std::vector<GpuReading> gpus;  ///< one per device
  std::string status;            ///< "" when sampling works, else e.g. "no NVIDIA GPU: ..."
  TextParts statusText;          ///< `status` as catalog messages (empty: English only)
  int node = 0;      ///< the node sampled (node_rank; 0 in logs written before it was named)
  int nodes = 1;     ///< nodes in the run (1 when absent), so a reader names GPUs from the first
  std::string host;  ///< that node's host name ("" when unknown, as in older logs)
};

/// One process of the run in a system_sample.
struct ProcessReading {
  int rank = 0;      ///< global rank
  int pid = 0;       ///< process id
  double rss = -1;   ///< resident memory, bytes
  double cpu = -1;   ///< % of one core over the last period (200 = two cores busy)
};

/// system_sample: the node's CPU, memory and disk, and each local rank's process, written by
/// the launcher every sample period. Rates are over the period since the previous sample
/// (the first sample has none: empty cpu, -1 rates).
struct SystemSampleEvent {
  std::vector<double> cpu;           ///< % busy per core
  double cpuTotal = -1;              ///< % busy over all cores
  double memUsed = -1;               ///< bytes (MemTotal - MemAvailable)
  double memTotal = -1;              ///< bytes
  std::vector<ProcessReading> ranks; ///< local ranks
  double diskReadBps = -1;           ///< bytes/s read from the dataset's disk (-1 unknown)
  std::string disk;                  ///< that disk's name ("" unknown)
  int node = 0;      ///< the node sampled (node_rank; 0 in logs written before it was named)
  int nodes = 1;     ///< nodes in the run (1 when absent), so a reader names GPUs from the first
  std::string host;  ///< that node's host name ("" when unknown, as in older logs)
};

/// How much a finding of the doctor matters.
enum class Severity { Info, Warning, Critical };
/// "info", "warning", "critical".
const char* toString(Severity severity);

/// One config change the doctor advises, e.g. {"workers", "8"}.
struct Advice {
  std::string key;    ///< run-config key
  std::string value;  ///< value as it is written on the command line
};

/// One finding of the doctor: which rule fired, on which numbers, and what to change.
struct Finding {
  std::string rule;                         ///< rule id, e.g. "data_bound" (docs/doctor.md)
  Severity severity = Severity::Warning;    ///< how much throughput is at stake
  int rank = -1;                            ///< the rank concerned, -1 = every rank
  std::string title;                        ///< a few words, e.g. "data-bound"
  std::string message;                      ///< a sentence with the numbers behind it
  TextParts titleText;                      ///< `title` as catalog messages (empty in old logs)
  TextParts text;                           ///< `message` as catalog messages (empty in old logs)
  std::vector<Advice> advice;               ///< config changes, in order of importance
  std::map<std::string, double> evidence;   ///< the numbers that made the rule fire
};

/// The advice of a finding as the command line takes it: "workers=8 cache=ram".
std::string adviceText(const std::vector<Advice>& advice);

/// diagnosis: the doctor's findings for one reporting period, or (final) for the whole run.
/// Written by the launcher (or a single process) every reporting period and once at the end.
struct DiagnosisEvent {
  bool final = false;              ///< the report over the whole run, written at its end
  double periodS = 0;              ///< length of the period judged (the whole run when final)
  int steps = 0;                   ///< step samples behind it, all ranks (warm-up excluded)
  int warmupSteps = 0;             ///< step samples left out as warm-up
  std::vector<Finding> findings;   ///< most severe first; empty = no bottleneck found
  std::string summary;             ///< one line for a banner or a log
  TextParts summaryText;           ///< `summary` as catalog messages (empty in old logs)
};

/// A message's catalog form as an event field, beside its English:
/// [{"msg_id": "doctor.data_bound", "args": {"share": "45%", "cpu": [{"msg_id": ...}]}}] (an
/// argument that is a message of its own is such a list).
nlohmann::json textToJson(const TextParts& parts);
/// Reads textToJson's form back; an error's key is the path below the field ("[0].args.cpu").
Result<TextParts> textFromJson(const nlohmann::json& j);

/// The numeric leaves of an event's data keyed by their path ("gpus/0/util", "cpu/3"), for
/// the readers that store or plot every field of a sample event. An array element carrying an
/// "index" (a GPU) or a "rank" is keyed by it, not by its position; "index", "rank" and "pid"
/// themselves are identities, not values, and strings and nulls are left out. The sampled
/// node ("node" at the top of the data, and the run's "nodes") is an identity too: node K > 0
/// puts nodeKeyPrefix(K) before every key, so two nodes' GPU 0 stay two series, and node 0's
/// keys are those of a run of one node (and of logs written before samples named their node).
void flattenNumbers(const nlohmann::json& data, const std::string& prefix,
                    std::vector<std::pair<std::string, double>>& out);

/// The prefix of node `node`'s sample keys: "" for node 0, "node/<K>/" for node K.
std::string nodeKeyPrefix(int node);
/// A sample key's node and the key without its prefix: "node/1/gpus/0/util" → {1,
/// "gpus/0/util"}; a key without the prefix is node 0's.
std::pair<int, std::string_view> splitNodeKey(std::string_view key);

/// A sample event read without building its JSON tree (the launcher writes two per node every
/// half second; a day-long run holds hundreds of thousands): its envelope and the numeric
/// leaves of its data, keyed exactly as flattenNumbers keys them.
struct ScannedEvent {
  std::string type;
  int rank = 0;
  double time = 0;
  int node = 0;   ///< the sampled node ("node" in the data; 0 when absent)
  int nodes = 1;  ///< the run's nodes ("nodes" in the data; 1 when absent)
  std::vector<std::pair<std::string, double>> leaves;
};
/// Reads `line` into `out`; false when it is not a well-formed event with a data object (the
/// caller then decodes it with decodeEvent, which says what is wrong).
bool scanEventLeaves(std::string_view line, ScannedEvent* out);

/// The named values of a step / epoch end / validation, keyed as in results.csv
/// (train/box_loss, metrics/mAP50-95(B), lr/pg0, ...; step-level ones step/...): the one list
/// the history store and the TensorBoard writer both use.
std::vector<std::pair<std::string, double>> metricsOf(const StepEvent& e);
std::vector<std::pair<std::string, double>> metricsOf(const EpochEndEvent& e);
std::vector<std::pair<std::string, double>> metricsOf(const ValidationEvent& e);
/// Whether events of `type` come at the step or sample rate (step, gpu_sample, system_sample,
/// any *_sample): most of a run's log, which readers aggregate rather than keep.
bool isSampleType(std::string_view type);
bool isHighRateType(std::string_view type);
/// The type of an encoded event line read from its end, as encodeEvent writes it
/// (`...,"type":"step","version":1}`), without decoding it; "" when the end does not say (another
/// layout, a damaged line: decode it). What fast readers use to skip or route lines.
std::string_view typeAtLineEnd(std::string_view line);
/// The rank of a step line of a rank other than 0, read from its end as encodeEvent writes it
/// (`...},"rank":3,"time":...,"type":"step","version":1}`); 0 for anything else (rank 0,
/// another layout, a damaged line: decode it), -1 for a negative rank.
int otherRanksStep(std::string_view line);
/// The number after `"samples_per_s":` in a step line, undecoded (NaN when there is none).
double stepSamplesPerSec(std::string_view line);
/// Global iteration of a step event (epoch x iterations per epoch + iteration).
int64_t globalStep(const StepEvent& e);

/// Build an Event (time = now) from a typed payload, emitted by `rank`.
Event toEvent(const RunStartEvent& e, int rank);
Event toEvent(const StepEvent& e, int rank);
Event toEvent(const EpochEndEvent& e, int rank);
Event toEvent(const ValidationEvent& e, int rank);
Event toEvent(const CheckpointEvent& e, int rank);
Event toEvent(const WarningEvent& e, int rank);
Event toEvent(const ErrorEvent& e, int rank);
Event toEvent(const FinishedEvent& e, int rank);
Event toEvent(const StragglerEvent& e, int rank);
Event toEvent(const RankExitEvent& e, int rank);
Event toEvent(const ScheduleReplannedEvent& e, int rank);
Event toEvent(const GpuSampleEvent& e, int rank);
Event toEvent(const SystemSampleEvent& e, int rank);
Event toEvent(const DiagnosisEvent& e, int rank);

/// The payload fields that the generic member table writes and reads (toEvent writes them with
/// config::membersToJson, <type>FromEvent reads them with the codec's rules); a finished
/// event's status and message_text are converted by hand. Optional rows: fields older logs lack.
const config::MemberTable<FinishedEvent>& finishedFields();
const config::MemberTable<ScheduleReplannedEvent>& scheduleReplannedFields();

/// Read the typed payload back. Errors name the field (as "data.<field>") and what is wrong,
/// or say the event has another type. A JSON null where a number belongs reads as NaN (that is
/// how a non-finite loss travels).
Result<RunStartEvent> runStartFromEvent(const Event& e);
Result<StepEvent> stepFromEvent(const Event& e);
Result<EpochEndEvent> epochEndFromEvent(const Event& e);
Result<ValidationEvent> validationFromEvent(const Event& e);
Result<CheckpointEvent> checkpointFromEvent(const Event& e);
Result<WarningEvent> warningFromEvent(const Event& e);
Result<ErrorEvent> errorFromEvent(const Event& e);
Result<FinishedEvent> finishedFromEvent(const Event& e);
Result<StragglerEvent> stragglerFromEvent(const Event& e);
Result<RankExitEvent> rankExitFromEvent(const Event& e);
Result<ScheduleReplannedEvent> scheduleReplannedFromEvent(const Event& e);
Result<GpuSampleEvent> gpuSampleFromEvent(const Event& e);
Result<SystemSampleEvent> systemSampleFromEvent(const Event& e);
Result<DiagnosisEvent> diagnosisFromEvent(const Event& e);

}  // namespace stave::telemetry
