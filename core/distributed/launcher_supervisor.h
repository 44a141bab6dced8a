#pragma once
// Internal to core/distributed: the launcher's supervisor, shared by launcher.cpp (starting the ranks,
// the run, the public entry points) and launcher_watch.cpp (reading, judging and stopping the
// ranks). Not a public header.

#include "core/distributed/event_relay.h"
#include "core/distributed/relay_key.h"
#include "core/distributed/launcher.h"
#include "core/base/clock.h"
#include "core/telemetry/node_telemetry.h"
#include "core/telemetry/run_monitor.h"
#include "core/telemetry/tensorboard.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <deque>
#include <mutex>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>

#include "core/telemetry/event_sink.h"
#include "core/telemetry/events.h"
#include "core/telemetry/straggler.h"


namespace stave::dist::detail {

using Clock = std::chrono::steady_clock;

/// Signal state shared with the async-signal-safe handler (launcher.cpp).
extern volatile sig_atomic_t g_signalCount;
extern volatile sig_atomic_t g_wakeFd;

// A file descriptor that closes itself (move-only).
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : m_fd(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : m_fd(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }
  int get() const { return m_fd; }
  bool valid() const { return m_fd >= 0; }
  int release() {
    const int fd = m_fd;
    m_fd = -1;
    return fd;
  }
  void reset(int fd = -1) {
    if (m_fd >= 0) close(m_fd);
    m_fd = fd;
  }

 private:
  int m_fd = -1;
};


/// Last `n` lines of a file (reads at most its last 64 KiB).
std::vector<std::string> tailLines(const std::string& path, int n);

struct RankProc {
  int local = 0;
  int global = 0;
  pid_t pid = -1;
  UniqueFd out;  ///< read end of the rank's stdout (its events)
  std::string buffer;
  std::string logPath;
  bool alive = false;
  int status = 0;
  Clock::time_point lastEvent;
  // Step cadence, for an early word about a silent rank (long before hang_timeout).
  Clock::time_point firstStep, lastStep;
  int64_t steps = 0;
  bool betweenEpochs = false;  ///< saw epoch_end, not yet the epoch's validation / next step
  bool silenceWarned = false;
  Clock::time_point spawned;  ///< when the process was started
  bool runStarted = false;    ///< its run_start arrived (past the rendezvous and set-up)
  std::string lastError;  ///< message of the rank's last error event: the cause of its exit
  TextParts lastErrorText;  ///< the same as catalog messages (empty: English only)
};

class Supervisor {
 public:
  explicit Supervisor(const LaunchOptions& o) : m_opt(o) {}

  LaunchResult run();

 private:
  bool prepare();
  /// A start that failed before any rank ran: the result's message and text; false.
  bool startFailed(const std::vector<Error>& errors);
  bool startFailed(const Text& text) { return startFailed({textError("", 0, "", text)}); }
  /// Writes a failed start to the run folder's events.jsonl as an error and a final event, so
  /// that the studio and History say why (in their language), not only launcher.log.
  void recordStartFailure();
  std::vector<std::string> rankEnvironment() const;
  void spawnAll(const std::vector<std::string>& env);
  void pollOnce();
  void handleStopSignals(Clock::time_point& stopDeadline);
  void checkHangs(Clock::time_point now);
  void enforceDeadlines(Clock::time_point now, Clock::time_point stopDeadline);
  void decide(RunOutcome outcome) {
    if (!m_outcome) m_outcome = outcome;
  }
  bool spawn(RankProc& r, const std::vector<std::string>& envStrings);
  /// Writes one event line everywhere the run's events go; `event` is the line's decoded form
  /// (the event just encoded, or the one decoded to read the line), which TensorBoard takes.
  void emit(const std::string& line, const telemetry::Event& event);
  /// Writes one of the launcher's own events; returns its line.
  std::string emitEvent(telemetry::Event event);
  void warn(const std::string& message);
  void warn(Text text);  ///< a catalog message (its English beside it)
  void readOutput(RankProc& r, bool untilEof);
  void handleLine(RankProc& r, const std::string& line);
  /// A rank event from another node's launcher, admitted by the relay (node 0 only).
  void handleRelayed(const std::string& line, telemetry::Event& event);
  /// Opens this node's end of the event relay (several nodes); false with m_result.message.
  bool openRelay();
  /// One poll round of the relay: node 0 takes what its peers sent (problems become warning
  /// events), another node sends what is queued.
  void serviceRelay();
  /// After the local ranks: the other nodes' last events (node 0), or sending ours (others).
  void finishRelay();
  void writeLog(RankProc& r, const std::string& text);
  void reap();
  void onRankExit(RankProc& r);
  void signalAll(int sig);
  /// The run fails: `text` (a catalog message; its English is the result's message) names why.
  void fail(RunOutcome outcome, int rank, const TextParts& text, std::optional<int> exitCode,
            std::optional<int> signal, const nlohmann::json& extra);
  void maybeReportStraggler();
  void startSampling();
  void maybeSample();
  void stopSampling();
  int aliveCount() const;

  const LaunchOptions& m_opt;
  LaunchResult m_result;
  std::vector<RankProc> m_ranks;
  telemetry::EventLogFile m_events;  ///< runDir/events.jsonl
  std::unique_ptr<telemetry::TensorBoardWriter> m_tb;  ///< runDir/tb/, fed what events.jsonl gets
  std::unique_ptr<telemetry::RunMonitor> m_monitor;    ///< the doctor and the metrics endpoint
  UniqueFd m_wakeRead, m_wakeWrite;  ///< the signal handler wakes poll() through this pipe
  bool m_failing = false;        // a failure was reported; others are being stopped
  bool m_stopRequested = false;  // first SIGTERM/SIGINT forwarded
  bool m_sawFinished = false;    // a rank wrote the run's finished event
  bool m_startWarned = false;    // said that the ranks wait for the other nodes
  bool m_killedAll = false;
  int m_signalsHandled = 0;
  Clock::time_point m_killDeadline = Clock::time_point::max();
  /// After a stop request: rank 0 (which writes the checkpoint and the finished event) has
  /// ended; ranks alive graceS later are blocked (e.g. stopped, or in a collective) and killed.
  Clock::time_point m_stoppedRankZeroDeadline = Clock::time_point::max();
  Clock::time_point m_periodStart;
  std::optional<RunOutcome> m_outcome;  ///< decided once (a failure may override); else at the end
  telemetry::StragglerDetector m_straggler;
  // Node telemetry samples on its own thread; its events queue here and the main loop writes
  // them (events.jsonl, stdout and TensorBoard have one writer).
  std::unique_ptr<telemetry::NodeTelemetry> m_node;
  /// Several nodes: node 0 receives the other nodes' rank events, the others send theirs.
  std::unique_ptr<RelayServer> m_relayServer;
  std::unique_ptr<RelayClient> m_relayClient;
  std::mutex m_nodeMutex;
  std::vector<telemetry::Event> m_nodeEvents;
};

}  // namespace stave::dist::detail
