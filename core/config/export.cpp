#include "core/config/export.h"

#include "core/base/atomic_file.h"
#include "core/config/project.h"
#include "core/config/yaml_emit.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <sstream>

#include <yaml-cpp/yaml.h>

namespace stave::config {
namespace {

const char* kHeredocEnd = "STAVE_CONFIG_EOF";

// Slurm job names and k8s object names: only characters that need no quoting anywhere.
std::string safeName(std::string_view s, bool dns) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c)) {
      out += static_cast<char>(dns ? std::tolower(c) : c);
    } else if (!dns && (c == '_' || c == '.' || c == '-')) {
      out += static_cast<char>(c);
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  if (dns && out.size() > 50) out.resize(50);
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "stave" : out;
}

// The config inside a quoted here-document: the shell expands nothing in it. No line of toYaml
// output can equal the terminator (each is a comment, blank, or "key: value").
std::string heredoc(const std::string& target, const RunConfig& config) {
  const std::string yaml = toYaml(config);
  STAVE_CHECK(("\n" + yaml).find(std::string("\n") + kHeredocEnd + "\n") == std::string::npos,
              "config text contains the here-document terminator");
  return "cat > " + target + " <<'" + kHeredocEnd + "'\n" + yaml + kHeredocEnd + "\n";
}

// Slurm keeps a time limit as 32-bit minutes (time_str2mins returns an int); beyond that it
// would wrap or mean "infinite".
constexpr int64_t kMaxSlurmMinutes = 2147483646;

// One field of a time limit: 1 to 10 digits (no sign, no overflow in int64).
bool timeField(std::string_view s, int64_t& value) {
  if (s.empty() || s.size() > 10) return false;
  value = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    value = value * 10 + (c - '0');
  }
  return true;
}

std::vector<std::string_view> splitOn(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t at = s.find(sep, start);
    parts.push_back(
        s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

Status checkCluster(const ExportOptions& o, int gpus) {
  std::vector<Error> errors;
  const std::string src = "export options";
  if (o.nodes < 1 || o.nodes > 100000)
    errors.push_back(textError(src, 0, "nodes", Text("cluster.nodes")));
  if (o.gpusPerNode < -1 || gpus < 0 || gpus > 1024)
    errors.push_back(textError(src, 0, "gpus-per-node",
                               Text("cluster.gpus", {{"gpus", std::to_string(o.gpusPerNode < -1 ? o.gpusPerNode : gpus)}})));
  if (o.cpusPerTask < 0 || o.cpusPerTask > 4096)
    errors.push_back(textError(src, 0, "cpus-per-task", Text("cluster.cpus")));
  if (!isSlurmTimeLimit(o.time))
    errors.push_back(textError(src, 0, "time",
                               Text("cluster.time", {{"minutes", std::to_string(kMaxSlurmMinutes)}, {"value", o.time}})));
  // Partition and account reach #SBATCH lines unquoted: Slurm's own characters only.
  for (const auto& [key, value] : {std::pair<const char*, const std::string&>{"partition", o.partition},
                                   std::pair<const char*, const std::string&>{"account", o.account}})
    for (char c : value)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ||
            c == ',')) {
        errors.push_back(textError(src, 0, key, Text("cluster.slurm_chars", {{"value", value}})));
        break;
      }
  if (!errors.empty()) return errors;
  return Ok{};
}

