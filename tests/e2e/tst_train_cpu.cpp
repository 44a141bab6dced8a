// End to end: make-demo -> train scale n at imgsz 128 on the CPU for a few epochs -> mAP50
// clearly above chance, falling losses, every output of a run; then val and predict on it.
#include <QJsonArray>
#include <QtTest/QtTest>

#include <cmath>
#include <vector>

#include "e2e/train_e2e_util.h"

using namespace stave::e2e;

class TstTrainCpu : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_data = makeDemoDataset(m_dir.filePath("demo"), 96, 32, 128);
    QVERIFY(!m_data.isEmpty());
  }

  void trainsAndConverges() {
    const QString cfg = m_dir.filePath("run.yaml");
    // nbs 8: one optimiser step per batch, so 10 short epochs are 120 steps.
    QVERIFY(writeTinyConfig(cfg, m_data, 128, 10, 8,
                            {"seed: 1", "lr0: 0.01", "optimizer: SGD", "warmup_epochs: 0", "nbs: 8",
                             "close_mosaic: 2"}));
    m_run = m_dir.filePath("runs/cpu");
    QElapsedTimer t;
    t.start();
    auto r = runStaveTrain({"train", cfg, "--run-dir", m_run}, m_dir.path(), 300000);
    const double seconds = t.elapsed() / 1000.0;
    QVERIFY2(r.exitCode == 0 && !r.crashed, qPrintable(r.err.right(3000)));
    qInfo("trained 10 epochs in %.1f s", seconds);
    // About 100 s on an idle 2-core machine; the bound leaves room for a busy CI runner.
    QVERIFY2(seconds < 400, "training the tiny model took far too long");

    QStringList header;
    const auto rows = readResults(m_run + "/results.csv", &header);
    QCOMPARE(
        header,
        QString(
            "epoch,train/box_loss,train/cls_loss,train/dfl_loss,metrics/precision(B),metrics/"
            "recall(B),"
            "metrics/mAP50(B),metrics/mAP50-95(B),val/box_loss,val/cls_loss,val/dfl_loss,lr/pg0,"
            "lr/pg1,lr/pg2")
            .split(','));
    QCOMPARE(rows.size(), 10);
    for (const auto& row : rows)
      qInfo("epoch %2d  box %.3f cls %.3f dfl %.3f  mAP50 %.3f mAP50-95 %.3f", int(row["epoch"]),
            row["train/box_loss"], row["train/cls_loss"], row["train/dfl_loss"],
            row["metrics/mAP50(B)"], row["metrics/mAP50-95(B)"]);
    QCOMPARE(rows.first()["epoch"], 1.0);
    // Falling losses: the last epochs are well below the first.
    QVERIFY(rows.last()["train/cls_loss"] < 0.8 * rows.first()["train/cls_loss"]);
    QVERIFY(rows.last()["train/box_loss"] < rows.first()["train/box_loss"]);
    // Chance level is ~0 (random boxes almost never reach IoU .5); this run reaches ~0.02 after
    // 10 epochs (BatchNorm statistics are still settling), so the bar sits well below that.
    const double map50 = rows.last()["metrics/mAP50(B)"];
    QVERIFY2(map50 > 0.002, qPrintable(QString("mAP50 %1").arg(map50)));

    QVERIFY(QFile::exists(m_run + "/weights/last.pt"));
    QVERIFY(QFile::exists(m_run + "/weights/best.pt"));
    QVERIFY(readText(m_run + "/config.yaml").contains("epochs: 10"));
    const auto events = parseEvents(readText(m_run + "/events.jsonl"));
    QCOMPARE(eventsOf(events, "run_start").size(), 1);
    QCOMPARE(eventsOf(events, "epoch_end").size(), 10);
    QCOMPARE(eventsOf(events, "validation").size(), 10);
    QVERIFY(!eventsOf(events, "step").isEmpty());
    const auto step = eventsOf(events, "step").last()["data"].toObject();
    QVERIFY(step["timing"].toObject()["fwd_bwd"].toDouble() > 0);
    const auto finished = eventsOf(events, "finished");
    QCOMPARE(finished.size(), 1);
    QCOMPARE(finished[0]["data"].toObject()["status"].toString(), QString("completed"));
    // The same events went to stdout.
    QCOMPARE(eventsOf(parseEvents(r.out), "finished").size(), 1);

    // The validation views of the final validation (docs/validation.md).
    checkValidationViews(m_run + "/val");
  }


 private:
  /// The views in `dir` are whole and agree with each other and with the dataset.
  void checkValidationViews(const QString& dir) {
    for (const char* f : {"confusion_matrix.json", "curves.json", "per_class.csv", "images.json"})
      QVERIFY2(QFile::exists(dir + "/" + f), f);
    const auto cm = QJsonDocument::fromJson(readText(dir + "/confusion_matrix.json").toUtf8()).object();
    const auto names = cm["names"].toArray();
    QCOMPARE(names.last().toString(), QString("background"));
    const int n = names.size();
    // Each true class's column sums to its instances in per_class.csv.
    const auto counts = cm["counts"].toArray();
    QCOMPARE(counts.size(), n);
    std::vector<double> column(n, 0.0);
    for (const auto& row : counts)
      for (int t = 0; t < n; ++t) column[t] += row.toArray()[t].toDouble();
    const QStringList csv = readText(dir + "/per_class.csv").split('\n', Qt::SkipEmptyParts);
    QCOMPARE(csv.first(), QString("class,name,images,instances,precision,recall,mAP50,mAP50-95"));
    QVERIFY(csv.size() > 1);
    for (int i = 1; i < csv.size(); ++i) {
      const QStringList f = csv[i].split(',');
      const int cls = f[0].toInt();
      QVERIFY(cls >= 0 && cls < n - 1);
      QCOMPARE(column[cls], f[3].toDouble());
    }
    // Every image a cell names is in images.json; the gallery's pictures exist.
    const auto images = QJsonDocument::fromJson(readText(dir + "/images.json").toUtf8()).object();
    for (const auto& cell : cm["cells"].toArray())
      for (const auto& id : cell.toObject()["images"].toArray())
        QVERIFY(images["images"].toObject().contains(QString::number(id.toInt())));
    const auto gallery = images["gallery"].toArray();
    QVERIFY(!gallery.isEmpty());
    for (const auto& g : gallery) {
      QVERIFY(QFileInfo(dir + "/" + g.toObject()["labels"].toString()).size() > 0);
      QVERIFY(QFileInfo(dir + "/" + g.toObject()["predictions"].toString()).size() > 0);
    }
  }

 private slots:
  void valPlotsWritesTheViews() {
    if (m_run.isEmpty()) QSKIP("needs the trained run");
    const QString dir = m_dir.filePath("plots");
    auto v = runStaveTrain({"val", "--weights", m_run + "/weights/last.pt", "--data", m_data, "--plots",
                            dir, "--json"},
                           {}, 120000);
    QVERIFY2(v.exitCode == 0, qPrintable(v.err));
    checkValidationViews(dir);
    // The PR curves are the ones whose area is the reported mAP50: the mean over classes of
    // the mean precision over the 101 recall points.
    const auto j = QJsonDocument::fromJson(v.out.toUtf8()).object();
    const auto curves = QJsonDocument::fromJson(readText(dir + "/curves.json").toUtf8()).object();
    double sum = 0;
    int classes = 0;
    for (const auto& c : curves["classes"].toArray()) {
      const auto pr = c.toObject()["pr_precision"].toArray();
      double area = 0;
      for (const auto& p : pr) area += p.toDouble();
      sum += area / pr.size();
      ++classes;
    }
    QVERIFY(classes > 0);
    QVERIFY2(std::abs(sum / classes - j["map50"].toDouble()) < 1e-3,
             qPrintable(QString("curves %1, val %2").arg(sum / classes).arg(j["map50"].toDouble())));
    // The run's own views came from the same weights (the final validation's EMA = last.pt):
    // the same ground truth in each column.
    const auto a = QJsonDocument::fromJson(readText(dir + "/confusion_matrix.json").toUtf8()).object();
    const auto b = QJsonDocument::fromJson(readText(m_run + "/val/confusion_matrix.json").toUtf8()).object();
    QCOMPARE(a["names"], b["names"]);
    // A file where the folder should be: refused, naming it.
    auto bad = runStaveTrain({"val", "--weights", m_run + "/weights/last.pt", "--data", m_data, "--plots",
                              m_run + "/config.yaml"},
                             {}, 120000);
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("is a file, not a folder"), qPrintable(bad.err));
  }

  void valAndPredict() {
    if (m_run.isEmpty()) QSKIP("needs the trained run");
    auto v = runStaveTrain(
        {"val", "--weights", m_run + "/weights/best.pt", "--data", m_data, "--json"}, {}, 120000);
    QVERIFY2(v.exitCode == 0, qPrintable(v.err));
    const auto j = QJsonDocument::fromJson(v.out.toUtf8()).object();
    QVERIFY(j["map50"].toDouble() > 0.002);
    QCOMPARE(j["images"].toInt(), 32);

    // --save-preds: every kept detection in original pixels, atomically; eval-preds scores the
    // file as the validator scored its detections.
    const QString saved = m_dir.filePath("val-preds/p.csv");
    QDir().mkpath(m_dir.filePath("val-preds"));
    auto sv = runStaveTrain({"val", "--weights", m_run + "/weights/best.pt", "--data", m_data,
                             "--save-preds", saved, "--json"},
                            {}, 120000);
    QVERIFY2(sv.exitCode == 0, qPrintable(sv.err));
    const auto sj = QJsonDocument::fromJson(sv.out.toUtf8()).object();
    QCOMPARE(sj["map50"].toDouble(), j["map50"].toDouble());
    const QStringList rows = readText(saved).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(rows.first(), QString("image,cls,conf,x1,y1,x2,y2"));
    QCOMPARE(rows.size() - 1, sj["predictions"].toInt());
    QVERIFY(rows.size() > 1);
    const QStringList first = rows[1].split(',');
    QCOMPARE(first.size(), 7);
    QVERIFY(first[0].endsWith(".jpg"));
    for (int c = 3; c < 7; ++c) {  // inside the original image (sources at most 128 px here)
      const double v = first[c].toDouble();
      QVERIFY2(v >= 0 && v <= 128, qPrintable(rows[1]));
    }
    QCOMPARE(QDir(m_dir.filePath("val-preds")).entryList(QDir::Files | QDir::Hidden),
             QStringList{"p.csv"});
    auto scored = runStaveTrain(
        {"eval-preds", "--data", m_data, "--preds", saved, "--max-det", "300", "--json"});
    QVERIFY2(scored.exitCode == 0, qPrintable(scored.err));
    const auto ej = QJsonDocument::fromJson(scored.out.toUtf8()).object();
    QVERIFY2(std::abs(ej["map50"].toDouble() - sj["map50"].toDouble()) < 0.01,
             qPrintable(QString("eval-preds %1, val %2")
                            .arg(ej["map50"].toDouble())
                            .arg(sj["map50"].toDouble())));
    // A folder that cannot be made (a file is in the way): an error naming the path.
    auto unwritable = runStaveTrain({"val", "--weights", m_run + "/weights/best.pt", "--data",
                                     m_data, "--save-preds", m_run + "/config.yaml/p.csv"},
                                    {}, 120000);
    QCOMPARE(unwritable.exitCode, 2);
    QVERIFY2(unwritable.err.contains("config.yaml/p.csv"), qPrintable(unwritable.err));
    // Never onto an input (the checkpoint became a CSV), never over a file without --force.
    const qint64 bestSize = QFileInfo(m_run + "/weights/best.pt").size();
    auto onto = runStaveTrain({"val", "--weights", m_run + "/weights/best.pt", "--data", m_data,
                               "--save-preds", m_run + "/weights/best.pt", "--force"},
                              {}, 120000);
    QCOMPARE(onto.exitCode, 2);
    QVERIFY2(onto.err.contains("is an input of this command"), qPrintable(onto.err));
    QCOMPARE(QFileInfo(m_run + "/weights/best.pt").size(), bestSize);
    auto again = runStaveTrain({"val", "--weights", m_run + "/weights/best.pt", "--data", m_data,
                                "--save-preds", saved},
                               {}, 120000);
    QCOMPARE(again.exitCode, 2);
    QVERIFY2(again.err.contains("already exists; pass --force"), qPrintable(again.err));

    const QString out = m_dir.filePath("pred");
    auto p = runStaveTrain({"predict", "--weights", m_run + "/weights/best.pt", "--source",
                            m_dir.filePath("demo/images/val"), "--out", out, "--conf", "0.01"},
                           {}, 120000);
    QVERIFY2(p.exitCode == 0, qPrintable(p.err));
    const QStringList csv = readText(out + "/predictions.csv").split('\n', Qt::SkipEmptyParts);
    QCOMPARE(csv.first(), QString("image,cls,conf,x1,y1,x2,y2"));
    QVERIFY(csv.size() >= 1);  // header, then detections (few this early in training)
    QCOMPARE(QDir(out).entryList({"*.jpg"}, QDir::Files).size(), 32);

    auto bad = runStaveTrain(
        {"predict", "--weights", m_dir.filePath("missing.pt"), "--source", out, "--out", out});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY(bad.err.contains("missing.pt"));
    // The annotated images carry their sources' names: --out on the source folder (or one that
    // holds it) would overwrite the dataset's images; an earlier output needs --force.
    const QString src = m_dir.filePath("demo/images/val");
    const QString firstImage = QDir(src).entryList({"*.jpg"}, QDir::Files).first();
    auto bytesOf = [](const QString& path) {
      QFile f(path);
      return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    };
    const QByteArray image = bytesOf(src + "/" + firstImage);
    for (const QString& target : {src, m_dir.filePath("demo/images")}) {
      auto onto = runStaveTrain({"predict", "--weights", m_run + "/weights/best.pt", "--source",
                                 src, "--out", target, "--force"},
                                {}, 120000);
      QCOMPARE(onto.exitCode, 2);
      QVERIFY2(onto.err.contains("holds an input of this command"), qPrintable(onto.err));
    }
    QCOMPARE(bytesOf(src + "/" + firstImage), image);
    auto taken = runStaveTrain(
        {"predict", "--weights", m_run + "/weights/best.pt", "--source", src, "--out", out});
    QCOMPARE(taken.exitCode, 2);
    QVERIFY2(taken.err.contains("not empty; pass --force"), qPrintable(taken.err));
    // A symlink loop and an undecodable file in the source are problems naming the file; the
    // other images are still predicted (the loop aborted the whole folder before).
    const QString mixed = m_dir.filePath("mixed-src");
    QDir().mkpath(mixed);
    QVERIFY(QFile::copy(src + "/" + firstImage, mixed + "/good.jpg"));
    QVERIFY(QFile::link(mixed + "/loop.jpg", mixed + "/loop.jpg"));
    // A link to an image elsewhere is predicted under the link's name: its annotated copy
    // stays in --out (resolved, the name climbed out of it and the copy overwrote the image).
    QVERIFY(QFile::link(src + "/" + firstImage, mixed + "/linked.jpg"));
    {
      QFile bad(mixed + "/bad.png");
      QVERIFY(bad.open(QIODevice::WriteOnly));
      bad.write("\x89PNG\r\n\x1a\nnot really");
    }
    auto mixedRun = runStaveTrain({"predict", "--weights", m_run + "/weights/best.pt", "--source",
                                   mixed, "--out", m_dir.filePath("mixed-out")},
                                  {}, 120000);
    QCOMPARE(mixedRun.exitCode, 1);
    QVERIFY(!mixedRun.crashed);
    QVERIFY2(mixedRun.err.contains("loop.jpg") && mixedRun.err.contains("bad.png"),
             qPrintable(mixedRun.err));
    QVERIFY(QFile::exists(m_dir.filePath("mixed-out/good.jpg")));
    QVERIFY(QFile::exists(m_dir.filePath("mixed-out/linked.jpg")));
    QCOMPARE(bytesOf(src + "/" + firstImage), image);
  }

  // export-weights --format ultralytics: a torch.save() zip (stored, so its pickle and record
  // names read as plain bytes) whose pickle builds Ultralytics' DetectionModel for the same scale
  // and loads every tensor; bad requests name what is wrong. Loading it in Ultralytics and
  // comparing predictions is tests/bench/ultralytics agree (it needs Python packages).
  void exportWeightsForUltralytics() {
    if (m_run.isEmpty()) QSKIP("needs the trained run");
    const QString out = m_dir.filePath("exported/model.pt");
    QDir().mkpath(m_dir.filePath("exported"));
    auto r = runStaveTrain(
        {"export-weights", m_run + "/weights/best.pt", "--format", "ultralytics", "--out", out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QRegularExpression said(R"(yolov8n\.yaml, (\d+) classes, (\d+) tensors)");
    const auto m = said.match(r.out);
    QVERIFY2(m.hasMatch(), qPrintable(r.out));
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray bytes = f.readAll();
    QVERIFY(bytes.startsWith("PK\x03\x04"));
    QVERIFY(bytes.contains("archive/data.pkl"));
    QVERIFY(bytes.contains("cultralytics.nn.tasks\nDetectionModel\n"));
    QVERIFY(bytes.contains("yolov8n.yaml"));
    QVERIFY(bytes.contains("load_state_dict"));
    QVERIFY(bytes.contains("model.22.dfl.conv.weight"));
    QVERIFY(bytes.contains("model.0.bn.running_var"));
    // Each storage record's name is in its local header and in the central directory.
    QCOMPARE(bytes.count("archive/data/") / 2, m.captured(2).toLongLong());
    QVERIFY(m.captured(2).toInt() > 300);
    QCOMPARE(QDir(m_dir.filePath("exported")).entryList(QDir::Files | QDir::Hidden),
             QStringList{"model.pt"});  // written atomically: no temporary left

    auto fmt = runStaveTrain({"export-weights", m_run + "/weights/best.pt", "--format", "tflite"});
    QCOMPARE(fmt.exitCode, 2);
    QVERIFY2(fmt.err.contains("'tflite'") && fmt.err.contains("use onnx, ultralytics or stave"),
             qPrintable(fmt.err));
    auto missing = runStaveTrain(
        {"export-weights", m_dir.filePath("nope.pt"), "--format", "ultralytics", "--out", out});
    QCOMPARE(missing.exitCode, 2);
    QVERIFY2(missing.err.contains("nope.pt"), qPrintable(missing.err));
    auto self = runStaveTrain({"export-weights", m_run + "/weights/best.pt", "--format",
                               "ultralytics", "--out", m_run + "/weights/best.pt"});
    QCOMPARE(self.exitCode, 2);
    QVERIFY(QFile(m_run + "/weights/best.pt").size() > 1000);
    // An existing export is replaced only when asked.
    auto exists = runStaveTrain(
        {"export-weights", m_run + "/weights/best.pt", "--format", "ultralytics", "--out", out});
    QCOMPARE(exists.exitCode, 2);
    QVERIFY2(exists.err.contains("already exists; pass --force"), qPrintable(exists.err));
    auto forced = runStaveTrain({"export-weights", m_run + "/weights/best.pt", "--format",
                                 "ultralytics", "--out", out, "--force"});
    QVERIFY2(forced.exitCode == 0, qPrintable(forced.err));
  }

  // loss-batch: one validation batch's loss and gradients in a torch.save() file (the paired
  // benchmark feeds the same file to Ultralytics' loss); plain-opcode pickle, named tensors.
  void lossBatch() {
    if (m_run.isEmpty()) QSKIP("needs the trained run");
    const QString out = m_dir.filePath("loss-batch.pt");
    auto r = runStaveTrain({"loss-batch", "--weights", m_run + "/weights/best.pt", "--data", m_data,
                            "--imgsz", "64", "--batch", "4", "--out", out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(QRegularExpression(R"(loss box [0-9.e+-]+ cls [0-9.e+-]+ dfl [0-9.e+-]+ on 4 images)")
                 .match(r.out)
                 .hasMatch(),
             qPrintable(r.out));
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray bytes = f.readAll();
    for (const char* key : {"images", "targets", "loss_items", "grads", "model.0.conv.weight"})
      QVERIFY2(bytes.contains(key), key);
    QVERIFY(!bytes.contains("ultralytics"));  // tensors and plain containers only
    auto bad = runStaveTrain({"loss-batch", "--weights", m_run + "/weights/best.pt", "--data",
                              m_data, "--imgsz", "63", "--out", out});
    QCOMPARE(bad.exitCode, 2);

    // --augment: the training loader's batches (tests/bench/ultralytics augment compares them
    // with Ultralytics'); mosaic on and off give different pixels, the same seed the same ones.
    const auto augmented = [&](const QString& file, const QStringList& extra) {
      auto a =
          runStaveTrain(QStringList{"loss-batch", "--weights", m_run + "/weights/best.pt", "--data",
                                    m_data, "--imgsz", "64", "--batch", "4", "--augment", "--epoch",
                                    "1", "--batches", "3", "--out", m_dir.filePath(file)} +
                        extra);
      if (a.exitCode != 0 || !a.out.contains("on 4 images (3 batches written)")) {
        qWarning("%s%s", qPrintable(a.out), qPrintable(a.err));
        return QByteArray();
      }
      QFile f(m_dir.filePath(file));
      return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    };
    const QByteArray mosaic = augmented("aug-mosaic.pt", {});
    const QByteArray again = augmented("aug-again.pt", {});
    const QByteArray plain = augmented("aug-plain.pt", {"--no-mosaic"});
    QVERIFY(!mosaic.isEmpty() && !plain.isEmpty());
    QVERIFY(mosaic.contains("batches") && mosaic.contains("pixels"));
    QCOMPARE(again, mosaic);
    QVERIFY(plain != mosaic);
    for (const QStringList& wrong :
         {QStringList{"--no-mosaic"}, QStringList{"--augment", "--batches", "0"},
          QStringList{"--augment", "--seed", "-1"}}) {
      auto w = runStaveTrain(QStringList{"loss-batch", "--weights", m_run + "/weights/best.pt",
                                         "--data", m_data, "--out", out} +
                             wrong);
      QVERIFY2(w.exitCode == 2, qPrintable(wrong.join(' ')));
    }
  }

  // Ultralytics' command line: train with no config file (runs/train, then runs/train2), val
  // and predict in key=value form with the dataset and the output folder defaulted.
  void ultralyticsCommandLine() {
    const QString work = m_dir.filePath("ucli");
    QVERIFY(QDir().mkpath(work));
    const QStringList keys{"data=" + m_data, "model=yolov8n", "epochs=1", "imgsz=64",
                           "batch=16",       "workers=0",     "val=false"};
    auto t1 = runStaveTrain(QStringList{"train"} + keys, work, 300000);
    QVERIFY2(t1.exitCode == 0, qPrintable(t1.err.right(2000)));
    // show-project resolves optimizer=auto as the trainer did (96 images, 5 classes, 1 epoch:
    // AdamW with lr round(0.002 x 5 / 9, 6)).
    QVERIFY2(t1.err.contains("optimizer: AdamW(lr=0.001111"), qPrintable(t1.err.right(2000)));
    auto np = runStaveTrain({"new-project", work + "/proj", "--name", "p", "--data", m_data}, work);
    QCOMPARE(np.exitCode, 0);
    auto sp = runStaveTrain({"show-project", work + "/proj/p.stave"}, work);
    QVERIFY2(sp.out.contains("AdamW lr0 0.001111 (chosen by optimizer=auto for 200 iterations)"),
             qPrintable(sp.out));
    QVERIFY2(QFile::exists(work + "/runs/train/weights/last.pt"), qPrintable(t1.err.right(2000)));
    const QString saved = readText(work + "/runs/train/config.yaml");
    QVERIFY2(saved.contains("imgsz: 64") && saved.contains("epochs: 1"), qPrintable(saved));
    // multi_scale changes what is trained (the same run repeated does not).
    const auto lossOf = [](const QString& runDir) {
      const auto rows = readResults(runDir + "/results.csv");
      return rows.isEmpty() ? -1.0 : rows.last().value("train/box_loss", -1.0);
    };
    auto rep = runStaveTrain(QStringList{"train"} + keys + QStringList{"--run-dir", work + "/rep"},
                             work, 300000);
    QVERIFY2(rep.exitCode == 0, qPrintable(rep.err.right(2000)));
    auto ms = runStaveTrain(
        QStringList{"train"} + keys + QStringList{"multi_scale=true", "--run-dir", work + "/ms"},
        work, 300000);
    QVERIFY2(ms.exitCode == 0, qPrintable(ms.err.right(2000)));
    QVERIFY(lossOf(work + "/runs/train") > 0);
    QCOMPARE(lossOf(work + "/rep"), lossOf(work + "/runs/train"));
    QVERIFY2(lossOf(work + "/ms") != lossOf(work + "/runs/train"),
             qPrintable(QString::number(lossOf(work + "/ms"))));

    // The second run starts from the first one's weights (pretrained=): all of them match.
    auto t2 = runStaveTrain(
        QStringList{"train"} + keys + QStringList{"pretrained=runs/train/weights/last.pt"}, work,
        300000);
    QVERIFY2(t2.exitCode == 0, qPrintable(t2.err.right(2000)));
    QVERIFY(QFile::exists(work + "/runs/train2/weights/last.pt"));
    const auto m =
        QRegularExpression("Transferred (\\d+)/(\\d+) items from pretrained weights \\(Stave, ema\\)")
            .match(t2.err);
    QVERIFY2(m.hasMatch(), qPrintable(t2.err.right(2000)));
    QCOMPARE(m.captured(1), m.captured(2));
    QVERIFY(m.captured(1).toInt() > 300);
    auto missingWeights = runStaveTrain(
        QStringList{"train"} + keys + QStringList{"pretrained=nowhere/best.pt"}, work, 120000);
    QVERIFY(missingWeights.exitCode != 0 && !missingWeights.crashed);
    QVERIFY2(missingWeights.err.contains("nowhere/best.pt"), qPrintable(missingWeights.err));

    auto v = runStaveTrain({"val", "model=runs/train/weights/last.pt", "imgsz=64", "--json"}, work,
                           120000);
    QVERIFY2(v.exitCode == 0, qPrintable(v.err));
    QVERIFY2(v.err.contains("val: data " + m_data), qPrintable(v.err));
    QCOMPARE(QJsonDocument::fromJson(v.out.toUtf8()).object()["images"].toInt(), 32);

    const QString src = m_dir.filePath("demo/images/val");
    auto p = runStaveTrain(
        {"predict", "model=runs/train/weights/last.pt", "source=" + src, "conf=0.01", "max_det=10"},
        work, 120000);
    QVERIFY2(p.exitCode == 0, qPrintable(p.err));
    QVERIFY(QFile::exists(work + "/runs/detect/predict/predictions.csv"));
    auto p2 = runStaveTrain({"predict", "model=runs/train/weights/last.pt", "source=" + src}, work,
                            120000);
    QVERIFY2(p2.exitCode == 0, qPrintable(p2.err));
    QVERIFY(QFile::exists(work + "/runs/detect/predict2/predictions.csv"));

    // A data.yaml where a run config belongs, nothing at all, an unknown key: clear messages.
    auto wrong = runStaveTrain({"train", m_data}, work);
    QCOMPARE(wrong.exitCode, 2);
    QVERIFY2(wrong.err.contains("this is a data.yaml") && wrong.err.contains("data=" + m_data),
             qPrintable(wrong.err));
    auto none = runStaveTrain({"train"}, work);
    QCOMPARE(none.exitCode, 2);
    QVERIFY2(none.err.contains("data=path/to/data.yaml"), qPrintable(none.err));
    auto typo = runStaveTrain({"train", "data=" + m_data, "epoch=3"}, work);
    QCOMPARE(typo.exitCode, 2);
    QVERIFY2(typo.err.contains("epoch"), qPrintable(typo.err));
    auto stray = runStaveTrain({"val", "model=x.pt", "bogus"}, work);
    QCOMPARE(stray.exitCode, 2);
    QVERIFY2(stray.err.contains("unexpected argument 'bogus'"), qPrintable(stray.err));
    QVERIFY2(!QFile::exists(work + "/runs/train3/weights/last.pt"), "no run without its weights");
  }

 private:
  QTemporaryDir m_dir;
  QString m_data, m_run;
};

QTEST_GUILESS_MAIN(TstTrainCpu)
#include "tst_train_cpu.moc"
