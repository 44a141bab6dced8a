// core/onnx without torch: the YOLOv8n graph from weights of the right shapes passes ONNX's
// checker in float32 and float16, at every opset; a missing or misshapen weight, a bad opset or
// input size is an error naming it and writes nothing; the checker's verdict on deliberately
// broken graphs is an error; float16 conversion rounds as IEEE 754 says.

#include <QtTest>

#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>

#include "core/base/atomic_file.h"
#include "core/onnx/detector_graph.h"

using stave::onnx::Array;
using stave::onnx::DetectorGraph;

namespace {

/// Weights of YOLOv8n's shapes (nc classes), values small and deterministic.
std::map<std::string, Array> yolov8nWeights(int nc) {
  std::map<std::string, Array> w;
  uint32_t state = 1;
  auto conv = [&](const std::string& name, int64_t cin, int64_t cout, int64_t k, bool bias = true) {
    Array a{{cout, cin, k, k}, {}};
    a.values.resize(static_cast<size_t>(cout * cin * k * k));
    for (auto& v : a.values) {
      state = state * 1664525u + 1013904223u;
      v = (static_cast<float>(state >> 8) / 16777216.0f - 0.5f) * 0.1f;
    }
    w[name + ".weight"] = a;
    if (bias)
      w[name + ".bias"] = Array{{cout}, std::vector<float>(static_cast<size_t>(cout), 0.01f)};
  };
  auto c2f = [&](const std::string& name, int64_t c1, int64_t c2, int n) {
    const int64_t c = c2 / 2;
    conv(name + ".cv1", c1, 2 * c, 1);
    for (int i = 0; i < n; ++i) {
      conv(name + ".m." + std::to_string(i) + ".cv1", c, c, 3);
      conv(name + ".m." + std::to_string(i) + ".cv2", c, c, 3);
    }
    conv(name + ".cv2", (2 + n) * c, c2, 1);
  };
  conv("model.0", 3, 16, 3);
  conv("model.1", 16, 32, 3);
  c2f("model.2", 32, 32, 1);
  conv("model.3", 32, 64, 3);
  c2f("model.4", 64, 64, 2);
  conv("model.5", 64, 128, 3);
  c2f("model.6", 128, 128, 2);
  conv("model.7", 128, 256, 3);
  c2f("model.8", 256, 256, 1);
  conv("model.9.cv1", 256, 128, 1);
  conv("model.9.cv2", 512, 256, 1);
  c2f("model.12", 384, 128, 1);
  c2f("model.15", 192, 64, 1);
  conv("model.16", 64, 64, 3);
  c2f("model.18", 192, 128, 1);
  conv("model.19", 128, 128, 3);
  c2f("model.21", 384, 256, 1);
  const int64_t ch[] = {64, 128, 256};
  for (int i = 0; i < 3; ++i) {
    const std::string b = "model.22.cv2." + std::to_string(i),
                      c = "model.22.cv3." + std::to_string(i);
    conv(b + ".0", ch[i], 64, 3);
    conv(b + ".1", 64, 64, 3);
    conv(b + ".2", 64, 64, 1);
    conv(c + ".0", ch[i], 64, 3);
    conv(c + ".1", 64, 64, 3);
    conv(c + ".2", 64, nc, 1);
  }
  Array dfl{{1, 16, 1, 1}, {}};
  for (int i = 0; i < 16; ++i) dfl.values.push_back(static_cast<float>(i));
  w["model.22.dfl.conv.weight"] = dfl;
  return w;
}

DetectorGraph graph(int nc = 3) {
  DetectorGraph g;
  g.weights = yolov8nWeights(nc);
  g.nc = nc;
  g.names = {"cat", "dog's", "bird"};
  g.height = g.width = 64;
  return g;
}

::onnx::ModelProto parse(const QString& path) {
  ::onnx::ModelProto m;
  QFile f(path);
  if (f.open(QIODevice::ReadOnly)) m.ParseFromString(f.readAll().toStdString());
  return m;
}

/// A one-node model: y = Relu(x), x and y float (1, 4); valid as built.
::onnx::ModelProto tinyModel() {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("tiny");
  auto* n = g->add_node();
  n->set_op_type("Relu");
  n->add_input("x");
  n->add_output("y");
  for (auto* v : {g->add_input(), g->add_output()}) {
    v->set_name(v == &g->input(0) ? "x" : "y");
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(::onnx::TensorProto_DataType_FLOAT);
    t->mutable_shape()->add_dim()->set_dim_value(1);
    t->mutable_shape()->add_dim()->set_dim_value(4);
  }
  return m;
}

QString verdict(const ::onnx::ModelProto& m) {
  auto st = stave::onnx::checkOnnxModel(m.SerializeAsString(), "broken.onnx");
  return st ? QString() : QString::fromStdString(st.errorText());
}

}  // namespace

