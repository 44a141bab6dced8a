// core/onnx without torch: the YOLOv8n and YOLO11n graphs, walked from their architecture
// descriptions, from weights of the right shapes (YOLO11n's as Ultralytics' own fused model has
// them, yolo11n_nc3_shapes.txt) pass ONNX's checker in float32 and float16, fixed and dynamic, at
// every opset, with the nodes each architecture implies (grouped convolutions, attention); a
// missing or misshapen weight, weights of another architecture, a bad opset or input size is an
// error naming it and writes nothing; the checker's verdict on deliberately broken graphs is an
// error; float16 conversion rounds as IEEE 754 says.

#include <QtTest>

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/base/atomic_file.h"
#include "core/onnx/detector_graph.h"

using stave::onnx::Array;
using stave::onnx::DetectorGraph;

namespace {

/// Small deterministic values in (-0.05, 0.05).
void fillValues(Array& a, uint32_t& state) {
  size_t n = 1;
  for (auto d : a.shape) n *= static_cast<size_t>(d);
  a.values.resize(n);
  for (auto& v : a.values) {
    state = state * 1664525u + 1013904223u;
    v = (static_cast<float>(state >> 8) / 16777216.0f - 0.5f) * 0.1f;
  }
}

/// Weights of YOLOv8n's shapes (nc classes), values small and deterministic.
std::map<std::string, Array> yolov8nWeights(int nc) {
  std::map<std::string, Array> w;
  uint32_t state = 1;
  auto conv = [&](const std::string& name, int64_t cin, int64_t cout, int64_t k, bool bias = true) {
    Array a{{cout, cin, k, k}, {}};
    fillValues(a, state);
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

stave::model::Architecture architecture(const std::string& name, int nc) {
  auto a = stave::model::architectureFor(name, nc);
  return a ? a.value() : stave::model::Architecture{};
}

/// Weights of the shapes Ultralytics' fused yolo11n (3 classes) has, from the checked-in table;
/// the DFL's as Detect fixes them (0..15), the others small and deterministic.
std::map<std::string, Array> yolo11nWeights() {
  std::map<std::string, Array> w;
  std::ifstream f(STAVE_SOURCE_DIR "/tests/unit/onnx/yolo11n_nc3_shapes.txt");
  uint32_t state = 7;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    std::string name;
    Array a;
    in >> name;
    for (int64_t d; in >> d;) a.shape.push_back(d);
    fillValues(a, state);
    if (name.find(".dfl.") != std::string::npos)
      for (size_t i = 0; i < a.values.size(); ++i) a.values[i] = static_cast<float>(i);
    w[name] = a;
  }
  return w;
}

/// A 64 x 64 graph of `model` (yolov8n or yolo11n) with 3 classes.
DetectorGraph graph(const std::string& model = "yolov8n") {
  DetectorGraph g;
  g.architecture = architecture(model, 3);
  g.weights = model == "yolo11n" ? yolo11nWeights() : yolov8nWeights(3);
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
    QTest::addColumn<QString>("model");
    QTest::addColumn<bool>("half");
    QTest::addColumn<bool>("dynamic");
    QTest::addColumn<int>("opset");
    for (const QString model : {"yolov8n", "yolo11n"}) {
      const QByteArray m = model.toUtf8();
      QTest::newRow(m + " float32 17") << model << false << false << 17;
      QTest::newRow(m + " float32 13 dynamic") << model << false << true << 13;
      QTest::newRow(m + " float16 17") << model << true << false << 17;
      QTest::newRow(m + " float16 15 dynamic") << model << true << true << 15;
    }
  }
  void float32AndFloat16PassTheChecker() {
    QFETCH(QString, model);
    QFETCH(bool, half);
    QFETCH(bool, dynamic);
    QFETCH(int, opset);
    auto g = graph(model.toStdString());
    g.half = half;
    g.dynamic = dynamic;
    g.opset = opset;
    const QString path =
        m_dir.filePath(QString("%1-%2-%3-%4.onnx").arg(model).arg(half).arg(dynamic).arg(opset));
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
    QCOMPARE(meta["description"], "Stave " + model + " detector");
  }

  // The nodes each architecture implies: a Conv per weight (the DFL's shared by the three
  // levels), grouped ones only where YOLO11 has them (the attention's positional 3x3 and the
  // head's two depthwise 3x3 per level), the attention's two MatMuls and its Softmax beside the
  // DFL's three; the same for a fixed and a dynamic input.
  void nodesFollowTheArchitecture_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("grouped");
    QTest::addColumn<int>("matmuls");
    QTest::addColumn<int>("softmaxes");
    QTest::newRow("yolov8n") << "yolov8n" << 0 << 0 << 3;
    QTest::newRow("yolo11n") << "yolo11n" << 1 + 2 * 3 << 2 << 1 + 3;
  }
  void nodesFollowTheArchitecture() {
    QFETCH(QString, model);
    QFETCH(int, grouped);
    QFETCH(int, matmuls);
    QFETCH(int, softmaxes);
    for (bool dynamic : {false, true}) {
      auto g = graph(model.toStdString());
      g.dynamic = dynamic;
      int weights = 0;
      for (const auto& [name, a] : g.weights) weights += a.shape.size() == 4 ? 1 : 0;
      const QString path = m_dir.filePath(model + (dynamic ? "-dyn" : "") + "-nodes.onnx");
      auto r = stave::onnx::writeDetectorOnnx(g, path.toStdString());
      QVERIFY2(r.ok(), r.errorText().c_str());
      const auto m = parse(path);
      QCOMPARE(m.graph().name(), "stave_" + g.architecture.family + "_detect");
      QMap<QString, int> ops;
      int groupedConvs = 0;
      for (const auto& n : m.graph().node()) {
        ++ops[QString::fromStdString(n.op_type())];
        for (const auto& a : n.attribute())
          if (a.name() == "group" && a.i() > 1) ++groupedConvs;
      }
      QCOMPARE(r.value().nodes, int64_t(m.graph().node_size()));
      QCOMPARE(ops["Conv"], weights + 2);
      QCOMPARE(groupedConvs, grouped);
      QCOMPARE(ops["MatMul"], matmuls);
      QCOMPARE(ops["Softmax"], softmaxes);
      QCOMPARE(ops["Resize"], 2);
      QCOMPARE(ops["MaxPool"], 3);
      int64_t parameters = 0;
      for (const auto& [name, a] : g.weights) parameters += int64_t(a.values.size());
      // The weights plus the graph's float constants (anchor offset, 2, strides, attention scale).
      QVERIFY2(r.value().parameters > parameters && r.value().parameters <= parameters + 8,
               qPrintable(QString::number(r.value().parameters - parameters)));
    }
  }

