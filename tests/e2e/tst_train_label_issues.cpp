// stave-train label-issues end to end (docs/labels.md).
//
// plantedErrorsAreFound: errors planted in a copy of a demo dataset's validation labels (boxes
// dropped, classes changed, boxes shifted by 30-60% of their size, phantom boxes added) are
// found, by kind, and their images rank first, from the predictions of a good model. A model
// this test could train on two CPU cores in its time finds almost nothing (mAP50 ~0.02 after
// 100 s, tst_train_cpu), so the good model is simulated from the clean labels with a real
// model's faults: jittered boxes, confidences spread over 0.5-0.97, 5% of objects missed,
// confident false positives, low-confidence detections of other classes on every object and
// background noise, as NMS at conf 0.001 keeps them. It goes in through --preds, the path a
// model's predictions from any tool take.
//
// fromARun: the model path (a real run trained briefly, its best.pt run by the validator's
// inference) writes a well-formed, ranked CSV; bad input is refused naming the file. folds: the
// training split scored out of sample by two fold runs of that run's config.
#include <QtTest/QtTest>

#include <QFile>
#include <QTextStream>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "e2e/train_e2e_util.h"

using namespace stave::e2e;

namespace {

struct Box {
  int cls;
  double x1, y1, x2, y2;  // pixels
};

double iou(const Box& a, const Box& b) {
  const double iw = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
  const double ih = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
  if (iw <= 0 || ih <= 0) return 0;
  const double inter = iw * ih;
  return inter / ((a.x2 - a.x1) * (a.y2 - a.y1) + (b.x2 - b.x1) * (b.y2 - b.y1) - inter);
}

// Width and height of a baseline or progressive JPEG (its SOF segment).
QSize jpegSize(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  const QByteArray b = f.readAll();
  auto u8 = [&](int i) { return int(static_cast<unsigned char>(b[i])); };
  int i = 2;
  while (i + 9 < b.size()) {
    if (u8(i) != 0xFF) return {};
    const int marker = u8(i + 1);
    const int len = (u8(i + 2) << 8) | u8(i + 3);
    if (marker == 0xC0 || marker == 0xC1 || marker == 0xC2)
      return QSize((u8(i + 7) << 8) | u8(i + 8), (u8(i + 5) << 8) | u8(i + 6));
    i += 2 + len;
  }
  return {};
}

QVector<Box> readLabels(const QString& path, QSize size) {
  QVector<Box> boxes;
  for (const auto& line : readText(path).split('\n', Qt::SkipEmptyParts)) {
    const auto f = line.split(' ', Qt::SkipEmptyParts);
    const double cx = f[1].toDouble() * size.width(), cy = f[2].toDouble() * size.height();
    const double w = f[3].toDouble() * size.width(), h = f[4].toDouble() * size.height();
    boxes.push_back({f[0].toInt(), cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2});
  }
  return boxes;
}

bool writeLabels(const QString& path, const QVector<Box>& boxes, QSize size) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  QTextStream s(&f);
  for (const auto& b : boxes)
    s << b.cls << ' ' << (b.x1 + b.x2) / 2 / size.width() << ' '
      << (b.y1 + b.y2) / 2 / size.height() << ' ' << (b.x2 - b.x1) / size.width() << ' '
      << (b.y2 - b.y1) / size.height() << '\n';
  return true;
}

struct Row {
  QString image, kind;
  int labelClass, predictedClass;
  double score;
  Box box;
};

// The issues CSV; checks the header and every field on the way.
QVector<Row> readIssues(const QString& path, int nc) {
  QVector<Row> rows;
  const QStringList lines = readText(path).split('\n', Qt::SkipEmptyParts);
  if (lines.isEmpty() || lines[0] != "image,kind,label_class,predicted_class,score,x1,y1,x2,y2") {
    qWarning("bad header in %s", qPrintable(path));
    return {};
  }
  static const QStringList kinds{"overlooked", "swapped", "badly_located", "spurious"};
  for (int i = 1; i < lines.size(); ++i) {
    const auto f = lines[i].split(',');
    if (f.size() != 9 || !kinds.contains(f[1])) qFatal("bad row %d: %s", i, qPrintable(lines[i]));
    Row r{f[0],
          f[1],
          f[2].toInt(),
          f[3].toInt(),
          f[4].toDouble(),
          {0, f[5].toDouble(), f[6].toDouble(), f[7].toDouble(), f[8].toDouble()}};
    if (r.score <= 0 || r.score > 1 || r.labelClass < -1 || r.labelClass >= nc ||
        r.predictedClass < -1 || r.predictedClass >= nc || !(r.box.x2 > r.box.x1))
      qFatal("bad values in row %d: %s", i, qPrintable(lines[i]));
    rows.push_back(r);
  }
  return rows;
}

