// Label issues (core/data/label_issues.h): hand-made images for each kind, a clean image with
// none, the per-class thresholds worked by hand, the ranking, the CSV.
#include <QtTest/QtTest>

#include "core/data/label_issues.h"

using namespace stave::data;

namespace {

IssueLabel lab(int cls, double x1, double y1, double x2, double y2) {
  return {cls, x1, y1, x2, y2};
}
IssuePrediction pred(int cls, double conf, double x1, double y1, double x2, double y2) {
  return {cls, conf, x1, y1, x2, y2};
}

// An image where the model agrees with every label: two boxes of classes 0 and 1, each predicted
// at conf 0.9 with a box off by a pixel.
IssueImage cleanImage(const std::string& name) {
  IssueImage im;
  im.name = name;
  im.labels = {lab(0, 10, 10, 50, 50), lab(1, 100, 20, 160, 90)};
  im.predictions = {
      pred(0, 0.9, 11, 10, 50, 51), pred(1, 0.9, 100, 21, 161, 90),
      pred(2, 0.02, 0, 0, 30, 30)};  // low-confidence noise, as NMS at conf .001 keeps
  return im;
}

// Fixed thresholds: the cases test the rules, not the calibration.
LabelIssueOptions fixed() {
  LabelIssueOptions o;
  o.confident = 0.5;
  return o;
}

// Clean images first (so precision and recall are high), then `im`.
std::vector<IssueImage> withClean(IssueImage im, int clean = 4) {
  std::vector<IssueImage> images;
  for (int i = 0; i < clean; ++i) images.push_back(cleanImage("clean" + std::to_string(i)));
  images.push_back(std::move(im));
  return images;
}

std::vector<LabelIssue> issuesOf(const LabelIssueReport& r, int image) {
  std::vector<LabelIssue> out;
  for (const auto& is : r.issues)
    if (is.image == image) out.push_back(is);
  return out;
}

}  // namespace

class TstLabelIssues : public QObject {
  Q_OBJECT
 private slots:
  void iou() {
    QCOMPARE(boxIou(0, 0, 10, 10, 0, 0, 10, 10), 1.0);
    QCOMPARE(boxIou(0, 0, 10, 10, 5, 0, 15, 10), 50.0 / 150.0);
    QCOMPARE(boxIou(0, 0, 10, 10, 20, 20, 30, 30), 0.0);
    QCOMPARE(boxIou(0, 0, 0, 10, 0, 0, 10, 10), 0.0);  // empty box
  }

  void cleanImagesHaveNoIssue() {
    const auto r = findLabelIssues(withClean(cleanImage("x")), 3, fixed());
    QVERIFY2(r.issues.empty(), r.issues.empty() ? "" : issueKindName(r.issues[0].kind));
    for (double s : r.imageScores) QCOMPARE(s, 0.0);
    QCOMPARE(r.classes[0].precision, 1.0);
    QCOMPARE(r.classes[0].recall, 1.0);
  }

  void overlooked() {
    IssueImage im = cleanImage("x");
    im.predictions.push_back(pred(2, 0.95, 200, 100, 240, 140));  // nothing labelled there
    const auto r = findLabelIssues(withClean(im), 3, fixed());
    const auto is = issuesOf(r, 4);
    QCOMPARE(int(is.size()), 1);
    QCOMPARE(is[0].kind, IssueKind::Overlooked);
    QCOMPARE(is[0].labelClass, -1);
    QCOMPARE(is[0].predictedClass, 2);
    QCOMPARE(is[0].x1, 200.0);
    QCOMPARE(is[0].y2, 140.0);
    QVERIFY(is[0].score > 0.5 && is[0].score <= 1.0);
    QCOMPARE(int(r.issues.size()), 1);  // the clean images have none
  }

  void overlookedDuplicatesAreOneIssue() {
    IssueImage im = cleanImage("x");
    // Two classes claim the same unlabelled object: one missing box.
    im.predictions.push_back(pred(2, 0.95, 200, 100, 240, 140));
    im.predictions.push_back(pred(0, 0.7, 201, 100, 240, 141));
    const auto is = issuesOf(findLabelIssues(withClean(im), 3, fixed()), 4);
    QCOMPARE(int(is.size()), 1);
    QCOMPARE(is[0].predictedClass, 2);
  }

