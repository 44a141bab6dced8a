#include "core/distributed/relay_key.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>

namespace stave::dist {
namespace {

constexpr size_t kMaxKeyBytes = 4096;
constexpr size_t kMinSecret = 16;

std::string keyPath(const std::string& runDir) {
  return (std::filesystem::path(runDir) / kRelayKeyFile).string();
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

/// The secret from the environment, if set; an error when it is too short to be one.
std::optional<Result<std::string>> envSecret() {
  const char* v = std::getenv(kRelaySecretEnv);
  if (!v || !*v) return std::nullopt;
  std::string s = v;
  if (s.size() < kMinSecret)
    return Result<std::string>(Error{"", 0, kRelaySecretEnv,
                                     "must be at least " + std::to_string(kMinSecret) +
                                         " characters (a random secret shared by the run's nodes)"});
  return Result<std::string>(s);
}

/// Reads the key file without following a link or blocking on a FIFO. `mustBePrivate` also
/// requires a regular file of this user with no group or other access.
Result<std::string> readKey(const std::string& path, bool mustBePrivate) {
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Error{path, 0, "", std::string("cannot read the relay key: ") + std::strerror(errno)};
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return Error{path, 0, "", "the relay key is not a regular file"};
  }
  if (mustBePrivate && (st.st_uid != geteuid() || (st.st_mode & 077) != 0)) {
    close(fd);
    return Error{path, 0, "", "the relay key is not private to this user (mode 0600)"};
  }
  std::string text;
  char buf[1024];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > kMaxKeyBytes) break;
  }
  close(fd);
  text = trimmed(text);
  if (text.size() > kMaxKeyBytes || text.size() < kMinSecret)
    return Error{path, 0, "", "the relay key has not the size of one (" + std::to_string(kMinSecret) +
                                  " to " + std::to_string(kMaxKeyBytes) + " bytes)"};
  return text;
}

/// Writes a new key: a temporary file created exclusively with mode 0600, then renamed over
/// the name (so a link or a foreign file there is replaced, never written through).
Result<std::string> createKey(const std::string& runDir) {
  const std::string path = keyPath(runDir);
  const std::string key = randomHex(32);
  const std::string tmp = path + ".tmp" + std::to_string(getpid());
  unlink(tmp.c_str());
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Error{path, 0, "", std::string("cannot create the relay key: ") + std::strerror(errno)};
  const std::string text = key + "\n";
  const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
                  fsync(fd) == 0;
  close(fd);
  if (!ok || rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    unlink(tmp.c_str());
    return Error{path, 0, "", "cannot write the relay key: " + why};
  }
  return key;
}

}  // namespace

Result<std::string> serverRelaySecret(const std::string& runDir) {
  if (auto env = envSecret()) return *env;
  if (runDir.empty())
    return Error{"", 0, kRelaySecretEnv,
                 "the event relay needs a run folder (for its key) or this variable set"};
  auto existing = readKey(keyPath(runDir), true);
  if (existing) return existing;  // kept across resumes: ranks that read it early stay right
  return createKey(runDir);
}

Result<std::string> clientRelaySecret(const std::string& runDir) {
  if (auto env = envSecret()) return *env;
  if (runDir.empty())
    return Error{"", 0, kRelaySecretEnv,
                 "the event relay needs the run folder (for its key) or this variable set"};
  auto key = readKey(keyPath(runDir), false);
  if (!key)
    return Error{keyPath(runDir), 0, "",
                 key.errors().front().message +
                     " (node 0 creates it when it starts; where the run folder is not shared "
                     "between the nodes, set " + std::string(kRelaySecretEnv) +
                     " to one secret for every node)"};
  return key;
}

std::string hmacSha256Hex(const std::string& key, const std::string& message) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac, &len);
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(len * 2);
  for (unsigned int i = 0; i < len; ++i) {
    out += digits[mac[i] >> 4];
    out += digits[mac[i] & 15];
  }
  return out;
}

std::string randomHex(int n) {
  std::string bytes(static_cast<size_t>(n), '\0');
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t r = getrandom(bytes.data() + got, bytes.size() - got, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("getrandom: ") + std::strerror(errno));
    }
    got += static_cast<size_t>(r);
  }
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

bool constantTimeEqual(const std::string& a, const std::string& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace stave::dist