std::string shellScript(const RunConfig& config, const ExportOptions& o) {
  // The script trains from a temporary copy of the config; runs go where 'train' would put
  // them for the original (runs/ beside it, or `project`), never beside that copy in $TMPDIR.
  RunConfig c = config;
  if (c.getString("project").empty() && !o.runsFolder.empty()) c.set("project", o.runsFolder);
  const std::string project = c.getString("project");
  const std::string name = c.getString("name").empty() ? "train" : c.getString("name");
  std::ostringstream s;
  s << "#!/bin/sh\n"
    << "# Stave training run, exported by 'stave-train export --format shell'.\n";
  if (!o.description.empty()) s << "# " << commentText(o.description) << "\n";
  if (!project.empty())
    s << "# Runs go to " << commentText(project + "/" + name) << " (then " << commentText(name)
      << "2, " << commentText(name)
      << "3, ...): checkpoints, events and logs; set project=FOLDER or name=NAME to change it.\n";
  else
    s << "# Runs go to ./runs/" << commentText(name)
      << " in the folder the script is started from; set project=FOLDER to change it.\n";
  s << "# Runs on this machine: 'stave-train train' starts one rank per GPU (nproc) with a\n"
    << "# torchrun-style environment for one node. Arguments are passed on to stave-train, e.g.\n"
    << "#   sh run.sh epochs=10\n"
    << "# STAVE_TRAIN, MASTER_ADDR and MASTER_PORT in the environment take precedence.\n"
    << "set -eu\n"
    << "STAVE_TRAIN=${STAVE_TRAIN:-stave-train}\n"
    << "NPROC=" << shellQuote(std::to_string(c.getInt("nproc"))) << "\n"
    << "NNODES=1\n"
    << "NODE_RANK=0\n"
    << "if [ -z \"${MASTER_ADDR:-}\" ]; then MASTER_ADDR=" << shellQuote(c.getString("master_addr"))
    << "; fi\n"
    << "if [ -z \"${MASTER_PORT:-}\" ]; then MASTER_PORT="
    << shellQuote(std::to_string(c.getInt("master_port"))) << "; fi\n"
    << "export MASTER_ADDR MASTER_PORT NNODES NODE_RANK\n"
    << "config_file=$(mktemp \"${TMPDIR:-/tmp}/stave-config.XXXXXX\")\n"
    << "trap 'rm -f \"$config_file\"' EXIT\n"
    << "trap 'exit 130' INT\n"
    << "trap 'exit 143' TERM\n"
    << heredoc("\"$config_file\"", c) << "status=0\n"
    << "\"$STAVE_TRAIN\" train \"$config_file\" --nproc \"$NPROC\" --nnodes \"$NNODES\" "
       "--node-rank \"$NODE_RANK\" --master-addr \"$MASTER_ADDR\" --master-port \"$MASTER_PORT\" "
    << (project.empty() ? "\"project=$PWD/runs\" " : "") << "\"$@\" || status=$?\n"
    << "exit \"$status\"\n";
  return s.str();
}

std::string slurmScript(const RunConfig& c, const ExportOptions& o, int gpus, int tasks) {
  const int cpus = o.cpusPerTask > 0 ? o.cpusPerTask : static_cast<int>(c.getInt("workers")) + 2;
  std::ostringstream s;
  s << "#!/bin/sh\n"
    << "#SBATCH --job-name=" << safeName(o.jobName, false) << "\n"
    << "#SBATCH --nodes=" << o.nodes << "\n"
    << "#SBATCH --ntasks-per-node=" << tasks << "\n";
  // A CPU run asks for no GPUs (a cluster without GRES refuses a request for them).
  if (gpus > 0) s << "#SBATCH --gpus-per-node=" << gpus << "\n";
  s << "#SBATCH --cpus-per-task=" << cpus << "\n"
    << "#SBATCH --time=" << o.time << "\n";
  if (!o.partition.empty()) s << "#SBATCH --partition=" << o.partition << "\n";
  if (!o.account.empty()) s << "#SBATCH --account=" << o.account << "\n";
  s << "# Stave training run, exported by 'stave-train export --format slurm'. Submit: sbatch "
       "FILE\n";
  if (!o.description.empty()) s << "# " << commentText(o.description) << "\n";
  s << "# One 'stave-train worker' per " << (gpus > 0 ? "GPU" : "CPU rank") << "; each takes its rank from SLURM_PROCID, SLURM_LOCALID "
       "and\n"
    << "# SLURM_NTASKS, and meets the others at the first node of the allocation.\n"
    << "# Stop: scancel --signal=TERM JOBID (the ranks finish their step, rank 0 checkpoints, the\n"
    << "# run ends 'stopped'). Continue it: STAVE_RUN_DIR=<its run folder> STAVE_RESUME=1 sbatch\n"
    << "# FILE (a FILE exported with more epochs may extend it).\n"
    << "set -eu\n"
    << "STAVE_TRAIN=${STAVE_TRAIN:-stave-train}\n"
    << "# The submit folder is normally on a file system every node can read.\n"
    << "run_base=\"${SLURM_SUBMIT_DIR:-$(pwd)}\"\n"
    << "run_dir=\"${STAVE_RUN_DIR:-$run_base/runs/slurm-${SLURM_JOB_ID:-0}}\"\n"
    << "resume=\"\"\n"
    << "if [ \"${STAVE_RESUME:-0}\" = 1 ]; then resume=--resume; fi\n"
    << "config_file=\"$run_base/stave-config-${SLURM_JOB_ID:-0}.yaml\"\n"
    << heredoc("\"$config_file\"", c)
    << "# The first host of the allocation meets the others; STAVE_MASTER_ADDR names it instead\n"
    << "# (an address) where node names do not resolve from the nodes.\n"
    << "MASTER_ADDR=${STAVE_MASTER_ADDR:-$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)}\n"
    << "# A port per job, so jobs sharing a node do not collide; even, as the ranks' event relay\n"
    << "# takes the next one.\n"
    << "MASTER_PORT=$((20000 + 2 * (${SLURM_JOB_ID:-0} % 10000)))\n"
    << "export MASTER_ADDR MASTER_PORT\n"
    << "srun --kill-on-bad-exit=1";
  if (!o.image.empty()) s << " --container-image=" << shellQuote(o.image);
  s << " \"$STAVE_TRAIN\" worker --config \"$config_file\" --run-dir \"$run_dir\" $resume\n";
  return s.str();
}

