// stave-train model-info: the published YOLOv8 and YOLO11 sizes, JSON output and usage errors.
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include "e2e/e2e_util.h"

class TestModelInfo : public QObject {
  Q_OBJECT

 private slots:
  void json() {
    auto r = stave::e2e::runStaveTrain(
        {"model-info", "--scale", "s", "--nc", "80", "--imgsz", "640", "--json"}, {}, 60000);
    QCOMPARE(r.exitCode, 0);
    const auto obj = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(obj.value("scale").toString(), QString("s"));
    QCOMPARE(obj.value("params").toInteger(), qint64(11166560));
    QVERIFY(std::abs(obj.value("gflops").toDouble() - 28.6) < 0.015 * 28.6);
  }

  void text() {
    auto r = stave::e2e::runStaveTrain({"model-info", "--scale", "yolov8n"}, {}, 60000);
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("3157200 parameters") && r.out.contains("8.7 GFLOPs"),
             qPrintable(r.out));
  }

  // Ultralytics' parameter counts (nc 80) of YOLO11 and the GFLOPs its docs' table publishes.
  void yolo11_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<qint64>("params");
    QTest::addColumn<double>("gflops");
    QTest::newRow("yolo11n") << "yolo11n" << qint64(2624080) << 6.5;
    QTest::newRow("yolo11s") << "yolo11s" << qint64(9458752) << 21.5;
    QTest::newRow("yolo11m") << "yolo11m.yaml" << qint64(20114688) << 68.0;
    QTest::newRow("yolo11l") << "yolo11l" << qint64(25372160) << 86.9;
    QTest::newRow("yolo11x") << "yolo11x" << qint64(56966176) << 194.9;
  }
  void yolo11() {
    QFETCH(QString, model);
    QFETCH(qint64, params);
    QFETCH(double, gflops);
    auto r = stave::e2e::runStaveTrain({"model-info", "--model", model, "--json"}, {}, 60000);
    QCOMPARE(r.exitCode, 0);
    const auto obj = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(obj.value("model").toString(), model.section('.', 0, 0));
    QCOMPARE(obj.value("params").toInteger(), params);
    QVERIFY2(std::abs(obj.value("gflops").toDouble() - gflops) < 0.015 * gflops, qPrintable(r.out));
  }

  void usageErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::newRow("scale") << QStringList{"model-info", "--scale", "q"};
    QTest::newRow("family") << QStringList{"model-info", "--model", "yolo12n"};
    QTest::newRow("nc") << QStringList{"model-info", "--nc", "0"};
    QTest::newRow("imgsz") << QStringList{"model-info", "--imgsz", "100"};
    QTest::newRow("flag") << QStringList{"model-info", "--bogus"};
  }
  void usageErrors() {
    QFETCH(QStringList, args);
    auto r = stave::e2e::runStaveTrain(args, {}, 60000);
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("model-info"));
  }
};

QTEST_APPLESS_MAIN(TestModelInfo)
#include "tst_model_info.moc"
