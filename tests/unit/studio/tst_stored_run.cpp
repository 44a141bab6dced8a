// StoredRun: a run opened from the project's history store for the Run page, on a generated
// 4-rank run. What it gives equals what events.jsonl says: the low-rate events in file order
// (no step or sample), rank 0's losses at every iteration, every rank's samples/s summed at
// rank 0's steps (as the Run page sums them from the file), the GPU samples as buckets that
// keep the one-sample dips, each rank's last step, and the offset the store read to. A second
// load reads only what was appended; a store that cannot be opened is an error naming it. The
// run controller's state-only reading (the queue's) skips steps and samples undecoded. A
// zoomed range's samples read again from the file at full resolution equal the file's, found
// without reading the file from its start.
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/studio/run/run_controller.h"
#include "core/studio/models/stored_run.h"
#include "long_run.h"

namespace fs = std::filesystem;
namespace tel = stave::telemetry;
using stave::studio::loadStoredRun;

namespace {

/// A generated 4-rank run of `hours` with an epoch every `epochMinutes`, written to `log`.
bool writeRun(const std::string& log, double hours, double epochMinutes, stave::bench::LongRunStats* stats) {
  stave::bench::LongRunOptions o;
  o.hours = hours;
  o.ranks = 4;
  o.epochMinutes = epochMinutes;
  std::string error;
  if (stave::bench::writeLongRun(o, log, stats, &error)) return true;
  qWarning("%s", error.c_str());
  return false;
}

/// A half-hour run (an epoch every 10 min) in the run folder `runDir`, created.
bool writeRunFolder(const fs::path& runDir, stave::bench::LongRunStats* stats) {
  fs::create_directories(runDir);
  return writeRun((runDir / "events.jsonl").string(), 0.5, 10, stats);
}

}  // namespace

