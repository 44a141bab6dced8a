#pragma once
// Short commands run to their end without Qt (ssh, and sh in tests): the argument vector is
// exec'd directly (no local shell), stdin is fed from memory, stdout goes to memory or to a
// file, stderr to memory; a time limit and a stop flag end it with SIGTERM, then SIGKILL after
// a grace period. How it ended is an enum, not a bool.

#include <atomic>
#include <string>
#include <vector>

#include "core/base/message.h"

namespace stave::cluster {

/// How a command ended.
enum class ProcessEnd {
  FailedToStart,  ///< exec failed (no such program, not executable)
  Finished,       ///< exited by itself; `exitCode` says how
  Crashed,        ///< a signal ended it that this code did not send
  TimedOut,       ///< ran past its time limit and was ended
  Stopped,        ///< the stop flag was raised and it was ended
};

/// What a command did.
struct ProcessResult {
  ProcessEnd end = ProcessEnd::FailedToStart;
  int exitCode = -1;       ///< its exit code when Finished, else -1
  int signal = 0;          ///< the signal that ended it, 0 = none
  std::string out;         ///< stdout (empty when it went to a file)
  std::string err;         ///< stderr (at most the last 64 KiB)
  bool outTruncated = false;  ///< stdout passed `maxOutBytes` and the command was ended
  /// Exited with code 0.
  bool ok() const { return end == ProcessEnd::Finished && exitCode == 0; }
};

/// How to run a command.
struct ProcessOptions {
  std::string input;             ///< bytes written to its stdin (then closed)
  int timeoutMs = 60000;         ///< time limit; <= 0: none
  int graceMs = 2000;            ///< between SIGTERM and SIGKILL
  const std::atomic<bool>* stop = nullptr;  ///< raised: the command is ended early
  std::string outFile;           ///< "": stdout into `out`; else written to this file (truncated)
  size_t maxOutBytes = size_t{256} << 20;  ///< stdout kept in memory at most; more ends it
  std::vector<std::string> env;  ///< KEY=VALUE added to (or replacing in) this environment
};

/// Runs `argv` (argv[0] looked up on PATH) and waits for it. Never throws for the command's
/// own failures; FailedToStart carries the system's reason in `err`.
ProcessResult runProcess(const std::vector<std::string>& argv, const ProcessOptions& options = {});

/// "exit 3", "killed by SIGTERM", "timed out", "not started: ...", for messages.
std::string describeEnd(const ProcessResult& result);
/// describeEnd as a catalog message (its English is describeEnd's).
Text describeEndText(const ProcessResult& result);

}  // namespace stave::cluster
