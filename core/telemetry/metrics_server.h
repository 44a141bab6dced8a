#pragma once
// Serves a MetricsRegistry over HTTP for Prometheus: GET /metrics answers the text exposition
// format; everything else 404. Built on cpp-httplib (Debian's libcpp-httplib) on threads of its
// own: a scrape copies the rendered text under the registry's lock and sends it outside it, and
// a client that stalls is dropped after a timeout, so a slow scraper never slows training.

#include <memory>
#include <string>
#include <thread>

#include "core/base/result.h"
#include "core/telemetry/metrics.h"

namespace stave::telemetry {

/// Whether this build has the HTTP server (cpp-httplib was found when it was configured).
bool metricsServerAvailable();

class MetricsServer {
 public:
  /// Binds `address`:`port` (port 0: a free one) and starts serving `registry` (not owned; it
  /// must outlive the server). The error names the address, the port and the reason (in use,
  /// no permission, not an address, a build without the server).
  static Result<std::unique_ptr<MetricsServer>> start(const std::string& address, int port,
                                                      const MetricsRegistry* registry);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  /// The port bound.
  int port() const { return m_port; }
  /// http://address:port/metrics
  std::string url() const;
  /// Stops serving and joins the threads (also done by the destructor).
  void stop();

 private:
  MetricsServer() = default;
  struct Impl;
  std::unique_ptr<Impl> m_impl;
  std::string m_address;
  int m_port = 0;
  std::thread m_thread;
};

}  // namespace stave::telemetry
