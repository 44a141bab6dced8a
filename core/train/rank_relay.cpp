#include "core/train/rank_relay.h"

#include <poll.h>

#include <chrono>
#include <iostream>
#include <vector>

#include "core/distributed/relay_key.h"

namespace stave::train {

void RankRelay::serve(const dist::DistEnv& env, const std::string& runDir,
                      telemetry::EventSink& sink,
                      std::function<void(const telemetry::Event&)> observe) {
  // Every rank's events go to events.jsonl; not also to rank 0's stream (under srun the job's
  // output file, which would hold a second copy of a day's gigabyte).
  sink.setStream(nullptr);
  const auto warn = [&sink](const std::string& reason) {
    telemetry::WarningEvent w;
    w.text = {Text("train.relay_unreachable", {{"reason", reason}})};
    w.message = english(w.text);
    w.source = "dist";
    sink.writeTyped(w);
  };
  auto secret = dist::serverRelaySecret(runDir);
  if (!secret) {
    warn(secret.errorText());
    return;
  }
  dist::RelayServerOptions o;
  o.bindAddress = dist::runListenAddress(env.masterAddr, env.worldSize > env.localWorldSize);
  o.port = dist::relayPort(env.masterPort);
  o.secret = secret.value();
  o.peerKind = "rank";
  // The first rank of every other node also sends that node's samples (DistEnv::
  // samplesOtherNode): node k's first rank is k x the ranks per node (srun's block layout, as
  // the exported sbatch file asks for one count per node).
  o.admit = [world = env.worldSize, nodes = env.nodes,
             perNode = env.localWorldSize > 0 ? env.localWorldSize : 1](dist::RelayPeer& p) {
    if (p.id < 1 || p.id >= world) return false;
    p.firstRank = p.id;
    p.rankCount = 1;
    if (nodes > 1 && p.id % perNode == 0 && p.id / perNode < nodes) p.sampleNode = p.id / perNode;
    return true;
  };
  auto server = dist::RelayServer::listen(std::move(o));
  if (!server) {
    warn(server.errorText());
    return;
  }
  m_server = std::move(server.value());
  m_thread = std::thread([this, &sink, warn, observe = std::move(observe)] {
    const auto onEvent = [&](const dist::RelayPeer&, const std::string& line,
                             telemetry::Event& event) {
      sink.writeLine(line, event);  // the sending rank's encoding, as it came
      if (observe) observe(event);
    };
    // Runs until stop(); then a little longer while ranks still send their last lines.
    auto lastChance = std::chrono::steady_clock::time_point::max();
    while (true) {
      if (m_stop && lastChance == std::chrono::steady_clock::time_point::max())
        lastChance = std::chrono::steady_clock::now() + std::chrono::seconds(3);
      if (m_stop && (m_server->connections() == 0 || std::chrono::steady_clock::now() > lastChance)) break;
      std::vector<pollfd> fds;
      m_server->addPollFds(fds);
      ::poll(fds.data(), fds.size(), 100);
      m_server->service(onEvent, warn);
    }
  });
}

void RankRelay::sendFrom(const dist::DistEnv& env, const std::string& runDir,
                         telemetry::EventSink& sink) {
  m_client = std::make_unique<dist::RelayClient>(
      env.masterAddr, dist::relayPort(env.masterPort), "rank", env.rank,
      [runDir] { return dist::clientRelaySecret(runDir); });
  sink.setStream(nullptr);
  m_sink = &sink;
  sink.setForward([this](const std::string& line) {  // the sink's own encoding
    std::lock_guard<std::mutex> lock(m_mutex);
    m_client->send(line);
  });
  m_thread = std::thread([this] {
    while (!m_stop) {
      {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_client->service();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
}

void RankRelay::stop() {
  if (m_sink) m_sink->setForward(nullptr);  // what the rank writes from now on stays here
  m_sink = nullptr;
  m_stop = true;
  if (m_thread.joinable()) m_thread.join();
  if (m_client) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_client->flush(std::chrono::milliseconds(5000));
    if (!m_client->connected())
      std::cerr << "stave-train: rank 0's event relay could not be reached"
                << (m_client->lastError().empty() ? "" : " (" + m_client->lastError() + ")")
                << ": this rank's last events are not in events.jsonl\n";
    else if (m_client->dropped() > 0)
      std::cerr << "stave-train: " << m_client->dropped()
                << " event(s) were dropped while rank 0's event relay was unreachable\n";
  }
  m_server.reset();
  m_client.reset();
}

}  // namespace stave::train
