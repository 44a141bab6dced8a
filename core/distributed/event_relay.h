#pragma once
// The event relay between the launchers of a multi-node run: node 0's launcher keeps the run's
// events.jsonl, so the other nodes' launchers send it their ranks' events and their node's
// samples, one JSON line at a time, over TCP (master_addr, master_port + 1). Both ends are
// non-blocking and are driven by the launcher's poll loop; nothing here spawns a thread.

#include <poll.h>

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/base/result.h"

namespace stave::dist {

/// The relay's port for a run whose ranks meet at `masterPort`.
inline int relayPort(int masterPort) { return masterPort + 1; }

/// Node 0's end: accepts the other nodes' launchers and hands each complete line on.
class RelayServer {
 public:
  /// Listens on every interface at `port`; an error names the port (e.g. in use).
  static Result<std::unique_ptr<RelayServer>> listen(int port);
  ~RelayServer();
  RelayServer(const RelayServer&) = delete;
  RelayServer& operator=(const RelayServer&) = delete;

  /// The descriptors to poll (POLLIN), appended to `fds`.
  void addPollFds(std::vector<pollfd>& fds) const;
  /// Accepts and reads what is ready; calls `onLine` for every complete line. Lines over
  /// 16 MiB are dropped; a closed connection is forgotten.
  void service(const std::function<void(const std::string&)>& onLine);
  /// Open connections from other nodes.
  int connections() const { return static_cast<int>(m_peers.size()); }

 private:
  struct Peer {
    int fd;
    std::string buffer;
  };
  explicit RelayServer(int fd) : m_listen(fd) {}
  int m_listen;
  std::vector<Peer> m_peers;
};

/// Another node's end: connects to node 0 (retrying every half second until it answers) and
/// sends lines in order. Lines wait in a bounded queue (64 MiB) while node 0 is not reachable;
/// beyond that the oldest are dropped and counted.
class RelayClient {
 public:
  RelayClient(std::string host, int port) : m_host(std::move(host)), m_port(port) {}
  ~RelayClient();
  RelayClient(const RelayClient&) = delete;
  RelayClient& operator=(const RelayClient&) = delete;

  /// Queues `line` (without its line break) and sends what the socket takes now.
  void send(const std::string& line);
  /// Connects if due and sends what the socket takes; call from every poll round.
  void service();
  /// Sends what is queued, waiting up to `timeout` (at the end of the run).
  void flush(std::chrono::milliseconds timeout);
  bool connected() const { return m_fd >= 0 && !m_connecting; }
  /// Lines dropped because the queue was full.
  long long dropped() const { return m_dropped; }

 private:
  void tryConnect();
  void drain();
  std::string m_host;
  int m_port;
  int m_fd = -1;
  bool m_connecting = false;
  std::chrono::steady_clock::time_point m_nextTry{};
  std::deque<std::string> m_queue;  // whole lines with their '\n'
  size_t m_queued = 0;              // bytes in m_queue
  size_t m_sentOfFront = 0;         // bytes of m_queue.front() already sent
  long long m_dropped = 0;
};

}  // namespace stave::dist
