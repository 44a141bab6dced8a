// The Prometheus registry: events become the documented families with their labels, a cleared
// finding drops to 0, label values are escaped, and Prometheus' own linter (promtool check
// metrics) accepts the exposition; the HTTP server serves it, refuses a port in use and
// survives clients that send garbage or never read.

#include <QtTest>


#include <QProcess>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "common/loopback.h"
#include "core/telemetry/metrics.h"
#include "core/telemetry/metrics_server.h"
#include "core/telemetry/run_monitor.h"

using namespace stave::telemetry;

namespace {

Event stepAt(int rank, double data) {
  StepEvent s;
  s.epoch = 2;
  s.iter = 4;
  s.itersPerEpoch = 10;
  s.boxLoss = 1.5;
  s.samplesPerSec = 100 + rank;
  s.timing = {data, 0.01, 0.3, 0.02, 0.01, data + 0.34};
  return toEvent(s, rank);
}

std::string scrape(int port, const std::string& request, int timeoutMs = 5000) {
  return stave::test::exchangeLoopback(port, request, timeoutMs);
}

int freePort() { return stave::test::freeLoopbackPort(); }

}  // namespace

class TestMetrics : public QObject {
  Q_OBJECT

  static void fill(MetricsRegistry& m) {
    RunStartEvent rs;
    rs.device = "cuda";
    rs.worldSize = 2;
    rs.versions["stave"] = "0.1";
    m.observe(toEvent(rs, 0));
    m.observe(stepAt(0, 0.1));
    m.observe(stepAt(1, 0.5));
    GpuSampleEvent g;
    GpuReading r;
    r.index = 1;
    r.name = "Fake GPU B";
    r.util = 91;
    r.memUsed = 4e9;
    r.memTotal = 8e9;
    r.smClockMHz = 1500;
    g.gpus.push_back(r);
    m.observe(toEvent(g, -1));
    ValidationEvent v;
    v.map50 = 0.5;
    v.map5095 = 0.3;
    m.observe(toEvent(v, 0));
    DiagnosisEvent d;
    Finding f;
    f.rule = "data_bound";
    f.message = "x";
    d.findings.push_back(f);
    m.observe(toEvent(d, -1));
  }

 private slots:
  void eventsBecomeFamilies() {
    MetricsRegistry m("train\"3", "node-a");
    fill(m);
    const std::string text = m.render();
    auto has = [&](const std::string& s) {
      if (text.find(s) == std::string::npos) QFAIL(("missing: " + s + "\n" + text).c_str());
    };
    has("# TYPE stave_train_steps_total counter\n");
    has("stave_train_steps_total{run=\"train\\\"3\",host=\"node-a\",rank=\"1\"} 25\n");
    has("stave_train_samples_per_second{run=\"train\\\"3\",host=\"node-a\",rank=\"1\"} 101\n");
    has("stave_step_phase_seconds{run=\"train\\\"3\",host=\"node-a\",rank=\"1\",phase=\"data_wait\"} 0.5\n");
    has("stave_gpu_utilization_ratio{run=\"train\\\"3\",host=\"node-a\",gpu=\"1\",name=\"Fake GPU B\"} 0.91");
    has("stave_gpu_sm_clock_hertz{run=\"train\\\"3\",host=\"node-a\",gpu=\"1\",name=\"Fake GPU B\"} 1500000000\n");
    has("stave_val_map50{run=\"train\\\"3\",host=\"node-a\"} 0.5\n");
    has("stave_run_state{run=\"train\\\"3\",host=\"node-a\",state=\"running\"} 1\n");
    has("stave_diagnosis_finding{run=\"train\\\"3\",host=\"node-a\",rule=\"data_bound\",severity=\"warning\"} 1\n");
    has("stave_events_total{run=\"train\\\"3\",host=\"node-a\",type=\"step\"} 2\n");
    // A cleared finding stays as 0, so a dashboard sees it end.
    m.observe(toEvent(DiagnosisEvent{}, -1));
    QVERIFY(m.render().find("rule=\"data_bound\",severity=\"warning\"} 0\n") != std::string::npos);
    // Unknown or malformed events only count.
    Event junk;
    junk.type = "step";
    junk.data = {{"epoch", "x"}};
    m.observe(junk);
    QVERIFY(m.render().find("type=\"step\"} 3\n") != std::string::npos);
  }

