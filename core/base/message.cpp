#include "core/base/message.h"

#include <algorithm>
#include <unordered_map>

namespace stave {
namespace {

// The catalog. An id names one meaning for good: when the English changes its sense, the id
// changes too (the studio's translations are keyed by the English template, so a changed
// template shows as untranslated until translated again). Each template is listed for the
// translators in core/studio/engine_strings.cpp; the tests check that both agree.
const std::vector<MessageDef> kCatalog = {
    // --- shared words -----------------------------------------------------------------------
    {"rank", "rank {rank}"},
    {"rank_on_node", "rank {rank} on node {node}"},
    {"gpu", "GPU {index}"},
    {"gpu_on_node", "node {node} GPU {index}"},
    {"node", "node {node}"},
    {"node_host", "node {node} ({host})"},

    // --- the doctor (core/telemetry/doctor.cpp) ---------------------------------------------
    {"doctor.cpu_busy", "CPU {percent} busy"},
    {"doctor.cpu_unknown", "CPU load unknown"},
    {"doctor.cpu_busy_node", "CPU {percent} busy on {node}, the busiest node"},
    {"doctor.fullest_gpu", "; the fullest is {gpu}"},
    {"doctor.least_busy_gpu", "; the least busy is {gpu}, at {percent}"},
    {"doctor.title.data_bound", "data-bound"},
    {"doctor.title.input_copy_bound", "input-copy-bound"},
    {"doctor.title.communication_bound", "communication-bound"},
    {"doctor.title.straggler", "straggler"},
    {"doctor.title.near_oom", "near out of memory"},
    {"doctor.title.memory_headroom", "memory headroom"},
    {"doctor.title.gpu_underused", "GPU under-used"},
    {"doctor.data_bound",
     "ranks wait for data {share} of their step ({cpu}, workers={workers}, cache={cache})"},
    {"doctor.data_bound.idle_cores",
     "; the CPU has idle cores: give each rank as many loader threads as it has cores"},
    {"doctor.data_bound.cache_ram",
     "; cache decoded images in RAM so that later epochs skip decoding (cache=disk when the set "
     "does not fit)"},
    {"doctor.data_bound.and_cache_ram",
     ", and cache decoded images in RAM so that later epochs skip decoding (cache=disk when the "
     "set does not fit)"},
    {"doctor.data_bound.no_advice",
     "; the loader already caches and uses every core: it needs more CPU per GPU (fewer ranks per "
     "node, or cheaper augmentation such as mosaic=0 near the end)"},
    {"doctor.input_copy", "ranks spend {share} of their step copying the batch to the GPU"},
    {"doctor.input_copy.pin", "; pinned host memory lets the copy run at full PCIe speed"},
    {"doctor.input_copy.pinned",
     " although it is pinned: check the GPUs' PCIe generation and width on the Hardware page (a "
     "x4 or gen-3 link halves the copy rate)"},
    {"doctor.communication",
     "ranks wait in the gradient all-reduce {share} of their step while no rank lags "
     "(bucket_mb={bucket_mb})"},
    {"doctor.communication.buckets",
     "; tiny buckets mean many small all-reduces, each paying the link's latency"},
    {"doctor.communication.nbs",
     "; accumulating over more batches all-reduces less often (nbs is the nominal batch: lr and "
     "weight decay follow it)"},
    {"doctor.communication.topology",
     ". Check the GPU topology on the Hardware page: without NVLink or PCIe P2P NCCL goes through "
     "host memory (nccl_p2p_level)"},
    {"doctor.straggler",
     "{rank} is {share} of a step slower than the others, who wait for it in the all-reduce: "
     "{detail}"},
    {"doctor.straggler.loader",
     ". Its loader is slower: a slower or shared disk, fewer free cores on its node, or another "
     "job on them"},
    {"doctor.straggler.copy",
     ". Its input copy is slower: check that GPU's PCIe link on the Hardware page"},
    {"doctor.straggler.compute",
     ". It computes slower: compare that GPU's clocks, temperature and power with the others on "
     "the Hardware page (throttling, another process on it)"},
    {"doctor.near_oom",
     "the fullest GPU uses {share} of its memory: a larger image or a fragmenting allocator ends "
     "the run with out-of-memory"},
    {"doctor.memory_headroom",
     "the fullest GPU uses only {share} of its memory: a larger batch per rank fits and keeps the "
     "GPU busier"},
    {"doctor.gpu_underused",
     "the GPUs are busy {percent} of the time although the ranks hardly wait for data or peers"},
    {"doctor.gpu_underused.fp32",
     "; they compute in fp32 where bf16 (auto) doubles the tensor-core rate"},
    {"doctor.gpu_underused.channels_last", "; channels-last convolutions are faster on tensor cores"},
    {"doctor.gpu_underused.small_batch",
     "; a small batch leaves the step launch-bound (many small kernels)"},
    {"doctor.summary.finding", "{title}: {message}"},
    {"doctor.summary.try", " -> try {advice}"},
    {"doctor.summary.more", " (+{count} more)"},
    {"doctor.summary.warmup",
     "warm-up: {count} step samples not judged yet (first steps, and the first epoch while a "
     "cache fills)"},
    {"doctor.summary.no_timings", "no step timings to judge"},
    {"doctor.summary.clean", "no bottleneck found: {detail}"},
    {"doctor.summary.clean_detail",
     "ranks compute {compute} of their step (data wait {data}, all-reduce wait {wait})"},
    {"doctor.summary.too_few",
     "not enough steps to judge: {steps} step samples after the {warmup} of the warm-up (at least "
     "{needed} needed)"},

    // --- input that cannot be used (core/config, core/data): what a refused pre-flight says -
    {"plain", "{text}"},
    {"project.no_config", "no config named '{name}' (configs: {configs})"},
    {"project.dataset_not_found",
     "dataset not found: {path} (stored as '{stored}', relative to the project folder)"},
    {"data.folder_missing", "folder does not exist: {path}"},
    {"data.names_missing", "missing: data.yaml needs class names (names: [a, b, ...])"},
    {"data.no_classes", "no classes given"},
    {"data.split_missing",
     "missing: data.yaml needs '{key}' (a folder, a .txt list of images, or a list of them)"},
    {"data.paths_empty", "the list of paths is empty"},
    {"data.path_missing", "path does not exist: {path}"},
    {"data.not_yaml", "not valid YAML: {detail}"},
    {"data.not_a_map", "expected a map with keys path, train, val, test, names"},
    {"data.nc_mismatch", "nc is {nc} but names has {count} entries"},
    {"config.wrong_type", "expected {type} ({range}), got {value}"},
    {"config.out_of_range", "{value} is out of range: expected {range}"},
    {"config.not_a_choice", "{value} is not valid: expected {range}"},
    {"config.range.bool", "true or false"},
    {"config.range.integer", "an integer"},
    {"config.range.integer_min", "an integer >= {min}"},
    {"config.range.integer_max", "an integer <= {max}"},
    {"config.range.integer_in", "an integer in [{min}, {max}]"},
    {"config.range.number", "a number"},
    {"config.range.number_min", "a number >= {min}"},
    {"config.range.number_max", "a number <= {max}"},
    {"config.range.number_in", "a number in [{min}, {max}]"},
    {"config.range.one_of", "one of {choices}"},
    {"config.range.string", "a string"},
    {"config.range.path", "a path"},
    {"config.range.int_list", "a list of integers such as 0,1,2"},
    {"config.node_rank", "must be less than nnodes ({nnodes}), got {node_rank}"},
    {"config.nproc_devices", "nproc {nproc} needs one GPU per rank, but devices lists {count} ('{devices}')"},

    // --- stave-train's and the launcher's warnings and errors (the Run page's log) ----------
    {"train.nonfinite_one", "non-finite loss at epoch {epoch} iteration {iter}: step skipped"},
    {"train.nonfinite_many",
     "{count} non-finite losses up to epoch {epoch} iteration {iter}: steps skipped"},
    {"train.split_problems",
     "{count} problems in the {split} split (first: {first}); see `stave-train check-dataset`"},
    {"train.dataset_changed",
     "the dataset changed since {checkpoint} was written (content hash {old} -> {new}: images "
     "added, removed or relabelled); the run continues on the data as it is now"},
    {"launcher.stop_requested", "stop requested: asking every rank to finish its step and stop"},
    {"launcher.second_stop", "second stop request: killing every rank"},
    {"launcher.rank_not_started",
     "rank {rank} has not started training {seconds} s after it was launched: the ranks wait at "
     "the rendezvous ({address}) until all {nnodes} nodes have joined; is every node's launcher "
     "started, with the same master_addr, master_port and nnodes? (Ctrl-C or SIGTERM stops this "
     "wait at once)"},
    {"launcher.rank0_stopped",
     "rank 0 has stopped; rank(s) {ranks} still running {seconds} s later (blocked or stopped) "
     "were killed"},
    {"launcher.stop_timeout", "ranks did not stop within {seconds} s of the stop request; killed"},

    // --- the straggler detector (core/telemetry/straggler.cpp) ------------------------------
    {"straggler.data_wait", "{rank} waits for data {share} of its step"},
    {"straggler.h2d", "{rank} waits for host-to-device copies {share} of its step"},
    {"straggler.allreduce_wait", "{rank} waits in all-reduce {share} of its step"},
    {"straggler.fwd_bwd", "{rank} spends {share} of its step in forward+backward"},
    {"straggler.optimizer", "{rank} spends {share} of its step in the optimiser"},
    {"straggler.others", "; other ranks {share}"},
};

const std::unordered_map<std::string_view, const MessageDef*>& index() {
  static const auto map = [] {
    std::unordered_map<std::string_view, const MessageDef*> m;
    for (const auto& d : kCatalog) m.emplace(d.id, &d);
    return m;
  }();
  return map;
}

}  // namespace

Text::Arg::Arg(std::string n, Text t) : name(std::move(n)), text{std::move(t)} {}
Text::Arg::Arg(std::string n, std::vector<Text> parts) : name(std::move(n)), text(std::move(parts)) {}

const std::vector<MessageDef>& messageCatalog() {
  return kCatalog;
}

const MessageDef* findMessage(std::string_view id) {
  const auto& m = index();
  const auto it = m.find(id);
  return it == m.end() ? nullptr : it->second;
}

std::vector<std::string> placeholders(std::string_view tmpl) {
  std::vector<std::string> out;
  fillTemplate(tmpl, [&](const std::string& name) {
    out.push_back(name);
    return std::string();
  });
  return out;
}

std::string english(const Text& text) {
  const auto argValue = [&](const std::string& name) -> std::string {
    for (const auto& a : text.args)
      if (a.name == name) return a.text.empty() ? a.value : english(a.text);
    return "{" + name + "}";
  };
  if (const MessageDef* def = findMessage(text.id)) return fillTemplate(def->english, argValue);
  std::string out = text.id;
  for (const auto& a : text.args) out += " " + a.name + "=" + argValue(a.name);
  return out;
}

std::string english(const TextParts& parts) {
  std::string out;
  for (const auto& t : parts) out += english(t);
  return out;
}

}  // namespace stave
