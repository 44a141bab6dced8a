// The event relay: lines sent before node 0 listens wait and arrive in order, whole; only a
// peer that proves it knows the run's key is let in, and only its own ranks' events are taken;
// a bad line costs that line (a warning naming the peer), never the run; connections,
// handshakes, idle peers and line lengths are bounded; a client does not talk to an impostor.
#include <QtTest/QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

#include "common/loopback.h"
#include "core/distributed/event_relay.h"
#include "core/distributed/relay_key.h"
#include "core/telemetry/events.h"

using namespace stave::dist;
namespace fs = std::filesystem;

namespace {

const std::string kSecret = "0123456789abcdef0123456789abcdef";

RelayServerOptions nodeOptions(int port, int nnodes = 2, int nproc = 2) {
  RelayServerOptions o;
  o.bindAddress = "127.0.0.1";
  o.port = port;
  o.secret = kSecret;
  o.peerKind = "node";
  o.admit = [nnodes, nproc](RelayPeer& p) {
    if (p.id < 1 || p.id >= nnodes) return false;
    p.firstRank = p.id * nproc;
    p.rankCount = nproc;
    return true;
  };
  return o;
}

std::unique_ptr<RelayClient> client(int port, int node, std::string secret = kSecret) {
  return std::make_unique<RelayClient>("127.0.0.1", port, "node", node,
                                       [secret] { return stave::Result<std::string>(secret); });
}

const std::string kNodeOneSample = "{\"gpus\":[],\"node\":1,\"nodes\":2}";

std::string ev(const std::string& type, int rank, const std::string& data = "{}") {
  return "{\"type\":\"" + type + "\",\"version\":1,\"rank\":" + std::to_string(rank) +
         ",\"time\":1764680000.5,\"data\":" + data + "}";
}

/// A plain TCP connection to the relay, as any process on the host could open.
int rawConnect(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

struct Pump {
  RelayServer& server;
  std::vector<std::string> lines;
  std::vector<std::string> problems;
  void round(std::vector<RelayClient*> clients = {}) {
    for (auto* c : clients) c->service();
    std::vector<pollfd> fds;
    server.addPollFds(fds);
    poll(fds.data(), fds.size(), 10);
    server.service([&](const RelayPeer&, const std::string& l,
                       stave::telemetry::Event&) { lines.push_back(l); },
                   [&](const std::string& p) { problems.push_back(p); });
  }
  template <typename Pred>
  bool until(Pred pred, std::vector<RelayClient*> clients = {}, int rounds = 500) {
    for (int i = 0; i < rounds && !pred(); ++i) round(clients);
    return pred();
  }
  bool problemMentions(const std::string& text) const {
    for (const auto& p : problems)
      if (p.find(text) != std::string::npos) return true;
    return false;
  }
};

}  // namespace

class TstEventRelay : public QObject {
  Q_OBJECT
 private slots:
  void linesArriveInOrderOnceNodeZeroListens() {
    const int port = stave::test::freeLoopbackPort();
    auto c = client(port, 1);
    c->send(ev("step", 2));
    c->send(ev("step", 3));
    QVERIFY(!c->connected());  // nobody listens yet: the lines wait

    auto server = RelayServer::listen(nodeOptions(port));
    QVERIFY2(bool(server), qPrintable(QString::fromStdString(server.errorText())));
    QCOMPARE(server.value()->boundAddress(), std::string("127.0.0.1"));
    Pump pump{*server.value()};
    c->send(ev("warning", 2, "{\"message\":\"" + std::string(100000, 'x') + "\"}"));
    QVERIFY(pump.until([&] { return pump.lines.size() >= 3; }, {c.get()}));
    QVERIFY(c->connected());
    QCOMPARE(pump.lines[0], ev("step", 2));
    QCOMPARE(pump.lines[1], ev("step", 3));
    QVERIFY(pump.lines[2].size() > 100000);  // a long line stays one line
    QCOMPARE(server.value()->connections(), 1);
    QVERIFY(pump.problems.empty());

    // The sender goes away: node 0 forgets the connection.
    c.reset();
    QVERIFY(pump.until([&] { return server.value()->connections() == 0; }));
    QCOMPARE(pump.lines.size(), size_t(3));

    // The port is taken now: a second listener is refused, naming the port.
    auto second = RelayServer::listen(nodeOptions(port));
    QVERIFY(!second);
    QVERIFY(second.errorText().find(std::to_string(port)) != std::string::npos);
  }

