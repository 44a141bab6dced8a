// Watching the ranks: their event lines, exits, stop requests, silences and hangs, stragglers
// and node samples (the launcher's poll loop calls these; launcher.cpp starts and ends the run).
#include "core/distributed/launcher_supervisor.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace stave::dist::detail {

std::vector<std::string> tailLines(const std::string& path, int n) {
  std::vector<std::string> lines;
  std::ifstream in(path, std::ios::binary);
  if (!in || n <= 0) return lines;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  const std::streamoff start = size > 65536 ? size - 65536 : 0;
  in.seekg(start);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::deque<std::string> dq;
  std::istringstream ss(text);
  std::string line;
  bool first = start > 0;  // the first line of a cut is partial
  while (std::getline(ss, line)) {
    if (first) {
      first = false;
      continue;
    }
    dq.push_back(line);
    if (static_cast<int>(dq.size()) > n) dq.pop_front();
  }
  return {dq.begin(), dq.end()};
}


void Supervisor::handleLine(RankProc& r, const std::string& rawLine) {
  std::string line = rawLine;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.find_first_not_of(" \t") == std::string::npos) return;
  bool rankPresent = false;
  auto event = telemetry::decodeEvent(line, &rankPresent);  // each line is decoded once
  if (!event) {
    // Not an event (a stray print, or a malformed event): keep it in the rank's log, out of
    // the event stream the GUI decodes.
    const bool looksLikeEvent = line[line.find_first_not_of(" \t")] == '{';
    writeLog(r, (looksLikeEvent ? "[bad event: " + event.errorText() + "] " : "[stdout] ") + line);
    return;
  }
  r.lastEvent = Clock::now();
  r.silenceWarned = false;
  if (event->type == telemetry::event_type::kStep) {
    if (r.steps++ == 0) r.firstStep = r.lastEvent;
    r.lastStep = r.lastEvent;
    r.betweenEpochs = false;
  } else if (event->type == telemetry::event_type::kRunStart) {
    r.runStarted = true;
  } else if (event->type == telemetry::event_type::kFinished) {
    m_sawFinished = true;
  } else if (event->type == telemetry::event_type::kEpochEnd) {
    r.betweenEpochs = true;  // validation and checkpoints: minutes without step events
  }
  if (!rankPresent) event->rank = r.global;
  if (event->type == telemetry::event_type::kStep) m_straggler.addEvent(event.value());
  if (m_monitor) m_monitor->observe(event.value());
  if (event->type == telemetry::event_type::kError && event->data.contains("message") &&
      event->data["message"].is_string()) {
    r.lastError = event->data["message"].get<std::string>();
    r.lastErrorText.clear();
    if (const auto it = event->data.find("message_text"); it != event->data.end())
      if (auto text = telemetry::textFromJson(*it)) r.lastErrorText = std::move(text.value());
  }
  const std::string encoded = telemetry::encodeEvent(event.value());
  emit(encoded, event.value());
  if (m_relayClient) m_relayClient->send(encoded);
}


void Supervisor::handleRelayed(const std::string& line, telemetry::Event& event) {
  if (event.type == telemetry::event_type::kStep) m_straggler.addEvent(event);
  if (m_monitor) m_monitor->observe(event, false);
  emit(line, event);  // the sending launcher's encoding already: written as it came
}


bool Supervisor::openRelay() {
  if (m_opt.nnodes <= 1 || m_opt.masterPort <= 0) return true;
  const int port = relayPort(m_opt.masterPort);
  if (m_opt.nodeRank == 0) {
    // Only this run's launchers may write its events: they prove that they know the run's
    // relay key (created here, in the run folder, before anyone can connect).
    auto secret = serverRelaySecret(m_opt.runDir);
    if (!secret) {
      return startFailed(Text("launcher.relay_failed", {{"reason", secret.errorText()}}));
    }
    RelayServerOptions o;
    o.bindAddress = runListenAddress(m_opt.masterAddr, true);
    o.port = port;
    o.secret = secret.value();
    o.peerKind = "node";
    o.admit = [nproc = m_opt.nproc, nnodes = m_opt.nnodes](RelayPeer& p) {
      if (p.id < 1 || p.id >= nnodes) return false;
      p.firstRank = p.id * nproc;  // global rank = node_rank x nproc + local rank
      p.rankCount = nproc;
      return true;
    };
    auto server = RelayServer::listen(std::move(o));
    if (!server) return startFailed(server.errors());
    m_relayServer = std::move(server.value());
  } else {
    m_relayClient = std::make_unique<RelayClient>(
        m_opt.masterAddr, port, "node", m_opt.nodeRank,
        [dir = m_opt.runDir] { return clientRelaySecret(dir); });
  }
  return true;
}


