// The history store on generated long runs (tests/bench/long_run_src): the step curve whole,
// the samples' buckets at every level keeping every value's count, minimum and maximum (a GPU's
// one-sample dips visible at the coarsest level), incremental reading that equals one read of
// the whole file (appends, a half-written last line, a file replaced by a shorter one), a
// rebuild that gives the same answers, and a database a fraction of the log's size. An
// ingestion asked to stop keeps the piece it read, and the next one goes on from there.
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "core/store/store.h"
#include "long_run.h"

namespace fs = std::filesystem;
using stave::store::Store;

namespace {

std::string readAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void writeAll(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

struct Summary {
  size_t steps = 0;
  int64_t samples[stave::store::kSampleLevels] = {};
  double lo = 1e9, hi = -1e9;
  std::string status;
  int epochs = 0;
};

Summary summarise(Store& s, const std::string& run) {
  Summary out;
  auto r = s.findRun(run);
  if (!r) return out;
  out.status = r->status;
  out.epochs = r->epochsDone;
  out.steps = s.curve(r->id, "step/box_loss").size();
  // maxPoints picks the level: 0 the finest; a small number the coarsest.
  const int picks[] = {0, 200, 2};
  for (int l = 0; l < stave::store::kSampleLevels; ++l)
    for (const auto& p : s.samples(r->id, "gpus/3/util", picks[l])) {
      out.samples[l] += p.count;
      out.lo = std::min(out.lo, p.lo);
      out.hi = std::max(out.hi, p.hi);
    }
  return out;
}

}  // namespace

class TstStoreScale : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  fs::path m_runs, m_log;
  stave::bench::LongRunStats m_stats;

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_runs = fs::path(m_dir.path().toStdString()) / "runs";
    m_log = m_runs / "long" / "events.jsonl";
    fs::create_directories(m_log.parent_path());
    stave::bench::LongRunOptions o;
    o.hours = 3;  // 21,600 steps per rank, 21,600 samples per node
    o.ranks = 4;
    o.epochMinutes = 60;
    o.name = "long";
    std::string error;
    QVERIFY2(stave::bench::writeLongRun(o, m_log.string(), &m_stats, &error), error.c_str());
  }

  void wholeRunAtEveryLevel() {
    const std::string db = m_dir.filePath("whole.db").toStdString();
    auto s = Store::open(db);
    QVERIFY(s.ok());
    auto r = s.value()->ingestRuns(m_runs.string());
    QVERIFY2(r.ok(), r.errorText().c_str());
    QCOMPARE(r->events, m_stats.events);  // every line counted, other ranks' steps too
    QVERIFY(r->warnings.empty());
    const Summary sum = summarise(*s.value(), "long");
    QCOMPARE(sum.status, std::string("completed"));
    QCOMPARE(sum.epochs, 3);
    QCOMPARE(int64_t(sum.steps), m_stats.steps);  // the step curve from the first to the last
    const auto id = s.value()->findRun("long")->id;
    const auto curve = s.value()->curve(id, "step/box_loss");
    QCOMPARE(curve.front().step, int64_t(0));
    QCOMPARE(curve.back().step, m_stats.steps - 1);
    // Every sample is in a bucket at every level; GPU 3's dips to 0 (one sample in 1000) are
    // the minimum at the finest and at the coarsest level.
    const int64_t perKey = 3 * 3600 * 2;
    for (int l = 0; l < stave::store::kSampleLevels; ++l) QCOMPARE(sum.samples[l], perKey);
    QCOMPARE(sum.lo, 0.0);
    QVERIFY(sum.hi > 90);
    const auto coarse = s.value()->samples(id, "gpus/3/util", 2);
    QCOMPARE(int(coarse.size()), 6);  // 30-minute buckets
    for (const auto& p : coarse) QCOMPARE(p.lo, 0.0);  // each holds a dip
    const auto fine = s.value()->samples(id, "gpus/3/util");
    int dips = 0;
    for (const auto& p : fine) dips += p.lo == 0.0;
    QCOMPARE(dips, int(perKey / 1000));
    // A range at the finest level: 10 minutes are 60 buckets.
    const double t0 = fine.front().time + 3600;
    QCOMPARE(int(s.value()->samples(id, "gpus/3/util", 0, t0, t0 + 600).size()), 61);
    // Per-core CPU values are not kept; the rest of system_sample is.
    const auto keys = s.value()->sampleKeys(id);
    QVERIFY(std::find(keys.begin(), keys.end(), "cpu_total") != keys.end());
    QVERIFY(std::find(keys.begin(), keys.end(), "ranks/2/rss") != keys.end());
    QVERIFY(std::none_of(keys.begin(), keys.end(), [](const std::string& k) { return k.rfind("cpu/", 0) == 0; }));
    s.value().reset();
    const double ratio = static_cast<double>(fs::file_size(db)) / static_cast<double>(fs::file_size(m_log));
    QVERIFY2(ratio < 0.25, std::to_string(ratio).c_str());
  }

  void incrementalEqualsWhole() {
    const std::string text = readAll(m_log);
    const fs::path runs = fs::path(m_dir.path().toStdString()) / "inc" / "runs";
    const fs::path log = runs / "long" / "events.jsonl";
    auto s = Store::open(m_dir.filePath("inc.db").toStdString());
    QVERIFY(s.ok());
    // In pieces cut anywhere, a line half-written at each cut.
    const size_t cuts[] = {text.size() / 7 + 13, text.size() / 3 + 101, text.size() / 2 + 7, text.size()};
    int64_t events = 0;
    for (size_t cut : cuts) {
      writeAll(log, text.substr(0, cut));
      auto r = s.value()->ingestRun(log.parent_path().string());
      QVERIFY2(r.ok(), r.errorText().c_str());
      QVERIFY(r->warnings.empty());
      events += r->events;
    }
    QCOMPARE(events, m_stats.events);
    // Nothing new: nothing read.
    auto again = s.value()->ingestRun(log.parent_path().string());
    QCOMPARE(again->events, int64_t(0));
    auto whole = Store::open(m_dir.filePath("whole.db").toStdString());
    const Summary a = summarise(*s.value(), "long"), b = summarise(*whole.value(), "long");
    QCOMPARE(a.steps, b.steps);
    for (int l = 0; l < stave::store::kSampleLevels; ++l) QCOMPARE(a.samples[l], b.samples[l]);
    QCOMPARE(a.lo, b.lo);
    QCOMPARE(a.hi, b.hi);
    QCOMPARE(a.status, b.status);
    // Replaced by a shorter file (exist_ok): read again from the start, nothing counted twice.
    writeAll(log, text.substr(0, text.size() / 4));
    auto shorter = s.value()->ingestRun(log.parent_path().string());
    QVERIFY(shorter.ok());
    QCOMPARE(int(shorter->warnings.size()), 1);
    writeAll(log, text);
    QVERIFY(s.value()->ingestRun(log.parent_path().string()).ok());
    const Summary c = summarise(*s.value(), "long");
    QCOMPARE(c.steps, b.steps);
    for (int l = 0; l < stave::store::kSampleLevels; ++l) QCOMPARE(c.samples[l], b.samples[l]);
  }

  void stoppedIngestionGoesOn() {
    auto s = Store::open(m_dir.filePath("stopped.db").toStdString());
    QVERIFY(s.ok());
    std::atomic<bool> stop{true};
    s.value()->setStopFlag(&stop);
    s.value()->setBusyTimeout(60000);  // a stop flag's wait for a lock is the same wait
    auto first = s.value()->ingestRuns(m_runs.string());
    QVERIFY2(first.ok(), first.errorText().c_str());
    QVERIFY(first->stopped);
    const auto part = s.value()->findRun("long");
    QVERIFY(part.ok());
    QVERIFY(part->ingestedBytes > 0);
    QVERIFY(part->ingestedBytes < static_cast<int64_t>(fs::file_size(m_log)));
    QVERIFY(first->events > 0 && first->events < m_stats.events);
    stop = false;
    auto rest = s.value()->ingestRuns(m_runs.string());
    QVERIFY2(rest.ok(), rest.errorText().c_str());
    QVERIFY(!rest->stopped);
    QCOMPARE(first->events + rest->events, m_stats.events);
    auto whole = Store::open(m_dir.filePath("whole.db").toStdString());
    const Summary a = summarise(*s.value(), "long"), b = summarise(*whole.value(), "long");
    QCOMPARE(a.steps, b.steps);
    for (int l = 0; l < stave::store::kSampleLevels; ++l) QCOMPARE(a.samples[l], b.samples[l]);
    QCOMPARE(a.lo, b.lo);
    QCOMPARE(a.status, b.status);
  }

  void rebuildGivesTheSameAnswers() {
    const std::string db = m_dir.filePath("rebuilt.db").toStdString();
    auto rebuilt = stave::store::rebuildStore(db, m_runs.string());
    QVERIFY2(rebuilt.ok(), rebuilt.errorText().c_str());
    auto whole = Store::open(m_dir.filePath("whole.db").toStdString());
    const Summary a = summarise(*rebuilt.value(), "long"), b = summarise(*whole.value(), "long");
    QCOMPARE(a.steps, b.steps);
    for (int l = 0; l < stave::store::kSampleLevels; ++l) QCOMPARE(a.samples[l], b.samples[l]);
    QCOMPARE(rebuilt.value()->runs()[0].bestMap5095, whole.value()->runs()[0].bestMap5095);
  }
};

QTEST_GUILESS_MAIN(TstStoreScale)
#include "tst_store_scale.moc"
