// eval-preds' core: the predictions CSV (every malformed row reported with file:line), matching
// rows to images by path or stem, and the output formats.

#include <QtTest>

#include <sstream>

#include "core/train/pred_eval.h"

using namespace stave::train;

class TestPredEval : public QObject {
  Q_OBJECT

 private slots:
  void parsesValidCsv() {
    const std::string text =
        "\xEF\xBB\xBFimage,cls,conf,x1,y1,x2,y2\r\n"
        "a.jpg,0,0.9,1,2,11,12\r\n"
        "\r\n"
        "\"dir,with comma/b.jpg\",2,0.5, 0 , 0 ,5,5\n"
        "./c.jpg,1.0,1e-3,0,0,0,0\n";  // integral float class, zero-size box
    auto r = parsePredictionsCsv(text, "p.csv", 3);
    QVERIFY2(r.ok(), r.errorText().c_str());
    QCOMPARE(int(r->size()), 3);
    const auto& a = r.value()[0];
    QCOMPARE(a.line, 2);
    QCOMPARE(a.image, std::string("a.jpg"));
    QCOMPARE(a.det.cls, 0);
    QCOMPARE(a.det.score, 0.9f);
    QCOMPARE(a.det.x1, 1.0f);
    QCOMPARE(a.det.y2, 12.0f);
    QCOMPARE(r.value()[1].image, std::string("dir,with comma/b.jpg"));
    QCOMPARE(r.value()[1].line, 4);
    QCOMPARE(r.value()[2].image, std::string("c.jpg"));
    QCOMPARE(r.value()[2].det.cls, 1);
    // No header is fine too.
    auto n = parsePredictionsCsv("x.jpg,0,0.5,0,0,1,1", "p.csv", 1);
    QVERIFY(n.ok());
    QCOMPARE(int(n->size()), 1);
  }

  // What predict and val --save-preds write reads back unchanged, awkward names included.
  void writtenRowsReadBack() {
    std::ostringstream out;
    out << kPredictionsCsvHeader;
    writePredictionRow(out, "plain.jpg", 1, 0.5, 1, 2, 3, 4);
    writePredictionRow(out, "a,b \"c\".jpg", 0, 0.25, 0, 0, 10, 20);
    const std::string text = out.str();
    QVERIFY(text.find("\"a,b \"\"c\"\".jpg\",0,0.25,0,0,10,20\n") != std::string::npos);
    auto r = parsePredictionsCsv(text, "p.csv", 2);
    QVERIFY2(r.ok(), r.errorText().c_str());
    QCOMPARE(int(r->size()), 2);
    QCOMPARE(r.value()[0].image, std::string("plain.jpg"));
    QCOMPARE(r.value()[0].det.cls, 1);
    QCOMPARE(r.value()[0].det.y2, 4.0f);
    QCOMPARE(r.value()[1].image, std::string("a,b \"c\".jpg"));
    QCOMPARE(r.value()[1].det.score, 0.25f);
  }

  void malformedRows_data() {
    QTest::addColumn<QString>("row");
    QTest::addColumn<QString>("expected");
    QTest::newRow("too few columns") << "a.jpg,0,0.9,1,2,3"
                                     << "p.csv:2: expected 7 columns";
    QTest::newRow("too many columns") << "a.jpg,0,0.9,1,2,3,4,5"
                                      << "p.csv:2: expected 7 columns";
    QTest::newRow("not a number") << "a.jpg,0,high,1,2,3,4"
                                  << "p.csv:2: conf: 'high' is not a number";
    QTest::newRow("nan") << "a.jpg,0,0.5,nan,2,3,4"
                         << "p.csv:2: x1: must be finite";
    QTest::newRow("class too big") << "a.jpg,3,0.5,1,2,3,4"
                                   << "p.csv:2: cls: '3' is not a class id in [0, 2]";
    QTest::newRow("negative class") << "a.jpg,-1,0.5,1,2,3,4"
                                    << "p.csv:2: cls:";
    QTest::newRow("fractional class") << "a.jpg,1.5,0.5,1,2,3,4"
                                      << "p.csv:2: cls:";
    QTest::newRow("x2 < x1") << "a.jpg,0,0.5,5,2,3,4"
                             << "p.csv:2: x2: x2 (3) is left of x1 (5)";
    QTest::newRow("y2 < y1") << "a.jpg,0,0.5,1,5,3,4"
                             << "p.csv:2: y2: y2 (4) is above y1 (5)";
    QTest::newRow("empty image") << ",0,0.5,1,2,3,4"
                                 << "p.csv:2: image: is empty";
    QTest::newRow("open quote") << "\"a.jpg,0,0.5,1,2,3,4"
                                << "p.csv:2: a quoted field is not closed";
  }

