// Ultralytics' own checkpoints in Stave (issue 42 §3), on fixtures Ultralytics made in the
// test-only environment (tests/tools/ultralytics_fixtures.py; nothing downloaded):
//   - every built file (yolov8n, yolo11n, yolo11s; nc 80 and 5; half precision as the trainer
//     saves) read by Stave gives Ultralytics' eval-mode outputs within 1e-4 of their scale, the
//     file saved mid-training (model None, EMA, half optimiser state) too;
//   - the same through Stave's ONNX export in ONNX Runtime;
//   - parameter counts of both families n..x equal Ultralytics';
//   - `val` of the checkpoint Ultralytics trained on the demo data (final and mid-training
//     files) with --ap-rule ultralytics gives Ultralytics' own mAP50-95 (within 1e-3; the
//     issue asks 0.005; measured ~1e-7);
//   - fine-tuning from it: epoch 1's mAP is near it where a run from scratch is near zero; the
//     transfer line names the counts; nc 80 -> 5 re-initialises only the head's class branch;
//   - a YOLO11 run's export-weights --format ultralytics loads in Ultralytics as a YOLO11
//     model and validates.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <torch/torch.h>

#include <cmath>
#include <fstream>

#include "core/model/architecture.h"
#include "core/model/model_info.h"
#include "core/model/yolo.h"
#include "core/train/checkpoint.h"
#include "e2e/e2e_util.h"

using stave::e2e::runStaveTrain;

namespace {

const QString kFixtures = QStringLiteral(STAVE_ULTRALYTICS_FIXTURES);

QJsonObject readJson(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(f.readAll()).object();
}

std::vector<int64_t> shapeOf(const QJsonObject& entry) {
  std::vector<int64_t> shape;
  for (const auto& v : entry.value("shape").toArray()) shape.push_back(v.toInteger());
  return shape;
}

/// A raw float32 file of the manifest as a tensor of its shape.
torch::Tensor readBin(const QString& path, const std::vector<int64_t>& shape) {
  std::ifstream in(path.toStdString(), std::ios::binary);
  int64_t n = 1;
  for (auto s : shape) n *= s;
  auto t = torch::empty(shape, torch::kFloat);
  in.read(reinterpret_cast<char*>(t.data_ptr<float>()), n * 4);
  if (!in) return {};
  return t;
}

/// Largest difference relative to the reference's largest magnitude.
double relativeDiff(const torch::Tensor& a, const torch::Tensor& ref) {
  const double scale = std::max(ref.abs().max().item<double>(), 1e-6);
  return (a.to(torch::kDouble) - ref.to(torch::kDouble)).abs().max().item<double>() / scale;
}

/// The first validation event's and the last one's mAP50-95 of a run folder's events.
std::pair<double, double> firstAndLastMap(const QString& runDir) {
  QFile f(runDir + "/events.jsonl");
  if (!f.open(QIODevice::ReadOnly)) return {-1, -1};
  double first = -1, last = -1;
  for (const QByteArray& line : f.readAll().split('\n')) {
    const auto o = QJsonDocument::fromJson(line).object();
    if (o.value("type").toString() != "validation") continue;
    last = o.value("data").toObject().value("map50_95").toDouble();
    if (first < 0) first = last;
  }
  return {first, last};
}

QJsonObject runStart(const QString& runDir) {
  QFile f(runDir + "/events.jsonl");
  if (!f.open(QIODevice::ReadOnly)) return {};
  for (const QByteArray& line : f.readAll().split('\n')) {
    const auto o = QJsonDocument::fromJson(line).object();
    if (o.value("type").toString() == "run_start") return o.value("data").toObject();
  }
  return {};
}

}  // namespace

class TestUltralyticsWeights : public QObject {
  Q_OBJECT

 private:
  QJsonObject m_manifest;
  QTemporaryDir m_dir;
  torch::Tensor m_input;
  QString m_demo;

  QString fixture(const QString& rel) const { return kFixtures + "/" + rel; }

  /// Stave's decoded output (B, 4 + nc, A) with boxes as centre x, y, width, height, Ultralytics'
  /// layout, and the raw per-level outputs.
  std::pair<torch::Tensor, std::vector<torch::Tensor>> staveForward(const QString& file) {
    auto lw = stave::train::loadWeights(file.toStdString());
    if (!lw) {
      qWarning("%s", lw.errorText().c_str());
      return {};
    }
    torch::NoGradGuard noGrad;
    auto levels = lw->model->forward(m_input);
    auto dec = stave::model::decodePredictions(*lw->model, levels);  // (B, A, 4 + nc), xyxy
    auto xy = (dec.narrow(2, 0, 2) + dec.narrow(2, 2, 2)) / 2;
    auto wh = dec.narrow(2, 2, 2) - dec.narrow(2, 0, 2);
    auto y = torch::cat({xy, wh, dec.narrow(2, 4, dec.size(2) - 4)}, 2).transpose(1, 2);
    return {y.contiguous(), levels};
  }

