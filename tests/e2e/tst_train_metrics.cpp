// The Prometheus endpoint of a real run (docs/metrics.md): `stave-train train --metrics-port`
// on 2 Gloo ranks, one of them slowed (a straggler and a diagnosis), validation on, the fake
// two-GPU NVML for the GPU gauges. The test scrapes /metrics while the run trains, lints every
// scrape with Prometheus' own `promtool check metrics`, checks that every metric the Grafana
// dashboard queries is exported, that clients that stall or send garbage neither stop the
// endpoint nor the run, and that a port already taken refuses the run with a clear message.

#include <sys/socket.h>

#include <csignal>

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>
#include <QtTest>

#include "common/loopback.h"
#include "e2e/train_e2e_util.h"

#ifndef STAVE_FAKE_NVML
#define STAVE_FAKE_NVML ""
#endif

using namespace stave::e2e;

namespace {

int connectTo(int port) { return stave::test::connectLoopback(port); }

// GET `path` over a plain socket; the body, or a null string when the endpoint is not up or
// does not answer within `timeoutMs`. `status` gets the HTTP status code.
QString httpGet(int port, const char* path, int* status = nullptr, int timeoutMs = 3000) {
  const QByteArray reply = QByteArray::fromStdString(stave::test::exchangeLoopback(
      port, std::string("GET ") + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
      timeoutMs));
  const int headerEnd = reply.indexOf("\r\n\r\n");
  if (!reply.startsWith("HTTP/1.1 ") || headerEnd < 0) return {};
  if (status) *status = reply.mid(9, 3).toInt();
  return QString::fromUtf8(reply.mid(headerEnd + 4));
}

int freePort() { return stave::test::freeLoopbackPort(); }

// Family names of a scrape (its # TYPE lines), and whether every sample belongs to one.
QSet<QString> familiesOf(const QString& scrape) {
  QSet<QString> names;
  static const QRegularExpression type("^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) ",
                                       QRegularExpression::MultilineOption);
  for (auto it = type.globalMatch(scrape); it.hasNext();) names.insert(it.next().captured(1));
  return names;
}

// promtool's verdict on a scrape: "" when clean, its complaints otherwise.
QString promtoolProblems(const QString& scrape) {
  QProcess p;
  p.start("promtool", {"check", "metrics"});
  if (!p.waitForStarted(10000))
    return "promtool not found: scripts/setup installs Debian's prometheus package";
  p.write(scrape.toUtf8());
  p.closeWriteChannel();
  p.waitForFinished(30000);
  const QString said = QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError());
  return p.exitCode() == 0 && said.trimmed().isEmpty() ? QString() : said + " (exit " + QString::number(p.exitCode()) + ")";
}

// Every metric name the Grafana dashboard's queries use (histogram/summary suffixes folded).
QSet<QString> dashboardMetrics(QString* error) {
  QFile f(QStringLiteral(STAVE_SOURCE_DIR) + "/resources/grafana/stave-cluster.json");
  if (!f.open(QIODevice::ReadOnly)) {
    *error = f.fileName() + ": cannot be read";
    return {};
  }
  QJsonParseError pe;
  const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &pe);
  if (doc.isNull()) {
    *error = f.fileName() + ": " + pe.errorString();
    return {};
  }
  QSet<QString> names;
  static const QRegularExpression metric("\\bstave_[a-z0-9_]+");
  std::function<void(const QJsonValue&)> walk = [&](const QJsonValue& v) {
    if (v.isArray()) {
      for (const auto& x : v.toArray()) walk(x);
    } else if (v.isObject()) {
      const QJsonObject o = v.toObject();
      for (auto it = o.begin(); it != o.end(); ++it) {
        if ((it.key() == "expr" || it.key() == "query") && it->isString()) {
          for (auto m = metric.globalMatch(it->toString()); m.hasNext();) {
            QString n = m.next().captured(0);
            for (const char* suffix : {"_bucket", "_sum", "_count"})
              if (n.endsWith(suffix) && n != "stave_train_steps_total") n.chop(int(strlen(suffix)));
            names.insert(n);
          }
        } else if (it->isObject() || it->isArray()) {
          walk(it.value());
        }
      }
    }
  };
  walk(doc.object());
  return names;
}

}  // namespace

class TestTrainMetrics : public QObject {
  Q_OBJECT
  QTemporaryDir m_tmp;
  QString m_data;

