// Store::settleEndedRuns: a run whose events stop without a final event and whose folder no live
// process holds was killed: `crashed`, not `running` (History showed "running 2/3" for a run
// whose rank 0 had been killed). A held folder stays running, a finished run is untouched, and a
// resume of the killed run is running again.
#include <QtTest/QtTest>

#include <filesystem>
#include <fstream>
#include <set>

#include "core/store/store.h"
#include "core/telemetry/events.h"

using namespace stave::store;
namespace fs = std::filesystem;
namespace tel = stave::telemetry;

namespace {

std::string line(tel::Event e, double time) {
  e.time = time;
  return tel::encodeEvent(e) + "\n";
}

/// run_start and `epochs` of `planned` epochs, then a finished event when `finish`.
std::string runEvents(const std::string& name, int epochs, int planned, bool finish) {
  tel::RunStartEvent rs;
  rs.config = {{"model", "yolov8n"}, {"epochs", planned}, {"name", name}};
  std::string s = line(tel::toEvent(rs, 0), 1000);
  for (int e = 0; e < epochs; ++e) {
    tel::EpochEndEvent ee;
    ee.epoch = e;
    ee.epochs = planned;
    s += line(tel::toEvent(ee, 0), 1001 + e);
  }
  if (finish) {
    tel::FinishedEvent f;
    f.epochs = planned;
    f.epochsCompleted = epochs;
    s += line(tel::toEvent(f, 0), 1100);
  }
  return s;
}

void append(const fs::path& runs, const std::string& name, const std::string& text) {
  fs::create_directories(runs / name);
  std::ofstream(runs / name / "events.jsonl", std::ios::binary | std::ios::app) << text;
}

}  // namespace

class TstStoreEnded : public QObject {
  Q_OBJECT
 private slots:
  void killedRunsAreNotRunning() {
    QTemporaryDir dir;
    const fs::path runs = fs::path(dir.path().toStdString()) / "runs";
    append(runs, "killed", runEvents("killed", 2, 3, false));
    append(runs, "live", runEvents("live", 1, 3, false));
    append(runs, "done", runEvents("done", 3, 3, true));
    auto s = Store::open(Store::defaultPath(dir.path().toStdString()));
    QVERIFY2(s.ok(), s.errorText().c_str());
    Store& store = *s.value();
    QVERIFY(store.ingestRuns(runs.string()).ok());
    QCOMPARE(store.findRun("killed")->status, std::string("running"));

    std::set<std::string> asked;
    const auto holds = [&](const std::string& d) {
      asked.insert(fs::path(d).filename().string());
      return fs::path(d).filename() == "live";
    };
    auto settled = store.settleEndedRuns(holds);
    QVERIFY2(settled.ok(), settled.errorText().c_str());
    QCOMPARE(settled.value(), 1);
    QCOMPARE(asked, (std::set<std::string>{"killed", "live"}));  // only running runs asked
    const RunRecord killed = store.findRun("killed").value();
    QCOMPARE(killed.status, std::string("crashed"));
    QCOMPARE(killed.sessions, std::vector<std::string>{"crashed"});
    QVERIFY2(killed.message.find("ended without a final event") != std::string::npos &&
                 killed.message.find("after epoch 2 of 3") != std::string::npos,
             killed.message.c_str());
    // The same sentence as a catalog message, for the studio's language (issue 43 §4).
    QCOMPARE(killed.messageText.size(), size_t(1));
    QCOMPARE(killed.messageText[0].id, std::string("history.ended_without_final"));
    QCOMPARE(stave::english(killed.messageText), killed.message);
    QCOMPARE(store.findRun("live")->status, std::string("running"));
    QCOMPARE(store.findRun("done")->status, std::string("completed"));
    QCOMPARE(store.settleEndedRuns(holds).value(), 0);  // once

    // Resumed: its new run_start makes it running again, its story keeps the crash.
    tel::RunStartEvent rs;
    rs.config = {{"model", "yolov8n"}, {"epochs", 3}, {"name", "killed"}};
    append(runs, "killed", line(tel::toEvent(rs, 0), 2000));
    QVERIFY(store.ingestRuns(runs.string()).ok());
    const RunRecord resumed = store.findRun("killed").value();
    QCOMPARE(resumed.status, std::string("running"));
    QCOMPARE(resumed.sessions, (std::vector<std::string>{"crashed", "running"}));
  }
};

QTEST_GUILESS_MAIN(TstStoreEnded)
#include "tst_store_ended.moc"