  void aPeerWithoutTheKeyIsRefused() {
    const int port = stave::test::freeLoopbackPort();
    auto server = RelayServer::listen(nodeOptions(port));
    QVERIFY(bool(server));
    Pump pump{*server.value()};
    auto c = client(port, 1, "another run's secret, long enough");
    c->send(ev("step", 2));
    QVERIFY(pump.until([&] { return !c->lastError().empty(); }, {c.get()}));
    QVERIFY2(c->lastError().find("refused") != std::string::npos, c->lastError().c_str());
    QVERIFY(!c->connected());
    QVERIFY(pump.lines.empty());
    QVERIFY(pump.problemMentions("does not match"));
    QVERIFY(pump.problemMentions("127.0.0.1:"));  // names the peer

    // A process that writes event lines without any handshake: nothing is taken, and it is
    // closed once the handshake time is over.
    RelayServerOptions quick = nodeOptions(stave::test::freeLoopbackPort());
    quick.handshakeTimeoutS = 0.3;
    auto q = RelayServer::listen(quick);
    QVERIFY(bool(q));
    Pump qp{*q.value()};
    const int fd = rawConnect(quick.port);
    QVERIFY(fd >= 0);
    const std::string fake = ev("validation", 0, "{\"map50\":0.991}") + "\n" +
                             ev("finished", 0, "{\"status\":\"completed\"}") + "\n";
    QVERIFY(write(fd, fake.data(), fake.size()) > 0);
    QVERIFY(qp.until([&] { return qp.problemMentions("not a relay handshake"); }));
    char buf[256];
    bool closed = false;
    for (int i = 0; i < 200 && !closed; ++i) {
      qp.round();
      closed = recv(fd, buf, sizeof buf, MSG_DONTWAIT) == 0;
    }
    QVERIFY(closed);
    QVERIFY(qp.lines.empty());
    close(fd);

    // Silence: refused once the handshake time is over.
    const int idle = rawConnect(quick.port);
    QVERIFY(qp.until([&] { return qp.problemMentions("no handshake within"); }));
    close(idle);

    // A node this run does not have, or a rank where nodes are expected.
    auto stranger = client(port, 7);
    QVERIFY(pump.until([&] { return !stranger->lastError().empty(); }, {stranger.get()}));
    QVERIFY2(stranger->lastError().find("not a peer of this run") != std::string::npos,
             stranger->lastError().c_str());
  }

  void onlyThePeersOwnEventsAreTaken() {
    const int port = stave::test::freeLoopbackPort();
    auto server = RelayServer::listen(nodeOptions(port));
    QVERIFY(bool(server));
    Pump pump{*server.value()};
    auto c = client(port, 1);  // node 1 of 2, two ranks each: ranks 2 and 3
    c->send(ev("run_start", 2));
    c->send(ev("finished", 2, "{\"status\":\"completed\"}"));
    c->send(ev("validation", 2, "{\"map50\":0.991}"));
    c->send(ev("step", 0));  // node 0's rank
    c->send(ev("step", 9));
    c->send(ev("step", 2, "{\"loss\":1e999}"));  // overflows a double
    c->send(ev("rumour", 2));
    c->send("{\"type\":\"step\",\"version\":1,\"time\":1,\"data\":{}}");  // no rank
    c->send("not json at all");
    c->send(ev("step", 3));
    c->send(ev("gpu_sample", -1, kNodeOneSample));  // the node's own sample
    c->send(ev("step", 2));
    QVERIFY(pump.until([&] { return pump.lines.size() >= 3; }, {c.get()}));
    QCOMPARE(pump.lines.size(), size_t(3));
    QCOMPARE(pump.lines[0], ev("step", 3));
    QCOMPARE(pump.lines[1], ev("gpu_sample", -1, kNodeOneSample));
    QCOMPARE(pump.lines[2], ev("step", 2));
    QVERIFY(pump.problemMentions("'run_start' is written by node 0 only"));
    QVERIFY(pump.problemMentions("'finished' is written by node 0 only"));
    QVERIFY(pump.problemMentions("'validation' is written by node 0 only"));
    QVERIFY(pump.problemMentions("rank 0 is not one of this peer's ranks (2..3)"));
    QVERIFY(pump.problemMentions("unknown event type 'rumour'"));
    QVERIFY(pump.problemMentions("not JSON"));
    QVERIFY(pump.problemMentions("node 1 (127.0.0.1:"));
  }

