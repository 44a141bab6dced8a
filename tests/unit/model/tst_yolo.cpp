// YOLOv8 network: sizes against the published figures, shapes, weight names, init, freeze, decode.
#include <QtTest>

#include <cmath>
#include <set>

#include "core/model/model_info.h"
#include "core/model/yolo.h"

using namespace stave::model;

class TestYolo : public QObject {
  Q_OBJECT

 private:
  static int64_t countParams(torch::nn::Module& m) {
    int64_t n = 0;
    for (const auto& p : m.parameters(true)) n += p.numel();
    return n;
  }

 private slots:
  void initTestCase() { torch::manual_seed(0); }

  // Published YOLOv8 detection figures (nc 80, 640): params in M and GFLOPs, plus the exact
  // parameter and layer counts Ultralytics' model.info() prints for the unfused models.
  void publishedFigures_data() {
    QTest::addColumn<QString>("scale");
    QTest::addColumn<double>("paramsM");
    QTest::addColumn<double>("gflops");
    QTest::addColumn<qint64>("exactParams");
    QTest::addColumn<int>("layers");
    QTest::newRow("n") << "n" << 3.2 << 8.7 << qint64(3157200) << 225;
    QTest::newRow("s") << "s" << 11.2 << 28.6 << qint64(11166560) << 225;
    QTest::newRow("m") << "m" << 25.9 << 78.9 << qint64(25902640) << 295;
    QTest::newRow("l") << "l" << 43.7 << 165.2 << qint64(43691520) << 365;
    QTest::newRow("x") << "x" << 68.2 << 257.8 << qint64(68229648) << 365;
  }
  void publishedFigures() {
    QFETCH(QString, scale);
    QFETCH(double, paramsM);
    QFETCH(double, gflops);
    QFETCH(qint64, exactParams);
    QFETCH(int, layers);
    const ModelInfo info = modelInfo(scale.toStdString(), 80, 640);
    QVERIFY2(std::abs(info.params / 1e6 - paramsM) / paramsM < 0.015,
             qPrintable(QString::number(info.params)));
    QVERIFY2(std::abs(info.gflops - gflops) / gflops < 0.015,
             qPrintable(QString::number(info.gflops)));
    QCOMPARE(info.params, exactParams);
    QCOMPARE(info.layers, layers);
    // FLOPs scale with the pixel count.
    QVERIFY(std::abs(modelInfo(scale.toStdString(), 80, 320).gflops * 4 - info.gflops) <
            0.02 * info.gflops);
  }

  // The analytic count and the built network must agree exactly (all scales, two class counts).
  void builtModelMatchesAnalytic_data() {
    QTest::addColumn<QString>("scale");
    QTest::addColumn<int>("nc");
    for (const char* s : {"n", "s", "m", "l", "x"}) QTest::newRow(s) << s << 80;
    QTest::newRow("n-nc3") << "n" << 3;
    QTest::newRow("s-nc150") << "s" << 150;
    // The names the config accepts (model=yolov8n.yaml failed at run time before).
    QTest::newRow("yolov8n.yaml") << "yolov8n.yaml" << 80;
    QTest::newRow("yolov8s") << "yolov8s" << 80;
  }
  void builtModelMatchesAnalytic() {
    QFETCH(QString, scale);
    QFETCH(int, nc);
    Yolo model(ModelOptions{scale.toStdString(), nc, 16});
    QCOMPARE(countParams(*model), modelInfo(scale.toStdString(), nc, 640).params);
  }

  void forwardShapes() {
    Yolo model(ModelOptions{"n", 3, 16});
    model->eval();
    torch::NoGradGuard noGrad;
    auto out = model->forward(torch::rand({2, 3, 64, 96}));
    QCOMPARE(int(out.size()), 3);
    const int64_t no = 4 * 16 + 3;
    QCOMPARE(out[0].sizes().vec(), (std::vector<int64_t>{2, no, 8, 12}));
    QCOMPARE(out[1].sizes().vec(), (std::vector<int64_t>{2, no, 4, 6}));
    QCOMPARE(out[2].sizes().vec(), (std::vector<int64_t>{2, no, 2, 3}));
    QCOMPARE(model->strides(), (std::vector<int64_t>{8, 16, 32}));
    auto dec = decodePredictions(*model, out);
    QCOMPARE(dec.sizes().vec(), (std::vector<int64_t>{2, 8 * 12 + 4 * 6 + 2 * 3, 4 + 3}));
    QVERIFY(torch::isfinite(dec).all().item<bool>());
  }

