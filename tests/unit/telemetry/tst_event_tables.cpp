// The events' member tables: every table is sound, and every event type written by toEvent and
// read back gives the same line byte for byte — for a real run's lines (demo_run_events.h) and for
// structs with every field set — so moving a struct's fields onto a table changes no wire format.

#include <QtTest>

#include <cmath>
#include <sstream>
#include <string>

#include "core/telemetry/event_dispatch.h"
#include "core/telemetry/event_tables.h"
#include "core/telemetry/events.h"
#include "demo_run_events.h"

using namespace stave::telemetry;

namespace {

// The typed struct of `line` written again as a line, with the line's own rank and time.
template <class T>
std::string reencode(const Event& e) {
  auto typed = EventTraits<T>::decode(e);
  if (!typed) return "decode failed: " + typed.errorText();
  Event back = toEvent(typed.value(), e.rank);
  back.time = e.time;
  return encodeEvent(back);
}

std::string reencodeAny(const std::string& line) {
  auto decoded = decodeEvent(line);
  if (!decoded) return "not an event: " + decoded.errorText();
  const Event* e = &decoded.value();
  const std::string& t = e->type;
  if (t == event_type::kRunStart) return reencode<RunStartEvent>(*e);
  if (t == event_type::kStep) return reencode<StepEvent>(*e);
  if (t == event_type::kEpochEnd) return reencode<EpochEndEvent>(*e);
  if (t == event_type::kValidation) return reencode<ValidationEvent>(*e);
  if (t == event_type::kCheckpoint) return reencode<CheckpointEvent>(*e);
  if (t == event_type::kWarning) return reencode<WarningEvent>(*e);
  if (t == event_type::kError) return reencode<ErrorEvent>(*e);
  if (t == event_type::kFinished) return reencode<FinishedEvent>(*e);
  if (t == event_type::kStraggler) return reencode<StragglerEvent>(*e);
  if (t == event_type::kRankExit) return reencode<RankExitEvent>(*e);
  if (t == event_type::kScheduleReplanned) return reencode<ScheduleReplannedEvent>(*e);
  if (t == event_type::kGpuSample) return reencode<GpuSampleEvent>(*e);
  if (t == event_type::kSystemSample) return reencode<SystemSampleEvent>(*e);
  if (t == event_type::kDiagnosis) return reencode<DiagnosisEvent>(*e);
  return "unknown type " + t;
}

template <class T>
void checkStruct(const T& s, int rank) {
  Event e = toEvent(s, rank);
  e.time = 1796699136.0312345;
  const std::string line = encodeEvent(e);
  QCOMPARE(QString::fromStdString(reencodeAny(line)), QString::fromStdString(line));
}

}  // namespace

class TestEventTables : public QObject {
  Q_OBJECT

 private slots:
  void tablesAreSound() {
    QVERIFY(stave::config::memberTableProblems(finishedFields()).empty());
    QVERIFY(stave::config::memberTableProblems(scheduleReplannedFields()).empty());
    QVERIFY(stave::config::memberTableProblems(runStartFields()).empty());
    QVERIFY(stave::config::memberTableProblems(datasetSummaryFields()).empty());
    QVERIFY(stave::config::memberTableProblems(ncclSettingsFields()).empty());
    QVERIFY(stave::config::memberTableProblems(stepFields()).empty());
    QVERIFY(stave::config::memberTableProblems(epochEndFields()).empty());
    QVERIFY(stave::config::memberTableProblems(validationFields()).empty());
    QVERIFY(stave::config::memberTableProblems(classMetricsFields()).empty());
    QVERIFY(stave::config::memberTableProblems(checkpointFields()).empty());
    QVERIFY(stave::config::memberTableProblems(warningFields()).empty());
    QVERIFY(stave::config::memberTableProblems(errorFields()).empty());
    QVERIFY(stave::config::memberTableProblems(stragglerFields()).empty());
    QVERIFY(stave::config::memberTableProblems(rankExitFields()).empty());
  }