void Supervisor::serviceRelay() {
  if (m_relayServer)
    m_relayServer->service(
        [this](const RelayPeer&, const std::string& line, telemetry::Event& e) {
          handleRelayed(line, e);
        },
        [this](const std::string& problem) { warn(problem); });
  if (m_relayClient) m_relayClient->service();
}


void Supervisor::finishRelay() {
  if (m_relayClient) {
    m_relayClient->flush(std::chrono::seconds(5));
    const std::string ownLog =
        m_opt.eventsFile.empty() ? m_opt.runDir + "/events.jsonl" : m_opt.eventsFile;
    if (!m_relayClient->connected() && !m_relayClient->lastError().empty())
      warn(Text("launcher.relay_not_connected",
                {{"reason", m_relayClient->lastError()}, {"log", ownLog}}));
    else if (m_relayClient->dropped() > 0)
      warn(Text("launcher.relay_dropped",
                {{"count", std::to_string(m_relayClient->dropped())}, {"log", ownLog}}));
  }
  if (m_relayServer) {
    // The other nodes' ranks end at about the same time as ours: take their last events.
    const auto end = Clock::now() + std::chrono::seconds(5);
    while (m_relayServer->connections() > 0 && Clock::now() < end) {
      std::vector<pollfd> fds;
      m_relayServer->addPollFds(fds);
      poll(fds.data(), fds.size(), 100);
      serviceRelay();
    }
  }
}


void Supervisor::readOutput(RankProc& r, bool untilEof) {
  if (!r.out.valid()) return;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(r.out.get(), buf, sizeof buf);
    if (n > 0) {
      r.buffer.append(buf, static_cast<size_t>(n));
      size_t nl;
      while ((nl = r.buffer.find('\n')) != std::string::npos) {
        handleLine(r, r.buffer.substr(0, nl));
        r.buffer.erase(0, nl + 1);
      }
      if (r.buffer.size() > (16u << 20)) {  // a runaway line: keep memory bounded
        writeLog(r, "[stdout] (dropped a line over 16 MiB)");
        r.buffer.clear();
      }
      continue;
    }
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
      if (!r.buffer.empty()) handleLine(r, r.buffer);
      r.buffer.clear();
      r.out.reset();
      return;
    }
    if (n < 0 && errno == EINTR) continue;
    if (!untilEof) return;
    // The process is gone but a grandchild may still hold the pipe: do not wait for it.
    return;
  }
}


void Supervisor::signalAll(int sig) {
  for (auto& r : m_ranks) {
    if (!r.alive) continue;
    if (kill(-r.pid, sig) != 0) kill(r.pid, sig);
  }
}


void Supervisor::fail(RunOutcome outcome, int rank, const TextParts& text,
                      std::optional<int> exitCode, std::optional<int> signal,
                      const nlohmann::json& extra) {
  if (m_failing) return;
  m_failing = true;
  m_outcome = outcome;  // the first failure is the run's outcome
  m_result.failedRank = rank;
  m_result.message = english(text);
  telemetry::ErrorEvent err;
  err.rank = rank;
  err.message = m_result.message;
  err.text = text;
  err.exitCode = exitCode;
  err.signal = signal;
  for (auto& r : m_ranks)
    if (r.global == rank) err.logTail = tailLines(r.logPath, m_opt.logTailLines);
  if (outcome == RunOutcome::TimedOut) {
    err.hintText = {Text("launcher.hung.hint")};
    err.hint = english(err.hintText);
  }
  auto event = telemetry::toEvent(err, rank);
  for (auto it = extra.begin(); it != extra.end(); ++it) event.data[it.key()] = it.value();
  if (signal) event.data["signal_name"] = signalName(*signal);
  event.data["outcome"] = outcomeName(outcome);
  emitEvent(std::move(event));
  signalAll(SIGTERM);
  m_killDeadline =
      Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(m_opt.graceS * 1000));
}


