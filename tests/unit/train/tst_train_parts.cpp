// Optimiser groups, EMA, loss scaler, autocast scope and checkpoint round trip on a small
// network (conv, BatchNorm, conv) with hand-worked expectations.
#include <QtTest/QtTest>

#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include <cmath>
#include <fstream>
#include <set>

#include "core/model/yolo.h"
#include "core/train/amp.h"
#include "core/train/checkpoint.h"
#include "core/train/device_input.h"
#include "core/train/onnx_export.h"
#include "core/train/optimizer.h"
#include "core/train/ultralytics_weights.h"

using namespace stave::train;

namespace {
struct TinyImpl : torch::nn::Module {
  explicit TinyImpl(int outputs = 2) {
    conv =
        register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 4, 3).bias(false)));
    bn = register_module("bn", torch::nn::BatchNorm2d(4));
    head = register_module("head", torch::nn::Conv2d(torch::nn::Conv2dOptions(4, outputs, 1)));
  }
  torch::Tensor forward(torch::Tensor x) { return head(torch::silu(bn(conv(x)))); }
  torch::nn::Conv2d conv{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
  torch::nn::Conv2d head{nullptr};
};
TORCH_MODULE(Tiny);

bool sameState(torch::nn::Module& a, torch::nn::Module& b) {
  auto ta = stateTensors(a), tb = stateTensors(b);
  if (ta.size() != tb.size()) return false;
  for (size_t i = 0; i < ta.size(); ++i) {
    if (!torch::equal(ta[i], tb[i])) return false;
  }
  return true;
}

void trainStep(Tiny& m, torch::optim::Optimizer& opt) {
  opt.zero_grad();
  auto loss = m->forward(torch::randn({2, 3, 8, 8})).pow(2).mean();
  loss.backward();
  opt.step();
}
/// A Tiny after three SGD steps, with its EMA.
struct Trained {
  Tiny model, shadow;
  ModelEma ema{shadow.ptr()};
  std::unique_ptr<torch::optim::Optimizer> opt;
  Trained() {
    ema.reset(*model);
    opt = buildOptimizer(splitParameters(*model), OptimizerSpec{true, 0.01, 0.9, 5e-4});
    for (int i = 0; i < 3; ++i) {
      trainStep(model, *opt);
      ema.update(*model);
    }
  }
};
}  // namespace

class TstTrainParts : public QObject {
  Q_OBJECT
 private slots:
  void init() { torch::manual_seed(0); }

  void groups() {
    Tiny m;
    const auto g = splitParameters(*m);
    QCOMPARE(g.names[kGroupWeight], (std::vector<std::string>{"conv.weight", "head.weight"}));
    QCOMPARE(g.names[kGroupNormWeight], (std::vector<std::string>{"bn.weight"}));
    QCOMPARE(g.names[kGroupBias], (std::vector<std::string>{"bn.bias", "head.bias"}));
  }

  void optimizerKinds_data() {
    QTest::addColumn<bool>("sgd");
    QTest::newRow("SGD") << true;
    QTest::newRow("AdamW") << false;
  }
  void optimizerKinds() {
    QFETCH(bool, sgd);
    Tiny m;
    OptimizerSpec spec{sgd, 0.02, 0.9, 1e-3};
    auto opt = buildOptimizer(splitParameters(*m), spec);
    auto& groups = opt->param_groups();
    QCOMPARE(groups.size(), size_t(3));
    for (int g = 0; g < 3; ++g) {
      const double wd = g == kGroupWeight ? 1e-3 : 0.0;
      if (sgd) {
        auto& o = static_cast<torch::optim::SGDOptions&>(groups[g].options());
        QVERIFY(o.nesterov());
        QCOMPARE(o.weight_decay(), wd);
        QCOMPARE(o.momentum(), 0.9);
      } else {
        auto& o = static_cast<torch::optim::AdamWOptions&>(groups[g].options());
        QCOMPARE(o.weight_decay(), wd);
        QCOMPARE(std::get<0>(o.betas()), 0.9);
      }
      QCOMPARE(groupLr(*opt, g), 0.02);
    }
    SchedulePoint p;
    p.lr = {0.1, 0.2, 0.3};
    p.momentum = 0.85;
    applySchedulePoint(*opt, p);
    for (int g = 0; g < 3; ++g) QCOMPARE(groupLr(*opt, g), p.lr[g]);
    if (sgd) QCOMPARE(static_cast<torch::optim::SGDOptions&>(groups[0].options()).momentum(), 0.85);
  }

