#include "core/distributed/event_relay.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <thread>

#include "core/distributed/relay_key.h"

namespace stave::dist {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kMaxHandshakeLine = 512;
constexpr size_t kReadPerRound = 1u << 20;  // per connection and service(): nobody hogs the loop
constexpr auto kKeepAlive = std::chrono::seconds(30);
constexpr auto kRetry = std::chrono::milliseconds(500);
constexpr auto kRetryRefused = std::chrono::seconds(2);
constexpr auto kClientHandshake = std::chrono::seconds(10);
constexpr const char* kGreeting = "stave-relay 1";

void setNonBlocking(int fd) {
  const int flags = fcntl(fd, F_GETFL, 0);
  fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

std::chrono::milliseconds secondsToMs(double s) {
  return std::chrono::milliseconds(static_cast<long long>(s * 1000));
}

std::string clientProof(const std::string& secret, const std::string& serverNonce,
                        const std::string& clientNonce, const std::string& kind, int id) {
  return hmacSha256Hex(secret, "stave-relay client " + serverNonce + " " + clientNonce + " " +
                                   kind + " " + std::to_string(id));
}

std::string serverProof(const std::string& secret, const std::string& serverNonce,
                        const std::string& clientNonce, const std::string& kind, int id) {
  return hmacSha256Hex(secret, "stave-relay server " + serverNonce + " " + clientNonce + " " +
                                   kind + " " + std::to_string(id));
}

bool isHex(const std::string& s, size_t n) {
  return s.size() == n && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

std::string peerAddress(const sockaddr_in& a) {
  char buf[INET_ADDRSTRLEN] = "?";
  inet_ntop(AF_INET, &a.sin_addr, buf, sizeof buf);
  return std::string(buf) + ":" + std::to_string(ntohs(a.sin_port));
}

/// Whether a problem's n-th occurrence (1-based) is reported: the first ten, then every
/// power of ten, so a flood costs a handful of warnings.
bool reportable(long long n) {
  if (n <= 10) return true;
  while (n % 10 == 0) n /= 10;
  return n == 1;
}

/// Sends all of a short text on a fresh socket (a handshake line always fits its buffer).
bool sendAll(int fd, const std::string& text) {
  return ::send(fd, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size());
}

std::optional<in_addr> resolveV4(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &res) != 0 || !res) return std::nullopt;
  const in_addr a = reinterpret_cast<sockaddr_in*>(res->ai_addr)->sin_addr;
  freeaddrinfo(res);
  return a;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

std::string runListenAddress(const std::string& masterAddr, bool multiHost) {
  in_addr literal{};
  const bool isLiteral = inet_pton(AF_INET, masterAddr.c_str(), &literal) == 1;
  const auto resolved = isLiteral ? std::optional<in_addr>(literal) : resolveV4(masterAddr);
  if (!resolved) return "";  // the bind then takes every interface; the secret still holds
  const bool loopback = (ntohl(resolved->s_addr) >> 24) == 127;
  if (loopback) return (isLiteral || !multiHost) ? "127.0.0.1" : "";
  char buf[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &*resolved, buf, sizeof buf);
  return buf;
}

std::string RelayPeer::describe() const {
  if (kind.empty()) return address;
  return kind + " " + std::to_string(id) + " (" + address + ")";
}

// ---------------------------------------------------------------------------------------------

struct RelayServer::Conn {
  int fd = -1;
  RelayPeer peer;
  bool proven = false;
  std::string nonce;               // this server's challenge
  std::string buffer;              // the partial line
  bool skipping = false;           // inside a line over the cap: dropped up to its '\n'
  Clock::time_point deadline;      // handshake end, or idle limit once proven
  long long problems = 0;
};

int listenAt(const std::string& address, int port, int backlog, std::string* bound) {
  const auto tryBind = [&](const std::string& a) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    if (!a.empty() && inet_pton(AF_INET, a.c_str(), &addr.sin_addr) != 1) {
      close(fd);
      return -EADDRNOTAVAIL;
    }
    if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, backlog) != 0) {
      const int err = errno;
      close(fd);
      return -err;
    }
    return fd;
  };
  if (bound) *bound = address;
  int fd = tryBind(address);
  if (fd == -EADDRNOTAVAIL && !address.empty()) {
    // The master's address is not one of this host's (NAT, a name that resolves elsewhere):
    // every interface.
    if (bound) bound->clear();
    fd = tryBind("");
  }
  return fd;
}