  QString config(const QString& name, int epochs) {
    const QString cfg = m_tmp.filePath(name + ".yaml");
    return writeTinyConfig(cfg, m_data, 64, epochs, 16,
                           {"workers: 1", "report_period_s: 2", "sample_period_s: 0.5"})
               ? cfg
               : QString();
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_tmp.isValid());
    m_data = makeDemoDataset(m_tmp.filePath("demo"), 256, 16, 160);
    QVERIFY(!m_data.isEmpty());
  }

  void scrapedDuringATwoRankRun() {
    if (QString(STAVE_FAKE_NVML).isEmpty()) QSKIP("built without the fake NVML library");
    QString error;
    const QSet<QString> wanted = dashboardMetrics(&error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY2(wanted.size() >= 20, "the dashboard queries the run's metrics");

    // Runs until the test has seen what it checks (then it is stopped): a machine that is busy
    // reaches the doctor's confirmed diagnosis later, never too late.
    const QString cfg = config("scraped", 500);
    QVERIFY(!cfg.isEmpty());
    const int port = freePort();
    QProcess run;
    QStringList env = QProcess::systemEnvironment();
    env << "STAVE_NVML_LIBRARY=" STAVE_FAKE_NVML << "STAVE_FAULT_SLOW_DATA_RANK=1"
        << "STAVE_FAULT_SLOW_DATA_MS=150";
    run.setEnvironment(env);
    run.start(QStringLiteral(STAVE_TRAIN_EXE),
              {"train", cfg, "--run-dir", m_tmp.filePath("runs/scraped"), "--nproc", "2",
               "--metrics-port", QString::number(port)});
    QVERIFY(run.waitForStarted(20000));

    QSet<QString> seen;       // families over every scrape
    QString richest;          // the scrape with the most families
    QStringList lintProblems;
    QStringList stragglerLines;  // from every scrape
    int scrapes = 0, stalledOpened = 0, scrapesAfterStall = 0;
    std::vector<int> stalled;
    QElapsedTimer clock;
    clock.start();
    const auto sawEverything = [&] {
      const QString said = stragglerLines.join("\n");
      return scrapes >= 5 && scrapesAfterStall >= 3 && (wanted - seen).isEmpty() &&
             said.contains(QRegularExpression("^stave_straggler_rank\\{[^}]*\\} 1$",
                                              QRegularExpression::MultilineOption)) &&
             said.contains(QRegularExpression(
                 "^stave_diagnosis_finding\\{[^}]*rule=\"straggler\"[^}]*\\} 1$",
                 QRegularExpression::MultilineOption));
    };
    bool stopped = false;
    while (!run.waitForFinished(400)) {
      if (clock.elapsed() > 600000) break;
      if (!stopped && (sawEverything() || clock.elapsed() > 400000)) {
        ::kill(static_cast<pid_t>(run.processId()), SIGTERM);  // a graceful stop: exit code 0
        stopped = true;
      }
      int status = 0;
      const QString s = httpGet(port, "/metrics", &status);
      if (s.isNull()) continue;
      QCOMPARE(status, 200);
      ++scrapes;
      if (stalledOpened) ++scrapesAfterStall;
      for (const auto& line : s.split('\n'))
        if (line.startsWith("stave_straggler_rank") || line.startsWith("stave_diagnosis_finding"))
          stragglerLines << line;
      const QSet<QString> fam = familiesOf(s);
      if (fam.size() > familiesOf(richest).size()) richest = s;
      const bool grew = !(fam - seen).isEmpty();
      seen |= fam;
      if (grew || scrapes == 1) {
        const QString p = promtoolProblems(s);
        if (!p.isEmpty()) lintProblems << p;
      }
      // Once the endpoint is up: clients that send half a request and never finish it, send
      // garbage, or ask and never read. The endpoint's own timeouts drop them.
      if (scrapes == 1) {
        for (const char* junk : {"GET /metr", "\x16\x03\x01\x02\x00 not http\r\n\r\n",
                                 "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", ""}) {
          const int fd = connectTo(port);
          if (fd < 0) continue;
          if (*junk) ::send(fd, junk, strlen(junk), MSG_NOSIGNAL);
          stalled.push_back(fd);
          ++stalledOpened;
        }
      }
    }
    for (int fd : stalled) ::close(fd);
    QCOMPARE(run.exitStatus(), QProcess::NormalExit);
    const QString err = QString::fromUtf8(run.readAllStandardError());
    QVERIFY2(run.exitCode() == 0, qPrintable(err.right(3000)));
    QVERIFY2(err.contains(QString("metrics on http://127.0.0.1:%1/metrics").arg(port)),
             qPrintable(err.right(2000)));
    QVERIFY2(scrapes >= 5, qPrintable(QString("only %1 scrapes answered").arg(scrapes)));
    QVERIFY2(stalledOpened >= 3 && scrapesAfterStall >= 3,
             "the endpoint keeps answering while stalled clients hold connections");
    QVERIFY2(lintProblems.isEmpty(), qPrintable(lintProblems.join("\n")));

    // Every metric the dashboard queries is exported during the run.
    QStringList missing;
    for (const auto& n : wanted)
      if (!seen.contains(n)) missing << n;
    missing.sort();
    QVERIFY2(missing.isEmpty(), qPrintable("not exported: " + missing.join(", ")));

    // Labels: both ranks, the fake NVML's two GPUs, the run.
    QVERIFY2(richest.contains(QRegularExpression("stave_train_samples_per_second\\{[^}]*rank=\"0\"")) &&
                 richest.contains(QRegularExpression("stave_train_samples_per_second\\{[^}]*rank=\"1\"")),
             qPrintable(richest.left(4000)));
    QVERIFY2(richest.contains(QRegularExpression("stave_gpu_utilization_ratio\\{[^}]*gpu=\"1\"")),
             qPrintable(richest.left(4000)));
    QVERIFY(richest.contains("run=\"scraped\""));
    // The slowed rank is the straggler, and the diagnosis says so.
    stragglerLines.removeDuplicates();
    const QString said = stragglerLines.join("\n");
    QVERIFY2(QRegularExpression("^stave_straggler_rank\\{[^}]*\\} 1$", QRegularExpression::MultilineOption)
                 .match(said)
                 .hasMatch(),
             qPrintable(said));
    QVERIFY2(QRegularExpression("^stave_diagnosis_finding\\{[^}]*rule=\"straggler\"[^}]*\\} 1$",
                                QRegularExpression::MultilineOption)
                 .match(said)
                 .hasMatch(),
             qPrintable(said));
  }

  void endpointAnswersOnlyMetrics() {
    // A single-process run serves the endpoint too: another path gets 404, and the port closes
    // with the run.
    const QString cfg = config("paths", 2);
    QVERIFY(!cfg.isEmpty());
    const int port = freePort();
    QProcess run;
    run.start(QStringLiteral(STAVE_TRAIN_EXE), {"train", cfg, "--run-dir", m_tmp.filePath("runs/paths"),
                                                "--metrics-port", QString::number(port)});
    QVERIFY(run.waitForStarted(20000));
    int status = 0;
    QString body;
    QElapsedTimer clock;
    clock.start();
    while (body.isNull() && clock.elapsed() < 120000 && !run.waitForFinished(200))
      body = httpGet(port, "/nowhere", &status);
    QVERIFY2(!body.isNull(), "the endpoint of a 1-rank run answers");
    QCOMPARE(status, 404);
    QVERIFY(run.waitForFinished(300000));
    QCOMPARE(run.exitCode(), 0);
    QVERIFY2(httpGet(port, "/metrics").isNull(), "the endpoint closes with the run");
  }

  void takenPortRefusesTheRun() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    QVERIFY(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    QVERIFY(::listen(fd, 4) == 0);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    const QString port = QString::number(ntohs(a.sin_port));
    const QString cfg = config("taken", 1);
    for (const QStringList extra : {QStringList{}, QStringList{"--nproc", "2"}}) {
      auto r = runStaveTrain(QStringList{"train", cfg, "--run-dir", m_tmp.filePath("runs/taken" + extra.join("")),
                                         "--metrics-port", port} + extra);
      QVERIFY2(r.exitCode != 0 && !r.crashed, qPrintable(r.err));
      QVERIFY2(r.err.contains(port) && r.err.contains("in use"), qPrintable(r.err));
      QVERIFY2(!QFile::exists(m_tmp.filePath("runs/taken" + extra.join("") + "/weights/last.pt")),
               "no training without its endpoint");
    }
    ::close(fd);
    auto bad = runStaveTrain({"train", cfg, "--metrics-port", "70000"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("--metrics-port"), qPrintable(bad.err));
  }
};

QTEST_GUILESS_MAIN(TestTrainMetrics)
#include "tst_train_metrics.moc"
