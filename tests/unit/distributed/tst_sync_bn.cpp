// SyncBatchNorm (core/model syncBatchNorm) with 2 Gloo ranks as threads, each holding half of a
// batch: outputs, input gradients and running stats equal one process's BatchNorm2d in training
// mode on the whole batch; weight/bias gradients are local sums that add up to the whole
// batch's. Eval mode and a Conv without a sync never call the collectives.
#include <QtTest>

#include <atomic>

#include "core/model/yolo.h"
#include "dist_test_util.h"

using namespace stave::dist;
using stave::dist::testing::joined;
using stave::dist::testing::runRanks;
namespace model = stave::model;

namespace {

/// allReduceSum over a ProcessGroup, counting calls.
class GroupSync : public model::BatchNormSync {
 public:
  explicit GroupSync(ProcessGroup* group) : m_group(group) {}
  void allReduceSum(std::vector<torch::Tensor>& tensors) override {
    ++calls;
    if (m_group) m_group->allReduce(tensors, ReduceMode::Sum);
  }
  std::atomic<int> calls{0};

 private:
  ProcessGroup* m_group;
};

torch::nn::BatchNorm2d makeBn(int64_t c, const torch::Tensor& w, const torch::Tensor& b) {
  torch::nn::BatchNorm2d bn(torch::nn::BatchNorm2dOptions(c).eps(1e-3).momentum(0.03));
  torch::NoGradGuard g;
  bn->weight.copy_(w);
  bn->bias.copy_(b);
  return bn;
}

std::string differs(const torch::Tensor& got, const torch::Tensor& want, double tol,
                    const std::string& what) {
  if (!got.defined()) return what + " undefined";
  if (got.sizes() != want.sizes()) return what + " has the wrong shape";
  const double d = (got.to(torch::kFloat) - want.to(torch::kFloat)).abs().max().item<double>();
  return d > tol ? what + " differs by " + std::to_string(d) : "";
}

}  // namespace