// The pod's shell command. Only integers and fixed text; the operator's variables give the
// node's place. Pods are nodes: the operator sets RANK to the pod index, so each pod runs the
// launcher with --nproc G as node PET_NODE_RANK of PET_NNODES.
std::string k8sPodCommand(const ExportOptions& o, int tasks) {
  return "exec stave-train train /config/run.yaml --nproc " + std::to_string(tasks) +
         " --nnodes \"${PET_NNODES:-" + std::to_string(o.nodes) +
         "}\" --node-rank \"${PET_NODE_RANK:-${RANK:-0}}\" --master-addr \"$MASTER_ADDR\""
         " --master-port \"$MASTER_PORT\"";
}

// The first document: the ConfigMap that holds the run's config as run.yaml.
void emitK8sConfigMap(YAML::Emitter& out, const RunConfig& c, const std::string& configMap) {
  out << YAML::BeginMap;
  out << YAML::Key << "apiVersion" << YAML::Value << "v1";
  out << YAML::Key << "kind" << YAML::Value << "ConfigMap";
  out << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << configMap << YAML::EndMap;
  out << YAML::Key << "data" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "run.yaml" << YAML::Value << YAML::Literal << toYaml(c) << YAML::EndMap;
  out << YAML::EndMap;
}

// The single container of a replica's pod, as one item of `containers`.
void emitK8sContainer(YAML::Emitter& out, const ExportOptions& o, const std::string& cmd,
                      int gpus, const std::string& relaySecret) {
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << "pytorch";
  out << YAML::Key << "image" << YAML::Value << YAML::DoubleQuoted << o.image;
  if (!relaySecret.empty()) {
    // Pods share no run folder, so the event relay's secret comes from a Secret (see the
    // comment at the top of the file).
    out << YAML::Key << "env" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
    out << YAML::Key << "name" << YAML::Value << "STAVE_RELAY_SECRET";
    out << YAML::Key << "valueFrom" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "secretKeyRef" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "name" << YAML::Value << relaySecret;
    out << YAML::Key << "key" << YAML::Value << "secret";
    out << YAML::EndMap << YAML::EndMap << YAML::EndMap << YAML::EndSeq;
  }
  out << YAML::Key << "command" << YAML::Value << YAML::Flow << YAML::BeginSeq << YAML::DoubleQuoted
      << "/bin/sh" << YAML::DoubleQuoted << "-c" << YAML::EndSeq;
  out << YAML::Key << "args" << YAML::Value << YAML::BeginSeq << YAML::DoubleQuoted << cmd
      << YAML::EndSeq;
  if (gpus > 0) {
    out << YAML::Key << "resources" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "limits" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "nvidia.com/gpu" << YAML::Value << gpus;
    out << YAML::EndMap << YAML::EndMap;
  }
  out << YAML::Key << "volumeMounts" << YAML::Value << YAML::BeginSeq;
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << "stave-config";
  out << YAML::Key << "mountPath" << YAML::Value << "/config";
  out << YAML::Key << "readOnly" << YAML::Value << true;
  out << YAML::EndMap;
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << "dshm";
  out << YAML::Key << "mountPath" << YAML::Value << "/dev/shm";
  out << YAML::EndMap;
  out << YAML::EndSeq;
  out << YAML::EndMap;  // the container
}

// The pod's volumes: the config map and a shared-memory folder for the data loader.
void emitK8sVolumes(YAML::Emitter& out, const std::string& configMap) {
  out << YAML::Key << "volumes" << YAML::Value << YAML::BeginSeq;
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << "stave-config";
  out << YAML::Key << "configMap" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << configMap << YAML::EndMap;
  out << YAML::EndMap;
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << "dshm";
  out << YAML::Key << "emptyDir" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "medium" << YAML::Value << "Memory" << YAML::EndMap;
  out << YAML::EndMap;
  out << YAML::EndSeq;
}