  // Node 1's launcher sends its GPU and system samples as they are encoded; node 0 takes them
  // with their node and host, and refuses a sample that names another node, names none, or
  // does not read as a sample (each a warning naming the peer; the next line goes on).
  void sampleEventsCarryTheirNode() {
    const int port = stave::test::freeLoopbackPort();
    auto server = RelayServer::listen(nodeOptions(port));
    QVERIFY(bool(server));
    std::vector<stave::telemetry::Event> got;
    std::vector<std::string> problems;
    auto c = client(port, 1);
    namespace tel = stave::telemetry;
    tel::GpuSampleEvent g;
    g.node = 1;
    g.nodes = 2;
    g.host = "gpu-b";
    for (int i = 0; i < 2; ++i) {
      tel::GpuReading r;
      r.index = i;
      r.name = "GPU";
      r.util = 50 + i;
      g.gpus.push_back(r);
    }
    tel::SystemSampleEvent sys;
    sys.cpuTotal = 33;
    sys.node = 1;
    sys.nodes = 2;
    sys.host = "gpu-b";
    tel::GpuSampleEvent impostor = g;
    impostor.node = 0;  // node 1 claiming node 0's GPUs
    tel::Event unnamed = tel::toEvent(g, -1);
    unnamed.data.erase("node");
    c->send(tel::encodeEvent(tel::toEvent(impostor, -1)));
    c->send(tel::encodeEvent(unnamed));
    c->send(ev("gpu_sample", -1, "{\"gpus\":{\"0\":1},\"node\":1}"));  // not a sample
    c->send(tel::encodeEvent(tel::toEvent(g, -1)));
    c->send(tel::encodeEvent(tel::toEvent(sys, -1)));
    for (int i = 0; i < 500 && got.size() < 2; ++i) {
      c->service();
      std::vector<pollfd> fds;
      server.value()->addPollFds(fds);
      poll(fds.data(), fds.size(), 10);
      server.value()->service(
          [&](const RelayPeer& peer, const std::string&, tel::Event& e) {
            QCOMPARE(peer.id, 1);
            got.push_back(e);
          },
          [&](const std::string& p) { problems.push_back(p); });
    }
    QCOMPARE(got.size(), size_t(2));
    auto gotGpu = tel::gpuSampleFromEvent(got[0]);
    QVERIFY(bool(gotGpu));
    QCOMPARE(gotGpu->node, 1);
    QCOMPARE(gotGpu->host, std::string("gpu-b"));
    QCOMPARE(gotGpu->gpus.size(), size_t(2));
    auto gotSys = tel::systemSampleFromEvent(got[1]);
    QVERIFY(bool(gotSys));
    QCOMPARE(gotSys->node, 1);
    QCOMPARE(gotSys->cpuTotal, 33.0);
    const auto mentions = [&](const std::string& text) {
      return std::any_of(problems.begin(), problems.end(),
                         [&](const std::string& p) { return p.find(text) != std::string::npos; });
    };
    QVERIFY(mentions("a gpu_sample from node 1 names node 0"));
    QVERIFY(mentions("a gpu_sample from node 1 names node none"));
    QVERIFY(mentions("data.gpus"));
    QVERIFY(mentions("node 1 (127.0.0.1:"));
  }

