#include "core/telemetry/metrics_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <vector>

namespace stave::telemetry {
namespace {

using Clock = std::chrono::steady_clock;

/// Lets this process hold as many open connections as its hard limit allows (as Go's runtime
/// does): with the usual soft limit of 1024, a crowd of idle connections would otherwise leave
/// no descriptor for the scraper (or for the run's own files).
void raiseOpenFileLimit() {
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) != 0) return;
  const rlim_t want =
      r.rlim_max == RLIM_INFINITY ? rlim_t(65536) : std::min<rlim_t>(r.rlim_max, 65536);
  if (r.rlim_cur < want) {
    r.rlim_cur = want;
    setrlimit(RLIMIT_NOFILE, &r);
  }
}

struct Conn {
  int fd = -1;
  Clock::time_point deadline;
  std::string in;    // the request head so far
  std::string out;   // the answer, once the head is complete
  size_t sent = 0;
};

std::string answer(int code, const char* reason, const std::string& type, const std::string& body,
                   bool head) {
  std::string r = "HTTP/1.1 " + std::to_string(code) + " " + reason + "\r\n";
  if (!type.empty()) r += "Content-Type: " + type + "\r\n";
  r += "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n";
  if (!head) r += body;
  return r;
}

}  // namespace

Result<std::unique_ptr<MetricsServer>> MetricsServer::start(const std::string& address, int port,
                                                            const MetricsRegistry* registry,
                                                            MetricsServerLimits limits) {
  const std::string where = address + ":" + std::to_string(port);
  if (port < 0 || port > 65535)
    return Error{"", 0, "metrics_port", "must be 0..65535, got " + std::to_string(port)};
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, address.c_str(), &addr.sin_addr) != 1) {
    addrinfo hints{};
    hints.ai_family = AF_INET;
    addrinfo* res = nullptr;
    if (getaddrinfo(address.c_str(), nullptr, &hints, &res) != 0 || !res)
      return textError("", 0, "metrics_addr",
                       Text("metrics.cannot_serve", {{"address", where}, {"reason", Text("metrics.no_host")}}));
    addr.sin_addr = reinterpret_cast<sockaddr_in*>(res->ai_addr)->sin_addr;
    freeaddrinfo(res);
  }
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return Error{"", 0, "metrics_port", std::string("socket: ") + std::strerror(errno)};
  // SO_REUSEADDR only (a restarted run rebinds at once); never SO_REUSEPORT, which would let a
  // second run bind a port that is taken.
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(fd, SOMAXCONN) != 0) {
    const int err = errno;
    close(fd);
    const Text why = err == EADDRINUSE      ? Text("metrics.port_in_use")
                     : err == EACCES        ? Text("metrics.no_permission")
                     : err == EADDRNOTAVAIL ? Text("metrics.not_local")
                                            : Text("plain", {{"text", std::strerror(err)}});
    return textError("", 0, "metrics_port", Text("metrics.cannot_serve", {{"address", where}, {"reason", why}}));
  }
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  raiseOpenFileLimit();
  std::unique_ptr<MetricsServer> s(new MetricsServer);
  s->m_registry = registry;
  s->m_limits = limits;
  s->m_listen = fd;
  s->m_address = address;
  s->m_port = ntohs(addr.sin_port);
  if (pipe2(s->m_wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    close(fd);
    return Error{"", 0, "metrics_port", std::string("pipe: ") + std::strerror(errno)};
  }
  MetricsServer* self = s.get();
  s->m_thread = std::thread([self] { self->loop(); });
  return s;
}