Result<std::unique_ptr<RelayServer>> RelayServer::listen(RelayServerOptions options) {
  if (options.secret.empty())
    return Error{"", 0, "relay", "the event relay has no secret to check its peers with"};
  std::string bound;
  const int fd = listenAt(options.bindAddress, options.port, 64, &bound);  // still behind the secret
  if (fd < 0) {
    return Error{"", 0, "master_port",
                 "the event relay listens on master_port + 1 = " + std::to_string(options.port) +
                     ", which cannot be used here (" + std::strerror(-fd) +
                     "); choose another master_port"};
  }
  setNonBlocking(fd);
  return std::unique_ptr<RelayServer>(new RelayServer(fd, std::move(options), std::move(bound)));
}

RelayServer::RelayServer(int fd, RelayServerOptions options, std::string bound)
    : m_listen(fd), m_opt(std::move(options)), m_bound(std::move(bound)) {}

RelayServer::~RelayServer() {
  for (auto& c : m_conns) close(c->fd);
  close(m_listen);
}

int RelayServer::connections() const {
  return static_cast<int>(std::count_if(m_conns.begin(), m_conns.end(),
                                        [](const auto& c) { return c->proven; }));
}

void RelayServer::addPollFds(std::vector<pollfd>& fds) const {
  fds.push_back({m_listen, POLLIN, 0});
  for (const auto& c : m_conns) fds.push_back({c->fd, POLLIN, 0});
}

void RelayServer::anonymousProblem(const std::string& text, const OnProblem& onProblem) {
  if (onProblem && reportable(++m_anonymousProblems))
    onProblem(text + (m_anonymousProblems > 1
                          ? " (" + std::to_string(m_anonymousProblems) + " refused so far)"
                          : std::string()));
}

void RelayServer::problem(Conn& c, const std::string& text, const OnProblem& onProblem) {
  if (onProblem && reportable(++c.problems))
    onProblem("event relay: " + c.peer.describe() + ": " + text +
              (c.problems > 1 ? " (" + std::to_string(c.problems) + " so far)" : std::string()));
}