  void ema() {
    Tiny model, shadow;
    ModelEma ema(shadow.ptr());
    ema.reset(*model);
    QVERIFY(sameState(*model, *shadow));
    const auto before = shadow->head->weight.clone();
    {
      torch::NoGradGuard ng;
      model->head->weight.add_(1.0);
      model->bn->num_batches_tracked.fill_(7);
    }
    const double d = 0.9999 * (1.0 - std::exp(-1.0 / 2000.0));
    QVERIFY(std::abs(ema.nextDecay() - d) < 1e-15);
    ema.update(*model);
    QCOMPARE(ema.updates(), int64_t(1));
    // ema = d * ema + (1 - d) * model = before + (1 - d)
    QVERIFY(torch::allclose(shadow->head->weight, before + (1.0 - d), 1e-6, 1e-7));
    QCOMPARE(shadow->bn->num_batches_tracked.item<int64_t>(), int64_t(0));
    // After many updates the decay approaches 0.9999.
    ema.setUpdates(100000);
    QVERIFY(std::abs(ema.nextDecay() - 0.9999) < 1e-9);
  }

  void scaler() {
    GradScalerOptions o;
    o.enabled = true;
    o.initScale = 4.0;
    o.growthInterval = 3;
    GradScaler s(o);
    QCOMPARE(s.scale(torch::tensor(2.0)).item<double>(), 8.0);
    auto p = torch::zeros({2}, torch::requires_grad());
    p.mutable_grad() = torch::tensor({12.0f, 16.0f});  // scaled by 4: true grad (3, 4), norm 5
    double norm = s.unscaleAndClip({p}, 10.0);
    QVERIFY(std::abs(norm - 5.0) < 1e-5);
    QVERIFY(torch::allclose(p.grad(), torch::tensor({3.0f, 4.0f})));
    p.mutable_grad() = torch::tensor({12.0f, 16.0f});
    norm = s.unscaleAndClip({p}, 1.0);  // clipped to norm 1
    QVERIFY(torch::allclose(p.grad(), torch::tensor({0.6f, 0.8f}), 1e-4));
    // inf gradient: non-finite norm, scale backs off, counter resets.
    s.update(false);
    p.mutable_grad() = torch::tensor({INFINITY, 1.0f});
    QVERIFY(!std::isfinite(s.unscaleAndClip({p}, 10.0)));
    p.mutable_grad() = torch::tensor({NAN, 1.0f});
    QVERIFY(!std::isfinite(s.unscaleAndClip({p}, 10.0)));
    s.update(true);
    QCOMPARE(s.scaleValue(), 2.0);
    QCOMPARE(s.growthTracker(), int64_t(0));
    // growthInterval good steps double the scale.
    for (int i = 0; i < 3; ++i) s.update(false);
    QCOMPARE(s.scaleValue(), 4.0);
    // Disabled: no scaling, no state change.
    GradScaler off;
    QCOMPARE(off.scale(torch::tensor(2.0)).item<double>(), 2.0);
    off.update(true);
    QCOMPARE(off.scaleValue(), 65536.0);
  }