void MetricsServer::loop() {
  std::deque<Conn> conns;  // oldest first
  const auto exchange =
      std::chrono::milliseconds(static_cast<long long>(m_limits.exchangeTimeoutS * 1000));
  std::vector<pollfd> fds;
  while (!m_stop) {
    fds.clear();
    fds.push_back({m_wake[0], POLLIN, 0});
    fds.push_back({m_listen, POLLIN, 0});
    for (const auto& c : conns)
      fds.push_back({c.fd, static_cast<short>(c.out.empty() ? POLLIN : POLLOUT), 0});
    poll(fds.data(), fds.size(), 250);
    if (m_stop) break;
    const auto now = Clock::now();
    // Service the connections first (their indexes match fds), then take new ones.
    for (size_t i = 0; i < conns.size(); ++i) {
      Conn& c = conns[i];
      const short ev = fds[i + 2].revents;
      bool done = now > c.deadline || (ev & (POLLERR | POLLNVAL));
      if (!done && c.out.empty() && (ev & (POLLIN | POLLHUP))) {
        char buf[4096];
        const ssize_t n = recv(c.fd, buf, sizeof buf, 0);
        if (n <= 0) {
          done = n == 0 || (errno != EAGAIN && errno != EINTR);
        } else {
          c.in.append(buf, static_cast<size_t>(n));
          const size_t end = c.in.find("\r\n\r\n");
          if (end == std::string::npos && c.in.size() > m_limits.maxRequestBytes) {
            c.out = answer(431, "Request Header Fields Too Large", "", "", false);
          } else if (end != std::string::npos) {
            const std::string line = c.in.substr(0, c.in.find("\r\n"));
            const size_t sp1 = line.find(' ');
            const size_t sp2 = line.find(' ', sp1 == std::string::npos ? 0 : sp1 + 1);
            const std::string method = line.substr(0, sp1);
            std::string path = sp1 == std::string::npos ? "" : line.substr(sp1 + 1, sp2 - sp1 - 1);
            path = path.substr(0, path.find('?'));
            const bool head = method == "HEAD";
            if (method != "GET" && !head)
              c.out = answer(405, "Method Not Allowed", "", "", false);
            else if (path == "/metrics")
              c.out = answer(200, "OK", "text/plain; version=0.0.4; charset=utf-8",
                             m_registry->render(), head);
            else if (path == "/")
              c.out = answer(200, "OK", "text/plain; charset=utf-8",
                             "Stave training metrics: /metrics\n", head);
            else
              c.out = answer(404, "Not Found", "text/plain; charset=utf-8", "not found\n", head);
            c.in.clear();
          }
        }
      }
      if (!done && !c.out.empty() && (ev & POLLOUT || c.sent == 0)) {
        const ssize_t n = send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent,
                               MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) c.sent += static_cast<size_t>(n);
        else if (n < 0 && errno != EAGAIN && errno != EINTR) done = true;
        if (c.sent == c.out.size()) done = true;
      }
      if (done) {
        close(c.fd);
        c.fd = -1;
      }
    }
    conns.erase(std::remove_if(conns.begin(), conns.end(), [](const Conn& c) { return c.fd < 0; }),
                conns.end());
    for (;;) {
      const int fd = accept4(m_listen, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) break;
      if (static_cast<int>(conns.size()) >= m_limits.maxConnections) {
        close(conns.front().fd);  // the oldest has had the longest time
        conns.pop_front();
      }
      Conn c;
      c.fd = fd;
      c.deadline = Clock::now() + exchange;
      conns.push_back(std::move(c));
    }
  }
  for (auto& c : conns) close(c.fd);
}

void MetricsServer::stop() {
  if (m_stop.exchange(true)) return;
  if (m_wake[1] >= 0) {
    const char b = 1;
    [[maybe_unused]] ssize_t n = write(m_wake[1], &b, 1);
  }
  if (m_thread.joinable()) m_thread.join();
  for (int* fd : {&m_listen, &m_wake[0], &m_wake[1]}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
}

MetricsServer::~MetricsServer() {
  stop();
}

std::string MetricsServer::url() const {
  return "http://" + m_address + ":" + std::to_string(m_port) + "/metrics";
}

}  // namespace stave::telemetry