void Supervisor::onRankExit(RankProc& r) {
  r.alive = false;
  readOutput(r, true);
  r.out.reset();
  telemetry::RankExitEvent ex;
  ex.rank = r.global;
  std::string how;
  Text howText("plain", {{"text", ""}});
  bool bad = false;
  const bool bySignal = WIFSIGNALED(r.status);
  if (WIFEXITED(r.status)) {
    ex.exitCode = WEXITSTATUS(r.status);
    how = "exit code " + std::to_string(*ex.exitCode);
    howText = Text("launcher.exit_code", {{"code", std::to_string(*ex.exitCode)}});
    // 128 + SIGTERM/SIGINT after a stop request: a rank that ended at once as asked (it was
    // still waiting at the rendezvous, with nothing to checkpoint).
    const bool stoppedAtOnce = m_stopRequested && (*ex.exitCode == 128 + SIGTERM ||
                                                   *ex.exitCode == 128 + SIGINT);
    bad = *ex.exitCode != 0 && !stoppedAtOnce;
    ex.outcome = bad ? "failed" : (m_stopRequested ? "stopped" : "finished");
  } else if (bySignal) {
    ex.signal = WTERMSIG(r.status);
    how = "signal " + signalName(*ex.signal);
    howText = Text("launcher.signal", {{"signal", signalName(*ex.signal)}});
    // A rank ended by the SIGTERM we forwarded on a stop request ended as asked.
    bad = !(m_stopRequested && *ex.signal == SIGTERM);
    ex.outcome = !bad ? "stopped" : (m_failing || m_killedAll) ? "killed" : "crashed";
  }
  if (!bad && m_failing) ex.outcome = "stopped";
  auto event = telemetry::toEvent(ex, r.global);
  event.data["pid"] = r.pid;
  event.data["status"] = how;
  if (ex.signal) event.data["signal_name"] = signalName(*ex.signal);
  emitEvent(std::move(event));
  if (!bad && m_stopRequested && !m_failing && r.global == 0)
    m_stoppedRankZeroDeadline =
        Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(m_opt.graceS * 1000));
  if (!bad || m_failing || m_killedAll) return;
  const int code = ex.exitCode.value_or(-1);
  TextParts detail;
  if (code == 127) detail.push_back(Text("launcher.not_executed"));
  // The cause: the rank's own error event, else the last line it wrote to its log (as it is).
  std::string cause = r.lastError;
  if (cause.empty()) {
    for (const auto& line : tailLines(r.logPath, 5))
      if (line.find_first_not_of(" \t") != std::string::npos) cause = line;
  }
  if (!r.lastErrorText.empty())
    detail.push_back(Text("launcher.cause", {{"cause", r.lastErrorText}}));
  else if (!cause.empty())
    detail.push_back(Text("launcher.cause", {{"cause", cause}}));
  if (detail.empty()) detail.push_back(Text("plain", {{"text", ""}}));
  const Text message("launcher.rank_ended", {{"rank", std::to_string(r.global)},
                                             {"pid", std::to_string(r.pid)},
                                             {"how", howText},
                                             {"detail", detail}});
  fail(bySignal ? RunOutcome::Crashed : RunOutcome::Failed, r.global, {message}, ex.exitCode,
       ex.signal, {{"pid", r.pid}});
}