  void autocastScope() {
    QVERIFY(!at::autocast::is_autocast_enabled(at::kCPU));
    {
      AutocastScope scope(Precision::Bf16, torch::kCPU);
      QVERIFY(at::autocast::is_autocast_enabled(at::kCPU));
      auto y = torch::mm(torch::randn({4, 4}), torch::randn({4, 4}));
      QCOMPARE(y.scalar_type(), at::kBFloat16);
    }
    QVERIFY(!at::autocast::is_autocast_enabled(at::kCPU));
    {
      AutocastScope scope(Precision::Fp32, torch::kCPU);
      QVERIFY(!at::autocast::is_autocast_enabled(at::kCPU));
    }
    QVERIFY(!resolvePrecision("fp16", true, torch::kCPU).ok());
    QVERIFY(resolvePrecision("fp16", true, torch::kCPU).errorText().find("precision") !=
            std::string::npos);
    // auto on the CPU: fp32 (bf16 learned less there; precision=bf16 still asks for it).
    QCOMPARE(resolvePrecision("auto", true, torch::kCPU).value(), Precision::Fp32);
    QCOMPARE(resolvePrecision("auto", false, torch::kCPU).value(), Precision::Fp32);
    QCOMPARE(resolvePrecision("fp32", true, torch::kCPU).value(), Precision::Fp32);
    // channels_last: auto is on for the CPU, off on CUDA; true and false are what they say.
    QVERIFY(resolveChannelsLast("auto", torch::kCPU));
    QVERIFY(!resolveChannelsLast("auto", torch::Device(torch::kCUDA, 0)));
    QVERIFY(resolveChannelsLast("true", torch::Device(torch::kCUDA, 0)));
    QVERIFY(!resolveChannelsLast("false", torch::kCPU));
    QCOMPARE(resolvePrecision("bf16", false, torch::kCPU).value(), Precision::Fp32);
    QCOMPARE(resolvePrecision("bf16", true, torch::kCPU).value(), Precision::Bf16);
  }

  void checkpointRoundTrip() {
    QVERIFY(stave::config::memberTableProblems(checkpointMetaTable()).empty());
    QTemporaryDir dir;
    const std::string path = dir.filePath("weights/last.pt").toStdString();
    Trained trained;
    Tiny &model = trained.model, &shadow = trained.shadow;
    ModelEma& ema = trained.ema;
    auto& opt = trained.opt;
    CheckpointMeta meta;
    meta.epoch = 2;
    meta.epochs = 10;
    meta.iteration = 123;
    meta.bestFitness = 0.25;
    meta.bestEpoch = 1;
    meta.emaUpdates = ema.updates();
    meta.scalerScale = 1024;
    meta.configYaml = "epochs: 10\n";
    meta.nc = 2;
    meta.names = {"cat", "dog"};
    meta.bestMap5095 = 0.4;
    meta.bestMapEpoch = 2;
    meta.lastMetrics = {0.5, 0.6, 0.7, 0.4, 1.0, 2.0, 3.0};
    meta.optimizer = "AdamW";
    meta.optimizerLr0 = 0.001111;
    meta.epochBatches = 7;
    meta.epochLoss = {1.5, 2.5, 3.5, 6};
    // Gradients of a micro-batch not yet applied by an optimiser step.
    model->forward(torch::randn({2, 3, 8, 8})).pow(2).mean().backward();
    std::vector<torch::Tensor> pending;
    for (const auto& p : model->parameters()) pending.push_back(p.grad().clone());
    CheckpointParts withGrads{model.get(), shadow.get(), opt.get()};
    withGrads.gradients = true;
    QVERIFY(saveCheckpoint(path, withGrads, meta).ok());
    const auto expectedRandom = torch::rand({5});

    torch::manual_seed(99);  // different weights and RNG state
    Tiny model2, shadow2;
    auto opt2 = buildOptimizer(splitParameters(*model2), OptimizerSpec{true, 0.01, 0.9, 5e-4});
    QVERIFY(!sameState(*model, *model2));
    CheckpointParts into{model2.get(), shadow2.get(), opt2.get()};
    into.gradients = true;
    auto loaded = loadCheckpoint(path, into, true);
    QVERIFY2(loaded.ok(), loaded.errorText().c_str());
    QVERIFY(torch::equal(torch::rand({5}), expectedRandom));
    QVERIFY(sameState(*model, *model2));
    QVERIFY(sameState(*shadow, *shadow2));
    QCOMPARE(loaded->epoch, int64_t(2));
    QCOMPARE(loaded->iteration, int64_t(123));
    QCOMPARE(loaded->bestFitness, 0.25);
    QCOMPARE(loaded->emaUpdates, int64_t(3));
    QCOMPARE(loaded->scalerScale, 1024.0);
    QCOMPARE(loaded->configYaml, std::string("epochs: 10\n"));
    QCOMPARE(loaded->names, (std::vector<std::string>{"cat", "dog"}));
    QCOMPARE(loaded->bestMap5095, 0.4);
    QCOMPARE(loaded->bestMapEpoch, int64_t(2));
    QCOMPARE(loaded->lastMetrics, (std::vector<double>{0.5, 0.6, 0.7, 0.4, 1.0, 2.0, 3.0}));
    QVERIFY(loaded->hasOptimizer);
    QCOMPARE(loaded->optimizer, std::string("AdamW"));
    QCOMPARE(loaded->optimizerLr0, 0.001111);
    QCOMPARE(loaded->epochBatches, int64_t(7));
    QCOMPARE(loaded->epochLoss, (std::vector<double>{1.5, 2.5, 3.5, 6}));
    {
      const auto params2 = model2->parameters();
      QCOMPARE(params2.size(), pending.size());
      for (size_t k = 0; k < pending.size(); ++k)
        QVERIFY(torch::equal(params2[k].grad(), pending[k]));
    }
    // The momentum buffers came back: one more identical step gives identical weights.
    torch::manual_seed(5);
    trainStep(model, *opt);
    torch::manual_seed(5);
    trainStep(model2, *opt2);
    QVERIFY(sameState(*model, *model2));

    // Meta only, and a broken file: an error naming the file, no crash.
    QCOMPARE(readCheckpointMeta(path)->nc, int64_t(2));
    const std::string bad = dir.filePath("bad.pt").toStdString();
    std::ofstream(bad) << "not a checkpoint";
    auto r = loadCheckpoint(bad, {model2.get(), nullptr, nullptr}, false);
    QVERIFY(!r.ok());
    QVERIFY(r.errorText().find("bad.pt") != std::string::npos);
    QVERIFY(!loadCheckpoint(dir.filePath("missing.pt").toStdString(), {}, false).ok());
  }

