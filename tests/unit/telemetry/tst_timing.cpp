// StepTimer phases, the thread-safe EventSink, and the straggler detector naming the slow rank
// and what it waits on.

#include <QtTest>

#include <fstream>
#include <thread>

#include "core/telemetry/event_sink.h"
#include "core/telemetry/step_timer.h"
#include "core/telemetry/straggler.h"

using namespace stave::telemetry;

Q_DECLARE_METATYPE(std::vector<StepTiming>)

class TestTiming : public QObject {
  Q_OBJECT

 private slots:
  void stepTimerPhases() {
    StepTimer t;
    t.startStep();
    t.begin(StepPhase::DataWait);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    t.begin(StepPhase::FwdBwd);  // ends DataWait
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    t.end();
    t.add(StepPhase::AllreduceWait, 0.5);
    {
      StepTimer::Scope scope(t, StepPhase::Optimizer);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    const StepTiming s = t.finishStep();
    QVERIFY(s.dataWait >= 0.019 && s.dataWait < 0.5);
    QVERIFY(s.fwdBwd >= 0.029 && s.fwdBwd < 0.5);
    QVERIFY(s.optimizer >= 0.009 && s.optimizer < 0.5);
    QCOMPARE(s.allreduceWait, 0.5);
    QCOMPARE(s.h2d, 0.0);
    QVERIFY(s.total >= s.dataWait + s.fwdBwd + s.optimizer);
    QVERIFY(s.total < 2.0);
    // The next step starts from zero.
    t.startStep();
    const StepTiming n = t.finishStep();
    QCOMPARE(n.fwdBwd, 0.0);
    QCOMPARE(n.allreduceWait, 0.0);
  }

  void timingAverage() {
    StepTimingAverage avg;
    QCOMPARE(avg.take().total, 0.0);
    avg.add({1, 0, 2, 0, 0, 4});
    avg.add({3, 0, 4, 0, 0, 8});
    QCOMPARE(avg.count(), 2);
    const StepTiming m = avg.take();
    QCOMPARE(m.dataWait, 2.0);
    QCOMPARE(m.fwdBwd, 3.0);
    QCOMPARE(m.total, 6.0);
    QCOMPARE(avg.count(), 0);
  }

  void sinkFromManyThreads() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("sub/events.jsonl").toStdString();
    std::FILE* stream = std::tmpfile();
    QVERIFY(stream);
    {
      EventSink sink(stream, 0);
      auto st = sink.openFile(path);
      QVERIFY2(st.ok(), st.errorText().c_str());
      constexpr int kThreads = 4, kEach = 200;
      std::vector<std::thread> threads;
      for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&sink, t] {
          for (int i = 0; i < kEach; ++i) {
            StepEvent s;
            s.iter = i;
            s.epoch = t;
            sink.write(toEvent(s, t));
          }
        });
      }
      for (auto& th : threads) th.join();
      QCOMPARE(sink.linesWritten(), int64_t(kThreads * kEach));
      QCOMPARE(sink.writeFailures(), int64_t(0));
    }
    // Both destinations hold every line whole, and each thread's lines in its order.
    std::rewind(stream);
    std::vector<std::string> streamLines;
    char buf[4096];
    while (std::fgets(buf, sizeof buf, stream)) streamLines.emplace_back(buf);
    std::fclose(stream);
    std::ifstream in(path);
    std::vector<std::string> fileLines;
    for (std::string line; std::getline(in, line);) fileLines.push_back(line);
    for (const auto* lines : {&streamLines, &fileLines}) {
      QCOMPARE(int(lines->size()), 800);
      std::vector<int> next(4, 0);
      for (const auto& line : *lines) {
        auto e = decodeEvent(line);
        QVERIFY2(e.ok(), e.errorText().c_str());
        auto s = stepFromEvent(e.value());
        QVERIFY(s.ok());
        QCOMPARE(s->epoch, e->rank);
        QCOMPARE(s->iter, next[e->rank]++);
      }
    }
  }

  void sinkAppendsAndRelaysLines() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("events.jsonl").toStdString();
    {
      EventSink sink;
      QVERIFY(sink.openFile(path).ok());
      sink.setRank(2);
      sink.writeTyped(WarningEvent{"first", ""});
    }
    {
      EventSink sink;  // a second writer (resume) appends, never truncates
      QVERIFY(sink.openFile(path).ok());
      const std::string relayed =
          R"({"type":"warning","version":1,"rank":1,"time":0,"data":{"message":"x"}})";
      sink.writeLine(relayed, decodeEvent(relayed).value());
    }
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    QCOMPARE(int(lines.size()), 2);
    QCOMPARE(decodeEvent(lines[0])->rank, 2);
    QCOMPARE(decodeEvent(lines[1])->rank, 1);
  }

  // A forward gets every line as written (a typed event encoded once, a relayed line as it
  // came), in order; once cleared, nothing more.
  void sinkForwardsLines() {
    EventSink sink;
    std::vector<std::string> sent;
    sink.setForward([&sent](const std::string& line) { sent.push_back(line); });
    sink.setRank(3);
    sink.writeTyped(WarningEvent{"slow disk", "data"});
    const std::string relayed = R"({"type":"warning","version":1,"rank":1,"time":0,"data":{"message":"x"}})";
    sink.writeLine(relayed, decodeEvent(relayed).value());
    sink.setForward(nullptr);
    sink.writeTyped(WarningEvent{"not sent", ""});
    QCOMPARE(int(sent.size()), 2);
    QCOMPARE(decodeEvent(sent[0])->rank, 3);
    QVERIFY(sent[0].find("slow disk") != std::string::npos);
    QCOMPARE(sent[1], relayed);
  }

  // Deleting events.jsonl mid-run lost the whole record (the writer went on into the deleted
  // inode): the sink recreates it, its first line a warning that says what happened.
  void sinkRecreatesDeletedLog() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("events.jsonl").toStdString();
    EventSink sink;
    QVERIFY(sink.openFile(path).ok());
    sink.writeTyped(WarningEvent{"before", ""});
    QVERIFY(QFile::remove(QString::fromStdString(path)));
    sink.writeTyped(WarningEvent{"after", ""});
    sink.writeTyped(WarningEvent{"later", ""});
    QCOMPARE(sink.fileRecreations(), int64_t(1));
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    QCOMPARE(int(lines.size()), 3);
    const auto first = warningFromEvent(decodeEvent(lines[0]).value());
    QVERIFY(first.ok());
    QVERIFY2(first->message.find("was deleted or replaced") != std::string::npos,
             first->message.c_str());
    QCOMPARE(warningFromEvent(decodeEvent(lines[1]).value())->message, std::string("after"));
  }

  void sinkOpenFailureNamesPath() {
    QTemporaryDir dir;
    const QString blocker = dir.filePath("file");
    QFile f(blocker);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    const std::string path = (blocker + "/events.jsonl").toStdString();  // parent is a file
    EventSink sink;
    auto st = sink.openFile(path);
    QVERIFY(!st.ok());
    QCOMPARE(st.errors()[0].file, path);
    QVERIFY(st.errors()[0].message.find("cannot open for appending") != std::string::npos);
    sink.writeTyped(WarningEvent{"goes nowhere", ""});  // no destination: discarded, no crash
    QCOMPARE(sink.writeFailures(), int64_t(0));
  }

  void straggler_data() {
    QTest::addColumn<std::vector<StepTiming>>("ranks");  // one mean timing per rank
    QTest::addColumn<int>("slowRank");
    QTest::addColumn<int>("phase");
    QTest::addColumn<QString>("message");
    // {dataWait, h2d, fwdBwd, allreduceWait, optimizer, total}
    // Rank 1's loader is slow: rank 0 finishes early and waits in the all-reduce.
    // Rank 1 data 0.2132 / 0.52 = 41%; rank 0 data 0.01 / 0.52 = 2%.
    QTest::newRow("data-starved rank 1 of 2")
        << std::vector<StepTiming>{{0.01, 0.01, 0.30, 0.18, 0.02, 0.52},
                                   {0.2132, 0.01, 0.27, 0.0, 0.02, 0.52}}
        << 1 << int(StepPhase::DataWait) << "rank 1 waits for data 41% of its step; other ranks 2%";
    // Rank 2 computes slower (throttled GPU): 0.40 / 0.44 = 91%, others 0.30 / 0.44 = 68%.
    QTest::newRow("slow compute rank 2 of 4")
        << std::vector<StepTiming>{{0.01, 0.0, 0.30, 0.11, 0.02, 0.44},
                                   {0.01, 0.0, 0.30, 0.11, 0.02, 0.44},
                                   {0.01, 0.0, 0.40, 0.01, 0.02, 0.44},
                                   {0.01, 0.0, 0.30, 0.11, 0.02, 0.44}}
        << 2 << int(StepPhase::FwdBwd)
        << "rank 2 spends 91% of its step in forward+backward; other ranks 68%";
    // Rank 1's optimiser step is slow: 0.12 / 0.43 = 28%, rank 0 0.02 / 0.43 = 5%.
    QTest::newRow("slow optimiser rank 1")
        << std::vector<StepTiming>{{0.01, 0.0, 0.30, 0.10, 0.02, 0.43},
                                   {0.01, 0.0, 0.30, 0.00, 0.12, 0.43}}
        << 1 << int(StepPhase::Optimizer)
        << "rank 1 spends 28% of its step in the optimiser; other ranks 5%";
    // Rank 0's host-to-device copies are slow (no pinned memory): 0.1 / 0.4 = 25%.
    QTest::newRow("slow h2d rank 0")
        << std::vector<StepTiming>{{0.01, 0.10, 0.25, 0.0, 0.02, 0.40},
                                   {0.01, 0.01, 0.25, 0.09, 0.02, 0.40}}
        << 0 << int(StepPhase::H2D)
        << "rank 0 waits for host-to-device copies 25% of its step; other ranks 3%";
    // Balanced and communication-bound: the tie goes to rank 0; all-reduce 0.15 / 0.38 = 39%.
    QTest::newRow("balanced, all-reduce bound")
        << std::vector<StepTiming>{{0.01, 0.0, 0.20, 0.15, 0.01, 0.38},
                                   {0.01, 0.0, 0.20, 0.15, 0.01, 0.38}}
        << 0 << int(StepPhase::AllreduceWait)
        << "rank 0 waits in all-reduce 39% of its step; other ranks 39%";
    // One rank starved by its loader: 0.3 / 0.6 = 50%.
    QTest::newRow("single rank, data")
        << std::vector<StepTiming>{{0.30, 0.02, 0.25, 0.0, 0.03, 0.60}} << 0
        << int(StepPhase::DataWait) << "rank 0 waits for data 50% of its step";
    // One rank that hardly waits: compute-bound, 0.5 / 0.555 = 90%.
    QTest::newRow("single rank, compute")
        << std::vector<StepTiming>{{0.001, 0.002, 0.50, 0.0, 0.052, 0.555}} << 0
        << int(StepPhase::FwdBwd) << "rank 0 spends 90% of its step in forward+backward";
  }

  void straggler() {
    QFETCH(std::vector<StepTiming>, ranks);
    QFETCH(int, slowRank);
    QFETCH(int, phase);
    QFETCH(QString, message);
    StragglerDetector d;
    // Ten samples per rank, +-5% around the mean in pairs, fed interleaved through step events
    // as the launcher sees them.
    for (int k = 0; k < 10; ++k) {
      for (size_t r = 0; r < ranks.size(); ++r) {
        StepEvent s;
        s.timing = ranks[r] * (k % 2 ? 1.05 : 0.95);
        QVERIFY(d.addEvent(toEvent(s, int(r))));
      }
    }
    QVERIFY(!d.addEvent(toEvent(WarningEvent{"not a step", ""}, 0)));
    QCOMPARE(d.rankCount(), int(ranks.size()));
    auto ev = d.report();
    QVERIFY(ev.has_value());
    QCOMPARE(ev->slowRank, slowRank);
    QCOMPARE(int(ev->waitsOn), phase);
    QCOMPARE(QString::fromStdString(ev->message), message);
    QCOMPARE(ev->steps, 10);
    QVERIFY(ev->fraction > 0 && ev->fraction <= 1);
    QVERIFY(qAbs(ev->stepTime - ranks[slowRank].total) < 1e-9);
    // The period is over: nothing to report until new samples arrive.
    QCOMPARE(d.rankCount(), 0);
    QVERIFY(!d.report().has_value());
  }

  void stragglerNeedsEnoughSteps() {
    StragglerOptions o;
    o.minSteps = 3;
    StragglerDetector d(o);
    d.add(0, {0.1, 0, 0.2, 0, 0, 0.3});
    d.add(0, {0.1, 0, 0.2, 0, 0, 0.3});
    d.add(1, {0.2, 0, 0.2, 0, 0, 0.4});
    QVERIFY(!d.report().has_value());
    // A rank with too few samples is left out; the others are still judged.
    for (int i = 0; i < 3; ++i) d.add(0, {0.1, 0, 0.2, 0, 0, 0.3});
    d.add(1, {0.3, 0, 0.2, 0, 0, 0.5});
    auto ev = d.report();
    QVERIFY(ev.has_value());
    QCOMPARE(ev->slowRank, 0);
    QCOMPARE(ev->message, std::string("rank 0 waits for data 33% of its step"));
  }

  // Several nodes: the slow rank's node is named, in the sentence and the event.
  void stragglerNamesItsNode() {
    StragglerOptions o;
    o.ranksPerNode = 2;
    StragglerDetector d(o);
    for (int i = 0; i < 4; ++i)
      for (int r = 0; r < 4; ++r)
        d.add(r, r == 3 ? StepTiming{0.3, 0, 0.2, 0, 0, 0.5} : StepTiming{0.01, 0, 0.2, 0.29, 0, 0.5});
    auto ev = d.report();
    QVERIFY(ev.has_value());
    QCOMPARE(ev->slowRank, 3);
    QCOMPARE(ev->slowNode, 1);
    QVERIFY2(ev->message.rfind("rank 3 on node 1 waits for data", 0) == 0, ev->message.c_str());
    auto back = stragglerFromEvent(toEvent(*ev, 3));
    QVERIFY(bool(back));
    QCOMPARE(back->slowNode, 1);
    // One node: no node in the words, none in the event.
    StragglerDetector one;
    for (int i = 0; i < 4; ++i) {
      one.add(0, {0.3, 0, 0.2, 0, 0, 0.5});
      one.add(1, {0.01, 0, 0.2, 0.29, 0, 0.5});
    }
    auto single = one.report();
    QVERIFY(single.has_value());
    QCOMPARE(single->slowNode, -1);
    QVERIFY(!toEvent(*single, 0).data.contains("slow_node"));
  }
};

QTEST_GUILESS_MAIN(TestTiming)
#include "tst_timing.moc"
