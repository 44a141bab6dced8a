#include "core/cluster/ssh.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "core/cluster/remote_shell.h"

namespace stave::cluster {
namespace {

bool contains(const std::string& text, const char* what) { return text.find(what) != std::string::npos; }

/// OpenSSH's lines as they are, without carriage returns and the banner of '@'s: all of them
/// up to 16, else the first 10 and the last 4 (where it says what it did: "Host key
/// verification failed.").
std::string opensshLines(const std::string& err) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < err.size()) {
    size_t end = err.find('\n', start);
    if (end == std::string::npos) end = err.size();
    std::string clean;
    for (const char c : err.substr(start, end - start))
      if (c != '\r') clean += c;
    start = end + 1;
    if (!clean.empty() && clean.find_first_not_of('@') != std::string::npos) lines.push_back(clean);
  }
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines.size() > 16 && i == 10) {
      out += "\n  …";
      i = lines.size() - 4;
    }
    out += "\n  " + lines[i];
  }
  return out;
}

}  // namespace

std::string destinationProblem(const std::string& d) {
  const Text t = destinationProblemText(d);
  return t.id.empty() ? std::string() : english(t);
}

Text destinationProblemText(const std::string& d) {
  if (d.empty()) return Text("cluster.no_destination");
  if (d.front() == '-') return Text("cluster.destination_dash", {{"destination", d}});
  for (const unsigned char c : d)
    if (c <= ' ' || c == 0x7f) return Text("cluster.destination_space", {{"destination", d}});
  return {};
}

std::string defaultControlDir() {
  std::string dir;
  if (const char* run = std::getenv("XDG_RUNTIME_DIR"); run && *run && ::access(run, W_OK) == 0)
    dir = std::string(run) + "/stave-ssh";
  else
    dir = "/tmp/stave-ssh-" + std::to_string(::getuid());
  ::mkdir(dir.c_str(), 0700);
  return dir;
}

std::vector<std::string> sshArgv(const SshEndpoint& e, const std::string& remoteLine) {
  const std::string control = e.controlDir.empty() ? defaultControlDir() : e.controlDir;
  std::vector<std::string> a{"ssh",
                             "-o", "BatchMode=yes",
                             "-o", "ControlMaster=auto",
                             "-o", "ControlPath=" + control + "/%C",
                             "-o", "ControlPersist=" + std::to_string(e.persistS) + "s",
                             "-o", "ConnectTimeout=" + std::to_string(e.connectTimeoutS),
                             // A link that died without a word is noticed within 45 s.
                             "-o", "ServerAliveInterval=15",
                             "-o", "ServerAliveCountMax=3"};
  if (!e.configFile.empty()) a.insert(a.end(), {"-F", e.configFile});
  if (e.port > 0) a.insert(a.end(), {"-p", std::to_string(e.port)});
  a.push_back(e.destination);
  a.push_back("--");
  a.push_back(remoteLine);
  return a;
}

std::vector<std::string> sshExitArgv(const SshEndpoint& e) {
  const std::string control = e.controlDir.empty() ? defaultControlDir() : e.controlDir;
  std::vector<std::string> a{"ssh", "-o", "BatchMode=yes", "-o", "ControlPath=" + control + "/%C"};
  if (!e.configFile.empty()) a.insert(a.end(), {"-F", e.configFile});
  if (e.port > 0) a.insert(a.end(), {"-p", std::to_string(e.port)});
  a.insert(a.end(), {"-O", "exit", e.destination});
  return a;
}