  // multi_scale: sizes from [0.5, 1.5] x imgsz in stride steps, the aspect kept, the same size
  // for the same (seed, iteration).
  void multiScaleSizes() {
    const auto x = torch::rand({2, 3, 64, 64});
    std::set<int64_t> sizes;
    for (int64_t ni = 0; ni < 200; ++ni) {
      const auto y = multiScaleResize(x, 64, 5, ni);
      QCOMPARE(y.size(0), int64_t(2));
      QCOMPARE(y.size(2), y.size(3));
      QVERIFY(y.size(2) % 32 == 0 && y.size(2) >= 32 && y.size(2) <= 96);
      QVERIFY(torch::equal(multiScaleResize(x, 64, 5, ni), y));
      if (y.size(2) == 64) QVERIFY(torch::equal(y, x));
      sizes.insert(y.size(2));
    }
    QCOMPARE(sizes, (std::set<int64_t>{32, 64, 96}));
    // Another seed, another sequence; a 640 x 480 batch keeps its aspect (rounded to 32).
    int differ = 0;
    for (int64_t ni = 0; ni < 20; ++ni)
      differ += multiScaleResize(x, 64, 5, ni).size(2) != multiScaleResize(x, 64, 6, ni).size(2);
    QVERIFY(differ > 0);
    const auto r = torch::rand({1, 3, 480, 640});
    for (int64_t ni = 0; ni < 20; ++ni) {
      const auto y = multiScaleResize(r, 640, 0, ni);
      QVERIFY(y.size(3) >= 320 && y.size(3) <= 960 && y.size(3) % 32 == 0);
      QVERIFY(std::abs(double(y.size(2)) / y.size(3) - 0.75) < 32.0 / y.size(3));
    }
  }

