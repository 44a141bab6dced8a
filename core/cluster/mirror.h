#pragma once
// The local mirror of a run folder on a cluster behind SSH. events.jsonl is read by byte offset
// over the shared connection: only new bytes, and only whole lines are appended (a half line
// is waited for), so the mirror's size is the offset and a poll after a dropped link continues
// where the last one ended — no event lost, none twice. The run's small files (config.yaml,
// results.csv, the job's output, val/ …) are copied whole when their size or time changes;
// checkpoints (weights/) and TensorBoard files (tb/) only on demand (fetchFile). Nothing read
// back is ever run: listed names are checked to stay inside the mirror.

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/cluster/ssh.h"

namespace stave::cluster {

/// What one poll did.
struct MirrorPoll {
  bool reached = false;       ///< the cluster answered
  int64_t eventBytes = 0;     ///< bytes appended to events.jsonl
  int filesCopied = 0;        ///< other files copied
  int64_t remoteEventsSize = -1;  ///< events.jsonl's size on the cluster (-1: none yet)
  RemoteResult failure;       ///< when not reached (or a command failed): what happened
  std::string error;          ///< a local or remote problem in words ("" = none)
  TextParts errorText;        ///< `error` as catalog messages, for the studio
};

/// Runs a remote command line; ssh in use, a local shell in tests.
using RemoteRunner = std::function<RemoteResult(const std::string& line, const ProcessOptions& options)>;

/// The runner that sends lines over ssh to `endpoint`.
RemoteRunner sshRunner(const SshEndpoint& endpoint);

class Mirror {
 public:
  /// Mirrors `remoteDir` (as the cluster sees it) into `localDir` (made when missing).
  Mirror(RemoteRunner runner, std::string remoteDir, std::string localDir);

  /// One poll (one at a time; a second waits for the first): lists the remote folder, appends the new whole lines of events.jsonl (several
  /// reads when there is much), copies changed small files. Never throws.
  MirrorPoll poll();
  /// The offset: the mirror's events.jsonl size.
  int64_t offset() const;
  /// Copies `relative` (e.g. "weights/best.pt") from the cluster into the mirror, atomically
  /// (a temporary file, then a rename). "" when done, else why not.
  std::string fetchFile(const std::string& relative, const std::atomic<bool>* stop = nullptr);
  /// fetchFile, what went wrong as catalog messages (empty when done).
  TextParts fetchFileText(const std::string& relative, const std::atomic<bool>* stop = nullptr);
  /// Largest read of events per command (tests make it small).
  void setChunkBytes(int64_t bytes) { m_chunk = bytes; }
  const std::string& localDir() const { return m_local; }

 private:
  RemoteRunner m_run;
  std::string m_remote, m_local;
  int64_t m_chunk = 8 << 20;
  std::map<std::string, std::string> m_seen;  ///< relative path → "size mtime" copied
  std::mutex m_mutex;  ///< one poll or fetch at a time (the mirror's file is appended to)
};

/// Whether a listed name may be mirrored: relative, no "..", not the events log (read by
/// offset), not the local record or lock, not under weights/ or tb/.
bool mirroredName(const std::string& relative);

/// Follows a mirror until `done()` says so (after a last poll) or `stop` is raised: polls every
/// `periodMs`; after a dropped link waits 1, 2, 4 … 30 s and continues from the offset. A
/// failure that is not retried (host key, refused key) ends it: its message is returned.
/// `onPoll` is told of each poll.
std::string followMirror(Mirror& mirror, int periodMs, const std::function<bool()>& done,
                         const std::function<void(const MirrorPoll&)>& onPoll, const std::atomic<bool>* stop);

}  // namespace stave::cluster