SshFailure classifySsh(const ProcessResult& r) {
  if (r.end == ProcessEnd::FailedToStart) return SshFailure::NotStarted;
  const std::string& err = r.err;
  // OpenSSH says these before it gives up; a changed key is checked first (it also says
  // "Host key verification failed").
  if (contains(err, "REMOTE HOST IDENTIFICATION HAS CHANGED")) return SshFailure::HostKeyChanged;
  if (r.end != ProcessEnd::Finished || r.exitCode != 255) return SshFailure::None;
  if (contains(err, "Host key verification failed") || contains(err, "host key is known") ||
      contains(err, "No matching host key"))
    return SshFailure::HostKeyUnknown;
  if (contains(err, "Permission denied") || contains(err, "Too many authentication failures"))
    return SshFailure::AuthRefused;
  for (const char* word : {"Connection refused", "Connection timed out", "timed out", "No route to host",
                           "Network is unreachable", "Could not resolve", "Connection closed", "Connection reset",
                           "closed by remote host", "Broken pipe", "not responding", "kex_exchange_identification",
                           "Temporary failure", "Name or service not known"})
    if (contains(err, word)) return SshFailure::Unreachable;
  return SshFailure::Other;
}

std::string describeSshFailure(const SshEndpoint& e, SshFailure f, const ProcessResult& r) {
  const Text t = describeSshFailureText(e, f, r);
  return t.id.empty() ? std::string() : english(t);
}

Text describeSshFailureText(const SshEndpoint& e, SshFailure f, const ProcessResult& r) {
  const Text who =
      e.port > 0
          ? Text("ssh.who_port", {{"destination", e.destination}, {"port", std::to_string(e.port)}})
          : Text("ssh.who", {{"destination", e.destination}});
  const std::string said = opensshLines(r.err);
  switch (f) {
    case SshFailure::None: return {};
    case SshFailure::HostKeyChanged:
      return Text("ssh.host_key_changed", {{"who", who}, {"said", said}});
    case SshFailure::HostKeyUnknown:
      return Text("ssh.host_key_unknown",
                  {{"who", who}, {"destination", e.destination}, {"said", said}});
    case SshFailure::AuthRefused:
      return Text("ssh.auth_refused",
                  {{"who", who}, {"destination", e.destination}, {"said", said}});
    case SshFailure::Unreachable:
      return Text("ssh.unreachable", {{"who", who}, {"said", said}});
    case SshFailure::NotStarted:
      return Text("ssh.not_started", {{"who", who}, {"reason", r.err}});
    case SshFailure::Other:
      return Text("ssh.failed", {{"who", who}, {"how", describeEndText(r)}, {"said", said}});
  }
  return {};
}

RemoteResult runRemoteLine(const SshEndpoint& e, const std::string& line, const ProcessOptions& o) {
  RemoteResult rr;
  const auto say = [&rr](Text t) {
    rr.message = t.id.empty() ? std::string() : english(t);
    rr.text = t.id.empty() ? TextParts{} : TextParts{std::move(t)};
  };
  if (const Text why = destinationProblemText(e.destination); !why.id.empty()) {
    rr.failure = SshFailure::Other;
    say(Text("ssh.bad_destination", {{"problem", why}}));
    return rr;
  }
  rr.process = runProcess(sshArgv(e, line), o);
  rr.failure = classifySsh(rr.process);
  // ssh ended by us (time limit, stop) never said why: a time-out of the link itself.
  if (rr.failure == SshFailure::None && rr.process.end == ProcessEnd::TimedOut && rr.process.out.empty())
    say(Text("ssh.no_answer",
             {{"destination", e.destination}, {"seconds", std::to_string(o.timeoutMs / 1000)}}));
  else
    say(describeSshFailureText(e, rr.failure, rr.process));
  return rr;
}

RemoteResult runRemote(const SshEndpoint& e, const std::vector<std::string>& argv, const ProcessOptions& o) {
  auto line = shellCommand(argv);
  if (!line) {
    RemoteResult rr;
    rr.failure = SshFailure::Other;
    rr.message = line.errorText();
    return rr;
  }
  return runRemoteLine(e, line.value(), o);
}

void closeConnection(const SshEndpoint& e) {
  ProcessOptions o;
  o.timeoutMs = 10000;
  runProcess(sshExitArgv(e), o);
}

}  // namespace stave::cluster
