#include "core/train/rank_relay.h"

#include <poll.h>

#include <chrono>
#include <iostream>
#include <vector>

namespace stave::train {

void RankRelay::serve(int port, telemetry::EventSink& sink,
                      std::function<void(const telemetry::Event&)> observe) {
  // Every rank's events go to events.jsonl; not also to rank 0's stream (under srun the job's
  // output file, which would hold a second copy of a day's gigabyte).
  sink.setStream(nullptr);
  auto server = dist::RelayServer::listen(port);
  if (!server) {
    telemetry::WarningEvent w;
    w.message = "the other ranks' events cannot reach events.jsonl (" + server.errorText() +
                "); rank 0's are written, and the run goes on";
    sink.writeTyped(w);
    return;
  }
  m_server = std::move(server.value());
  m_thread = std::thread([this, &sink, observe = std::move(observe)] {
    const auto onLine = [&](const std::string& line) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) return;
      auto event = telemetry::decodeEvent(line);
      if (!event) return;  // a torn line of a rank that died mid-write
      sink.writeLine(line);  // the sending rank's encoding, as it came
      if (observe) observe(event.value());
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
      m_server->service(onLine);
    }
  });
}

void RankRelay::sendFrom(const std::string& host, int port, telemetry::EventSink& sink) {
  m_client = std::make_unique<dist::RelayClient>(host, port);
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
      std::cerr << "stave-train: rank 0's event relay could not be reached: this rank's last "
                   "events are not in events.jsonl\n";
    else if (m_client->dropped() > 0)
      std::cerr << "stave-train: " << m_client->dropped()
                << " event(s) were dropped while rank 0's event relay was unreachable\n";
  }
  m_server.reset();
  m_client.reset();
}

}  // namespace stave::train
