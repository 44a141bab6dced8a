// stave-bench-cluster-follow: what following a run on a cluster behind SSH costs (issue 45 §3).
// It starts an OpenSSH server of its own on 127.0.0.1 (its own host key, authorized key, port
// and client config; a login node whose "Slurm" is a squeue that says RUNNING), writes a long
// run's events.jsonl into the "remote" run folder (long_run.h: 8 ranks at the engine's rates),
// and runs the real `stave-train cluster follow RUN --quiet` on it. Then:
//   catch-up  the time until the mirror holds the run as it was when the follow started;
//   live      the run goes on appending in real time; each growth of the remote log is timed
//             until the mirror holds it (lag: median, p95, max), next to the poll period;
//   idle      nothing is appended: the follower's CPU (its process, the ssh clients it ran and
//             the ControlMaster it shares), as % of one core, next to a bare `ssh true` through
//             the same master once per poll period (the least a poll can cost);
// and throughout, the TCP connections to the server (goal: one) and the ControlMaster sockets.
// --squeue-delay S makes the cluster's squeue answer S seconds late: the lag must not move.
// Prints JSON. Needs /usr/sbin/sshd and ssh-keygen; runs as any user (sshd on a high port).
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/cluster/process.h"
#include "core/cluster/profile.h"
#include "core/cluster/remote_job.h"
#include "long_run.h"

namespace fs = std::filesystem;
namespace cl = stave::cluster;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

int64_t sizeOf(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : 0;
}

bool writeText(const std::string& path, const std::string& text, mode_t mode = 0644) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  return out && ::chmod(path.c_str(), mode) == 0;
}

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Starts `argv` with `env` added; its stdout and stderr go to `log`. The pid, or -1.
pid_t spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env, const std::string& log) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd >= 0) {
    ::dup2(fd, 1);
    ::dup2(fd, 2);
  }
  for (const auto& kv : env) ::putenv(const_cast<char*>(kv.c_str()));
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ::execvp(args[0], args.data());
  std::_Exit(127);
}

/// utime + stime (+ cutime + cstime: the children it waited for) of `pid`, in seconds; -1 when gone.
double cpuSeconds(pid_t pid, bool withChildren) {
  const std::string stat = readText("/proc/" + std::to_string(pid) + "/stat");
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream in(stat.substr(close + 2));
  std::vector<std::string> f;
  for (std::string w; in >> w;) f.push_back(w);
  // After the name: state(3) ... utime(14) stime(15) cutime(16) cstime(17) → indices from 3.
  if (f.size() < 15) return -1;
  const double tick = static_cast<double>(::sysconf(_SC_CLK_TCK));
  double t = std::stod(f[11]) + std::stod(f[12]);
  if (withChildren) t += std::stod(f[13]) + std::stod(f[14]);
  return t / tick;
}

/// TCP connections established to 127.0.0.1:`port` (the client ends, from /proc/net/tcp).
int connectionsTo(int port) {
  std::ifstream in("/proc/net/tcp");
  std::string line;
  std::getline(in, line);
  int n = 0;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string sl, local, remote, st;
    s >> sl >> local >> remote >> st;
    const auto colon = remote.find(':');
    if (colon == std::string::npos || st != "01") continue;
    if (std::stoi(remote.substr(colon + 1), nullptr, 16) == port) ++n;
  }
  return n;
}

int sockets(const std::string& dir) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_socket(ec)) ++n;
  return n;
}

