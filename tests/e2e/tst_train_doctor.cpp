// The doctor on real CPU runs with planted bottlenecks (docs/doctor.md): a starved loader
// (workers=0 on storage with latency), one rank's slow loader among 2 Gloo ranks, and tiny
// gradient buckets over a high-latency link. Each run's own diagnosis events and
// `stave-train doctor` name the bottleneck and advise the fix; a healthy run gets no finding;
// bad run folders get clear messages.

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

#include "e2e/train_e2e_util.h"

using namespace stave::e2e;

namespace {

// The final diagnosis event of a run folder's event log, or an empty object.
QJsonObject finalDiagnosis(const QString& runDir, int* periodic = nullptr) {
  QJsonObject last;
  int n = 0;
  for (const auto& e : eventsOf(parseEvents(readText(runDir + "/events.jsonl")), "diagnosis")) {
    if (e["data"].toObject()["final"].toBool())
      last = e["data"].toObject();
    else
      ++n;
  }
  if (periodic) *periodic = n;
  return last;
}

QJsonObject findingOf(const QJsonObject& diagnosis, const QString& rule) {
  for (const auto& f : diagnosis["findings"].toArray())
    if (f.toObject()["rule"].toString() == rule) return f.toObject();
  return {};
}

QString rulesOf(const QJsonObject& diagnosis) {
  QStringList r;
  for (const auto& f : diagnosis["findings"].toArray()) r << f.toObject()["rule"].toString();
  return r.join(",") + " | " + diagnosis["summary"].toString();
}

}  // namespace

class TestTrainDoctor : public QObject {
  Q_OBJECT
  QTemporaryDir m_tmp;
  QString m_data;
  QString m_large;  // more images than the loader's recent-image buffer holds

