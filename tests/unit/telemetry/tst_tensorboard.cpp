// TensorBoard event files: the CRC-32C of the framing, and a round trip through the
// tensorboard package's own reader (EventAccumulator, in the test-only virtual environment
// scripts/setup makes): tags, steps, values and wall times as written.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <cmath>
#include <filesystem>

#include "core/telemetry/event_sink.h"
#include "core/telemetry/tensorboard.h"

using namespace stave::telemetry;
namespace fs = std::filesystem;

namespace {

/// Every scalar in `logdir` as the tensorboard package reads it: tag -> [[step, value, time]].
QJsonObject readBack(const QString& logdir) {
  QProcess p;
  p.start(STAVE_TEST_PYTHON, {STAVE_SOURCE_DIR "/tests/tools/read_tensorboard.py", logdir});
  if (!p.waitForFinished(60000) || p.exitCode() != 0) {
    qWarning("%s: %s", STAVE_TEST_PYTHON, p.readAllStandardError().constData());
    return {};
  }
  return QJsonDocument::fromJson(p.readAllStandardOutput()).object();
}

template <typename T>
Event at(const T& typed, double time, int rank = 0) {
  auto e = toEvent(typed, rank);
  e.time = time;
  return e;
}

}  // namespace

class TestTensorBoard : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY2(QFileInfo(STAVE_TEST_PYTHON).isExecutable(),
             "the test-only Python environment is missing: run scripts/setup (" STAVE_TEST_PYTHON
             ")");
  }

  void crcKnownValues() {
    // The CRC-32C check value, and RFC 3720's 32 zero bytes.
    QCOMPARE(crc32c("123456789", 9), 0xE3069283u);
    const std::string zeros(32, '\0');
    QCOMPARE(crc32c(zeros.data(), zeros.size()), 0x8A9136AAu);
  }

  void scalarsRoundTrip() {
    QTemporaryDir dir;
    const std::string tb = (fs::path(dir.path().toStdString()) / "tb").string();
    {
      auto w = TensorBoardWriter::open(tb);
      QVERIFY2(w.ok(), w.errorText().c_str());
      QVERIFY(w.value()->path().find("tfevents") != std::string::npos);
      w.value()->scalar("custom/a", 0, 1.5, 1000.25);
      w.value()->scalar("custom/a", 7, -2.0, 1001.5);
      w.value()->scalar("custom/a", 8, std::nan(""), 1002.0);  // a gap, not a point
      w.value()->scalar("custom/big", 1LL << 40, 3.0, 1003.0);

      StepEvent s;
      s.epoch = 1;
      s.iter = 2;
      s.itersPerEpoch = 5;
      s.boxLoss = 1.25;
      s.clsLoss = 2.5;
      s.dflLoss = 0.75;
      s.lr = 0.01;
      s.samplesPerSec = 123.0;
      w.value()->writeEvent(at(s, 2000));
      s.boxLoss = 99;  // rank 1's step: not a curve
      w.value()->writeEvent(at(s, 2001, 1));
      EpochEndEvent ee;
      ee.epoch = 0;
      ee.epochs = 3;
      ee.boxLoss = 1.5;
      ee.clsLoss = 2.0;
      ee.dflLoss = 1.0;
      ee.epochTime = 12.5;
      ee.lr = {0.1, 0.2, 0.3};
      w.value()->writeEvent(at(ee, 2002));
      ValidationEvent v;
      v.epoch = 0;
      v.precision = 0.5;
      v.recall = 0.25;
      v.map50 = 0.375;
      v.map5095 = 0.125;
      w.value()->writeEvent(at(v, 2003));
      Event g;
      g.type = "gpu_sample";
      g.rank = -1;
      g.time = 2004;
      g.data = {{"gpus", {{{"index", 0}, {"util", 40}}, {{"index", 3}, {"util", 90}}}}};
      w.value()->writeEvent(g);
      g.time = 2005;
      g.data["gpus"][0]["util"] = 60;
      w.value()->writeEvent(g);
      QCOMPARE(w.value()->failures(), int64_t(0));
    }
    const auto all = readBack(QString::fromStdString(tb));
    QVERIFY2(!all.isEmpty(), "the tensorboard reader returned nothing");

    const auto a = all["custom/a"].toArray();
    QCOMPARE(a.size(), 2);
    QCOMPARE(a[0].toArray()[0].toInt(), 0);
    QCOMPARE(a[0].toArray()[1].toDouble(), 1.5);
    QCOMPARE(a[0].toArray()[2].toDouble(), 1000.25);
    QCOMPARE(a[1].toArray()[0].toInt(), 7);
    QCOMPARE(a[1].toArray()[1].toDouble(), -2.0);
    QCOMPARE(all["custom/big"].toArray()[0].toArray()[0].toDouble(), double(1LL << 40));

    const auto box = all["step/box_loss"].toArray();
    QCOMPARE(box.size(), 1);
    QCOMPARE(box[0].toArray()[0].toInt(), 7);  // epoch 1 x 5 + iteration 2
    QCOMPARE(box[0].toArray()[1].toDouble(), 1.25);
    QCOMPARE(all["step/samples_per_s"].toArray()[0].toArray()[1].toDouble(), 123.0);
    // Epoch-level scalars at the 1-based epoch, as in results.csv.
    QCOMPARE(all["train/box_loss"].toArray()[0].toArray()[0].toInt(), 1);
    QCOMPARE(all["train/box_loss"].toArray()[0].toArray()[1].toDouble(), 1.5);
    QVERIFY(std::abs(all["lr/pg2"].toArray()[0].toArray()[1].toDouble() - 0.3) < 1e-6);
    QCOMPARE(all["time/epoch_s"].toArray()[0].toArray()[1].toDouble(), 12.5);
    QCOMPARE(all["metrics/mAP50-95(B)"].toArray()[0].toArray()[1].toDouble(), 0.125);
    QCOMPARE(all["metrics/recall(B)"].toArray()[0].toArray()[1].toDouble(), 0.25);
    // GPU samples keyed by the GPU's index.
    const auto g0 = all["gpu/0/util"].toArray();
    QCOMPARE(g0.size(), 2);
    QCOMPARE(g0[1].toArray()[1].toDouble(), 60.0);
    QCOMPARE(all["gpu/3/util"].toArray()[0].toArray()[1].toDouble(), 90.0);
  }

  // The sink hands TensorBoard the events it writes: a typed write's, and a relayed line's
  // (rank 1's step is not a curve; its GPU sample is).
  void sinkFeedsEvents() {
    QTemporaryDir dir;
    {
      EventSink sink;
      QVERIFY(sink.openTensorBoard(dir.path().toStdString()).ok());
      StepEvent s;
      s.iter = 3;
      s.itersPerEpoch = 10;
      s.boxLoss = 0.5;
      sink.write(at(s, 3000));
      s.boxLoss = 7;
      const std::string relayedStep = encodeEvent(at(s, 3001, 1));
      sink.writeLine(relayedStep, decodeEvent(relayedStep).value());
      Event g;
      g.type = "gpu_sample";
      g.rank = -1;
      g.time = 3002;
      g.data = {{"gpus", {{{"index", 1}, {"util", 75}}}}};
      const std::string relayedSample = encodeEvent(g);
      sink.writeLine(relayedSample, decodeEvent(relayedSample).value());
    }
    const auto all = readBack(dir.path());
    const auto box = all["step/box_loss"].toArray();
    QCOMPARE(box.size(), 1);
    QCOMPARE(box[0].toArray()[0].toInt(), 3);
    QCOMPARE(box[0].toArray()[1].toDouble(), 0.5);
    QCOMPARE(box[0].toArray()[2].toDouble(), 3000.0);
    const auto util = all["gpu/1/util"].toArray();
    QCOMPARE(util.size(), 1);
    QCOMPARE(util[0].toArray()[1].toDouble(), 75.0);
    QCOMPARE(util[0].toArray()[2].toDouble(), 3002.0);
  }

  // A second writer in the same folder (a resumed run) adds a file; the reader merges both.
  void resumedRunAddsAFile() {
    QTemporaryDir dir;
    const std::string tb = dir.path().toStdString();
    {
      auto w = TensorBoardWriter::open(tb);
      w.value()->scalar("x", 1, 1.0, 10);
    }
    QTest::qWait(1100);  // file names carry the second and the pid
    {
      auto w = TensorBoardWriter::open(tb);
      w.value()->scalar("x", 2, 2.0, 20);
    }
    int files = 0;
    for (const auto& e : fs::directory_iterator(tb)) files += e.path().filename().string().find("tfevents") != std::string::npos;
    QCOMPARE(files, 2);
    const auto x = readBack(dir.path())["x"].toArray();
    QCOMPARE(x.size(), 2);
    QCOMPARE(x[1].toArray()[1].toDouble(), 2.0);
  }

  void unwritableFolderIsNamed() {
    QTemporaryDir dir;
    const std::string file = (fs::path(dir.path().toStdString()) / "plain").string();
    { std::FILE* f = std::fopen(file.c_str(), "w"); std::fclose(f); }
    auto w = TensorBoardWriter::open(file + "/tb");
    QVERIFY(!w.ok());
    QVERIFY2(w.errorText().find(file) != std::string::npos, w.errorText().c_str());
  }
};

QTEST_GUILESS_MAIN(TestTensorBoard)
#include "tst_tensorboard.moc"
