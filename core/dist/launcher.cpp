#include "core/dist/launcher.h"
#include "core/config/clock.h"
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

#include "core/telemetry/events.h"
#include "core/telemetry/straggler.h"

extern char** environ;

namespace stave::dist {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

// Signal state shared with the async-signal-safe handler.
volatile sig_atomic_t g_signalCount = 0;
volatile sig_atomic_t g_wakeFd = -1;

void onSignal(int) {
  g_signalCount = g_signalCount + 1;
  if (g_wakeFd >= 0) {
    const char c = 's';
    [[maybe_unused]] ssize_t n = write(g_wakeFd, &c, 1);
  }
}

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

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

// SIGTERM/SIGINT forwarded to the ranks (through the wake pipe) and SIGPIPE ignored while the
// launcher supervises; the previous handlers come back when it is done.
class ScopedSignals {
 public:
  ScopedSignals(bool handleStop, int wakeFd) : m_handleStop(handleStop) {
    if (m_handleStop) {
      g_signalCount = 0;
      g_wakeFd = wakeFd;
      struct sigaction sa {};
      sa.sa_handler = onSignal;
      sigemptyset(&sa.sa_mask);
      sa.sa_flags = 0;  // no SA_RESTART: poll() returns at once
      sigaction(SIGTERM, &sa, &m_oldTerm);
      sigaction(SIGINT, &sa, &m_oldInt);
    }
    struct sigaction ign {};
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &m_oldPipe);  // a closed stdout (GUI gone) must not kill us
  }
  ~ScopedSignals() {
    if (m_handleStop) {
      sigaction(SIGTERM, &m_oldTerm, nullptr);
      sigaction(SIGINT, &m_oldInt, nullptr);
      g_wakeFd = -1;
    }
    sigaction(SIGPIPE, &m_oldPipe, nullptr);
  }
  ScopedSignals(const ScopedSignals&) = delete;
  ScopedSignals& operator=(const ScopedSignals&) = delete;

 private:
  bool m_handleStop;
  struct sigaction m_oldTerm {}, m_oldInt{}, m_oldPipe{};
};

// Last `n` lines of a file (reads at most its last 64 KiB).
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
  bool startWarned = false;
  std::string lastError;  ///< message of the rank's last error event: the cause of its exit
};

class Supervisor {
 public:
  explicit Supervisor(const LaunchOptions& o) : m_opt(o) {}

  LaunchResult run();

 private:
  bool prepare();
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
  void emit(const std::string& line);
  void emitEvent(telemetry::Event event);
  void warn(const std::string& message);
  void readOutput(RankProc& r, bool untilEof);
  void handleLine(RankProc& r, const std::string& line);
  void writeLog(RankProc& r, const std::string& text);
  void reap();
  void onRankExit(RankProc& r);
  void signalAll(int sig);
  void fail(RunOutcome outcome, int rank, const std::string& message, std::optional<int> exitCode,
            std::optional<int> signal, const nlohmann::json& extra);
  void maybeReportStraggler();
  void startSampling();
  void maybeSample();
  void stopSampling();
  int aliveCount() const;

  const LaunchOptions& m_opt;
  LaunchResult m_result;
  std::vector<RankProc> m_ranks;
  std::unique_ptr<std::FILE, FileCloser> m_events;  ///< runDir/events.jsonl
  std::unique_ptr<telemetry::TensorBoardWriter> m_tb;  ///< runDir/tb/, fed what events.jsonl gets
  std::unique_ptr<telemetry::RunMonitor> m_monitor;    ///< the doctor and the metrics endpoint
  UniqueFd m_wakeRead, m_wakeWrite;  ///< the signal handler wakes poll() through this pipe
  bool m_failing = false;        // a failure was reported; others are being stopped
  bool m_stopRequested = false;  // first SIGTERM/SIGINT forwarded
  bool m_sawFinished = false;    // a rank wrote the run's finished event
  bool m_killedAll = false;
  int m_signalsHandled = 0;
  Clock::time_point m_killDeadline = Clock::time_point::max();
  Clock::time_point m_periodStart;
  std::optional<RunOutcome> m_outcome;  ///< decided once (a failure may override); else at the end
  telemetry::StragglerDetector m_straggler;
  // Node telemetry samples on its own thread; its events queue here and the main loop writes
  // them (events.jsonl, stdout and TensorBoard have one writer).
  std::unique_ptr<telemetry::NodeTelemetry> m_node;
  std::mutex m_nodeMutex;
  std::vector<telemetry::Event> m_nodeEvents;
};