// One entry of pytorchReplicaSpecs (Master or Worker).
void emitK8sReplica(YAML::Emitter& out, const char* role, int replicas, const ExportOptions& o,
                    const std::string& cmd, int gpus, const std::string& configMap,
                    const std::string& relaySecret) {
  out << YAML::Key << role << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "replicas" << YAML::Value << replicas;
  out << YAML::Key << "restartPolicy" << YAML::Value << "OnFailure";
  out << YAML::Key << "template" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "containers" << YAML::Value << YAML::BeginSeq;
  emitK8sContainer(out, o, cmd, gpus, relaySecret);
  out << YAML::EndSeq;  // containers
  emitK8sVolumes(out, configMap);
  out << YAML::EndMap << YAML::EndMap << YAML::EndMap;  // spec, template, the role
}

std::string k8sManifest(const RunConfig& c, const ExportOptions& o, int gpus, int tasks) {
  const std::string name = safeName(o.jobName, true);
  const std::string configMap = name + "-config";
  const std::string cmd = k8sPodCommand(o, tasks);
  YAML::Emitter out;
  emitComment(out, "Stave training run, exported by 'stave-train export --format k8s'.");
  if (!o.description.empty()) emitComment(out, commentText(o.description));
  // Several pods: their launchers prove to node 0's event relay that they belong to the run
  // with a secret of the run's own, which no file of theirs holds.
  const std::string relaySecret = o.nodes > 1 ? name + "-relay" : "";
  if (!relaySecret.empty())
    emitComment(out, "First, the event relay's secret (once per job name): kubectl create secret generic " +
                         relaySecret + " --from-literal=secret=\"$(openssl rand -hex 32)\"");
  emitComment(out, "Apply: kubectl apply -f FILE (needs the Kubeflow training operator).");
  emitK8sConfigMap(out, c, configMap);
  out << YAML::BeginDoc << YAML::BeginMap;
  out << YAML::Key << "apiVersion" << YAML::Value << "kubeflow.org/v1";
  out << YAML::Key << "kind" << YAML::Value << "PyTorchJob";
  out << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << name << YAML::EndMap;
  out << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "nprocPerNode" << YAML::Value << YAML::DoubleQuoted << std::to_string(tasks);
  out << YAML::Key << "pytorchReplicaSpecs" << YAML::Value << YAML::BeginMap;
  emitK8sReplica(out, "Master", 1, o, cmd, gpus, configMap, relaySecret);
  if (o.nodes > 1) emitK8sReplica(out, "Worker", o.nodes - 1, o, cmd, gpus, configMap, relaySecret);
  out << YAML::EndMap << YAML::EndMap << YAML::EndMap;  // pytorchReplicaSpecs, spec, the job
  return emittedText(out);
}

}  // namespace

const char* exportFormatName(ExportFormat format) {
  switch (format) {
    case ExportFormat::Yaml:
      return "yaml";
    case ExportFormat::Json:
      return "json";
    case ExportFormat::Ultralytics:
      return "ultralytics";
    case ExportFormat::Shell:
      return "shell";
    case ExportFormat::Slurm:
      return "slurm";
    case ExportFormat::K8s:
      return "k8s";
  }
  return "?";
}

Result<ExportFormat> parseExportFormat(std::string_view name) {
  for (auto f : {ExportFormat::Yaml, ExportFormat::Json, ExportFormat::Ultralytics,
                 ExportFormat::Shell, ExportFormat::Slurm, ExportFormat::K8s})
    if (name == exportFormatName(f)) return f;
  return Error{"", 0, "format",
               "unknown format '" + std::string(name) +
                   "': expected yaml, json, ultralytics, shell, slurm or k8s"};
}

std::string shellQuote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