// Rows are grouped by image, images by their worst score (non-increasing), then by score.
bool rankedByImage(const QVector<Row>& rows) {
  std::set<QString> seen;
  double lastWorst = 2;
  for (int i = 0; i < rows.size(); ++i) {
    if (i > 0 && rows[i].image == rows[i - 1].image) {
      if (rows[i].score > rows[i - 1].score) return false;
      continue;
    }
    if (!seen.insert(rows[i].image).second) return false;  // an image comes back later
    if (rows[i].score > lastWorst) return false;
    lastWorst = rows[i].score;
  }
  return true;
}

struct Planted {
  QString image, kind;
  Box box;  // the box the issue row should name
};

}  // namespace

class TstTrainLabelIssues : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_clean = makeDemoDataset(m_dir.filePath("clean"), 16, 60, 96, 5);
    QVERIFY(!m_clean.isEmpty());
    // The planted copy: the same images, the labels changed below.
    const QString root = m_dir.filePath("planted");
    QVERIFY(QDir().mkpath(root + "/labels/val"));
    m_planted = root + "/data.yaml";
    QFile y(m_planted);
    QVERIFY(y.open(QIODevice::WriteOnly));
    y.write(QString("path: .\ntrain: %1/images/train\nval: images/val\n"
                    "names: [circle, rectangle, triangle, ellipse, cross]\n")
                .arg(m_dir.filePath("clean"))
                .toUtf8());
    y.close();
    QVERIFY(QDir().mkpath(root + "/images/val"));
    for (const auto& image :
         QDir(m_dir.filePath("clean/images/val")).entryList({"*.jpg"}, QDir::Files))
      QVERIFY(
          QFile::copy(m_dir.filePath("clean/images/val/" + image), root + "/images/val/" + image));
    plant(root);
  }

  void plantedErrorsAreFound() {
    const QString preds = m_dir.filePath("preds.csv"), out = m_dir.filePath("issues.csv");
    writeGoodModelPredictions(preds);
    auto r = runStaveTrain({"label-issues", "--preds", preds, "data=" + m_planted, "--out", out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    qInfo("%s", qPrintable(r.out.trimmed()));
    const auto rows = readIssues(out, 5);
    QVERIFY(!rows.isEmpty());
    QVERIFY(rankedByImage(rows));

    // Each planted error: a row of its kind naming its box.
    QMap<QString, int> planted, found;
    for (const auto& p : m_plantedErrors) {
      ++planted[p.kind];
      for (const auto& row : rows)
        if (row.image == "images/val/" + p.image && row.kind == p.kind &&
            iou(row.box, p.box) > 0.5) {
          ++found[p.kind];
          break;
        }
    }
    for (const QString& kind : {"overlooked", "swapped", "badly_located", "spurious"}) {
      qInfo("%-14s planted %2d found %2d", qPrintable(kind), planted[kind], found[kind]);
      QVERIFY2(planted[kind] >= 3, "too few planted to judge");
      // The simulated model misses 5% of objects, so a few planted errors have no evidence.
      QVERIFY2(found[kind] >= 0.75 * planted[kind], qPrintable(kind));
    }

    // Images: the planted ones rank first. Chance is the share of images with a planted error.
    std::set<QString> dirty;
    for (const auto& p : m_plantedErrors) dirty.insert("images/val/" + p.image);
    QStringList ranked;
    for (const auto& row : rows)
      if (!ranked.contains(row.image)) ranked << row.image;
    const int n = int(dirty.size());
    int hits = 0;
    for (int i = 0; i < std::min(n, int(ranked.size())); ++i)
      hits += dirty.count(ranked[i]) ? 1 : 0;
    const double precisionAtN = double(hits) / n, chance = double(n) / m_images;
    // AUROC of the image score (its worst issue, 0 without one): the chance that an image with a
    // planted error outranks one without; 0.5 is chance.
    QMap<QString, double> worst;
    for (const auto& row : rows) worst[row.image] = std::max(worst.value(row.image), row.score);
    double pairs = 0, wins = 0;
    for (const auto& image : m_sizes.keys()) {
      const QString a = "images/val/" + image;
      if (!dirty.count(a)) continue;
      for (const auto& other : m_sizes.keys()) {
        const QString b = "images/val/" + other;
        if (dirty.count(b)) continue;
        pairs += 1;
        wins += worst.value(a) > worst.value(b) ? 1 : worst.value(a) == worst.value(b) ? 0.5 : 0;
      }
    }
    const double auroc = wins / pairs;
    qInfo("top-%d images: %d with a planted error (precision %.2f, chance %.2f); image AUROC %.3f",
          n, hits, precisionAtN, chance, auroc);
    QVERIFY(precisionAtN >= 0.75);
    QVERIFY(precisionAtN > chance + 0.1);
    QVERIFY(auroc >= 0.8);
  }

  void fromARun() {
    const QString cfg = m_dir.filePath("run.yaml"), run = m_dir.filePath("runs/short");
    QVERIFY(writeTinyConfig(cfg, m_clean, 64, 1, 8, {"seed: 1", "mosaic: 0.0"}));
    auto t = runStaveTrain({"train", cfg, "--run-dir", run}, m_dir.path(), 300000);
    QVERIFY2(t.exitCode == 0, qPrintable(t.err.right(2000)));

    const QString out = m_dir.filePath("run_issues.csv");
    auto r = runStaveTrain({"label-issues", run, "data=" + m_planted, "--out", out, "--device",
                            "cpu", "--workers", "2"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(r.out.contains("written to " + out));
    QVERIFY(r.err.contains("mAP50"));  // the model ran
    QVERIFY(readText(out).startsWith("image,kind,label_class,predicted_class,score,x1,y1,x2,y2\n"));
    QVERIFY(rankedByImage(readIssues(out, 5)));
    // Without --force an existing file stays.
    r = runStaveTrain({"label-issues", run, "data=" + m_planted, "--out", out});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(out) && r.err.contains("--force"), qPrintable(r.err));
    // The checkpoint itself, the dataset from its run config, the training split: a warning.
    r = runStaveTrain({"label-issues", run + "/weights/last.pt", "--split", "train", "--out",
                       m_dir.filePath("train_issues.csv"), "--device", "cpu", "--workers", "2"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("data " + m_clean) && r.err.contains("warning"), qPrintable(r.err));
  }

  void folds() {
    // The training split out of sample: two runs of the short run's config, each trained on one
    // half and predicting the other.
    const QString run = m_dir.filePath("runs/short");
    QVERIFY(QFile::exists(run + "/weights/last.pt"));
    const QString out = m_dir.filePath("folds/train_issues.csv");
    QVERIFY(QDir().mkpath(m_dir.filePath("folds")));
    auto r = runStaveTrain({"label-issues", run, "--split", "train", "--folds", "2", "--out", out,
                            "--device", "cpu", "--workers", "2"},
                           {}, 600000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err.right(3000)));
    QVERIFY2(!r.err.contains("warning"), qPrintable(r.err));  // out of sample: no warning
    const QString dir = m_dir.filePath("folds/train_issues.folds");
    QStringList images;
    for (const QString fold : {"fold1", "fold2"}) {
      QVERIFY2(QFile::exists(dir + "/" + fold + "/weights/last.pt"), qPrintable(fold));
      QVERIFY(readText(dir + "/" + fold + "/config.yaml").contains(fold + "_data.yaml"));
      QVERIFY(r.err.contains(fold + "/2: training on 8 images"));
      const QStringList val =
          readText(dir + "/" + fold + "_val.txt").split('\n', Qt::SkipEmptyParts);
      QCOMPARE(val.size(), 8);
      // A fold's model never trained on the images it predicts.
      for (const auto& v : val) QVERIFY(!readText(dir + "/" + fold + "_train.txt").contains(v));
      images += val;
    }
    images.removeDuplicates();
    QCOMPARE(images.size(), 16);  // every training image predicted once
    QVERIFY(readText(out).startsWith("image,kind,"));
    QVERIFY(rankedByImage(readIssues(out, 5)));
    // The folds folder is not reused: a second call names it.
    r = runStaveTrain({"label-issues", run, "--split", "train", "--folds", "2", "--out",
                       m_dir.filePath("folds/again.csv"), "--folds-dir", dir});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(dir), qPrintable(r.err));
    // --folds with --preds makes no sense.
    r = runStaveTrain({"label-issues", "--preds", m_dir.filePath("preds.csv"), "data=" + m_planted,
                       "--folds", "2", "--out", m_dir.filePath("folds/p.csv")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--folds"), qPrintable(r.err));
  }

  void badInputIsNamed_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("named");
    const QString out = "--out";
    QTest::newRow("no run") << QStringList{"label-issues", "nowhere/run", "--out", "x.csv"}
                            << "nowhere/run: no such run folder or checkpoint";
    QTest::newRow("folder without weights")
        << QStringList{"label-issues", ".", "--out", "x.csv"} << "has no weights/best.pt";
    QTest::newRow("no data") << QStringList{"label-issues",      "--preds", "p.csv",
                                            "data=missing.yaml", "--out",   "x.csv"}
                             << "missing.yaml";
    QTest::newRow("neither") << QStringList{"label-issues", "--out", "x.csv"} << "--preds";
  }
  void badInputIsNamed() {
    QFETCH(QStringList, args);
    QFETCH(QString, named);
    QTemporaryDir work;
    QFile p(work.filePath("p.csv"));
    QVERIFY(p.open(QIODevice::WriteOnly));
    p.close();
    const auto r = runStaveTrain(args, work.path());
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(named), qPrintable(r.err));
    QVERIFY(!QFile::exists(work.filePath("x.csv")));
  }

  void malformedInputIsNamed() {
    // A predictions row that is not a number: the file and line.
    const QString bad = m_dir.filePath("bad_preds.csv");
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("image,cls,conf,x1,y1,x2,y2\n000000.jpg,0,high,1,1,5,5\n");
    f.close();
    auto r = runStaveTrain(
        {"label-issues", "--preds", bad, "data=" + m_planted, "--out", m_dir.filePath("y.csv")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(bad + ":2"), qPrintable(r.err));
    // A malformed label row: named with its file and line, the rest still scored.
    const QString label = m_dir.filePath("planted/labels/val/000001.txt");
    const QString before = readText(label);
    QFile l(label);
    QVERIFY(l.open(QIODevice::Append));
    l.write("2 0.5 zero 0.1 0.1\n");
    l.close();
    const int line = before.count('\n') + 1;
    r = runStaveTrain({"label-issues", "--preds", m_dir.filePath("preds.csv"), "data=" + m_planted,
                       "--out", m_dir.filePath("z.csv")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains(QString("000001.txt:%1").arg(line)), qPrintable(r.err));
  }

 private:
  // Plants errors in the copy's validation labels (fixed seed) and records them.
  void plant(const QString& root) {
    std::mt19937 rng(44);
    std::uniform_real_distribution<double> u(0, 1);
    const QStringList images =
        QDir(m_dir.filePath("clean/images/val")).entryList({"*.jpg"}, QDir::Files, QDir::Name);
    m_images = images.size();
    for (const auto& image : images) {
      const QString stem = QFileInfo(image).completeBaseName();
      const QSize size = jpegSize(m_dir.filePath("clean/images/val/" + image));
      QVERIFY(size.isValid());
      m_sizes[image] = size;
      const auto clean = readLabels(m_dir.filePath("clean/labels/val/" + stem + ".txt"), size);
      m_cleanBoxes[image] = clean;
      QVector<Box> labels;
      for (const auto& b : clean) {
        const double x = u(rng);
        const double w = b.x2 - b.x1, h = b.y2 - b.y1;
        if (x < 0.06) {  // dropped: the model's box on it is overlooked
          m_plantedErrors.push_back({image, "overlooked", b});
          continue;
        }
        Box out = b;
        if (x < 0.11) {
          out.cls = (b.cls + 1 + int(u(rng) * 4)) % 5;
          m_plantedErrors.push_back({image, "swapped", out});
        } else if (x < 0.16) {
          // Shifted by 30-60% of its size, or grown by that much about its centre.
          const double f = 0.3 + 0.3 * u(rng);
          if (u(rng) < 0.7) {
            const double dx = (u(rng) < 0.5 ? -1 : 1) * f * w, dy = (u(rng) < 0.5 ? -1 : 1) * f * h;
            const bool both = u(rng) < 0.3, inX = u(rng) < 0.5;
            out.x1 += both || inX ? dx : 0, out.x2 += both || inX ? dx : 0;
            out.y1 += both || !inX ? dy : 0, out.y2 += both || !inX ? dy : 0;
          } else {
            out.x1 -= f * w / 2, out.x2 += f * w / 2, out.y1 -= f * h / 2, out.y2 += f * h / 2;
          }
          out.x1 = std::max(0.0, out.x1), out.y1 = std::max(0.0, out.y1);
          out.x2 = std::min<double>(size.width(), out.x2);
          out.y2 = std::min<double>(size.height(), out.y2);
          if (iou(out, b) < 0.6) m_plantedErrors.push_back({image, "badly_located", out});
        }
        labels.push_back(out);
      }
      if (u(rng) < 0.08) {  // a phantom box where nothing is
        for (int tries = 0; tries < 20; ++tries) {
          const double w = 10 + 20 * u(rng), h = 10 + 20 * u(rng);
          const double x = u(rng) * (size.width() - w), y = u(rng) * (size.height() - h);
          const Box ph{int(u(rng) * 5), x, y, x + w, y + h};
          bool free = true;
          for (const auto& b : clean) free = free && iou(b, ph) == 0;
          if (!free) continue;
          labels.push_back(ph);
          m_plantedErrors.push_back({image, "spurious", ph});
          break;
        }
      }
      QVERIFY(writeLabels(root + "/labels/val/" + stem + ".txt", labels, size));
    }
  }

  // What a good detector predicts on the clean images (see the header comment).
  void writeGoodModelPredictions(const QString& path) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(0, 1);
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QTextStream s(&f);
    s << "image,cls,conf,x1,y1,x2,y2\n";
    auto put = [&](const QString& image, int cls, double conf, Box b) {
      s << "images/val/" << image << ',' << cls << ',' << conf << ',' << b.x1 << ',' << b.y1 << ','
        << b.x2 << ',' << b.y2 << '\n';
    };
    for (auto it = m_cleanBoxes.begin(); it != m_cleanBoxes.end(); ++it) {
      const QSize size = m_sizes[it.key()];
      for (const auto& b : it.value()) {
        const double w = b.x2 - b.x1, h = b.y2 - b.y1;
        Box p{b.cls, b.x1 + w * 0.08 * (u(rng) - 0.5), b.y1 + h * 0.08 * (u(rng) - 0.5),
              b.x2 + w * 0.08 * (u(rng) - 0.5), b.y2 + h * 0.08 * (u(rng) - 0.5)};
        const bool missed = u(rng) < 0.05;
        put(it.key(), b.cls, missed ? 0.02 + 0.1 * u(rng) : 0.5 + 0.47 * u(rng), p);
        put(it.key(), (b.cls + 1 + int(u(rng) * 4)) % 5, 0.001 + 0.15 * u(rng), p);
      }
      for (int k = 0; k < 3; ++k) {  // background noise
        const double w = 8 + 30 * u(rng), h = 8 + 30 * u(rng);
        const double x = u(rng) * (size.width() - w), y = u(rng) * (size.height() - h);
        put(it.key(), int(u(rng) * 5), 0.001 + 0.1 * u(rng), {0, x, y, x + w, y + h});
      }
      if (u(rng) < 0.05) {  // a confident false positive
        const double x = u(rng) * (size.width() - 20), y = u(rng) * (size.height() - 20);
        put(it.key(), int(u(rng) * 5), 0.5 + 0.2 * u(rng), {0, x, y, x + 20, y + 20});
      }
    }
  }

  QTemporaryDir m_dir;
  QString m_clean, m_planted;
  int m_images = 0;
  QMap<QString, QSize> m_sizes;
  QMap<QString, QVector<Box>> m_cleanBoxes;
  QVector<Planted> m_plantedErrors;
};

QTEST_GUILESS_MAIN(TstTrainLabelIssues)
#include "tst_train_label_issues.moc"
