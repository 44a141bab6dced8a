// The issues of a CSV fixed in one go (core/data/label_fix_batch.h): each kind's natural fix on
// hand-worked label text, one session in the edit log that a revert undoes byte for byte, the
// selection (top, kinds, score, "not an issue"), a dry run writing nothing, and a label file
// changed since the CSV refused by content hash (companion) or by modification time.
#include <QtTest/QtTest>

#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>

#include "core/base/atomic_file.h"
#include "core/base/hash.h"
#include "core/data/label_edits.h"
#include "core/data/label_fix_batch.h"

using namespace stave::data;
namespace fs = std::filesystem;

namespace {

// A 200 x 100 BMP (24-bit, black): the header is all the fixes read.
std::string bmp200x100() {
  const int w = 200, h = 100, row = (w * 3 + 3) / 4 * 4, data = row * h;
  std::string b(54 + size_t(data), '\0');
  auto put32 = [&](size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + size_t(i)] = char((v >> (8 * i)) & 0xff);
  };
  b[0] = 'B', b[1] = 'M';
  put32(2, uint32_t(b.size()));
  put32(10, 54);
  put32(14, 40);
  put32(18, w);
  put32(22, h);
  b[26] = 1;
  b[28] = 24;
  put32(34, uint32_t(data));
  return b;
}

// Image a: class 0 at pixels (20, 10)-(60, 50), class 1 at (100, 20)-(160, 80), a polygon row.
// Image b: class 2 at (40, 40)-(80, 80).
const std::string kA =
    "0 0.200000 0.300000 0.200000 0.400000\n"
    "1 0.650000 0.500000 0.300000 0.600000\n"
    "2 0.1 0.1 0.2 0.1 0.2 0.2\n";
const std::string kB = "2 0.300000 0.600000 0.200000 0.400000\n";

// Rows: line 2 swapped (a's class-0 box is class 3), line 3 overlooked on b, line 4 badly
// located (a's class-1 box belongs at (110, 30)-(170, 90)), line 5 spurious (b's box).
const std::string kCsv = std::string(kLabelIssuesCsvHeader) +
                         "images/val/a.bmp,swapped,0,3,0.9000,20.0,10.0,60.0,50.0\n"
                         "images/val/b.bmp,overlooked,-1,4,0.8000,120.0,20.0,160.0,60.0\n"
                         "images/val/a.bmp,badly_located,1,1,0.7000,100.0,20.0,160.0,80.0\n"
                         "images/val/b.bmp,spurious,2,-1,0.3000,40.0,40.0,80.0,80.0\n";

std::string read(const std::string& path) {
  auto t = stave::readFile(path);
  return t ? t.value() : std::string("<unreadable>");
}

void setMtime(const std::string& path, time_t seconds) {
  struct timespec times[2] = {{seconds, 0}, {seconds, 0}};
  utimensat(AT_FDCWD, path.c_str(), times, 0);
}

}  // namespace

