// Which label files two runs' datasets differ in (core/data/label_history.h): net changes
// between two positions of the edit log (an edit undone in between is no change), the same by
// edit times, and the comparison of two runs — equal content hashes, recorded positions, the
// fallback to times, and the cases that cannot be told (another dataset, no data.yaml, nothing
// recorded, a log cut shorter than a recorded position).
#include <QtTest/QtTest>

#include <filesystem>

#include "core/base/atomic_file.h"
#include "core/data/label_edits.h"
#include "core/data/label_history.h"

using namespace stave::data;
namespace fs = std::filesystem;

namespace {

LabelEdit edit(const std::string& file, bool oldExisted, std::vector<std::string> oldLines,
               std::vector<std::string> newLines, double time) {
  LabelEdit e;
  e.id = "s:" + std::to_string(time);
  e.file = file;
  e.oldExisted = oldExisted;
  e.oldLines = std::move(oldLines);
  e.newLines = std::move(newLines);
  e.time = time;
  e.session = "s";
  return e;
}

// a changed (t=10), b created (20), a changed back (30), c changed (40).
const std::vector<LabelEdit> kEdits = {
    edit("labels/a.txt", true, {"0 .5 .5 .1 .1"}, {"1 .5 .5 .1 .1"}, 10),
    edit("labels/b.txt", false, {}, {"2 .5 .5 .1 .1"}, 20),
    edit("labels/a.txt", true, {"1 .5 .5 .1 .1"}, {"0 .5 .5 .1 .1"}, 30),
    edit("labels/c.txt", true, {"3 .5 .5 .1 .1"}, {"3 .5 .5 .2 .2"}, 40),
};

QStringList q(const std::vector<std::string>& v) {
  QStringList out;
  for (const auto& s : v) out << QString::fromStdString(s);
  return out;
}

}  // namespace

class TstLabelHistory : public QObject {
  Q_OBJECT
 private slots:
  void byPositions_data() {
    QTest::addColumn<int>("from");
    QTest::addColumn<int>("to");
    QTest::addColumn<QStringList>("files");
    QTest::newRow("all: a undone") << 0 << 4 << QStringList{"labels/b.txt", "labels/c.txt"};
    QTest::newRow("first two") << 0 << 2 << QStringList{"labels/a.txt", "labels/b.txt"};
    QTest::newRow("either order") << 2 << 0 << QStringList{"labels/a.txt", "labels/b.txt"};
    QTest::newRow("the undo alone") << 2 << 3 << QStringList{"labels/a.txt"};
    QTest::newRow("same position") << 4 << 4 << QStringList{};
    QTest::newRow("past the end") << 3 << 9 << QStringList{"labels/c.txt"};
  }
  void byPositions() {
    QFETCH(int, from);
    QFETCH(int, to);
    QFETCH(QStringList, files);
    QCOMPARE(q(labelFilesChanged(kEdits, from, to)), files);
  }

  void byTimes() {
    QCOMPARE(q(labelFilesChangedBetween(kEdits, 15, 40)),
             (QStringList{"labels/a.txt", "labels/b.txt", "labels/c.txt"}));
    // After 20 (not at it), up to 40: a's undo and c.
    QCOMPARE(q(labelFilesChangedBetween(kEdits, 40, 20)),
             (QStringList{"labels/a.txt", "labels/c.txt"}));
    QCOMPARE(q(labelFilesChangedBetween(kEdits, 0, 100)),
             (QStringList{"labels/b.txt", "labels/c.txt"}));
    QVERIFY(labelFilesChangedBetween(kEdits, 41, 100).empty());
  }

