// The label loop end to end (docs/labels.md): errors planted in a copy of the demo data's
// validation labels (boxes dropped, classes changed), `label-issues` run with a real model (the
// checkpoint Ultralytics trained on the demo data, a fixture: tests/tools/ultralytics_fixtures.py),
// `labels fix --top N` on the ranked issues, and then: the planted errors the top issues point at
// are repaired in the label files (the dropped box back, the class back), every fix is in the edit
// log as one session, and `labels revert --session` brings every label file back byte for byte.
// A label file changed after the issues were found is refused by name and left alone.
#include <QtTest/QtTest>

#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <random>

#include "e2e/e2e_util.h"

using stave::e2e::runStaveTrain;

namespace {

const QString kFixtures = QStringLiteral(STAVE_ULTRALYTICS_FIXTURES);

struct Box {
  int cls = 0;
  double x1 = 0, y1 = 0, x2 = 0, y2 = 0;  // pixels
};

double iou(const Box& a, const Box& b) {
  const double iw = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
  const double ih = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
  if (iw <= 0 || ih <= 0) return 0;
  const double inter = iw * ih;
  return inter / ((a.x2 - a.x1) * (a.y2 - a.y1) + (b.x2 - b.x1) * (b.y2 - b.y1) - inter);
}

QByteArray bytesOf(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<unreadable>");
}

// Width and height of a baseline or progressive JPEG (its SOF segment).
QSize jpegSize(const QString& path) {
  const QByteArray b = bytesOf(path);
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

QVector<Box> parseLabels(const QByteArray& text, QSize size) {
  QVector<Box> boxes;
  for (const auto& line : QString::fromUtf8(text).split('\n', Qt::SkipEmptyParts)) {
    const auto f = line.split(' ', Qt::SkipEmptyParts);
    if (f.size() != 5) continue;
    const double cx = f[1].toDouble() * size.width(), cy = f[2].toDouble() * size.height();
    const double w = f[3].toDouble() * size.width(), h = f[4].toDouble() * size.height();
    boxes.push_back({f[0].toInt(), cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2});
  }
  return boxes;
}

QByteArray formatLabels(const QVector<Box>& boxes, QSize size) {
  QByteArray out;
  for (const auto& b : boxes)
    out += QString("%1 %2 %3 %4 %5\n")
               .arg(b.cls)
               .arg((b.x1 + b.x2) / 2 / size.width(), 0, 'f', 6)
               .arg((b.y1 + b.y2) / 2 / size.height(), 0, 'f', 6)
               .arg((b.x2 - b.x1) / size.width(), 0, 'f', 6)
               .arg((b.y2 - b.y1) / size.height(), 0, 'f', 6)
               .toUtf8();
  return out;
}

// A planted error: the image, the kind of issue it should raise, the box that issue names
// (the changed label box, or the dropped one that a prediction should find) and the true class.
struct Planted {
  QString image;  // "images/val/000001.jpg"
  QString kind;   // swapped or overlooked
  Box named;      // the box as the issue names it
  int trueClass = 0;
};

}  // namespace

class TstLabelsFix : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_root, m_data, m_csv;
  QMap<QString, QSize> m_sizes;         // image -> size
  QMap<QString, QByteArray> m_planted;  // label file -> bytes as planted
  QVector<Planted> m_errors;

