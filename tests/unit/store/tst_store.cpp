// The history store: ingestion of events.jsonl (incremental, half-written lines, bad lines,
// NaN, unknown versions), queries, annotations that survive, schema version rules, bad files,
// and a rebuild that equals the live store.
#include <QtTest/QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <atomic>

#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/base/hash.h"
#include "core/store/store.h"
#include "core/telemetry/events.h"

using namespace stave::store;
namespace fs = std::filesystem;
namespace tel = stave::telemetry;

namespace {

std::string line(const tel::Event& e) { return tel::encodeEvent(e) + "\n"; }

template <typename T>
std::string ev(const T& typed, double time, int rank = 0) {
  auto e = tel::toEvent(typed, rank);
  e.time = time;
  return line(e);
}

/// A run of `epochs` epochs, 2 steps each, validated every epoch, finished.
std::string runEvents(int epochs, double map0, const std::string& name, bool finish = true) {
  std::string s;
  tel::RunStartEvent rs;
  rs.config = {{"model", "yolov8n"}, {"imgsz", 320}, {"batch", 8}, {"epochs", epochs},
               {"lr0", 0.01}, {"name", name}};
  rs.dataset.yaml = "/data/" + name + ".yaml";
  rs.versions["stave"] = "0.1.0";
  rs.deviceNames = {"cpu"};
  rs.host = "node-" + name;
  rs.dataset.contentHash = "hash-of-" + name;
  s += ev(rs, 1000);
  for (int e = 0; e < epochs; ++e) {
    for (int i = 0; i < 2; ++i) {
      tel::StepEvent st;
      st.epoch = e;
      st.iter = i;
      st.itersPerEpoch = 2;
      st.boxLoss = 2.0 - 0.1 * e;
      st.samplesPerSec = 10 + i;
      s += ev(st, 1000 + e * 10 + i);
    }
    tel::EpochEndEvent ee;
    ee.epoch = e;
    ee.epochs = epochs;
    ee.boxLoss = 2.0 - 0.1 * e;
    ee.lr = {0.01, 0.01, 0.01};
    s += ev(ee, 1000 + e * 10 + 5);
    tel::ValidationEvent v;
    v.epoch = e;
    v.map50 = map0 + 0.1 * e;
    v.map5095 = (map0 + 0.1 * e) / 2;
    s += ev(v, 1000 + e * 10 + 6);
  }
  if (finish) {
    tel::FinishedEvent f;
    f.epochs = epochs;
    f.epochsCompleted = epochs;
    f.text = {stave::Text("train.times", {{"train", stave::Text("duration.s", {{"n", "1.5"}})},
                                          {"val", stave::Text("duration.s", {{"n", "0.2"}})}})};
    f.message = stave::english(f.text);
    s += ev(f, 1000 + epochs * 10);
  }
  return s;
}

void write(const fs::path& p, const std::string& text, bool append = false) {
  fs::create_directories(p.parent_path());
  std::ofstream o(p, append ? std::ios::app | std::ios::binary : std::ios::binary);
  o << text;
}

}  // namespace

class TestStore : public QObject {
  Q_OBJECT

