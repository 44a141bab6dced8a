// The message catalog's second chapter: the cluster (profiles, Slurm, SSH, the mirror), the
// dataset scan, labels and label issues, NVML and the node's samples, the straggler's words.
// message.cpp holds the first and joins both into one catalog.
#include "core/base/message_catalog.h"

namespace stave {

const std::vector<MessageDef>& clusterDataAndLabelMessages() {
  static const std::vector<MessageDef> messages = {
      // --- cluster profiles (core/cluster/profile.cpp, Settings ▸ Clusters, the Slurm job) ----
      {"cluster.problem", "{who}: {field}: {problem}"},
      {"cluster.who", "cluster '{name}'"},
      {"cluster.who_unnamed", "cluster profile"},
      {"cluster.needs_name", "a profile needs a name"},
      {"cluster.absolute", "expected an absolute path, got '{value}'"},
      {"cluster.absolute_folder", "expected an absolute folder, got '{value}'"},
      {"cluster.port", "expected 0 (the ssh configuration's) to 65535, got {port}"},
      {"cluster.run_folder_ssh",
       "a cluster reached over SSH needs the folder its runs go in, as the cluster sees it"},
      {"cluster.mapping_both", "give both folders of the mapping, or neither"},
      {"cluster.ssh_only", "only a cluster reached over SSH (a destination) uses it"},
      {"cluster.no_destination", "no destination (user@host or a Host of ~/.ssh/config)"},
      {"cluster.destination_dash",
       "'{destination}' begins with '-', which ssh would read as an option"},
      {"cluster.destination_space", "'{destination}' holds a space or a control character"},
      {"cluster.nodes", "expected an integer in [1, 100000]"},
      {"cluster.gpus",
       "expected an integer in [0, 1024] (0: CPU ranks, no GPU request), got {gpus}"},
      {"cluster.cpus", "expected an integer in [0, 4096]"},
      {"cluster.time",
       "expected one of Slurm's forms: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS or "
       "UNLIMITED (at most {minutes} minutes), got '{value}'"},
      {"cluster.slurm_chars", "may hold only letters, digits and _ - . , got '{value}'"},
      {"cluster.not_under",
       "cluster '{name}': the dataset {dataset} is not under {from} (the folder the profile maps "
       "to "
       "{remote} on the cluster)"},
      {"cluster.where_data",
       "cluster '{name}': where the cluster's nodes see the dataset is not said: give its "
       "data.yaml "
       "on the cluster (dataset_on_cluster) or a folder mapping (dataset_local → dataset_remote)"},
      {"cluster.not_json", "not JSON: {detail}"},
      {"cluster.expected_list", "expected an object with a list 'clusters'"},
      {"cluster.expected_object", "expected an object"},
      {"cluster.expected_string", "expected a string"},
      {"cluster.expected_number", "expected a whole number"},
      {"cluster.name_twice", "'{name}' is given to two profiles"},
      {"cluster.given_twice", "given to two profiles"},
      {"cluster.no_profile", "no cluster profile '{name}' ({known})"},
      {"cluster.none_in_file", "the file has none"},
      {"cluster.there_are", "there are: {names}"},
      {"cluster.not_ssh", "cluster '{name}' is not reached over SSH"},
      {"cluster.job_not_ended",
       "Slurm job {job} is {state}; a run is resumed once its job has ended"},
      {"cluster.not_ended", "not ended"},
      {"cluster.job_state_unknown",
       "whether Slurm job {job} has ended is not known, so the run is not resumed: {reason}"},
      {"cluster.no_config",
       "the run has no config.yaml (its job never started training, or it was not mirrored yet: "
       "`stave-train cluster follow` copies it); run the config again instead"},
      {"cluster.no_partition",
       "the cluster has no partition {partition} (it has {partitions}); change the partition in "
       "Settings ▸ Clusters"},
      {"cluster.too_many_cpus",
       "profile {profile} asks for {cpus} CPUs per node ({per_rank} per rank × {ranks} rank(s) per "
       "node), but the nodes of partition {partition} have at most {offer}: Slurm would leave the "
       "job pending (PartitionConfig) for ever. Lower CPUs per rank in Settings ▸ Clusters (its "
       "default is the config's workers + 2), or the workers"},
      {"cluster.too_many_gpus",
       "profile {profile} asks for {gpus} GPU(s) per node, but the nodes of partition {partition} "
       "have {offer}"},
      {"cluster.too_many_nodes",
       "profile {profile} asks for {nodes} nodes, but partition {partition} has {offer}"},
      {"cluster.lock_not_opened", "{path}: cannot be opened ({reason})"},
      {"cluster.lock_not_taken", "{path}: cannot be locked ({reason})"},
      {"cluster.resubmitting",
       "{dir} is being resubmitted already (another `stave-train cluster resume` or studio holds "
       "{path}); its job is the run's"},
      {"cluster.not_ssh_run", "not a run on a cluster behind SSH"},
      {"cluster.already_exists", "already exists"},
      {"cluster.cannot_make_folder",
       "the run folder {folder} cannot be made on {destination}: {said}"},
      {"cluster.cannot_write_sbatch",
       "job.sbatch cannot be written into {folder} on {destination}: {said}"},
      {"cluster.job_busy",
       "Slurm job {job} of this run folder ({name}) is {state} on {profile}: a run folder is given "
       "to "
       "one job at a time; stop it (stave-train cluster stop) or let it end, then resume"},
      {"cluster.job_held",
       "{folder}/run.lock names Slurm job {job}, which is still {state} on {profile}: a run folder "
       "is "
       "given to one job at a time; stop it or let it end, then resume"},
      {"cluster.lock_held",
       "another submission for {folder} on {profile} has held its lock (.stave_submit.lock) for "
       "over "
       "a minute; nothing was submitted"},
      {"cluster.no_squeue",
       "Slurm on {profile} cannot be asked whether a job of this run is already pending or running "
       "(squeue: {said}); nothing was submitted"},
      {"cluster.sbatch_refused", "the cluster '{profile}' refused the job: {said}"},
      {"cluster.no_job_id", "sbatch printed no job id: {out}"},
      {"cluster.lookup_failed", "; looking the job up: {reason}"},
      {"cluster.sent_again", "; sent again: {reason}"},
      {"cluster.answer_lost",
       "sbatch's answer was lost ({lost}); the job may run: the run folder {dir} is kept, and "
       "`stave-train cluster status` looks the job up by its name ({job}) once {destination} "
       "answers"},

      // --- Slurm asked over SSH (core/cluster/remote_job.cpp: the Run page, Stop) -------------
      // Slurm's and OpenSSH's own words are arguments ({said}), never translated.
      {"slurm.said", "{command} ({how}): {said}"},
      {"slurm.no_message", "no message"},
      {"slurm.not_job_id", "'{id}' is not a Slurm job id; Slurm was not asked"},
      {"slurm.not_cancelled", "'{id}' is not a Slurm job id; nothing was cancelled"},
      {"slurm.unknown_job",
       "no Slurm command on {destination} knows job {job}: {squeue}; {sacct}; {scontrol}"},
      {"slurm.lookup_failed", "{squeue}; {sacct}"},

      // --- how a command ended (core/cluster/process.cpp) -------------------------------------
      {"process.not_started", "not started: {reason}"},
      {"process.exit", "exit {code}"},
      {"process.killed", "killed by {signal}"},
      {"process.too_much_output", "ended: too much output"},
      {"process.timed_out", "timed out"},
      {"process.stopped", "stopped"},

      // --- the OpenSSH transport (core/cluster/ssh.cpp) ---------------------------------------
      {"ssh.who", "ssh {destination}"},
      {"ssh.who_port", "ssh {destination} (port {port})"},
      {"ssh.host_key_changed",
       "{who}: the cluster's host key has CHANGED since it was recorded in known_hosts; OpenSSH "
       "refused the connection and nothing was sent. If the cluster's administrators changed its "
       "key, remove the old one (ssh-keygen -R HOST) and connect once in a terminal to check the "
       "new "
       "one. OpenSSH said:{said}"},
      {"ssh.host_key_unknown",
       "{who}: the cluster's host key is not in known_hosts, and it is not accepted unasked; "
       "connect once in a terminal (ssh {destination}) and check the key it shows. OpenSSH "
       "said:{said}"},
      {"ssh.auth_refused",
       "{who}: the cluster refused every key offered (no password is asked: BatchMode). Load your "
       "key into the agent (ssh-add), or name it with IdentityFile in ~/.ssh/config, and check "
       "that "
       "`ssh {destination} true` works in a terminal without a prompt. OpenSSH said:{said}"},
      {"ssh.unreachable",
       "{who}: the cluster cannot be reached now (tried again later). OpenSSH said:{said}"},
      {"ssh.not_started",
       "{who}: the OpenSSH client could not be started ({reason}); install openssh-client"},
      {"ssh.failed", "{who}: ssh failed ({how}). OpenSSH said:{said}"},
      {"ssh.bad_destination", "ssh: {problem}"},
      {"ssh.no_answer", "ssh {destination}: no answer within {seconds} s"},

      // --- the run folder's mirror (core/cluster/mirror.cpp: the Run page, Fetch weights) -----
      {"mirror.folder_unreadable",
       "the run folder {folder} on the cluster cannot be read ({how}): {said}"},
      {"mirror.cut_short", "the cluster's answer about {folder} was cut short"},
      {"mirror.replaced",
       "the mirror's {file} ({offset} bytes) is longer than the cluster's ({size}): the run folder "
       "on the cluster was replaced"},
      {"mirror.cannot_write", "{path}: cannot be written ({reason})"},
      {"mirror.not_in_run", "'{file}' is not a file of the run folder"},
      {"mirror.file_unreadable", "{file} cannot be read on the cluster ({how}): {said}"},

      // --- the dataset scan (core/data: the Dataset page's problems, check-dataset) -----------
      {"data.not_a_number", "column {column} is not a number: '{value}'"},
      {"data.columns",
       "row has {count} columns; expected 5 (cls cx cy w h) or an odd number >= 7 (cls x1 y1 ... "
       "polygon)"},
      {"data.nan", "row contains NaN or infinity"},
      {"data.class", "class id {id} is outside [0, {last}] (nc {nc})"},
      {"data.zero_size", "box width and height must be > 0 (w {w}, h {h})"},
      {"data.range",
       "box [{left}, {top}, {right}, {bottom}] reaches outside the image; normalised coordinates "
       "must lie in "
       "[0, 1]"},
      {"data.zero_area", "box has zero area"},
      {"data.duplicate_row", "duplicate of an earlier row"},
      {"data.dangling_link", "symbolic link to a file that does not exist: {target}"},
      {"data.truncated", "the {format} file ends before its end marker (cut-off copy?)"},
      {"data.too_large", "{width}x{height} pixels exceeds the limit of {max} pixels"},
      {"data.implausible",
       "the header says {width}x{height} pixels but the file holds only {bytes} bytes (a damaged "
       "or "
       "crafted header?)"},
      {"data.verify_failed", "full decode failed (--verify)"},
      {"data.verify_failed_why", "full decode failed (--verify): {reason}"},
      {"data.size_differs", "decoded size differs from the header"},
      {"data.listed_twice", "image listed twice: {path} (the copy is ignored)"},
      {"data.labels_missing",
       "label folder does not exist: {count} images there are treated as background (no objects)"},
      {"data.orphan", "label file without an image in this split"},
      {"data.listed_in", " (listed in {file}:{line})"},
      {"data.cannot_list", "cannot list folder: {reason}"},
      {"data.unknown_split", "unknown split; expected train, val or test"},
      {"data.cancelled", "cancelled"},
      {"data.split_empty", "split '{split}' has no usable images ({count} entries found)"},
      {"data.header.jpeg_markers", "corrupt JPEG marker stream"},
      {"data.header.jpeg_length", "corrupt JPEG segment length"},
      {"data.header.jpeg_zero", "JPEG header has zero size"},
      {"data.header.jpeg_incomplete", "JPEG header incomplete (truncated file?)"},
      {"data.header.png_incomplete", "PNG header incomplete"},
      {"data.header.png_zero", "PNG header has zero or negative size"},
      {"data.header.bmp_incomplete", "BMP header incomplete"},
      {"data.header.bmp_zero", "BMP header has zero or negative size"},
      {"data.header.empty", "empty file (0 bytes)"},
      {"data.header.unknown", "not a recognised image header"},
      {"data.header.cannot_open", "cannot open file"},
      {"data.header.not_readable", "not a readable image"},

      // --- label files written by the studio and `labels` (core/data/label_edits.cpp) ---------
      {"label.lock_not_opened", "cannot open the edit lock: {reason}"},
      {"label.lock_held", "another program has held the dataset's edit lock for 10 s; try again"},
      {"label.absent", "absent"},
      {"label.bytes", "{bytes} bytes"},
      {"label.not_a_folder",
       "the dataset cannot be written here (a file, not a folder); the edits are not saved"},
      {"label.not_writable",
       "the dataset cannot be written here ({reason}); the edits are not saved"},
      {"label.no_history_folder", "cannot create the dataset's history folder: {reason}"},
      {"label.log_not_opened", "cannot open the edit log: {reason}"},
      {"label.log_not_appended", "cannot append to the edit log: {reason}"},
      {"label.log_not_synced", "fsync of the edit log failed: {reason}"},
      {"label.changed_on_disk",
       "changed on disk since it was read (then {then}, now {now}), by another program or studio; "
       "not overwritten — reload it"},
      {"label.cannot_remove", "cannot remove: {reason}"},
      {"label.not_saved", "not saved: {reason}"},
      {"issues.not_csv", "not an issues CSV: the first line must be '{header}'"},
      {"issues.row_skipped", "{why}; row skipped"},
      {"issues.fields", "expected 9 fields, got {count}"},
      {"issues.no_image", "no image"},
      {"issues.kind", "kind '{kind}' is none of overlooked, swapped, badly_located, spurious"},
      {"issues.class", "a class is not a whole number >= -1"},
      {"issues.number", "score or box is not a number"},
      {"issues.size_unknown", "the image's size is unknown"},
      {"issues.no_prediction", "the issue has no prediction to accept"},
      {"issues.no_label_box", "the issue names no label box"},
      {"issues.no_other_class", "the issue has no other class to take"},
      {"issues.no_predicted_box", "the issue holds no predicted box to take"},
      {"issues.box_gone",
       "the label box of class {class} the issue names is no longer in the file (changed since the "
       "issues were found)"},

      // --- NVML (core/telemetry/nvml.cpp, gpu_inventory.cpp: the Hardware page) ---------------
      // The loader's and NVML's own words are arguments ({reason}), never translated.
      {"nvml.not_found", "NVML not found (no NVIDIA driver?): {reason}"},
      {"nvml.not_loaded", "{path} could not be loaded"},
      {"nvml.too_old", "{path} lacks nvmlInit/nvmlDeviceGetCount (too old a driver?)"},
      {"nvml.init_failed", "nvmlInit failed: {reason}"},
      {"nvml.count_failed", "nvmlDeviceGetCount failed: {reason}"},
      {"nvml.no_device", "NVML lists no device"},
      {"nvml.no_such_gpu", "GPU {index} does not exist (NVML sees {count} devices)"},
      {"node.no_gpu", "no NVIDIA GPU: {reason}"},

      // --- the straggler detector (core/telemetry/straggler.cpp) ------------------------------
      {"straggler.data_wait", "{rank} waits for data {share} of its step"},
      {"straggler.h2d", "{rank} waits for host-to-device copies {share} of its step"},
      {"straggler.allreduce_wait", "{rank} waits in all-reduce {share} of its step"},
      {"straggler.fwd_bwd", "{rank} spends {share} of its step in forward+backward"},
      {"straggler.optimizer", "{rank} spends {share} of its step in the optimiser"},
      {"straggler.others", "; other ranks {share}"},
  };
  return messages;
}

}  // namespace stave