void RelayServer::accept(const OnProblem& onProblem) {
  for (;;) {
    sockaddr_in from{};
    socklen_t len = sizeof from;
    const int fd = accept4(m_listen, reinterpret_cast<sockaddr*>(&from), &len,
                           SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    const std::string address = peerAddress(from);
    const long pending = std::count_if(m_conns.begin(), m_conns.end(),
                                       [](const auto& c) { return !c->proven; });
    if (pending >= m_opt.maxPending) {
      close(fd);
      anonymousProblem("event relay: refused a connection from " + address + ": already " +
                           std::to_string(pending) + " connections in the handshake",
                       onProblem);
      continue;
    }
    auto c = std::make_unique<Conn>();
    c->fd = fd;
    c->peer.address = address;
    c->nonce = randomHex(16);
    c->deadline = Clock::now() + secondsToMs(m_opt.handshakeTimeoutS);
    if (!sendAll(fd, std::string(kGreeting) + " " + c->nonce + "\n")) {
      close(fd);
      continue;
    }
    m_conns.push_back(std::move(c));
  }
}

bool RelayServer::handshake(Conn& c, const std::string& line, const OnProblem& onProblem) {
  const auto refuse = [&](const std::string& why) {
    sendAll(c.fd, "refused " + why + "\n");
    anonymousProblem("event relay: refused " + c.peer.describe() + ": " + why, onProblem);
    return false;
  };
  std::istringstream in(line);
  std::string word, kind, idText, clientNonce, proof, extra;
  in >> word >> kind >> idText >> clientNonce >> proof;
  if (word != "hello" || !isHex(clientNonce, 32) || !isHex(proof, 64) || (in >> extra))
    return refuse("not a relay handshake");
  int id = -1;
  try {
    size_t used = 0;
    id = std::stoi(idText, &used);
    if (used != idText.size()) id = -1;
  } catch (const std::exception&) {
  }
  if (!constantTimeEqual(proof, clientProof(m_opt.secret, c.nonce, clientNonce, kind, id)))
    return refuse("the proof of the run's relay key does not match (not one of this run's "
                  "processes, or another run's key)");
  RelayPeer peer = c.peer;
  peer.kind = kind;
  peer.id = id;
  if (kind != m_opt.peerKind || id < 0 || (m_opt.admit && !m_opt.admit(peer)))
    return refuse(kind + " " + idText + " is not a peer of this run");
  // A peer that reconnects replaces its old connection (whose partial line is lost with it);
  // service() forgets the closed one after its loop.
  for (auto& other : m_conns)
    if (other.get() != &c && other->fd >= 0 && other->proven && other->peer.kind == kind &&
        other->peer.id == id) {
      close(other->fd);
      other->fd = -1;
    }
  c.peer = peer;
  c.proven = true;
  c.deadline = Clock::now() + secondsToMs(m_opt.idleTimeoutS);
  return sendAll(c.fd, "ok " + serverProof(m_opt.secret, c.nonce, clientNonce, kind, id) + "\n");
}

bool RelayServer::readFrom(Conn& c, const OnEvent& onEvent, const OnProblem& onProblem) {
  char buf[65536];
  size_t taken = 0;
  while (taken < kReadPerRound) {
    const ssize_t n = read(c.fd, buf, sizeof buf);
    if (n == 0) return false;
    if (n < 0) return errno == EAGAIN || errno == EINTR;
    taken += static_cast<size_t>(n);
    if (c.proven) c.deadline = Clock::now() + secondsToMs(m_opt.idleTimeoutS);
    size_t start = 0;
    const size_t len = static_cast<size_t>(n);
    while (start < len) {
      const char* nl = static_cast<const char*>(std::memchr(buf + start, '\n', len - start));
      const size_t end = nl ? static_cast<size_t>(nl - buf) : len;
      if (!c.skipping) c.buffer.append(buf + start, end - start);
      const size_t cap = c.proven ? m_opt.maxLine : kMaxHandshakeLine;
      if (!c.skipping && c.buffer.size() > cap) {
        if (!c.proven) {
          anonymousProblem("event relay: refused " + c.peer.describe() +
                               ": a handshake line over " + std::to_string(cap) + " bytes",
                           onProblem);
          return false;
        }
        problem(c, "dropped a line over " + std::to_string(cap >> 20) + " MiB", onProblem);
        c.buffer.clear();
        c.skipping = true;
      }
      if (!nl) break;
      start = end + 1;
      if (c.skipping) {
        c.skipping = false;
        continue;
      }
      std::string line = std::move(c.buffer);
      c.buffer.clear();
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!c.proven) {
        if (!handshake(c, line, onProblem)) return false;
        continue;
      }
      if (line.find_first_not_of(" \t") == std::string::npos) continue;  // a keep-alive
      auto event = admitRelayedLine(c.peer, line);
      if (!event) {
        problem(c, "dropped a line: " + event.errorText(), onProblem);
        continue;
      }
      onEvent(c.peer, line, event.value());
    }
  }
  return true;
}

void RelayServer::service(const OnEvent& onEvent, const OnProblem& onProblem) {
  accept(onProblem);
  const auto now = Clock::now();
  for (auto& c : m_conns) {
    if (c->fd < 0) continue;
    bool keep = readFrom(*c, onEvent, onProblem);
    if (keep && now > c->deadline) {
      keep = false;
      if (c->proven)
        problem(*c, "sent nothing for " + std::to_string(static_cast<int>(m_opt.idleTimeoutS)) +
                        " s; closed (it connects again when it has events)",
                onProblem);
      else
        anonymousProblem("event relay: refused " + c->peer.describe() +
                             ": no handshake within " +
                             std::to_string(static_cast<int>(m_opt.handshakeTimeoutS)) + " s",
                         onProblem);
    }
    if (!keep && c->fd >= 0) {
      close(c->fd);
      c->fd = -1;
    }
  }
  m_conns.erase(std::remove_if(m_conns.begin(), m_conns.end(),
                               [](const auto& c) { return c->fd < 0; }),
                m_conns.end());
}

// ---------------------------------------------------------------------------------------------

RelayClient::RelayClient(std::string host, int port, std::string kind, int id,
                         SecretSource secret, size_t maxQueued)
    : m_host(std::move(host)),
      m_port(port),
      m_kind(std::move(kind)),
      m_id(id),
      m_secretSource(std::move(secret)),
      m_maxQueued(maxQueued) {}

RelayClient::~RelayClient() {
  if (m_fd >= 0) close(m_fd);
}

