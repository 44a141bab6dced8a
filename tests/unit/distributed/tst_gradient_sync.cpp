// GradientSync with 2 Gloo ranks as threads: the averaged gradient equals one process's
// gradient over the union of the ranks' batches, with and without accumulation; weights stay
// identical after a step; unused parameters do not deadlock; all-reduce overlaps backward.
#include <QtTest>

#include <mutex>

#include "core/distributed/gradient_sync.h"
#include "dist_test_util.h"

using namespace stave::dist;
using stave::dist::testing::joined;
using stave::dist::testing::runRanks;

namespace {

torch::nn::Sequential makeMlp() {
  return torch::nn::Sequential(
      torch::nn::Linear(8, 16),
      torch::nn::Functional([](torch::Tensor t) { return torch::tanh(t); }),
      torch::nn::Linear(16, 16),
      torch::nn::Functional([](torch::Tensor t) { return torch::tanh(t); }),
      torch::nn::Linear(16, 4));
}

void loadWeights(torch::nn::Module& m, const std::vector<torch::Tensor>& w) {
  torch::NoGradGuard g;
  auto p = m.parameters();
  for (size_t i = 0; i < p.size(); ++i) p[i].copy_(w[i]);
}

std::vector<torch::Tensor> cloneAll(const std::vector<torch::Tensor>& ts, bool grads) {
  std::vector<torch::Tensor> out;
  for (const auto& t : ts) out.push_back((grads ? t.grad() : t).detach().clone());
  return out;
}

std::string compareAll(const std::vector<torch::Tensor>& got,
                       const std::vector<torch::Tensor>& want, double tol, const char* what) {
  for (size_t i = 0; i < want.size(); ++i) {
    if (!got[i].defined()) return std::string(what) + " " + std::to_string(i) + " undefined";
    const double d = (got[i] - want[i]).abs().max().item<double>();
    if (d > tol)
      return std::string(what) + " " + std::to_string(i) + " differs by " + std::to_string(d);
  }
  return "";
}

}  // namespace

