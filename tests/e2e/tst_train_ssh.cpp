// A Slurm cluster behind a real OpenSSH server: this test makes a network namespace (a veth
// pair of its own addresses), brings its one-node Slurm up inside it (tests/e2e/slurm_cluster.sh)
// and starts Debian's sshd there in front of it — its own sshd_config, host key, authorized key
// (made here with ssh-keygen) and port. The client side uses its own ssh config (-F), known_hosts
// and key, so nothing of this machine's ~/.ssh is read or written. Through `stave-train cluster`:
// submit (the remote run folder's name has spaces, quotes, '$' and ';'; the dataset reaches the
// job through the profile's path mapping), follow (events arrive in the local mirror), sshd
// killed mid-run with its connections and started again (the follower reconnects, and at the
// end the mirror equals the cluster's events.jsonl byte for byte), stop (scancel
// --signal=TERM: the run ends stopped), resume (the same remote folder, one more epoch), fetch
// best.pt (the same bytes). Faults: a changed host key (refused with OpenSSH's reason, nothing
// sent: no run folder appears), a refused key (a clear message, promptly), a network cut of 2
// minutes (the namespace's link down while the job runs on; the follower retries with backoff
// and catches up: the mirror equals the log byte for byte; STAVE_TEST_NETWORK_CUT_S shortens it
// for a quick look, CI runs the full 120 s), and a remote disk that fills (the run folder on a
// 2 MB tmpfs: the run fails naming the file and the reason, the follow says so and ends, the
// mirror holds every whole line). Needs root, /usr/sbin/sshd (openssh-server), network
// namespaces and Slurm; skipped with the reason otherwise.
#include <QtTest/QtTest>

#include <signal.h>
#include <unistd.h>

#include "common/slurm_cluster.h"
#include "common/ssh_cluster.h"
#include "e2e/train_e2e_util.h"

using namespace stave::e2e;
using stave::test::Ran;
using stave::test::runProgram;

