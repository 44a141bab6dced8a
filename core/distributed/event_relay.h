#pragma once
// The event relay: node 0's launcher (or rank 0, for ranks started by srun or torchrun) keeps
// the run's events.jsonl, so the other nodes' launchers (or ranks) send it their events, one
// JSON line at a time, over TCP (master_addr, master_port + 1). Both ends are non-blocking and
// are driven by a poll loop; nothing here spawns a thread.
//
// Nobody else may write there. The server listens only where the run's peers can be (loopback
// for a run on one host, else the master's address), and a connection proves that it knows the
// run's secret (relay_key.h) before a byte of events is taken:
//   server → "stave-relay 1 <server nonce>"
//   client → "hello <node|rank> <id> <client nonce> <HMAC(secret, client proof)>"
//   server → "ok <HMAC(secret, server proof)>"   (or "refused <why>", then it closes)
// after which the client sends event lines. Each line is then checked against what that peer
// may send (admitRelayedLine): its own ranks' events, never node 0's lifecycle events. Memory is
// bounded per connection (the line cap is skipped over, never buffered), as are the number of
// connections; a peer that does not finish the handshake in time, or sends nothing for long,
// is closed. Every refusal is a problem text that names the peer.

#include <poll.h>

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/telemetry/events.h"

namespace stave::dist {

/// The relay's port for a run whose ranks meet at `masterPort`.
inline int relayPort(int masterPort) { return masterPort + 1; }

/// Where node 0 / rank 0 listens (the event relay, the rendezvous store) for a run whose master
/// is `masterAddr`: "127.0.0.1" when the
/// master is a loopback address (written as one, or any name on a run of one host); the
/// master's own address otherwise; "" (every interface) when a name resolves to loopback here
/// but the run spans hosts (the others resolve it to this host's real address).
std::string runListenAddress(const std::string& masterAddr, bool multiHost);

/// A listening TCP socket (close-on-exec, SO_REUSEADDR) at `address`:`port`; at every interface
/// when `address` is "" or is not one of this host's (then `bound` is set to ""). Returns the
/// descriptor, or -errno.
int listenAt(const std::string& address, int port, int backlog, std::string* bound = nullptr);

/// Who is at the other end of a relay connection, once it has proven itself.
struct RelayPeer {
  std::string kind;   ///< "node" (another node's launcher) or "rank" (a rank under srun/torchrun)
  int id = -1;        ///< its node index or rank
  std::string address;  ///< "10.0.0.2:53412"
  int firstRank = 0;  ///< the ranks whose events it may send: [firstRank, firstRank + rankCount)
  int rankCount = 0;
  /// The node whose samples (gpu_sample, system_sample, rank -1) it may send: a node's
  /// launcher its own node (always, = id); a rank under srun/torchrun the node it is the
  /// first rank of, when the run's admit says so; -1: none.
  int sampleNode = -1;
  /// "node 1 (10.0.0.2:53412)", or "10.0.0.2:53412" before it said who it is.
  std::string describe() const;
};

/// Node 0's end's settings.
struct RelayServerOptions {
  std::string bindAddress;  ///< "" = every interface (see runListenAddress)
  int port = 0;             ///< master_port + 1
  std::string secret;       ///< the run's relay secret (serverRelaySecret)
  std::string peerKind = "node";  ///< the kind of peer this run has ("node" or "rank")
  /// Which ids may connect and which ranks each may speak for: fills firstRank/rankCount of a
  /// peer of the expected kind; false = no such peer in this run.
  std::function<bool(RelayPeer&)> admit;
  size_t maxLine = 4u << 20;      ///< a longer event line is skipped and reported
  int maxPending = 16;            ///< connections still in the handshake
  double handshakeTimeoutS = 5;   ///< from accept to a proven hello
  double idleTimeoutS = 120;      ///< a proven peer silent this long is closed (clients ping)
};

/// Node 0's end: accepts the run's peers and hands on every admitted event.
class RelayServer {
 public:
  using Clock = std::chrono::steady_clock;
  /// Called with each admitted line (as it came) and its decoded event.
  using OnEvent = std::function<void(const RelayPeer&, const std::string& line, telemetry::Event&)>;
  /// Called with the text of a refused connection or a dropped line (rate-limited per peer).
  using OnProblem = std::function<void(const std::string&)>;

  /// Listens at `options.bindAddress`:`options.port` (every interface when that address is not
  /// this host's); an error names the port (e.g. in use).
  static Result<std::unique_ptr<RelayServer>> listen(RelayServerOptions options);
  ~RelayServer();
  RelayServer(const RelayServer&) = delete;
  RelayServer& operator=(const RelayServer&) = delete;

