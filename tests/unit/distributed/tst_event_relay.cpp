// The event relay between launchers: lines sent before node 0 listens wait and arrive in order,
// whole; a second port user is refused naming the port; a closed sender is forgotten.
#include <QtTest/QtTest>

#include <thread>

#include "common/loopback.h"
#include "core/distributed/event_relay.h"

using namespace stave::dist;

class TstEventRelay : public QObject {
  Q_OBJECT
 private slots:
  void linesArriveInOrderOnceNodeZeroListens() {
    const int port = stave::test::freeLoopbackPort();
    auto client = std::make_unique<RelayClient>("127.0.0.1", port);
    client->send("{\"a\":1}");
    client->send("{\"b\":2}");
    QVERIFY(!client->connected());  // nobody listens yet: the lines wait

    auto server = RelayServer::listen(port);
    QVERIFY2(bool(server), qPrintable(QString::fromStdString(server.errorText())));
    std::vector<std::string> got;
    client->send(std::string(100000, 'x'));  // a long line stays one line
    for (int i = 0; i < 200 && got.size() < 3; ++i) {
      client->service();
      std::vector<pollfd> fds;
      server.value()->addPollFds(fds);
      poll(fds.data(), fds.size(), 20);
      server.value()->service([&](const std::string& l) { got.push_back(l); });
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    QCOMPARE(got.size(), size_t(3));
    QCOMPARE(got[0], std::string("{\"a\":1}"));
    QCOMPARE(got[1], std::string("{\"b\":2}"));
    QCOMPARE(got[2].size(), size_t(100000));
    QCOMPARE(server.value()->connections(), 1);

    // The sender goes away: node 0 forgets the connection.
    client.reset();
    for (int i = 0; i < 100 && server.value()->connections() > 0; ++i) {
      server.value()->service([&](const std::string& l) { got.push_back(l); });
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    QCOMPARE(server.value()->connections(), 0);
    QCOMPARE(got.size(), size_t(3));

    // The port is taken now: a second listener is refused, naming the port.
    auto second = RelayServer::listen(port);
    QVERIFY(!second);
    QVERIFY(second.errorText().find(std::to_string(port)) != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TstEventRelay)
#include "tst_event_relay.moc"