  // Decoding through a table keeps the codec's rules: every problem named by its key, optional
  // fields absent in older logs keep their defaults, 3.0 reads as an integer, null as NaN.
  void tableReadsKeepTheCodecsRules() {
    Event e = toEvent(StepEvent{}, 0);
    e.data["iter"] = "x";
    e.data.erase("lr");
    e.data["epoch"] = 3.0;
    auto bad = stepFromEvent(e);
    QVERIFY(!bad.ok());
    QCOMPARE(bad.errors().size(), size_t(2));
    QCOMPARE(bad.errors()[0].key, std::string("data.iter"));
    QCOMPARE(bad.errors()[1].key, std::string("data.lr"));
    e = toEvent(StepEvent{}, 0);
    e.data["epoch"] = 3.0;
    e.data["box_loss"] = nullptr;
    auto good = stepFromEvent(e);
    QVERIFY2(good.ok(), good.errorText().c_str());
    QCOMPARE(good->epoch, 3);
    QVERIFY(std::isnan(good->boxLoss));
    Event v = toEvent(ValidationEvent{}, 0);
    v.data.erase("box_loss");
    v.data["per_class"] = nlohmann::json::array({{{"cls", 1}, {"precision", 0.5}, {"recall", 0.5},
                                                  {"map50", 0.5}, {"map50_95", "?"}}});
    auto vr = validationFromEvent(v);
    QVERIFY(!vr.ok());
    QCOMPARE(vr.errors().size(), size_t(1));
    QCOMPARE(vr.errors()[0].key, std::string("data.per_class[0].map50_95"));
  }

  // A real run's lines, one of each type it wrote, come back byte for byte.
  void realRunLinesReencodeByteForByte() {
    std::istringstream in(kDemoRunEvents);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      QCOMPARE(QString::fromStdString(reencodeAny(line)), QString::fromStdString(line));
      ++n;
    }
    QCOMPARE(n, 9);
  }

  // Every type, each field set to a value of its own, comes back byte for byte.
  void everyTypeReencodesByteForByte() {
    RunStartEvent rs;
    rs.versions = {{"stave", "0.1.0"}, {"torch", "2.5"}};
    rs.device = "cuda";
    rs.deviceNames = {"A", "B"};
    rs.worldSize = 2;
    rs.nnodes = 1;
    rs.dataset = {"/d/data.yaml", 100, 20, 3, {"a", "b", "c"}, "h1", 7};
    rs.config = {{"epochs", 3}};
    rs.resolved = {{"precision", "bf16"}};
    rs.nccl = {"nccl", "NVL", true, "INFO", false, 600, 50, "eth0"};
    rs.runDir = "runs/x";
    rs.host = "h";
    checkStruct(rs, 0);
    StepEvent st;
    st.epoch = 2;
    st.iter = 17;
    st.itersPerEpoch = 40;
    st.boxLoss = 1.25;
    st.clsLoss = 0.5;
    st.dflLoss = 0.75;
    st.lr = 0.001;
    st.samplesPerSec = 321.5;
    st.timing.dataWait = 0.01;
    st.timing.total = 0.2;
    checkStruct(st, 1);
    checkStruct(EpochEndEvent{3, 10, 1.5, 0.25, 0.125, 61.5, {0.01, 0.02, 0.03}}, 0);
    ValidationEvent v{4, 0.5, 0.25, 0.625, 0.375, 1.5, 0.5, 0.25, 9.5, {}};
    v.perClass.push_back({0, "circle", 5, 6, 0.5, 0.25, 0.125, -1});
    v.perClass.push_back({1, "square", 7, 9, 0.75, 0.5, 0.25, 0.125});
    checkStruct(v, 0);
    checkStruct(CheckpointEvent{"/r/weights/best.pt", 5, CheckpointKind::Best}, 0);
    checkStruct(WarningEvent{"slow disk", "data", {}}, 0);
    ErrorEvent er;
    er.rank = 1;
    er.message = "failed";
    er.exitCode = 3;
    er.logTail = {"a", "b"};
    er.hint = "try";
    checkStruct(er, -1);
    checkStruct(FinishedEvent{RunStatus::Completed, 7, 10, 5, 0.61, 0.42, 3600.5, "done"}, 0);
    StragglerEvent sg;
    sg.slowRank = 1;
    sg.waitsOn = StepPhase::DataWait;
    sg.fraction = 0.41;
    sg.slowNode = 1;
    sg.message = "rank 1 waits";
    checkStruct(sg, -1);
    checkStruct(RankExitEvent{2, std::nullopt, 9, "killed"}, -1);
    checkStruct(ScheduleReplannedEvent{100, 140, 60, "resume_extended", 31.5}, 0);
  }
};

QTEST_GUILESS_MAIN(TestEventTables)
#include "tst_event_tables.moc"