  // pretrained=: the checkpoint's EMA tensors that match by name and shape are copied; a head
  // for another number of outputs keeps its own initialisation and is named with both shapes.
  void pretrainedTransfer() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("best.pt").toStdString();
    Trained trained;
    Tiny &model = trained.model, &shadow = trained.shadow;
    ModelEma& ema = trained.ema;
    auto& opt = trained.opt;
    QVERIFY(saveCheckpoint(path, {model.get(), shadow.get(), opt.get()}, CheckpointMeta{}).ok());

    torch::manual_seed(7);
    Tiny other(3);
    const torch::Tensor headBefore = other->head->weight.clone();
    auto reader = CheckpointReader::open(path);
    QVERIFY2(reader.ok(), reader.errorText().c_str());
    auto t = reader->transferMatching(*other);
    QVERIFY2(t.ok(), t.errorText().c_str());
    QCOMPARE(t->total, int64_t(8));  // conv.weight, bn x5 (incl. num_batches_tracked), head x2
    QCOMPARE(t->transferred, int64_t(6));
    QCOMPARE(t->skipped.size(), size_t(2));
    QCOMPARE(t->skipped[0], std::string("head.weight (shape [2x4x1x1], model [3x4x1x1])"));
    QVERIFY(torch::equal(other->conv->weight, shadow->conv->weight));  // the EMA, not the model
    QVERIFY(!torch::equal(other->conv->weight, model->conv->weight));
    QVERIFY(torch::equal(other->bn->running_mean, shadow->bn->running_mean));
    QVERIFY(torch::equal(other->head->weight, headBefore));

