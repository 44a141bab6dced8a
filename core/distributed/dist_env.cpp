#include "core/distributed/dist_env.h"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>

namespace stave::dist {
namespace {

Error envError(const std::string& var, const std::string& value, const std::string& what) {
  return Error{"", 0, var, "'" + value + "' " + what};
}

// Strict integer parse: the whole string, no sign tricks, within [lo, hi].
bool parseInt(const std::string& s, long long lo, long long hi, long long* out) {
  if (s.empty()) return false;
  size_t i = 0;
  if (s[0] == '-' || s[0] == '+') i = 1;
  if (i == s.size()) return false;
  for (size_t k = i; k < s.size(); ++k)
    if (!std::isdigit(static_cast<unsigned char>(s[k]))) return false;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

class Vars {
 public:
  explicit Vars(const std::function<const char*(const char*)>& lookup) : m_lookup(lookup) {}

  bool has(const char* name) const {
    const char* v = m_lookup(name);
    return v != nullptr && *v != '\0';
  }
  std::string get(const char* name) const {
    const char* v = m_lookup(name);
    return v ? std::string(v) : std::string();
  }
  // Reads an integer variable in [lo, hi]; records an error naming it otherwise.
  int getInt(const char* name, long long lo, long long hi, int fallback,
             std::vector<Error>* errors) const {
    if (!has(name)) return fallback;
    long long v = 0;
    std::string s = get(name);
    if (!parseInt(s, lo, hi, &v)) {
      errors->push_back(envError(
          name, s,
          "is not an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]"));
      return fallback;
    }
    return static_cast<int>(v);
  }

 private:
  const std::function<const char*(const char*)>& m_lookup;
};

// Expands Slurm's tasks-per-node form "2(x3),1" into {2, 2, 2, 1}.
bool expandTasksPerNode(const std::string& s, std::vector<int>* out) {
  size_t pos = 0;
  while (pos < s.size()) {
    size_t comma = s.find(',', pos);
    std::string item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? s.size() : comma + 1;
    long long count = 0, repeat = 1;
    size_t paren = item.find('(');
    if (paren == std::string::npos) {
      if (!parseInt(item, 1, 1 << 20, &count)) return false;
    } else {
      if (item.size() < paren + 4 || item[paren + 1] != 'x' || item.back() != ')') return false;
      if (!parseInt(item.substr(0, paren), 1, 1 << 20, &count)) return false;
      if (!parseInt(item.substr(paren + 2, item.size() - paren - 3), 1, 1 << 20, &repeat))
        return false;
    }
    for (long long r = 0; r < repeat; ++r) out->push_back(static_cast<int>(count));
  }
  return !out->empty();
}

void validate(const DistEnv& env, std::vector<Error>* errors, const char* rankVar,
              const char* worldVar, const char* localVar) {
  if (env.rank >= env.worldSize)
    errors->push_back(Error{"", 0, rankVar,
                            std::to_string(env.rank) + " is not below " + worldVar + "=" +
                                std::to_string(env.worldSize) + " (valid: 0.." +
                                std::to_string(env.worldSize - 1) + ")"});
  if (env.localRank >= env.localWorldSize)
    errors->push_back(Error{"", 0, localVar,
                            std::to_string(env.localRank) + " is not below the local world size " +
                                std::to_string(env.localWorldSize)});
  if (env.node >= env.nodes)
    errors->push_back(Error{"", 0, env.source == "slurm" ? "SLURM_NODEID" : "GROUP_RANK",
                            std::to_string(env.node) + " is not below the run's " +
                                std::to_string(env.nodes) + " node(s)"});
}

}  // namespace

Result<std::vector<std::string>> expandNodelist(const std::string& nodelist) {
  auto bad = [&](const std::string& why) {
    return Error{"", 0, "SLURM_JOB_NODELIST", "'" + nodelist + "' " + why};
  };
  std::vector<std::string> hosts;
  size_t i = 0;
  const size_t n = nodelist.size();
  while (i < n) {
    // One item: a prefix, optionally a bracket range list, optionally a suffix, up to a
    // top-level comma (commas inside brackets belong to the range list).
    std::string prefix;
    while (i < n && nodelist[i] != ',' && nodelist[i] != '[') {
      if (nodelist[i] == ']') return bad("has ']' without '['");
      prefix += nodelist[i++];
    }
    if (i < n && nodelist[i] == '[') {
      size_t close = nodelist.find(']', i);
      if (close == std::string::npos) return bad("has '[' without ']'");
      std::string ranges = nodelist.substr(i + 1, close - i - 1);
      i = close + 1;
      std::string suffix;
      while (i < n && nodelist[i] != ',') {
        if (nodelist[i] == '[' || nodelist[i] == ']')
          return bad("has more than one bracket group in one host name");
        suffix += nodelist[i++];
      }
      if (ranges.empty()) return bad("has an empty range '[]'");
      size_t p = 0;
      while (p <= ranges.size()) {
        size_t comma = ranges.find(',', p);
        std::string r =
            ranges.substr(p, comma == std::string::npos ? std::string::npos : comma - p);
        p = comma == std::string::npos ? ranges.size() + 1 : comma + 1;
        size_t dash = r.find('-');
        std::string lo = r.substr(0, dash);
        std::string hi = dash == std::string::npos ? lo : r.substr(dash + 1);
        long long a = 0, b = 0;
        if (!parseInt(lo, 0, LLONG_MAX / 2, &a) || !parseInt(hi, 0, LLONG_MAX / 2, &b) ||
            lo[0] == '+' || lo[0] == '-' || hi[0] == '+' || hi[0] == '-')
          return bad("has a bad range '" + r + "' (expected N or N-M)");
        if (b < a) return bad("has a descending range '" + r + "'");
        if (b - a > 100000) return bad("has a range too large '" + r + "'");
        const size_t width = lo.size();
        for (long long v = a; v <= b; ++v) {
          std::string num = std::to_string(v);
          if (num.size() < width) num = std::string(width - num.size(), '0') + num;
          hosts.push_back(prefix + num + suffix);
        }
      }
    } else {
      if (prefix.empty()) return bad("has an empty host name");
      hosts.push_back(prefix);
    }
    if (i < n && nodelist[i] == ',') {
      ++i;
      if (i == n) return bad("ends with ','");
    }
  }
  if (hosts.empty()) return bad("names no host");
  return hosts;
}

int slurmPortForJob(long long jobId) {
  if (jobId < 0) jobId = -jobId;
  // Even ports: the event relay of a job takes the next one (master_port + 1), so two jobs on
  // one node never meet on each other's relay.
  return 15000 + 2 * static_cast<int>(jobId % 10000);
}

namespace {

/// torchrun's (or the launcher's) variables: RANK, WORLD_SIZE, LOCAL_*, MASTER_*.
Result<DistEnv> fromTorchrun(const Vars& vars) {
  std::vector<Error> errors;
  DistEnv env;
  env.source = vars.has(kLauncherVariable) ? "launcher" : "torchrun";
  env.worldSize = vars.getInt("WORLD_SIZE", 1, 1 << 20, -1, &errors);
  if (!vars.has("WORLD_SIZE"))
    errors.push_back(Error{"", 0, "WORLD_SIZE", "is not set but RANK is (torchrun sets both)"});
  env.rank = vars.getInt("RANK", 0, 1 << 20, 0, &errors);
  env.localRank = vars.getInt("LOCAL_RANK", 0, 1 << 20, env.rank, &errors);
  env.localWorldSize =
      vars.getInt("LOCAL_WORLD_SIZE", 1, 1 << 20, env.worldSize > 0 ? env.worldSize : 1, &errors);
  // The node: torchrun's group (one agent per node), else the node its ranks fill in order.
  const int lws = env.localWorldSize > 0 ? env.localWorldSize : 1;
  env.node = vars.getInt("GROUP_RANK", 0, 1 << 20, env.rank / lws, &errors);
  env.nodes = vars.getInt("GROUP_WORLD_SIZE", 1, 1 << 20,
                          env.worldSize > 0 ? (env.worldSize + lws - 1) / lws : 1, &errors);
  env.masterAddr = vars.has("MASTER_ADDR") ? vars.get("MASTER_ADDR") : "127.0.0.1";
  env.masterPort = vars.getInt("MASTER_PORT", 1, 65535, 29500, &errors);
  if (env.worldSize > 1 && !vars.has("MASTER_PORT"))
    errors.push_back(Error{"", 0, "MASTER_PORT", "is not set but WORLD_SIZE > 1"});
  if (!errors.empty()) return errors;
  validate(env, &errors, "RANK", "WORLD_SIZE", "LOCAL_RANK");
  if (!errors.empty()) return errors;
  return env;
}

/// Tasks on this node: from the step's (or job's) tasks-per-node list, else all tasks when
/// the job has one node.
void slurmLocalWorldSize(const Vars& vars, int nodeId, DistEnv& env, std::vector<Error>* errors) {
  const char* perNodeVar = vars.has("SLURM_STEP_TASKS_PER_NODE") ? "SLURM_STEP_TASKS_PER_NODE"
                           : vars.has("SLURM_NTASKS_PER_NODE")   ? "SLURM_NTASKS_PER_NODE"
                           : vars.has("SLURM_TASKS_PER_NODE")    ? "SLURM_TASKS_PER_NODE"
                                                                 : nullptr;
  if (perNodeVar) {
    std::vector<int> perNode;
    if (!expandTasksPerNode(vars.get(perNodeVar), &perNode)) {
      errors->push_back(envError(perNodeVar, vars.get(perNodeVar),
                                 "is not a tasks-per-node list such as 4 or 2(x3),1"));
    } else {
      env.localWorldSize = perNode[static_cast<size_t>(nodeId) < perNode.size() ? nodeId : 0];
    }
  } else {
    const int nnodes = vars.getInt("SLURM_NNODES", 1, 1 << 20, 1, errors);
    env.localWorldSize = nnodes == 1 ? env.worldSize : 1;
  }
}

/// The rendezvous host of a Slurm job: MASTER_ADDR, the launch node, or the first node listed.
void slurmMasterAddr(const Vars& vars, DistEnv& env, std::vector<Error>* errors) {
  if (vars.has("MASTER_ADDR")) {
    env.masterAddr = vars.get("MASTER_ADDR");
  } else if (vars.has("SLURM_LAUNCH_NODE_IPADDR")) {
    env.masterAddr = vars.get("SLURM_LAUNCH_NODE_IPADDR");
  } else if (vars.has("SLURM_JOB_NODELIST") || vars.has("SLURM_NODELIST")) {
    const char* var = vars.has("SLURM_JOB_NODELIST") ? "SLURM_JOB_NODELIST" : "SLURM_NODELIST";
    auto hosts = expandNodelist(vars.get(var));
    if (!hosts) {
      for (auto e : hosts.errors()) {
        e.key = var;
        errors->push_back(e);
      }
    } else {
      env.masterAddr = hosts.value().front();
    }
  } else if (env.worldSize > 1) {
    errors->push_back(Error{"", 0, "SLURM_JOB_NODELIST",
                            "is not set, nor MASTER_ADDR or SLURM_LAUNCH_NODE_IPADDR: no "
                            "rendezvous host for a multi-task Slurm job"});
  }
}

/// The rendezvous port of a Slurm job: MASTER_PORT, or one derived from the job id.
void slurmMasterPort(const Vars& vars, DistEnv& env, std::vector<Error>* errors) {
  if (vars.has("MASTER_PORT")) {
    env.masterPort = vars.getInt("MASTER_PORT", 1, 65535, 29500, errors);
  } else if (vars.has("SLURM_JOB_ID") || vars.has("SLURM_JOBID")) {
    const char* var = vars.has("SLURM_JOB_ID") ? "SLURM_JOB_ID" : "SLURM_JOBID";
    long long id = 0;
    if (!parseInt(vars.get(var), 0, LLONG_MAX, &id))
      errors->push_back(envError(var, vars.get(var), "is not a job id (a non-negative integer)"));
    else
      env.masterPort = slurmPortForJob(id);
  }
}

/// A task of a Slurm step (srun): SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, the node's tasks.
Result<DistEnv> fromSlurm(const Vars& vars) {
  std::vector<Error> errors;
  DistEnv env;
  env.source = "slurm";
  env.rank = vars.getInt("SLURM_PROCID", 0, 1 << 20, 0, &errors);
  env.localRank = vars.getInt("SLURM_LOCALID", 0, 1 << 20, 0, &errors);
  if (!vars.has("SLURM_NTASKS"))
    errors.push_back(Error{"", 0, "SLURM_NTASKS", "is not set but SLURM_PROCID is"});
  env.worldSize = vars.getInt("SLURM_NTASKS", 1, 1 << 20, 1, &errors);
  const int nodeId = vars.getInt("SLURM_NODEID", 0, 1 << 20, 0, &errors);
  env.node = nodeId;
  env.nodes =
      vars.getInt(vars.has("SLURM_STEP_NUM_NODES") ? "SLURM_STEP_NUM_NODES" : "SLURM_NNODES", 1,
                  1 << 20, nodeId + 1, &errors);
  slurmLocalWorldSize(vars, nodeId, env, &errors);
  slurmMasterAddr(vars, env, &errors);
  slurmMasterPort(vars, env, &errors);
  if (!errors.empty()) return errors;
  validate(env, &errors, "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID");
  if (!errors.empty()) return errors;
  return env;
}

}  // namespace

Result<DistEnv> DistEnv::fromLookup(const std::function<const char*(const char*)>& lookup) {
  Vars vars(lookup);
  if (vars.has("RANK")) return fromTorchrun(vars);
  if (vars.has("SLURM_PROCID")) return fromSlurm(vars);

  // Single process: MASTER_* still count if given (a port for a 1-rank group).
  std::vector<Error> errors;
  DistEnv env;
  if (vars.has("MASTER_ADDR")) env.masterAddr = vars.get("MASTER_ADDR");
  env.masterPort = vars.getInt("MASTER_PORT", 1, 65535, 29500, &errors);
  if (!errors.empty()) return errors;
  return env;
}

Result<DistEnv> DistEnv::fromEnvironment() {
  return fromLookup([](const char* name) -> const char* { return std::getenv(name); });
}

Result<DistEnv> DistEnv::fromMap(const std::map<std::string, std::string>& vars) {
  return fromLookup([&vars](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

}  // namespace stave::dist