void Supervisor::emit(const std::string& line) {
  if (m_opt.echoStdout) {
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
  }
  if (m_events) {
    std::fwrite(line.data(), 1, line.size(), m_events.get());
    std::fputc('\n', m_events.get());
    std::fflush(m_events.get());
  }
  if (m_tb) m_tb->writeLine(line);
  if (m_opt.onEvent) m_opt.onEvent(line);
}

// Every event the launcher writes goes through here (and is marked as the launcher's).
void Supervisor::emitEvent(telemetry::Event event) {
  if (!event.data.is_object()) event.data = nlohmann::json::object();
  event.data["source"] = "launcher";
  if (m_monitor) m_monitor->observe(event);
  emit(telemetry::encodeEvent(event));
}

void Supervisor::warn(const std::string& message) {
  emitEvent(telemetry::toEvent(telemetry::WarningEvent{message, "dist"}, -1));
}

void Supervisor::writeLog(RankProc& r, const std::string& text) {
  std::ofstream log(r.logPath, std::ios::app);
  log << text << '\n';
}

bool Supervisor::prepare() {
  if (m_opt.workerArgv.empty()) {
    m_result.message = "no worker command given";
    return false;
  }
  if (m_opt.nproc < 1 || m_opt.nnodes < 1 || m_opt.nodeRank < 0 || m_opt.nodeRank >= m_opt.nnodes) {
    m_result.message = "nproc, nnodes must be >= 1 and node_rank in [0, nnodes)";
    return false;
  }
  m_result.masterPort = m_opt.masterPort;
  if (m_result.masterPort == 0) {
    if (m_opt.nnodes > 1) {
      m_result.message = "master_port: 0 (pick a free port) works on one node only; give a port";
      return false;
    }
    auto port = findFreePort(m_opt.masterAddr);
    if (!port) {
      m_result.message = port.errorText();
      return false;
    }
    m_result.masterPort = port.value();
  }
  std::string logDir;
  if (!m_opt.runDir.empty()) {
    std::error_code ec;
    logDir = (fs::path(m_opt.runDir) / "logs").string();
    fs::create_directories(logDir, ec);
    if (ec) {
      m_result.message = "cannot create " + logDir + ": " + ec.message();
      return false;
    }
    const std::string eventsPath = (fs::path(m_opt.runDir) / "events.jsonl").string();
    m_events.reset(std::fopen(eventsPath.c_str(), "ae"));
    if (!m_events) {
      m_result.message = "cannot open " + eventsPath + ": " + std::strerror(errno);
      return false;
    }
    if (m_opt.tensorboard) {
      auto tb = telemetry::TensorBoardWriter::open((fs::path(m_opt.runDir) / "tb").string());
      if (!tb) {
        m_result.message = tb.errorText();
        return false;
      }
      m_tb = std::move(tb.value());
    }
  } else {
    logDir = (fs::temp_directory_path() / ("stave-launch-" + std::to_string(getpid()))).string();
    std::error_code ec;
    fs::create_directories(logDir, ec);
  }
  telemetry::RunMonitorOptions mo;
  mo.reportPeriodS = m_opt.doctor ? m_opt.reportPeriodS : 0;
  mo.runName = m_opt.runDir.empty() ? "" : fs::path(m_opt.runDir).filename().string();
  mo.metricsPort = m_opt.metricsPort;
  mo.metricsAddress = m_opt.metricsAddress;
  auto monitor = telemetry::RunMonitor::create(mo);
  if (!monitor) {
    m_result.message = monitor.errorText();
    return false;
  }
  m_monitor = std::move(monitor.value());
  if (m_monitor->server())
    std::fprintf(stderr, "stave launcher: metrics on %s\n", m_monitor->server()->url().c_str());
  for (int k = 0; k < m_opt.nproc; ++k) {
    RankProc r;
    r.local = k;
    r.global = m_opt.nodeRank * m_opt.nproc + k;
    r.logPath = (fs::path(logDir) / ("rank" + std::to_string(r.global) + ".log")).string();
    m_ranks.push_back(std::move(r));
  }
  return true;
}