class TstStoredRun : public QObject {
  Q_OBJECT
 private slots:
  void equalsTheFile() {
    QTemporaryDir dir;
    const fs::path runDir = fs::path(dir.path().toStdString()) / "runs" / "r";
    const std::string log = (runDir / "events.jsonl").string();
    stave::bench::LongRunStats stats;
    QVERIFY(writeRunFolder(runDir, &stats));

    // What the file says, decoded line by line.
    std::vector<tel::Event> lowRate;
    std::vector<double> box;
    std::vector<double> totalSps;
    std::map<int, double> sps;
    std::map<int, tel::Event> last;
    double minUtil3 = 1e9;
    {
      std::ifstream in(log);
      std::string line;
      while (std::getline(in, line)) {
        auto e = tel::decodeEvent(line);
        QVERIFY(e);
        if (e->type == tel::event_type::kStep) {
          auto s = tel::stepFromEvent(e.value());
          QVERIFY(s);
          sps[e->rank] = s->samplesPerSec;
          last[e->rank] = e.value();
          if (e->rank != 0) continue;
          box.push_back(s->boxLoss);
          if (sps.size() == 4) {
            double t = 0;
            for (const auto& [r, v] : sps) t += v;
            totalSps.push_back(t);
          }
        } else if (e->type == tel::event_type::kGpuSample) {
          auto g = tel::gpuSampleFromEvent(e.value());
          QVERIFY(g);
          for (const auto& gp : g->gpus)
            if (gp.index == 3) minUtil3 = std::min(minUtil3, gp.util);
        } else if (!tel::isHighRateType(e->type)) {
          lowRate.push_back(e.value());
        }
      }
    }
    const std::string db = dir.filePath("stave.db").toStdString();
    auto loaded = loadStoredRun(db, runDir.string());
    QVERIFY2(loaded, loaded.errorText().c_str());
    auto& run = loaded.value();
    QCOMPARE(run.offset, static_cast<int64_t>(fs::file_size(log)));
    QCOMPARE(run.worldSize, 4);
    QCOMPARE(run.events.size(), lowRate.size());
    for (size_t i = 0; i < lowRate.size(); ++i) {
      QCOMPARE(run.events[i].type, lowRate[i].type);
      QCOMPARE(run.events[i].time, lowRate[i].time);
    }
    QCOMPARE(run.t0, lowRate.front().time);
    const auto* c = run.curve("step/box_loss");
    QVERIFY(c);
    QCOMPARE(c->points.size(), box.size());
    QCOMPARE(c->points.size(), static_cast<size_t>(stats.steps));
    for (size_t i = 0; i < box.size(); i += 101) QCOMPARE(c->points.y(i), static_cast<float>(box[i]));
    const auto* total = run.curve(stave::store::kTotalSamplesPerSecKey);
    QVERIFY(total);
    QCOMPARE(total->points.size(), totalSps.size());
    QCOMPARE(total->points.y(total->points.size() - 1), static_cast<float>(totalSps.back()));
    // GPU 3's utilisation: buckets over the whole half hour, its dips kept.
    const stave::studio::StoredRun::Samples* util3 = nullptr;
    for (const auto& s : run.samples)
      if (s.key == "gpus/3/util") util3 = &s;
    QVERIFY(util3);
    QCOMPARE(util3->id.series, 3);
    QVERIFY(util3->points.x(0) < 10);
    QVERIFY(util3->points.x(util3->points.size() - 1) > 0.5 * 3600 - 10);
    QCOMPARE(util3->points.minY(), minUtil3);
    QVERIFY(util3->points.size() < 2 * 0.5 * 3600 / 10 + 4);  // buckets, not every sample
    // Each rank's last step.
    QCOMPARE(run.lastSteps.size(), size_t(4));
    for (const auto& e : run.lastSteps) QCOMPARE(e.time, last[e.rank].time);

    // Appended lines: the next load has them (the store read only those).
    const auto before = run.events.size();
    {
      std::ofstream out(log, std::ios::app);
      tel::Event w;
      w.type = tel::event_type::kWarning;
      w.time = stats.endTime + 1;
      w.data = {{"message", "appended"}};
      out << tel::encodeEvent(w) << "\n";
    }
    auto again = loadStoredRun(db, runDir.string());
    QVERIFY2(again, again.errorText().c_str());
    QCOMPARE(again->events.size(), before + 1);
    QCOMPARE(again->offset, static_cast<int64_t>(fs::file_size(log)));

    // Asked to stop (the studio closes): an error, not a half-read run.
    std::atomic<bool> stop{true};
    auto stopped = loadStoredRun(dir.filePath("stopped.db").toStdString(), runDir.string(), &stop);
    QVERIFY(!stopped);
    QVERIFY2(stopped.errorText().find("stopped") != std::string::npos, stopped.errorText().c_str());

    // A database that is not one: the error names it.
    const std::string bad = dir.filePath("bad.db").toStdString();
    std::ofstream(bad) << "not a database";
    auto broken = loadStoredRun(bad, runDir.string());
    QVERIFY(!broken);
    QVERIFY2(broken.errorText().find("bad.db") != std::string::npos, broken.errorText().c_str());
  }

