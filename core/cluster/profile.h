#pragma once
// A cluster profile as stave-train and the studio both read it: the Slurm options of its jobs,
// where its runs go, and — for a cluster behind SSH — how to reach its login node and where its
// nodes see the dataset. Profiles live in one file, the studio's clusters.json (Settings ▸
// Clusters writes it; `stave-train cluster` reads it, or another file given with --profiles):
//   {"version": 1, "clusters": [{"name": "...", "destination": "alice@login", ...}, ...]}
// with the keys of profileFields(). A profile without a destination is a Slurm whose commands
// run on this machine and whose run folders are on storage it shares.

#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/cluster/ssh.h"
#include "core/config/member_table.h"

namespace stave::cluster {

/// One cluster profile.
struct Profile {
  std::string name;                ///< unique; how a run names its cluster
  std::string partition;           ///< #SBATCH --partition; "" = the cluster's default
  std::string account;             ///< #SBATCH --account; "" = the user's default
  std::string timeLimit = "24:00:00";  ///< #SBATCH --time
  int gpusPerNode = -1;            ///< -1: the config's nproc; 0: CPU ranks
  int nodes = 1;                   ///< #SBATCH --nodes
  int cpusPerTask = 0;             ///< #SBATCH --cpus-per-task; 0 = the config's workers + 2
  /// Where run folders go: <runFolder>/<project>/<run id>. Local Slurm: on storage this machine
  /// shares ("" = the project's runs/). Over SSH: the folder as the cluster sees it (required).
  std::string runFolder;
  /// stave-train as the nodes start it; "" = this machine's (local) or found on PATH (SSH).
  std::string trainExecutable;
  std::string commandsFolder;      ///< folder of sbatch, squeue, ...; "" = found on PATH
  // Over SSH (all empty: the local Slurm path).
  std::string destination;         ///< OpenSSH destination: user@host or a Host of ~/.ssh/config
  int port = 0;                    ///< ssh -p; 0 = the ssh configuration's
  std::string sshConfig;           ///< ssh -F FILE; "" = the user's ~/.ssh/config
  /// The dataset as this machine sees it → as the nodes see it: a folder prefix each (the
  /// project's data.yaml under datasetLocal is given to the job under datasetRemote).
  std::string datasetLocal, datasetRemote;
  /// The dataset's data.yaml on the cluster, when it is already there (wins over the mapping).
  std::string datasetOnCluster;

  /// A cluster reached over SSH.
  bool remote() const { return !destination.empty(); }
  /// What is wrong, one line per field, naming the profile and the field.
  std::vector<std::string> problems() const;
  /// problems() as catalog messages (cluster.problem: who, field, what), for the studio.
  std::vector<Text> problemTexts() const;
  /// How ssh reaches it.
  SshEndpoint endpoint() const;
  /// The data.yaml the job is given for `localData` (the project's, as this machine sees it):
  /// datasetOnCluster, or the mapped path; an error saying which field to set when neither
  /// applies.
  Result<std::string> clusterDataPath(const std::string& localData) const;
};

/// A field as clusters.json names it (a text or a number member); every key may be absent
/// (the default stays).
using ProfileField = config::MemberField<Profile>;
/// Every field of a profile, once, in the order Settings shows them.
const config::MemberTable<Profile>& profileFields();

/// $XDG_CONFIG_HOME/Stave/clusters.json (else ~/.config/Stave/clusters.json): the studio's file.
std::string defaultProfilesPath();

/// Reads a profiles file. A file that is missing gives no profiles; a damaged one an error naming
/// the file and key; a profile with problems is an error naming it.
Result<std::vector<Profile>> loadProfiles(const std::string& path);
/// The profiles of `path` that have no problems; each problem (a damaged file, a bad field, a
/// profile left out) goes to `problems`. For the studio, which keeps the good ones.
std::vector<Profile> readGoodProfiles(const std::string& path, std::vector<Error>* problems);
/// Writes them atomically.
Status saveProfiles(const std::string& path, const std::vector<Profile>& profiles);
/// The profile called `name` of `path`, or an error listing the names there are.
Result<Profile> findProfile(const std::string& path, const std::string& name);

}  // namespace stave::cluster