bool Supervisor::spawn(RankProc& r, const std::vector<std::string>& baseEnv) {
  std::vector<std::string> envStrings = baseEnv;
  const int world = m_opt.nproc * m_opt.nnodes;
  const std::map<std::string, std::string> rankVars = {
      {"RANK", std::to_string(r.global)},
      {"LOCAL_RANK", std::to_string(r.local)},
      {"WORLD_SIZE", std::to_string(world)},
      {"LOCAL_WORLD_SIZE", std::to_string(m_opt.nproc)},
      {"GROUP_RANK", std::to_string(m_opt.nodeRank)},
      {"MASTER_ADDR", m_opt.masterAddr},
      {"MASTER_PORT", std::to_string(m_result.masterPort)},
  };
  for (const auto& kv : rankVars) envStrings.push_back(kv.first + "=" + kv.second);

  // Everything exec needs is built before fork: the child only calls async-signal-safe code.
  std::vector<char*> argv, envp;
  for (const auto& a : m_opt.workerArgv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : envStrings) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0) return false;
  UniqueFd outRead(ends[0]), outWrite(ends[1]);
  UniqueFd logFd(open(r.logPath.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (!logFd.valid()) return false;
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    setpgid(0, 0);  // its own group: a terminal's Ctrl-C reaches only the launcher
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive a launcher that was killed
    if (getppid() != parent) _exit(126);
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    dup2(outWrite.get(), 1);
    dup2(logFd.get(), 2);
    execvpe(argv[0], argv.data(), envp.data());
    const char* msg = "stave launcher: cannot execute worker: ";
    [[maybe_unused]] ssize_t n = write(2, msg, std::strlen(msg));
    const char* err = std::strerror(errno);
    n = write(2, err, std::strlen(err));
    n = write(2, "\n", 1);
    _exit(127);
  }
  setpgid(pid, pid);  // also from the parent, so a signal right after fork finds the group
  fcntl(outRead.get(), F_SETFL, fcntl(outRead.get(), F_GETFL) | O_NONBLOCK);
  r.pid = pid;
  r.out = std::move(outRead);  // the write end and the log close here, in the parent
  r.alive = true;
  r.lastEvent = Clock::now();
  r.spawned = r.lastEvent;
  return true;
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
      event->data["message"].is_string())
    r.lastError = event->data["message"].get<std::string>();
  emit(telemetry::encodeEvent(event.value()));
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

