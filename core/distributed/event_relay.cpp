#include "core/distributed/event_relay.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace stave::dist {
namespace {

constexpr size_t kMaxLine = 16u << 20;
constexpr size_t kMaxQueued = 64u << 20;

void setNonBlocking(int fd) {
  const int flags = fcntl(fd, F_GETFL, 0);
  fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

}  // namespace

Result<std::unique_ptr<RelayServer>> RelayServer::listen(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Error{"", 0, "relay", std::string("socket: ") + std::strerror(errno)};
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 64) != 0) {
    const std::string why = std::strerror(errno);
    close(fd);
    return Error{"", 0, "master_port",
                 "the event relay of a multi-node run listens on master_port + 1 = " +
                     std::to_string(port) + ", which cannot be used here (" + why +
                     "); choose another master_port"};
  }
  setNonBlocking(fd);
  return std::unique_ptr<RelayServer>(new RelayServer(fd));
}

RelayServer::~RelayServer() {
  for (auto& p : m_peers) close(p.fd);
  close(m_listen);
}

void RelayServer::addPollFds(std::vector<pollfd>& fds) const {
  fds.push_back({m_listen, POLLIN, 0});
  for (const auto& p : m_peers) fds.push_back({p.fd, POLLIN, 0});
}

void RelayServer::service(const std::function<void(const std::string&)>& onLine) {
  for (;;) {
    const int fd = accept4(m_listen, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) break;
    m_peers.push_back({fd, {}});
  }
  char buf[65536];
  for (size_t i = 0; i < m_peers.size();) {
    Peer& p = m_peers[i];
    bool closed = false;
    for (;;) {
      const ssize_t n = read(p.fd, buf, sizeof buf);
      if (n > 0) {
        p.buffer.append(buf, static_cast<size_t>(n));
        continue;
      }
      closed = n == 0 || (errno != EAGAIN && errno != EINTR);
      break;
    }
    size_t start = 0, nl;
    while ((nl = p.buffer.find('\n', start)) != std::string::npos) {
      onLine(p.buffer.substr(start, nl - start));
      start = nl + 1;
    }
    p.buffer.erase(0, start);
    if (p.buffer.size() > kMaxLine) p.buffer.clear();
    if (closed) {
      close(p.fd);
      m_peers.erase(m_peers.begin() + static_cast<long>(i));
    } else {
      ++i;
    }
  }
}

RelayClient::~RelayClient() {
  if (m_fd >= 0) close(m_fd);
}

void RelayClient::send(const std::string& line) {
  m_queue.push_back(line + "\n");
  m_queued += m_queue.back().size();
  while (m_queued > kMaxQueued && m_queue.size() > 1) {
    // Keep a partly sent line: the stream must stay whole lines.
    const size_t drop = m_sentOfFront > 0 ? 1 : 0;
    m_queued -= m_queue[drop].size();
    m_queue.erase(m_queue.begin() + static_cast<long>(drop));
    ++m_dropped;
  }
  service();
}

void RelayClient::tryConnect() {
  if (m_fd >= 0 || std::chrono::steady_clock::now() < m_nextTry) return;
  m_nextTry = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(m_host.c_str(), std::to_string(m_port).c_str(), &hints, &res) != 0 || !res)
    return;
  m_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (m_fd >= 0) {
    const int rc = connect(m_fd, res->ai_addr, res->ai_addrlen);
    if (rc == 0) {
      m_connecting = false;
    } else if (errno == EINPROGRESS) {
      m_connecting = true;
    } else {
      close(m_fd);
      m_fd = -1;
    }
  }
  freeaddrinfo(res);
}

void RelayClient::drain() {
  while (!m_queue.empty()) {
    const std::string& front = m_queue.front();
    const ssize_t n = ::send(m_fd, front.data() + m_sentOfFront, front.size() - m_sentOfFront,
                             MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) return;
      close(m_fd);  // node 0 went away: reconnect later, resend the partial line whole
      m_fd = -1;
      m_sentOfFront = 0;
      return;
    }
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
  if (m_connecting) {
    pollfd p{m_fd, POLLOUT, 0};
    if (poll(&p, 1, 0) <= 0) return;
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(m_fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      close(m_fd);
      m_fd = -1;
      return;
    }
    m_connecting = false;
  }
  drain();
}

void RelayClient::flush(std::chrono::milliseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (!m_queue.empty() && std::chrono::steady_clock::now() < end) {
    service();
    if (!m_queue.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace stave::dist