  void malformedRows() {
    QFETCH(QString, row);
    QFETCH(QString, expected);
    const std::string text = "image,cls,conf,x1,y1,x2,y2\n" + row.toStdString() + "\n";
    auto r = parsePredictionsCsv(text, "p.csv", 3);
    QVERIFY(!r.ok());
    QVERIFY2(r.errorText().find(expected.toStdString()) == 0, r.errorText().c_str());
  }

  void everyBadRowIsReported() {
    auto r = parsePredictionsCsv(
        "a,0,0.5,0,0,1,1\nb,x,0.5,0,0,1,1\nc,0,0.5,0,0,1\nd,0,0.5,0,0,1,1\n", "preds.csv", 1);
    QVERIFY(!r.ok());
    QCOMPARE(int(r.errors().size()), 2);
    QCOMPARE(r.errors()[0].line, 2);
    QCOMPARE(r.errors()[1].line, 3);
  }

  void matchesImagesByPathAndStem() {
    std::vector<EvalImage> images(4);
    images[0] = {{"a.jpg", "/data/images/val/a.jpg"}, "a", {{0, 0, 10, 10, 0}}};
    images[1] = {{"sub/b.png"}, "b", {{0, 0, 20, 20, 1}}};
    images[2] = {{"c.jpg"}, "c", {}};
    images[3] = {{"other/c.jpg"}, "c", {{5, 5, 15, 15, 0}}};
    auto rows = parsePredictionsCsv(
        "a,0,0.9,0,0,10,10\n"
        "sub\\b.png,1,0.8,0,0,20,20\n"
        "other/c.jpg,0,0.7,5,5,15,15\n"
        "/data/images/val/a.jpg,0,0.1,50,50,60,60\n",
        "p.csv", 2);
    QVERIFY2(rows.ok(), rows.errorText().c_str());
    auto r = evaluatePredictions(images, rows.value(), "p.csv", 2, 100);
    QVERIFY2(r.ok(), r.errorText().c_str());
    QCOMPARE(r->predictions, int64_t(4));
    QCOMPARE(r->imagesWithPredictions, int64_t(3));
    // Every ground truth found at IoU 1, with one low-scored false positive ranked last:
    // AP = 1 for both classes.
    QCOMPARE(r->metrics.map50, 1.0);
    QCOMPARE(r->metrics.map5095, 1.0);
    QCOMPARE(r->metrics.images, int64_t(4));
    QCOMPARE(r->metrics.instances, int64_t(3));

    // A stem shared by two images, and a name that is not in the split: errors with file:line.
    auto bad = parsePredictionsCsv("c,0,0.9,0,0,1,1\nzzz.jpg,0,0.9,0,0,1,1\n", "p.csv", 2);
    QVERIFY(bad.ok());
    auto e = evaluatePredictions(images, bad.value(), "p.csv", 2, 100);
    QVERIFY(!e.ok());
    QCOMPARE(int(e.errors().size()), 2);
    QVERIFY2(e.errors()[0].toString().find("p.csv:1: image: 'c' matches several images") == 0,
             e.errorText().c_str());
    QVERIFY2(e.errors()[1].toString().find(
                 "p.csv:2: image: 'zzz.jpg' is not an image of this split") == 0,
             e.errorText().c_str());
  }

  void missedImagesCount() {
    // Two images with one box each, predictions only for the first: recall 1/2 at best.
    // Precision 1 at recall .5; recall thresholds 0...5 (51 of 101) read 1: AP = 51/101.
    std::vector<EvalImage> images{{{"a.jpg"}, "a", {{0, 0, 10, 10, 0}}},
                                  {{"b.jpg"}, "b", {{0, 0, 10, 10, 0}}}};
    auto rows = parsePredictionsCsv("a.jpg,0,0.9,0,0,10,10\n", "p.csv", 1);
    auto r = evaluatePredictions(images, rows.value(), "p.csv", 1, 100);
    QVERIFY(r.ok());
    QVERIFY(qAbs(r->metrics.map50 - 51.0 / 101) < 1e-12);
  }

  void outputs() {
    DetectionEvaluator ev(2);
    ev.add(0, {{0, 0, 10, 10, 0.9f, 0}}, {{0, 0, 10, 10, 0}});
    const auto m = ev.compute();
    const std::string table = formatMetricsTable(m, {"cat", "dog"});
    QVERIFY(table.find("mAP50-95") != std::string::npos);
    QVERIFY(table.find("all") != std::string::npos);
    QVERIFY(table.find("cat") != std::string::npos);
    QVERIFY(table.find("dog") == std::string::npos);  // no ground truth: no row
    const auto j = metricsToJson(m, {"cat", "dog"});
    QCOMPARE(j.at("map50").get<double>(), 1.0);
    QCOMPARE(j.at("per_class").size(), size_t(2));
    QCOMPARE(j.at("per_class")[1].at("map50").get<double>(), -1.0);
    QCOMPARE(j.at("per_class")[0].at("name").get<std::string>(), std::string("cat"));
  }
};

QTEST_GUILESS_MAIN(TestPredEval)
#include "tst_pred_eval.moc"