void Supervisor::reap() {
  std::vector<RankProc*> exited;
  for (auto& r : m_ranks) {
    if (!r.alive) continue;
    int status = 0;
    if (waitpid(r.pid, &status, WNOHANG) == r.pid) {
      r.status = status;
      exited.push_back(&r);
    }
  }
  // When a peer dies, survivors often notice (connection closed) and exit with an error
  // soon after -- sometimes before the dying peer is even a zombie (its sockets close while
  // the kernel is still tearing it down). So when a rank failed by itself and no rank was
  // ended by a signal, give the others a moment to show whether one of them was killed, and
  // blame the one ended by a signal.
  const auto failedByItself = [](const RankProc* r) {
    return WIFEXITED(r->status) && WEXITSTATUS(r->status) != 0;
  };
  const bool anySignalled = std::any_of(exited.begin(), exited.end(),
                                        [](const RankProc* r) { return WIFSIGNALED(r->status); });
  if (!anySignalled && !m_failing && !m_stopRequested &&
      std::any_of(exited.begin(), exited.end(), failedByItself)) {
    const auto until = Clock::now() + std::chrono::milliseconds(300);
    while (Clock::now() < until) {
      for (auto& r : m_ranks) {
        if (!r.alive || std::find(exited.begin(), exited.end(), &r) != exited.end()) continue;
        int status = 0;
        if (waitpid(r.pid, &status, WNOHANG) == r.pid) {
          r.status = status;
          exited.push_back(&r);
        }
      }
      if (std::any_of(exited.begin(), exited.end(),
                      [](const RankProc* r) { return WIFSIGNALED(r->status); }))
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  std::stable_sort(exited.begin(), exited.end(), [](const RankProc* a, const RankProc* b) {
    return WIFSIGNALED(a->status) && !WIFSIGNALED(b->status);
  });
  for (auto* r : exited) onRankExit(*r);
}


int Supervisor::aliveCount() const {
  int n = 0;
  for (const auto& r : m_ranks) n += r.alive ? 1 : 0;
  return n;
}


void Supervisor::startSampling() {
  if (m_opt.samplePeriodS <= 0) return;
  telemetry::NodeTelemetryOptions no;
  no.periodS = m_opt.samplePeriodS;
  no.nvmlLibrary = m_opt.nvmlLibrary;
  no.diskPath = m_opt.diskPath;
  no.node = m_opt.nodeRank;
  no.nodes = m_opt.nnodes;
  const int wake = m_wakeWrite.get();
  m_node = std::make_unique<telemetry::NodeTelemetry>(no, [this, wake](telemetry::Event e) {
    {
      std::lock_guard<std::mutex> lock(m_nodeMutex);
      if (m_nodeEvents.size() < 256) m_nodeEvents.push_back(std::move(e));  // bounded
    }
    const char one = 1;
    [[maybe_unused]] ssize_t n = write(wake, &one, 1);
  });
  std::vector<std::pair<int, int>> pids;
  for (const auto& r : m_ranks) pids.emplace_back(r.global, static_cast<int>(r.pid));
  m_node->setProcesses(pids);
  m_node->start();
}


void Supervisor::maybeSample() {
  std::vector<telemetry::Event> events;
  {
    std::lock_guard<std::mutex> lock(m_nodeMutex);
    events.swap(m_nodeEvents);
  }
  for (auto& e : events) {
    const std::string line = emitEvent(std::move(e));
    // Another node's samples reach node 0's events.jsonl too (the relay's queue is bounded:
    // a node 0 that does not read costs the oldest lines, never this node's memory).
    if (m_relayClient) m_relayClient->send(line);
  }
}


void Supervisor::stopSampling() {
  if (!m_node) return;
  m_node->stop();
  maybeSample();  // what the last round brought
  m_node.reset();
}


void Supervisor::maybeReportStraggler() {
  if (m_opt.reportPeriodS <= 0 || secondsSince(m_periodStart) < m_opt.reportPeriodS) return;
  m_periodStart = Clock::now();
  if (auto report = m_straggler.report()) {
    auto event = telemetry::toEvent(*report, report->slowRank);
    event.data["period_s"] = m_opt.reportPeriodS;
    emitEvent(std::move(event));
  }
}

// Waits up to 100 ms for output of any rank (or a signal) and handles what arrived.
void Supervisor::pollOnce() {
  std::vector<pollfd> fds;
  fds.push_back({m_wakeRead.get(), POLLIN, 0});
  std::vector<RankProc*> owners;
  for (auto& r : m_ranks) {
    if (r.out.valid()) {
      fds.push_back({r.out.get(), POLLIN, 0});
      owners.push_back(&r);
    }
  }
  const size_t rankFds = fds.size();
  if (m_relayServer) m_relayServer->addPollFds(fds);
  poll(fds.data(), fds.size(), 100);
  fds.resize(rankFds);
  serviceRelay();
  if (fds[0].revents & POLLIN) {
    char drain[64];
    while (read(m_wakeRead.get(), drain, sizeof drain) > 0) {
    }
  }
  for (size_t i = 1; i < fds.size(); ++i)
    if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) readOutput(*owners[i - 1], false);
}

// Signals: the first is a graceful stop request, the second kills.
void Supervisor::handleStopSignals(Clock::time_point& stopDeadline) {
  const int signals = g_signalCount;
  if (!m_opt.handleSignals || signals <= m_signalsHandled) return;
  m_signalsHandled = signals;
  if (!m_stopRequested && !m_failing) {
    m_stopRequested = true;
    stopDeadline =
        Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(m_opt.stopTimeoutS * 1000));
    warn(Text("launcher.stop_requested"));
    signalAll(SIGTERM);
  }
  if (signals >= 2 && !m_killedAll) {
    m_killedAll = true;
    if (!m_outcome) {
      m_outcome = RunOutcome::Killed;
      m_result.message = "second stop request: killed every rank";
    }
    warn(Text("launcher.second_stop"));
    signalAll(SIGKILL);
  }
}

/// The state letter of a local process from /proc (e.g. 'T' stopped, 'D' in uninterruptible
/// I/O), or 0 when it cannot be read.
static char processState(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() ? text[close + 2] : 0;
}

