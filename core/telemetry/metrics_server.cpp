#include "core/telemetry/metrics_server.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>

#include <sys/socket.h>

#ifdef STAVE_HAVE_HTTPLIB
#include <httplib.h>
#endif

namespace stave::telemetry {

#ifdef STAVE_HAVE_HTTPLIB

struct MetricsServer::Impl {
  httplib::Server server;
  std::atomic<bool> loopEnded{false};
};

bool metricsServerAvailable() {
  return true;
}

Result<std::unique_ptr<MetricsServer>> MetricsServer::start(const std::string& address, int port,
                                                            const MetricsRegistry* registry) {
  const std::string where = address + ":" + std::to_string(port);
  if (port < 0 || port > 65535)
    return Error{"", 0, "metrics_port", "must be 0..65535, got " + std::to_string(port)};
  std::unique_ptr<MetricsServer> s(new MetricsServer);
  s->m_impl = std::make_unique<Impl>();
  auto& srv = s->m_impl->server;
  // Each connection holds a thread until it is done or times out: enough threads that idle or
  // stalled clients (a load balancer's probes, a half-open scraper) never keep Prometheus
  // waiting, and short timeouts so that they are dropped soon. Idle threads cost nothing.
  srv.new_task_queue = [] { return new httplib::ThreadPool(32); };
  srv.set_read_timeout(2, 0);
  srv.set_write_timeout(2, 0);
  srv.set_keep_alive_timeout(2);
  srv.set_keep_alive_max_count(20);
  srv.set_payload_max_length(64 * 1024);
  // httplib's default also sets SO_REUSEPORT, which would let a second run bind a port that is
  // taken; only SO_REUSEADDR (a restarted run rebinds at once).
  srv.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  srv.Get("/metrics", [registry](const httplib::Request&, httplib::Response& res) {
    res.set_content(registry->render(), "text/plain; version=0.0.4; charset=utf-8");
  });
  srv.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("Stave training metrics: /metrics\n", "text/plain; charset=utf-8");
  });
  errno = 0;
  int bound = port;
  if (port == 0) {
    bound = srv.bind_to_any_port(address);
    if (bound < 0) bound = 0;
  } else if (!srv.bind_to_port(address, port)) {
    bound = 0;
  }
  if (bound <= 0) {
    const std::string why = errno == EADDRINUSE ? "the port is in use (another run or service)"
                            : errno == EACCES   ? "no permission (ports below 1024 need root)"
                            : errno != 0        ? std::strerror(errno)
                                                : "not an address of this machine";
    return Error{"", 0, "metrics_port", "cannot serve metrics on " + where + ": " + why};
  }
  s->m_address = address;
  s->m_port = bound;
  MetricsServer* self = s.get();
  s->m_thread = std::thread([self] {
    self->m_impl->server.listen_after_bind();
    self->m_impl->loopEnded = true;
  });
  return s;
}

void MetricsServer::stop() {
  if (!m_impl) return;
  // httplib's stop() only reaches a loop that runs: wait for it to start (or to have ended).
  for (int i = 0; i < 2000 && !m_impl->server.is_running() && !m_impl->loopEnded; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  m_impl->server.stop();
  if (m_thread.joinable()) m_thread.join();
}

#else  // built without cpp-httplib

struct MetricsServer::Impl {};

bool metricsServerAvailable() {
  return false;
}

Result<std::unique_ptr<MetricsServer>> MetricsServer::start(const std::string& address, int port,
                                                            const MetricsRegistry*) {
  return Error{"", 0, "metrics_port",
               "cannot serve metrics on " + address + ":" + std::to_string(port) +
                   ": this build has no HTTP server (cpp-httplib was not found when it was "
                   "configured; install libcpp-httplib-dev and rebuild)"};
}

void MetricsServer::stop() {}

#endif

MetricsServer::~MetricsServer() {
  stop();
}

std::string MetricsServer::url() const {
  return "http://" + m_address + ":" + std::to_string(m_port) + "/metrics";
}

}  // namespace stave::telemetry