 private slots:
  void initTestCase() {
    m_manifest = readJson(fixture("manifest.json"));
    QVERIFY2(!m_manifest.isEmpty(),
             qPrintable("no fixtures at " + kFixtures + ": ctest runs fixture_ultralytics first"));
    const auto input = m_manifest.value("input").toObject();
    m_input = readBin(fixture(input.value("file").toString()), shapeOf(input));
    QVERIFY(m_input.defined());
    m_demo = fixture(m_manifest.value("demo").toObject().value("data").toString());
    QVERIFY(QFile::exists(m_demo));
    QVERIFY(m_dir.isValid());
    torch::set_num_threads(2);
  }

  // Every built file and both trained files: Stave's forward equals Ultralytics'.
  void forwardMatches_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("outputs");
    const auto models = m_manifest.value("models").toObject();
    for (auto it = models.begin(); it != models.end(); ++it) {
      const auto e = it.value().toObject();
      const auto files = e.value("files").toObject();
      const QString out = it.key();
      QTest::newRow(qPrintable(it.key())) << files.value("final").toString() << out;
      if (files.contains("midtrain"))
        QTest::newRow(qPrintable(it.key() + "-midtrain"))
            << files.value("midtrain").toString() << out;
    }
    const auto trained = m_manifest.value("trained").toObject().value("files").toObject();
    for (const char* key : {"final", "midtrain"})
      QTest::newRow(qPrintable(QString("trained-") + key))
          << trained.value(key).toObject().value("file").toString()
          << QString("trained-") + key;
  }
  void forwardMatches() {
    QFETCH(QString, file);
    QFETCH(QString, outputs);
    QVERIFY(!file.isEmpty());
    auto [y, levels] = staveForward(fixture(file));
    QVERIFY2(y.defined(), qPrintable(file));
    const QString dir = fixture("outputs/" + outputs);
    for (size_t i = 0; i < levels.size(); ++i) {
      auto ref = readBin(dir + QString("/level%1.bin").arg(i), levels[i].sizes().vec());
      QVERIFY(ref.defined());
      const double d = relativeDiff(levels[i], ref);
      QVERIFY2(d <= 1e-4, qPrintable(QString("level %1: relative difference %2").arg(i).arg(d)));
    }
    auto refY = readBin(dir + "/y.bin", y.sizes().vec());
    QVERIFY(refY.defined());
    const double d = relativeDiff(y, refY);
    QVERIFY2(d <= 1e-4, qPrintable(QString("decoded: relative difference %1").arg(d)));
  }

  // The same file through Stave's ONNX export, run by ONNX Runtime.
  void onnxMatches_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("yolo11n-nc5") << "yolo11n-nc5";
    QTest::newRow("yolov8n-nc80") << "yolov8n-nc80";
  }
  void onnxMatches() {
    QFETCH(QString, name);
    const QString pt =
        fixture(m_manifest.value("models").toObject().value(name).toObject().value("files")
                    .toObject().value("final").toString());
    const QString onnx = m_dir.filePath(name + ".onnx");
    const auto in = m_manifest.value("input").toObject();
    const auto shape = shapeOf(in);
    auto r = runStaveTrain({"export-weights", pt, "--format", "onnx", "--out", onnx, "--imgsz",
                            QString::number(shape[2]), "--dynamic"},
                           {}, 300000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    const QString out = m_dir.filePath(name + ".out.f32");
    QProcess p;
    p.start(STAVE_TEST_PYTHON,
            {STAVE_SOURCE_DIR "/tests/tools/run_onnx.py", onnx, fixture(in.value("file").toString()),
             QString::number(shape[0]), QString::number(shape[1]), QString::number(shape[2]),
             QString::number(shape[3]), out});
    QVERIFY(p.waitForFinished(300000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    const QString dir = fixture("outputs/" + name);
    const auto yEntry = m_manifest.value("models").toObject().value(name).toObject()
                            .value("outputs").toObject().value("y").toObject();
    auto ref = readBin(dir + "/y.bin", shapeOf(yEntry));
    auto got = readBin(out, shapeOf(yEntry));
    QVERIFY(ref.defined() && got.defined());
    const double d = relativeDiff(got, ref);
    QVERIFY2(d <= 1e-4, qPrintable(QString("ONNX Runtime vs Ultralytics: %1").arg(d)));
  }

  // Parameter counts of both families, n..x, as Ultralytics builds them.
  void parameterCounts() {
    const auto counts = m_manifest.value("parameter_counts").toObject();
    QVERIFY(counts.size() >= 20);
    for (auto it = counts.begin(); it != counts.end(); ++it) {
      const QString key = it.key();  // "yolo11x-nc80"
      const std::string model = key.section('-', 0, 0).toStdString();
      const int nc = key.section("-nc", 1).toInt();
      auto arch = stave::model::architectureFor(model, nc);
      QVERIFY2(arch.ok(), qPrintable(key));
      QCOMPARE(stave::model::modelInfo(arch.value()).params,
               int64_t(it.value().toObject().value("parameters").toInteger()));
    }
    // Built in LibTorch too, for the files' models.
    const auto models = m_manifest.value("models").toObject();
    for (auto it = models.begin(); it != models.end(); ++it) {
      const auto e = it.value().toObject();
      stave::model::ModelOptions mo;
      mo.scale = e.value("arch").toString().toStdString();
      mo.nc = e.value("nc").toInt();
      stave::model::Yolo net(mo);
      int64_t n = 0;
      for (const auto& p : net->parameters()) n += p.numel();
      QCOMPARE(n, int64_t(e.value("parameters").toInteger()));
    }
  }

  // val of the trained checkpoint equals Ultralytics' own val.
  void valMatchesUltralytics_data() {
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("mode");
    for (const char* key : {"final", "midtrain"})
      for (const char* mode : {"rect", "square"})
        QTest::newRow(qPrintable(QString("%1 %2").arg(key, mode))) << key << mode;
  }
  void valMatchesUltralytics() {
    QFETCH(QString, key);
    QFETCH(QString, mode);
    const auto e = m_manifest.value("trained").toObject().value("files").toObject().value(key)
                       .toObject();
    const auto args = m_manifest.value("val_args").toObject().value(mode).toObject();
    const double expected = e.value("val").toObject().value(mode).toObject()
                                .value("mAP50-95").toDouble();
    QVERIFY2(expected > 0.05, "the fixture's training did not get anywhere");
    auto r = runStaveTrain({"val", "--weights", fixture(e.value("file").toString()), "--data",
                            m_demo, "--imgsz", QString::number(args.value("imgsz").toInt()),
                            "--batch", QString::number(args.value("batch").toInt()), "--rect",
                            args.value("rect").toBool() ? "true" : "false", "--workers", "2",
                            "--ap-rule", "ultralytics", "--json"},
                           {}, 300000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const auto o = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(o.value("ap_rule").toString(), QString("ultralytics"));
    const double got = o.value("map5095").toDouble(-1);
    QVERIFY2(std::abs(got - expected) <= 1e-3,
             qPrintable(QString("Stave %1, Ultralytics %2\n%3").arg(got).arg(expected).arg(r.out)));
  }

  // Fine-tuning from Ultralytics' trained file starts where it ended; from scratch near zero.
  void fineTuneStartsFromTheCheckpoint() {
    const auto e = m_manifest.value("trained").toObject().value("files").toObject()
                       .value("final").toObject();
    const double ultralytics =
        e.value("val").toObject().value("rect").toObject().value("mAP50-95").toDouble();
    const QString project = m_dir.filePath("runs");
    const QStringList common{"data=" + m_demo, "epochs=1", "imgsz=128", "batch=16",
                             "workers=2", "warmup_epochs=0", "project=" + project, "seed=0"};
    auto tuned = runStaveTrain(QStringList{"train", "model=" + fixture(e.value("file").toString()),
                                           "optimizer=SGD", "lr0=0.0002", "name=tuned"} +
                                   common,
                               {}, 600000);
    QVERIFY2(tuned.exitCode == 0, qPrintable(tuned.err));
    QVERIFY2(tuned.err.contains(QRegularExpression("Transferred (\\d+)/\\1 items from pretrained "
                                                   "weights \\(Ultralytics 8\\.4\\.\\d+, model\\)")),
             qPrintable(tuned.err));
    const auto start = runStart(project + "/tuned");
    const auto weights = start.value("resolved").toObject().value("weights").toObject();
    QCOMPARE(weights.value("writer").toString().left(11), QString("Ultralytics"));
    QCOMPARE(weights.value("transferred").toInt(), weights.value("total").toInt());
    QCOMPARE(start.value("resolved").toObject().value("model").toString(), QString("yolov8n"));
    const double tunedMap = firstAndLastMap(project + "/tuned").first;
    QVERIFY2(tunedMap >= 0.8 * ultralytics,
             qPrintable(QString("epoch 1 %1, the checkpoint %2").arg(tunedMap).arg(ultralytics)));

    auto scratch = runStaveTrain(QStringList{"train", "model=yolov8n", "name=scratch"} + common,
                                 {}, 600000);
    QVERIFY2(scratch.exitCode == 0, qPrintable(scratch.err));
    const double scratchMap = firstAndLastMap(project + "/scratch").first;
    QVERIFY2(scratchMap < 0.2 * ultralytics,
             qPrintable(QString("from scratch %1, the checkpoint %2").arg(scratchMap).arg(ultralytics)));
  }

  // nc 80 -> 5: only the head's class branch starts anew (its last convolution has one output
  // per class, and its width is max(64, min(nc, 100)): 80 for 80 classes, 64 for 5); every
  // other tensor comes from the file, as Ultralytics' intersect_dicts would take them.
  void otherClassesReinitialiseOnlyTheClassHead() {
    const auto e = m_manifest.value("models").toObject().value("yolo11n-nc80").toObject();
    const QString project = m_dir.filePath("runs");
    auto r = runStaveTrain({"train", "model=" + fixture(e.value("files").toObject()
                                                         .value("final").toString()),
                            "data=" + m_demo, "epochs=1", "fraction=0.07", "imgsz=64", "batch=16",
                            "workers=1", "project=" + project, "name=nc5", "val=false"},
                           {}, 600000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("as initialised: the head's class branch (80 -> 5 classes)"),
             qPrintable(r.err));
    const auto weights =
        runStart(project + "/nc5").value("resolved").toObject().value("weights").toObject();
    const int total = weights.value("total").toInt();
    const int transferred = weights.value("transferred").toInt();
    QCOMPARE(total, 499);  // yolo11n's parameters and buffers
    // Kept: per level the class branch's 1x1 conv + BN after the first depthwise conv, the
    // second depthwise conv + BN and its 1x1 conv + BN, and the class convolution.
    QCOMPARE(total - transferred, 51);
    const auto kept = weights.value("kept_items").toArray();
    QVERIFY(!kept.isEmpty());
    for (const auto& k : kept)
      QVERIFY2(k.toString().startsWith("model.23.cv3."), qPrintable(k.toString()));
    QVERIFY(r.err.contains(QString("Transferred %1/499 items").arg(transferred)));
  }

  // A YOLO11 run of Stave, exported for Ultralytics, loads there as YOLO11 and validates.
  void exportLoadsInUltralytics() {
    const QString project = m_dir.filePath("runs");
    auto r = runStaveTrain({"train", "model=yolo11n", "data=" + m_demo, "epochs=1",
                            "fraction=0.07", "imgsz=64", "batch=16", "workers=1",
                            "project=" + project, "name=y11", "val=false"},
                           {}, 600000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QString out = m_dir.filePath("y11-ultralytics.pt");
    auto ex = runStaveTrain({"export-weights", project + "/y11/weights/last.pt", "--format",
                             "ultralytics", "--out", out},
                            {}, 300000);
    QVERIFY2(ex.exitCode == 0, qPrintable(ex.err));
    QProcess p;
    p.start(STAVE_TEST_PYTHON,
            {STAVE_SOURCE_DIR "/tests/tools/ultralytics_check.py", out,
             fixture(m_manifest.value("demo").toObject().value("ultralytics_data").toString())});
    QVERIFY(p.waitForFinished(600000));
    const QByteArray err = p.readAllStandardError();
    QVERIFY2(p.exitCode() == 0, err.constData());
    const auto o = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
    QCOMPARE(o.value("yaml_file").toString(), QString("yolo11n.yaml"));
    QVERIFY(o.value("modules").toArray().contains(QString("C3k2")));
    QVERIFY(o.value("modules").toArray().contains(QString("C2PSA")));
    QCOMPARE(o.value("nc").toInt(), 5);
    QVERIFY2(o.value("mAP50-95").toDouble(-1) >= 0.0, qPrintable(QJsonDocument(o).toJson()));
    // Stave's export has Ultralytics' constructor build the model when it is loaded (a call in
    // the pickle): Stave's own reader refuses it rather than run anything, and says so.
    auto back = runStaveTrain({"val", "--weights", out, "--data", m_demo, "--imgsz", "64"}, {},
                              300000);
    QCOMPARE(back.exitCode, 2);
    QVERIFY2(back.err.contains(out) && back.err.contains("REDUCE of ultralytics.nn.tasks."
                                                         "DetectionModel") &&
                 back.err.contains("nothing was run"),
             qPrintable(back.err));
  }
};

QTEST_GUILESS_MAIN(TestUltralyticsWeights)
#include "tst_ultralytics_weights.moc"