// A rank that sends no event for hang_timeout is hung (e.g. blocked in a collective). Long
// before that, a training rank silent for many of its step intervals is named in a warning.
void Supervisor::checkHangs(Clock::time_point now) {
  if (m_failing || m_stopRequested) return;
  for (auto& r : m_ranks) {
    if (!r.alive) continue;
    const double silent = std::chrono::duration<double>(now - r.lastEvent).count();
    const double sinceSpawn = std::chrono::duration<double>(now - r.spawned).count();
    if (!r.runStarted && !m_startWarned && m_opt.nnodes > 1 && sinceSpawn > m_opt.startWarnS) {
      // Said once, for the first such rank: the usual cause is a node that has not come.
      m_startWarned = true;
      warn(Text("launcher.rank_not_started",
                {{"rank", std::to_string(r.global)},
                 {"seconds", std::to_string(static_cast<int>(sinceSpawn))},
                 {"address", m_opt.masterAddr + ":" + std::to_string(m_result.masterPort)},
                 {"nnodes", std::to_string(m_opt.nnodes)}}));
    }
    if (!r.silenceWarned && r.steps >= 3 && !r.betweenEpochs) {
      // Step events come every 0.5 s or every step, whichever is longer.
      const double interval =
          std::chrono::duration<double>(r.lastStep - r.firstStep).count() /
          static_cast<double>(r.steps - 1);
      const double limit = std::max(m_opt.silenceWarnMinS, 20.0 * interval);
      if (silent > limit && silent < m_opt.hangTimeoutS) {
        r.silenceWarned = true;
        const char state = processState(r.pid);
        std::ostringstream every;
        every << std::setprecision(2) << interval;
        const Text why = state == 'T' || state == 't' ? Text("launcher.rank_silent.sigstop")
                         : state == 'D'               ? Text("launcher.rank_silent.io")
                                                      : Text("plain", {{"text", ""}});
        warn(Text("launcher.rank_silent",
                  {{"rank", std::to_string(r.global)},
                   {"pid", std::to_string(r.pid)},
                   {"seconds", std::to_string(static_cast<int>(silent))},
                   {"interval", every.str()},
                   {"state", why},
                   {"limit", std::to_string(static_cast<int>(m_opt.hangTimeoutS))}}));
      }
    }
    if (silent > m_opt.hangTimeoutS) {
      std::ostringstream limit;
      limit << m_opt.hangTimeoutS;
      fail(RunOutcome::TimedOut, r.global,
           {Text("launcher.hung", {{"rank", std::to_string(r.global)},
                                   {"seconds", std::to_string(static_cast<int>(silent))},
                                   {"limit", limit.str()}})},
           std::nullopt, std::nullopt, {{"hung", true}, {"silent_s", silent}});
      return;
    }
  }
}

// Ranks that outlive a stop request's or a failure's grace period are killed.
void Supervisor::enforceDeadlines(Clock::time_point now, Clock::time_point stopDeadline) {
  if (m_stopRequested && !m_failing && !m_killedAll && now > stopDeadline) {
    m_outcome = RunOutcome::TimedOut;
    m_result.message = "ranks did not stop within " + std::to_string(m_opt.stopTimeoutS) +
                       " s of the stop request; killed";
    telemetry::ErrorEvent err;
    err.text = {Text("launcher.stop_timeout", {{"seconds", std::to_string(m_opt.stopTimeoutS)}})};
    err.message = m_result.message;
    auto event = telemetry::toEvent(err, -1);
    event.data["outcome"] = outcomeName(RunOutcome::TimedOut);
    emitEvent(std::move(event));
    m_killedAll = true;
    signalAll(SIGKILL);
  }
  if (m_stopRequested && !m_failing && !m_killedAll && now > m_stoppedRankZeroDeadline) {
    std::string alive;
    for (const auto& r : m_ranks)
      if (r.alive) alive += (alive.empty() ? "" : ", ") + std::to_string(r.global);
    warn(Text("launcher.rank0_stopped", {{"ranks", alive},
                                          {"seconds", std::to_string(static_cast<int>(m_opt.graceS))}}));
    m_killedAll = true;
    signalAll(SIGKILL);
  }
  if (m_failing && !m_killedAll && now > m_killDeadline) {
    m_killedAll = true;  // survivors stuck in a collective ignore SIGTERM's effects
    signalAll(SIGKILL);
  }
}

}  // namespace stave::dist::detail
