#pragma once
// The node's telemetry while a run trains: every period, one gpu_sample (NVML, all GPUs of the
// node) and one system_sample (/proc: CPU per core, memory, the dataset disk's reads, each
// rank's RSS and CPU), handed to a callback on the telemetry's own thread. Whatever keeps the
// run's events.jsonl (the launcher, or a single process without one) runs it, so a run on a
// cluster node carries its own hardware history. Without a GPU or driver: one gpu_sample with
// a "no NVIDIA GPU" status, then system samples only. Every sample names its node (index and
// host name): node 0's launcher writes the other nodes' into the run's events.jsonl too.

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/telemetry/events.h"

namespace stave::telemetry {

struct NodeTelemetryOptions {
  double periodS = 0.5;                       ///< time between samples
  std::string nvmlLibrary = "libnvidia-ml.so.1";  ///< NVML to load (tests use a fake)
  std::string diskPath;                       ///< report the reads of this path's disk
  std::string procRoot = "/proc";             ///< /proc (tests: a folder laid out like it)
  int node = 0;                               ///< this node's index in the run (node_rank)
  int nodes = 1;                              ///< nodes in the run (nnodes)
  std::string host;                           ///< its host name in the samples ("" = hostName())
};

class NodeTelemetry {
 public:
  /// Receives each event (rank -1: the node, not a rank), on the telemetry thread.
  using Sink = std::function<void(Event)>;
  NodeTelemetry(NodeTelemetryOptions options, Sink sink);
  ~NodeTelemetry();
  NodeTelemetry(const NodeTelemetry&) = delete;
  NodeTelemetry& operator=(const NodeTelemetry&) = delete;

  /// The processes to report in system_sample: (global rank, pid).
  void setProcesses(std::vector<std::pair<int, int>> ranks);
  /// Starts the thread (the first samples are taken at once).
  void start();
  /// Stops and joins the thread; bounded by one NVML round.
  void stop();

 private:
  void loop();
  NodeTelemetryOptions m_opt;
  Sink m_sink;
  std::mutex m_mutex;
  std::condition_variable m_cv;
  bool m_stop = false;
  std::vector<std::pair<int, int>> m_ranks;
  std::thread m_thread;
};

}  // namespace stave::telemetry
