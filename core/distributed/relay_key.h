#pragma once
// The event relay's secret: only the run's own ranks and launchers may write into its
// events.jsonl, so a peer proves that it knows a per-run secret before a byte of its events is
// taken. The secret is STAVE_RELAY_SECRET when the operator sets it (every rank and launcher
// of the run must then see the same value: a Kubernetes Secret, a variable the job script
// exports), else a random key in the run folder (relay.key, mode 0600, created by node 0 /
// rank 0 before it listens) that only processes which can read the run folder know.
// The proof is an HMAC-SHA256 challenge in both directions; the secret never travels.

#include <string>

#include "core/base/result.h"

namespace stave::dist {

/// The environment variable that overrides the key file.
inline constexpr const char* kRelaySecretEnv = "STAVE_RELAY_SECRET";
/// The key file's name inside the run folder.
inline constexpr const char* kRelayKeyFile = "relay.key";

/// Node 0 / rank 0: the secret to check peers with. STAVE_RELAY_SECRET if set (at least 16
/// characters), else `runDir`/relay.key, created (32 random bytes, hex, mode 0600, never through
/// a link) when it is missing or is not a private regular file of this user. An error names
/// the file or the variable.
Result<std::string> serverRelaySecret(const std::string& runDir);

/// Another node or rank: the secret to prove itself with. STAVE_RELAY_SECRET if set, else the
/// key file (read without following a link, at most 4 KiB). An error (missing: node 0 has not
/// created it yet, or the run folder is not shared) names the file and what to do.
Result<std::string> clientRelaySecret(const std::string& runDir);

/// HMAC-SHA256 of `message` under `key`, as 64 lowercase hex digits.
std::string hmacSha256Hex(const std::string& key, const std::string& message);
/// `n` random bytes from the kernel, as 2n lowercase hex digits.
std::string randomHex(int n);
/// Compares two strings in time that does not depend on where they differ.
bool constantTimeEqual(const std::string& a, const std::string& b);

}  // namespace stave::dist
