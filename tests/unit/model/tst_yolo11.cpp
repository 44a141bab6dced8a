// The generic builder on YOLO11 (and both families' sizes): parameter counts against Ultralytics
// 8.4.190, shapes, weight names, freeze, BatchNorm folding, an explicit Architecture.
#include <QtTest>

#include <map>

#include "core/model/model_info.h"
#include "core/model/yolo.h"

using namespace stave::model;

class TestYolo11 : public QObject {
  Q_OBJECT

 private:
  static int64_t countParams(torch::nn::Module& m) {
    int64_t n = 0;
    for (const auto& p : m.parameters(true)) n += p.numel();
    return n;
  }
  static void randomiseBatchNorms(YoloImpl& model) {
    torch::NoGradGuard g;
    for (const auto& m : model.modules(false))
      if (auto* c = m->as<ConvImpl>()) {
        c->bn->running_mean.uniform_(-0.5, 0.5);
        c->bn->running_var.uniform_(0.5, 2.0);
        c->bn->weight.uniform_(0.5, 1.5);
        c->bn->bias.uniform_(-0.2, 0.2);
      }
  }

 private slots:
  void initTestCase() { torch::manual_seed(0); }

  // Built networks against Ultralytics 8.4.190's DetectionModel("<name>.yaml", nc=...) parameter
  // counts (see tst_architecture.cpp for how they were made), and against model_info.
  void parameterCounts_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("nc");
    QTest::addColumn<qint64>("params");
    QTest::newRow("yolo11n") << "yolo11n" << 80 << qint64(2624080);
    QTest::newRow("yolo11s") << "yolo11s" << 80 << qint64(9458752);
    QTest::newRow("yolo11m") << "yolo11m" << 80 << qint64(20114688);
    QTest::newRow("yolo11l") << "yolo11l" << 80 << qint64(25372160);
    QTest::newRow("yolo11x") << "yolo11x" << 80 << qint64(56966176);
    QTest::newRow("yolo11n-nc5") << "yolo11n" << 5 << qint64(2590815);
    QTest::newRow("yolo11s-nc5") << "yolo11s" << 5 << qint64(9429727);
    QTest::newRow("yolo11m-nc5") << "yolo11m" << 5 << qint64(20056863);
    QTest::newRow("yolo11l-nc5") << "yolo11l" << 5 << qint64(25314335);
    QTest::newRow("yolo11x-nc5") << "yolo11x" << 5 << qint64(56879551);
    QTest::newRow("yolov8n-nc5") << "yolov8n" << 5 << qint64(3011823);
    QTest::newRow("yolov8s-nc5") << "yolov8s" << 5 << qint64(11137535);
    QTest::newRow("yolov8m-nc5") << "yolov8m" << 5 << qint64(25859215);
    QTest::newRow("yolov8l-nc5") << "yolov8l" << 5 << qint64(43633695);
    QTest::newRow("yolov8x-nc5") << "yolov8x" << 5 << qint64(68157423);
  }
  void parameterCounts() {
    QFETCH(QString, model);
    QFETCH(int, nc);
    QFETCH(qint64, params);
    Yolo net(ModelOptions{model.toStdString(), nc, 16});
    QCOMPARE(countParams(*net), params);
    QCOMPARE(modelInfo(model.toStdString(), nc, 640).params, params);
    QCOMPARE(net->nc(), nc);
    QCOMPARE(net->architecture().name, model.toStdString());
  }

  void forwardShapes() {
    Yolo model(ModelOptions{"yolo11n", 3, 16});
    QCOMPARE(model->detectIndex(), 23);
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
    // Training mode gives the same shapes (and a graph).
    model->train();
    torch::AutoGradMode grad(true);
    auto train = model->forward(torch::rand({2, 3, 64, 64}));
    QCOMPARE(train[2].sizes().vec(), (std::vector<int64_t>{2, no, 2, 2}));
    QVERIFY(train[0].requires_grad());
  }

  // Names and shapes as in Ultralytics' yolo11n state_dict (nc 5), spot checks over every module
  // kind: C3k2 with Bottlenecks (2) and with C3k (6), SPPF, C2PSA's attention and ffn, the head's
  // box branch and its depthwise-separable class branch.
  void weightNames_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QList<qint64>>("shape");
    QTest::newRow("1") << "model.2.m.0.cv1.conv.weight" << QList<qint64>{8, 16, 3, 3};
    QTest::newRow("2") << "model.6.m.0.m.1.cv2.conv.weight" << QList<qint64>{32, 32, 3, 3};
    QTest::newRow("3") << "model.6.m.0.cv3.conv.weight" << QList<qint64>{64, 64, 1, 1};
    QTest::newRow("4") << "model.9.cv2.bn.bias" << QList<qint64>{256};
    QTest::newRow("5") << "model.10.cv1.conv.weight" << QList<qint64>{256, 256, 1, 1};
    QTest::newRow("6") << "model.10.m.0.attn.qkv.conv.weight" << QList<qint64>{256, 128, 1, 1};
    QTest::newRow("7") << "model.10.m.0.attn.pe.conv.weight" << QList<qint64>{128, 1, 3, 3};
    QTest::newRow("8") << "model.10.m.0.attn.proj.bn.running_var" << QList<qint64>{128};
    QTest::newRow("9") << "model.10.m.0.ffn.1.bn.bias" << QList<qint64>{128};
    QTest::newRow("10") << "model.22.m.0.cv3.conv.weight" << QList<qint64>{128, 128, 1, 1};
    QTest::newRow("11") << "model.23.cv2.0.0.conv.weight" << QList<qint64>{64, 64, 3, 3};
    QTest::newRow("12") << "model.23.cv3.0.0.0.conv.weight" << QList<qint64>{64, 1, 3, 3};
    QTest::newRow("13") << "model.23.cv3.0.0.1.conv.weight" << QList<qint64>{64, 64, 1, 1};
    QTest::newRow("14") << "model.23.cv3.2.1.0.conv.weight" << QList<qint64>{64, 1, 3, 3};
    QTest::newRow("15") << "model.23.cv3.1.2.weight" << QList<qint64>{5, 64, 1, 1};
    QTest::newRow("16") << "model.23.cv3.1.2.bias" << QList<qint64>{5};
    QTest::newRow("17") << "model.23.dfl.conv.weight" << QList<qint64>{1, 16, 1, 1};
    QTest::newRow("18") << "model.23.cv3.0.1.1.bn.num_batches_tracked" << QList<qint64>{};
  }
  void weightNames() {
    QFETCH(QString, name);
    QFETCH(QList<qint64>, shape);
    Yolo model(ModelOptions{"yolo11n", 5, 16});
    std::map<std::string, torch::Tensor> state;
    for (const auto& p : model->named_parameters(true)) state[p.key()] = p.value();
    for (const auto& b : model->named_buffers(true)) state[b.key()] = b.value();
    // Ultralytics' yolo11n state_dict has 499 entries (parameters and buffers).
    QCOMPARE(int(state.size()), 499);
    const auto it = state.find(name.toStdString());
    QVERIFY2(it != state.end(), qPrintable(name));
    std::vector<int64_t> expected(shape.begin(), shape.end());
    QCOMPARE(it->second.sizes().vec(), expected);
  }

  void initialisation() {
    Yolo model(ModelOptions{"yolo11n", 80, 16});
    auto params = model->named_parameters(true);
    QVERIFY(torch::allclose(params["model.23.cv2.0.2.bias"], torch::full({64}, 2.0)));
    QVERIFY(std::abs(params["model.23.cv3.0.2.bias"][0].item<double>() - (-11.536642)) < 1e-4);
    QVERIFY(torch::equal(params["model.23.dfl.conv.weight"].flatten(),
                         torch::arange(16, torch::kFloat)));
  }

  void freeze() {
    Yolo model(ModelOptions{"yolo11n", 5, 16});
    const int n = model->detectIndex();
    model->freeze(n);
    int trainable = 0;
    for (const auto& p : model->named_parameters(true)) {
      const bool head = p.key().rfind("model.23.", 0) == 0;
      const bool dfl = p.key().find(".dfl.") != std::string::npos;
      QVERIFY2(p.value().requires_grad() == (head && !dfl), p.key().c_str());
      trainable += p.value().requires_grad() ? 1 : 0;
    }
    QVERIFY(trainable > 0);
    model->freeze(11);
    auto params = model->named_parameters(true);
    QVERIFY(!params["model.10.m.0.attn.qkv.conv.weight"].requires_grad());
    QVERIFY(params["model.13.cv1.conv.weight"].requires_grad());
    model->freeze(0);
    QVERIFY(model->named_parameters(true)["model.0.conv.weight"].requires_grad());
    QVERIFY(!model->named_parameters(true)["model.23.dfl.conv.weight"].requires_grad());
  }

  // Folding the BatchNorms (grouped convolutions and unactivated Convs included) leaves the
  // outputs unchanged.
  void foldBatchNorm() {
    torch::manual_seed(5);
    Yolo model(ModelOptions{"yolo11n", 3, 16});
    randomiseBatchNorms(*model);
    model->eval();
    torch::NoGradGuard g;
    auto x = torch::rand({2, 3, 64, 96});
    auto plain = model->forward(x);
    model->foldBatchNorm();
    auto folded = model->forward(x);
    int foldedConvs = 0, grouped = 0, plainConvs = 0;
    for (const auto& m : model->modules(false))
      if (auto* c = m->as<ConvImpl>()) {
        foldedConvs += c->folded.defined() ? 1 : 0;
        grouped += c->conv->options.groups() > 1 ? 1 : 0;
        plainConvs += c->activated() ? 0 : 1;
      }
    QCOMPARE(foldedConvs, 81);  // every Conv of yolo11n
    QCOMPARE(grouped, 7);       // 6 DWConvs of the head, the attention's pe
    QCOMPARE(plainConvs, 4);    // qkv, proj, pe, ffn.1
    for (size_t i = 0; i < plain.size(); ++i) {
      const double scale = plain[i].abs().max().item<double>();
      QVERIFY2(torch::allclose(folded[i], plain[i], 1e-5, 1e-5 * scale),
               qPrintable(QString("level %1: %2")
                              .arg(i)
                              .arg((folded[i] - plain[i]).abs().max().item<double>())));
    }
    model->unfoldBatchNorm();
    auto again = model->forward(x);
    for (size_t i = 0; i < plain.size(); ++i) QVERIFY(torch::equal(again[i], plain[i]));
  }

  // An explicit Architecture wins over the name, nc and regMax of the options.
  void explicitArchitecture() {
    auto arch = architectureFor("yolo11s", 7);
    QVERIFY(arch.ok());
    ModelOptions mo;
    mo.scale = "n";
    mo.nc = 80;
    mo.architecture = std::make_shared<const Architecture>(arch.value());
    Yolo model(mo);
    QCOMPARE(model->nc(), 7);
    QCOMPARE(model->options().nc, 7);
    QCOMPARE(model->architecture().name, std::string("yolo11s"));
    QCOMPARE(countParams(*model), modelInfo(arch.value(), 640).params);
    // A twin from the same handle (as the EMA is built) has the same names.
    Yolo twin(ModelOptions{"", 0, 16, model->architecturePtr()});
    QCOMPARE(twin->named_parameters(true).keys(), model->named_parameters(true).keys());
  }

  // The same seed gives the same weights; YOLOv8 keeps its construction order (the golden
  // training test pins its numbers).
  void deterministic() {
    torch::manual_seed(3);
    Yolo a(ModelOptions{"yolo11n", 4, 16});
    torch::manual_seed(3);
    Yolo b(ModelOptions{"yolo11n", 4, 16});
    auto pa = a->named_parameters(true), pb = b->named_parameters(true);
    for (const auto& p : pa) QVERIFY(torch::equal(p.value(), pb[p.key()]));
  }

  void badOptions_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("nc");
    QTest::addColumn<int>("regMax");
    QTest::newRow("yolo26n") << "yolo26n" << 80 << 16;
    QTest::newRow("nc 0") << "yolo11n" << 0 << 16;
    QTest::newRow("regMax 1") << "yolo11n" << 80 << 1;
  }
  void badOptions() {
    QFETCH(QString, model);
    QFETCH(int, nc);
    QFETCH(int, regMax);
    bool thrown = false;
    try {
      Yolo net(ModelOptions{model.toStdString(), nc, regMax});
    } catch (const stave::InternalError&) {
      thrown = true;
    }
    QVERIFY(thrown);
  }
};

QTEST_APPLESS_MAIN(TestYolo11)
#include "tst_yolo11.moc"