class TstGradientSync : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { torch::set_num_threads(1); }

  void equivalence_data() {
    QTest::addColumn<int>("accumulate");
    QTest::addColumn<double>("bucketMb");
    QTest::newRow("one bucket") << 1 << 25.0;
    QTest::newRow("bucket per tensor") << 1 << 1e-6;
    QTest::newRow("small buckets") << 1 << 0.0008;
    QTest::newRow("accumulate 2, one bucket") << 2 << 25.0;
    QTest::newRow("accumulate 2, small buckets") << 2 << 0.0008;
  }
  void equivalence() {
    QFETCH(int, accumulate);
    QFETCH(double, bucketMb);
    const int ws = 2, perRank = 8;
    // Data and initial weights made once here: torch's RNG is global, ranks are threads.
    torch::manual_seed(7);
    auto x = torch::randn({ws * perRank, 8});
    auto y = torch::randn({ws * perRank, 4});
    auto init = makeMlp();
    const auto weights = cloneAll(init->parameters(), false);

    // Reference: one process, mean loss over the union of all ranks' samples.
    auto ref = makeMlp();
    loadWeights(*ref, weights);
    torch::mse_loss(ref->forward(x), y).backward();
    const auto refGrads = cloneAll(ref->parameters(), true);
    torch::optim::SGD refOpt(ref->parameters(), torch::optim::SGDOptions(0.1));
    refOpt.step();
    const auto refAfter = cloneAll(ref->parameters(), false);

    std::mutex mutex;
    std::vector<std::vector<torch::Tensor>> after(ws);
    auto failures = runRanks(ws, [&](ProcessGroup& pg) -> std::string {
      const int r = pg.rank();
      auto net = makeMlp();
      if (r == 0) loadWeights(*net, weights);  // others get them from the broadcast
      pg.broadcastParameters(*net);
      GradientSync sync(pg, net->parameters(), bucketMb);
      if (bucketMb < 1e-3 && sync.stats().buckets < 2) return "expected several buckets";
      const int micro = perRank / accumulate;
      for (int m = 0; m < accumulate; ++m) {
        const bool last = m == accumulate - 1;
        sync.setSyncEnabled(last);
        sync.prepareForBackward();
        auto xs = x.narrow(0, r * perRank + m * micro, micro);
        auto ys = y.narrow(0, r * perRank + m * micro, micro);
        (torch::mse_loss(net->forward(xs), ys) / accumulate).backward();
        if (!last && sync.stats().launchedInBackward != 0)
          return "an accumulation micro-step all-reduced";
        if (!last && sync.wait() != 0.0) return "wait() on a no-sync micro-step communicated";
      }
      sync.wait();
      const auto st = sync.stats();
      if (st.syncSteps != 1) return "syncSteps " + std::to_string(st.syncSteps);
      if (st.launchedInBackward != st.buckets)
        return "only " + std::to_string(st.launchedInBackward) + " of " +
               std::to_string(st.buckets) + " buckets started during backward";
      auto msg = compareAll(cloneAll(net->parameters(), true), refGrads, 1e-6, "gradient");
      if (!msg.empty()) return msg;
      torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.1));
      opt.step();
      std::lock_guard<std::mutex> lock(mutex);
      after[r] = cloneAll(net->parameters(), false);
      return "";
    });
    QVERIFY2(failures.empty(), joined(failures).c_str());
    // Identical weights on every rank after the step (bit for bit), and equal to the reference.
    for (size_t i = 0; i < after[0].size(); ++i) QVERIFY(torch::equal(after[0][i], after[1][i]));
    const auto msg = compareAll(after[0], refAfter, 1e-6, "weight");
    QVERIFY2(msg.empty(), msg.c_str());
  }

  void unusedParameters() {
    torch::manual_seed(3);
    auto x = torch::randn({4, 8});
    auto failures = runRanks(2, [&](ProcessGroup& pg) -> std::string {
      torch::nn::Linear used(8, 4), unused(8, 4), tail(4, 2);
      std::vector<torch::Tensor> params;
      for (auto* m : {&used, &unused, &tail})
        for (auto& p : (*m)->parameters()) params.push_back(p);
      {
        torch::NoGradGuard g;
        for (auto& p : params) p.fill_(0.1f);
      }
      GradientSync sync(pg, params, 1e-6);  // one bucket per tensor
      for (int step = 0; step < 2; ++step) {
        sync.prepareForBackward();
        tail->forward(used->forward(x * (pg.rank() + 1))).sum().backward();
        sync.wait();
      }
      const auto st = sync.stats();
      if (st.launchedInWait < 2) return "unused buckets were not launched in wait()";
      if (!unused->weight.grad().defined() || unused->weight.grad().abs().max().item<float>() != 0)
        return "unused gradient not zero";
      return "";
    });
    QVERIFY2(failures.empty(), joined(failures).c_str());
  }

  void firstBucketIsSmall() {
    // 6 x (384 x 384 + 384) floats = 3.4 MiB: one 25 MiB bucket would hold everything and start
    // only after backward; the first bucket is capped at 1 MiB (as PyTorch DDP's) instead.
    std::mutex mutex;
    std::vector<std::vector<std::vector<size_t>>> layouts(2);
    auto failures = runRanks(2, [&](ProcessGroup& pg) -> std::string {
      torch::nn::Sequential net;
      for (int i = 0; i < 6; ++i) net->push_back(torch::nn::Linear(384, 384));
      GradientSync sync(pg, net->parameters(), 25.0);
      std::lock_guard<std::mutex> lock(mutex);
      layouts[pg.rank()] = sync.bucketLayout();
      return "";
    });
    QVERIFY2(failures.empty(), joined(failures).c_str());
    QCOMPARE(layouts[0], layouts[1]);
    QCOMPARE(layouts[0].size(), size_t{2});
    // Reverse order: the last Linear's bias (index 11) and weight (10), then the weight of the
    // one before pushes the first bucket past 1 MiB: (384*384 + 384 + 384*384) * 4 B > 1 MiB.
    QCOMPARE(layouts[0][0], (std::vector<size_t>{11, 10, 9, 8}));
  }

  void overlap() {
    // Several buckets and a backward long enough that the early buckets' all-reduce runs
    // while later layers are still differentiated: the wait is shorter than the all-reduce.
    torch::manual_seed(5);
    auto x = torch::randn({512, 384});
    std::mutex mutex;
    std::vector<SyncStats> stats(2);
    auto failures = runRanks(2, [&](ProcessGroup& pg) -> std::string {
      torch::nn::Sequential net;
      for (int i = 0; i < 6; ++i) {
        net->push_back(torch::nn::Linear(384, 384));
        net->push_back(torch::nn::Functional([](torch::Tensor t) { return torch::relu(t); }));
      }
      pg.broadcastParameters(*net);
      GradientSync sync(pg, net->parameters(), 0.5);
      for (int step = 0; step < 3; ++step) {
        sync.prepareForBackward();
        net->forward(x).pow(2).mean().backward();
        sync.wait();
      }
      std::lock_guard<std::mutex> lock(mutex);
      stats[pg.rank()] = sync.stats();
      return "";
    });
    QVERIFY2(failures.empty(), joined(failures).c_str());
    for (const auto& s : stats) {
      QVERIFY(s.buckets >= 4);
      QCOMPARE(s.syncSteps, int64_t{3});
      QVERIFY(s.launchedInBackward == 3 * s.buckets);
      QVERIFY2(s.totalWaitS < s.totalAllreduceS,
               qPrintable(
                   QString("wait %1 s, all-reduce %2 s").arg(s.totalWaitS).arg(s.totalAllreduceS)));
      QVERIFY(s.overlapRatio() > 0);
    }
  }
};

QTEST_GUILESS_MAIN(TstGradientSync)
#include "tst_gradient_sync.moc"