 private slots:
  void ingestAndQuery() {
    QTemporaryDir dir;
    const fs::path runs = fs::path(dir.path().toStdString()) / "runs";
    write(runs / "train" / "events.jsonl", runEvents(3, 0.2, "train"));
    write(runs / "train2" / "events.jsonl", runEvents(2, 0.5, "train2"));
    auto s = Store::open(Store::defaultPath(dir.path().toStdString()));
    QVERIFY2(s.ok(), s.errorText().c_str());
    auto r = s.value()->ingestRuns(runs.string());
    QVERIFY2(r.ok(), r.errorText().c_str());
    QCOMPARE(r->runsUpdated, 2);
    auto all = s.value()->runs();
    QCOMPARE(int(all.size()), 2);
    auto t = s.value()->findRun("train2");
    QVERIFY(t.ok());
    QCOMPARE(t->status, std::string("completed"));
    // How it ended, in English and as catalog messages (the studio's language), both kept.
    QCOMPARE(t->message, std::string("training 1.5 s, validation 0.2 s"));
    QCOMPARE(t->messageText.size(), size_t(1));
    QCOMPARE(t->messageText[0].id, std::string("train.times"));
    QCOMPARE(stave::english(t->messageText), t->message);
    QCOMPARE(t->epochsDone, 2);
    QCOMPARE(t->model, std::string("yolov8n"));
    QCOMPARE(t->imgsz, int64_t(320));
    QCOMPARE(t->host, std::string("node-train2"));
    QCOMPARE(t->datasetHash, std::string("hash-of-train2"));
    QVERIFY(std::abs(t->bestMap50 - 0.6) < 1e-9);
    QCOMPARE(t->bestEpoch, 1);
    QVERIFY(std::abs(t->samplesPerSec - 10.5) < 1e-9);
    const auto curve = s.value()->curve(t->id, "metrics/mAP50(B)");
    QCOMPARE(int(curve.size()), 2);
    QVERIFY(std::abs(curve[1].value - 0.6) < 1e-9);
    QCOMPARE(int(s.value()->curve(t->id, "step/box_loss").size()), 4);
    // "train" is both a name and a prefix of train2: the exact name wins; "tr" is ambiguous.
    QCOMPARE(s.value()->findRun("train")->name, std::string("train"));
    auto amb = s.value()->findRun("tr");
    QVERIFY(!amb.ok());
    QVERIFY(amb.errorText().find("several runs") != std::string::npos);
  }

  void incrementalAndHalfWrittenLines() {
    QTemporaryDir dir;
    const fs::path run = fs::path(dir.path().toStdString()) / "runs" / "live";
    const std::string all = runEvents(2, 0.3, "live", false);
    const size_t cut = all.size() / 2 + 7;  // in the middle of a line
    write(run / "events.jsonl", all.substr(0, cut));
    auto s = Store::open(dir.filePath("stave.db").toStdString());
    QVERIFY(s.ok());
    auto r1 = s.value()->ingestRun(run.string());
    QVERIFY(r1.ok());
    QVERIFY(r1->warnings.empty());  // the cut line is waited for, not reported
    const auto first = s.value()->findRun("live").value();
    QCOMPARE(first.status, std::string("running"));
    write(run / "events.jsonl", all.substr(cut), true);
    auto r2 = s.value()->ingestRun(run.string());
    QVERIFY(r2.ok());
    QVERIFY(r2->events > 0);
    const auto after = s.value()->findRun("live").value();
    QCOMPARE(after.epochsDone, 2);
    QCOMPARE(after.ingestedBytes, int64_t(all.size()));
    // Nothing new: nothing done.
    QCOMPARE(s.value()->ingestRun(run.string())->events, int64_t(0));
  }

  void badLinesAreSkippedAndNamed() {
    QTemporaryDir dir;
    const fs::path run = fs::path(dir.path().toStdString()) / "runs" / "bad";
    std::string text = runEvents(1, 0.3, "bad", false);
    text += "{\"type\":\"step\",\"version\":1,\"rank\":0,\"ti\n";             // cut by a kill -9
    text += "{\"type\":\"step\",\"version\":99,\"rank\":0,\"time\":1,\"data\":{}}\n";  // newer
    tel::ValidationEvent v;
    v.epoch = 1;
    v.map50 = std::nan("");
    v.map5095 = std::nan("");
    text += ev(v, 2000);  // NaN metrics are stored as gaps
    write(run / "events.jsonl", text);
    auto s = Store::open(dir.filePath("stave.db").toStdString());
    auto r = s.value()->ingestRun(run.string());
    QVERIFY2(r.ok(), r.errorText().c_str());
    QCOMPARE(int(r->warnings.size()), 2);
    QVERIFY(r->warnings[0].find("events.jsonl:") != std::string::npos);
    // Each warning also as catalog messages (History shows them in its language), the same words.
    QCOMPARE(r->warningTexts.size(), r->warnings.size());
    for (size_t i = 0; i < r->warnings.size(); ++i) {
      QVERIFY(!r->warningTexts[i].empty());
      QVERIFY2(r->warningTexts[i][0].id.rfind("store.", 0) == 0, r->warningTexts[i][0].id.c_str());
      QCOMPARE(stave::english(r->warningTexts[i]), r->warnings[i]);
    }
    const auto rec = s.value()->findRun("bad").value();
    QCOMPARE(rec.badLines, int64_t(2));
    QCOMPARE(int(s.value()->curve(rec.id, "metrics/mAP50(B)").size()), 1);  // the NaN one left out
  }