void Supervisor::fail(RunOutcome outcome, int rank, const std::string& message,
                      std::optional<int> exitCode, std::optional<int> signal,
                      const nlohmann::json& extra) {
  if (m_failing) return;
  m_failing = true;
  m_outcome = outcome;  // the first failure is the run's outcome
  m_result.failedRank = rank;
  m_result.message = message;
  telemetry::ErrorEvent err;
  err.rank = rank;
  err.message = message;
  err.exitCode = exitCode;
  err.signal = signal;
  for (auto& r : m_ranks)
    if (r.global == rank) err.logTail = tailLines(r.logPath, m_opt.logTailLines);
  if (outcome == RunOutcome::TimedOut)
    err.hint =
        "a rank blocked in a collective usually waits for a peer that is stuck or gone; "
        "see the rank logs (NCCL_DEBUG=INFO helps on CUDA)";
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
  bool bad = false;
  const bool bySignal = WIFSIGNALED(r.status);
  if (WIFEXITED(r.status)) {
    ex.exitCode = WEXITSTATUS(r.status);
    how = "exit code " + std::to_string(*ex.exitCode);
    // 128 + SIGTERM/SIGINT after a stop request: a rank that ended at once as asked (it was
    // still waiting at the rendezvous, with nothing to checkpoint).
    const bool stoppedAtOnce = m_stopRequested && (*ex.exitCode == 128 + SIGTERM ||
                                                   *ex.exitCode == 128 + SIGINT);
    bad = *ex.exitCode != 0 && !stoppedAtOnce;
    ex.outcome = bad ? "failed" : (m_stopRequested ? "stopped" : "finished");
  } else if (bySignal) {
    ex.signal = WTERMSIG(r.status);
    how = "signal " + signalName(*ex.signal);
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
  if (!bad || m_failing || m_killedAll) return;
  const int code = ex.exitCode.value_or(-1);
  std::string message =
      "rank " + std::to_string(r.global) + " (pid " + std::to_string(r.pid) + ") ended with " + how;
  if (code == 127) message += " (the worker command could not be executed)";
  // The cause: the rank's own error event, else the last line it wrote to its log.
  std::string cause = r.lastError;
  if (cause.empty()) {
    for (const auto& line : tailLines(r.logPath, 5))
      if (line.find_first_not_of(" \t") != std::string::npos) cause = line;
  }
  if (!cause.empty()) message += ": " + cause;
  message += "; stopping the other ranks";
  fail(bySignal ? RunOutcome::Crashed : RunOutcome::Failed, r.global, message, ex.exitCode,
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
  // soon after; if both are seen in one pass, blame the one ended by a signal.
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
  for (auto& e : events) emitEvent(std::move(e));
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

std::vector<std::string> Supervisor::rankEnvironment() const {
  std::vector<std::string> baseEnv;
  static const char* kOwn[] = {"RANK=",       "LOCAL_RANK=",  "WORLD_SIZE=", "LOCAL_WORLD_SIZE=",
                               "GROUP_RANK=", "MASTER_ADDR=", "MASTER_PORT="};
  for (char** e = environ; e && *e; ++e) {
    std::string s(*e);
    bool own = false;
    for (const char* k : kOwn) own = own || s.rfind(k, 0) == 0;
    for (const auto& kv : m_opt.env) own = own || s.rfind(kv.first + "=", 0) == 0;
    if (!own) baseEnv.push_back(s);
  }
  for (const auto& kv : m_opt.env) baseEnv.push_back(kv.first + "=" + kv.second);
  // A rank's OpenMP workers share the node's cores with its loader threads and with the other
  // ranks: busy-waiting workers (libgomp's default) starve both, up to 20x slower steps on a
  // 2-core machine. Ranks wait passively unless the user chose a policy.
  if (!std::getenv("OMP_WAIT_POLICY") && m_opt.env.count("OMP_WAIT_POLICY") == 0)
    baseEnv.push_back("OMP_WAIT_POLICY=PASSIVE");
  if (m_opt.env.count("STAVE_RUN_TOKEN") == 0) {
    // Single node: a token unique to this launch. Several nodes must agree, so there the
    // caller passes one (or none).
    if (m_opt.nnodes == 1) {
      for (auto it = baseEnv.begin(); it != baseEnv.end();)
        it = it->rfind("STAVE_RUN_TOKEN=", 0) == 0 ? baseEnv.erase(it) : it + 1;
      baseEnv.push_back("STAVE_RUN_TOKEN=" + std::to_string(getpid()) + "-" +
                        std::to_string(static_cast<long long>(telemetry::unixTimeNow() * 1e6)) +
                        "-" + std::to_string(m_result.masterPort));
    }
  }
  return baseEnv;
}

void Supervisor::spawnAll(const std::vector<std::string>& env) {
  for (auto& r : m_ranks) {
    if (spawn(r, env)) continue;
    m_result.message = "cannot start rank " + std::to_string(r.global) + ": " + std::strerror(errno);
    telemetry::ErrorEvent err;
    err.rank = r.global;
    err.message = m_result.message;
    auto event = telemetry::toEvent(err, r.global);
    event.data["outcome"] = outcomeName(RunOutcome::FailedToStart);
    emitEvent(std::move(event));
    m_outcome = RunOutcome::FailedToStart;
    m_failing = true;
    signalAll(SIGKILL);
    return;
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
  poll(fds.data(), fds.size(), 100);
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
    warn("stop requested: asking every rank to finish its step and stop");
    signalAll(SIGTERM);
  }
  if (signals >= 2 && !m_killedAll) {
    m_killedAll = true;
    if (!m_outcome) {
      m_outcome = RunOutcome::Killed;
      m_result.message = "second stop request: killed every rank";
    }
    warn("second stop request: killing every rank");
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
    if (!r.runStarted && !r.startWarned && m_opt.nnodes > 1 && sinceSpawn > m_opt.startWarnS) {
      // Said once, for the first such rank: the usual cause is a node that has not come.
      r.startWarned = true;
      bool first = true;
      for (const auto& other : m_ranks) first = first && (&other == &r || !other.startWarned);
      if (first)
        warn("rank " + std::to_string(r.global) + " has not started training " +
             std::to_string(static_cast<int>(sinceSpawn)) +
             " s after it was launched: the ranks wait at the rendezvous (" + m_opt.masterAddr +
             ":" + std::to_string(m_result.masterPort) + ") until all " +
             std::to_string(m_opt.nnodes) +
             " nodes have joined; is every node's launcher started, with the same master_addr, "
             "master_port and nnodes? (Ctrl-C or SIGTERM stops this wait at once)");
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
        std::ostringstream msg;
        msg << "rank " << r.global << " (pid " << r.pid << ") has sent no event for "
            << static_cast<int>(silent) << " s; its step events came every "
            << std::setprecision(2) << interval << " s. "
            << (state == 'T' || state == 't'
                    ? "The process is stopped (SIGSTOP or a debugger): SIGCONT resumes it. "
                    : state == 'D' ? "The process waits in uninterruptible I/O (disk or network "
                                     "file system). "
                                   : "")
            << "The other ranks wait for it; the run is stopped after "
            << static_cast<int>(m_opt.hangTimeoutS) << " s of silence (nccl_timeout_s)";
        warn(msg.str());
      }
    }
    if (silent > m_opt.hangTimeoutS) {
      std::ostringstream msg;
      msg << "rank " << r.global << " sent no event for " << static_cast<int>(silent)
          << " s (limit " << m_opt.hangTimeoutS
          << " s): hung, e.g. blocked in a collective; stopping the run";
      fail(RunOutcome::TimedOut, r.global, msg.str(), std::nullopt, std::nullopt,
           {{"hung", true}, {"silent_s", silent}});
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
    err.message = m_result.message;
    auto event = telemetry::toEvent(err, -1);
    event.data["outcome"] = outcomeName(RunOutcome::TimedOut);
    emitEvent(std::move(event));
    m_killedAll = true;
    signalAll(SIGKILL);
  }
  if (m_failing && !m_killedAll && now > m_killDeadline) {
    m_killedAll = true;  // survivors stuck in a collective ignore SIGTERM's effects
    signalAll(SIGKILL);
  }
}

LaunchResult Supervisor::run() {
  if (!prepare()) {
    m_result.outcome = RunOutcome::FailedToStart;
    m_result.exitCode = 1;
    return m_result;
  }
  int wake[2];
  if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    m_result.message = std::string("pipe: ") + std::strerror(errno);
    return m_result;
  }
  m_wakeRead.reset(wake[0]);
  m_wakeWrite.reset(wake[1]);
  {
    const ScopedSignals signals(m_opt.handleSignals, m_wakeWrite.get());
    spawnAll(rankEnvironment());
    m_periodStart = Clock::now();
    startSampling();
    Clock::time_point stopDeadline = Clock::time_point::max();
    while (aliveCount() > 0) {
      pollOnce();
      handleStopSignals(stopDeadline);
      reap();
      const auto now = Clock::now();
      checkHangs(now);
      enforceDeadlines(now, stopDeadline);
      maybeReportStraggler();
      if (m_opt.doctor && m_monitor)
        for (auto& e : m_monitor->due()) emitEvent(std::move(e));
      maybeSample();
    }
    stopSampling();
    if (m_opt.doctor && m_monitor) emitEvent(m_monitor->finalReport());
    if (m_stopRequested && !m_failing && !m_sawFinished) {
      // Stopped before any rank got to training (e.g. waiting for a node that never came):
      // the run's record still says how it ended.
      telemetry::FinishedEvent fe;
      fe.status = telemetry::RunStatus::Stopped;
      fe.message = "stopped on request before training started (the ranks were still at the "
                   "rendezvous or setting up); nothing was trained";
      emitEvent(telemetry::toEvent(fe, 0));
    }
  }
  for (auto& r : m_ranks) r.out.reset();
  m_events.reset();

  decide(m_stopRequested ? RunOutcome::Stopped : RunOutcome::Finished);
  m_result.outcome = *m_outcome;
  m_result.exitCode =
      (*m_outcome == RunOutcome::Finished || *m_outcome == RunOutcome::Stopped) ? 0 : 1;
  return m_result;
}

}  // namespace

const char* outcomeName(RunOutcome outcome) {
  switch (outcome) {
    case RunOutcome::FailedToStart:
      return "failed_to_start";
    case RunOutcome::Finished:
      return "finished";
    case RunOutcome::Stopped:
      return "stopped";
    case RunOutcome::Failed:
      return "failed";
    case RunOutcome::Crashed:
      return "crashed";
    case RunOutcome::TimedOut:
      return "timed_out";
    case RunOutcome::Killed:
      return "killed";
  }
  return "unknown";
}

std::string signalName(int sig) {
  switch (sig) {
    case SIGHUP:
      return "SIGHUP";
    case SIGINT:
      return "SIGINT";
    case SIGQUIT:
      return "SIGQUIT";
    case SIGILL:
      return "SIGILL";
    case SIGTRAP:
      return "SIGTRAP";
    case SIGABRT:
      return "SIGABRT";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGKILL:
      return "SIGKILL";
    case SIGUSR1:
      return "SIGUSR1";
    case SIGSEGV:
      return "SIGSEGV";
    case SIGUSR2:
      return "SIGUSR2";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGALRM:
      return "SIGALRM";
    case SIGTERM:
      return "SIGTERM";
    case SIGXCPU:
      return "SIGXCPU";
    case SIGXFSZ:
      return "SIGXFSZ";
    default:
      return "signal " + std::to_string(sig);
  }
}

Result<int> findFreePort(const std::string& host) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Error{"", 0, "master_port", std::string("socket: ") + std::strerror(errno)};
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1)
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    const std::string err = std::strerror(errno);
    close(fd);
    return Error{"", 0, "master_port", "cannot bind a free port on " + host + ": " + err};
  }
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return static_cast<int>(ntohs(addr.sin_port));
}

LaunchResult launch(const LaunchOptions& options) {
  Supervisor s(options);
  return s.run();
}

int runLauncher(const LaunchOptions& options) {
  const LaunchResult r = launch(options);
  if (r.exitCode != 0 && !r.message.empty())
    std::fprintf(stderr, "stave launcher: %s: %s\n", outcomeName(r.outcome), r.message.c_str());
  return r.exitCode;
}

}  // namespace stave::dist
