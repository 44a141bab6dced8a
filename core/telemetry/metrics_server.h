#pragma once
// Serves a MetricsRegistry over HTTP for Prometheus: GET /metrics answers the text exposition
// format, GET / a line that points there, everything else 404 (405 for other methods). One
// thread of its own runs a poll loop over every connection, so no client can hold a worker:
// each connection has a byte cap on its request and one deadline for the whole exchange, the
// number of connections is capped (the oldest is closed for a newcomer), and a scrape copies the
// rendered text under the registry's lock and sends it outside it. A crowd of idle or slow
// clients therefore never keeps Prometheus waiting, and a scraper never slows training.
//
// (cpp-httplib served this before; its thread per connection let a hundred slow clients or a
// thousand idle ones hold every thread, and its listen backlog of 5 starved new scrapes.)

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "core/base/result.h"
#include "core/telemetry/metrics.h"

namespace stave::telemetry {

/// Limits of the metrics endpoint (defaults suit a scrape every few seconds).
struct MetricsServerLimits {
  int maxConnections = 1024;      ///< beyond this the oldest connection is closed
  double exchangeTimeoutS = 5;    ///< from accept to the last byte of the answer
  size_t maxRequestBytes = 16384; ///< a longer request head is answered 431 and closed
};

class MetricsServer {
 public:
  /// Binds `address`:`port` (port 0: a free one) and starts serving `registry` (not owned; it
  /// must outlive the server). The error names the address, the port and the reason (in use,
  /// no permission, not an address of this machine).
  static Result<std::unique_ptr<MetricsServer>> start(const std::string& address, int port,
                                                      const MetricsRegistry* registry,
                                                      MetricsServerLimits limits = {});
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  /// The port bound.
  int port() const { return m_port; }
  /// http://address:port/metrics
  std::string url() const;
  /// Stops serving, closes every connection and joins the thread (also done by the destructor).
  void stop();

 private:
  MetricsServer() = default;
  void loop();
  const MetricsRegistry* m_registry = nullptr;
  MetricsServerLimits m_limits;
  int m_listen = -1;
  int m_wake[2] = {-1, -1};  ///< a pipe that ends the poll at once on stop()
  std::atomic<bool> m_stop{false};
  std::string m_address;
  int m_port = 0;
  std::thread m_thread;
};

}  // namespace stave::telemetry