  // One bad run never hides the others (what `stave-train history` lists): a line with a
  // number no double holds (1e999, an abort before), an events.jsonl that ends in a 10 GB
  // sparse hole with no newline (bad_alloc before, and no run listed at all), and an
  // events.jsonl that is a FIFO. Each bad line is skipped and named; the rest is read.
  void oneBadRunNeverHidesTheOthers() {
    QTemporaryDir dir;
    const fs::path runs = fs::path(dir.path().toStdString()) / "runs";
    write(runs / "a_good" / "events.jsonl", runEvents(2, 0.5, "a_good"));
    std::string overflow = runEvents(2, 0.3, "b_overflow");
    overflow.insert(overflow.find('\n') + 1,
                    "{\"type\":\"validation\",\"version\":1,\"rank\":0,\"time\":1e999,"
                    "\"data\":{\"epoch\":0,\"map50\":1e999}}\n");
    write(runs / "b_overflow" / "events.jsonl", overflow);
    const fs::path holey = runs / "c_hole" / "events.jsonl";
    const std::string before = runEvents(1, 0.4, "c_hole", false);
    write(holey, before);
    // 10 GB of hole at the end, no newline (ftruncate: sparse, costs no disk).
    QCOMPARE(::truncate(holey.c_str(), int64_t{10} << 30), 0);
    // The good run's title and notes file a FIFO: not waited on, said so.
    QCOMPARE(::mkfifo((runs / "a_good" / kAnnotationsFile).c_str(), 0600), 0);
    // A hole in the middle (1 GB), then a newline and the rest of the run: read on after it.
    const fs::path mid = runs / "e_midhole" / "events.jsonl";
    const std::string all = runEvents(2, 0.6, "e_midhole");
    const size_t half = all.find("\"epoch_end\"");
    const size_t cut = all.rfind('\n', half) + 1;  // after a whole line
    write(mid, all.substr(0, cut));
    QCOMPARE(::truncate(mid.c_str(), static_cast<off_t>(cut + (size_t{1} << 30))), 0);
    write(mid, "\n" + all.substr(cut), true);
    fs::create_directories(runs / "d_fifo");
    QCOMPARE(::mkfifo((runs / "d_fifo" / "events.jsonl").c_str(), 0600), 0);

    auto s = Store::open(Store::defaultPath(dir.path().toStdString()));
    QVERIFY2(s.ok(), s.errorText().c_str());
    auto r = s.value()->ingestRuns(runs.string());
    QVERIFY2(r.ok(), r.errorText().c_str());
    std::string warnings;
    for (const auto& w : r->warnings) warnings += w + "\n";
    auto names = [&] {
      std::vector<std::string> n;
      for (const auto& run : s.value()->runs()) n.push_back(run.name);
      std::sort(n.begin(), n.end());
      return n;
    };
    QCOMPARE(names(), (std::vector<std::string>{"a_good", "b_overflow", "c_hole", "e_midhole"}));
    // The overflowing line: skipped, named by file and line; the run read to its end.
    QVERIFY2(warnings.find("b_overflow/events.jsonl:2: skipped:") != std::string::npos,
             warnings.c_str());
    const auto b = s.value()->findRun("b_overflow").value();
    QCOMPARE(b.status, std::string("completed"));
    QCOMPARE(b.epochsDone, 2);
    QCOMPARE(b.badLines, int64_t(1));
    // The hole: one line over the cap, skipped; the events before it kept, and not read again.
    QVERIFY2(warnings.find("c_hole/events.jsonl:" +
                           std::to_string(std::count(before.begin(), before.end(), '\n') + 1) +
                           ": skipped: a line longer than") != std::string::npos,
             warnings.c_str());
    const auto c = s.value()->findRun("c_hole").value();
    QCOMPARE(c.epochsDone, 1);
    QCOMPARE(c.ingestedBytes, int64_t{10} << 30);
    const auto e = s.value()->findRun("e_midhole").value();
    QCOMPARE(e.status, std::string("completed"));
    QCOMPARE(e.epochsDone, 2);
    QCOMPARE(e.badLines, int64_t(1));
    QVERIFY2(warnings.find(std::string(kAnnotationsFile) + ": is a FIFO") != std::string::npos,
             warnings.c_str());
    // The FIFO: not read (never waited on), said so.
    QVERIFY2(warnings.find("d_fifo: not read: " + (runs / "d_fifo" / "events.jsonl").string() + ": is a FIFO") != std::string::npos,
             warnings.c_str());
    auto again = s.value()->ingestRuns(runs.string());
    QVERIFY(again.ok());
    QCOMPARE(again->events, int64_t(0));
  }

