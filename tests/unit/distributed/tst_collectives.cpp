// ProcessGroup on Gloo with 2-4 ranks as threads: collectives and rendezvous failures.
#include <QtTest>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include "dist_test_util.h"

using namespace stave::dist;
using stave::dist::testing::joined;
using stave::dist::testing::runRanks;

namespace {
std::string expectClose(const torch::Tensor& got, const torch::Tensor& want, const char* what) {
  if (!torch::allclose(got, want, 1e-6, 1e-6))
    return std::string(what) + " differs: max abs diff " +
           std::to_string((got - want).abs().max().item<double>());
  return "";
}

DistEnv envFor(int rank, int worldSize, int port) {
  DistEnv e;
  e.rank = rank;
  e.worldSize = worldSize;
  e.localWorldSize = worldSize;
  e.localRank = rank;
  e.masterAddr = "127.0.0.1";
  e.masterPort = port;
  return e;
}
}  // namespace

class TstCollectives : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { torch::set_num_threads(1); }

  void collectives_data() {
    QTest::addColumn<int>("worldSize");
    QTest::newRow("2 ranks") << 2;
    QTest::newRow("3 ranks") << 3;
    QTest::newRow("4 ranks") << 4;
  }
  void collectives() {
    QFETCH(int, worldSize);
    auto failures = runRanks(worldSize, [worldSize](ProcessGroup& pg) -> std::string {
      const int r = pg.rank();
      if (pg.worldSize() != worldSize || pg.backendName() != "gloo") return "bad identity";
      // allReduce, coalescing float and integer tensors.
      auto a = torch::arange(6, torch::kFloat).reshape({2, 3}) * (r + 1);
      auto b = torch::full({4}, r + 1, torch::kLong);
      std::vector<torch::Tensor> ts{a, b};
      pg.allReduce(ts);
      const int sum = worldSize * (worldSize + 1) / 2;
      auto msg = expectClose(a, torch::arange(6, torch::kFloat).reshape({2, 3}) * sum, "sum");
      if (!msg.empty()) return msg;
      if (!torch::equal(b, torch::full({4}, sum, torch::kLong))) return "long sum differs";
      auto m = torch::full({3}, static_cast<float>(r), torch::kFloat);
      std::vector<torch::Tensor> ms{m};
      pg.allReduceMean(ms);
      msg = expectClose(m, torch::full({3}, (worldSize - 1) / 2.0f), "mean");
      if (!msg.empty()) return msg;

      // broadcast from the last rank.
      auto c = torch::full({5}, static_cast<float>(r * 10));
      std::vector<torch::Tensor> cs{c};
      pg.broadcast(cs, worldSize - 1);
      msg = expectClose(c, torch::full({5}, static_cast<float>((worldSize - 1) * 10)), "broadcast");
      if (!msg.empty()) return msg;

      // allGather of float vectors of different lengths, and of byte strings.
      std::vector<float> mine(static_cast<size_t>(r + 1), static_cast<float>(r) + 0.5f);
      auto all = pg.allGather(mine);
      if (static_cast<int>(all.size()) != worldSize) return "allGather size";
      for (int k = 0; k < worldSize; ++k)
        if (all[k] != std::vector<float>(static_cast<size_t>(k + 1), k + 0.5f))
          return "allGather of rank " + std::to_string(k) + " differs";
      std::string bytes = r == 1 ? std::string() : std::string("rank\0", 5) + std::to_string(r);
      auto strings = pg.allGatherBytes(bytes);
      for (int k = 0; k < worldSize; ++k) {
        const std::string want =
            k == 1 ? std::string() : std::string("rank\0", 5) + std::to_string(k);
        if (strings[k] != want) return "allGatherBytes of rank " + std::to_string(k) + " differs";
      }
      pg.barrier();
      return "";
    });
    QVERIFY2(failures.empty(), joined(failures).c_str());
  }

  void modulesFollowRankZero() {
    auto failures = runRanks(2, [](ProcessGroup& pg) -> std::string {
      // Rank-specific weights without the RNG (it is global, and ranks are threads here).
      auto pattern = [](const torch::Tensor& t, int rank, size_t i) {
        return torch::arange(t.numel(), torch::kFloat).reshape(t.sizes()) * 0.01f +
               static_cast<float>((rank + 1) * (i + 1));
      };
      torch::nn::Sequential net(torch::nn::Linear(4, 3), torch::nn::BatchNorm1d(3));
      {
        torch::NoGradGuard g;
        auto params = net->parameters();
        for (size_t i = 0; i < params.size(); ++i)
          params[i].copy_(pattern(params[i], pg.rank(), i));
        auto bufs = net->buffers();
        for (auto& b : bufs)
          if (b.is_floating_point()) b.fill_(static_cast<float>(pg.rank() + 1));
      }
      pg.broadcastParameters(*net);
      auto p = net->parameters();
      for (size_t i = 0; i < p.size(); ++i)
        if (!torch::equal(p[i], pattern(p[i], 0, i)))
          return "parameter " + std::to_string(i) + " not rank 0's";
      pg.averageBuffers(*net);
      for (auto& b : net->buffers())
        if (b.is_floating_point() && !torch::allclose(b, torch::full_like(b, 1.5f)))
          return "buffer not averaged";
      {
        torch::NoGradGuard g;
        for (auto& b : net->buffers())
          if (b.is_floating_point()) b.fill_(static_cast<float>(pg.rank() + 7));
      }
      pg.broadcastBuffers(*net);
      for (auto& b : net->buffers())
        if (b.is_floating_point() && !torch::allclose(b, torch::full_like(b, 7.0f)))
          return "buffer not rank 0's";
      return "";
    });
    QVERIFY2(failures.empty(), joined(failures).c_str());
  }

  void unreachableMaster() {
    // Nothing listens on the port: rank 1 must give up within its timeout with a clear error.
    const int port = findFreePort().value();
    ProcessGroupOptions o = testing::shortOptions();
    o.rendezvousTimeoutS = 2;
    const auto t0 = std::chrono::steady_clock::now();
    auto pg = ProcessGroup::create(envFor(1, 2, port), o);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    QVERIFY(!pg.ok());
    // Gives up instead of waiting for the default 30-minute timeout. The bound is loose: the
    // TCPStore client of LibTorch 2.11 retries with a randomised back-off of up to ~6 s.
    QVERIFY2(s < o.rendezvousTimeoutS + 25, std::to_string(s).c_str());
    const QString text = QString::fromStdString(pg.errorText());
    QVERIFY2(text.contains("master_addr") && text.contains(QString::number(port)) &&
                 text.contains("cannot reach"),
             qPrintable(text));
  }

  void portInUse() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    QCOMPARE(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    QCOMPARE(listen(fd, 4), 0);
    socklen_t len = sizeof addr;
    getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    const int port = ntohs(addr.sin_port);
    ProcessGroupOptions o = testing::shortOptions();
    o.rendezvousTimeoutS = 2;
    auto pg = ProcessGroup::create(envFor(0, 2, port), o);
    close(fd);
    QVERIFY(!pg.ok());
    const QString text = QString::fromStdString(pg.errorText());
    QVERIFY2(text.contains("master_port") && text.contains("in use"), qPrintable(text));
  }

  void worldSizeMismatch() {
    const int port = findFreePort().value();
    ProcessGroupOptions o = testing::shortOptions();
    o.rendezvousTimeoutS = 5;
    std::string err0, err1;
    const auto t0 = std::chrono::steady_clock::now();
    std::thread t([&] {
      auto pg = ProcessGroup::create(envFor(0, 2, port), o);
      err0 = pg.ok() ? "" : pg.errorText();
    });
    auto pg1 = ProcessGroup::create(envFor(1, 3, port), o);
    err1 = pg1.ok() ? "" : pg1.errorText();
    t.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    QVERIFY2(s < 5, std::to_string(s).c_str());  // the mismatch ends both waits early
    QVERIFY2(QString::fromStdString(err1).contains("world size mismatch"), err1.c_str());
    QVERIFY2(QString::fromStdString(err0).contains("world size mismatch"), err0.c_str());
  }
};

QTEST_GUILESS_MAIN(TstCollectives)
#include "tst_collectives.moc"
