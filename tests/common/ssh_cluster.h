#pragma once
// A Slurm cluster behind a real OpenSSH server, as tests/e2e/tst_train_ssh.cpp makes it, for
// tests that drive it another way (the studio): a network namespace joined to this machine by a
// veth pair of its own addresses, the test's one-node Slurm inside it (tests/e2e/slurm_cluster.sh)
// and Debian's sshd there in front of it, with its own sshd_config, host key, authorized key
// (made with ssh-keygen) and port. The client side gets its own ssh config (Host "cluster"),
// known_hosts and key in DIR/ssh, so nothing of this machine's ~/.ssh is read or written. Needs
// root, /usr/sbin/sshd, the OpenSSH client, network namespaces and Slurm: skipReason() says what
// is missing, up() what failed. down() stops only what up() started (by pid).
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QMultiMap>
#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QThread>

#include <signal.h>
#include <unistd.h>

#include "common/slurm_cluster.h"

namespace stave::test {

/// The pids of every descendant of `pid` (from /proc), deepest last.
inline QList<qint64> processDescendants(qint64 pid) {
  QMultiMap<qint64, qint64> children;
  for (const auto& entry : QDir("/proc").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
    bool ok = false;
    const qint64 p = entry.toLongLong(&ok);
    if (!ok) continue;
    QFile f("/proc/" + entry + "/stat");
    const QString stat = f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
    const QStringList fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
    if (fields.size() > 1) children.insert(fields[1].toLongLong(), p);
  }
  QList<qint64> out, todo{pid};
  while (!todo.isEmpty()) {
    const qint64 p = todo.takeFirst();
    for (qint64 c : children.values(p)) {
      out << c;
      todo << c;
    }
  }
  return out;
}

class SshCluster {
 public:
  ~SshCluster() { down(); }

  /// Why no such cluster can be made here ("" when it can; a refused namespace shows in up()).
  static QString skipReason() {
    if (::geteuid() != 0)
      return "network namespaces and sshd need root; this machine runs the tests as a user";
    if (!QFileInfo("/usr/sbin/sshd").isExecutable())
      return "/usr/sbin/sshd is not installed (Debian's openssh-server; scripts/setup installs it)";
    if (QStandardPaths::findExecutable("ssh").isEmpty() ||
        QStandardPaths::findExecutable("ssh-keygen").isEmpty())
      return "the OpenSSH client (ssh, ssh-keygen) is not installed";
    return SlurmCluster::skipReason();
  }

  /// Brings it up in `dir` (cluster/ for Slurm, ssh/ for the keys and configs). False with why;
  /// `*refused` is set when the machine refuses network namespaces (a reason to skip, not a
  /// failure).
  bool up(const QString& dir, QString* error, bool* refused = nullptr) {
    m_dir = dir;
    const int tag = static_cast<int>(::getpid() % 200) + 20;
    m_ns = QString("stvgui%1").arg(::getpid());
    m_addr = QString("10.216.%1.2").arg(tag);
    const QString host = QString("10.216.%1.1").arg(tag);
    QString err;
    if (!ip({"netns", "add", m_ns}, &err)) {
      if (refused) *refused = true;
      *error = "this machine refuses network namespaces: " + err;
      return false;
    }
    m_made = true;
    const QString a = QString("svg%1a").arg(::getpid()), b = QString("svg%1b").arg(::getpid());
    const QList<QStringList> steps = {{"link", "add", a, "type", "veth", "peer", "name", b},
                                      {"addr", "add", host + "/24", "dev", a},
                                      {"link", "set", a, "up"},
                                      {"link", "set", b, "netns", m_ns},
                                      {"-n", m_ns, "addr", "add", m_addr + "/24", "dev", b},
                                      {"-n", m_ns, "link", "set", b, "up"},
                                      {"-n", m_ns, "link", "set", "lo", "up"}};
    for (const QStringList& step : steps) {
      if (!ip(step, &err)) {
        *error = "ip " + step.join(' ') + ": " + err;
        return false;
      }
      if (step.size() > 2 && step[1] == "add" && step[0] == "link") m_veth = a;
    }
    // The cluster: Slurm inside the namespace.
    m_cluster = dir + "/cluster";
    const int ctld = 31000 + static_cast<int>(::getpid() % 1000) * 2, slurmd = ctld + 1;
    const Ran slurm = runProgram(
        STAVE_SOURCE_DIR "/tests/e2e/slurm_cluster.sh",
        {"up", m_cluster, QString::number(ctld), QString::number(slurmd), m_ns + "=" + m_addr});
    m_slurmUp = true;
    if (slurm.code != 0) {
      *error = "the test Slurm did not come up: " + slurm.err +
               readAll(m_cluster + "/slurmctld.log").right(2000);
      return false;
    }
    // sshd's and the client's keys.
    m_ssh = dir + "/ssh";
    QDir().mkpath(m_ssh);
    for (const char* key : {"host_key", "client_key"})
      if (runProgram("ssh-keygen",
                     {"-q", "-t", "ed25519", "-N", "", "-C", key, "-f", m_ssh + "/" + key})
              .code != 0) {
        *error = "ssh-keygen failed";
        return false;
      }
    QFile::copy(m_ssh + "/client_key.pub", m_ssh + "/authorized_keys");
    m_port = 23000 + static_cast<int>(::getpid() % 1000);
    // The login node's sessions know the cluster (SLURM_CONF) and where the job's ranks meet,
    // as a site's profile would set them.
    writeAll(m_ssh + "/sshd_config",
             QString("Port %1\nListenAddress %2\nHostKey %3/host_key\nPidFile %3/sshd.pid\n"
                     "AuthorizedKeysFile %3/authorized_keys\nPasswordAuthentication no\n"
                     "KbdInteractiveAuthentication no\nPubkeyAuthentication yes\n"
                     "PermitRootLogin prohibit-password\nStrictModes no\nUsePAM no\n"
                     "SetEnv SLURM_CONF=%4/slurm.conf STAVE_MASTER_ADDR=%2\nLogLevel VERBOSE\n")
                 .arg(m_port)
                 .arg(m_addr, m_ssh, m_cluster)
                 .toUtf8());
    const QByteArray hostKey =
        readAll(m_ssh + "/host_key.pub").toUtf8().split(' ').mid(0, 2).join(' ');
    writeAll(m_ssh + "/known_hosts",
             QString("[%1]:%2 ").arg(m_addr).arg(m_port).toUtf8() + hostKey + "\n");
    writeAll(m_ssh + "/config",
             QString("Host cluster\n  HostName %1\n  Port %2\n  User root\n"
                     "  IdentityFile %3/client_key\n  IdentitiesOnly yes\n  IdentityAgent none\n"
                     "  UserKnownHostsFile %3/known_hosts\n  GlobalKnownHostsFile /dev/null\n"
                     "  StrictHostKeyChecking yes\n")
                 .arg(m_addr)
                 .arg(m_port)
                 .arg(m_ssh)
                 .toUtf8());
    QDir().mkpath("/run/sshd");  // sshd's privilege separation folder (Debian's service makes it)
    if (!startSshd()) {
      *error = "sshd did not start: " + readAll(m_ssh + "/sshd.log").right(2000);
      return false;
    }
    return true;
  }