  // A dynamic YOLO11 graph keeps its shapes through the attention (whose reshapes take B, H and
  // W from the input at run time): inference with data propagation gives the attention's output
  // rank 4 with its channels, and the model output (batch, 4 + nc, anchors).
  void dynamicAttentionShapesInfer() {
    auto g = graph("yolo11n");
    g.dynamic = true;
    const QString path = m_dir.filePath("yolo11n-infer.onnx");
    QVERIFY(stave::onnx::writeDetectorOnnx(g, path.toStdString()).ok());
    auto m = parse(path);
    ::onnx::shape_inference::InferShapes(m, ::onnx::OpSchemaRegistry::Instance(),
                                         ::onnx::ShapeInferenceOptions(true, 1, true));
    QMap<std::string, const ::onnx::TensorShapeProto*> shapes;
    for (const auto& v : m.graph().value_info()) shapes[v.name()] = &v.type().tensor_type().shape();
    for (const char* value :
         {"/model.10.m.0.attn/Reshape_1_output_0", "/model.10.m.0.attn.pe/Conv_output_0",
          "/model.10.m.0.attn.proj/Conv_output_0"}) {
      QVERIFY2(shapes.contains(value), value);
      QCOMPARE(shapes[value]->dim_size(), 4);
      QCOMPARE(shapes[value]->dim(1).dim_value(), int64_t(128));
    }
    const auto& scores = "/model.10.m.0.attn/Softmax_output_0";
    QVERIFY(shapes.contains(scores));
    QCOMPARE(shapes[scores]->dim_size(), 4);
    QCOMPARE(shapes[scores]->dim(1).dim_value(), int64_t(2));  // heads: 128 / 64
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
    check(g, "the weights have no model.12.m.0.cv2.weight");
    g = graph();
    g.weights["model.5.bias"].values.pop_back();
    check(g, "model.5.bias: shape (128) but 127 values");
    g = graph();
    g.weights["model.5.bias"] = Array{{64}, std::vector<float>(64, 0.f)};
    check(g, "model.5.bias: expected (128), got (64)");
    g = graph();
    g.architecture = architecture("yolov8n", 4);  // the head has 3 class outputs
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
    g = graph("yolo11n");
    g.weights.erase("model.10.m.0.attn.pe.weight");
    check(g, "the weights have no model.10.m.0.attn.pe.weight");
    g = graph("yolo11n");  // the positional convolution is depthwise
    g.weights["model.10.m.0.attn.pe.weight"] =
        Array{{128, 128, 3, 3}, std::vector<float>(128 * 128 * 9)};
    check(g,
          "model.10.m.0.attn.pe.weight: expected (out, 1, 3, 3) for 128 input channels in 128 "
          "group(s)");
    g = graph("yolo11n");
    g.weights["model.23.cv3.1.0.0.weight"].shape = {128, 1, 1, 1};
    g.weights["model.23.cv3.1.0.0.weight"].values.resize(128);
    check(g, "model.23.cv3.1.0.0.weight: expected a 3x3 kernel");
    g = graph("yolo11n");  // another architecture's weights: the first that differs is named
    g.weights = yolov8nWeights(3);
    check(g, "model.2.m.0.cv1.weight: expected 8 output channels, got (16, 16, 3, 3)");
    g = graph("yolo11n");
    g.architecture.layers.clear();
    check(g, "no architecture to build");
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