  void annotationsAndTextRoundTrip() {
    QTemporaryDir dir;
    const fs::path runs = fs::path(dir.path().toStdString()) / "runs";
    const std::string name = "実験 'quote\" ; DROP TABLE runs; --";
    write(runs / name / "events.jsonl", runEvents(1, 0.1, name));
    auto s = Store::open(dir.filePath("stave.db").toStdString());
    QVERIFY(s.value()->ingestRuns(runs.string()).ok());
    auto rec = s.value()->findRun(name);
    QVERIFY2(rec.ok(), rec.errorText().c_str());
    QVERIFY(s.value()->setTags(rec->id, {"基线", "it's", "a\"b"}).ok());
    QVERIFY(s.value()->setNotes(rec->id, "注释; DELETE FROM runs").ok());
    // More events later: the annotations stay.
    write(runs / name / "events.jsonl", ev(tel::WarningEvent{"w", "x"}, 3000), true);
    QVERIFY(s.value()->ingestRuns(runs.string()).ok());
    rec = s.value()->findRun(name);
    QCOMPARE(rec->tags, (std::vector<std::string>{"基线", "it's", "a\"b"}));
    QCOMPARE(rec->notes, std::string("注释; DELETE FROM runs"));
    QCOMPARE(int(s.value()->runs().size()), 1);
  }