  // Trains the demo at imgsz 64 (cheap steps, so the planted stalls show) and returns the run
  // folder, or "" after recording why.
  QString train(const QString& name, const QStringList& overrides, const QStringList& env,
                int nproc = 1, const QString& data = {}) {
    const QString cfg = m_tmp.filePath(name + ".yaml");
    if (!writeTinyConfig(cfg, data.isEmpty() ? m_data : data, 64, 4, 16,
                         {"val: false", "report_period_s: 2", "sample_period_s: 0.5"}))
      return {};
    const QString runDir = m_tmp.filePath("runs/" + name);
    QStringList args{"train", cfg, "--run-dir", runDir};
    if (nproc > 1) args << "--nproc" << QString::number(nproc);
    args << overrides;
    auto r = runStaveTrain(args, {}, 600000, env);
    if (r.exitCode != 0 || r.crashed) {
      qWarning("%s", qPrintable(r.err.right(3000)));
      return {};
    }
    return runDir;
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_tmp.isValid());
    m_data = makeDemoDataset(m_tmp.filePath("demo"), 256, 8, 640);
    QVERIFY(!m_data.isEmpty());
    m_large = makeDemoDataset(m_tmp.filePath("demo600"), 600, 8, 640);
    QVERIFY(!m_large.isEmpty());
  }

  void starvedLoaderIsDataBound() {
    // Storage with 5 ms per read (a network filesystem), read by the training thread itself. The
    // set is larger than the loader's buffer of recent images, so every epoch reads.
    const QString run = train("starved", {"workers=0", "cache=none", "epochs=2"},
                              {"STAVE_FAULT_SLOW_READ_MS=5"}, 1, m_large);
    QVERIFY(!run.isEmpty());
    int periodic = 0;
    const QJsonObject d = finalDiagnosis(run, &periodic);
    QVERIFY2(periodic >= 2, "a diagnosis every report period");
    const QJsonObject f = findingOf(d, "data_bound");
    QVERIFY2(!f.isEmpty(), qPrintable(rulesOf(d)));
    const QString advice = f["advice_text"].toString();
    // More loader threads only while the CPU has idle cores (other tests may be using them).
    const double cpuBusy = f["evidence"].toObject()["cpu_busy"].toDouble();
    QVERIFY2(advice.contains("cache=ram") && (advice.contains("workers=") || cpuBusy >= 85),
             qPrintable(advice + QString(" (CPU %1% busy)").arg(cpuBusy)));
    QVERIFY(f["evidence"].toObject()["data_wait_share"].toDouble() >= 0.2);

    // The command says the same of the folder, as text and as JSON.
    auto text = runStaveTrain({"doctor", run});
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("data-bound") && text.out.contains("try: ") &&
                 text.out.contains("cache=ram") && text.out.contains("rank 0:"),
             qPrintable(text.out));
    auto json = runStaveTrain({"doctor", run, "--json"});
    QCOMPARE(json.exitCode, 0);
    const QJsonObject j = QJsonDocument::fromJson(json.out.toUtf8()).object();
    QCOMPARE(findingOf(j["report"].toObject(), "data_bound")["advice_text"].toString(), advice);
    QVERIFY(j["periods_active"].toObject()["data_bound"].toInt() >= 1);
    QCOMPARE(j["ranks"].toArray().size(), 1);
  }

  void healthyRunHasNoFinding() {
    const QString run = train("healthy", {"workers=0", "cache=none", "epochs=8"}, {});
    QVERIFY(!run.isEmpty());
    const QJsonObject d = finalDiagnosis(run);
    QVERIFY2(d["findings"].toArray().isEmpty(), qPrintable(rulesOf(d)));
    QVERIFY2(d["summary"].toString().startsWith("no bottleneck found"), qPrintable(rulesOf(d)));
  }

  void slowRankIsTheStraggler() {
    const QString run = train("straggler", {"workers=1"},
                              {"STAVE_FAULT_SLOW_DATA_RANK=1", "STAVE_FAULT_SLOW_DATA_MS=150"}, 2);
    QVERIFY(!run.isEmpty());
    const QJsonObject d = finalDiagnosis(run);
    const QJsonObject f = findingOf(d, "straggler");
    QVERIFY2(!f.isEmpty(), qPrintable(rulesOf(d)));
    QCOMPARE(f["rank"].toInt(), 1);
    QVERIFY2(f["message"].toString().contains("rank 1 waits for data"), qPrintable(f["message"].toString()));
    QVERIFY2(findingOf(d, "communication_bound").isEmpty(), qPrintable(rulesOf(d)));
    auto text = runStaveTrain({"doctor", run});
    QVERIFY2(text.out.contains("straggler (rank 1)"), qPrintable(text.out));
  }

  void tinyBucketsOnASlowLinkAreCommunicationBound() {
    const QString run = train("buckets", {"workers=1", "bucket_mb=0.01", "nbs=32"},
                              {"STAVE_FAULT_ALLREDUCE_LATENCY_MS=2"}, 2);
    QVERIFY(!run.isEmpty());
    const QJsonObject d = finalDiagnosis(run);
    const QJsonObject f = findingOf(d, "communication_bound");
    QVERIFY2(!f.isEmpty(), qPrintable(rulesOf(d)));
    QCOMPARE(f["advice_text"].toString(), QString("bucket_mb=25"));
  }

  void badRunFoldersGetClearMessages() {
    auto missing = runStaveTrain({"doctor", m_tmp.filePath("nowhere")});
    QCOMPARE(missing.exitCode, 2);
    QVERIFY2(missing.err.contains("nowhere") && missing.err.contains("no such folder"),
             qPrintable(missing.err));
    QDir().mkpath(m_tmp.filePath("empty"));
    auto empty = runStaveTrain({"doctor", m_tmp.filePath("empty")});
    QCOMPARE(empty.exitCode, 2);
    QVERIFY2(empty.err.contains("no events.jsonl"), qPrintable(empty.err));
    // A folder named events.jsonl was read as an empty log and "diagnosed".
    QDir().mkpath(m_tmp.filePath("folderlog/events.jsonl"));
    auto folder = runStaveTrain({"doctor", m_tmp.filePath("folderlog")});
    QCOMPARE(folder.exitCode, 2);
    QVERIFY2(folder.err.contains("is a folder, not an event log"), qPrintable(folder.err));

    // Garbage lines, no timing events, one step, NaN timings: a report, never a crash.
    const QString odd = m_tmp.filePath("odd");
    QDir().mkpath(odd);
    QFile f(odd + "/events.jsonl");
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("not json\n{\"type\":5}\n");
    f.write("{\"type\":\"run_start\",\"version\":1,\"rank\":0,\"time\":1000,\"data\":{\"device\":\"cpu\",\"world_size\":1}}\n");
    f.write("{\"type\":\"step\",\"version\":1,\"rank\":0,\"time\":1001,\"data\":{\"epoch\":0,\"iter\":0,\"iters_per_epoch\":4,\"box_loss\":1,\"cls_loss\":1,\"dfl_loss\":1,\"lr\":0.01,\"samples_per_s\":10,\"timing\":{\"data_wait\":null,\"h2d\":0,\"fwd_bwd\":0.5,\"allreduce_wait\":0,\"optimizer\":0,\"total\":0.5}}}\n");
    f.write("{\"type\":\"step\",\"version\":1,\"rank\":0,\"time\":1002,\"data\":{\"epoch\":0,\"iter\":1,\"iters_per_epoch\":4,\"box_loss\":1,\"cls_loss\":1,\"dfl_loss\":1,\"lr\":0.01,\"samples_per_s\":10,\"timing\":{\"data_wait\":0.1,\"h2d\":0,\"fwd_bwd\":0.5,\"allreduce_wait\":0,\"optimizer\":0,\"total\":0.6}}}\n");
    f.close();
    auto r = runStaveTrain({"doctor", odd});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("not enough steps to judge") && r.out.contains("2 line(s)"),
             qPrintable(r.out));
    // The step with a null timing is left out, and said to be (it was dropped without a word).
    QVERIFY2(r.out.contains("1 step event(s)") && r.out.contains("impossible timings"),
             qPrintable(r.out));
    auto j = runStaveTrain({"doctor", odd, "--json"});
    QCOMPARE(j.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(j.out.toUtf8()).object()["bad_lines"].toInt(), 2);
    QCOMPARE(QJsonDocument::fromJson(j.out.toUtf8()).object()["dropped_steps"].toInt(), 1);
  }

  // The recovery benchmark (tests/bench/doctor) runs and prints its JSON; a short version of
  // it. Its target is checked by running the benchmark, not here.
  void recoveryBenchmarkPrintsItsJson() {
    auto r = runStaveTrain({"bench", "doctor", "--data", m_large, "--epochs", "2",
                            "--slow-read-ms", "10", "--out", m_tmp.filePath("bench")},
                           {}, 600000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err.right(3000)));
    const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(j["benchmark"].toString(), QString("doctor"));
    const QJsonObject planted = j["planted"].toObject(), advised = j["advised"].toObject(),
                      ref = j["reference"].toObject();
    QVERIFY2(planted["findings"].toArray().contains(QJsonValue("data_bound")), qPrintable(r.out));
    QVERIFY2(j["advice_text"].toString().contains("cache=ram"), qPrintable(r.out));
    QVERIFY(advised["overrides"].toArray().contains(QJsonValue("cache=ram")));
    QCOMPARE(planted["epoch_s"].toArray().size(), 2);
    QVERIFY(planted["images_per_s"].toDouble() > 0 && advised["images_per_s"].toDouble() > 0);
    QVERIFY2(planted["images_per_s"].toDouble() < ref["images_per_s"].toDouble(), qPrintable(r.out));
    QVERIFY2(advised["data_wait_share"].toDouble() < planted["data_wait_share"].toDouble(),
             qPrintable(r.out));
    QVERIFY(j["recovered_fraction"].isDouble() && j["meets_target"].isBool());
    QVERIFY(QFile::exists(m_tmp.filePath("bench/runs/advised/events.jsonl")));

    auto bad = runStaveTrain({"bench", "doctor", "--epochs", "1"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("--epochs") && bad.err.contains(">= 2"), qPrintable(bad.err));
  }
};

QTEST_GUILESS_MAIN(TestTrainDoctor)
#include "tst_train_doctor.moc"