namespace {

bool ip(const QStringList& args, QString* err = nullptr) {
  const Ran r = runProgram("ip", args, {}, {}, 20000);
  if (err) *err = r.err.trimmed();
  return r.code == 0;
}

QByteArray readBytes(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeBytes(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

}  // namespace

class TstTrainSsh : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    if (::geteuid() != 0)
      QSKIP("network namespaces and sshd need root; this machine runs the tests as a user");
    if (!QFileInfo("/usr/sbin/sshd").isExecutable())
      QSKIP("/usr/sbin/sshd is not installed (Debian's openssh-server; scripts/setup installs it)");
    if (QStandardPaths::findExecutable("ssh").isEmpty() ||
        QStandardPaths::findExecutable("ssh-keygen").isEmpty())
      QSKIP("the OpenSSH client (ssh, ssh-keygen) is not installed");
    if (const QString why = stave::test::SlurmCluster::skipReason(); !why.isEmpty())
      QSKIP(qPrintable(why));
    QVERIFY(m_dir.isValid());
    const int tag = static_cast<int>(::getpid() % 200) + 20;
    m_ns = QString("stvssh%1").arg(::getpid());
    m_host = QString("10.215.%1.1").arg(tag);
    m_addr = QString("10.215.%1.2").arg(tag);
    QString err;
    if (!ip({"netns", "add", m_ns}, &err))
      QSKIP(qPrintable("this machine refuses network namespaces: " + err));
    m_made = true;
    const QString a = QString("svs%1a").arg(::getpid()), b = QString("svs%1b").arg(::getpid());
    QVERIFY2(ip({"link", "add", a, "type", "veth", "peer", "name", b}, &err), qPrintable(err));
    m_veth = a;
    QVERIFY2(ip({"addr", "add", m_host + "/24", "dev", a}, &err), qPrintable(err));
    QVERIFY2(ip({"link", "set", a, "up"}, &err), qPrintable(err));
    QVERIFY2(ip({"link", "set", b, "netns", m_ns}, &err), qPrintable(err));
    QVERIFY2(ip({"-n", m_ns, "addr", "add", m_addr + "/24", "dev", b}, &err), qPrintable(err));
    QVERIFY2(ip({"-n", m_ns, "link", "set", b, "up"}, &err), qPrintable(err));
    QVERIFY2(ip({"-n", m_ns, "link", "set", "lo", "up"}, &err), qPrintable(err));

    // The cluster: Slurm inside the namespace.
    m_cluster = m_dir.filePath("cluster");
    const int ctld = 30000 + static_cast<int>(::getpid() % 1000) * 2, slurmd = ctld + 1;
    const Ran up = runProgram(
        STAVE_SOURCE_DIR "/tests/e2e/slurm_cluster.sh",
        {"up", m_cluster, QString::number(ctld), QString::number(slurmd), m_ns + "=" + m_addr});
    m_slurmUp = true;
    QVERIFY2(up.code == 0, qPrintable(up.err + readText(m_cluster + "/slurmctld.log").right(2000)));

    // sshd's and the client's keys, made here.
    m_ssh = m_dir.filePath("ssh");
    QVERIFY(QDir().mkpath(m_ssh));
    for (const char* key : {"host_key", "other_host_key", "client_key", "stranger_key"})
      QVERIFY(runProgram("ssh-keygen",
                         {"-q", "-t", "ed25519", "-N", "", "-C", key, "-f", m_ssh + "/" + key})
                  .code == 0);
    QVERIFY(QFile::copy(m_ssh + "/client_key.pub", m_ssh + "/authorized_keys"));
    m_port = 22000 + static_cast<int>(::getpid() % 1000);
    m_otherPort = m_port + 1000;
    QVERIFY(writeSshdConfig("sshd_config", m_port, "host_key"));
    QVERIFY(writeSshdConfig("sshd_other_config", m_otherPort, "other_host_key"));
    // The login node's sessions know the cluster (SLURM_CONF) and where the job's ranks meet
    // (the node's name does not resolve here), as a site's profile would set them.
    // known_hosts holds the real host key for both ports: the second server shows another key.
    const QByteArray hostKey = readBytes(m_ssh + "/host_key.pub").split(' ').mid(0, 2).join(' ');
    QVERIFY(writeBytes(m_ssh + "/known_hosts",
                       QString("[%1]:%2 ").arg(m_addr).arg(m_port).toUtf8() + hostKey + "\n" +
                           QString("[%1]:%2 ").arg(m_addr).arg(m_otherPort).toUtf8() + hostKey +
                           "\n"));
    const QString common =
        QString(
            "  HostName %1\n  IdentitiesOnly yes\n  IdentityAgent none\n"
            "  UserKnownHostsFile %2/known_hosts\n  GlobalKnownHostsFile /dev/null\n"
            "  StrictHostKeyChecking yes\n")
            .arg(m_addr, m_ssh);
    QVERIFY(writeBytes(
        m_ssh + "/config",
        QString("Host cluster\n  Port %1\n  User root\n  IdentityFile %2/client_key\n%3"
                "Host changed\n  Port %4\n  User root\n  IdentityFile %2/client_key\n%3"
                "Host stranger\n  Port %1\n  User nobody\n  IdentityFile %2/stranger_key\n%3")
            .arg(m_port)
            .arg(m_ssh, common)
            .arg(m_otherPort)
            .toUtf8()));
    QVERIFY(QDir().mkpath(
        "/run/sshd"));  // sshd's privilege separation folder (Debian's service makes it)
    QVERIFY(startSshd(&m_sshd, "sshd_config"));

    // The project, its dataset as this machine sees it, and as the cluster does (another path).
    m_data = makeDemoDataset(m_dir.filePath("demo"), 16, 8, 96);
    QVERIFY(!m_data.isEmpty());
    QVERIFY(QFile::link(m_dir.filePath("demo"), m_dir.filePath("cluster data")));
    m_remoteRuns = m_dir.filePath("scratch/it's a \"run\" $HOME; x");
    QVERIFY(QDir().mkpath(m_remoteRuns));
    const auto made =
        runStaveTrain({"new-project", m_dir.filePath("proj"), "--name", "p", "--data", m_data,
                       "imgsz=64", "epochs=200", "batch=2", "devices=cpu", "workers=1", "threads=1",
                       "seed=3", "val=false", "close_mosaic=0"});
    QVERIFY2(made.exitCode == 0, qPrintable(made.err));
    m_project = m_dir.filePath("proj/p.stave");
    m_profiles = m_dir.filePath("clusters.json");
    QVERIFY(writeProfiles());
  }