  // Under srun no launcher samples the other nodes: the first rank of each does, and rank 0's
  // relay takes that rank's node samples (rank -1) for its own node only; any other rank that
  // sends a node sample is refused.
  void aRankSendsItsNodesSamplesOnlyWhenAdmittedFor() {
    namespace tel = stave::telemetry;
    RelayPeer first;
    first.kind = "rank";
    first.id = 2;
    first.firstRank = 2;
    first.rankCount = 1;
    first.sampleNode = 1;  // rank 2 is node 1's first rank (2 ranks per node)
    tel::GpuSampleEvent g;
    g.node = 1;
    g.nodes = 2;
    g.host = "gpu-b";
    tel::SystemSampleEvent sys;
    sys.node = 1;
    sys.nodes = 2;
    const std::string gpuLine = tel::encodeEvent(tel::toEvent(g, -1));
    QVERIFY2(admitRelayedLine(first, gpuLine).ok(),
             admitRelayedLine(first, gpuLine).errorText().c_str());
    QVERIFY(admitRelayedLine(first, tel::encodeEvent(tel::toEvent(sys, -1))).ok());
    QVERIFY(admitRelayedLine(first, ev("step", 2)).ok());
    g.node = 0;  // node 0's GPUs from node 1
    auto other = admitRelayedLine(first, tel::encodeEvent(tel::toEvent(g, -1)));
    QVERIFY(!other.ok());
    QVERIFY2(other.errorText().find("a gpu_sample from node 1 names node 0") != std::string::npos,
             other.errorText().c_str());
    RelayPeer second = first;  // rank 3: not a node's first rank
    second.id = 3;
    second.firstRank = 3;
    second.sampleNode = -1;
    auto refused = admitRelayedLine(second, gpuLine);
    QVERIFY(!refused.ok());
    QVERIFY2(refused.errorText().find("rank -1 is not one of this peer's ranks (3)") !=
                 std::string::npos,
             refused.errorText().c_str());
  }

  // A node 0 that stops reading (stalled, or its launcher stopped) or is not there at all costs
  // node 1 at most the queue's bound: the oldest lines go (counted), the newest wait, and once
  // node 0 reads again what is left arrives whole and in order.
  void aStalledNodeZeroCostsBoundedMemory() {
    const size_t bound = 256u << 10;
    const int port = stave::test::freeLoopbackPort();
    auto server = RelayServer::listen(nodeOptions(port));
    QVERIFY(bool(server));
    Pump pump{*server.value()};
    auto c = std::make_unique<RelayClient>(
        "127.0.0.1", port, "node", 1, [] { return stave::Result<std::string>(kSecret); }, bound);
    c->send(ev("step", 2, "{\"n\":0}"));
    QVERIFY(pump.until([&] { return pump.lines.size() == 1; }, {c.get()}));
    // Node 0 stops reading: the kernel's buffers fill, then the queue, never past its bound.
    const std::string pad(1000, 'p');
    size_t most = 0;
    const int n = 40000;  // 40 MB of samples: far more than the socket buffers and the bound
    for (int i = 1; i <= n; ++i) {
      c->send(ev("gpu_sample", -1,
                 "{\"gpus\":[],\"node\":1,\"i\":" + std::to_string(i) + ",\"pad\":\"" + pad + "\"}"));
      most = std::max(most, c->queuedBytes());
    }
    QVERIFY2(most <= bound + 1200, qPrintable(QString::number(most)));
    QVERIFY2(c->dropped() > 0, "the stalled node 0 made the client drop the oldest lines");
    const long long dropped = c->dropped();
    // Node 0 reads again: the newest line arrives, the ones kept in order, none twice.
    QVERIFY(pump.until(
        [&] { return !pump.lines.empty() && pump.lines.back().find("\"i\":" + std::to_string(n) + ",") != std::string::npos; },
        {c.get()}, 20000));
    int last = 0;
    for (size_t k = 1; k < pump.lines.size(); ++k) {
      const auto at = pump.lines[k].find("\"i\":");
      QVERIFY(at != std::string::npos);
      const int i = std::atoi(pump.lines[k].c_str() + at + 4);
      QVERIFY2(i > last, qPrintable(QString("%1 after %2").arg(i).arg(last)));
      last = i;
    }
    QCOMPARE(static_cast<long long>(pump.lines.size() - 1) + dropped, static_cast<long long>(n));

    // No node 0 at all: the same bound.
    auto lonely = std::make_unique<RelayClient>(
        "127.0.0.1", stave::test::freeLoopbackPort(), "node", 1,
        [] { return stave::Result<std::string>(kSecret); }, bound);
    for (int i = 0; i < 2000; ++i) lonely->send(ev("gpu_sample", -1, "{\"pad\":\"" + pad + "\"}"));
    QVERIFY(lonely->queuedBytes() <= bound + 1200);
    QVERIFY(lonely->dropped() >= 2000 - static_cast<long long>(bound / 1000));
  }