Result<std::string> exportRunConfig(const RunConfig& config, ExportFormat format,
                                    const ExportOptions& options) {
  if (auto errors = validate(config); !errors.empty()) return errors;
  RunConfig c = config;
  // GPUs per node: as given; by default the config's nproc, or none for a CPU config. Ranks
  // per node: one per GPU, or the config's nproc on CPUs.
  const int nproc = static_cast<int>(config.getInt("nproc"));
  const bool cpuConfig = config.getString("devices") == "cpu";
  const int gpus = options.gpusPerNode >= 0 ? options.gpusPerNode : (cpuConfig ? 0 : nproc);
  const int tasks = gpus > 0 ? gpus : nproc;
  switch (format) {
    case ExportFormat::Yaml:
      return toYaml(c);
    case ExportFormat::Json:
      return toJson(c);
    case ExportFormat::Ultralytics:
      return toUltralyticsYaml(c, options.description);
    case ExportFormat::Shell:
      c.set("nnodes", int64_t{1});
      c.set("node_rank", int64_t{0});
      return shellScript(c, options);
    case ExportFormat::Slurm:
    case ExportFormat::K8s: {
      if (Status st = checkCluster(options, gpus); !st) return st.errors();
      if (format == ExportFormat::K8s && options.image.empty())
        return Error{"export options", 0, "image",
                     "a Kubernetes export needs the container image (--image)"};
      // The embedded config describes the cluster run it belongs to.
      c.set("nnodes", int64_t{options.nodes});
      c.set("node_rank", int64_t{0});
      c.set("nproc", int64_t{tasks});
      const std::string devices = c.getString("devices");
      if (gpus == 0)
        c.set("devices", std::string("cpu"));
      else if (!devices.empty() && devices != "cpu")
        c.set("devices", std::string());
      return format == ExportFormat::Slurm ? slurmScript(c, options, gpus, tasks)
                                           : k8sManifest(c, options, gpus, tasks);
    }
  }
  return Error{"", 0, "format", "unknown export format"};
}

bool isSlurmTimeLimit(std::string_view s) {
  std::string upper;
  for (char c : s) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper == "UNLIMITED" || upper == "INFINITE") return true;
  int64_t days = 0;
  std::string_view clock = s;
  const size_t dash = s.find('-');
  if (dash != std::string_view::npos) {
    if (!timeField(s.substr(0, dash), days)) return false;
    clock = s.substr(dash + 1);
  }
  const std::vector<std::string_view> parts = splitOn(clock, ':');
  if (parts.size() > 3) return false;
  int64_t v[3] = {0, 0, 0};
  for (size_t i = 0; i < parts.size(); ++i)
    if (!timeField(parts[i], v[i])) return false;
  int64_t seconds = 0;
  if (dash != std::string_view::npos) {
    // D-HH, D-HH:MM, D-HH:MM:SS: the clock part is bounded by the day.
    if (v[0] > 23 || v[1] > 59 || v[2] > 59) return false;
    if (days > kMaxSlurmMinutes / (24 * 60)) return false;
    seconds = ((days * 24 + v[0]) * 60 + v[1]) * 60 + v[2];
  } else if (parts.size() == 1) {  // minutes
    seconds = v[0] * 60;
  } else if (parts.size() == 2) {  // MM:SS
    if (v[1] > 59) return false;
    seconds = v[0] * 60 + v[1];
  } else {  // HH:MM:SS
    if (v[1] > 59 || v[2] > 59) return false;
    seconds = (v[0] * 60 + v[1]) * 60 + v[2];
  }
  return (seconds + 59) / 60 <= kMaxSlurmMinutes;
}

Status checkClusterOptions(const ExportOptions& options) {
  return checkCluster(options, std::max(options.gpusPerNode, 0));
}

Result<std::string> exportProjectConfig(const Project& project, const std::string& configName,
                                        const std::vector<std::string>& overrides,
                                        ExportFormat format, ExportOptions options) {
  const std::string name = configName.empty() ? project.activeConfig : configName;
  auto config = resolveProjectConfig(project, name, overrides);
  if (!config) return config.errors();
  if (options.jobName.empty()) options.jobName = project.name + "-" + name;
  if (options.description.empty())
    options.description = "project '" + project.name + "', config '" + name + "'";
  if (options.runsFolder.empty())
    options.runsFolder = (std::filesystem::path(project.folder()) / "runs").lexically_normal().string();
  return exportRunConfig(config.value(), format, options);
}

Status writeExportFile(const std::string& path, const std::string& text, ExportFormat format) {
  if (auto st = writeFileAtomic(path, text); !st) return st;
  if (format == ExportFormat::Shell || format == ExportFormat::Slurm) {
    if (::chmod(path.c_str(), 0755) != 0)
      return Error{path, 0, "", "written, but the executable bit could not be set"};
  }
  return Ok{};
}

const char* defaultExportFileName(ExportFormat format) {
  switch (format) {
    case ExportFormat::Yaml: return "train.yaml";
    case ExportFormat::Json: return "train.json";
    case ExportFormat::Ultralytics: return "args.yaml";
    case ExportFormat::Shell: return "train.sh";
    case ExportFormat::Slurm: return "train.sbatch";
    case ExportFormat::K8s: return "pytorchjob.yaml";
  }
  return "export.txt";
}

}  // namespace stave::config