  void betweenRuns() {
    QTemporaryDir dir;
    const std::string root = dir.filePath("ds").toStdString();
    fs::create_directories(root + "/labels");
    fs::create_directories(root + "/images");
    const std::string yaml = root + "/data.yaml";
    QVERIFY(
        stave::writeFileAtomic(yaml, "path: .\ntrain: images\nval: images\nnames: [a, b]\n").ok());
    QCOMPARE(labelEditCount(root), int64_t(0));
    // Two edits through the store: x.txt changed, y.txt created.
    LabelStore store(root, "test");
    auto x = readLabelFile(root + "/labels/x.txt");
    QVERIFY(stave::writeFileAtomic(root + "/labels/x.txt", "0 0.5 0.5 0.2 0.2\n").ok());
    x = readLabelFile(root + "/labels/x.txt");
    QVERIFY(store.write(x.value(), "1 0.5 0.5 0.2 0.2\n").ok());
    auto y = readLabelFile(root + "/labels/y.txt");
    QVERIFY(store.write(y.value(), "0 0.1 0.1 0.1 0.1\n").ok());
    QCOMPARE(labelEditCount(root), int64_t(2));
    const double t0 = store.log().edits[0].time - 1, t1 = store.log().edits[1].time + 1;

    using B = LabelFilesDiff::Basis;
    using W = LabelFilesDiff::Why;
    RunDataset a{yaml, "h1", 0, t0}, b{yaml, "h2", 2, t1};
    auto d = labelFilesDiffBetweenRuns(a, b);
    QVERIFY2(d.error.empty(), d.error.c_str());
    QCOMPARE(int(d.basis), int(B::LogPositions));
    QCOMPARE(q(d.files), (QStringList{"labels/x.txt", "labels/y.txt"}));
    QVERIFY(!d.outsideLog);
    // Equal content: none, without reading anything.
    b.contentHash = "h1";
    d = labelFilesDiffBetweenRuns(a, b);
    QCOMPARE(int(d.basis), int(B::SameContent));
    QVERIFY(d.files.empty());
    // Hashes differ, positions equal: the difference is outside the log.
    b.contentHash = "h2";
    b.labelEdits = 0;
    d = labelFilesDiffBetweenRuns(a, b);
    QCOMPARE(int(d.basis), int(B::LogPositions));
    QVERIFY(d.files.empty());
    QVERIFY(d.outsideLog);
    // A run without a position: the edits between the starts.
    b.labelEdits = -1;
    d = labelFilesDiffBetweenRuns(a, b);
    QCOMPARE(int(d.basis), int(B::EditTimes));
    QCOMPARE(q(d.files), (QStringList{"labels/x.txt", "labels/y.txt"}));
    b.started = t0 + 0.5;  // before both edits
    d = labelFilesDiffBetweenRuns(a, b);
    QVERIFY(d.files.empty());
    // Nothing to go by.
    b.started = 0;
    d = labelFilesDiffBetweenRuns(a, b);
    QCOMPARE(int(d.basis), int(B::Unknown));
    QCOMPARE(int(d.why), int(W::NoTimes));
    // A log cut shorter than a recorded position, and no times.
    a.started = 0;
    a.labelEdits = 0;
    b.labelEdits = 5;
    d = labelFilesDiffBetweenRuns(a, b);
    QCOMPARE(int(d.why), int(W::BadLog));
    // Another dataset (another root), and a data.yaml that is gone.
    const std::string other = dir.filePath("other.yaml").toStdString();
    fs::create_directories(dir.filePath("elsewhere/images").toStdString());
    QVERIFY(
        stave::writeFileAtomic(other, "path: elsewhere\ntrain: images\nval: images\nnames: [a]\n")
            .ok());
    d = labelFilesDiffBetweenRuns(RunDataset{yaml, "h1", 0, t0}, RunDataset{other, "h2", 0, t1});
    QCOMPARE(int(d.why), int(W::OtherDatasets));
    d = labelFilesDiffBetweenRuns(RunDataset{yaml, "h1", 0, t0},
                                  RunDataset{root + "/gone.yaml", "h2", 0, t1});
    QCOMPARE(int(d.why), int(W::NoDataset));
    QVERIFY(d.error.find("gone.yaml") != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(TstLabelHistory)
#include "tst_label_history.moc"