  void aLineOverTheCapIsSkippedNotBuffered() {
    RelayServerOptions o = nodeOptions(stave::test::freeLoopbackPort());
    o.maxLine = 64 << 10;
    auto server = RelayServer::listen(o);
    QVERIFY(bool(server));
    Pump pump{*server.value()};
    auto c = client(o.port, 1);
    c->send(ev("warning", 2, "{\"message\":\"" + std::string(1 << 20, 'y') + "\"}"));
    c->send(ev("step", 3));
    QVERIFY(pump.until([&] { return pump.lines.size() >= 1; }, {c.get()}));
    QCOMPARE(pump.lines[0], ev("step", 3));
    QVERIFY(pump.problemMentions("dropped a line over"));
  }

  void aFloodCostsAHandfulOfWarnings() {
    const int port = stave::test::freeLoopbackPort();
    auto server = RelayServer::listen(nodeOptions(port));
    QVERIFY(bool(server));
    Pump pump{*server.value()};
    auto c = client(port, 1);
    for (int i = 0; i < 2000; ++i) c->send(ev("finished", 2));
    c->send(ev("step", 2));
    QVERIFY(pump.until([&] { return pump.lines.size() >= 1; }, {c.get()}, 2000));
    QVERIFY2(pump.problems.size() <= 15, qPrintable(QString::number(pump.problems.size())));
    QVERIFY(pump.problemMentions("(1000 so far)"));
  }

  void connectionsInTheHandshakeAreBounded() {
    RelayServerOptions o = nodeOptions(stave::test::freeLoopbackPort());
    o.maxPending = 4;
    auto server = RelayServer::listen(o);
    QVERIFY(bool(server));
    Pump pump{*server.value()};
    std::vector<int> fds;
    for (int i = 0; i < 12; ++i) fds.push_back(rawConnect(o.port));
    QVERIFY(pump.until([&] { return pump.problemMentions("connections in the handshake"); }));
    // A real peer still gets in once the idle ones are gone.
    for (int fd : fds) close(fd);
    auto c = client(o.port, 1);
    c->send(ev("step", 2));
    QVERIFY(pump.until([&] { return pump.lines.size() == 1; }, {c.get()}));
  }

  void anIdleProvenPeerIsClosedAndReconnects() {
    RelayServerOptions o = nodeOptions(stave::test::freeLoopbackPort());
    o.idleTimeoutS = 0.3;
    auto server = RelayServer::listen(o);
    QVERIFY(bool(server));
    Pump pump{*server.value()};
    auto c = client(o.port, 1);
    c->send(ev("step", 2));
    QVERIFY(pump.until([&] { return pump.lines.size() == 1; }, {c.get()}));
    QVERIFY(pump.until([&] { return pump.problemMentions("sent nothing for"); }));
    c->send(ev("step", 3));  // the client notices and connects again
    QVERIFY(pump.until([&] { return pump.lines.size() == 2; }, {c.get()}));
    QCOMPARE(pump.lines[1], ev("step", 3));
  }