  void cleanupTestCase() {
    if (!m_made) return;
    for (const QString& host : {"cluster", "changed", "stranger"})
      runProgram("ssh",
                 {"-F", m_ssh + "/config", "-o", "ControlPath=" + controlDir() + "/%C", "-O",
                  "exit", host},
                 {}, {}, 10000);
    stopSshd(&m_sshd);
    stopSshd(&m_other);
    if (!m_smallDisk.isEmpty()) runProgram("umount", {m_smallDisk});
    if (!m_veth.isEmpty()) ip({"link", "set", m_veth, "up"});
    if (m_slurmUp) {
      runProgram("nsenter",
                 {"--net=/var/run/netns/" + m_ns, "scancel", "--user=root", "--partition=stave"},
                 {"SLURM_CONF=" + m_cluster + "/slurm.conf"});
      runProgram(STAVE_SOURCE_DIR "/tests/e2e/slurm_cluster.sh", {"down", m_cluster});
    }
    ip({"netns", "del", m_ns});
    if (!m_veth.isEmpty()) ip({"link", "del", m_veth});
  }

  // Submit, follow (through a killed sshd), stop, resume, fetch.
  void submitFollowStopResumeFetch() {
    const auto sub = cluster({"submit", m_project, "--profile", "test cluster"});
    QVERIFY2(sub.exitCode == 0, qPrintable(sub.out + sub.err));
    const QString run = sub.out.section("run folder: ", 1).section('\n', 0, 0);
    const QString remote = sub.out.section("on the cluster: ", 1).section('\n', 0, 0);
    QVERIFY2(QFileInfo(run).isDir(), qPrintable(sub.out));
    QVERIFY2(remote.startsWith(m_remoteRuns + "/p/"), qPrintable(remote));
    QVERIFY(QFile::exists(remote + "/job.sbatch"));
    // The job was given the cluster's path of the dataset.
    QVERIFY(readText(remote + "/job.sbatch").contains(m_dir.filePath("cluster data")));

    QProcess follow;
    follow.setProcessChannelMode(QProcess::MergedChannels);
    follow.start(STAVE_TRAIN_EXE,
                 {"cluster", "follow", run, "--period", "0.5", "--profiles", m_profiles});
    QVERIFY(follow.waitForStarted());
    // Events arrive in the mirror (a checkpoint: an epoch is done and the run goes on).
    QTRY_VERIFY2_WITH_TIMEOUT(
        !eventsOf(parseEvents(readText(run + "/events.jsonl")), "step").isEmpty(),
        qPrintable(follow.readAll() +
                   readText(remote + "/slurm-" + jobId(run) + ".out").right(2000)),
        300000);

    // sshd dies with every connection; the follower retries until it is back.
    stopSshd(&m_sshd);
    const qint64 before = QFileInfo(run + "/events.jsonl").size();
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(remote + "/events.jsonl").size() > before + 2000, 120000);
    QTest::qWait(1500);
    QVERIFY(startSshd(&m_sshd, "sshd_config"));
    QTRY_VERIFY_WITH_TIMEOUT(
        !eventsOf(parseEvents(readText(run + "/events.jsonl")), "checkpoint").isEmpty(), 300000);

    const auto stop = cluster({"stop", run});
    QVERIFY2(stop.exitCode == 0, qPrintable(stop.out + stop.err));
    QVERIFY2(follow.waitForFinished(300000), "follow did not end with the job");
    const QString followed = QString::fromUtf8(follow.readAll());
    QVERIFY2(followed.contains("cannot be reached") || followed.contains("closed"),
             qPrintable(followed.right(3000)));
    // The mirror equals the cluster's log, byte for byte: nothing lost, nothing twice.
    QCOMPARE(readBytes(run + "/events.jsonl"), readBytes(remote + "/events.jsonl"));
    const auto finished = eventsOf(parseEvents(readText(run + "/events.jsonl")), "finished");
    QVERIFY(!finished.isEmpty());
    QCOMPARE(finished.last()["data"].toObject()["status"].toString(), QString("stopped"));
    QVERIFY(QFile::exists(run + "/config.yaml"));
    QVERIFY(QFile::exists(run + "/results.csv"));
    QVERIFY(!QFile::exists(run + "/weights/last.pt"));  // checkpoints only on demand
    const int done = readResults(run + "/results.csv").size();
    QVERIFY(done >= 1);

    const auto status = cluster({"status", run});
    QVERIFY2(status.exitCode == 0 && status.out.contains(jobId(run)),
             qPrintable(status.out + status.err));