class TstSyncBn : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { torch::set_num_threads(1); }

  void matchesWholeBatch_data() {
    QTest::addColumn<int>("perRank");
    QTest::addColumn<double>("offset");
    QTest::newRow("2 images per rank") << 2 << 0.0;
    QTest::newRow("1 image per rank, large mean") << 1 << 50.0;
  }

  void matchesWholeBatch() {
    QFETCH(int, perRank);
    QFETCH(double, offset);
    const int world = 2;
    const int64_t c = 3;
    torch::manual_seed(7);
    // Data on the main thread (the global generator is not for threads).
    const auto x = torch::randn({world * perRank, c, 5, 6}) * 2.0 + offset;
    const auto g = torch::randn({world * perRank, c, 5, 6});
    const auto w = torch::rand({c}) + 0.5, b = torch::randn({c});

    // Reference: one process, whole batch. Loss = sum(y * g) = L0 + L1, where L_r = sum(y_r * g_r)
    // is what rank r backpropagates; so the reference input gradient of rank r's half is exactly
    // rank r's, and the reference weight gradient is the SUM of the ranks' local ones. DDP then
    // averages them: its gradient is the one of (L0 + L1) / 2, i.e. the reference's / 2.
    auto ref = makeBn(c, w, b);
    ref->train();
    auto xr = x.clone().requires_grad_(true);
    auto yr = ref->forward(xr);
    (yr * g).sum().backward();
    const auto refY = yr.detach(), refDx = xr.grad().clone();
    const auto refDw = ref->weight.grad().clone(), refDb = ref->bias.grad().clone();
    const auto refMean = ref->running_mean.clone(), refVar = ref->running_var.clone();

    auto failures = runRanks(world, [&](ProcessGroup& pg) -> std::string {
      const int r = pg.rank();
      auto sync = std::make_shared<GroupSync>(&pg);
      auto bn = makeBn(c, w, b);
      bn->train();
      auto xl = x.narrow(0, r * perRank, perRank).clone().requires_grad_(true);
      const auto gl = g.narrow(0, r * perRank, perRank);
      auto y = model::syncBatchNorm(xl, *bn, sync);
      (y * gl).sum().backward();
      std::string e;
      if (!(e = differs(y, refY.narrow(0, r * perRank, perRank), 1e-5, "output")).empty()) return e;
      if (!(e = differs(xl.grad(), refDx.narrow(0, r * perRank, perRank), 1e-5, "grad_input"))
               .empty())
        return e;
      if (!(e = differs(bn->running_mean, refMean, 1e-5, "running_mean")).empty()) return e;
      if (!(e = differs(bn->running_var, refVar, 1e-5, "running_var")).empty()) return e;
      if (bn->num_batches_tracked.item<int64_t>() != 1) return "num_batches_tracked not 1";
      if (sync->calls != 2) return "expected 2 all-reduces, got " + std::to_string(sync->calls);
      // Local weight/bias gradients alone are not the whole batch's (the test can tell) ...
      if (differs(bn->weight.grad(), refDw, 1e-3, "").empty()) return "local grad_weight is global";
      std::vector<torch::Tensor> sums{bn->weight.grad().clone(), bn->bias.grad().clone()};
      std::vector<torch::Tensor> means{sums[0].clone(), sums[1].clone()};
      pg.allReduce(sums, ReduceMode::Sum);
      pg.allReduceMean(means);
      // ... their sum is, and their DDP-style mean is the reference's / 2.
      if (!(e = differs(sums[0], refDw, 1e-4, "summed grad_weight")).empty()) return e;
      if (!(e = differs(sums[1], refDb, 1e-4, "summed grad_bias")).empty()) return e;
      if (!(e = differs(means[0], refDw / 2, 1e-4, "averaged grad_weight")).empty()) return e;
      if (!(e = differs(means[1], refDb / 2, 1e-4, "averaged grad_bias")).empty()) return e;
      return "";
    });
    QVERIFY2(failures.empty(), joined(failures).c_str());
  }

  void bf16InputKeepsDtype() {
    // Under autocast a Conv output may be bf16: statistics stay in float64, output stays bf16.
    torch::manual_seed(3);
    const auto x = torch::randn({2, 4, 3, 3}) + 3.0;
    auto bn = makeBn(4, torch::ones({4}), torch::zeros({4}));
    bn->train();
    auto sync = std::make_shared<GroupSync>(nullptr);  // one rank: sum over ranks = identity
    const auto y = model::syncBatchNorm(x.to(torch::kBFloat16), *bn, sync);
    QCOMPARE(y.scalar_type(), torch::kBFloat16);
    auto ref = makeBn(4, torch::ones({4}), torch::zeros({4}));
    ref->train();
    const auto yr = ref->forward(x.to(torch::kBFloat16).to(torch::kFloat));
    QVERIFY((y.to(torch::kFloat) - yr).abs().max().item<double>() < 0.05);
  }

  void evalIgnoresSync() {
    torch::manual_seed(5);
    model::Conv conv(3, 4, 3, 1);
    {
      torch::NoGradGuard g;
      conv->bn->running_mean.uniform_(-1, 1);
      conv->bn->running_var.uniform_(0.5, 2);
    }
    const auto x = torch::randn({2, 3, 8, 8});
    conv->eval();
    const auto plain = conv->forward(x);
    auto sync = std::make_shared<GroupSync>(nullptr);
    conv->bnSync = sync;
    const auto withSync = conv->forward(x);
    QCOMPARE(sync->calls.load(), 0);
    QVERIFY(torch::equal(plain, withSync));
    const auto stats = conv->bn->running_mean.clone();
    conv->train();
    conv->forward(x);
    QCOMPARE(sync->calls.load(), 1);  // training mode goes through syncBatchNorm
    QVERIFY(!torch::equal(stats, conv->bn->running_mean));
  }

  void yoloReachesEveryConv() {
    model::ModelOptions mo;
    mo.nc = 2;
    model::Yolo net(mo);
    auto sync = std::make_shared<GroupSync>(nullptr);
    net->setBatchNormSync(sync);
    int convs = 0, reached = 0;
    for (const auto& m : net->modules(false))
      if (auto* conv = m->as<model::ConvImpl>()) {
        ++convs;
        reached += conv->bnSync == sync ? 1 : 0;
      }
    QVERIFY(convs > 50);
    QCOMPARE(reached, convs);
    net->setBatchNormSync(nullptr);
    for (const auto& m : net->modules(false))
      if (auto* conv = m->as<model::ConvImpl>()) QVERIFY(!conv->bnSync);
  }
};

QTEST_GUILESS_MAIN(TstSyncBn)
#include "tst_sync_bn.moc"
