#pragma once
// The system's OpenSSH client as the transport to a cluster's login node. Every remote command
// is one argument vector, quoted for the remote shell (remote_shell.h) and given to ssh as one
// line after "--". ssh runs with BatchMode (never a password or passphrase prompt that could
// hang) and connection sharing (ControlMaster=auto, ControlPersist): one login serves every
// poll. Host keys are checked as the user's OpenSSH configuration says (StrictHostKeyChecking
// is left alone); a changed host key, an unknown one or a refused key is reported with
// OpenSSH's own lines and is never retried.

#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/cluster/process.h"

namespace stave::cluster {

/// How to reach a login node.
struct SshEndpoint {
  std::string destination;  ///< user@host, host, or a Host of the ssh configuration
  int port = 0;             ///< -p; 0 = the configuration's (22)
  std::string configFile;   ///< -F; "" = the user's ~/.ssh/config
  /// Folder of the shared connections' sockets; "" = defaultControlDir().
  std::string controlDir;
  int persistS = 120;       ///< ControlPersist: how long an idle shared connection stays
  int connectTimeoutS = 15;  ///< ConnectTimeout
};

/// Whether `destination` can be given to ssh: not empty, no leading '-', no spaces or control
/// characters. "" when it can, else why not.
std::string destinationProblem(const std::string& destination);
/// destinationProblem as a catalog message (an empty id when there is none).
Text destinationProblemText(const std::string& destination);

/// A private folder for ControlMaster sockets ($XDG_RUNTIME_DIR/stave-ssh, else
/// /tmp/stave-ssh-<uid>), made with mode 0700; short, as a socket path must be.
std::string defaultControlDir();

/// ssh's argument vector for one remote command line (already quoted: shellCommand()):
/// ssh -o BatchMode=yes -o ControlMaster=auto -o ControlPath=DIR/%C -o ControlPersist=Ns
///     -o ConnectTimeout=S -o ServerAliveInterval=15 -o ServerAliveCountMax=3 [-F file]
///     [-p port] DEST -- LINE
std::vector<std::string> sshArgv(const SshEndpoint& endpoint, const std::string& remoteLine);

/// ssh's argument vector that ends the shared connection (ssh -O exit).
std::vector<std::string> sshExitArgv(const SshEndpoint& endpoint);

/// Why ssh did not run the command, from its exit code (255) and its own words on stderr.
enum class SshFailure {
  None,            ///< the remote command ran (its exit code is its own)
  HostKeyChanged,  ///< the host's key differs from known_hosts: a possible attack; never retried
  HostKeyUnknown,  ///< the host is not in known_hosts and the configuration does not accept it
  AuthRefused,     ///< no key or agent the server accepts (BatchMode: no password asked)
  Unreachable,     ///< no connection: refused, timed out, reset, name not resolved, link down
  NotStarted,      ///< ssh itself could not be started (not installed)
  Other,           ///< ssh failed otherwise
};

/// A remote command's outcome.
struct RemoteResult {
  ProcessResult process;
  SshFailure failure = SshFailure::None;
  /// For a failure: one message naming the destination, what happened in words, what to do,
  /// and OpenSSH's own lines.
  std::string message;
  /// `message` as catalog messages, for the studio (empty when there is no failure).
  TextParts text;
  bool ok() const { return failure == SshFailure::None && process.ok(); }
  /// ssh ran the command (it may have failed with its own exit code).
  bool reached() const { return failure == SshFailure::None; }
  /// A failure that may pass by itself (a dropped link): worth trying again after a pause.
  bool retryable() const {
    return failure == SshFailure::Unreachable || failure == SshFailure::Other ||
           (failure == SshFailure::None && process.end == ProcessEnd::TimedOut);
  }
};

/// Classifies ssh's exit: `exitCode` 255 with its stderr (OpenSSH's words).
SshFailure classifySsh(const ProcessResult& result);

/// The message of a failure (see RemoteResult::message).
std::string describeSshFailure(const SshEndpoint& endpoint, SshFailure failure, const ProcessResult& result);
/// describeSshFailure as a catalog message: OpenSSH's own lines are an argument, kept as they
/// are (an empty id for None).
Text describeSshFailureText(const SshEndpoint& endpoint, SshFailure failure,
                            const ProcessResult& result);

/// Runs `argv` on the login node: quoted (shellCommand), over ssh (sshArgv). A bad argument
/// (a NUL byte) runs nothing and is Other with the reason.
RemoteResult runRemote(const SshEndpoint& endpoint, const std::vector<std::string>& argv,
                       const ProcessOptions& options = {});

/// Runs a whole remote command line made by shellCommand()/shellCommands() (and nothing else).
RemoteResult runRemoteLine(const SshEndpoint& endpoint, const std::string& line,
                           const ProcessOptions& options = {});

/// Ends the shared connection to `endpoint` (if one is open).
void closeConnection(const SshEndpoint& endpoint);

}  // namespace stave::cluster