  void everyRenderedFamilyIsDocumentedAndLinted() {
    MetricsRegistry m("train\"3", "node-a");
    fill(m);
    const std::string text = m.render();
    for (const auto& f : metricFamilies()) {
      QVERIFY2(f.name.rfind("stave_", 0) == 0, f.name.c_str());
      QCOMPARE(f.type == "counter", f.name.size() > 6 && f.name.substr(f.name.size() - 6) == "_total");
    }
    QProcess p;
    p.start("promtool", {"check", "metrics"});
    if (!p.waitForStarted(10000)) QFAIL("promtool not found: scripts/setup installs Debian's prometheus package");
    p.write(text.data(), static_cast<qint64>(text.size()));
    p.closeWriteChannel();
    QVERIFY(p.waitForFinished(30000));
    const QString out = QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError());
    QVERIFY2(p.exitCode() == 0 && out.trimmed().isEmpty(), qPrintable(out));
  }

  void serverServesRefusesATakenPortAndSurvivesBadClients() {
    MetricsRegistry m("train\"3", "node-a");
    fill(m);
    const int port = freePort();
    auto s = MetricsServer::start("127.0.0.1", port, &m);
    QVERIFY2(s.ok(), s.errorText().c_str());
    QCOMPARE(s.value()->port(), port);
    const std::string ok = scrape(port, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    QVERIFY2(ok.find("200 OK") != std::string::npos, ok.c_str());
    QVERIFY(ok.find("text/plain; version=0.0.4") != std::string::npos);
    QVERIFY(ok.find("stave_train_steps_total") != std::string::npos);

    auto taken = MetricsServer::start("127.0.0.1", port, &m);
    QVERIFY(!taken.ok());
    QVERIFY2(taken.errorText().find("127.0.0.1:" + std::to_string(port)) != std::string::npos &&
                 taken.errorText().find("in use") != std::string::npos,
             taken.errorText().c_str());
    auto notHere = MetricsServer::start("203.0.113.7", freePort(), &m);
    QVERIFY(!notHere.ok());

    // Garbage, a client that never sends, clients that never read: the server goes on.
    QVERIFY(scrape(port, "\x01\x02 garbage\r\n\r\n").find("metrics") == std::string::npos);
    std::vector<int> idle;
    for (int i = 0; i < 20; ++i) {
      const int fd = socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_port = htons(static_cast<uint16_t>(port));
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
      if (i % 2) {
        const char* req = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
        [[maybe_unused]] ssize_t n = ::write(fd, req, strlen(req));
      }
      idle.push_back(fd);
    }
    // Observing never waits for the server.
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 2000; ++i) m.observe(stepAt(0, 0.1));
    QVERIFY(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
    // 20 idle connections do not hold up a scrape (with two server threads, 2-4 of them delayed
    // it by 5-10 s and 20 blocked it).
    const std::string during =
        scrape(port, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    QVERIFY2(during.find("200 OK") != std::string::npos, during.c_str());
    // And once the stalled clients time out, scrapes are still answered.
    std::string again;
    for (int i = 0; i < 30 && again.find("200 OK") == std::string::npos; ++i) {
      again = scrape(port, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      if (again.find("200 OK") == std::string::npos)
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    QVERIFY2(again.find("200 OK") != std::string::npos, again.c_str());
    for (int fd : idle) ::close(fd);
    const std::string missing = scrape(port, "GET /nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    QVERIFY(missing.find("404") != std::string::npos);
    s.value()->stop();
  }

  // A crowd does not blind the endpoint: a thousand connections that never send, and a hundred
  // that trickle a request a byte at a time for longer than any timeout, are there first; a
  // scrape that comes after them is still answered at once, and again while they stay.
  void aCrowdOfIdleAndSlowClientsDoesNotBlindIt() {
    rlimit r{};
    getrlimit(RLIMIT_NOFILE, &r);
    if (r.rlim_max != RLIM_INFINITY && r.rlim_max < 4096) QSKIP("the open-file limit is too low here");
    MetricsRegistry m("crowd", "node-a");
    fill(m);
    const int port = freePort();
    auto s = MetricsServer::start("127.0.0.1", port, &m);  // raises this process's soft limit
    QVERIFY2(s.ok(), s.errorText().c_str());
    std::vector<int> crowd;
    const auto open = [&] {
      const int fd = stave::test::connectLoopback(port);
      QVERIFY(fd >= 0);
      crowd.push_back(fd);
    };
    for (int i = 0; i < 1000; ++i) open();
    std::vector<int> slow;
    for (int i = 0; i < 100; ++i) {
      open();
      slow.push_back(crowd.back());
    }
    std::atomic<bool> done{false};
    std::thread trickle([&] {
      const std::string req = "GET /metrics HTTP/1.1\r\nHost: slow\r\nX-Pad: " + std::string(4000, 'a');
      for (size_t i = 0; i < req.size() && !done; ++i) {
        for (int fd : slow) [[maybe_unused]] auto n = ::send(fd, &req[i], 1, MSG_NOSIGNAL | MSG_DONTWAIT);
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
      }
    });
    for (int round = 0; round < 3; ++round) {
      const std::string got =
          scrape(port, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 4000);
      QVERIFY2(got.find("200 OK") != std::string::npos,
               qPrintable(QString("scrape %1 behind the crowd: ").arg(round) + QString::fromStdString(got)));
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    }
    done = true;
    trickle.join();
    for (int fd : crowd) ::close(fd);
    s.value()->stop();
  }

  // At the connection cap the oldest connection makes room; a request head over its cap, a
  // method other than GET/HEAD, and a client that never finishes are answered or closed.
  void limitsCloseTheOldestAndRefuseTheOversized() {
    MetricsRegistry m("limits", "node-a");
    fill(m);
    MetricsServerLimits limits;
    limits.maxConnections = 50;
    limits.exchangeTimeoutS = 1;
    limits.maxRequestBytes = 1024;
    auto s = MetricsServer::start("127.0.0.1", 0, &m, limits);
    QVERIFY2(s.ok(), s.errorText().c_str());
    const int port = s.value()->port();
    QVERIFY(port > 0);
    std::vector<int> idle;
    for (int i = 0; i < 200; ++i) idle.push_back(stave::test::connectLoopback(port));
    const std::string got = scrape(port, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 4000);
    QVERIFY2(got.find("200 OK") != std::string::npos, got.c_str());
    QVERIFY(got.find("Connection: close") != std::string::npos);
    const std::string head = scrape(port, "HEAD /metrics HTTP/1.1\r\n\r\n");
    QVERIFY(head.find("200 OK") != std::string::npos);
    QVERIFY(head.find("stave_train_steps_total") == std::string::npos);
    QVERIFY(scrape(port, "POST /metrics HTTP/1.1\r\n\r\n").find("405") != std::string::npos);
    QVERIFY(scrape(port, "GET /metrics HTTP/1.1\r\nX: " + std::string(4096, 'x'))
                .find("431") != std::string::npos);
    // One that never finishes its request is closed after the exchange's time.
    const int stalled = stave::test::connectLoopback(port);
    QVERIFY(::send(stalled, "GET /met", 8, MSG_NOSIGNAL) == 8);
    char buf[64];
    QTRY_VERIFY_WITH_TIMEOUT(::recv(stalled, buf, sizeof buf, MSG_DONTWAIT) == 0, 10000);
    ::close(stalled);
    for (int fd : idle) ::close(fd);
  }

  void monitorReportsEveryPeriodAndAtTheEnd() {
    RunMonitorOptions o;
    o.reportPeriodS = 0.2;
    o.doctor.warmupSteps = 0;
    auto m = RunMonitor::create(o);
    QVERIFY(m.ok());
    RunStartEvent rs;
    rs.device = "cpu";
    rs.config = {{"workers", 0}, {"cache", "none"}};
    m.value()->observe(toEvent(rs, 0));
    QVERIFY(m.value()->due().empty());  // the period has just begun
    for (int i = 0; i < 6; ++i) m.value()->observe(stepAt(0, 2.0));
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    auto due = m.value()->due();
    QCOMPARE(due.size(), size_t(1));
    QCOMPARE(due[0].type, std::string(event_type::kDiagnosis));
    auto fin = diagnosisFromEvent(m.value()->finalReport());
    QVERIFY(fin.ok());
    QVERIFY2(!fin->findings.empty(), fin->summary.c_str());
    QVERIFY(fin->final);
    QCOMPARE(fin->findings.at(0).rule, std::string("data_bound"));

    RunMonitorOptions taken = o;
    const int port = freePort();
    auto server = MetricsServer::start("127.0.0.1", port, &m.value()->registry());
    if (server.ok()) {
      taken.metricsPort = port;
      auto refused = RunMonitor::create(taken);
      QVERIFY(!refused.ok());
      QVERIFY2(refused.errorText().find("metrics_port") != std::string::npos, refused.errorText().c_str());
    }
  }
};

QTEST_GUILESS_MAIN(TestMetrics)
#include "tst_metrics.moc"