  QString labelOf(const QString& image) const {
    QString l = m_root + "/" + image;
    l.replace("/images/", "/labels/");
    return l.left(l.lastIndexOf('.')) + ".txt";
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    const QString demo = kFixtures + "/demo";
    const QString model = kFixtures + "/trained/last.pt";
    QVERIFY2(QFile::exists(model) && QFile::exists(demo + "/data.yaml"),
             qPrintable("no fixtures at " + kFixtures + ": ctest runs fixture_ultralytics first"));
    // The copy: the validation images, their labels with errors planted (fixed seed).
    m_root = m_dir.filePath("planted");
    QVERIFY(QDir().mkpath(m_root + "/images/val"));
    QVERIFY(QDir().mkpath(m_root + "/labels/val"));
    m_data = m_root + "/data.yaml";
    QFile y(m_data);
    QVERIFY(y.open(QIODevice::WriteOnly));
    y.write(
        "path: .\ntrain: images/val\nval: images/val\n"
        "names: [circle, rectangle, triangle, ellipse, cross]\n");
    y.close();
    std::mt19937 rng(44);
    std::uniform_real_distribution<double> u(0, 1);
    const QStringList images =
        QDir(demo + "/images/val").entryList({"*.jpg"}, QDir::Files, QDir::Name);
    QVERIFY(images.size() >= 32);
    for (const auto& name : images) {
      const QString image = "images/val/" + name;
      QVERIFY(QFile::copy(demo + "/" + image, m_root + "/" + image));
      const QSize size = jpegSize(m_root + "/" + image);
      QVERIFY(size.isValid());
      m_sizes[image] = size;
      const QString stem = name.left(name.lastIndexOf('.'));
      QVector<Box> labels;
      for (const auto& b : parseLabels(bytesOf(demo + "/labels/val/" + stem + ".txt"), size)) {
        const double x = u(rng);
        if (x < 0.08) {  // dropped: a prediction there is overlooked
          m_errors.push_back({image, "overlooked", b, b.cls});
          continue;
        }
        Box out = b;
        if (x < 0.18) {  // another class
          out.cls = (b.cls + 1 + int(u(rng) * 4)) % 5;
          m_errors.push_back({image, "swapped", out, b.cls});
        }
        labels.push_back(out);
      }
      m_planted[labelOf(image)] = formatLabels(labels, size);
      QFile f(labelOf(image));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(m_planted[labelOf(image)]);
    }
    QVERIFY(m_errors.size() >= 20);

    m_csv = m_dir.filePath("issues.csv");
    const auto r = runStaveTrain({"label-issues", model, "data=" + m_data, "--out", m_csv,
                                  "--device", "cpu", "--workers", "2"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    qInfo("%s", qPrintable(r.err.trimmed().section('\n', 0, 0)));
    QVERIFY(QFile::exists(m_csv + ".json"));  // the companion labels fix reads
  }

  void topIssuesAreFixedAndReverted() {
    // The model is weak (mAP50 0.36 on these labels): about a quarter of its top 40 issues of
    // these kinds are planted errors (10 of 40 when this was written; how well issues rank is
    // measured in tst_train_label_issues and docs/benchmarks.md). What is checked here is that
    // each one the fixes reach is repaired.
    const int top = 40;
    auto r = runStaveTrain({"labels", "fix", m_csv, "data=" + m_data, "--top", QString::number(top),
                            "--kinds", "overlooked,swapped", "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    const auto out = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(out.value("fixed").toInt(), top);
    const QString session = out.value("session").toString();
    QVERIFY(!session.isEmpty());

    // Every planted error a fixed issue points at (its box, and the true class as the fix):
    // repaired in the label file.
    int pointed = 0, repaired = 0, hits = 0;
    QSet<QString> touched;
    for (const auto& v : out.value("issues").toArray()) {
      const auto is = v.toObject();
      QCOMPARE(is.value("status").toString(), QString("fixed"));
      const QString image = is.value("image").toString();
      touched.insert(labelOf(image));
      QVERIFY(is.value("label_file").toString() == QString(labelOf(image)).mid(m_root.size() + 1));
      // The issue's box, from the CSV row it came from.
      const int line = is.value("line").toInt();
      const auto row = QString::fromUtf8(bytesOf(m_csv)).split('\n')[line - 1].split(',');
      const Box box{0, row[5].toDouble(), row[6].toDouble(), row[7].toDouble(), row[8].toDouble()};
      const int predicted = is.value("predicted_class").toInt();
      for (const auto& e : m_errors) {
        if (e.image != image || e.kind != is.value("kind").toString() || iou(e.named, box) < 0.5)
          continue;
        ++hits;
        if (predicted != e.trueClass) break;  // found, but the model offers another class
        ++pointed;
        // The label file now has the true class on that object.
        Box truth = e.named;
        truth.cls = e.trueClass;
        for (const auto& b : parseLabels(bytesOf(labelOf(image)), m_sizes[image]))
          if (b.cls == truth.cls && iou(b, truth) >= 0.5) {
            ++repaired;
            break;
          }
        break;
      }
    }
    qInfo(
        "top %d issues (overlooked, swapped): %d on a planted error, %d proposing its true fix, "
        "%d repaired",
        top, hits, pointed, repaired);
    QVERIFY2(pointed >= 4, "too few planted errors among the top issues to judge");
    QCOMPARE(repaired, pointed);
    // The fixed files changed; the others are as planted.
    for (auto it = m_planted.begin(); it != m_planted.end(); ++it)
      QVERIFY2((bytesOf(it.key()) != it.value()) == touched.contains(it.key()),
               qPrintable(it.key()));

    // The edit log: one edit per fix, all of this session.
    r = runStaveTrain({"labels", "log", m_root, "--session", session, "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QStringList edits = r.out.split('\n', Qt::SkipEmptyParts);
    QCOMPARE(edits.size(), top);
    for (const auto& e : edits)
      QCOMPARE(QJsonDocument::fromJson(e.toUtf8()).object().value("session").toString(), session);

    // One revert of the session: every label file byte for byte as planted.
    r = runStaveTrain({"labels", "revert", m_root, "--session", session});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    for (auto it = m_planted.begin(); it != m_planted.end(); ++it)
      QVERIFY2(bytesOf(it.key()) == it.value(), qPrintable(it.key()));
  }

  void changedFileIsRefused() {
    // The first image of the ranking gets a label row by another program after the issues were
    // found: its fixes are refused by name, the file left alone; the rest are fixed.
    const QString first = QString::fromUtf8(bytesOf(m_csv)).split('\n')[1].section(',', 0, 0);
    const QString label = labelOf(first);
    QFile f(label);
    QVERIFY(f.open(QIODevice::Append));
    f.write("0 0.500000 0.500000 0.100000 0.100000\n");
    f.close();
    const QByteArray changed = bytesOf(label);
    auto r = runStaveTrain({"labels", "fix", m_csv, "data=" + m_data, "--top", "10"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.out.contains("refused") && r.out.contains(label) &&
                 r.out.contains("changed since the issues were found"),
             qPrintable(r.out));
    QCOMPARE(bytesOf(label), changed);
    const QString session = r.out.section("session ", 1).section(' ', 0, 0);
    QVERIFY2(!session.isEmpty(), qPrintable(r.out));
    r = runStaveTrain({"labels", "revert", m_root, "--session", session});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    for (auto it = m_planted.begin(); it != m_planted.end(); ++it)
      if (it.key() != label) QVERIFY2(bytesOf(it.key()) == it.value(), qPrintable(it.key()));
  }
};

QTEST_GUILESS_MAIN(TstLabelsFix)
#include "tst_labels_fix.moc"
