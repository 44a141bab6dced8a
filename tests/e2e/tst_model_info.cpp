// stave-train model-info: the published YOLOv8 sizes, JSON output and usage errors.
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

  void usageErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::newRow("scale") << QStringList{"model-info", "--scale", "q"};
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