  void swapped() {
    IssueImage im = cleanImage("x");
    im.labels[1].cls = 2;  // the model sees class 1 there, confidently
    const auto is = issuesOf(findLabelIssues(withClean(im), 3, fixed()), 4);
    QCOMPARE(int(is.size()), 1);
    QCOMPARE(is[0].kind, IssueKind::Swapped);
    QCOMPARE(is[0].labelClass, 2);
    QCOMPARE(is[0].predictedClass, 1);
    QCOMPARE(is[0].x1, 100.0);  // the label box
    QVERIFY(is[0].score > 0.4);
  }

  void notSwappedWhenTheLabelledClassIsAsStrong() {
    IssueImage im = cleanImage("x");
    im.predictions.push_back(pred(2, 0.9, 100, 20, 160, 90));  // also class 2, as strongly
    im.labels[1].cls = 2;
    for (const auto& is : issuesOf(findLabelIssues(withClean(im), 3, fixed()), 4))
      QVERIFY(is.kind != IssueKind::Swapped);
  }

  void notSwappedWhenAnotherLabelExplainsThePrediction() {
    IssueImage im = cleanImage("x");
    // Two label boxes on one object, classes 1 and 2: the class-1 prediction is the class-1
    // box's, no evidence that the class-2 box is swapped (it is the one the model does not see).
    im.labels.push_back(lab(2, 101, 20, 160, 91));
    const auto is = issuesOf(findLabelIssues(withClean(im), 3, fixed()), 4);
    QCOMPARE(int(is.size()), 1);
    QCOMPARE(is[0].kind, IssueKind::Spurious);
    QCOMPARE(is[0].labelClass, 2);
  }

  void badlyLocated() {
    IssueImage im = cleanImage("x");
    im.labels[0] = lab(0, 30, 10, 70, 50);  // shifted by half its width: IoU 1/3 with the object
    const auto is = issuesOf(findLabelIssues(withClean(im), 3, fixed()), 4);
    QCOMPARE(int(is.size()), 1);
    QCOMPARE(is[0].kind, IssueKind::BadlyLocated);
    QCOMPARE(is[0].labelClass, 0);
    QCOMPARE(is[0].predictedClass, 0);
    QCOMPARE(is[0].x1, 30.0);
    QVERIFY(is[0].score > 0.4);
  }

  void slightlyOffIsNotAnIssue() {
    IssueImage im = cleanImage("x");
    im.labels[0] = lab(0, 13, 12, 52, 50);  // IoU ~0.86
    QVERIFY(issuesOf(findLabelIssues(withClean(im), 3, fixed()), 4).empty());
  }

  void spurious() {
    IssueImage im = cleanImage("x");
    im.labels.push_back(lab(1, 200, 100, 250, 150));  // nothing predicted there
    const auto is = issuesOf(findLabelIssues(withClean(im), 3, fixed()), 4);
    QCOMPARE(int(is.size()), 1);
    QCOMPARE(is[0].kind, IssueKind::Spurious);
    QCOMPARE(is[0].labelClass, 1);
    QCOMPARE(is[0].predictedClass, -1);
    QCOMPARE(is[0].x2, 250.0);
    QVERIFY(is[0].score > 0.5);
  }

  void weakSupportLowersSpurious() {
    // A prediction below the threshold on the box is weak support: a lower score than none.
    IssueImage bare = cleanImage("x");
    bare.labels.push_back(lab(1, 200, 100, 250, 150));
    IssueImage weak = bare;
    weak.predictions.push_back(pred(1, 0.3, 200, 100, 250, 150));
    const auto a = issuesOf(findLabelIssues(withClean(bare), 3, fixed()), 4);
    const auto b = issuesOf(findLabelIssues(withClean(weak), 3, fixed()), 4);
    QCOMPARE(int(a.size()), 1);
    QCOMPARE(int(b.size()), 1);
    QVERIFY(b[0].score < a[0].score);
    QVERIFY(b[0].score > 0);
  }

  void imagesRankByTheirWorstIssue() {
    std::vector<IssueImage> images;
    for (int i = 0; i < 4; ++i) images.push_back(cleanImage("clean" + std::to_string(i)));
    IssueImage weak = cleanImage("weak");  // image 4: an overlooked box at conf 0.6
    weak.predictions.push_back(pred(2, 0.6, 200, 100, 240, 140));
    IssueImage strong = cleanImage("strong");  // image 5: conf 0.99, plus a weaker issue
    strong.predictions.push_back(pred(2, 0.99, 200, 100, 240, 140));
    strong.predictions.push_back(pred(1, 0.55, 300, 100, 340, 140));
    images.push_back(weak);
    images.push_back(strong);
    const auto r = findLabelIssues(images, 3, fixed());
    QCOMPARE(int(r.issues.size()), 3);
    QCOMPARE(r.issues[0].image, 5);
    QCOMPARE(r.issues[1].image, 5);  // the strong image's weaker issue comes before image 4
    QCOMPARE(r.issues[2].image, 4);
    QVERIFY(r.issues[0].score > r.issues[1].score);
    QVERIFY(r.issues[1].score < r.issues[2].score);  // ranked by image, then score
    QCOMPARE(r.imageScores[5], r.issues[0].score);
    QCOMPARE(r.imageScores[4], r.issues[2].score);
    QCOMPARE(r.imageScores[0], 0.0);
  }