  void weightNames() {
    Yolo model(ModelOptions{"n", 80, 16});
    std::set<std::string> names;
    for (const auto& p : model->named_parameters(true)) names.insert(p.key());
    for (const char* expected :
         {"model.0.conv.weight", "model.0.bn.weight", "model.0.bn.bias", "model.2.cv1.conv.weight",
          "model.2.m.0.cv1.conv.weight", "model.2.m.0.cv2.bn.bias", "model.4.m.1.cv2.conv.weight",
          "model.9.cv1.conv.weight", "model.9.cv2.bn.weight", "model.12.cv2.conv.weight",
          "model.21.m.0.cv2.conv.weight", "model.22.cv2.0.0.conv.weight",
          "model.22.cv2.2.1.bn.bias", "model.22.cv2.1.2.weight", "model.22.cv2.1.2.bias",
          "model.22.cv3.2.2.bias", "model.22.dfl.conv.weight"}) {
      QVERIFY2(names.count(expected), expected);
    }
    QVERIFY(!names.count("model.4.m.2.cv1.conv.weight"));  // n: 6 * 0.33 -> 2 bottlenecks
    QVERIFY(!names.count("model.22.dfl.conv.bias"));
    std::set<std::string> buffers;
    for (const auto& b : model->named_buffers(true)) buffers.insert(b.key());
    QVERIFY(buffers.count("model.0.bn.running_mean"));
    QVERIFY(buffers.count("model.22.cv3.0.1.bn.num_batches_tracked"));
  }

  void initialisation() {
    Yolo model(ModelOptions{"n", 80, 16});
    auto params = model->named_parameters(true);
    // Box bias 2.0 (Ultralytics 8.4); class bias log(5 / nc / (640 / stride)^2) =
    // log(5 / 80 / 80^2) = -11.53664 at stride 8.
    QVERIFY(torch::allclose(params["model.22.cv2.0.2.bias"], torch::full({64}, 2.0)));
    QVERIFY(std::abs(params["model.22.cv3.0.2.bias"][0].item<double>() - (-11.536642)) < 1e-4);
    QVERIFY(std::abs(params["model.22.cv3.2.2.bias"][5].item<double>() - std::log(5.0 / 80 / 400)) <
            1e-4);
    QVERIFY(torch::equal(params["model.22.dfl.conv.weight"].flatten(),
                         torch::arange(16, torch::kFloat)));
    for (auto& m : model->modules(false)) {
      if (auto* bn = m->as<torch::nn::BatchNorm2dImpl>()) {
        QCOMPARE(bn->options.eps(), 1e-3);
        QCOMPARE(bn->options.momentum().value(), 0.03);
      }
    }
  }

  void freeze() {
    Yolo model(ModelOptions{"n", 80, 16});
    auto params = model->named_parameters(true);
    QVERIFY(!params["model.22.dfl.conv.weight"].requires_grad());
    QVERIFY(params["model.0.conv.weight"].requires_grad());
    model->freeze(2);
    params = model->named_parameters(true);
    QVERIFY(!params["model.0.conv.weight"].requires_grad());
    QVERIFY(!params["model.1.bn.bias"].requires_grad());
    QVERIFY(params["model.2.cv1.conv.weight"].requires_grad());
    QVERIFY(
        params["model.12.cv1.conv.weight"].requires_grad());  // "model.1." must not match model.12
    QVERIFY(params["model.22.cv2.0.2.bias"].requires_grad());
    QVERIFY(!params["model.22.dfl.conv.weight"].requires_grad());
    model->freeze(0);
    QVERIFY(model->named_parameters(true)["model.0.conv.weight"].requires_grad());
  }

