// Architecture descriptions (architecture.h) and the analytic size (model_info.h) of both
// families against what Ultralytics 8.4.190 reports for the same yaml files.
#include <QtTest>

#include <string>

#include "core/model/architecture.h"
#include "core/model/model_info.h"

using namespace stave::model;
using json = nlohmann::json;

namespace {
/// The text of all errors of `r`.
template <typename T>
std::string errorsOf(const stave::Result<T>& r) {
  return r.ok() ? std::string() : r.errorText();
}
}  // namespace

class TestArchitecture : public QObject {
  Q_OBJECT

 private slots:
  // Exact parameter and layer counts from Ultralytics 8.4.190 itself (DetectionModel(
  // "<name>.yaml", nc=...): sum of parameters' numel, len(list(modules())), leaf modules as its
  // model.info() counts them) and its GFLOPs (get_flops(model, 640), thop 2.2.3); made once with
  // the bench venv of tests/bench/ultralytics.
  void ultralyticsFigures_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<qint64>("params80");
    QTest::addColumn<qint64>("params5");
    QTest::addColumn<int>("layers");
    QTest::addColumn<int>("leafLayers");
    QTest::addColumn<double>("gflops");
    QTest::newRow("yolov8n") << "yolov8n" << qint64(3157200) << qint64(3011823) << 225 << 129
                             << 8.8550912;
    QTest::newRow("yolov8s") << "yolov8s" << qint64(11166560) << qint64(11137535) << 225 << 129
                             << 28.8119296;
    QTest::newRow("yolov8m") << "yolov8m" << qint64(25902640) << qint64(25859215) << 295 << 169
                             << 79.313664;
    QTest::newRow("yolov8l") << "yolov8l" << qint64(43691520) << qint64(43633695) << 365 << 209
                             << 165.734656;
    QTest::newRow("yolov8x") << "yolov8x" << qint64(68229648) << qint64(68157423) << 365 << 209
                             << 258.5370112;
    QTest::newRow("yolo11n") << "yolo11n" << qint64(2624080) << qint64(2590815) << 319 << 181
                             << 6.6733184;
    QTest::newRow("yolo11s") << "yolo11s" << qint64(9458752) << qint64(9429727) << 319 << 181
                             << 21.8363392;
    QTest::newRow("yolo11m") << "yolo11m" << qint64(20114688) << qint64(20056863) << 409 << 231
                             << 68.643072;
    QTest::newRow("yolo11l") << "yolo11l" << qint64(25372160) << qint64(25314335) << 631 << 357
                             << 87.8510592;
    QTest::newRow("yolo11x") << "yolo11x" << qint64(56966176) << qint64(56879551) << 631 << 357
                             << 196.3150848;
  }
  void ultralyticsFigures() {
    QFETCH(QString, model);
    QFETCH(qint64, params80);
    QFETCH(qint64, params5);
    QFETCH(int, layers);
    QFETCH(int, leafLayers);
    QFETCH(double, gflops);
    const ModelInfo info = modelInfo(model.toStdString(), 80, 640);
    QCOMPARE(info.params, params80);
    QCOMPARE(modelInfo(model.toStdString(), 5, 640).params, params5);
    QCOMPARE(info.layers, layers);
    QCOMPARE(info.leafLayers, leafLayers);
    // thop in Ultralytics 8.4 also counts the BatchNorms; Stave counts the convolutions only.
    QVERIFY2(std::abs(info.gflops - gflops) / gflops < 0.03,
             qPrintable(QString::number(info.gflops)));
    // The same through an explicit Architecture.
    auto arch = architectureFor(model.toStdString(), 80);
    QVERIFY2(arch.ok(), errorsOf(arch).c_str());
    QCOMPARE(modelInfo(arch.value(), 640).params, params80);
  }

  // The fused figures Ultralytics 8.4.190 prints after model.fuse() (nc 80): parameters, leaf
  // modules and GFLOPs (thop then sees convolutions with biases and no BatchNorms, which is what
  // Stave's count models).
  void fusedFigures_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<qint64>("params");
    QTest::addColumn<int>("leafLayers");
    QTest::addColumn<double>("gflops");
    QTest::newRow("yolov8n") << "yolov8n" << qint64(3151904) << 72 << 8.744;
    QTest::newRow("yolov8s") << "yolov8s" << qint64(11156544) << 72 << 28.6026;
    QTest::newRow("yolov8m") << "yolov8m" << qint64(25886080) << 92 << 78.9367;
    QTest::newRow("yolov8l") << "yolov8l" << qint64(43668288) << 112 << 165.1485;
    QTest::newRow("yolov8x") << "yolov8x" << qint64(68200608) << 112 << 257.8043;
    QTest::newRow("yolo11n") << "yolo11n" << qint64(2616248) << 100 << 6.5425;
    QTest::newRow("yolo11s") << "yolo11s" << qint64(9443760) << 100 << 21.5898;
    QTest::newRow("yolo11m") << "yolo11m" << qint64(20091712) << 125 << 68.1044;
    QTest::newRow("yolo11l") << "yolo11l" << qint64(25340992) << 190 << 87.156;
    QTest::newRow("yolo11x") << "yolo11x" << qint64(56919424) << 190 << 195.2724;
  }
  void fusedFigures() {
    QFETCH(QString, model);
    QFETCH(qint64, params);
    QFETCH(int, leafLayers);
    QFETCH(double, gflops);
    const ModelInfo info = modelInfo(model.toStdString(), 80, 640);
    QCOMPARE(info.fusedParams, params);
    QCOMPARE(info.fusedLeafLayers, leafLayers);
    qInfo("%s: %.4f GFLOPs (Ultralytics fused %.4f)", qPrintable(model), info.gflops, gflops);
    QVERIFY2(std::abs(info.gflops - gflops) / gflops < 0.001,
             qPrintable(QString::number(info.gflops)));
  }

  void names_data() {
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("family");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("scale");
    QTest::newRow("letter") << "n"
                            << "yolov8"
                            << "yolov8n"
                            << "n";
    QTest::newRow("letter x") << "x"
                              << "yolov8"
                              << "yolov8x"
                              << "x";
    QTest::newRow("yolov8s") << "yolov8s"
                             << "yolov8"
                             << "yolov8s"
                             << "s";
    QTest::newRow("yolov8m.yaml") << "yolov8m.yaml"
                                  << "yolov8"
                                  << "yolov8m"
                                  << "m";
    QTest::newRow("yolo11n") << "yolo11n"
                             << "yolo11"
                             << "yolo11n"
                             << "n";
    QTest::newRow("yolo11l.yaml") << "yolo11l.yaml"
                                  << "yolo11"
                                  << "yolo11l"
                                  << "l";
    QTest::newRow("yolo11x") << "yolo11x"
                             << "yolo11"
                             << "yolo11x"
                             << "x";
  }
  void names() {
    QFETCH(QString, input);
    QFETCH(QString, family);
    QFETCH(QString, name);
    QFETCH(QString, scale);
    auto a = architectureFor(input.toStdString(), 7);
    QVERIFY2(a.ok(), errorsOf(a).c_str());
    QCOMPARE(QString::fromStdString(a->family), family);
    QCOMPARE(QString::fromStdString(a->name), name);
    QCOMPARE(QString(QChar(a->scale)), scale);
    QCOMPARE(a->nc, 7);
    QCOMPARE(a->regMax, 16);
    QCOMPARE(a->strides, (std::vector<int64_t>{8, 16, 32}));
    QCOMPARE(a->legacyHead, family == "yolov8");
    QCOMPARE(a->detectIndex(), family == "yolov8" ? 22 : 23);
    QCOMPARE(a->layers.back().module, std::string("Detect"));
    // The description a checkpoint carries, as Ultralytics writes it.
    QCOMPARE(a->yaml["nc"].get<int>(), 7);
    QCOMPARE(a->yaml["scale"].get<std::string>(), scale.toStdString());
    QCOMPARE(a->yaml["yaml_file"].get<std::string>(), name.toStdString() + ".yaml");
    QVERIFY(a->yaml["backbone"].is_array() && a->yaml["head"].is_array());
    QVERIFY(a->yaml["scales"].contains("x"));
    // Through the description again: the same network.
    auto again = architectureFromYaml(a->yaml, 0, "again");
    QVERIFY2(again.ok(), errorsOf(again).c_str());
    QCOMPARE(again->layers.size(), a->layers.size());
    QCOMPARE(again->nc, 7);
    for (size_t i = 0; i < a->layers.size(); ++i)
      QCOMPARE(again->layers[i].args, a->layers[i].args);
  }

  void unknownNames_data() {
    QTest::addColumn<QString>("input");
    QTest::newRow("empty") << "";
    QTest::newRow("yolov8") << "yolov8";
    QTest::newRow("yolo11") << "yolo11";
    QTest::newRow("yolo26n") << "yolo26n";
    QTest::newRow("yolov5n") << "yolov5n";
    QTest::newRow("yolo11q") << "yolo11q";
    QTest::newRow("N") << "N";
    QTest::newRow("yolo11n-seg") << "yolo11n-seg.yaml";
  }
  void unknownNames() {
    QFETCH(QString, input);
    auto a = architectureFor(input.toStdString(), 80);
    QVERIFY(!a.ok());
    QCOMPARE(a.errors()[0].key, std::string("model"));
    const std::string text = a.errorText();
    QVERIFY2(text.find("'" + input.toStdString() + "'") != std::string::npos, text.c_str());
    for (const char* valid : {"yolov8n", "yolo11x", "n, s, m, l, x"})
      QVERIFY2(text.find(valid) != std::string::npos, text.c_str());
    QVERIFY(!architectureFor("yolo11n", 0).ok());
  }

  // parse_model's rules, checked on what Ultralytics 8.4.190 prints for yolo11n and yolo11m.
  void resolvedLayers() {
    auto n = architectureFor("yolo11n", 80);
    QVERIFY(n.ok());
    QCOMPARE(n->layers.size(), size_t(24));
    QCOMPARE(n->layers[2].args.dump(), std::string("[32,64,1,false,0.25,false,1,true]"));
    QCOMPARE(n->layers[6].args.dump(), std::string("[128,128,1,true,0.5,false,1,true]"));
    QCOMPARE(n->layers[9].args.dump(), std::string("[256,256,5]"));
    QCOMPARE(n->layers[10].args.dump(), std::string("[256,256,1,0.5]"));
    QCOMPARE(n->layers[12].c2, int64_t(384));
    QCOMPARE(n->layers[12].from, (std::vector<int>{11, 6}));
    QCOMPARE(n->layers[23].from, (std::vector<int>{16, 19, 22}));
    QCOMPARE(n->layers[23].inChannels, (std::vector<int64_t>{64, 128, 256}));
    QCOMPARE(n->layers[23].args.dump(), std::string("[80,16,false,[64,128,256]]"));
    QCOMPARE(n->save, (std::vector<int>{4, 6, 10, 13, 16, 19, 22}));
    QCOMPARE(n->layers[16].outStride, 8);
    QCOMPARE(n->layers[11].outStride, 16);
    QCOMPARE(n->detectFrom, (std::vector<int>{16, 19, 22}));
    // m, l, x: every C3k2 uses C3k blocks; l, x: two repeats.
    auto m = architectureFor("yolo11m", 80);
    QVERIFY(m.ok());
    QCOMPARE(m->layers[2].args.dump(), std::string("[128,256,1,true,0.25,false,1,true]"));
    QCOMPARE(m->layers[13].args.dump(), std::string("[1024,512,1,true,0.5,false,1,true]"));
    auto l = architectureFor("yolo11l", 80);
    QVERIFY(l.ok());
    QCOMPARE(l->layers[2].repeats, 2);
    QCOMPARE(l->layers[10].repeats, 2);
    auto v8m = architectureFor("yolov8m", 80);
    QVERIFY(v8m.ok());
    QCOMPARE(v8m->layers[4].repeats, 4);        // round(6 * 0.67)
    QCOMPARE(v8m->layers[2].repeats, 2);        // round(3 * 0.67)
    QCOMPARE(v8m->layers[8].c2, int64_t(576));  // min(1024, 768) * 0.75
    QCOMPARE(v8m->save, (std::vector<int>{4, 6, 9, 12, 15, 18, 21}));
  }

  // A checkpoint's model.yaml: the published dict plus the keys DetectionModel adds.
  void checkpointYaml() {
    json y = builtinYaml("yolo11");
    y["scale"] = "s";
    y["yaml_file"] = "yolo11s.yaml";
    y["ch"] = 3;
    y["channels"] = 3;
    y["nc"] = 20;
    y["inplace"] = true;
    auto a = architectureFromYaml(y, 0, "best.pt");
    QVERIFY2(a.ok(), errorsOf(a).c_str());
    QCOMPARE(a->name, std::string("yolo11s"));
    QCOMPARE(a->nc, 20);
    QCOMPARE(modelInfo(a.value(), 640).params, modelInfo("yolo11s", 20, 640).params);
    // nc given: it overrides the description's.
    auto b = architectureFromYaml(y, 3, "best.pt");
    QVERIFY(b.ok());
    QCOMPARE(b->nc, 3);
    QCOMPARE(b->yaml["nc"].get<int>(), 3);
    // No scale key: the first scale, as Ultralytics assumes ('n').
    y.erase("scale");
    y.erase("yaml_file");
    auto c = architectureFromYaml(y, 0, "best.pt");
    QVERIFY(c.ok());
    QCOMPARE(c->scale, 'n');
    QCOMPARE(c->name, std::string("yolo11n"));
    // Python's None spelt as YAML leaves it, or as null.
    json v8 = builtinYaml("yolov8");
    v8["scale"] = "n";
    v8["head"][0][3][0] = nullptr;
    QVERIFY(architectureFromYaml(v8, 0, "").ok());
  }

  // Descriptions Stave does not build are refused naming the module and the layer.
  void refusals_data() {
    QTest::addColumn<QString>("change");
    QTest::addColumn<QString>("expected1");
    QTest::addColumn<QString>("expected2");
    QTest::newRow("Segment") << "segment"
                             << "layer 23"
                             << "'Segment'";
    QTest::newRow("Pose") << "pose"
                          << "layer 23"
                          << "'Pose'";
    QTest::newRow("C2fAttn") << "c2fattn"
                             << "layer 2"
                             << "'C2fAttn'";
    QTest::newRow("RTDETRDecoder") << "rtdetr"
                                   << "layer 23"
                                   << "'RTDETRDecoder'";
    QTest::newRow("YOLO26 SPPF") << "sppf26"
                                 << "layer 9"
                                 << "SPPF";
    QTest::newRow("YOLO26 C3k2 attn") << "c3k2attn"
                                      << "layer 22"
                                      << "attn";
    QTest::newRow("end2end") << "end2end"
                             << "end2end"
                             << "end-to-end";
    QTest::newRow("reg_max 1") << "regmax1"
                               << "reg_max"
                               << "DFL";
    QTest::newRow("1 channel") << "ch1"
                               << "channels"
                               << "3-channel";
    QTest::newRow("no head") << "nohead"
                             << "head"
                             << "missing";
    QTest::newRow("bad from") << "badfrom"
                              << "layer 12"
                              << "earlier layer";
    QTest::newRow("unknown scale") << "scaleq"
                                   << "scale"
                                   << "'q'";
  }
  void refusals() {
    QFETCH(QString, change);
    QFETCH(QString, expected1);
    QFETCH(QString, expected2);
    json y = builtinYaml("yolo11");
    y["scale"] = "n";
    const std::string c = change.toStdString();
    if (c == "segment") y["head"].back()[2] = "Segment";
    if (c == "pose") y["head"].back()[2] = "Pose";
    if (c == "c2fattn") y["backbone"][2][2] = "C2fAttn";
    if (c == "rtdetr") y["head"].back()[2] = "RTDETRDecoder";
    if (c == "sppf26") y["backbone"][9][3] = json::array({1024, 5, 3, true});
    if (c == "c3k2attn") y["head"][11][3] = json::array({1024, true, 0.5, true});
    if (c == "end2end") y["end2end"] = true;
    if (c == "regmax1") y["reg_max"] = 1;
    if (c == "ch1") y["channels"] = 1;
    if (c == "nohead") y.erase("head");
    if (c == "badfrom") y["head"][1][0] = json::array({-1, 30});
    if (c == "scaleq") y["scale"] = "q";
    auto a = architectureFromYaml(y, 0, "yolo26n.pt");
    QVERIFY(!a.ok());
    const std::string text = a.errorText();
    QVERIFY2(text.find("yolo26n.pt") != std::string::npos, text.c_str());
    QVERIFY2(text.find(expected1.toStdString()) != std::string::npos, text.c_str());
    QVERIFY2(text.find(expected2.toStdString()) != std::string::npos, text.c_str());
  }

  void makeDivisibleRule() {
    QCOMPARE(makeDivisible(16.0, 8), int64_t(16));
    QCOMPARE(makeDivisible(16.1, 8), int64_t(24));
    QCOMPARE(makeDivisible(1024 * 1.25, 8), int64_t(1280));
    QCOMPARE(makeDivisible(0.5, 8), int64_t(8));
  }

  // scaleSpec() keeps working for the callers that know only multipliers, for both families.
  void scaleSpecs() {
    auto v8 = scaleSpec("m");
    QVERIFY(v8.ok());
    QCOMPARE(v8->depth, 0.67);
    QCOMPARE(v8->maxChannels, 768);
    auto v11 = scaleSpec("yolo11x.yaml");
    QVERIFY(v11.ok());
    QCOMPARE(v11->width, 1.5);
    QVERIFY(!scaleSpec("q").ok());
  }
};

QTEST_APPLESS_MAIN(TestArchitecture)
#include "tst_architecture.moc"