  void aClientDoesNotTalkToAnImpostor() {
    // Something else listens on the relay port and pretends: its "ok" cannot prove the key.
    const int port = stave::test::freeLoopbackPort();
    const int lfd = socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    QCOMPARE(bind(lfd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    QCOMPARE(listen(lfd, 4), 0);
    auto c = client(port, 1);
    c->send(ev("step", 2));
    c->service();
    const int fd = accept(lfd, nullptr, nullptr);
    QVERIFY(fd >= 0);
    const std::string greeting = "stave-relay 1 " + std::string(32, 'a') + "\nok " +
                                 std::string(64, 'b') + "\n";
    QVERIFY(write(fd, greeting.data(), greeting.size()) > 0);
    for (int i = 0; i < 200 && c->lastError().empty(); ++i) {
      c->service();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    QVERIFY2(c->lastError().find("does not know the run's relay key") != std::string::npos,
             c->lastError().c_str());
    QVERIFY(!c->connected());
    // Nothing of the queued event went to the impostor: it got the hello line only.
    char buf[4096];
    std::string got;
    ssize_t n;
    while ((n = recv(fd, buf, sizeof buf, MSG_DONTWAIT)) > 0) got.append(buf, static_cast<size_t>(n));
    QVERIFY(got.rfind("hello node 1 ", 0) == 0);
    QVERIFY(got.find("step") == std::string::npos);
    close(fd);
    close(lfd);
  }

  void bindAddresses() {
    QCOMPARE(runListenAddress("127.0.0.1", false), std::string("127.0.0.1"));
    QCOMPARE(runListenAddress("127.0.0.1", true), std::string("127.0.0.1"));
    QCOMPARE(runListenAddress("localhost", false), std::string("127.0.0.1"));
    // A name that is loopback here but a real address for the other hosts: every interface.
    QCOMPARE(runListenAddress("localhost", true), std::string(""));
    QCOMPARE(runListenAddress("10.213.7.1", true), std::string("10.213.7.1"));
    QCOMPARE(runListenAddress("no-such-host.invalid", true), std::string(""));
  }

  void theKeyFile() {
    QTemporaryDir dir;
    const std::string run = dir.path().toStdString();
    unsetenv(kRelaySecretEnv);
    const std::string keyFile = run + "/relay.key";
    auto missing = clientRelaySecret(run);
    QVERIFY(!missing);
    QVERIFY(missing.errorText().find(keyFile) != std::string::npos);
    QVERIFY(missing.errorText().find(kRelaySecretEnv) != std::string::npos);

    auto made = serverRelaySecret(run);
    QVERIFY2(bool(made), qPrintable(QString::fromStdString(made.errorText())));
    struct stat st {};
    QCOMPARE(lstat(keyFile.c_str(), &st), 0);
    QVERIFY(S_ISREG(st.st_mode));
    QCOMPARE(int(st.st_mode & 0777), 0600);
    QCOMPARE(clientRelaySecret(run).value(), made.value());
    QCOMPARE(serverRelaySecret(run).value(), made.value());  // kept across a resume

    // A key others could read is not the run's secret: replaced.
    chmod(keyFile.c_str(), 0644);
    auto fresh = serverRelaySecret(run);
    QVERIFY(bool(fresh));
    QVERIFY(fresh.value() != made.value());
    QCOMPARE(lstat(keyFile.c_str(), &st), 0);
    QCOMPARE(int(st.st_mode & 0777), 0600);

    // A link named relay.key is replaced, never written through nor read.
    const std::string target = run + "/project.stave";
    { std::ofstream(target) << "project\n"; }
    fs::remove(keyFile);
    fs::create_symlink(target, keyFile);
    QVERIFY(!clientRelaySecret(run));
    auto replaced = serverRelaySecret(run);
    QVERIFY(bool(replaced));
    QVERIFY(!fs::is_symlink(keyFile));
    std::ifstream in(target);
    std::string text;
    std::getline(in, text);
    QCOMPARE(text, std::string("project"));

    // The operator's secret wins; too short a one is named.
    setenv(kRelaySecretEnv, "short", 1);
    QVERIFY(!serverRelaySecret(run));
    QVERIFY(serverRelaySecret(run).errorText().find(kRelaySecretEnv) != std::string::npos);
    setenv(kRelaySecretEnv, kSecret.c_str(), 1);
    QCOMPARE(serverRelaySecret("").value(), kSecret);
    QCOMPARE(clientRelaySecret("").value(), kSecret);
    unsetenv(kRelaySecretEnv);
  }

  void hmacIsRfc4231() {
    // RFC 4231 test case 2.
    QCOMPARE(hmacSha256Hex("Jefe", "what do ya want for nothing?"),
             std::string("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"));
    QVERIFY(constantTimeEqual("abc", "abc"));
    QVERIFY(!constantTimeEqual("abc", "abd"));
    QVERIFY(!constantTimeEqual("abc", "abcd"));
    QCOMPARE(randomHex(16).size(), size_t(32));
    QVERIFY(randomHex(16) != randomHex(16));
  }
};

QTEST_GUILESS_MAIN(TstEventRelay)
#include "tst_event_relay.moc"