  void sampleDetailEqualsTheFile() {
    QTemporaryDir dir;
    const std::string log = dir.filePath("events.jsonl").toStdString();
    stave::bench::LongRunStats stats;
    QVERIFY(writeRun(log, 0.5, 10, &stats));
    const int64_t size = static_cast<int64_t>(fs::file_size(log));
    // GPU 2's utilisation and the node's CPU in [600, 700] s, decoded line by line.
    double t0 = 0;
    std::vector<std::pair<double, double>> util2, cpu;
    {
      std::ifstream in(log);
      std::string line;
      while (std::getline(in, line)) {
        auto e = tel::decodeEvent(line);
        QVERIFY(e);
        if (t0 == 0) t0 = e->time;
        const double t = e->time - t0;
        if (t < 600 || t > 700) continue;
        if (e->type == tel::event_type::kGpuSample) {
          for (const auto& gp : tel::gpuSampleFromEvent(e.value())->gpus)
            if (gp.index == 2) util2.emplace_back(t, gp.util);
        } else if (e->type == tel::event_type::kSystemSample) {
          cpu.emplace_back(t, tel::systemSampleFromEvent(e.value())->cpuTotal);
        }
      }
    }
    QVERIFY(util2.size() >= 190);  // a sample every half second
    auto d = stave::studio::readSampleDetail(log, t0, 600, 700, size);
    QVERIFY2(d, d.errorText().c_str());
    QCOMPARE(d->lo, 600.0);
    QCOMPARE(d->hi, 700.0);
    QVERIFY2(d->bytesRead < size / 3, qPrintable(QString::number(d->bytesRead)));  // found, not scanned
    const stave::studio::StoredRun::Samples *u = nullptr, *c = nullptr;
    for (const auto& s : d->samples) {
      if (s.key == "gpus/2/util") u = &s;
      if (s.key == "cpu_total") c = &s;
    }
    QVERIFY(u && c);
    QVERIFY(u->id.chart == stave::studio::RunChart::GpuUtil);
    QCOMPARE(u->id.series, 2);
    QCOMPARE(u->points.size(), util2.size());
    for (size_t i = 0; i < util2.size(); ++i) {
      QCOMPARE(u->points.x(i), util2[i].first);
      QCOMPARE(u->points.y(i), static_cast<float>(util2[i].second));
    }
    QCOMPARE(c->points.size(), cpu.size());
    QCOMPARE(c->points.y(0), static_cast<float>(cpu.front().second));
    // A budget smaller than the range: what was read, the range lowered to it.
    auto part = stave::studio::readSampleDetail(log, t0, 600, 700, size, 64 << 10);
    QVERIFY2(part, part.errorText().c_str());
    QVERIFY(part->hi < 700 && part->hi >= 600);
    for (const auto& s : part->samples)
      if (s.key == "gpus/2/util") {
        QVERIFY(s.points.size() > 0 && s.points.size() < util2.size());
        QCOMPARE(s.points.x(s.points.size() - 1), part->hi);
      }
    // Before `end` only: the stored part.
    auto none = stave::studio::readSampleDetail(log, t0, 600, 700, 4096);
    QVERIFY(none);
    QVERIFY(none->samples.empty());
    // A missing file: the error names it.
    auto missing = stave::studio::readSampleDetail(dir.filePath("gone.jsonl").toStdString(), t0, 0, 10, 100);
    QVERIFY(!missing);
    QVERIFY(missing.errorText().find("gone.jsonl") != std::string::npos);
  }

  void previewIsTheStoredRunThinned() {
    // A first look read straight from the file: with every step kept it equals the store's
    // series; thinned, every S-th of rank 0's steps and of the samples, all the low-rate events.
    QTemporaryDir dir;
    const fs::path runDir = fs::path(dir.path().toStdString()) / "runs" / "r";
    const std::string log = (runDir / "events.jsonl").string();
    stave::bench::LongRunStats stats;
    QVERIFY(writeRunFolder(runDir, &stats));
    auto stored = loadStoredRun(dir.filePath("stave.db").toStdString(), runDir.string());
    QVERIFY2(stored, stored.errorText().c_str());
    auto whole = stave::studio::previewRun(runDir.string(), nullptr, int64_t(1) << 40);
    QVERIFY2(whole, whole.errorText().c_str());
    QVERIFY(whole->preview);
    QCOMPARE(whole->sampleEvery, int64_t(1));
    QCOMPARE(whole->worldSize, 4);
    QCOMPARE(whole->t0, stored->t0);
    QCOMPARE(whole->offset, stored->offset);
    QCOMPARE(whole->events.size(), stored->events.size());
    for (const char* key : {"step/box_loss", "step/dfl_loss", stave::store::kTotalSamplesPerSecKey}) {
      const auto* a = whole->curve(key);
      const auto* b = stored->curve(key);
      QVERIFY2(a && b, key);
      QCOMPARE(a->points.size(), b->points.size());
      for (size_t i = 0; i < a->points.size(); i += 37) {
        QCOMPARE(a->points.x(i), b->points.x(i));
        QCOMPARE(a->points.y(i), b->points.y(i));
      }
    }
    const auto* util3 = whole->sample("gpus/3/util");
    QVERIFY(util3);
    QCOMPARE(util3->id.series, 3);
    QCOMPARE(util3->points.minY(), stored->sample("gpus/3/util")->points.minY());
    QVERIFY(util3->points.size() > 0.5 * 3600 * 2 - 10);  // every sample, not buckets
    QCOMPARE(whole->lastSteps.size(), size_t(4));

    const int64_t size = static_cast<int64_t>(fs::file_size(log));
    auto thin = stave::studio::previewRun(runDir.string(), nullptr, size / 10);
    QVERIFY2(thin, thin.errorText().c_str());
    QCOMPARE(thin->sampleEvery, int64_t(10));
    QCOMPARE(thin->events.size(), stored->events.size());  // every epoch, validation, ...
    const auto* box = thin->curve("step/box_loss");
    QVERIFY(box);
    QCOMPARE(box->points.size(), static_cast<size_t>((stats.steps + 9) / 10));
    QCOMPARE(box->points.x(1), 10.0);
    const auto* first = thin->sample("gpus/3/util");
    QVERIFY(first);
    QVERIFY(first->points.x(first->points.size() - 1) > 0.5 * 3600 - 60);  // to the end
    QVERIFY(first->points.size() < util3->points.size() / 5);
    // Asked to stop: an error.
    std::atomic<bool> stop{true};
    QVERIFY(!stave::studio::previewRun(runDir.string(), &stop));
  }