class TestDetectorGraph : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

 private slots:
  void float32AndFloat16PassTheChecker_data() {
    QTest::addColumn<bool>("half");
    QTest::addColumn<bool>("dynamic");
    QTest::addColumn<int>("opset");
    QTest::newRow("float32 17") << false << false << 17;
    QTest::newRow("float32 13 dynamic") << false << true << 13;
    QTest::newRow("float16 17") << true << false << 17;
    QTest::newRow("float16 15 dynamic") << true << true << 15;
  }
  void float32AndFloat16PassTheChecker() {
    QFETCH(bool, half);
    QFETCH(bool, dynamic);
    QFETCH(int, opset);
    auto g = graph();
    g.half = half;
    g.dynamic = dynamic;
    g.opset = opset;
    const QString path =
        m_dir.filePath(QString("m-%1-%2-%3.onnx").arg(half).arg(dynamic).arg(opset));
    auto r = stave::onnx::writeDetectorOnnx(g, path.toStdString());
    QVERIFY2(r.ok(), r.errorText().c_str());
    QVERIFY(stave::onnx::checkOnnxFile(path.toStdString()).ok());
    QCOMPARE(r.value().bytes, QFileInfo(path).size());
    const auto m = parse(path);
    QCOMPARE(m.opset_import(0).version(), int64_t(opset));
    const int elem =
        half ? ::onnx::TensorProto_DataType_FLOAT16 : ::onnx::TensorProto_DataType_FLOAT;
    QCOMPARE(m.graph().input(0).type().tensor_type().elem_type(), elem);
    QCOMPARE(m.graph().output(0).type().tensor_type().elem_type(), elem);
    QCOMPARE(m.graph().output(0).name(), std::string("output0"));
    const auto& dims = m.graph().output(0).type().tensor_type().shape();
    QCOMPARE(dims.dim(1).dim_value(), int64_t(4 + 3));
    if (dynamic) {
      QCOMPARE(dims.dim(2).dim_param(), std::string("anchors"));
      QCOMPARE(m.graph().input(0).type().tensor_type().shape().dim(2).dim_param(),
               std::string("height"));
    } else {
      QCOMPARE(dims.dim(2).dim_value(), int64_t(8 * 8 + 4 * 4 + 2 * 2));
    }
    // Every weight is stored in the graph's type: 2 bytes each in float16.
    int64_t weightBytes = 0;
    for (const auto& t : m.graph().initializer())
      if (t.data_type() == elem) weightBytes += static_cast<int64_t>(t.raw_data().size());
    QCOMPARE(weightBytes, r.value().parameters * (half ? 2 : 4));
    QMap<QString, QString> meta;
    for (const auto& p : m.metadata_props())
      meta[QString::fromStdString(p.key())] = QString::fromStdString(p.value());
    QCOMPARE(meta["names"], QString("{0: 'cat', 1: \"dog's\", 2: 'bird'}"));
    QCOMPARE(meta["imgsz"], QString("[64, 64]"));
    QCOMPARE(meta["task"], QString("detect"));
  }

  void badWeightsAndOptionsWriteNothing() {
    const QString path = m_dir.filePath("bad/m.onnx");
    auto check = [&](DetectorGraph g, const QString& said) {
      auto r = stave::onnx::writeDetectorOnnx(g, path.toStdString());
      QVERIFY(!r.ok());
      QVERIFY2(QString::fromStdString(r.errorText()).contains(said), r.errorText().c_str());
      QVERIFY(!QFileInfo::exists(path));
    };
    auto g = graph();
    g.weights.erase("model.12.m.0.cv2.weight");
    // The block's last bottleneck is found by its cv1; its cv2 missing is named.
    check(g, "the weights have no model.12.m.0.cv2.weight");
    g = graph();
    g.weights["model.5.bias"].values.pop_back();
    check(g, "model.5.bias: shape (128) but 127 values");
    g = graph();
    g.weights["model.5.bias"] = Array{{64}, std::vector<float>(64, 0.f)};
    check(g, "model.5.bias: expected (128), got (64)");
    g = graph();
    g.nc = 4;  // the head has 3 class outputs
    check(g, "3 class outputs, but nc is 4");
    g = graph();
    g.opset = 12;
    check(g, "opset: must be 13 to 17, got 12");
    g = graph();
    g.height = 48;
    check(g, "multiple of the model's stride 32, got 48");
    g = graph();
    g.weights["model.22.dfl.conv.weight"].shape = {1, 8, 1, 2};
    check(g, "model.22.dfl.conv.weight: expected (1, 16, 1, 1)");
  }

  // The checker's verdict on graphs broken on purpose is an error naming the model, and a
  // valid one passes; garbage is not taken for a model.
  void brokenGraphsAreRejected() {
    QVERIFY(verdict(tinyModel()).isEmpty());

    auto undefinedInput = tinyModel();
    undefinedInput.mutable_graph()->mutable_node(0)->set_input(0, "nowhere");
    QVERIFY(verdict(undefinedInput).contains("broken.onnx: the ONNX checker rejects the model"));
    QVERIFY2(verdict(undefinedInput).contains("nowhere"), qPrintable(verdict(undefinedInput)));

    auto unknownOp = tinyModel();
    unknownOp.mutable_graph()->mutable_node(0)->set_op_type("NoSuchOp");
    QVERIFY2(verdict(unknownOp).contains("NoSuchOp"), qPrintable(verdict(unknownOp)));

    auto wrongType = tinyModel();  // Relu of an int64 input: no such overload
    wrongType.mutable_graph()
        ->mutable_input(0)
        ->mutable_type()
        ->mutable_tensor_type()
        ->set_elem_type(::onnx::TensorProto_DataType_STRING);
    QVERIFY(!verdict(wrongType).isEmpty());

    auto wrongShape = tinyModel();  // declared output (1, 5) where Relu gives (1, 4)
    wrongShape.mutable_graph()
        ->mutable_output(0)
        ->mutable_type()
        ->mutable_tensor_type()
        ->mutable_shape()
        ->mutable_dim(1)
        ->set_dim_value(5);
    QVERIFY(!verdict(wrongShape).isEmpty());

    auto st = stave::onnx::checkOnnxModel("not a model at all \x01\x02", "junk.onnx");
    QVERIFY(!st.ok());
    QVERIFY2(st.errorText().find("junk.onnx") != std::string::npos, st.errorText().c_str());

    // A real export with one node's input cut: the whole-graph check names the value.
    const QString path = m_dir.filePath("cut.onnx");
    QVERIFY(stave::onnx::writeDetectorOnnx(graph(), path.toStdString()).ok());
    auto cut = parse(path);
    cut.mutable_graph()->mutable_node(10)->set_input(0, "cut_here");
    QVERIFY2(verdict(cut).contains("cut_here"), qPrintable(verdict(cut)));
    QVERIFY(stave::writeFileAtomic(path.toStdString(), cut.SerializeAsString()).ok());
    QVERIFY(!stave::onnx::checkOnnxFile(path.toStdString()).ok());
  }

  void floatToHalfRoundsToNearestEven() {
    using stave::onnx::floatToHalf;
    QCOMPARE(floatToHalf(0.0f), uint16_t(0x0000));
    QCOMPARE(floatToHalf(-0.0f), uint16_t(0x8000));
    QCOMPARE(floatToHalf(1.0f), uint16_t(0x3c00));
    QCOMPARE(floatToHalf(-2.0f), uint16_t(0xc000));
    QCOMPARE(floatToHalf(0.5f), uint16_t(0x3800));
    QCOMPARE(floatToHalf(65504.0f), uint16_t(0x7bff));  // largest finite
    QCOMPARE(floatToHalf(65520.0f), uint16_t(0x7c00));  // rounds up to inf
    QCOMPARE(floatToHalf(1e6f), uint16_t(0x7c00));
    QCOMPARE(floatToHalf(INFINITY), uint16_t(0x7c00));
    QVERIFY((floatToHalf(NAN) & 0x7c00) == 0x7c00 && (floatToHalf(NAN) & 0x3ff) != 0);
    QCOMPARE(floatToHalf(std::ldexp(1.0f, -24)), uint16_t(0x0001));  // smallest subnormal
    QCOMPARE(floatToHalf(std::ldexp(1.0f, -14)), uint16_t(0x0400));  // smallest normal
    QCOMPARE(floatToHalf(std::ldexp(1.0f, -26)), uint16_t(0x0000));  // below half the smallest
    // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: to even (1); 1 + 3 * 2^-11 up to 1 + 2^-9.
    QCOMPARE(floatToHalf(1.0f + std::ldexp(1.0f, -11)), uint16_t(0x3c00));
    QCOMPARE(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), uint16_t(0x3c02));
    QCOMPARE(floatToHalf(0.1f), uint16_t(0x2e66));
  }
};

QTEST_GUILESS_MAIN(TestDetectorGraph)
#include "tst_detector_graph.moc"
