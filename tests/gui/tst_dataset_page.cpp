#include <qcustomplot.h>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "core/config/project.h"
#include "core/studio/project_document.h"
#include "widgets/dataset_page.h"

using stave::widgets::DatasetPage;

namespace {
void writeFile(const QString& path, const QByteArray& bytes) {
  QDir().mkpath(QFileInfo(path).absolutePath());
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(bytes);
}

// A dataset with planted problems: a class id out of range, a coordinate beyond 1, a row of 4
// columns, an unreadable image; and clean images with known class counts.
void plant(const QTemporaryDir& dir) {
  const QString root = dir.filePath("set");
  QImage img(64, 48, QImage::Format_RGB888);
  img.fill(Qt::gray);
  for (const QString split : {"train", "val"}) {
    for (int i = 0; i < 4; ++i) {
      QDir().mkpath(root + "/images/" + split);
      QVERIFY(img.save(QString("%1/images/%2/ok%3.png").arg(root, split).arg(i)));
      // Class 0 twice and class 1 once per image.
      writeFile(QString("%1/labels/%2/ok%3.txt").arg(root, split).arg(i),
                "0 0.5 0.5 0.2 0.2\n0 0.3 0.3 0.1 0.1\n1 0.7 0.7 0.2 0.3\n");
    }
  }
  QVERIFY(img.save(root + "/images/train/bad.png"));
  writeFile(root + "/labels/train/bad.txt",
            "0 0.5 0.5 0.2 0.2\n7 0.5 0.5 0.1 0.1\n0 0.5 1.7 0.1 0.1\n1 0.5 0.5 0.1\n");
  writeFile(root + "/images/train/broken.png", "this is not a png");
  writeFile(root + "/labels/train/broken.txt", "0 0.5 0.5 0.2 0.2\n");
  writeFile(root + "/data.yaml",
            "path: .\ntrain: images/train\nval: images/val\nnames: [cat, dog]\n");
}
QString plantedDataset(const QTemporaryDir& dir) {
  plant(dir);
  return dir.filePath("set/data.yaml");
}
}  // namespace

// The Dataset page on a planted-problem set: every problem listed, selecting one shows its
// file:line and image; the histogram has the class counts; a missing data.yaml is reported.
class TestDatasetPage : public QObject {
  Q_OBJECT
 private slots:
  void plantedProblems() {
    QTemporaryDir dir;
    const QString yaml = plantedDataset(dir);
    auto p =
        stave::config::createProject(dir.filePath("proj").toStdString(), "p", yaml.toStdString());
    QVERIFY2(p.ok(), p.errorText().c_str());
    stave::studio::ProjectDocument doc;
    DatasetPage page(&doc);
    page.resize(1000, 700);
    page.show();
    QVERIFY(doc.open(QString::fromStdString(p->path)));
    QTRY_VERIFY_WITH_TIMEOUT(!page.scanning() && !page.summary().splits.isEmpty(), 30000);
    const auto& s = page.summary();
    QVERIFY2(s.error.isEmpty(), qPrintable(s.error));
    // Every planted problem, with its file and line.
    auto find = [&](const QString& kind, const QString& file, int line) {
      for (int r = 0; r < page.problems()->rowCount(); ++r) {
        const auto& row = page.problems()->row(r);
        if (row.kind == kind && row.file.endsWith(file) && row.line == line) return r;
      }
      return -1;
    };
    const int classRow = find("label-class", "labels/train/bad.txt", 2);
    QVERIFY(classRow >= 0);
    QVERIFY(find("label-range", "labels/train/bad.txt", 3) >= 0);
    QVERIFY(find("label-columns", "labels/train/bad.txt", 4) >= 0);
    QVERIFY(find("image-unreadable", "images/train/broken.png", 0) >= 0);
    // Histogram: 8 clean images × (2 cat + 1 dog), plus bad.png's one good cat row.
    auto* bars = qobject_cast<QCPBars*>(page.histogram()->plottable(0));
    QVERIFY(bars);
    QCOMPARE(bars->data()->size(), 2);
    QCOMPARE(bars->data()->at(0)->value, 17.0);
    QCOMPARE(bars->data()->at(1)->value, 8.0);
    // Selecting a problem shows the image with the offending row named.
    page.problemView()->selectRow(classRow);
    QVERIFY2(page.previewText().contains("bad.txt:2"), qPrintable(page.previewText()));
    QVERIFY(page.previewImage().endsWith("images/train/bad.png"));
    page.showProblem(find("image-unreadable", "images/train/broken.png", 0));
    QVERIFY2(page.previewText().contains("Cannot read"), qPrintable(page.previewText()));
    QVERIFY(page.previewImage().isEmpty());
    // Rescan: the scan cache answers.
    page.rescan();
    QTRY_VERIFY_WITH_TIMEOUT(!page.scanning(), 30000);
    QVERIFY2(page.messageLabel()->text().contains("cache"),
             qPrintable(page.messageLabel()->text()));
  }

  void unreadableDataYaml_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("expected");
    QTest::newRow("removed") << QByteArray() << "data.yaml";
    QTest::newRow("unparseable") << QByteArray("train: [unclosed\nnames: {") << "data.yaml";
  }
  void unreadableDataYaml() {
    QFETCH(QByteArray, content);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const QString yaml = plantedDataset(dir);
    auto p =
        stave::config::createProject(dir.filePath("proj").toStdString(), "p", yaml.toStdString());
    QVERIFY(p.ok());
    if (content.isEmpty())
      QVERIFY(QFile::remove(yaml));
    else
      writeFile(yaml, content);
    stave::studio::ProjectDocument doc;
    DatasetPage page(&doc);
    QVERIFY(doc.open(QString::fromStdString(p->path)));
    QTRY_VERIFY_WITH_TIMEOUT(
        !page.scanning() && page.messageLabel()->text().contains("Cannot read"), 30000);
    QVERIFY2(page.messageLabel()->text().contains(expected),
             qPrintable(page.messageLabel()->text()));
    QCOMPARE(page.problems()->rowCount(), 0);
  }
};

QTEST_MAIN(TestDatasetPage)
#include "tst_dataset_page.moc"