class TstLabelFixBatch : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::string m_root, m_csv;

  std::string label(const char* stem) const { return m_root + "/labels/val/" + stem + ".txt"; }

  // A fresh dataset, its CSV and (with `companion`) the companion label-issues would write.
  void makeDataset(bool companion) {
    m_root = (fs::path(m_dir.path().toStdString()) / ("ds" + std::to_string(++m_n))).string();
    fs::create_directories(m_root + "/images/val");
    fs::create_directories(m_root + "/labels/val");
    for (const char* s : {"a", "b"})
      QVERIFY(stave::writeFileAtomic(m_root + "/images/val/" + s + ".bmp", bmp200x100()).ok());
    QVERIFY(stave::writeFileAtomic(label("a"), kA).ok());
    QVERIFY(stave::writeFileAtomic(label("b"), kB).ok());
    m_csv = m_root + "/issues.csv";
    QVERIFY(stave::writeFileAtomic(m_csv, kCsv).ok());
    // The labels were scored before the CSV was written.
    for (const char* s : {"a", "b"}) setMtime(label(s), time(nullptr) - 60);
    if (!companion) return;
    IssuesCompanion c;
    c.csvHash = stave::hashHex(kCsv);
    c.labelHashes["images/val/a.bmp"] = stave::hashHex(kA);
    c.labelHashes["images/val/b.bmp"] = stave::hashHex(kB);
    c.predictedBoxes[4] = {110, 30, 170, 90};
    QVERIFY(stave::writeFileAtomic(issuesCompanionPath(m_csv), issuesCompanionJson(c)).ok());
  }
  int m_n = 0;

 private slots:
  void companionRoundTrips() {
    IssuesCompanion c;
    c.csvHash = "abc";
    c.labelHashes["images/x,1.jpg"] = "";
    c.predictedBoxes[7] = {1.5, 2, 3, 4.25};
    const std::string path = m_dir.filePath("c.json").toStdString();
    QVERIFY(stave::writeFileAtomic(path, issuesCompanionJson(c)).ok());
    auto back = readIssuesCompanion(path);
    QVERIFY2(back.ok(), back.errorText().c_str());
    QCOMPARE(back->csvHash, c.csvHash);
    QVERIFY(back->labelHashes == c.labelHashes);
    QVERIFY(back->predictedBoxes == c.predictedBoxes);
    QVERIFY(
        stave::writeFileAtomic(path, "{\"csv_hash\":\"x\",\"predicted_boxes\":{\"3\":[1]}}").ok());
    auto bad = readIssuesCompanion(path);
    QVERIFY(!bad.ok());
    QVERIFY(bad.errorText().find(path) != std::string::npos);
    QVERIFY(bad.errorText().find("predicted_boxes") != std::string::npos);
  }

  void fixesEveryKindInOneSession() {
    makeDataset(true);
    LabelStore store(m_root, "test");
    auto r = fixLabelIssues(m_csv, {}, store);
    QVERIFY2(r.ok(), r.errorText().c_str());
    QVERIFY(r->companionUsed);
    QCOMPARE(r->outcomes.size(), size_t(4));
    for (const auto& o : r->outcomes)
      QVERIFY2(o.status == IssueFixOutcome::Status::Fixed, o.reason.c_str());
    // a: the class-0 box became class 3, the class-1 box moved to (110, 30)-(170, 90).
    QCOMPARE(QString::fromStdString(read(label("a"))),
             QString("3 0.200000 0.300000 0.200000 0.400000\n"
                     "1 0.700000 0.600000 0.300000 0.600000\n"
                     "2 0.1 0.1 0.2 0.1 0.2 0.2\n"));
    // b: the predicted class-4 box at (120, 20)-(160, 60) added, the spurious box deleted.
    QCOMPARE(QString::fromStdString(read(label("b"))),
             QString("4 0.700000 0.400000 0.200000 0.400000\n"));
    // The edit log: four edits, one session, originals kept.
    const auto log = store.log();
    QCOMPARE(log.edits.size(), size_t(4));
    for (const auto& e : log.edits) QCOMPARE(e.session, r->session);
    QCOMPARE(r->outcomes[0].editId, log.edits[0].id);
    QCOMPARE(read(store.originalsDir() + "/labels/val/a.txt"), kA);
    // Reverting the session brings both files back byte for byte.
    auto undo = LabelStore(m_root, "test").revertSession(r->session);
    QVERIFY2(undo.ok(), undo.errorText().c_str());
    QCOMPARE(read(label("a")), kA);
    QCOMPARE(read(label("b")), kB);
  }

  void selects_data() {
    QTest::addColumn<int>("top");
    QTest::addColumn<QString>("kinds");
    QTest::addColumn<double>("minScore");
    QTest::addColumn<bool>("dismissFirst");
    QTest::addColumn<QList<int>>("lines");
    QTest::newRow("all") << 0 << "" << 0.0 << false << QList<int>{2, 3, 4, 5};
    QTest::newRow("top 2") << 2 << "" << 0.0 << false << QList<int>{2, 3};
    QTest::newRow("spurious, swapped")
        << 0 << "spurious,swapped" << 0.0 << false << QList<int>{2, 5};
    QTest::newRow("score 0.75") << 0 << "" << 0.75 << false << QList<int>{2, 3};
    // "Not an issue" is left out before counting the top.
    QTest::newRow("dismissed, top 2") << 2 << "" << 0.0 << true << QList<int>{3, 4};
  }
  void selects() {
    QFETCH(int, top);
    QFETCH(QString, kinds);
    QFETCH(double, minScore);
    QFETCH(bool, dismissFirst);
    QFETCH(QList<int>, lines);
    makeDataset(true);
    IssueFixSelection sel;
    sel.top = top;
    sel.minScore = minScore;
    sel.dryRun = true;
    if (!kinds.isEmpty()) {
      sel.kinds.clear();
      for (const auto& k : kinds.split(',')) {
        IssueKind kind{};
        QVERIFY(parseIssueKind(k.toStdString(), kind));
        sel.kinds.push_back(kind);
      }
    }
    if (dismissFirst) {
      auto csv = readLabelIssuesCsv(m_csv);
      QVERIFY(dismissIssue(m_root, csv->rows[0]).ok());
    }
    LabelStore store(m_root, "test");
    auto r = fixLabelIssues(m_csv, sel, store);
    QVERIFY2(r.ok(), r.errorText().c_str());
    QList<int> got;
    for (const auto& o : r->outcomes) {
      got << o.issue.line;
      QCOMPARE(int(o.status), int(IssueFixOutcome::Status::WouldFix));
    }
    QCOMPARE(got, lines);
    QCOMPARE(r->dismissed, dismissFirst ? 1 : 0);
    // A dry run writes nothing.
    QCOMPARE(read(label("a")), kA);
    QCOMPARE(read(label("b")), kB);
    QVERIFY(store.log().edits.empty());
  }

  void changedSinceIsRefused() {
    // By content hash: b changed after the issues were found; a is still fixed.
    makeDataset(true);
    const std::string changed = kB + "0 0.5 0.5 0.1 0.1\n";
    QVERIFY(stave::writeFileAtomic(label("b"), changed).ok());
    setMtime(label("b"), time(nullptr) - 60);  // an old time does not hide it
    LabelStore store(m_root, "test");
    auto r = fixLabelIssues(m_csv, {}, store);
    QVERIFY2(r.ok(), r.errorText().c_str());
    QCOMPARE(r->count(IssueFixOutcome::Status::Fixed), 2);
    QCOMPARE(r->count(IssueFixOutcome::Status::Refused), 2);
    for (const auto& o : r->outcomes)
      if (o.status == IssueFixOutcome::Status::Refused) {
        QVERIFY(o.reason.find(label("b")) != std::string::npos);
        QVERIFY(o.reason.find("changed since") != std::string::npos);
      }
    QCOMPARE(read(label("b")), changed);

    // Without a companion: a file modified after the CSV was written is refused; badly located
    // cannot be fixed (the CSV does not hold the predicted box).
    makeDataset(false);
    QVERIFY(stave::writeFileAtomic(label("b"), changed).ok());
    setMtime(label("b"), time(nullptr) + 60);
    LabelStore store2(m_root, "test");
    auto r2 = fixLabelIssues(m_csv, {}, store2);
    QVERIFY2(r2.ok(), r2.errorText().c_str());
    QVERIFY(!r2->companionUsed);
    QCOMPARE(int(r2->outcomes[0].status), int(IssueFixOutcome::Status::Fixed));
    QCOMPARE(int(r2->outcomes[1].status), int(IssueFixOutcome::Status::Refused));
    QVERIFY(r2->outcomes[1].reason.find("modified after") != std::string::npos);
    QCOMPARE(int(r2->outcomes[2].status), int(IssueFixOutcome::Status::Failed));
    QVERIFY(r2->outcomes[2].reason.find("no predicted box") != std::string::npos);
    QCOMPARE(read(label("b")), changed);
  }

  void companionOfAnotherCsvIsNotUsed() {
    makeDataset(true);
    QVERIFY(
        stave::writeFileAtomic(m_csv, kCsv + "images/val/a.bmp,spurious,1,-1,0.1,100,20,160,80\n")
            .ok());
    LabelStore store(m_root, "test");
    IssueFixSelection sel;
    sel.dryRun = true;
    auto r = fixLabelIssues(m_csv, sel, store);
    QVERIFY2(r.ok(), r.errorText().c_str());
    QVERIFY(!r->companionUsed);
    QCOMPARE(r->warnings.size(), size_t(1));
    QVERIFY(r->warnings[0].toString().find("another version") != std::string::npos);
  }

  void unreadableCsvFails() {
    LabelStore store(m_dir.path().toStdString(), "test");
    auto r = fixLabelIssues(m_dir.filePath("none.csv").toStdString(), {}, store);
    QVERIFY(!r.ok());
    QVERIFY(r.errorText().find("none.csv") != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(TstLabelFixBatch)
#include "tst_label_fix_batch.moc"
