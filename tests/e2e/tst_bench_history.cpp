// The history benchmark runs and prints its JSON (a short run; no timing is asserted: the
// targets are the benchmark's, tests/bench/history): the generator's run is ingested whole.
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

class TstBenchHistory : public QObject {
  Q_OBJECT
 private slots:
  void printsItsJson() {
    QTemporaryDir dir;
    QProcess p;
    p.start(STAVE_BENCH_HISTORY, {"--dir", dir.path(), "--hours", "0.25"});
    QVERIFY(p.waitForFinished(300000));
    QCOMPARE(p.exitCode(), 0);
    const auto j = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
    for (const char* k : {"first_ingest_s", "plain_read_s", "peak_rss_mb", "db_vs_log", "refresh_nothing_ms",
                          "refresh_10s_ms"})
      QVERIFY2(j.contains(k), k);
    QCOMPARE(j["events_ingested"].toInt(), j["lines"].toInt());
    QCOMPARE(j["step_points"].toInt(), 1800 + 20);  // 15 min of steps, then the 10 s appended
    QCOMPARE(j["gpu3_min"].toDouble(), 0.0);        // the one-sample dips are kept
    QVERIFY(j["added_bytes"].toInt() > 0);
  }
};

QTEST_GUILESS_MAIN(TstBenchHistory)
#include "tst_bench_history.moc"
