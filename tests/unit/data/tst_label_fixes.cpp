// From an issue to its fix (core/data/label_fixes.h): the issues CSV read back (a bad row named
// by its line, the rest read), each one-key fix applied to label text by hand-worked cases, a
// box no longer in the file refused, "not an issue" remembered per dataset.
#include <QtTest/QtTest>

#include "core/base/atomic_file.h"
#include "core/data/label_edits.h"
#include "core/data/label_fixes.h"

using namespace stave::data;

namespace {
// A 200 x 100 image: class 0 at pixels (20, 10)-(60, 50), class 1 at (100, 20)-(160, 80), and a
// polygon row that every fix keeps.
const std::string kLabels =
    "0 0.200000 0.300000 0.200000 0.400000\n"
    "1 0.650000 0.500000 0.300000 0.600000\n"
    "2 0.1 0.1 0.2 0.1 0.2 0.2\n";

IssueRow issue(IssueKind kind, int lc, int pc, double x1, double y1, double x2, double y2) {
  IssueRow r;
  r.image = "images/val/a.jpg";
  r.kind = kind;
  r.labelClass = lc;
  r.predictedClass = pc;
  r.score = 0.8;
  r.x1 = x1;
  r.y1 = y1;
  r.x2 = x2;
  r.y2 = y2;
  return r;
}
}  // namespace

class TstLabelFixes : public QObject {
  Q_OBJECT
 private slots:
  void readsCsvAndNamesBadRows() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("issues.csv").toStdString();
    QVERIFY(stave::writeFileAtomic(path, std::string(kLabelIssuesCsvHeader) +
                                             "images/val/a.jpg,swapped,0,1,0.7712,20,10,60,50\n"
                                             "\"images/val/b,c.jpg\",overlooked,-1,0,0.5,1,2,3,4\n"
                                             "images/val/c.jpg,wrongkind,0,1,0.5,1,2,3,4\n"
                                             "images/val/d.jpg,spurious,0,-1,x,1,2,3,4\n"
                                             "images/val/e.jpg,spurious,0,-1\n"
                                             "images/val/f.jpg,spurious,3,-1,0.25,1,2,3,4\n")
                .ok());
    auto csv = readLabelIssuesCsv(path);
    QVERIFY2(csv.ok(), csv.errorText().c_str());
    QCOMPARE(csv->rows.size(), size_t(3));
    QCOMPARE(csv->rows[0].kind, IssueKind::Swapped);
    QCOMPARE(csv->rows[0].predictedClass, 1);
    QCOMPARE(csv->rows[0].x2, 60.0);
    QCOMPARE(csv->rows[1].image, std::string("images/val/b,c.jpg"));
    QCOMPARE(csv->rows[2].line, 7);
    QCOMPARE(csv->problems.size(), size_t(3));
    QCOMPARE(csv->problems[0].line, 4);
    QCOMPARE(csv->problems[1].line, 5);
    QCOMPARE(csv->problems[2].line, 6);
    QVERIFY(stave::writeFileAtomic(path, "image,kind\n").ok());
    auto bad = readLabelIssuesCsv(path);
    QVERIFY(!bad.ok());
    QCOMPARE(bad.errors()[0].line, 1);
  }

  void fixes_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("fix");
    QTest::addColumn<QString>("expected");
    // Accept: the prediction's box (100..140 x 60..90 px) with its class, appended.
    QTest::newRow("accept overlooked")
        << int(IssueKind::Overlooked) << int(IssueFix::AcceptPrediction)
        << QString::fromStdString(kLabels + "1 0.600000 0.750000 0.200000 0.300000\n");
    QTest::newRow("delete spurious")
        << int(IssueKind::Spurious) << int(IssueFix::DeleteBox)
        << "1 0.650000 0.500000 0.300000 0.600000\n2 0.1 0.1 0.2 0.1 0.2 0.2\n";
    QTest::newRow("take other class")
        << int(IssueKind::Swapped) << int(IssueFix::TakeOtherClass)
        << "1 0.200000 0.300000 0.200000 0.400000\n1 0.650000 0.500000 0.300000 0.600000\n"
           "2 0.1 0.1 0.2 0.1 0.2 0.2\n";
  }
  void fixes() {
    QFETCH(int, kind);
    QFETCH(int, fix);
    QFETCH(QString, expected);
    IssueRow r = IssueKind(kind) == IssueKind::Overlooked
                     ? issue(IssueKind::Overlooked, -1, 1, 100, 60, 140, 90)
                     : issue(IssueKind(kind), 0, IssueKind(kind) == IssueKind::Swapped ? 1 : -1, 21,
                             11, 59, 50);  // the class-0 box, off by a pixel
    auto out = applyIssueFix(kLabels, "a.txt", r, IssueFix(fix), 200, 100);
    QVERIFY2(out.ok(), out.errorText().c_str());
    QCOMPARE(QString::fromStdString(out.value()), expected);
    IssueFix def{};
    QVERIFY(defaultFix(IssueKind(kind), def));
    QCOMPARE(int(def), fix);
  }

  void boxGoneIsRefused() {
    // The class-0 box is elsewhere now (IoU with the issue's box below 0.5): refused.
    auto r = issue(IssueKind::Spurious, 0, -1, 120, 20, 160, 60);
    auto out = applyIssueFix(kLabels, "labels/val/a.txt", r, IssueFix::DeleteBox, 200, 100);
    QVERIFY(!out.ok());
    QVERIFY(out.errorText().find("labels/val/a.txt") != std::string::npos);
    QVERIFY(out.errorText().find("no longer in the file") != std::string::npos);
    // Swapped with no predicted class: nothing to take.
    auto none = applyIssueFix(kLabels, "a.txt", issue(IssueKind::Swapped, 0, -1, 20, 10, 60, 50),
                              IssueFix::TakeOtherClass, 200, 100);
    QVERIFY(!none.ok());
    IssueFix def{};
    QVERIFY(!defaultFix(IssueKind::BadlyLocated, def));
  }

  void notAnIssueIsRemembered() {
    QTemporaryDir dir;
    const std::string root = dir.path().toStdString();
    QVERIFY(readDismissedIssues(root).empty());
    const auto a = issue(IssueKind::Spurious, 0, -1, 20.2, 10, 60, 50);
    const auto b = issue(IssueKind::Swapped, 0, 1, 20, 10, 60, 50);
    QVERIFY(dismissIssue(root, a).ok());
    QVERIFY(dismissIssue(root, a).ok());  // twice: once kept
    const auto keys = readDismissedIssues(root);
    QCOMPARE(keys.size(), size_t(1));
    QVERIFY(keys.count(issueKey(a)));
    QVERIFY(!keys.count(issueKey(b)));
    QVERIFY(dismissIssue(root, b).ok());
    QCOMPARE(readDismissedIssues(root).size(), size_t(2));
  }
};

QTEST_APPLESS_MAIN(TstLabelFixes)
#include "tst_label_fixes.moc"
