#include "core/base/message.h"

#include <algorithm>
#include <unordered_map>

#include "core/base/message_catalog.h"

namespace stave {
namespace {

// The catalog. An id names one meaning for good: when the English changes its sense, the id
// changes too (the studio's translations are keyed by the English template, so a changed
// template shows as untranslated until translated again). Each template is listed for the
// translators in core/studio/engine_strings.cpp; the tests check that both agree. Its second
// chapter (the cluster, the dataset, labels, NVML) is in message_catalog_tools.cpp, its
// third (the dataset report) in message_catalog_report.cpp.
const std::vector<MessageDef> kEngineMessages = {
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
    {"doctor.gpu_underused.channels_last",
     "; channels-last convolutions are faster on tensor cores"},
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
    {"config.unknown_key", "unknown key{near}; 'stave-train config-docs' lists every key"},
    {"config.did_you_mean", " (did you mean '{key}'?)"},
    {"config.expected", "expected {range}, got {value}"},
    {"config.node.null", "nothing (null)"},
    {"config.node.list", "a list"},
    {"config.node.map", "a mapping"},
    {"config.node.string", "the string \"{value}\""},
    {"config.node.scalar", "'{value}'"},
    {"config.not_a_mapping", "expected a mapping of 'key: value' lines at the top level"},
    {"config.is_data_yaml",
     "this is a data.yaml (a dataset description), not a run config; use data={file} (e.g. "
     "stave-train train data={file} model=yolov8n epochs=50)"},
    {"config.key_not_plain", "keys must be plain names"},
    {"config.duplicate_key", "duplicate key (first set on line {line})"},
    {"config.empty_file",
     "the file is empty (0 bytes); a run config sets at least data: path/to/data.yaml"},
    {"config.empty_comments",
     "the file is empty: it holds only comments; a run config sets at least data: "
     "path/to/data.yaml"},
    {"config.empty_blank",
     "the file is empty: it holds only blank lines; a run config sets at least data: "
     "path/to/data.yaml"},
    {"project.not_a_project", "not a Stave project file (expected \"format\": \"{format}\")"},
    {"project.version_missing", "missing or not an integer"},
    {"project.newer",
     "the file was written by a newer Stave (format version {version}); this build reads up to "
     "version {supported}. Open it with a newer Stave; the file was not changed"},
    {"project.version_low", "must be >= 1, got {version}"},
    {"project.not_json",
     "not a Stave project file: a project file is JSON text starting with '{{', this one starts "
     "with {start}"},
    {"project.binary", "binary data"},
    {"json.number_range", "number out of range {number} (beyond what a double can hold)"},
    {"json.malformed", "not valid JSON (truncated or malformed): {detail}"},
    {"json.duplicate_key", "duplicate key (also on line {line}); remove one of them"},
    {"json.too_deep",
     "nested more than {depth} levels deep: not a file Stave wrote (damaged or hand-made); "
     "nothing was read from it"},
    {"config.node_rank", "must be less than nnodes ({nnodes}), got {node_rank}"},
    {"config.nproc_devices",
     "nproc {nproc} needs one GPU per rank, but devices lists {count} ('{devices}')"},

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

    {"launcher.rank_silent",
     "rank {rank} (pid {pid}) has sent no event for {seconds} s; its step events came every "
     "{interval} s. {state}The other ranks wait for it; the run is stopped after {limit} s of "
     "silence (nccl_timeout_s)"},
    {"launcher.rank_silent.sigstop",
     "The process is stopped (SIGSTOP or a debugger): SIGCONT resumes it. "},
    {"launcher.rank_silent.io",
     "The process waits in uninterruptible I/O (disk or network file system). "},
    {"launcher.hung",
     "rank {rank} sent no event for {seconds} s (limit {limit} s): hung, e.g. blocked in a "
     "collective; stopping the run"},
    {"launcher.hung.hint",
     "a rank blocked in a collective usually waits for a peer that is stuck or gone; see the "
     "rank logs (NCCL_DEBUG=INFO helps on CUDA)"},
    {"launcher.rank_ended",
     "rank {rank} (pid {pid}) ended with {how}{detail}; stopping the other ranks"},
    {"launcher.exit_code", "exit code {code}"},
    {"launcher.signal", "signal {signal}"},
    {"launcher.not_executed", " (the worker command could not be executed)"},
    {"launcher.cause", ": {cause}"},
    {"launcher.cannot_start_rank", "cannot start rank {rank}: {reason}"},
    {"launcher.stopped_before_start",
     "stopped on request before training started (the ranks were still at the rendezvous or "
     "setting up); nothing was trained"},
    {"launcher.relay_not_connected",
     "the event relay to node 0 is not connected ({reason}); this node's own event log ({log}) "
     "has all its events"},
    {"launcher.relay_dropped",
     "the event relay to node 0 dropped {count} events while node 0 could not be reached; this "
     "node's own event log ({log}) has them all"},
    {"train.relay_unreachable",
     "the other ranks' events cannot reach events.jsonl ({reason}); rank 0's are written, and "
     "the run goes on"},
    {"train.val_views_not_written", "the validation views were not written: {reason}"},
    {"train.results_not_written", "could not write results.csv: {reason}"},
    {"train.optimizer_kept",
     "optimizer=auto keeps {optimizer} (lr0 {lr}) from the checkpoint; a new run of this length "
     "would pick {other}"},
    {"train.resumed_world",
     "resumed with {world} ranks; {checkpoint} was written by {before}: the per-rank batch "
     "({per_rank}), nbs ({nbs}) and the schedule stay; the global batch is {global} images (was "
     "{old_global}), gradients are accumulated over {accumulate} steps (was {old_accumulate}), "
     "and epoch {epoch} has {batches} batches per rank"},
    {"train.pretrained_partial",
     "Transferred {transferred}/{total} items from pretrained weights ({writer}, {source}); kept "
     "{count} as initialised: {kept} {path}"},
    {"train.kept_class_branch", "the head's class branch ({from} -> {to} classes)"},
    {"train.image_grey", "{problem}; used as a grey {split} image without boxes"},
    {"train.images_more",
     "{count} more {split} images could not be used ({total} undecodable so far on rank {rank}); "
     "stave-train check-dataset --verify lists them"},
    {"train.stop_blocked",
     "rank {rank} was asked to stop but made no progress for {seconds} s (blocked: in a "
     "collective whose peer is gone, or waiting for the data loader); it ended without writing a "
     "checkpoint: resume=true continues from the last one"},

    // --- why a run failed (error events: the Run page's log and outcome, History) ----------
    {"train.failed", "training failed: {reason}"},
    {"train.oom",
     "out of device memory on {device} with batch {batch} per rank, imgsz {imgsz}, precision "
     "{precision}, model {model}"},
    {"train.oom.hint",
     "lower batch (e.g. batch={half}; accumulation keeps the nominal batch {nbs}), or imgsz, or "
     "use precision=bf16/fp16, or a smaller model; weights/last.pt is intact"},
    {"train.no_cuda", "devices={devices} asks for GPUs, but there is no CUDA device: {reason}"},
    {"train.no_cuda.hint", "use devices=cpu, or run where an NVIDIA GPU and its driver are"},
    {"train.no_such_gpu", "devices: GPU {id} does not exist ({count} visible)"},
    {"train.no_such_gpu.hint", "list GPUs 0..{last}"},
    {"train.hint.cpu_precision", "set precision=fp32 or bf16 on the CPU"},
    {"train.hint.data_yaml", "check the `data` key and the dataset's data.yaml"},
    {"train.hint.check_dataset", "run `stave-train check-dataset` on the data.yaml"},
    {"train.split_empty", "the {split} split of {yaml} has no usable images"},
    {"train.hint.check_dataset_why", "run `stave-train check-dataset` to see why"},
    {"train.no_batches", "the train split gives no batches"},
    {"train.hint.smaller_batch", "use a smaller batch"},
    {"train.hint.start_weights",
     "{key} takes a checkpoint (.pt) of Stave (runs/<id>/weights/best.pt) or of Ultralytics "
     "(yolo11n.pt, an Ultralytics run's best.pt)"},
    {"train.no_matching_tensor",
     "{path}: no tensor of it matches this model ({model}, {nc} classes)"},
    {"train.hint.model_takes",
     "model takes yolov8n..yolov8x, yolo11n..yolo11x or a checkpoint (.pt) of Stave or "
     "Ultralytics"},
    {"train.unknown_model", "model: '{model}' names no network Stave builds"},
    {"train.hint.model_use", "use yolov8n..yolov8x, yolo11n..yolo11x or a checkpoint (.pt)"},
    {"train.freeze_head",
     "freeze={freeze} freezes the detection head of {model} too (it has {layers} layers before "
     "it): nothing would train"},
    {"train.freeze_head.hint", "use freeze={layers} at most (10 freezes the backbone)"},
    {"train.hint.resume_last", "resume needs the run's weights/last.pt (--run-dir)"},
    {"train.resume_world",
     "the run stopped inside epoch {epoch} after {batches} batches of {before} ranks ({images} "
     "images), which is no whole number of batches of {world} ranks"},
    {"train.resume_world.hint",
     "resume with {before} ranks to finish that epoch, then with {world}"},
    {"train.already_trained", "the run in {dir} already trained {done} of {epochs} epochs"},
    {"train.already_trained.hint", "resume with a larger epochs=N to extend it"},
    {"train.bad_images",
     "{bad} of {total} {split} images could not be decoded, more than max_bad_images={max} of "
     "the split"},
    {"train.bad_images.hint",
     "fix or remove the broken files (stave-train check-dataset --verify names them), or raise "
     "max_bad_images to train on without them"},
    {"train.hint.writable", "check that the run folder is writable"},
    {"train.hint.disk_space", "check free disk space in the run folder"},
    {"train.nonfinite_stop",
     "the loss was not finite (inf or NaN) in {count} steps in a row (epoch {epoch}, iteration "
     "{iter}); the run cannot recover"},
    {"train.nonfinite_stop.hint",
     "lower lr0, use precision=bf16 instead of fp16, and check the labels (stave-train "
     "check-dataset)"},

    // --- how a run ended (the finished event: the Run page's log, History's outcome) -------
    {"train.stopped_in_epoch",
     "stopped during epoch {epoch} after {batches} of {total} batches; resume=true continues"},
    {"train.early_stopped",
     "no improvement for {patience} epochs (best epoch {best}); stopped early"},
    {"train.time_budget", "time budget of {hours} h reached"},
    {"train.stopped_on_request", "stopped on request after epoch {epoch}; resume=true continues"},
    {"train.stopped_after", "stopped after {count} epochs as asked; resume=true continues"},
    {"train.times", "training {train}, validation {val}"},
    {"train.then_times", "; training {train}, validation {val}"},
    {"train.nonfinite_total", "; {count} non-finite losses, {skipped} optimiser steps skipped"},
    {"duration.s", "{n} s"},
    {"duration.min_s", "{min} min {s} s"},
    {"duration.h_min", "{h} h {min} min"},
    {"history.ended_without_final",
     "ended without a final event: no process holds its folder (killed, or its machine went "
     "down) after epoch {done} of {epochs}; resume=true continues from its last checkpoint"},

    // --- stave-train predict and export-weights (the Predict and Export Model dialogs) -----
    {"predict.cannot_read", "{path}: cannot be read ({reason})"},
    {"predict.folder_unlisted", "{path}: the folder could not be listed to the end ({reason})"},
    {"predict.not_readable", "{path}: not a readable image{detail}"},
    {"predict.cannot_encode", "{path}: cannot encode the annotated image"},
    {"predict.no_source", "no such image file or folder"},
    {"predict.no_images", "no images (.jpg, .png, .bmp, .tif, .webp) found"},
    {"size.bytes", "{bytes} bytes"},
    {"size.number", "{bytes}"},
    {"export.onnx",
     "{model}, {nc} classes, {nodes} nodes, {parameters} parameters, {size}; checked by the ONNX "
     "checker"},
    {"export.onnx_input", "\n  input  {input}, RGB 0..1"},
    {"export.onnx_output",
     "\n  output {output}: centre x, centre y, width, height (input pixels), then class scores"},
    {"export.onnx_half",
     "\n  float16 against float32 on the GPU: class scores differ by at most {diff}"},
    {"export.stave",
     "the EMA weights without optimiser state ({size}; {before} before); val, predict and "
     "pretrained= read it, resume does not"},
    {"export.ultralytics", "{model}, {nc} classes, {tensors} tensors"},
    {"export.ultralytics_load",
     "\nload it with Ultralytics: YOLO(\"{file}\"); export: yolo export model={file} format=onnx"},
    {"export.half_no_gpu",
     "a float16 model is checked on a CUDA device before it is written, and there is none here "
     "({reason}); export float32 (without --half) or run this on a machine with a GPU"},
    {"export.no_checkpoint", "no such checkpoint"},
    {"output.needs_file", "needs a file name"},
    {"output.needs_folder", "needs a folder name"},
    {"output.is_input",
     "is an input of this command ({input}); writing there would destroy it. Choose another file"},
    {"output.is_folder", "is a folder; give a file name"},
    {"output.exists", "already exists; pass --force to replace it"},
    {"output.holds_input",
     "holds an input of this command ({input}); its files could be overwritten. Choose another "
     "folder"},
    {"output.not_a_folder", "is a file, not a folder"},
    {"output.folder_not_empty",
     "already exists and is not empty; pass --force to write into it (files of the same name are "
     "replaced)"},

    // --- a lost peer (core/distributed/peers.cpp: a rank's error, the Run page's log) --------
    {"dist.node_lost",
     "node {node} ({address}{host}) was lost: its {ranks} {how} during a collective (its "
     "launcher or the machine went away, or the network between them failed); the run stops "
     "here and resume=true on every node continues from the last checkpoint"},
    {"dist.host", ", host {host}"},
    {"dist.peer_lost",
     "a peer at {address} (one of {ranks}) {how} during a collective: that rank ended; the run "
     "stops here"},
    {"dist.how.stopped_answering", "stopped answering"},
    {"dist.how.closed_connections", "closed their connections"},
    {"dist.how.closed_connection", "closed its connection"},
    {"dist.ranks_span", "ranks {first}-{last}"},
    {"dist.ranks_list", "ranks {ranks}"},

    // --- the launcher's start (core/distributed/launcher.cpp, telemetry's metrics server) ---
    {"launcher.bad_topology", "nproc, nnodes must be >= 1 and node_rank in [0, nnodes)"},
    {"launcher.port_zero_nodes", "0 (pick a free port) works on one node only; give a port"},
    {"launcher.no_free_port", "cannot bind a free port on {host}: {reason}"},
    {"launcher.cannot_create", "cannot create {path}: {reason}"},
    {"launcher.relay_failed", "the event relay: {reason}"},
    {"metrics.cannot_serve", "cannot serve metrics on {address}: {reason}"},
    {"metrics.no_host", "no such address or host name"},
    {"metrics.port_in_use", "the port is in use (another run or service)"},
    {"metrics.no_permission", "no permission (ports below 1024 need root)"},
    {"metrics.not_local", "not an address of this machine"},

    // --- checkpoints that cannot be read (core/train: Export Model, Predict, the run's log) -
    {"ckpt.noun.checkpoint", "checkpoint"},
    {"ckpt.noun.archive", "archive"},
    {"ckpt.damaged.unreadable",
     "damaged {noun}: the record cannot be read ({detail}); the file cannot be trusted"},
    {"ckpt.damaged.longer", "damaged {noun}: the record is longer than its directory says"},
    {"ckpt.damaged.bytes",
     "damaged {noun}: {detail} (its bytes are not the ones written); the file cannot be trusted"},
    {"ckpt.damaged.short", "damaged {noun}: the record ends after {done} of its {size} bytes"},
    {"ckpt.cannot_check", "cannot check the checkpoint archive: {detail}"},
    {"zip.not_zip", "Not a zip archive"},
    {"zip.inconsistent", "Zip archive inconsistent"},
    {"zip.crc", "CRC error"},
    {"zip.eof", "Premature end of file"},
    {"zip.compressed", "Compressed data invalid"},
    {"ckpt.not_complete",
     "not a readable Stave checkpoint: not a complete checkpoint archive (cut off, damaged, or "
     "not a .pt file) [{detail}]"},
    {"ckpt.not_complete_zip",
     "not a readable torch.save archive: not a complete zip archive (cut off, damaged, or not a "
     ".pt file) [{detail}]"},
    {"ckpt.legacy",
     "written by torch.save with _use_new_zipfile_serialization=False (PyTorch's format before "
     "1.6), which Stave does not read; re-save it with a current PyTorch "
     "(torch.save(torch.load(f), f))"},
    {"ckpt.legacy_start",
     "written by torch.save in the format of PyTorch before 1.6, which Stave does not read: load "
     "it and save it again with a current PyTorch"},
    {"ckpt.not_zip", "not a torch.save archive (the file is not a zip archive)"},
    {"ckpt.torchscript",
     "a TorchScript archive (a Stave checkpoint or torch.jit.save), not a torch.save one"},
    {"ckpt.no_data_pkl", "not a torch.save archive: it holds no <folder>/data.pkl record"},
    {"ckpt.record_missing", "the record cannot be found"},
    {"ckpt.no_size", "damaged archive: no size for the record ({detail})"},
    {"ckpt.expansion",
     "damaged or hostile archive: its compressed records claim {expanded} bytes, more than "
     "{factor} times the file's {bytes} bytes"},
    {"ckpt.pickle_too_big", "the pickle is {size} bytes, more than the limit of {limit}"},
    {"ckpt.no_storage_record",
     "at byte {offset}: storage {key} has no record {name} in the archive"},
    {"ckpt.at_byte", "at byte {offset}: {detail}"},
    {"ckpt.pickle_oom", "out of memory while reading the pickle"},
    {"ckpt.empty", "the checkpoint file is empty (0 bytes)"},
    {"ckpt.unreadable", "not a readable Stave checkpoint or a different model: {detail}"},
    {"ckpt.unreadable_archive",
     "not a readable Stave checkpoint or a different model: not a complete checkpoint archive "
     "(cut off, or not a .pt file) [{detail}]"},
    {"ckpt.no_optimizer", "this checkpoint has no optimiser state, so it cannot be resumed"},
    {"ckpt.names_mismatch",
     "the checkpoint names {names} classes but its model's head has {nc} class outputs (nc "
     "{nc}): the file is inconsistent and is not used"},
    {"ckpt.ultra.not_dict",
     "at byte {offset}: holds a {what}, not an Ultralytics checkpoint (a dict with 'model' or "
     "'ema')"},
    {"ckpt.ultra.no_model",
     "at byte {offset}: not an Ultralytics checkpoint: neither 'ema' nor 'model' holds a model "
     "(keys: {keys})"},
    {"ckpt.ultra.state_dict",
     "at byte {offset}: '{source}' holds a dict (a bare state_dict), not an Ultralytics model; "
     "Stave needs the model object with its yaml"},
    {"ckpt.ultra.task",
     "written by {writer}: its model is a {kind} ({task}); Stave trains detection models "
     "(yolov8n-x, yolo11n-x)"},
    {"ckpt.ultra.no_yaml",
     "written by {writer}: its model has no architecture description (model.yaml)"},
    {"ckpt.ultra.custom",
     "written by {writer}: its architecture ({file}) is not one of the published yolov8n-x and "
     "yolo11n-x that Stave builds"},
    {"ckpt.ultra.mismatch",
     "written by {writer}: {count} of the {model} model's tensors do not match it, e.g. "
     "{example}"},
    {"ckpt.cannot_build", "cannot build its model: {detail}"},
    {"ckpt.cannot_copy", "cannot copy its tensors: {detail}"},
    {"ckpt.no_file", "no such file"},
    {"ckpt.no_file_download",
     "no such file: Stave does not download weights; Ultralytics publishes {file} at "
     "https://github.com/ultralytics/assets/releases — download it and give its path (or use "
     "model={stem} to train from random weights)"},

    // --- run configs read from JSON (a project's configs, a run's run_start) ---------------
    {"config.json_not_object", "expected a JSON object of \"key\": value pairs"},

    // --- the history database (core/store: History, the Run page) --------------------------
    {"store.is_folder", "is a folder, not a database"},
    {"store.cannot_open", "cannot open: {reason}"},
    {"store.not_sqlite", "not an SQLite database ({reason})"},
    {"store.rebuild",
     "; `stave-train history PROJECT --rebuild` recreates the database from the runs' "
     "events.jsonl"},
    {"store.writable", " (is the project folder writable?)"},
    {"store.disk_full", "the disk is full ({reason}); nothing of this write was kept"},
    {"store.schema_negative",
     "the history database has schema version {version}, which no Stave writes (changed by "
     "another program?); `stave-train history PROJECT --rebuild` recreates it from the runs' "
     "events.jsonl. The file was not changed"},
    {"store.schema_newer",
     "the history database has schema version {version}, written by a newer Stave; this build "
     "reads up to version {supported}. The file was not changed"},
    {"store.corrupt",
     "the history database is corrupt ({reason}); `stave-train history PROJECT --rebuild` "
     "recreates it from the runs' events.jsonl"},
    {"store.event_skipped", "{file}:{line}: {type} event skipped: {reason}"},
    {"store.line_skipped", "{file}:{line}: skipped: {reason}"},
    {"store.line_too_long",
     "{file}:{line}: skipped: a line longer than {mib} MiB (no event is that long; damaged or "
     "not an event log)"},
    {"store.shorter", "{file}: shorter than before; read again from the start"},
    {"store.run_not_read", "{run}: not read: {reason}"},
    {"store.notes_not_object", "{file}: not a JSON object; title, tags and notes not restored"},
    {"store.notes_unreadable", "{reason}; title, tags and notes not restored"},
    {"store.cannot_list", "cannot list: {reason}"},
    {"store.cannot_open_file", "cannot open"},

    // --- files that cannot be read or written (core/base: projects, configs, the studio's files)
    {"io.is_folder", "is a folder, not a file"},
    {"io.fifo", "is a FIFO (named pipe), not a regular file; not read"},
    {"io.device", "is a device, not a regular file; not read"},
    {"io.socket", "is a socket, not a regular file; not read"},
    {"io.not_regular", "is not a regular file; not read"},
    {"io.cannot_open", "cannot open: {reason}"},
    {"io.cannot_stat", "cannot stat: {reason}"},
    {"io.cannot_read", "cannot read: {reason}"},
    {"io.read_failed", "read failed"},
    {"io.mib", "{mib} MiB"},
    {"io.too_large", "is {size}, larger than the {max} such a file may have; not read"},
    {"io.grows", "holds more than the {max} such a file may have; not read"},
    {"io.cannot_create_folder", "cannot create folder: {reason}"},
    {"io.cannot_create_temp", "cannot create temporary file {file}: {reason}"},
    {"io.write_failed", "write failed: {reason}"},
    {"io.fsync_failed", "fsync failed: {reason}"},
    {"io.rename_failed", "rename failed: {reason}"},
};

const std::vector<MessageDef> kCatalog = [] {
  std::vector<MessageDef> all = kEngineMessages;
  const auto& tools = clusterDataAndLabelMessages();
  all.insert(all.end(), tools.begin(), tools.end());
  const auto& report = datasetReportMessages();
  all.insert(all.end(), report.begin(), report.end());
  return all;
}();

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
Text::Arg::Arg(std::string n, std::vector<Text> parts)
    : name(std::move(n)), text(std::move(parts)) {}

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
