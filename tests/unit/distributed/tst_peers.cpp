// A lost peer in words: a transport error naming a peer's address becomes "node N (address,
// host) was lost" with its ranks; errors that name no known peer, or are no connection
// failure, are left to the caller.
#include <QtTest/QtTest>

#include "core/distributed/peers.h"

using namespace stave::dist;

class TstPeers : public QObject {
  Q_OBJECT
 private slots:
  // Two nodes of two ranks: rank 0 sees node 1's address in Gloo's message.
  void namesTheLostNode() {
    const std::vector<RankPlace> places{{0, 0, "10.213.7.1", "a"},
                                        {1, 0, "10.213.7.1", "a"},
                                        {2, 1, "10.213.7.2", "b"},
                                        {3, 1, "10.213.7.2", "b"}};
    const std::string raw =
        "[/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:547] Connection closed by peer "
        "[10.213.7.2]:7841";
    const std::string text = describePeerLoss(raw, places, 0);
    QVERIFY2(text.rfind("node 1 (10.213.7.2, host b) was lost", 0) == 0, text.c_str());
    QVERIFY2(text.find("ranks 2-3") != std::string::npos, text.c_str());
    QVERIFY2(text.find("resume=true") != std::string::npos, text.c_str());
    QVERIFY2(text.find("pair.cc") == std::string::npos, "no transport text in the message");
    // The same words as a catalog message, for the studio (the English is that message's).
    const stave::Text lost = peerLossText(raw, places, 0);
    QCOMPARE(lost.id, std::string("dist.node_lost"));
    QCOMPARE(stave::english(lost), text);
    // A timeout says the node stopped answering.
    const std::string timeout = describePeerLoss(
        "[gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv "
        "operation to complete from [10.213.7.2]:51234",
        places, 1);
    QVERIFY2(timeout.find("stopped answering") != std::string::npos, timeout.c_str());
  }

  // Peers on this node (one host: every rank has the same address) are not a lost node.
  void sameNodePeerIsNoNode() {
    const std::vector<RankPlace> places{{0, 0, "127.0.0.1", "a"}, {1, 0, "127.0.0.1", "a"}};
    const std::string text =
        describePeerLoss("Connection reset by peer [127.0.0.1]:4000", places, 0);
    QVERIFY2(text.find("node") == std::string::npos, text.c_str());
    QVERIFY2(text.find("rank 1") != std::string::npos, text.c_str());
  }

  // Not a connection failure, or an address no rank has: "" (the caller keeps its message).
  void otherErrorsAreLeftAlone() {
    const std::vector<RankPlace> places{{0, 0, "10.0.0.1", "a"}, {1, 1, "10.0.0.2", "b"}};
    QCOMPARE(describePeerLoss("out of memory", places, 0), std::string());
    QCOMPARE(describePeerLoss("Connection closed by peer [10.9.9.9]:1", places, 0),
             std::string());
    QCOMPARE(describePeerLoss("Connection closed by peer", places, 0), std::string());
  }

  // A place survives its text form; a bad line decodes to rank -1.
  void placeRoundTrip() {
    const RankPlace p{5, 2, "10.1.2.3", "gpu07"};
    const RankPlace q = decodePlace(encodePlace(p));
    QCOMPARE(q.rank, 5);
    QCOMPARE(q.node, 2);
    QCOMPARE(q.address, std::string("10.1.2.3"));
    QCOMPARE(q.host, std::string("gpu07"));
    QCOMPARE(decodePlace(encodePlace(RankPlace{1, 0, "", ""})).address, std::string());
    QCOMPARE(decodePlace("garbage").rank, -1);
  }

  // This machine: the loopback interface has 127.0.0.1; the route to 127.0.0.1 starts there.
  void localAddresses() {
    QCOMPARE(interfaceAddress("lo"), std::string("127.0.0.1"));
    QCOMPARE(interfaceAddress("no-such-interface0"), std::string());
    QCOMPARE(localAddressFor("127.0.0.1", 29500), std::string("127.0.0.1"));
    DistEnv env;
    env.rank = 3;
    env.localWorldSize = 2;
    env.masterAddr = "127.0.0.1";
    env.masterPort = 29500;
    const RankPlace p = thisRankPlace(env, "lo,eth0");
    QCOMPARE(p.node, 1);
    QCOMPARE(p.address, std::string("127.0.0.1"));
  }
};

QTEST_GUILESS_MAIN(TstPeers)
#include "tst_peers.moc"