  // Folding the BatchNorms into the convolutions (inference) leaves the outputs unchanged, and
  // unfolding or training mode goes back to conv + bn.
  void foldBatchNorm() {
    torch::manual_seed(5);
    Yolo model(ModelOptions{"n", 3, 16});
    {
      // Non-trivial running statistics, as after training.
      torch::NoGradGuard g;
      for (const auto& m : model->modules(false))
        if (auto* c = m->as<ConvImpl>()) {
          c->bn->running_mean.uniform_(-0.5, 0.5);
          c->bn->running_var.uniform_(0.5, 2.0);
          c->bn->weight.uniform_(0.5, 1.5);
          c->bn->bias.uniform_(-0.2, 0.2);
        }
    }
    model->eval();
    torch::NoGradGuard g;
    auto x = torch::rand({2, 3, 64, 96});
    auto plain = model->forward(x);
    model->foldBatchNorm();
    auto folded = model->forward(x);
    int foldedConvs = 0;
    for (const auto& m : model->modules(false))
      if (auto* c = m->as<ConvImpl>()) foldedConvs += c->folded.defined() ? 1 : 0;
    QCOMPARE(foldedConvs, 57);  // every Conv of yolov8n
    for (size_t i = 0; i < plain.size(); ++i) {
      const double scale = plain[i].abs().max().item<double>();
      QVERIFY2(torch::allclose(folded[i], plain[i], 1e-4, 1e-4 * scale),
               qPrintable(QString("level %1: %2")
                              .arg(i)
                              .arg((folded[i] - plain[i]).abs().max().item<double>())));
    }
    // Not parameters or buffers: a checkpoint never holds them.
    for (const auto& p : model->named_parameters(true))
      QVERIFY(p.key().find("folded") == std::string::npos);
    for (const auto& b : model->named_buffers(true))
      QVERIFY(b.key().find("folded") == std::string::npos);
    model->unfoldBatchNorm();
    for (const auto& m : model->modules(false))
      if (auto* c = m->as<ConvImpl>()) QVERIFY(!c->folded.defined());
    auto again = model->forward(x);
    for (size_t i = 0; i < plain.size(); ++i) QVERIFY(torch::equal(again[i], plain[i]));
  }

  // Decode with hand-made logits at imgsz 64 (levels 8x8, 4x4, 2x2; 84 anchors), nc 2.
  void decodeKnownDistributions() {
    Yolo model(ModelOptions{"n", 2, 16});
    const int64_t no = 64 + 2;
    std::vector<torch::Tensor> feats{torch::full({1, no, 8, 8}, -1e4),
                                     torch::full({1, no, 4, 4}, -1e4),
                                     torch::full({1, no, 2, 2}, -1e4)};
    for (auto& f : feats) f.narrow(1, 64, 2).zero_();  // class logits 0 -> probability 0.5
    // Level 0 cell x=1, y=2 (anchor 2*8+1 = 17, centre (1.5, 2.5) cells): sides l=2, t=3, r=4 and b
    // a mix p(2)=0.7, p(3)=0.3 -> expected 2.3 bins.
    auto cell = feats[0].select(0, 0).select(2, 1).select(1, 2);  // (no) at y=2, x=1
    cell[0 * 16 + 2] = 0;
    cell[1 * 16 + 3] = 0;
    cell[2 * 16 + 4] = 0;
    cell[3 * 16 + 2] = std::log(0.7);
    cell[3 * 16 + 3] = std::log(0.3);
    cell[64 + 1] = 2.0;
    // Level 2 cell x=1, y=0 (anchor 64 + 16 + 1 = 81, centre (1.5, 0.5)), all sides 1 bin.
    auto cell2 = feats[2].select(0, 0).select(2, 1).select(1, 0);
    for (int s = 0; s < 4; ++s) cell2[s * 16 + 1] = 0;
    torch::NoGradGuard noGrad;
    auto dec = decodePredictions(*model, feats);
    QCOMPARE(dec.sizes().vec(), (std::vector<int64_t>{1, 84, 6}));
    // x1 = (1.5 - 2) * 8 = -4, y1 = (2.5 - 3) * 8 = -4, x2 = (1.5 + 4) * 8 = 44, y2 = (2.5 + 2.3) *
    // 8 = 38.4
    auto a = dec[0][17];
    QVERIFY(torch::allclose(a.narrow(0, 0, 4), torch::tensor({-4.0f, -4.0f, 44.0f, 38.4f}), 1e-4,
                            1e-3));
    QVERIFY(std::abs(a[4].item<double>() - 0.5) < 1e-6);
    QVERIFY(std::abs(a[5].item<double>() - 1.0 / (1.0 + std::exp(-2.0))) < 1e-6);
    // x1 = (1.5 - 1) * 32 = 16, y1 = (0.5 - 1) * 32 = -16, x2 = 2.5 * 32 = 80, y2 = 1.5 * 32 = 48
    QVERIFY(torch::allclose(dec[0][81].narrow(0, 0, 4),
                            torch::tensor({16.0f, -16.0f, 80.0f, 48.0f}), 1e-4, 1e-3));
  }
};

QTEST_APPLESS_MAIN(TestYolo)
#include "tst_yolo.moc"