void RelayClient::send(const std::string& line) {
  m_queue.push_back(line + "\n");
  m_queued += m_queue.back().size();
  while (m_queued > m_maxQueued && m_queue.size() > 1) {
    // Keep a partly sent line: the stream must stay whole lines.
    const size_t drop = m_sentOfFront > 0 ? 1 : 0;
    m_queued -= m_queue[drop].size();
    m_queue.erase(m_queue.begin() + static_cast<long>(drop));
    ++m_dropped;
  }
  service();
}

void RelayClient::drop(const std::string& why, std::chrono::milliseconds retryIn) {
  if (m_fd >= 0) close(m_fd);
  m_fd = -1;
  m_state = State::Closed;
  m_sentOfFront = 0;  // a partly sent line is sent again whole on the next connection
  m_inbox.clear();
  if (!why.empty()) m_lastError = why;
  m_nextTry = Clock::now() + retryIn;
}

void RelayClient::tryConnect() {
  if (m_state != State::Closed || Clock::now() < m_nextTry) return;
  m_nextTry = Clock::now() + kRetry;
  auto secret = m_secretSource ? m_secretSource() : Result<std::string>(std::string());
  if (!secret || secret.value().empty()) {
    m_lastError = secret ? "no relay key" : secret.errorText();
    return;
  }
  m_secret = secret.value();
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(m_host.c_str(), std::to_string(m_port).c_str(), &hints, &res) != 0 || !res) {
    m_lastError = "cannot resolve " + m_host;
    return;
  }
  m_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (m_fd >= 0) {
    const int rc = connect(m_fd, res->ai_addr, res->ai_addrlen);
    if (rc == 0 || errno == EINPROGRESS) {
      m_state = rc == 0 ? State::AwaitChallenge : State::Connecting;
      m_handshakeDeadline = Clock::now() + kClientHandshake;
    } else {
      close(m_fd);
      m_fd = -1;
    }
  }
  freeaddrinfo(res);
}

bool RelayClient::readLine(std::string& line) {
  char buf[256];
  for (;;) {
    const size_t nl = m_inbox.find('\n');
    if (nl != std::string::npos) {
      line = m_inbox.substr(0, nl);
      m_inbox.erase(0, nl + 1);
      return true;
    }
    if (m_inbox.size() > kMaxHandshakeLine) {
      drop("node 0's relay answered with something that is not a relay handshake", kRetryRefused);
      return false;
    }
    const ssize_t n = read(m_fd, buf, sizeof buf);
    if (n > 0) {
      m_inbox.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n == 0 || (errno != EAGAIN && errno != EINTR))
      drop(m_lastError.empty() ? "node 0's relay closed the connection" : m_lastError, kRetry);
    return false;
  }
}

bool RelayClient::sendRaw(const std::string& text) {
  if (!sendAll(m_fd, text)) {
    drop("", kRetry);
    return false;
  }
  m_lastSent = Clock::now();
  return true;
}

void RelayClient::drain() {
  while (!m_queue.empty()) {
    const std::string& front = m_queue.front();
    const ssize_t n = ::send(m_fd, front.data() + m_sentOfFront, front.size() - m_sentOfFront,
                             MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) return;
      drop("", kRetry);  // node 0 went away: reconnect later, resend the partial line whole
      return;
    }
    m_lastSent = Clock::now();
    m_sentOfFront += static_cast<size_t>(n);
    if (m_sentOfFront < front.size()) return;
    m_queued -= front.size();
    m_queue.pop_front();
    m_sentOfFront = 0;
  }
}