  void storedPartAtOnceOnlyTheTailDecoded() {
    // A store that holds the first part of a run (the studio was closed while it went on): the
    // stored part is drawn as stored and only the tail is decoded from the file, not stored;
    // the result equals the store's own reading of the whole run. catchUpStore then stores
    // the tail. A tail longer than `tailBytes` is stored first, with a first look meanwhile.
    QTemporaryDir dir;
    const fs::path runDir = fs::path(dir.path().toStdString()) / "runs" / "r";
    const std::string log = (runDir / "events.jsonl").string();
    stave::bench::LongRunStats stats;
    QVERIFY(writeRunFolder(runDir, &stats));
    std::string whole;
    {
      std::ifstream in(log, std::ios::binary);
      whole.assign(std::istreambuf_iterator<char>(in), {});
    }
    const auto fullSize = static_cast<int64_t>(whole.size());
    const auto half = static_cast<int64_t>(whole.find('\n', whole.size() / 2) + 1);
    const int64_t lines = std::count(whole.begin(), whole.end(), '\n');
    // The reference: a store that read the whole file.
    auto all = loadStoredRun(dir.filePath("all.db").toStdString(), runDir.string());
    QVERIFY2(all, all.errorText().c_str());
    QVERIFY(!all->storeBehind);
    QCOMPARE(all->tailBytes, int64_t(0));

    // The store holds the first half; then the rest is written.
    const std::string db = dir.filePath("half.db").toStdString();
    const auto writeLog = [&](int64_t bytes) {
      std::ofstream(log, std::ios::binary | std::ios::trunc).write(whole.data(), bytes);
    };
    writeLog(half);
    QVERIFY(stave::studio::catchUpStore(db, runDir.string()));
    writeLog(fullSize);
    const auto ingested = [&](const std::string& path) -> int64_t {
      auto s = stave::store::Store::open(path);
      if (!s) return -1;
      auto r = s.value()->runByDir(runDir.string());
      return r ? r->ingestedBytes : -1;
    };
    QCOMPARE(ingested(db), half);

    int previews = 0;
    auto run = loadStoredRun(db, runDir.string(), nullptr, [&](stave::studio::StoredRun) { ++previews; });
    QVERIFY2(run, run.errorText().c_str());
    QCOMPARE(previews, 0);
    QVERIFY(!run->preview);
    QCOMPARE(run->tailBytes, fullSize - half);  // the tail decoded, the stored half not
    QVERIFY(run->storeBehind);
    QCOMPARE(ingested(db), half);  // nothing stored on the way
    QCOMPARE(run->offset, fullSize);
    QCOMPARE(run->lineNo, lines);
    QCOMPARE(run->worldSize, 4);
    QCOMPARE(run->t0, all->t0);
    QVERIFY(run->warnings.empty());
    QCOMPARE(run->events.size(), all->events.size());
    for (size_t i = 0; i < run->events.size(); ++i) {
      QCOMPARE(run->events[i].type, all->events[i].type);
      QCOMPARE(run->events[i].time, all->events[i].time);
    }
    for (const char* key : {"step/box_loss", "step/cls_loss", "step/samples_per_s", stave::store::kTotalSamplesPerSecKey}) {
      const auto* a = run->curve(key);
      const auto* b = all->curve(key);
      QVERIFY2(a && b, key);
      QCOMPARE(a->points.size(), b->points.size());
      for (size_t i = 0; i < a->points.size(); ++i) {
        QCOMPARE(a->points.x(i), b->points.x(i));
        QCOMPARE(a->points.y(i), b->points.y(i));
      }
    }
    // The samples: the store's buckets up to where it stopped, then every sample of the tail.
    const auto* util3 = run->sample("gpus/3/util");
    QVERIFY(util3);
    QCOMPARE(util3->id.series, 3);
    const double stopped = run->bucketsUntil;
    QVERIFY(stopped > 0.2 * 3600 && stopped < 0.3 * 3600);
    QCOMPARE(util3->points.minY(), all->sample("gpus/3/util")->points.minY());
    const size_t afterStop = util3->points.size() - util3->points.lowerBound(stopped + 1e-9);
    QVERIFY2(afterStop > 2 * (0.5 * 3600 - stopped) - 10, qPrintable(QString::number(afterStop)));  // 2 a second
    QCOMPARE(run->lastSteps.size(), size_t(4));
    for (size_t i = 0; i < 4; ++i) QCOMPARE(run->lastSteps[i].time, all->lastSteps[i].time);

    // The store catches up; then nothing is decoded.
    auto caught = stave::studio::catchUpStore(db, runDir.string());
    QVERIFY2(caught, caught.errorText().c_str());
    QCOMPARE(ingested(db), fullSize);
    auto current = loadStoredRun(db, runDir.string());
    QVERIFY2(current, current.errorText().c_str());
    QCOMPARE(current->tailBytes, int64_t(0));
    QVERIFY(!current->storeBehind);
    QCOMPARE(current->curve("step/box_loss")->points.size(), all->curve("step/box_loss")->points.size());

    // A tail longer than `tailBytes`: a first look (the stored half, every 4th step of the
    // tail), then the store reads the tail and the result is its own.
    const std::string db2 = dir.filePath("half2.db").toStdString();
    writeLog(half);
    QVERIFY(stave::studio::catchUpStore(db2, runDir.string()));
    writeLog(fullSize);
    std::vector<stave::studio::StoredRun> firsts;
    auto later = loadStoredRun(db2, runDir.string(), nullptr,
                               [&](stave::studio::StoredRun f) { firsts.push_back(std::move(f)); },
                               (fullSize - half) / 4);
    QVERIFY2(later, later.errorText().c_str());
    QCOMPARE(firsts.size(), size_t(1));
    const auto& first = firsts.front();
    QVERIFY(first.preview);
    QCOMPARE(first.sampleEvery, int64_t(4));
    QCOMPARE(first.tailBytes, fullSize - half);
    QCOMPARE(first.events.size(), all->events.size());
    const auto& box = first.curves.front().points;
    const size_t allSteps = all->curve("step/box_loss")->points.size();
    QVERIFY2(box.size() > allSteps / 2 && box.size() < allSteps * 3 / 4, qPrintable(QString::number(box.size())));
    QVERIFY(!later->preview && !later->storeBehind);
    QCOMPARE(later->tailBytes, int64_t(0));
    QCOMPARE(later->offset, fullSize);
    QCOMPARE(later->curve("step/box_loss")->points.size(), allSteps);
    QCOMPARE(ingested(db2), fullSize);
  }