  void perClassThresholdIsTheF1Best() {
    // Class 0 worked by hand: 3 boxes; predictions 0.9 (hit), 0.8 (hit), 0.4 (miss), 0.3 (hit).
    // F1 at 0.9: 0.5; at 0.8: 0.8; at 0.4: 2/3; at 0.3: P .75 R 1 -> 0.857: the threshold is 0.3.
    IssueImage im;
    im.name = "a";
    im.labels = {lab(0, 0, 0, 10, 10), lab(0, 20, 0, 30, 10), lab(0, 40, 0, 50, 10)};
    im.predictions = {pred(0, 0.9, 0, 0, 10, 10), pred(0, 0.8, 20, 0, 30, 10),
                      pred(0, 0.4, 80, 80, 90, 90), pred(0, 0.3, 40, 0, 50, 10)};
    LabelIssueOptions o;
    o.minClassBoxes = 1;
    const auto r = findLabelIssues({im}, 2, o);
    QCOMPARE(r.classes[0].threshold, 0.3);
    QCOMPARE(r.classes[0].precision, 0.75);
    QCOMPARE(r.classes[0].recall, 1.0);
    QVERIFY(!r.classes[0].pooled);
    // Class 1 has no boxes: pooled (the same values, as class 0 is all there is).
    QVERIFY(r.classes[1].pooled);
    QCOMPARE(r.classes[1].threshold, 0.3);
    // The clamp: at least minConfident.
    o.minConfident = 0.5;
    QCOMPARE(findLabelIssues({im}, 2, o).classes[0].threshold, 0.5);
  }

  void optionsAreChecked_data() {
    QTest::addColumn<QString>("option");
    QTest::newRow("match") << "--match-iou";
    QTest::newRow("confident") << "--confident";
    QTest::newRow("loc") << "--min-loc-iou";
    QTest::newRow("bounds") << "--min-confident";
  }
  void optionsAreChecked() {
    QFETCH(QString, option);
    LabelIssueOptions o;
    QVERIFY(checkLabelIssueOptions(o).ok());
    if (option == "--match-iou") o.matchIou = 0;
    if (option == "--confident") o.confident = 1.5;
    if (option == "--min-loc-iou") o.minLocIou = 0.7;
    if (option == "--min-confident") o.minConfident = 0.95;
    const auto st = checkLabelIssueOptions(o);
    QVERIFY(!st.ok());
    QVERIFY2(QString::fromStdString(st.errorText()).contains(option), st.errorText().c_str());
  }

  void csv() {
    IssueImage im = cleanImage("dir/a,b.jpg");
    im.labels[1].cls = 2;
    im.labels.push_back(lab(1, 200, 100, 250, 150));
    const auto images = withClean(im);
    const auto r = findLabelIssues(images, 3, fixed());
    const QStringList lines = QString::fromStdString(labelIssuesCsv(r, images)).split('\n');
    QCOMPARE(lines[0], QString("image,kind,label_class,predicted_class,score,x1,y1,x2,y2"));
    QCOMPARE(lines.size(), 4);  // header, two issues, the final newline
    QVERIFY(lines[1].startsWith("\"dir/a,b.jpg\","));
    QVERIFY(lines[1].contains(",spurious,1,-1,") || lines[1].contains(",swapped,2,1,"));
    QVERIFY(lines[2].contains(",spurious,1,-1,") || lines[2].contains(",swapped,2,1,"));
    QVERIFY(lines[2].contains(",spurious,1,-1,") ? lines[2].endsWith(",200.0,100.0,250.0,150.0")
                                                 : lines[2].endsWith(",100.0,20.0,160.0,90.0"));
    QCOMPARE(lines[3], QString());
  }
};

QTEST_APPLESS_MAIN(TstLabelIssues)
#include "tst_label_issues.moc"
