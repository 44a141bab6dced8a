#include "core/cluster/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>

#include "core/base/signal_name.h"

extern char** environ;

namespace stave::cluster {
namespace {

constexpr size_t kMaxErrBytes = 64 * 1024;

using Clock = std::chrono::steady_clock;

void closeFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

/// This process's environment with `extra` (KEY=VALUE) set over it.
std::vector<std::string> mergedEnv(const std::vector<std::string>& extra) {
  std::map<std::string, std::string> vars;
  std::vector<std::string> order;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv = *e;
    const auto eq = kv.find('=');
    const std::string key = kv.substr(0, eq);
    if (!vars.count(key)) order.push_back(key);
    vars[key] = kv;
  }
  for (const auto& kv : extra) {
    const std::string key = kv.substr(0, kv.find('='));
    if (!vars.count(key)) order.push_back(key);
    vars[key] = kv;
  }
  std::vector<std::string> out;
  for (const auto& k : order) out.push_back(vars[k]);
  return out;
}

}  // namespace

ProcessResult runProcess(const std::vector<std::string>& argv, const ProcessOptions& o) {
  ProcessResult r;
  if (argv.empty()) {
    r.err = "no program given";
    return r;
  }
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    r.err = std::string("cannot make a pipe: ") + std::strerror(errno);
    for (int* p : {in, out, err}) closeFd(p[0]), closeFd(p[1]);
    return r;
  }
  int fileFd = -1;
  if (!o.outFile.empty()) {
    fileFd = ::open(o.outFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fileFd < 0) {
      r.err = o.outFile + ": cannot be written (" + std::strerror(errno) + ")";
      for (int* p : {in, out, err}) closeFd(p[0]), closeFd(p[1]);
      return r;
    }
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // A signal ignored or blocked here (a GUI's SIGPIPE) must not stay so in the command.
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::vector<std::string> env = mergedEnv(o.env);
  std::vector<char*> envp;
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, args[0], &fa, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  closeFd(in[0]);
  closeFd(out[1]);
  closeFd(err[1]);
  if (rc != 0) {
    r.err = argv[0] + ": cannot be started (" + std::strerror(rc) + ")";
    closeFd(in[1]), closeFd(out[0]), closeFd(err[0]), closeFd(fileFd);
    return r;
  }
  for (int fd : {in[1], out[0], err[0]}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  size_t written = 0;
  if (o.input.empty()) closeFd(in[1]);
  const auto start = Clock::now();
  Clock::time_point termSent{};
  bool ourSignal = false, timedOut = false, stopped = false, exited = false;
  int status = 0;
  auto msSince = [](Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
  };
  auto end = [&](bool* why) {
    if (ourSignal) return;
    *why = true;
    ourSignal = true;
    ::kill(pid, SIGTERM);
    termSent = Clock::now();
  };
  Clock::time_point exitedAt{};
  char buf[65536];
  while (out[0] >= 0 || err[0] >= 0 || !exited) {
    if (!exited) {
      const pid_t w = ::waitpid(pid, &status, WNOHANG);
      if (w == pid) {
        exited = true;
        exitedAt = Clock::now();
        closeFd(in[1]);
      }
    }
    // Once it has exited, what is left in the pipes is read for a moment only: a process it
    // left behind (ssh's connection master) may hold them open for long.
    if (exited && msSince(exitedAt) > 500) break;
    if (!ourSignal && !exited) {
      if (o.timeoutMs > 0 && msSince(start) > o.timeoutMs) end(&timedOut);
      if (o.stop && o.stop->load()) end(&stopped);
    }
    if (ourSignal && !exited && msSince(termSent) > o.graceMs) ::kill(pid, SIGKILL);
    pollfd fds[3];
    int n = 0;
    if (out[0] >= 0) fds[n++] = {out[0], POLLIN, 0};
    if (err[0] >= 0) fds[n++] = {err[0], POLLIN, 0};
    if (in[1] >= 0) fds[n++] = {in[1], POLLOUT, 0};
    ::poll(fds, n, 50);
    for (int i = 0; i < n; ++i) {
      if (!fds[i].revents) continue;
      const int fd = fds[i].fd;
      if (fd == in[1]) {
        const ssize_t k = ::write(fd, o.input.data() + written, o.input.size() - written);
        if (k > 0) written += static_cast<size_t>(k);
        if ((k < 0 && errno != EAGAIN) || written == o.input.size()) closeFd(in[1]);
        continue;
      }
      const ssize_t k = ::read(fd, buf, sizeof buf);
      if (k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR)) {
        closeFd(fd == out[0] ? out[0] : err[0]);
        continue;
      }
      if (k < 0) continue;
      if (fd == err[0]) {
        r.err.append(buf, static_cast<size_t>(k));
        if (r.err.size() > kMaxErrBytes) r.err.erase(0, r.err.size() - kMaxErrBytes);
      } else if (fileFd >= 0) {
        for (ssize_t done = 0; done < k;) {
          const ssize_t w = ::write(fileFd, buf + done, static_cast<size_t>(k - done));
          if (w <= 0) break;
          done += w;
        }
      } else {
        r.out.append(buf, static_cast<size_t>(k));
        if (r.out.size() > o.maxOutBytes && !ourSignal) {
          r.outTruncated = true;
          end(&timedOut);
        }
      }
    }
  }
  closeFd(in[1]), closeFd(out[0]), closeFd(err[0]);
  if (fileFd >= 0) {
    ::fsync(fileFd);
    closeFd(fileFd);
  }
  if (!exited) ::waitpid(pid, &status, 0);
  if (WIFEXITED(status)) {
    r.end = ProcessEnd::Finished;
    r.exitCode = WEXITSTATUS(status);
  } else {
    r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    r.end = ProcessEnd::Crashed;
  }
  if (timedOut) r.end = ProcessEnd::TimedOut;
  if (stopped) r.end = ProcessEnd::Stopped;
  if (r.end != ProcessEnd::Finished) r.exitCode = -1;
  return r;
}

std::string describeEnd(const ProcessResult& r) {
  return english(describeEndText(r));
}

Text describeEndText(const ProcessResult& r) {
  switch (r.end) {
    case ProcessEnd::FailedToStart:
      return Text("process.not_started", {{"reason", r.err}});
    case ProcessEnd::Finished:
      return Text("process.exit", {{"code", std::to_string(r.exitCode)}});
    case ProcessEnd::Crashed:
      return Text("process.killed", {{"signal", signalName(r.signal)}});
    case ProcessEnd::TimedOut:
      return Text(r.outTruncated ? "process.too_much_output" : "process.timed_out");
    case ProcessEnd::Stopped:
      return Text("process.stopped");
  }
  return Text("plain", {{"text", ""}});
}

}  // namespace stave::cluster