  void stateOnlyReadingSkipsStepsAndSamples() {
    // The queue's controller follows a run's state: step and sample lines are skipped without
    // being decoded; every other event is read, in order, and the lines are all counted.
    QTemporaryDir dir;
    const std::string log = dir.filePath("events.jsonl").toStdString();
    stave::bench::LongRunStats stats;
    QVERIFY(writeRun(log, 0.3, 5, &stats));
    std::vector<std::string> want;
    int64_t lines = 0;
    {
      std::ifstream in(log);
      std::string line;
      while (std::getline(in, line)) {
        ++lines;
        auto e = tel::decodeEvent(line);
        QVERIFY(e);
        if (!tel::isHighRateType(e->type)) want.push_back(e->type);
      }
    }
    std::vector<std::string> got;
    qint64 offset = 0, lineNo = 0;
    for (bool more = true; more;) {
      auto b = stave::studio::RunController::readEvents(dir.filePath("events.jsonl"), offset, lineNo, true);
      QVERIFY(b.warnings.isEmpty());
      for (const auto& e : b.events) got.push_back(e.type);
      offset = b.offset;
      lineNo = b.lineNo;
      more = b.more;
    }
    QCOMPARE(got, want);
    QCOMPARE(lineNo, lines);
    QCOMPARE(offset, static_cast<qint64>(fs::file_size(log)));
  }
};

QTEST_MAIN(TstStoredRun)
#include "tst_stored_run.moc"
