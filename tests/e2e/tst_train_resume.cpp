// Exact resume: with deterministic=true on the CPU, 4 epochs straight and 2 + resume 2 give
// the same weights (to 1e-6) and the same results.csv; resuming with more epochs extends the
// run and records the re-planned schedule (keeping the optimiser optimizer=auto chose); stops
// inside an epoch and gradient accumulation across epoch ends resume exactly too.
#include <QtTest/QtTest>

#include "e2e/train_e2e_util.h"

using namespace stave::e2e;

class TstTrainResume : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_data = makeDemoDataset(m_dir.filePath("demo"), 24, 8, 64, 3);
    QVERIFY(!m_data.isEmpty());
    m_cfg = m_dir.filePath("run.yaml");
    QVERIFY(writeTinyConfig(m_cfg, m_data, 64, 4, 8,
                            {"deterministic: true", "threads: 1", "seed: 7", "warmup_epochs: 1"}));
  }

  void straightVersusResumed() {
    const QString a = m_dir.filePath("runs/straight"), b = m_dir.filePath("runs/split");
    auto ra = runStaveTrain({"train", m_cfg, "--run-dir", a}, {}, 300000);
    QVERIFY2(ra.exitCode == 0, qPrintable(ra.err.right(2000)));
    auto rb = runStaveTrain({"train", m_cfg, "--run-dir", b, "--stop-after", "2"}, {}, 300000);
    QVERIFY2(rb.exitCode == 0, qPrintable(rb.err.right(2000)));
    QCOMPARE(readResults(b + "/results.csv").size(), 2);
    const auto stopped = eventsOf(parseEvents(rb.out), "finished");
    QCOMPARE(stopped.size(), 1);
    QCOMPARE(stopped[0]["data"].toObject()["status"].toString(), QString("stopped"));

    auto rc = runStaveTrain({"train", "--run-dir", b, "resume=true"}, {}, 300000);
    QVERIFY2(rc.exitCode == 0, qPrintable(rc.err.right(2000)));
    QCOMPARE(readText(b + "/results.csv"), readText(a + "/results.csv"));
    auto diff = runStaveTrain(
        {"compare-weights", a + "/weights/last.pt", b + "/weights/last.pt", "--json"});
    QVERIFY2(diff.exitCode == 0, qPrintable(diff.err));
    const auto j = QJsonDocument::fromJson(diff.out.toUtf8()).object();
    QVERIFY2(j["model_max_abs_diff"].toDouble() <= 1e-6, qPrintable(diff.out));
    QVERIFY2(j["ema_max_abs_diff"].toDouble() <= 1e-6, qPrintable(diff.out));
  }

  // A run with fewer batches than one accumulation (nbs 64 / batch 8 = 8; 3 batches, no warmup
  // in a 1-epoch run) still takes an optimiser step, at its last batch, as Ultralytics caps
  // accumulate at the run's batches. Before that cap it ended with the weights it started from.
  void shortRunStillSteps() {
    const QString cfg = m_dir.filePath("short.yaml");
    QVERIFY(writeTinyConfig(cfg, m_data, 64, 1, 8,
                            {"deterministic: true", "threads: 1", "seed: 3", "val: false"}));
    const QString start = m_dir.filePath("runs/short-start"), full = m_dir.filePath("runs/short");
    auto rs =
        runStaveTrain({"train", cfg, "--run-dir", start, "--stop-after-batches", "2"}, {}, 300000);
    QVERIFY2(rs.exitCode == 0, qPrintable(rs.err.right(2000)));
    auto rf = runStaveTrain({"train", cfg, "--run-dir", full}, {}, 300000);
    QVERIFY2(rf.exitCode == 0, qPrintable(rf.err.right(2000)));
    auto diff = runStaveTrain(
        {"compare-weights", start + "/weights/last.pt", full + "/weights/last.pt", "--json"});
    QVERIFY2(diff.exitCode == 0, qPrintable(diff.err));
    const auto j = QJsonDocument::fromJson(diff.out.toUtf8()).object();
    QVERIFY2(j["ema_max_abs_diff"].toDouble() > 1e-6, qPrintable(diff.out));
  }

  void resumeExtends() {
    const QString a = m_dir.filePath("runs/straight");
    auto done = runStaveTrain({"train", "--run-dir", a, "resume=true"});
    QCOMPARE(done.exitCode, 2);  // already complete: says how to extend
    QVERIFY(done.err.contains("epochs"));
    auto r = runStaveTrain({"train", "--run-dir", a, "resume=true", "epochs=5"}, {}, 300000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err.right(2000)));
    QCOMPARE(readResults(a + "/results.csv").size(), 5);
    const auto replanned = eventsOf(parseEvents(r.out), "schedule_replanned");
    QCOMPARE(replanned.size(), 1);
    QCOMPARE(replanned[0]["data"].toObject()["new_epochs"].toInt(), 5);
    QCOMPARE(replanned[0]["data"].toObject()["old_epochs"].toInt(), 4);

    // optimizer=auto picked AdamW for this short run (under 10000 iterations); extended past
    // that it would pick SGD, but the resumed run keeps AdamW, whose state last.pt holds.
    auto longer = runStaveTrain(
        {"train", "--run-dir", a, "resume=true", "epochs=10010", "--stop-after", "1"}, {}, 300000);
    QVERIFY2(longer.exitCode == 0, qPrintable(longer.err.right(2000)));
    QCOMPARE(readResults(a + "/results.csv").size(), 6);
    bool kept = false;
    for (const auto& w : eventsOf(parseEvents(longer.out), "warning")) {
      const auto d = w["data"].toObject();
      kept = kept || (d["source"].toString() == "optimizer" &&
                      d["message"].toString().contains("keeps AdamW"));
    }
    QVERIFY2(kept, qPrintable(longer.out.right(3000)));
  }

  void sigtermStopsGracefully() {
    const QString cfg = m_dir.filePath("long.yaml");
    QVERIFY(writeTinyConfig(cfg, m_data, 64, 200, 8, {"threads: 1", "val: false"}));
    const QString run = m_dir.filePath("runs/term");
    QProcess p;
    p.start(QStringLiteral(STAVE_TRAIN_EXE), {"train", cfg, "--run-dir", run});
    QVERIFY(p.waitForStarted(20000));
    QElapsedTimer t;
    t.start();
    while (!QFile::exists(run + "/weights/last.pt") && t.elapsed() < 120000 &&
           p.state() == QProcess::Running) {
      p.waitForReadyRead(200);
    }
    QVERIFY(QFile::exists(run + "/weights/last.pt"));
    p.terminate();  // SIGTERM: finish the step, checkpoint, report stopped, exit 0
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 0);
    const auto finished =
        eventsOf(parseEvents(QString::fromUtf8(p.readAllStandardOutput())), "finished");
    QCOMPARE(finished.size(), 1);
    QCOMPARE(finished[0]["data"].toObject()["status"].toString(), QString("stopped"));
    const int done = finished[0]["data"].toObject()["epochs_completed"].toInt();
    auto r = runStaveTrain(
        {"train", "--run-dir", run, "resume=true", QString("epochs=%1").arg(done + 1)}, {}, 120000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err.right(2000)));
    QCOMPARE(readResults(run + "/results.csv").size(), done + 1);
  }

  void midEpochAndAccumulationResumeIsExact() {
    // Gradient accumulation across epoch ends (24 images, batch 8: 3 batches per epoch, nbs 32:
    // an optimiser step every 4 batches) and stops inside an epoch: every way of splitting the
    // run gives the weights and results.csv of the straight run.
    const QString cfg = m_dir.filePath("accumulate.yaml");
    QVERIFY(writeTinyConfig(
        cfg, m_data, 64, 4, 8,
        {"deterministic: true", "threads: 1", "seed: 7", "nbs: 32", "warmup_epochs: 0"}));
    const QString a = m_dir.filePath("runs/acc-straight"), b = m_dir.filePath("runs/acc-epochs"),
                  c = m_dir.filePath("runs/acc-batches");
    QCOMPARE(runStaveTrain({"train", cfg, "--run-dir", a}, {}, 300000).exitCode, 0);
    QCOMPARE(
        runStaveTrain({"train", cfg, "--run-dir", b, "--stop-after", "2"}, {}, 300000).exitCode, 0);
    QCOMPARE(runStaveTrain({"train", "--run-dir", b, "resume=true"}, {}, 300000).exitCode, 0);
    // The stopped-and-resumed run also records the batches it trains on
    // (STAVE_DEBUG_RECORD_BATCHES, the paired benchmark's trajectory test), named by the
    // iteration, which continues across the resume.
    const QString rec = m_dir.filePath("recorded");
    QVERIFY(QDir().mkpath(rec));
    const QStringList recordEnv{"STAVE_DEBUG_RECORD_BATCHES=" + rec};
    auto first = runStaveTrain({"train", cfg, "--run-dir", c, "--stop-after-batches", "4"}, {},
                               300000, recordEnv);
    QCOMPARE(first.exitCode, 0);
    const auto stopped = eventsOf(parseEvents(first.out), "finished");
    QCOMPARE(stopped.size(), 1);
    QVERIFY2(stopped[0]["data"].toObject()["message"].toString().contains(
                 "during epoch 2 after 1 of 3 batches"),
             qPrintable(first.out.right(1000)));
    QCOMPARE(runStaveTrain({"train", "--run-dir", c, "resume=true", "--stop-after-batches", "4"},
                           {}, 300000, recordEnv)
                 .exitCode,
             0);
    QStringList recorded = QDir(rec).entryList({"batch-*.pt"}, QDir::Files, QDir::Name);
    QStringList expected;
    for (int ni = 0; ni < 8; ++ni) expected << QString("batch-r0-%1.pt").arg(ni, 6, 10, QChar('0'));
    QCOMPARE(recorded, expected);
    for (const QString& name : recorded) {
      QFile f(QDir(rec).filePath(name));
      QVERIFY(f.open(QIODevice::ReadOnly));
      const QByteArray bytes = f.readAll();
      QVERIFY2(bytes.startsWith("PK"), qPrintable(name));  // torch.save()'s zip archive
      QVERIFY2(bytes.size() > 8 * 3 * 64 * 64, qPrintable(name));  // 8 images of 64 px, uint8
      QVERIFY2(bytes.contains("pixels") && bytes.contains("targets"), qPrintable(name));
    }
    QCOMPARE(runStaveTrain({"train", "--run-dir", c, "resume=true"}, {}, 300000).exitCode, 0);
    for (const QString& run : {b, c}) {
      QCOMPARE(readText(run + "/results.csv"), readText(a + "/results.csv"));
      auto diff = runStaveTrain(
          {"compare-weights", a + "/weights/last.pt", run + "/weights/last.pt", "--json"});
      QVERIFY2(diff.exitCode == 0, qPrintable(diff.err));
      const auto j = QJsonDocument::fromJson(diff.out.toUtf8()).object();
      QVERIFY2(j["model_max_abs_diff"].toDouble() <= 1e-6, qPrintable(run + ": " + diff.out));
      QVERIFY2(j["ema_max_abs_diff"].toDouble() <= 1e-6, qPrintable(run + ": " + diff.out));
    }
  }

  void resumeNeedsARun() {
    auto r = runStaveTrain({"train", "--run-dir", m_dir.filePath("runs/none"), "resume=true"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("runs/none"));
    // resume parses as every bool does: yes is a resume, an unreadable value names the key.
    auto yes = runStaveTrain({"train", "--run-dir", m_dir.filePath("runs/none"), "resume=yes"});
    QCOMPARE(yes.exitCode, 2);
    QVERIFY2(yes.err.contains("runs/none"), qPrintable(yes.err));
    auto bad = runStaveTrain({"train", "--run-dir", m_dir.filePath("runs/none"), "resume=maybe"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("resume") && bad.err.contains("maybe"), qPrintable(bad.err));
  }

 private:
  QTemporaryDir m_dir;
  QString m_data, m_cfg;
};

QTEST_GUILESS_MAIN(TstTrainResume)
#include "tst_train_resume.moc"