  /// Stops sshd (with its connections), Slurm's jobs and daemons, and removes the namespace.
  void down() {
    if (!m_made) return;
    m_made = false;
    runProgram("ssh",
               {"-F", sshConfig(), "-o",
                "ControlPath=/tmp/stave-ssh-" + QString::number(::getuid()) + "/%C", "-O", "exit",
                "cluster"},
               {}, {}, 10000);
    stopSshd();
    if (m_slurmUp) {
      runProgram("nsenter",
                 {"--net=/var/run/netns/" + m_ns, "scancel", "--user=root", "--partition=stave"},
                 {"SLURM_CONF=" + m_cluster + "/slurm.conf"});
      runProgram(STAVE_SOURCE_DIR "/tests/e2e/slurm_cluster.sh", {"down", m_cluster});
    }
    ip({"netns", "del", m_ns});
    if (!m_veth.isEmpty()) ip({"link", "del", m_veth});
  }

  /// The client's ssh configuration (-F) and the destination it names.
  QString sshConfig() const { return m_ssh + "/config"; }
  static QString destination() { return "cluster"; }
  /// SLURM_CONF=... and the namespace, for a Slurm command run here (nsenter).
  QStringList slurmEnv() const { return {"SLURM_CONF=" + m_cluster + "/slurm.conf"}; }
  QString netns() const { return m_ns; }

  /// Starts sshd (again); true once it takes connections.
  bool startSshd() {
    m_sshd = new QProcess;
    m_sshd->setProcessChannelMode(QProcess::MergedChannels);
    m_sshd->setStandardOutputFile(m_ssh + "/sshd.log", QIODevice::Append);
    m_sshd->start("nsenter", {"--net=/var/run/netns/" + m_ns, "/usr/sbin/sshd", "-D", "-e", "-f",
                              m_ssh + "/sshd_config"});
    if (!m_sshd->waitForStarted(10000)) return false;
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 20000) {
      if (runProgram("bash", {"-c", QString("exec 3<>/dev/tcp/%1/%2").arg(m_addr).arg(m_port)}, {},
                     {}, 5000)
              .code == 0)
        return true;
      QThread::msleep(200);  // sshd binds its port: polled, with a deadline
    }
    return false;
  }

  /// Ends sshd and every connection it serves (the processes started here, by id).
  void stopSshd() {
    if (!m_sshd) return;
    const qint64 pid = m_sshd->processId();
    if (pid > 0) {
      const QList<qint64> kids = processDescendants(pid);
      ::kill(static_cast<pid_t>(pid), SIGTERM);
      for (qint64 k : kids) ::kill(static_cast<pid_t>(k), SIGKILL);
    }
    m_sshd->waitForFinished(10000);
    delete m_sshd;
    m_sshd = nullptr;
  }

 private:
  static bool ip(const QStringList& args, QString* err = nullptr) {
    const Ran r = runProgram("ip", args, {}, {}, 20000);
    if (err) *err = r.err.trimmed();
    return r.code == 0;
  }
  static QString readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
  }
  static void writeAll(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    if (f.open(QIODevice::WriteOnly | QIODevice::Truncate)) f.write(bytes);
  }
  QString m_dir, m_ns, m_addr, m_veth, m_cluster, m_ssh;
  int m_port = 0;
  bool m_made = false, m_slurmUp = false;
  QProcess* m_sshd = nullptr;
};

}  // namespace stave::test