  /// The descriptors to poll (POLLIN), appended to `fds`.
  void addPollFds(std::vector<pollfd>& fds) const;
  /// Accepts, runs handshakes, reads what is ready and closes what timed out.
  void service(const OnEvent& onEvent, const OnProblem& onProblem = {});
  /// Proven peers connected now.
  int connections() const;
  /// The address it listens on ("" = every interface).
  const std::string& boundAddress() const { return m_bound; }

 private:
  struct Conn;
  explicit RelayServer(int fd, RelayServerOptions options, std::string bound);
  void accept(const OnProblem& onProblem);
  /// Reads what `c` sent; false when it is to be closed.
  bool readFrom(Conn& c, const OnEvent& onEvent, const OnProblem& onProblem);
  bool handshake(Conn& c, const std::string& line, const OnProblem& onProblem);
  void problem(Conn& c, const std::string& text, const OnProblem& onProblem);
  void anonymousProblem(const std::string& text, const OnProblem& onProblem);
  int m_listen;
  RelayServerOptions m_opt;
  std::string m_bound;
  std::vector<std::unique_ptr<Conn>> m_conns;
  long long m_anonymousProblems = 0;
};

/// Another node's (or rank's) end: connects to node 0 (retrying every half second until it
/// answers and accepts the proof) and sends lines in order. Lines wait in a bounded queue
/// (64 MiB) while node 0 is not reachable or reads slowly; beyond that the oldest are dropped
/// and counted, so a dead or stalled node 0 never grows this process's memory.
class RelayClient {
 public:
  /// The secret, asked anew at every connection attempt (node 0 may create it late).
  using SecretSource = std::function<Result<std::string>()>;
  /// The queue's default bound, in bytes.
  static constexpr size_t kDefaultMaxQueued = 64u << 20;
  /// `kind`/`id`: who this is ("node" K or "rank" R); `maxQueued`: the queue's bound in bytes
  /// (one line over it is still kept whole).
  RelayClient(std::string host, int port, std::string kind, int id, SecretSource secret,
              size_t maxQueued = kDefaultMaxQueued);
  ~RelayClient();
  RelayClient(const RelayClient&) = delete;
  RelayClient& operator=(const RelayClient&) = delete;

  /// Queues `line` (without its line break) and sends what the socket takes now.
  void send(const std::string& line);
  /// Connects if due, runs the handshake, sends what the socket takes and a keep-alive when
  /// idle; call from every poll round.
  void service();
  /// Sends what is queued, waiting up to `timeout` (at the end of the run).
  void flush(std::chrono::milliseconds timeout);
  /// Connected and accepted by node 0.
  bool connected() const { return m_state == State::Ready; }
  /// Lines dropped because the queue was full.
  long long dropped() const { return m_dropped; }
  /// Bytes waiting to be sent (at most the bound, or one line when a single line is larger).
  size_t queuedBytes() const { return m_queued; }
  /// Why the last attempt failed ("" when none did): a missing key, a refusal, a bad answer.
  const std::string& lastError() const { return m_lastError; }

 private:
  enum class State { Closed, Connecting, AwaitChallenge, AwaitOk, Ready };
  void tryConnect();
  void drop(const std::string& why, std::chrono::milliseconds retryIn);
  bool readLine(std::string& line);
  bool sendRaw(const std::string& text);
  void drain();
  std::string m_host;
  int m_port;
  std::string m_kind;
  int m_id;
  SecretSource m_secretSource;
  std::string m_secret;
  std::string m_serverNonce;
  std::string m_clientNonce;
  std::string m_inbox;  // the server's handshake lines
  int m_fd = -1;
  State m_state = State::Closed;
  std::chrono::steady_clock::time_point m_nextTry{};
  std::chrono::steady_clock::time_point m_lastSent{};
  std::chrono::steady_clock::time_point m_handshakeDeadline{};
  std::deque<std::string> m_queue;  // whole lines with their '\n'
  size_t m_queued = 0;              // bytes in m_queue
  size_t m_sentOfFront = 0;         // bytes of m_queue.front() already sent
  size_t m_maxQueued;
  long long m_dropped = 0;
  std::string m_lastError;
};

/// What node 0 takes from a proven peer: one event line that decodes (any JSON error, an
/// overflowing number, a type this program does not know are refused), is not one of the
/// events node 0 alone writes (run_start, validation, checkpoint, finished), and names one of
/// the peer's own ranks (a node's launcher, or the first rank of a node under srun, may also
/// send its node's samples and warnings, rank -1; a gpu_sample or system_sample must read as
/// one and name the peer's own node in data.node). An error says what is wrong with the line.
Result<telemetry::Event> admitRelayedLine(const RelayPeer& peer, const std::string& line);

}  // namespace stave::dist