    // Same shapes: everything transfers.
    Tiny same;
    auto all = reader->transferMatching(*same);
    QCOMPARE(all->transferred, int64_t(8));
    QVERIFY(all->skipped.empty());
    QVERIFY(sameState(*same, *shadow));
  }

  // A checkpoint whose class names are not as many as its head's class outputs is refused by
  // every export (and by val and predict, which read it the same way), naming both numbers;
  // nothing is written. The same checkpoint with matching names exports.
  void namesThatDisagreeWithTheHeadAreRefused() {
    QTemporaryDir dir;
    stave::model::ModelOptions mo;
    mo.nc = 2;
    stave::model::Yolo yolo(mo);
    CheckpointMeta meta;
    meta.scale = "n";
    meta.nc = 2;
    meta.imgsz = 64;
    meta.names = {"cat", "dog", "bird"};
    const std::string bad = dir.filePath("bad.pt").toStdString();
    QVERIFY(saveCheckpoint(bad, {yolo.get(), yolo.get(), nullptr}, meta).ok());
    auto refused = [&](const stave::Status& st, const std::string& out) {
      if (st.ok()) return std::string("accepted");
      const std::string text = st.errorText();
      if (text.find(bad) == std::string::npos ||
          text.find("names 3 classes") == std::string::npos ||
          text.find("has 2 class outputs") == std::string::npos)
        return "wrong message: " + text;
      if (QFileInfo::exists(QString::fromStdString(out))) return "wrote " + out;
      return std::string();
    };
    const std::string stave = dir.filePath("w.pt").toStdString();
    const std::string onnx = dir.filePath("m.onnx").toStdString();
    const std::string ultra = dir.filePath("u.pt").toStdString();
    QCOMPARE(refused(exportStaveWeights(bad, stave), stave), std::string());
    OnnxOptions oo;
    oo.imgsz = 64;
    auto o = exportOnnx(bad, onnx, oo);
    QCOMPARE(refused(o.ok() ? stave::Status(stave::Ok{}) : stave::Status(o.errors()), onnx),
             std::string());
    auto u = exportUltralyticsWeights(bad, ultra);
    QCOMPARE(refused(u.ok() ? stave::Status(stave::Ok{}) : stave::Status(u.errors()), ultra),
             std::string());
    QVERIFY(!loadWeights(bad).ok());

    meta.names = {"cat", "dog"};
    const std::string good = dir.filePath("good.pt").toStdString();
    QVERIFY(saveCheckpoint(good, {yolo.get(), yolo.get(), nullptr}, meta).ok());
    auto st = exportStaveWeights(good, stave);
    QVERIFY2(st.ok(), st.errorText().c_str());
    // No names at all: the outputs are numbered (as Ultralytics' export does), not refused.
    meta.names.clear();
    const std::string unnamed = dir.filePath("unnamed.pt").toStdString();
    QVERIFY(saveCheckpoint(unnamed, {yolo.get(), yolo.get(), nullptr}, meta).ok());
    QVERIFY(loadWeights(unnamed).ok());
  }

  // The foreach step is LibTorch's step() done as multi-tensor operations: same numbers, same
  // state, over several steps (momentum buffers and AdamW moments built up), for both kinds.
  void foreachStepMatchesLibTorch_data() {
    QTest::addColumn<bool>("sgd");
    QTest::newRow("sgd-nesterov") << true;
    QTest::newRow("adamw") << false;
  }
  void foreachStepMatchesLibTorch() {
    QFETCH(bool, sgd);
    torch::manual_seed(3);
    Tiny a, b;
    {
      torch::NoGradGuard g;
      auto pa = a->parameters(), pb = b->parameters();
      for (size_t i = 0; i < pa.size(); ++i) pb[i].copy_(pa[i]);
    }
    const OptimizerSpec spec{sgd, 0.05, 0.9, 5e-3};
    auto oa = buildOptimizer(splitParameters(*a), spec);
    auto ob = buildOptimizer(splitParameters(*b), spec);
    for (int step = 0; step < 4; ++step) {
      auto x = torch::randn({2, 3, 6, 6});
      a->forward(x).square().mean().backward();
      b->forward(x).square().mean().backward();
      oa->step();
      foreachStep(*ob);
      zeroGradients(*oa);
      zeroGradients(*ob);
    }
    auto pa = a->parameters(), pb = b->parameters();
    for (size_t i = 0; i < pa.size(); ++i) {
      QVERIFY2(torch::allclose(pa[i], pb[i], 1e-6, 1e-7), qPrintable(QString::number(i)));
      QVERIFY(pb[i].grad().defined());  // zeroed in place, not dropped
      QCOMPARE(pb[i].grad().abs().sum().item<double>(), 0.0);
    }
    QCOMPARE(ob->state().size(), oa->state().size());
  }

  // Clipping without a read-back: the same factor as unscaleAndClip, and a non-finite norm
  // zeroes the gradients and says so in the flag.
  void clipOnDevice() {
    GradScaler s;
    auto p = torch::zeros({2}, torch::requires_grad());
    p.mutable_grad() = torch::tensor({3.0f, 4.0f});
    QCOMPARE(s.clipOnDevice({p}, 10.0).item<float>(), 1.0f);
    QVERIFY(torch::allclose(p.grad(), torch::tensor({3.0f, 4.0f})));
    p.mutable_grad() = torch::tensor({30.0f, 40.0f});
    QCOMPARE(s.clipOnDevice({p}, 1.0).item<float>(), 1.0f);
    QVERIFY(torch::allclose(p.grad(), torch::tensor({0.6f, 0.8f}), 1e-4));
    p.mutable_grad() = torch::tensor({INFINITY, 1.0f});
    QCOMPARE(s.clipOnDevice({p}, 10.0).item<float>(), 0.0f);
    QCOMPARE(p.grad().abs().sum().item<float>(), 0.0f);
    p.mutable_grad() = torch::tensor({NAN, 1.0f});
    QCOMPARE(s.clipOnDevice({p}, 10.0).item<float>(), 0.0f);
    QCOMPARE(p.grad().abs().sum().item<float>(), 0.0f);
    GradScalerOptions fp16;
    fp16.enabled = true;
    GradScaler scaled(fp16);
    QVERIFY_THROWS_EXCEPTION(std::exception, scaled.clipOnDevice({p}, 10.0));
  }
};

QTEST_APPLESS_MAIN(TstTrainParts)
#include "tst_train_parts.moc"
