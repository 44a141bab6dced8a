#pragma once
// Who this process is in a distributed run: rank, world size and where the rendezvous master
// is. Read from torchrun-style variables, else from Slurm, else a single process. No torch.

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/base/result.h"

namespace stave::dist {

/// The identity of one rank and the rendezvous address, as torchrun or Slurm describe it.
struct DistEnv {
  int rank = 0;                          ///< global rank, 0..worldSize-1
  int localRank = 0;                     ///< rank on this node (selects the GPU)
  int worldSize = 1;                     ///< number of ranks in the run
  int localWorldSize = 1;                ///< ranks on this node
  int node = 0;                          ///< this node's index in the run (0 = rank 0's node)
  int nodes = 1;                         ///< nodes in the run
  std::string masterAddr = "127.0.0.1";  ///< host of rank 0's TCPStore
  int masterPort = 29500;                ///< port of rank 0's TCPStore
  /// Where the values came from: launcher (Stave's own, which keeps the run's event log and
  /// samples the node), torchrun, slurm, single.
  std::string source = "single";

  /// True when there is more than one rank.
  bool distributed() const { return worldSize > 1; }
  /// True when Stave's launcher started this rank.
  bool underLauncher() const { return source == "launcher"; }
  /// True when this process keeps the run's event log, samples its node and runs the doctor:
  /// rank 0, unless the launcher does it for every rank.
  bool keepsRunLog() const { return rank == 0 && !underLauncher(); }
  /// True when this process samples another node of a run no launcher gathers (srun,
  /// torchrun): the first rank of every node but rank 0's; its samples reach rank 0 through
  /// the event relay.
  bool samplesOtherNode() const {
    return !underLauncher() && rank != 0 && localRank == 0 && node > 0 && nodes > 1;
  }

  /// Reads the process environment: torchrun variables (RANK, LOCAL_RANK, WORLD_SIZE,
  /// LOCAL_WORLD_SIZE, GROUP_RANK, GROUP_WORLD_SIZE, MASTER_ADDR, MASTER_PORT) when RANK is set
  /// (source "launcher" when kLauncherVariable is set too), else Slurm (SLURM_PROCID,
  /// SLURM_LOCALID, SLURM_NODEID, SLURM_STEP_NUM_NODES / SLURM_NNODES, SLURM_NTASKS,
  /// SLURM_NTASKS_PER_NODE / SLURM_STEP_TASKS_PER_NODE,
  /// SLURM_LAUNCH_NODE_IPADDR or the first host of SLURM_JOB_NODELIST, MASTER_PORT or a port
  /// derived from SLURM_JOB_ID), else a single process. Errors name the variable and value.
  static Result<DistEnv> fromEnvironment();

  /// As fromEnvironment() but reading variables through `lookup` (nullptr = unset); for tests.
  static Result<DistEnv> fromLookup(const std::function<const char*(const char*)>& lookup);

  /// As fromLookup() over a map of variables.
  static Result<DistEnv> fromMap(const std::map<std::string, std::string>& vars);
};

/// Set by the launcher in each rank's environment (with the torchrun variables): the rank was
/// started by Stave's launcher (source "launcher").
constexpr const char* kLauncherVariable = "STAVE_LAUNCHER";

/// Expands a Slurm host list such as "gpu[01-04,07],cpu5" into host names in order
/// ("gpu01", "gpu02", "gpu03", "gpu04", "gpu07", "cpu5"); zero padding is kept. The error
/// names the list and what is wrong with it.
Result<std::vector<std::string>> expandNodelist(const std::string& nodelist);

/// The rendezvous port a Slurm job uses when MASTER_PORT is unset: 15000 + 2 x (job id % 10000),
/// so different jobs on a node rarely collide, all tasks of one job agree, and the event relay
/// (the port after it) is never another job's rendezvous port.
int slurmPortForJob(long long jobId);

}  // namespace stave::dist
