#pragma once
// The events of ranks that no Stave launcher gathers — ranks started by srun or torchrun: every
// rank but 0 sends its events to rank 0 over the event relay (master_addr, master_port + 1, as
// the launchers of a multi-node run do), and rank 0 writes them into the run's events.jsonl as
// they came and shows them to its doctor and metrics. So a Slurm run's folder holds every
// rank's steps, as a launcher's does. A relay that cannot be opened costs the other ranks'
// events, never the run: rank 0 writes a warning event and trains on.

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "core/distributed/dist_env.h"
#include "core/distributed/event_relay.h"
#include "core/telemetry/event_sink.h"

namespace stave::train {

class RankRelay {
 public:
  RankRelay() = default;
  ~RankRelay() { stop(); }
  RankRelay(const RankRelay&) = delete;
  RankRelay& operator=(const RankRelay&) = delete;

  /// Whether `env`'s ranks need it: several ranks and no Stave launcher.
  static bool needed(const dist::DistEnv& env) { return env.distributed() && !env.underLauncher(); }
  /// Rank 0: receives the other ranks' lines on a thread of its own; each admitted line goes
  /// to `sink` as it came and, decoded, to `observe`; a refused connection or line becomes a
  /// warning event naming the peer. The relay listens only where `env`'s ranks can be (loopback
  /// for a run on one host) and lets in only processes that prove they know the run's relay
  /// key (`runDir`/relay.key, created here first, or STAVE_RELAY_SECRET). A port or key that
  /// cannot be had: a warning event. The sink writes to its file only from now on (not to its
  /// stream: the job's output file).
  void serve(const dist::DistEnv& env, const std::string& runDir, telemetry::EventSink& sink,
             std::function<void(const telemetry::Event&)> observe);
  /// Another rank: every event `sink` writes is sent to rank 0 (and no longer to its stream:
  /// under srun that is the job's output file), once rank 0 has accepted its proof of the key.
  void sendFrom(const dist::DistEnv& env, const std::string& runDir, telemetry::EventSink& sink);
  /// Rank 0: waits (up to 3 s) for the other ranks to close their connections, then stops.
  /// Another rank: sends what is queued (up to 5 s), then stops; what could not be sent is
  /// said on stderr.
  void stop();

 private:
  std::unique_ptr<dist::RelayServer> m_server;
  std::unique_ptr<dist::RelayClient> m_client;
  telemetry::EventSink* m_sink = nullptr;  ///< the sink whose lines are sent (another rank)
  std::mutex m_mutex;  ///< the client: the sink's writers and the thread
  std::thread m_thread;
  std::atomic<bool> m_stop{false};
};

}  // namespace stave::train
