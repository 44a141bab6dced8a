// The doctor over a whole event log (DoctorReplay, what `stave-train doctor` prints): a line
// that is no event is skipped and named, and an event whose time cannot be the run's is left
// out before the replay steps period by period towards it — one validation at time 1e300 made
// `stave-train doctor` loop for ever (this test then never ends: CTest's timeout fails it).
#include <QtTest>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/telemetry/doctor_replay.h"
#include "core/telemetry/events.h"

using namespace stave::telemetry;
using json = nlohmann::json;

namespace {

constexpr double kT0 = 1.7e9;  // the run's start (Unix seconds)

std::string line(Event e, double time) {
  e.time = time;
  return encodeEvent(e);
}

/// A run of 40 s: run_start, a step a second on rank 0, a validation, finished.
std::vector<std::string> runLog(json config, double validationTime) {
  std::vector<std::string> out;
  RunStartEvent rs;
  rs.device = "cpu";
  rs.worldSize = 1;
  rs.config = std::move(config);
  out.push_back(line(toEvent(rs, 0), kT0));
  for (int i = 0; i < 40; ++i) {
    StepEvent s;
    s.iter = i;
    s.itersPerEpoch = 40;
    s.timing = StepTiming{0.5, 0.01, 0.4, 0, 0.09, 1.0};
    out.push_back(line(toEvent(s, 0), kT0 + 1 + i));
    if (i == 20) {
      ValidationEvent v;
      v.map50 = 0.5;
      out.push_back(line(toEvent(v, 0), validationTime));
    }
  }
  FinishedEvent f;
  f.status = RunStatus::Completed;
  f.epochs = f.epochsCompleted = 1;
  out.push_back(line(toEvent(f, 0), kT0 + 42));
  return out;
}

}  // namespace

class TestDoctorReplay : public QObject {
  Q_OBJECT
 private slots:
  void plausibleTimes_data() {
    QTest::addColumn<double>("time");
    QTest::addColumn<double>("start");
    QTest::addColumn<bool>("plausible");
    const double inf = std::numeric_limits<double>::infinity();
    QTest::newRow("in the run") << kT0 + 100 << kT0 << true;
    QTest::newRow("first event") << kT0 << 0.0 << true;
    QTest::newRow("1e300") << 1e300 << kT0 << false;
    QTest::newRow("1e300 first") << 1e300 << 0.0 << false;
    QTest::newRow("infinite") << inf << kT0 << false;
    QTest::newRow("nan") << std::nan("") << kT0 << false;
    QTest::newRow("negative") << -5.0 << kT0 << false;
    QTest::newRow("two days before the start") << kT0 - 2 * 86400 << kT0 << false;
    QTest::newRow("an hour before the start") << kT0 - 3600 << kT0 << true;
    QTest::newRow("two days in the future") << kT0 + 1000 + 2 * 86400 << kT0 << false;
  }
  void plausibleTimes() {
    QFETCH(double, time);
    QFETCH(double, start);
    QFETCH(bool, plausible);
    QCOMPARE(plausibleEventTime(time, start, kT0 + 1000), plausible);
  }

  void absurdTimeIsLeftOutAndTheReplayEnds_data() {
    QTest::addColumn<double>("time");
    QTest::newRow("1e300") << 1e300;
    QTest::newRow("-1e300") << -1e300;
    QTest::newRow("a day before the run") << kT0 - 2 * 86400;
  }
  void absurdTimeIsLeftOutAndTheReplayEnds() {
    QFETCH(double, time);
    const auto log = runLog({{"report_period_s", 10}}, time);
    DoctorReplay replay(kT0 + 1000);
    for (size_t i = 0; i < log.size(); ++i) replay.addLine(log[i], static_cast<int64_t>(i + 1));
    QCOMPARE(replay.badTimes().count, 1);
    QCOMPARE(replay.badTimes().firstLine, int64_t(23));  // run_start, 21 steps, the validation
    QVERIFY(replay.badTimes().firstWhy.find("validation") == 0);
    QCOMPARE(replay.status(), std::string("completed"));  // the events after it were read
    QCOMPARE(replay.doctor().stepsSeen(), 40);
    QVERIFY(replay.periods().size() <= 5);  // 40 s in periods of 10 s
  }

  void badLinesAreSkippedAndNamed() {
    auto log = runLog({}, kT0 + 21.5);
    log.insert(log.begin() + 5, R"({"type":"step","version":1,"rank":0,"time":1e999,"data":{}})");
    log.insert(log.begin() + 8, "{\"type\": \"step\", ");
    DoctorReplay replay(kT0 + 1000);
    for (size_t i = 0; i < log.size(); ++i) replay.addLine(log[i], static_cast<int64_t>(i + 1));
    replay.addTooLongLine(static_cast<int64_t>(log.size() + 1));
    QCOMPARE(replay.badLines().count, 3);
    QCOMPARE(replay.badLines().firstLine, int64_t(6));
    QCOMPARE(replay.status(), std::string("completed"));
    QCOMPARE(replay.doctor().stepsSeen(), 40);
  }

  void absurdPeriodFallsBackToTheDefault() {
    // A report period of 1e-300 s would step through 1e302 periods per second of the run.
    const auto log = runLog({{"report_period_s", 1e-300}}, kT0 + 21.5);
    DoctorReplay replay(kT0 + 1000);
    for (size_t i = 0; i < log.size(); ++i) replay.addLine(log[i], static_cast<int64_t>(i + 1));
    QCOMPARE(replay.period(), 30.0);
    QCOMPARE(replay.status(), std::string("completed"));
  }
};

QTEST_GUILESS_MAIN(TestDoctorReplay)
#include "tst_doctor_replay.moc"