void RelayClient::service() {
  tryConnect();
  if (m_fd < 0) return;
  if (m_state != State::Ready && Clock::now() > m_handshakeDeadline) {
    drop("node 0's relay did not finish the handshake", kRetryRefused);
    return;
  }
  if (m_state == State::Connecting) {
    pollfd p{m_fd, POLLOUT, 0};
    if (poll(&p, 1, 0) <= 0) return;
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(m_fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      drop("", kRetry);
      return;
    }
    m_state = State::AwaitChallenge;
  }
  std::string line;
  if (m_state == State::AwaitChallenge) {
    if (!readLine(line)) return;
    const std::string prefix = std::string(kGreeting) + " ";
    const std::string nonce = line.rfind(prefix, 0) == 0 ? line.substr(prefix.size()) : "";
    if (!isHex(nonce, 32)) {
      drop("node 0's relay port answered with something that is not a Stave event relay",
           kRetryRefused);
      return;
    }
    m_clientNonce = randomHex(16);
    const std::string hello = "hello " + m_kind + " " + std::to_string(m_id) + " " +
                              m_clientNonce + " " +
                              clientProof(m_secret, nonce, m_clientNonce, m_kind, m_id) + "\n";
    m_serverNonce = nonce;  // for checking the server's proof
    if (!sendRaw(hello)) return;
    m_state = State::AwaitOk;
  }
  if (m_state == State::AwaitOk) {
    if (!readLine(line)) return;
    if (line.rfind("refused ", 0) == 0) {
      drop("node 0's relay refused this " + m_kind + ": " + line.substr(8), kRetryRefused);
      return;
    }
    const std::string expected = "ok " + serverProof(m_secret, m_serverNonce, m_clientNonce, m_kind, m_id);
    if (!constantTimeEqual(line, expected)) {
      drop("the process on node 0's relay port does not know the run's relay key", kRetryRefused);
      return;
    }
    m_inbox.clear();
    m_lastError.clear();
    m_state = State::Ready;
  }
  if (m_state != State::Ready) return;
  // Anything the server sends now (nothing is expected) is read and dropped; an end is noticed.
  char sink[256];
  const ssize_t n = read(m_fd, sink, sizeof sink);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
    drop("", kRetry);
    return;
  }
  drain();
  if (m_state == State::Ready && m_queue.empty() && Clock::now() - m_lastSent > kKeepAlive)
    sendRaw("\n");
}

void RelayClient::flush(std::chrono::milliseconds timeout) {
  const auto end = Clock::now() + timeout;
  while (!m_queue.empty() && Clock::now() < end) {
    service();
    if (!m_queue.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// ---------------------------------------------------------------------------------------------

Result<telemetry::Event> admitRelayedLine(const RelayPeer& peer, const std::string& line) {
  namespace et = telemetry::event_type;
  bool rankPresent = false;
  auto event = telemetry::decodeEvent(line, &rankPresent);
  if (!event) return event.errors();
  const std::string& type = event->type;
  if (type == et::kRunStart || type == et::kFinished || type == et::kValidation ||
      type == et::kCheckpoint)
    return Error{"", 0, "type", "'" + type + "' is written by node 0 only, not by a peer"};
  static const char* const kPeerTypes[] = {
      et::kStep,          et::kEpochEnd,    et::kWarning,   et::kError,
      et::kStraggler,     et::kRankExit,    et::kScheduleReplanned,
      et::kGpuSample,     et::kSystemSample, et::kDiagnosis};
  if (std::none_of(std::begin(kPeerTypes), std::end(kPeerTypes),
                   [&](const char* t) { return type == t; }))
    return Error{"", 0, "type", "unknown event type '" + type + "'"};
  if (!rankPresent) return Error{"", 0, "rank", "missing: a relayed event names its rank"};
  const int r = event->rank;
  const bool own = r >= peer.firstRank && r < peer.firstRank + peer.rankCount;
  const int sampleNode = peer.kind == "node" ? peer.id : peer.sampleNode;
  const bool nodeOwn = r == -1 && sampleNode >= 0 &&
                       (type == et::kGpuSample || type == et::kSystemSample || type == et::kWarning);
  if (type == et::kGpuSample || type == et::kSystemSample) {
    // Node 0 charts and judges every number of a sample: it must read as one.
    const auto typed = type == et::kGpuSample ? telemetry::gpuSampleFromEvent(event.value()).errors()
                                              : telemetry::systemSampleFromEvent(event.value()).errors();
    if (!typed.empty()) return typed;
  }
  if (nodeOwn && type != et::kWarning) {
    // A node's samples name the node they were taken on: only its own (another's would put
    // this peer's GPUs in that node's place on every chart).
    const auto node = event->data.find("node");
    if (node == event->data.end() || !node->is_number_integer() ||
        node->get<int64_t>() != static_cast<int64_t>(sampleNode))
      return Error{"", 0, "data.node",
                   "a " + type + " from node " + std::to_string(sampleNode) + " names node " +
                       (node == event->data.end() ? std::string("none") : node->dump()) +
                       "; a node sends its own samples only"};
  }
  if (!own && !nodeOwn)
    return Error{"", 0, "rank",
                 "rank " + std::to_string(r) + " is not one of this peer's ranks (" +
                     std::to_string(peer.firstRank) +
                     (peer.rankCount > 1
                          ? ".." + std::to_string(peer.firstRank + peer.rankCount - 1)
                          : std::string()) +
                     ")"};
  return event;
}

}  // namespace stave::dist