/// A free TCP port on 127.0.0.1 (bound, read back, released).
int freePort() {
  for (int tries = 0; tries < 50; ++tries) {
    const int port = 20000 + static_cast<int>((::getpid() * 7 + tries * 131) % 30000);
    if (connectionsTo(port) == 0 && !cl::runProcess({"bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(port)}).ok())
      return port;
  }
  return 0;
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  const size_t k = std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5));
  return v[k];
}

int usage() {
  std::fprintf(stderr,
               "usage: stave-bench-cluster-follow --stave-train EXE [--dir D] [--hours H] [--live-seconds S]\n"
               "                                  [--idle-seconds S] [--period S] [--squeue-delay S]\n"
               "  Follows a generated H-hour run (default 1) over a local OpenSSH server with `stave-train\n"
               "  cluster follow`, appends live for S s (default 60), idles S s (default 30); prints JSON.\n"
               "  --squeue-delay: the cluster's squeue answers S s late (a busy controller).\n");
  return 2;
}

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "stave-bench-cluster-follow: %s\n", why.c_str());
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  std::string exe, dir;
  double hours = 1, liveS = 60, idleS = 30, period = 1.0, squeueDelay = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return usage();
    const std::string v = argv[++i];
    if (a == "--stave-train") exe = v;
    else if (a == "--dir") dir = v;
    else if (a == "--hours") hours = std::atof(v.c_str());
    else if (a == "--live-seconds") liveS = std::atof(v.c_str());
    else if (a == "--idle-seconds") idleS = std::atof(v.c_str());
    else if (a == "--period") period = std::atof(v.c_str());
    else if (a == "--squeue-delay") squeueDelay = std::atof(v.c_str());
    else return usage();
  }
  if (exe.empty() || hours <= 0 || liveS <= 0 || idleS <= 0 || period <= 0) return usage();
  if (::access("/usr/sbin/sshd", X_OK) != 0) fail("/usr/sbin/sshd is not installed (openssh-server)");
  if (dir.empty()) dir = (fs::temp_directory_path() / ("stave-bench-follow-" + std::to_string(::getpid()))).string();
  fs::remove_all(dir);
  fs::create_directories(dir + "/ssh");
  fs::create_directories(dir + "/bin");
  fs::create_directories(dir + "/xdg");
  ::chmod((dir + "/xdg").c_str(), 0700);
  const std::string ssh = dir + "/ssh";
  const std::string user = ::getpwuid(::getuid())->pw_name;

  // The server: keys, config, started on a free port.
  for (const char* key : {"host_key", "client_key"})
    if (!cl::runProcess({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", key, "-f", ssh + "/" + key}).ok())
      fail("ssh-keygen failed");
  fs::copy_file(ssh + "/client_key.pub", ssh + "/authorized_keys");
  const int port = freePort();
  if (port == 0) fail("no free port");
  writeText(ssh + "/sshd_config", "Port " + std::to_string(port) + "\nListenAddress 127.0.0.1\nHostKey " + ssh +
                                      "/host_key\nPidFile " + ssh + "/sshd.pid\nAuthorizedKeysFile " + ssh +
                                      "/authorized_keys\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
                                      "PubkeyAuthentication yes\nPermitRootLogin prohibit-password\nStrictModes no\nUsePAM no\n");
  if (::geteuid() == 0) fs::create_directories("/run/sshd");
  const pid_t sshd = spawn({"/usr/sbin/sshd", "-D", "-e", "-f", ssh + "/sshd_config"}, {}, ssh + "/sshd.log");
  std::string hostKey = readText(ssh + "/host_key.pub");
  hostKey = hostKey.substr(0, hostKey.find(' ', hostKey.find(' ') + 1));
  writeText(ssh + "/known_hosts", "[127.0.0.1]:" + std::to_string(port) + " " + hostKey + "\n");
  writeText(ssh + "/config", "Host benchlogin\n  HostName 127.0.0.1\n  Port " + std::to_string(port) + "\n  User " + user +
                                 "\n  IdentityFile " + ssh + "/client_key\n  IdentitiesOnly yes\n  IdentityAgent none\n"
                                 "  UserKnownHostsFile " + ssh + "/known_hosts\n  GlobalKnownHostsFile /dev/null\n"
                                 "  StrictHostKeyChecking yes\n");
  bool up = false;
  for (int k = 0; k < 100 && !up; ++k) {
    up = cl::runProcess({"bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(port)}).ok();
    if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!up) fail("sshd did not start: " + readText(ssh + "/sshd.log"));

  // The cluster's side: Slurm says RUNNING; the run folder holds an H-hour run, unfinished.
  // --squeue-delay: a busy controller or a slow link (squeue answers that much later).
  writeText(dir + "/bin/squeue", "#!/bin/sh\nsleep " + std::to_string(squeueDelay) + "\necho 'RUNNING|None'\n", 0755);
  const std::string remote = dir + "/scratch/bench/run-1", local = dir + "/project/runs/run-1";
  fs::create_directories(remote);
  fs::create_directories(local);
  stave::bench::LongRunOptions lr;
  lr.hours = hours;
  lr.plannedHours = hours + 24;  // still running when the live part appends
  lr.finished = false;
  stave::bench::LongRunStats stats;
  std::string error;
  if (!stave::bench::writeLongRun(lr, remote + "/events.jsonl", &stats, &error)) fail(error);
  writeText(remote + "/config.yaml", "epochs: 100\n");
  cl::Profile p;
  p.name = "bench";
  p.destination = "benchlogin";
  p.sshConfig = ssh + "/config";
  p.runFolder = dir + "/scratch";
  p.commandsFolder = dir + "/bin";
  p.datasetOnCluster = "/data/data.yaml";
  if (auto st = cl::saveProfiles(dir + "/clusters.json", {p}); !st) fail(st.errorText());
  cl::RunRecord rec;
  rec.profile = "bench";
  rec.jobId = "4242";
  rec.jobIds = {"4242"};
  rec.remoteDir = remote;
  rec.jobName = "bench.run-1";
  rec.overSsh = true;
  if (auto st = cl::writeRunRecord(local, rec); !st) fail(st.errorText());

  // What is watched throughout: connections to the server, master sockets.
  std::atomic<bool> watching{true};
  std::atomic<int> maxConnections{0}, maxSockets{0};
  const std::string controlDir = dir + "/xdg/stave-ssh";
  std::thread watcher([&] {
    while (watching) {
      maxConnections = std::max(maxConnections.load(), connectionsTo(port));
      maxSockets = std::max(maxSockets.load(), sockets(controlDir));
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });

  // The follower: stave-train itself.
  const auto started = Clock::now();
  const pid_t follower =
      spawn({exe, "cluster", "follow", local, "--quiet", "--period", std::to_string(period), "--profiles", dir + "/clusters.json"},
            {"XDG_RUNTIME_DIR=" + dir + "/xdg"}, dir + "/follow.log");
  const int64_t initial = sizeOf(remote + "/events.jsonl");
  double catchUpS = -1;
  while (secondsSince(started) < 600) {
    if (sizeOf(local + "/events.jsonl") >= initial) {
      catchUpS = secondsSince(started);
      break;
    }
    int status = 0;
    if (::waitpid(follower, &status, WNOHANG) == follower) fail("the follower ended: " + readText(dir + "/follow.log"));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (catchUpS < 0) fail("the mirror did not catch up in 600 s: " + readText(dir + "/follow.log"));

  // Live: appended in real time; every growth of the remote log is timed until mirrored.
  std::atomic<bool> appending{true};
  const auto liveStart = Clock::now();
  std::thread appender([&] {
    stave::bench::appendLive(lr, remote + "/events.jsonl", stats.endTime, [&] { return secondsSince(liveStart) < liveS; });
    appending = false;
  });
  struct Growth {
    int64_t size;
    Clock::time_point at;
  };
  std::vector<Growth> pending;
  std::vector<double> lags;
  int64_t lastRemote = sizeOf(remote + "/events.jsonl");
  while (appending || !pending.empty()) {
    const int64_t r = sizeOf(remote + "/events.jsonl");
    if (r > lastRemote) pending.push_back({r, Clock::now()}), lastRemote = r;
    const int64_t m = sizeOf(local + "/events.jsonl");
    while (!pending.empty() && m >= pending.front().size) {
      lags.push_back(secondsSince(pending.front().at));
      pending.erase(pending.begin());
    }
    if (!appending && !pending.empty() && secondsSince(pending.front().at) > 120) fail("the mirror stopped following");
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  appender.join();

  // Idle: nothing new. The follower's CPU and its master's, then a bare round trip per period.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  const cl::ProcessResult check = cl::runProcess(
      {"ssh", "-F", ssh + "/config", "-o", "ControlPath=" + controlDir + "/%C", "-O", "check", "benchlogin"});
  pid_t master = 0;
  if (const auto at = check.err.find("pid="); at != std::string::npos) master = std::atoi(check.err.c_str() + at + 4);
  const double f0 = cpuSeconds(follower, true), m0 = master > 0 ? cpuSeconds(master, false) : 0;
  const auto idleStart = Clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(idleS));
  const double idleWall = secondsSince(idleStart);
  const double f1 = cpuSeconds(follower, true), m1 = master > 0 ? cpuSeconds(master, false) : 0;
  // The follower's ssh clients still running are not in cutime yet: at most one poll's worth.
  const double followerPct = 100.0 * (f1 - f0) / idleWall, masterPct = 100.0 * (m1 - m0) / idleWall;

  rusage before{}, after{};
  ::getrusage(RUSAGE_CHILDREN, &before);
  const auto refStart = Clock::now();
  int roundTrips = 0;
  while (secondsSince(refStart) < idleS) {
    const auto t = Clock::now();
    cl::runProcess({"ssh", "-F", ssh + "/config", "-o", "BatchMode=yes", "-o", "ControlPath=" + controlDir + "/%C", "benchlogin",
                    "--", "true"});
    ++roundTrips;
    const double rest = period - secondsSince(t);
    if (rest > 0) std::this_thread::sleep_for(std::chrono::duration<double>(rest));
  }
  const double refWall = secondsSince(refStart);
  ::getrusage(RUSAGE_CHILDREN, &after);
  const auto tv = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  const double refChildren = tv(after.ru_utime) + tv(after.ru_stime) - tv(before.ru_utime) - tv(before.ru_stime);
  // The master served the follower too meanwhile: its share is left out of the reference.
  const double refPct = 100.0 * refChildren / refWall;

  watching = false;
  watcher.join();
  ::kill(follower, SIGINT);
  int status = 0;
  ::waitpid(follower, &status, 0);
  const bool equal = readText(local + "/events.jsonl") == readText(remote + "/events.jsonl");
  cl::runProcess({"ssh", "-F", ssh + "/config", "-o", "ControlPath=" + controlDir + "/%C", "-O", "exit", "benchlogin"});
  ::kill(sshd, SIGTERM);
  ::waitpid(sshd, &status, 0);

  const double p50 = percentile(lags, 0.5), p95 = percentile(lags, 0.95), mx = percentile(lags, 1.0);
  std::printf(
      "{\n  \"run\": {\"hours\": %g, \"ranks\": %d, \"bytes\": %lld, \"events\": %lld},\n"
      "  \"period_s\": %g, \"squeue_delay_s\": %g,\n"
      "  \"catch_up_s\": %.3f, \"catch_up_mb_per_s\": %.1f,\n"
      "  \"live_s\": %g, \"live_growths\": %zu,\n"
      "  \"lag_s\": {\"median\": %.3f, \"p95\": %.3f, \"max\": %.3f},\n"
      "  \"lag_p95_vs_period\": %.2f,\n"
      "  \"ssh_connections_max\": %d, \"control_sockets_max\": %d,\n"
      "  \"master_pid_found\": %s, \"idle_s\": %.1f, \"idle_cpu_pct\": {\"follower\": %.2f, \"master\": %.2f, \"total\": %.2f},\n"
      "  \"reference_bare_round_trip_per_period_cpu_pct\": %.2f, \"reference_round_trips\": %d,\n"
      "  \"idle_cpu_vs_reference\": %.2f,\n"
      "  \"mirror_equals_log\": %s,\n"
      "  \"targets_met\": {\"lag_p95_s<=2\": %s, \"lag_max_s<=2\": %s, \"ssh_connections<=1\": %s, \"idle_cpu_pct<=2\": %s}\n}\n",
      hours, lr.ranks, static_cast<long long>(stats.bytes), static_cast<long long>(stats.events), period, squeueDelay, catchUpS,
      static_cast<double>(initial) / 1e6 / catchUpS, liveS, lags.size(), p50, p95, mx, p95 / period, maxConnections.load(),
      maxSockets.load(), master > 0 ? "true" : "false", idleWall, followerPct, masterPct, followerPct + masterPct, refPct, roundTrips,
      refPct > 0 ? (followerPct + masterPct) / refPct : -1.0, equal ? "true" : "false", p95 <= 2 ? "true" : "false",
      mx <= 2 ? "true" : "false", maxConnections.load() <= 1 ? "true" : "false",
      followerPct + masterPct <= 2 ? "true" : "false");
  fs::remove_all(dir);
  return 0;
}
