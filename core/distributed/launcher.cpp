#include "core/distributed/launcher.h"
#include "core/distributed/launcher_supervisor.h"
#include "core/distributed/dist_env.h"
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

#include "core/telemetry/events.h"
#include "core/telemetry/straggler.h"

extern char** environ;

namespace stave::dist {
namespace detail {

volatile sig_atomic_t g_signalCount = 0;
volatile sig_atomic_t g_wakeFd = -1;

}  // namespace detail

namespace {

using namespace detail;
namespace fs = std::filesystem;

void onSignal(int) {
  g_signalCount = g_signalCount + 1;
  if (g_wakeFd >= 0) {
    const char c = 's';
    [[maybe_unused]] ssize_t n = write(g_wakeFd, &c, 1);
  }
}

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

}  // namespace

namespace detail {


void Supervisor::emit(const std::string& line, const telemetry::Event& event) {
  if (m_opt.echoStdout) {
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
  }
  if (m_events.isOpen()) m_events.writeLine(line, -1);
  if (m_tb) m_tb->writeEvent(event);
  if (m_opt.onEvent) m_opt.onEvent(line);
}

// Every event the launcher writes goes through here (and is marked as the launcher's).
std::string Supervisor::emitEvent(telemetry::Event event) {
  if (!event.data.is_object()) event.data = nlohmann::json::object();
  event.data["source"] = "launcher";
  if (m_monitor) m_monitor->observe(event);
  std::string line = telemetry::encodeEvent(event);
  emit(line, event);
  return line;
}


void Supervisor::warn(const std::string& message) {
  emitEvent(telemetry::toEvent(telemetry::WarningEvent{message, "dist"}, -1));
}

void Supervisor::warn(Text text) {
  telemetry::WarningEvent w{english(text), "dist"};
  w.text = {std::move(text)};
  emitEvent(telemetry::toEvent(w, -1));
}


void Supervisor::writeLog(RankProc& r, const std::string& text) {
  std::ofstream log(r.logPath, std::ios::app);
  log << text << '\n';
}


bool Supervisor::startFailed(const std::vector<Error>& errors) {
  m_result.message = joinErrors(errors);
  m_result.text = textOfErrors(errors);
  return false;
}

void Supervisor::recordStartFailure() {
  if (m_opt.runDir.empty() || m_result.message.empty()) return;
  if (!m_events.isOpen()) {
    const std::string eventsPath = m_opt.eventsFile.empty()
                                       ? (fs::path(m_opt.runDir) / "events.jsonl").string()
                                       : m_opt.eventsFile;
    // Only into a run folder that is there (the train command made it): a launch that fails
    // leaves no folder behind that it did not find.
    std::error_code ec;
    if (!fs::is_directory(m_opt.runDir, ec) || !m_events.open(eventsPath)) return;  // stderr has it
  }
  telemetry::ErrorEvent err;
  err.rank = -1;
  err.message = m_result.message;
  err.text = m_result.text;
  auto event = telemetry::toEvent(err, -1);
  event.data["outcome"] = outcomeName(RunOutcome::FailedToStart);
  emitEvent(std::move(event));
  telemetry::FinishedEvent fe;
  fe.status = telemetry::RunStatus::Failed;
  fe.message = m_result.message;
  fe.text = m_result.text;
  emitEvent(telemetry::toEvent(fe, 0));
  m_events.close();
}

bool Supervisor::prepare() {
  if (m_opt.workerArgv.empty()) {
    m_result.message = "no worker command given";
    return false;
  }
  if (m_opt.nproc < 1 || m_opt.nnodes < 1 || m_opt.nodeRank < 0 || m_opt.nodeRank >= m_opt.nnodes)
    return startFailed(Text("launcher.bad_topology"));
  m_result.masterPort = m_opt.masterPort;
  if (m_result.masterPort == 0) {
    if (m_opt.nnodes > 1) return startFailed({textError("", 0, "master_port", Text("launcher.port_zero_nodes"))});
    auto port = findFreePort(m_opt.masterAddr);
    if (!port) return startFailed(port.errors());
    m_result.masterPort = port.value();
  }
  if (!openRelay()) return false;
  // Several nodes: the straggler detector names the slow rank's node.
  if (m_opt.nnodes > 1) {
    telemetry::StragglerOptions so;
    so.ranksPerNode = m_opt.nproc;
    m_straggler = telemetry::StragglerDetector(so);
  }
  std::string logDir;
  if (!m_opt.runDir.empty()) {
    std::error_code ec;
    logDir = (fs::path(m_opt.runDir) / "logs").string();
    fs::create_directories(logDir, ec);
    if (ec) return startFailed(Text("launcher.cannot_create", {{"path", logDir}, {"reason", ec.message()}}));
    const std::string eventsPath = m_opt.eventsFile.empty()
                                       ? (fs::path(m_opt.runDir) / "events.jsonl").string()
                                       : m_opt.eventsFile;
    if (auto opened = m_events.open(eventsPath); !opened) {
      m_result.message = opened.errorText();
      return false;
    }
    if (m_opt.tensorboard) {
      auto tb = telemetry::TensorBoardWriter::open((fs::path(m_opt.runDir) / "tb").string());
      if (!tb) return startFailed(tb.errors());
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
  if (m_opt.nnodes > 1) mo.node = std::to_string(m_opt.nodeRank);
  auto monitor = telemetry::RunMonitor::create(mo);
  if (!monitor) return startFailed(monitor.errors());
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


std::vector<std::string> Supervisor::rankEnvironment() const {
  std::vector<std::string> baseEnv;
  static const std::string kOwn[] = {"RANK=",        "LOCAL_RANK=",  "WORLD_SIZE=",
                                     "LOCAL_WORLD_SIZE=", "GROUP_RANK=", "MASTER_ADDR=",
                                     "MASTER_PORT=", std::string(kLauncherVariable) + "="};
  for (char** e = environ; e && *e; ++e) {
    std::string s(*e);
    bool own = false;
    for (const auto& k : kOwn) own = own || s.rfind(k, 0) == 0;
    for (const auto& kv : m_opt.env) own = own || s.rfind(kv.first + "=", 0) == 0;
    if (!own) baseEnv.push_back(s);
  }
  for (const auto& kv : m_opt.env) baseEnv.push_back(kv.first + "=" + kv.second);
  baseEnv.push_back(std::string(kLauncherVariable) + "=1");  // the launcher keeps events.jsonl
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
    telemetry::ErrorEvent err;
    err.text = {Text("launcher.cannot_start_rank",
                     {{"rank", std::to_string(r.global)}, {"reason", std::strerror(errno)}})};
    m_result.message = english(err.text);
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


LaunchResult Supervisor::run() {
  if (!prepare()) {
    recordStartFailure();
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
    finishRelay();
    if (m_opt.doctor && m_monitor) emitEvent(m_monitor->finalReport());
    if (m_stopRequested && !m_failing && !m_sawFinished) {
      // Stopped before any rank got to training (e.g. waiting for a node that never came):
      // the run's record still says how it ended.
      telemetry::FinishedEvent fe;
      fe.status = telemetry::RunStatus::Stopped;
      fe.text = {Text("launcher.stopped_before_start")};
      fe.message = english(fe.text);
      emitEvent(telemetry::toEvent(fe, 0));
    }
  }
  for (auto& r : m_ranks) r.out.reset();
  m_events.close();

  decide(m_stopRequested ? RunOutcome::Stopped : RunOutcome::Finished);
  m_result.outcome = *m_outcome;
  m_result.exitCode =
      (*m_outcome == RunOutcome::Finished || *m_outcome == RunOutcome::Stopped) ? 0 : 1;
  return m_result;
}

}  // namespace detail


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
    return textError("", 0, "master_port", Text("launcher.no_free_port", {{"host", host}, {"reason", err}}));
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