  void badDatabaseFiles() {
    QTemporaryDir dir;
    const std::string db = dir.filePath("stave.db").toStdString();
    write(db, "this is not sqlite, just text that is long enough to have a header............");
    auto notDb = Store::open(db);
    QVERIFY(!notDb.ok());
    QVERIFY2(notDb.errorText().find("not an SQLite database") != std::string::npos &&
                 notDb.errorText().find(db) != std::string::npos,
             notDb.errorText().c_str());
    fs::remove(db);
    {
      auto s = Store::open(db);
      QVERIFY(s.ok());
    }
    // A database written by a newer Stave is refused, unchanged.
    sqlite3* raw = nullptr;
    QCOMPARE(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
    QCOMPARE(sqlite3_exec(raw, "PRAGMA user_version = 7", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(raw);
    auto newer = Store::open(db);
    QVERIFY(!newer.ok());
    QVERIFY2(newer.errorText().find("schema version 7") != std::string::npos &&
                 newer.errorText().find("up to version " + std::to_string(stave::store::kSchemaVersion)) != std::string::npos,
             newer.errorText().c_str());
    // A negative version ("table runs already exists" before): named, with the way out.
    QCOMPARE(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
    QCOMPARE(sqlite3_exec(raw, "PRAGMA user_version = -1", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(raw);
    auto negative = Store::open(db);
    QVERIFY(!negative.ok());
    QVERIFY2(negative.errorText().find("schema version -1") != std::string::npos &&
                 negative.errorText().find("--rebuild") != std::string::npos,
             negative.errorText().c_str());
    auto folder = Store::open(dir.path().toStdString());
    QVERIFY(!folder.ok());
    QVERIFY(folder.errorText().find("is a folder") != std::string::npos);
    // Each as catalog messages too, saying the same.
    for (const auto* r : {&notDb.errors(), &newer.errors(), &negative.errors(), &folder.errors()}) {
      QCOMPARE(r->size(), size_t(1));
      QVERIFY(!r->front().text.empty());
      QCOMPARE(stave::english(r->front().text), r->front().message);
    }
    QCOMPARE(notDb.errors()[0].text[0].id, std::string("store.not_sqlite"));
    QCOMPARE(newer.errors()[0].text[0].id, std::string("store.schema_newer"));
    QCOMPARE(negative.errors()[0].text[0].id, std::string("store.schema_negative"));
  }

  void rebuildEqualsLive() {
    QTemporaryDir dir;
    const fs::path runs = fs::path(dir.path().toStdString()) / "runs";
    write(runs / "a" / "events.jsonl", runEvents(3, 0.2, "a"));
    write(runs / "b" / "events.jsonl", runEvents(2, 0.4, "b", false));
    const std::string db = dir.filePath("stave.db").toStdString();
    std::vector<RunRecord> live;
    std::vector<MetricPoint> liveCurve;
    {
      auto s = Store::open(db);
      QVERIFY(s.value()->ingestRuns(runs.string()).ok());
      live = s.value()->runs();
      liveCurve = s.value()->curve(s.value()->findRun("a")->id, "train/box_loss");
    }
    // Corrupt the file's header, then rebuild: the old file is kept aside.
    {
      std::fstream f(db, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(0);
      f << "garbage garbage!";
    }
    QVERIFY(!Store::open(db).ok());
    IngestReport report;
    auto rebuilt = rebuildStore(db, runs.string(), &report);
    QVERIFY2(rebuilt.ok(), rebuilt.errorText().c_str());
    QCOMPARE(report.runsUpdated, 2);
    const auto again = rebuilt.value()->runs();
    QCOMPARE(again.size(), live.size());
    for (size_t i = 0; i < live.size(); ++i) {
      QCOMPARE(again[i].name, live[i].name);
      QCOMPARE(again[i].status, live[i].status);
      QCOMPARE(again[i].bestMap5095, live[i].bestMap5095);
      QCOMPARE(again[i].ingestedBytes, live[i].ingestedBytes);
    }
    const auto curve = rebuilt.value()->curve(rebuilt.value()->findRun("a")->id, "train/box_loss");
    QCOMPARE(curve.size(), liveCurve.size());
    bool aside = false;
    for (const auto& e : fs::directory_iterator(dir.path().toStdString()))
      aside = aside || e.path().filename().string().rfind("stave.db.broken-", 0) == 0;
    QVERIFY(aside);
  }

  void concurrentReaderWhileWriting() {
    QTemporaryDir dir;
    const fs::path run = fs::path(dir.path().toStdString()) / "runs" / "c";
    const std::string db = dir.filePath("stave.db").toStdString();
    auto writer = Store::open(db);
    auto reader = Store::open(db);
    QVERIFY(writer.ok() && reader.ok());
    std::string all = runEvents(20, 0.1, "c");
    size_t done = 0;
    for (int part = 0; part < 5; ++part) {
      const size_t upto = part == 4 ? all.size() : all.size() * (part + 1) / 5;
      write(run / "events.jsonl", all.substr(done, upto - done), true);
      done = upto;
      QVERIFY(writer.value()->ingestRun(run.string()).ok());
      const auto seen = reader.value()->runs();  // reads the committed state, never a half one
      QCOMPARE(int(seen.size()), 1);
      QVERIFY(seen[0].ingestedBytes <= static_cast<int64_t>(done));
    }
    QCOMPARE(reader.value()->findRun("c")->status, std::string("completed"));
  }

  // Two connections that open a new file at once (the studio's History ingest and its Run page)
  // both make it: the second finds the tables made, never "table runs already exists".
  void twoConnectionsMakeOneNewFile() {
    for (int round = 0; round < 40; ++round) {
      QTemporaryDir dir;
      const std::string db = dir.filePath("stave.db").toStdString();
      std::string errors[2];
      std::atomic<int> ready{0};
      auto openIt = [&](int i) {
        ++ready;
        while (ready.load() < 2) std::this_thread::yield();
        auto s = Store::open(db);
        if (!s.ok()) errors[i] = s.errors().front().toString();
      };
      std::thread a(openIt, 0), b(openIt, 1);
      a.join();
      b.join();
      QVERIFY2(errors[0].empty() && errors[1].empty(),
               qPrintable(QString::fromStdString(errors[0] + " | " + errors[1])));
      auto again = Store::open(db);
      QVERIFY(again.ok());
      QVERIFY(again.value()->runs().empty());
    }
  }

  // A version-1 database (checked in, written by the previous schema) of a project that was
  // then moved: it upgrades in place, keeps runs, metrics, tags and notes, re-associates the
  // run folders by name, and reads nothing twice.
  void migratesFromVersion1() {
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    fs::copy(fs::path(STAVE_SOURCE_DIR) / "tests/unit/store/data/v1", root,
             fs::copy_options::recursive);
    const std::string db = (root / "stave.db").string();
    {
      sqlite3* raw = nullptr;
      QCOMPARE(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
      sqlite3_stmt* q = nullptr;
      sqlite3_prepare_v2(raw, "PRAGMA user_version", -1, &q, nullptr);
      QCOMPARE(sqlite3_step(q), SQLITE_ROW);
      QCOMPARE(sqlite3_column_int(q, 0), 1);
      sqlite3_finalize(q);
      sqlite3_close(raw);
    }
    auto s = Store::open(db);
    QVERIFY2(s.ok(), s.errorText().c_str());
    auto before = s.value()->findRun("run-lr0.01");
    QVERIFY2(before.ok(), before.errorText().c_str());
    QCOMPARE(before->tags, (std::vector<std::string>{"baseline", "低学习率"}));
    QCOMPARE(before->notes, std::string("first try; it's \"quoted\""));
    QCOMPARE(before->title, std::string());
    QCOMPARE(before->configHash, stave::hashHex(before->configJson));  // v5: the one hash
    QCOMPARE(before->epochsDone, 2);
    QCOMPARE(before->sessions.size(), size_t(1));  // the story, told from the kept events
    QVERIFY(before->sessions[0] != "running" || before->status == "running");
    const auto loss = s.value()->curve(before->id, "train/box_loss");
    QCOMPARE(int(loss.size()), 2);
    QVERIFY(before->dir.rfind("/srv/ab/", 0) == 0);  // where it was trained
    auto r = s.value()->ingestRuns((root / "runs").string());
    QVERIFY2(r.ok(), r.errorText().c_str());
    QCOMPARE(r->events, int64_t(0));  // nothing read twice
    const auto all = s.value()->runs();
    QCOMPARE(int(all.size()), 2);
    for (const auto& run : all) QVERIFY(run.dir.rfind(root.string(), 0) == 0);
    QCOMPARE(int(s.value()->curve(before->id, "train/box_loss").size()), 2);
    // The new column works on the migrated file.
    QVERIFY(s.value()->setTitle(before->id, "基线 lr 0.01").ok());
    QCOMPARE(s.value()->findRun("run-lr0.01")->title, std::string("基线 lr 0.01"));
    s.value().reset();
    auto again = Store::open(db);  // now the current version: opens without migrating
    QVERIFY(again.ok());
    QCOMPARE(int(again.value()->runs().size()), 2);
  }

  // Issue 29, defect 9: a run stopped, crashed (its process killed: no end) and resumed to the
  // end tells that story; what it trained with (run_start's resolved) is kept.
  void storyOfAResumedRun() {
    QTemporaryDir dir;
    const fs::path runs = fs::path(dir.path().toStdString()) / "runs";
    const fs::path log = runs / "r1" / "events.jsonl";
    tel::RunStartEvent rs;
    rs.config = {{"epochs", 3}, {"lr0", 0.01}, {"optimizer", "auto"}};
    rs.resolved = {{"optimizer", "AdamW"}, {"lr0", 0.000556}};
    tel::FinishedEvent stopped;
    stopped.status = tel::RunStatus::Stopped;
    tel::FinishedEvent done;
    write(log, ev(rs, 1000) + ev(stopped, 1010) + ev(rs, 1020));  // then killed: no end
    auto s = Store::open((fs::path(dir.path().toStdString()) / "stave.db").string());
    QVERIFY(s.ok());
    QVERIFY(s.value()->ingestRuns(runs.string()).ok());
    QCOMPARE(s.value()->findRun("r1")->sessions, (std::vector<std::string>{"stopped", "running"}));
    write(log, ev(rs, 1030) + ev(done, 1040), true);  // resumed to the end
    QVERIFY(s.value()->ingestRuns(runs.string()).ok());
    const auto r = s.value()->findRun("r1");
    QCOMPARE(r->sessions, (std::vector<std::string>{"stopped", "crashed", "completed"}));
    QCOMPARE(r->status, std::string("completed"));
    const auto resolved = nlohmann::json::parse(r->resolvedJson);
    QCOMPARE(resolved["optimizer"].get<std::string>(), std::string("AdamW"));
    // A rebuild tells the same story.
    auto rebuilt = stave::store::rebuildStore(
        (fs::path(dir.path().toStdString()) / "rebuilt.db").string(), runs.string());
    QVERIFY(rebuilt.ok());
    QCOMPARE(rebuilt.value()->findRun("r1")->sessions, r->sessions);
  }

  // Title, tags and notes live in the run folder as well: a rebuild gets them back.
  void annotationsSurviveRebuild() {
    QTemporaryDir dir;
    const fs::path runs = fs::path(dir.path().toStdString()) / "runs";
    write(runs / "a" / "events.jsonl", runEvents(1, 0.2, "a"));
    const std::string db = dir.filePath("stave.db").toStdString();
    {
      auto s = Store::open(db);
      QVERIFY(s.value()->ingestRuns(runs.string()).ok());
      const auto id = s.value()->findRun("a")->id;
      QVERIFY(s.value()->setTitle(id, "first \"good\" one").ok());
      QVERIFY(s.value()->setTags(id, {"基线", "x"}).ok());
      QVERIFY(s.value()->setNotes(id, "notes; --").ok());
    }
    QVERIFY(fs::exists(runs / "a" / kAnnotationsFile));
    auto rebuilt = rebuildStore(db, runs.string());
    QVERIFY2(rebuilt.ok(), rebuilt.errorText().c_str());
    const auto a = rebuilt.value()->findRun("a").value();
    QCOMPARE(a.title, std::string("first \"good\" one"));
    QCOMPARE(a.tags, (std::vector<std::string>{"基线", "x"}));
    QCOMPARE(a.notes, std::string("notes; --"));
    // A broken annotations file: named in a warning, the run is still there.
    write(runs / "a" / kAnnotationsFile, "{not json");
    IngestReport report;
    auto second = rebuildStore(db, runs.string(), &report);
    QVERIFY(second.ok());
    QCOMPARE(int(second.value()->runs().size()), 1);
    QVERIFY(!report.warnings.empty() &&
            report.warnings[0].find(kAnnotationsFile) != std::string::npos);
  }

  // The launcher's sample events become rows keyed by their path; NaN is a gap.
  void sampleEventsAreStored() {
    QTemporaryDir dir;
    const fs::path run = fs::path(dir.path().toStdString()) / "runs" / "g";
    std::string text = runEvents(1, 0.2, "g");
    for (int k = 0; k < 3; ++k) {
      text += "{\"type\":\"gpu_sample\",\"version\":1,\"rank\":-1,\"time\":" +
              std::to_string(2000 + k) +
              ",\"data\":{\"gpus\":[{\"index\":0,\"util\":" + std::to_string(50 + k) +
              ",\"mem_used\":1e9},{\"index\":1,\"util\":" + (k == 1 ? "null" : "70") +
              "}]}}\n";
    }
    write(run / "events.jsonl", text);
    auto s = Store::open(dir.filePath("stave.db").toStdString());
    auto r = s.value()->ingestRun(run.string());
    QVERIFY2(r.ok(), r.errorText().c_str());
    const auto id = s.value()->findRun("g")->id;
    const auto keys = s.value()->sampleKeys(id);
    QCOMPARE(keys, (std::vector<std::string>{"gpus/0/mem_used", "gpus/0/util", "gpus/1/util"}));
    // Three samples within one 10 s bucket: one point, their mean, minimum and maximum.
    const auto util = s.value()->samples(id, "gpus/0/util");
    QCOMPARE(int(util.size()), 1);
    QCOMPARE(util[0].count, int64_t(3));
    QCOMPARE(util[0].value, 51.0);
    QCOMPARE(util[0].lo, 50.0);
    QCOMPARE(util[0].hi, 52.0);
    QCOMPARE(util[0].time, 2001.0);
    QCOMPARE(util[0].rank, -1);
    const auto other = s.value()->samples(id, "gpus/1/util");  // the null is no value
    QCOMPARE(int(other.size()), 1);
    QCOMPARE(other[0].count, int64_t(2));
  }

  // A full disk (the database's size limit): the failing ingestion names the file and keeps
  // nothing half; what was committed before stays, and the next try reads the same bytes.
  void fullDiskLosesNothingCommitted() {
    QTemporaryDir dir;
    const fs::path runs = fs::path(dir.path().toStdString()) / "runs";
    write(runs / "a" / "events.jsonl", runEvents(1, 0.2, "a"));
    const std::string db = dir.filePath("stave.db").toStdString();
    auto s = Store::open(db);
    QVERIFY(s.value()->ingestRuns(runs.string()).ok());
    write(runs / "b" / "events.jsonl", runEvents(400, 0.3, "b"));
    s.value()->limitPagesForTesting(s.value()->pageCountForTesting() + 2);
    auto full = s.value()->ingestRun((runs / "b").string());
    QVERIFY(!full.ok());
    QVERIFY2(full.errorText().find("disk is full") != std::string::npos &&
                 full.errorText().find(db) != std::string::npos,
             full.errorText().c_str());
    QCOMPARE(int(s.value()->runs().size()), 1);
    QCOMPARE(s.value()->findRun("a")->status, std::string("completed"));
    s.value()->limitPagesForTesting(0);
    auto retry = s.value()->ingestRun((runs / "b").string());
    QVERIFY2(retry.ok(), retry.errorText().c_str());
    QCOMPARE(s.value()->findRun("b")->epochsDone, 400);
  }

  // Events out of order (a relayed rank's line late, clocks that differ): the curve is in
  // step order, the best epoch is the best value, whatever order the lines came in.
  void eventsOutOfOrder() {
    QTemporaryDir dir;
    const fs::path run = fs::path(dir.path().toStdString()) / "runs" / "o";
    std::vector<std::string> lines;
    {
      std::istringstream in(runEvents(3, 0.2, "o"));
      std::string l;
      while (std::getline(in, l)) lines.push_back(l + "\n");
    }
    std::string text = lines[0];  // run_start first, the rest reversed
    for (size_t i = lines.size(); i-- > 1;) text += lines[i];
    write(run / "events.jsonl", text);
    auto s = Store::open(dir.filePath("stave.db").toStdString());
    auto r = s.value()->ingestRun(run.string());
    QVERIFY2(r.ok(), r.errorText().c_str());
    const auto rec = s.value()->findRun("o").value();
    QCOMPARE(rec.epochsDone, 3);
    QCOMPARE(rec.bestEpoch, 2);
    QVERIFY(std::abs(rec.bestMap50 - 0.4) < 1e-9);
    const auto curve = s.value()->curve(rec.id, "step/box_loss");
    QCOMPARE(int(curve.size()), 6);
    for (size_t i = 1; i < curve.size(); ++i) QVERIFY(curve[i - 1].step <= curve[i].step);
  }

  // A project folder the user cannot write: a message naming the file, no crash. Tests run
  // as root here, where permissions do not bite, so the check runs in a child process that
  // has dropped to an unprivileged user.
  void readOnlyProjectFolder() {
    QTemporaryDir dir;
    const fs::path ro = fs::path(dir.path().toStdString()) / "ro";
    fs::create_directories(ro);
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                            fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
    fs::permissions(dir.path().toStdString(), fs::perms::others_exec | fs::perms::others_read,
                    fs::perm_options::add);
    int pipefd[2];
    QCOMPARE(pipe(pipefd), 0);
    const pid_t child = fork();
    if (child == 0) {
      close(pipefd[0]);
      if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(3);
      auto s = Store::open((ro / "stave.db").string());
      const std::string text = s.ok() ? std::string("OPENED") : s.errorText();
      [[maybe_unused]] ssize_t n = write(pipefd[1], text.data(), text.size());
      _exit(0);
    }
    close(pipefd[1]);
    std::string text;
    char buf[512];
    for (ssize_t n; (n = read(pipefd[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
    close(pipefd[0]);
    int status = 0;
    waitpid(child, &status, 0);
    fs::permissions(ro, fs::perms::owner_all);
    QVERIFY2(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child could not drop privileges");
    QVERIFY2(text.find((ro / "stave.db").string()) != std::string::npos &&
                 text.find("writable") != std::string::npos,
             text.c_str());
  }

  void diffHidesEqualKeys() {
    const auto d = configDiff(R"({"lr0":0.01,"epochs":10,"model":"yolov8n"})",
                              R"({"lr0":0.02,"epochs":10,"model":"yolov8s","new":1})");
    QCOMPARE(int(d.size()), 3);
    QCOMPARE(d[0][0], std::string("lr0"));
    QCOMPARE(d[1][0], std::string("model"));
    QCOMPARE(d[2][0], std::string("new"));
    QCOMPARE(d[2][1], std::string());
  }
};

QTEST_APPLESS_MAIN(TestStore)
#include "tst_store.moc"