    const auto resumed = cluster({"resume", run, "--epochs", QString::number(done + 1)});
    QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.out + resumed.err));
    const auto again = cluster({"follow", run, "--period", "0.5", "--quiet"}, 600000);
    QVERIFY2(again.exitCode == 0,
             qPrintable(again.out + again.err +
                        readText(remote + "/slurm-" + jobId(run) + ".out").right(3000)));
    QCOMPARE(readBytes(run + "/events.jsonl"), readBytes(remote + "/events.jsonl"));
    QCOMPARE(readResults(run + "/results.csv").size(), done + 1);
    QCOMPARE(eventsOf(parseEvents(readText(run + "/events.jsonl")), "finished")
                 .last()["data"]
                 .toObject()["status"]
                 .toString(),
             QString("completed"));

    const auto fetched = cluster({"fetch", run, "best"});
    QVERIFY2(fetched.exitCode == 0, qPrintable(fetched.out + fetched.err));
    QVERIFY(readBytes(run + "/weights/best.pt").size() > 1000);
    QCOMPARE(readBytes(run + "/weights/best.pt"), readBytes(remote + "/weights/best.pt"));
  }

  // The link to the cluster is cut for 2 minutes while the job runs on: the follow says it
  // cannot reach the cluster, tries again with backoff (1-30 s), reconnects once the link is back
  // and catches up from its offset: at the end the mirror equals the cluster's log byte for byte.
  void networkCut() {
    const int cutS = qEnvironmentVariableIsSet("STAVE_TEST_NETWORK_CUT_S")
                         ? qEnvironmentVariableIntValue("STAVE_TEST_NETWORK_CUT_S")
                         : 120;
    // Long enough to train through the cut (the demo's epochs take a second or two here).
    const auto sub = cluster({"submit", m_project, "--profile", "test cluster", "epochs=100000"});
    QVERIFY2(sub.exitCode == 0, qPrintable(sub.out + sub.err));
    const QString run = sub.out.section("run folder: ", 1).section('\n', 0, 0);
    const QString remote = sub.out.section("on the cluster: ", 1).section('\n', 0, 0);
    QProcess follow;
    follow.setProcessChannelMode(QProcess::MergedChannels);
    QByteArray said;
    connect(&follow, &QProcess::readyRead, &follow, [&] { said += follow.readAll(); });
    follow.start(STAVE_TRAIN_EXE, {"cluster", "follow", run, "--period", "0.5", "--quiet",
                                   "--profiles", m_profiles});
    QVERIFY(follow.waitForStarted());
    QTRY_VERIFY2_WITH_TIMEOUT(
        !eventsOf(parseEvents(readText(run + "/events.jsonl")), "step").isEmpty(),
        qPrintable(said + readText(remote + "/slurm-" + jobId(run) + ".out").right(2000)), 300000);

    // The cut: this side of the namespace's link goes down (its route with it).
    QString err;
    QVERIFY2(ip({"link", "set", m_veth, "down"}, &err), qPrintable(err));
    QElapsedTimer cut;
    cut.start();
    const qint64 atCut = QFileInfo(remote + "/events.jsonl").size();
    // The job goes on writing; the follower says it cannot reach the cluster.
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(remote + "/events.jsonl").size() > atCut + 2000, 120000);
    QTRY_VERIFY2_WITH_TIMEOUT(said.contains("cannot be reached") || said.contains("no answer"),
                              qPrintable(said.right(3000)), (cutS + 60) * 1000);
    QVERIFY(follow.state() == QProcess::Running);
    // The link stays down for the whole cut, however long the checks above took.
    const qint64 left = qint64{cutS} * 1000 - cut.elapsed();
    if (left > 0) QTest::qWait(static_cast<int>(left));
    const qint64 mirroredInCut = QFileInfo(run + "/events.jsonl").size();
    QVERIFY2(ip({"link", "set", m_veth, "up"}, &err), qPrintable(err));
    const qint64 atReturn = QFileInfo(remote + "/events.jsonl").size();
    QVERIFY(atReturn > mirroredInCut);  // there is something to catch up on
    // Back: the follower reconnects (its next try is at most 30 s away) and catches up.
    QTRY_VERIFY2_WITH_TIMEOUT(QFileInfo(run + "/events.jsonl").size() >= atReturn,
                              qPrintable(said.right(3000)), 180000);

    const auto stop = cluster({"stop", run});
    QVERIFY2(stop.exitCode == 0, qPrintable(stop.out + stop.err));
    QVERIFY2(follow.waitForFinished(300000), qPrintable(said.right(3000)));
    said += follow.readAll();
    QCOMPARE(readBytes(run + "/events.jsonl"), readBytes(remote + "/events.jsonl"));
    const auto finished = eventsOf(parseEvents(readText(run + "/events.jsonl")), "finished");
    QVERIFY(!finished.isEmpty());
    QCOMPARE(finished.last()["data"].toObject()["status"].toString(), QString("stopped"));
  }

  // The run folder on the cluster is on a disk that fills (a 2 MB tmpfs: the first checkpoint
  // does not fit). The run fails with an error that names the file and the reason, the follow
  // prints it, says the job failed and ends; the mirror holds the log as the cluster has it.
  void remoteDiskFills() {
    m_smallDisk = m_dir.filePath("small disk");
    QVERIFY(QDir().mkpath(m_smallDisk));
    const Ran mounted = runProgram("mount", {"-t", "tmpfs", "-o", "size=2m", "tmpfs", m_smallDisk});
    if (mounted.code != 0) {
      m_smallDisk.clear();
      QSKIP(qPrintable("this machine refuses a tmpfs mount: " + mounted.err));
    }
    const auto sub = cluster({"submit", m_project, "--profile", "small disk"});
    QVERIFY2(sub.exitCode == 0, qPrintable(sub.out + sub.err));
    const QString run = sub.out.section("run folder: ", 1).section('\n', 0, 0);
    const QString remote = sub.out.section("on the cluster: ", 1).section('\n', 0, 0);
    QVERIFY(remote.startsWith(m_smallDisk + "/"));
    QProcess follow;
    follow.setProcessChannelMode(QProcess::MergedChannels);
    QByteArray said;
    connect(&follow, &QProcess::readyRead, &follow, [&] { said += follow.readAll(); });
    follow.start(STAVE_TRAIN_EXE,
                 {"cluster", "follow", run, "--period", "0.5", "--profiles", m_profiles});
    QVERIFY(follow.waitForStarted());
    QVERIFY2(follow.waitForFinished(300000), qPrintable(said.right(3000)));
    said += follow.readAll();
    QCOMPARE(follow.exitCode(), 1);
    QVERIFY2(said.contains("No space left on device") && said.contains("weights/last.pt"),
             qPrintable(said.right(3000)));
    QVERIFY2(said.contains(": failed"), qPrintable(said.right(3000)));
    QCOMPARE(readBytes(run + "/events.jsonl"), readBytes(remote + "/events.jsonl"));
    const auto finished = eventsOf(parseEvents(readText(run + "/events.jsonl")), "finished");
    QVERIFY(!finished.isEmpty());
    QCOMPARE(finished.last()["data"].toObject()["status"].toString(), QString("failed"));
    QVERIFY(finished.last()["data"].toObject()["message"].toString().contains(
        "No space left on device"));
    const auto status = cluster({"status", run});
    QVERIFY2(status.exitCode == 0 && status.out.contains("failed"),
             qPrintable(status.out + status.err));
  }

  // A server whose host key is not the one known: refused with OpenSSH's reason, nothing sent.
  void changedHostKeyRefused() {
    QVERIFY(startSshd(&m_other, "sshd_other_config"));
    const int before =
        QDir(m_remoteRuns + "/p").entryList(QDir::Dirs | QDir::NoDotAndDotDot).size();
    const auto sub = cluster({"submit", m_project, "--profile", "changed key"}, 60000);
    QCOMPARE(sub.exitCode, 1);
    QVERIFY2(sub.err.contains("CHANGED") && sub.err.contains("Host key verification failed"),
             qPrintable(sub.err));
    QCOMPARE(QDir(m_remoteRuns + "/p").entryList(QDir::Dirs | QDir::NoDotAndDotDot).size(), before);
    stopSshd(&m_other);
  }

  // A key the server does not accept: a clear message, promptly (no prompt waits).
  void refusedKeySaysSo() {
    QElapsedTimer t;
    t.start();
    const auto sub = cluster({"submit", m_project, "--profile", "stranger"}, 60000);
    QCOMPARE(sub.exitCode, 1);
    QVERIFY2(sub.err.contains("refused every key") && sub.err.contains("Permission denied"),
             qPrintable(sub.err));
    QVERIFY2(t.elapsed() < 30000, qPrintable(QString::number(t.elapsed())));
  }

 private:
  QString controlDir() const { return "/tmp/stave-ssh-" + QString::number(::getuid()); }

  bool writeSshdConfig(const QString& name, int port, const QString& hostKey) {
    return writeBytes(
        m_ssh + "/" + name,
        QString("Port %1\nListenAddress %2\nHostKey %3/%4\nPidFile %3/%5.pid\n"
                "AuthorizedKeysFile %3/authorized_keys\nPasswordAuthentication no\n"
                "KbdInteractiveAuthentication no\nPubkeyAuthentication yes\n"
                "PermitRootLogin prohibit-password\nStrictModes no\nUsePAM no\n"
                "SetEnv SLURM_CONF=%6/slurm.conf STAVE_MASTER_ADDR=%2\nLogLevel VERBOSE\n")
            .arg(port)
            .arg(m_addr, m_ssh, hostKey, name, m_cluster)
            .toUtf8());
  }

  bool startSshd(QProcess** p, const QString& config) {
    *p = new QProcess(this);
    (*p)->setProcessChannelMode(QProcess::MergedChannels);
    (*p)->setStandardOutputFile(m_ssh + "/" + config + ".log", QIODevice::Append);
    (*p)->start("nsenter", {"--net=/var/run/netns/" + m_ns, "/usr/sbin/sshd", "-D", "-e", "-f",
                            m_ssh + "/" + config});
    if (!(*p)->waitForStarted(10000)) return false;
    // Listening once a connection is taken (nc may be missing: bash's /dev/tcp).
    const int port = config == "sshd_config" ? m_port : m_otherPort;
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 20000) {
      if (runProgram("bash", {"-c", QString("exec 3<>/dev/tcp/%1/%2").arg(m_addr).arg(port)}, {},
                     {}, 5000)
              .code == 0)
        return true;
      QTest::qWait(200);
    }
    return false;
  }

  /// Ends sshd and every connection it serves (the processes this test started, by id).
  void stopSshd(QProcess** p) {
    if (!*p) return;
    const qint64 pid = (*p)->processId();
    if (pid > 0) {
      const QList<qint64> kids = stave::test::processDescendants(pid);
      ::kill(static_cast<pid_t>(pid), SIGTERM);
      for (qint64 k : kids) ::kill(static_cast<pid_t>(k), SIGKILL);
    }
    (*p)->waitForFinished(10000);
    delete *p;
    *p = nullptr;
  }

  bool writeProfiles() {
    const QString profile =
        QString(R"({"name": "%1", "destination": "%2", "ssh_config": "%3", "run_folder": "%4",
      "dataset_local": "%5", "dataset_remote": "%6", "stave_train": "%7", "cpus_per_task": 1, "time": "00:30:00"})");
    const auto esc = [](QString s) { return s.replace("\\", "\\\\").replace("\"", "\\\""); };
    const QString dataLocal = m_dir.filePath("demo"), dataRemote = m_dir.filePath("cluster data");
    QStringList all;
    const QString small = m_dir.filePath("small disk");
    for (const auto& [name, dest, runs] :
         {std::tuple<QString, QString, QString>{"test cluster", "cluster", m_remoteRuns},
          {"changed key", "changed", m_remoteRuns},
          {"stranger", "stranger", m_remoteRuns},
          {"small disk", "cluster", small}})
      all << profile.arg(name, dest, esc(m_ssh + "/config"), esc(runs), esc(dataLocal),
                         esc(dataRemote), STAVE_TRAIN_EXE);
    return writeBytes(m_profiles,
                      ("{\"version\": 1, \"clusters\": [" + all.join(",\n") + "]}\n").toUtf8());
  }

  RunResult cluster(QStringList args, int timeoutMs = 120000) {
    args.prepend("cluster");
    args << "--profiles" << m_profiles;
    return runStaveTrain(args, {}, timeoutMs);
  }

  QString jobId(const QString& run) {
    return QJsonDocument::fromJson(readBytes(run + "/cluster_job.json"))
        .object()["job_id"]
        .toString();
  }

  QTemporaryDir m_dir;
  QString m_ns, m_host, m_addr, m_veth, m_cluster, m_ssh, m_data, m_remoteRuns, m_project,
      m_profiles, m_smallDisk;
  int m_port = 0, m_otherPort = 0;
  bool m_made = false, m_slurmUp = false;
  QProcess* m_sshd = nullptr;
  QProcess* m_other = nullptr;
};

QTEST_GUILESS_MAIN(TstTrainSsh)
#include "tst_train_ssh.moc"
