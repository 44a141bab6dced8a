// The event codec: every typed event survives encode -> decode -> read, the wire format keeps
// its field names, and every kind of bad line is refused with an error that names the problem.

#include <QtTest>

#include <algorithm>
#include <cmath>

#include "core/telemetry/events.h"

using namespace stave::telemetry;
using nlohmann::json;

namespace {

// Encodes and decodes, failing the test with the decode error when there is one.
Event roundTrip(const Event& e) {
  const std::string line = encodeEvent(e);
  if (line.find('\n') != std::string::npos) qFatal("encoded event contains a newline");
  auto decoded = decodeEvent(line);
  if (!decoded) qFatal("decode failed: %s", decoded.errorText().c_str());
  return decoded.value();
}

}  // namespace

class TestEvents : public QObject {
  Q_OBJECT

 private slots:
  // The store reads sample events without a JSON tree: the same leaves, keyed the same way, as
  // flattenNumbers on the decoded event; anything else is refused (decoded in full instead).
  void scannedLeavesEqualFlattened() {
    GpuSampleEvent g;
    for (int i : {0, 1, 3}) {
      GpuReading r;
      r.index = i;
      r.name = "GPU";
      r.util = 90 + i;
      r.memUsed = 1e9 * (i + 1);
      g.gpus.push_back(r);
    }
    SystemSampleEvent sys;
    sys.cpu = {10, 20.5};
    sys.cpuTotal = 15;
    sys.memUsed = 3e9;
    sys.ranks = {{4, 100, 2e9, 150}, {5, 101, 3e9, 50}};  // "rank" comes after "cpu" and "pid"
    std::vector<Event> events{toEvent(g, -1), toEvent(sys, -1)};
    Event nested;
    nested.type = "custom_sample";
    nested.rank = 2;
    nested.time = 7.5;
    nested.data = nlohmann::json::parse(
        R"({"a": {"b": [1, {"index": 9, "x": 2, "y": {"z": 3}}, [4, 5]], "pid": 7}, "s": "t", "n": null, "f": true})");
    events.push_back(nested);
    for (auto& e : events) {
      e.time = 12.25;
      const std::string line = encodeEvent(e);
      ScannedEvent scanned;
      QVERIFY2(scanEventLeaves(line, &scanned), line.c_str());
      std::vector<std::pair<std::string, double>> expected;
      flattenNumbers(decodeEvent(line).value().data, "", expected);
      std::sort(expected.begin(), expected.end());
      std::sort(scanned.leaves.begin(), scanned.leaves.end());
      QCOMPARE(scanned.leaves, expected);
      QCOMPARE(scanned.type, e.type);
      QCOMPARE(scanned.rank, e.rank);
      QCOMPARE(scanned.time, 12.25);
    }
    ScannedEvent out;
    QVERIFY(!scanEventLeaves("{\"type\": \"x\", \"data\": [1]}", &out));      // data not an object
    QVERIFY(!scanEventLeaves("{\"type\": \"x\", \"data\": {\"a\": 1", &out));  // cut off
    QVERIFY(!scanEventLeaves("{\"data\": {}}", &out));                            // no type
    QVERIFY(!scanEventLeaves("{\"type\": \"x\", \"version\": 99, \"data\": {}}", &out));
  }

  void envelopeRoundTrip() {
    Event e;
    e.type = "step";
    e.rank = 3;
    e.time = 1764680000.25;
    e.data = json{{"x", 1}};
    const Event d = roundTrip(e);
    QCOMPARE(d.type, std::string("step"));
    QCOMPARE(d.version, kEventVersion);
    QCOMPARE(d.rank, 3);
    QCOMPARE(d.time, 1764680000.25);
    QCOMPARE(d.data, json({{"x", 1}}));
  }

  void wireFormatFieldNames() {
    StepEvent s;
    s.epoch = 2;
    s.iter = 7;
    s.itersPerEpoch = 50;
    s.boxLoss = 1.5;
    s.timing.dataWait = 0.25;
    s.timing.total = 1.0;
    const json j = json::parse(encodeEvent(toEvent(s, 1)));
    // The studio and external tools rely on these names; changing one is a protocol change.
    QCOMPARE(j.at("type").get<std::string>(), std::string("step"));
    QCOMPARE(j.at("version").get<int>(), 1);
    QCOMPARE(j.at("rank").get<int>(), 1);
    QVERIFY(j.at("time").get<double>() > 1.6e9);
    QCOMPARE(j.at("data").at("epoch").get<int>(), 2);
    QCOMPARE(j.at("data").at("iters_per_epoch").get<int>(), 50);
    QCOMPARE(j.at("data").at("box_loss").get<double>(), 1.5);
    QCOMPARE(j.at("data").at("timing").at("data_wait").get<double>(), 0.25);
    QCOMPARE(j.at("data").at("timing").at("allreduce_wait").get<double>(), 0.0);
  }

  void stepRoundTrip() {
    StepEvent s;
    s.epoch = 4;
    s.iter = 12;
    s.itersPerEpoch = 100;
    s.boxLoss = 1.25;
    s.clsLoss = 2.5;
    s.dflLoss = 1.125;
    s.lr = 0.00875;
    s.samplesPerSec = 310.5;
    s.timing = {0.01, 0.002, 0.3, 0.04, 0.005, 0.36};
    auto r = stepFromEvent(roundTrip(toEvent(s, 2)));
    QVERIFY2(r.ok(), r.errorText().c_str());
    QCOMPARE(r->epoch, 4);
    QCOMPARE(r->iter, 12);
    QCOMPARE(r->itersPerEpoch, 100);
    QCOMPARE(r->boxLoss, 1.25);
    QCOMPARE(r->clsLoss, 2.5);
    QCOMPARE(r->dflLoss, 1.125);
    QCOMPARE(r->lr, 0.00875);
    QCOMPARE(r->samplesPerSec, 310.5);
    QCOMPARE(r->timing.dataWait, 0.01);
    QCOMPARE(r->timing.h2d, 0.002);
    QCOMPARE(r->timing.fwdBwd, 0.3);
    QCOMPARE(r->timing.allreduceWait, 0.04);
    QCOMPARE(r->timing.optimizer, 0.005);
    QCOMPARE(r->timing.total, 0.36);
  }

  void nonFiniteLossTravelsAsNull() {
    StepEvent s;
    s.boxLoss = std::nan("");
    s.clsLoss = INFINITY;
    const std::string line = encodeEvent(toEvent(s, 0));
    QVERIFY(line.find("\"box_loss\":null") != std::string::npos);
    auto r = stepFromEvent(roundTrip(toEvent(s, 0)));
    QVERIFY2(r.ok(), r.errorText().c_str());
    QVERIFY(std::isnan(r->boxLoss));
    QVERIFY(std::isnan(r->clsLoss));  // infinity is not JSON either; it reads back as NaN
  }

  void runStartRoundTrip() {
    RunStartEvent s;
    s.versions = {{"stave", "0.1.0"}, {"torch", "1.13.1"}, {"cuda", ""}};
    s.device = "cuda";
    s.deviceNames = {"NVIDIA H100", "NVIDIA H100"};
    s.worldSize = 2;
    s.nnodes = 1;
    s.dataset = {"/d/data.yaml", 800, 200, 3, {"cat", "dog", "bird"}};
    s.config = json{{"lr0", 0.01}, {"epochs", 100}, {"model", "yolov8n"}};
    s.nccl = {"nccl", "NVL", true, "INFO", true, 600, 50};
    s.runDir = "/p/runs/3";
    const Event ev = toEvent(s, 0);
    auto r = runStartFromEvent(roundTrip(ev));
    QVERIFY2(r.ok(), r.errorText().c_str());
    QCOMPARE(r->versions, s.versions);
    QCOMPARE(r->device, std::string("cuda"));
    QCOMPARE(r->deviceNames, s.deviceNames);
    QCOMPARE(r->worldSize, 2);
    QCOMPARE(r->dataset.trainImages, int64_t(800));
    QCOMPARE(r->dataset.valImages, int64_t(200));
    QCOMPARE(r->dataset.nc, 3);
    QCOMPARE(r->dataset.names, s.dataset.names);
    QCOMPARE(r->config, s.config);
    QCOMPARE(r->nccl.backend, std::string("nccl"));
    QCOMPARE(r->nccl.p2pLevel, std::string("NVL"));
    QCOMPARE(r->nccl.shmDisable, true);
    QCOMPARE(r->nccl.debug, std::string("INFO"));
    QCOMPARE(r->nccl.timeoutS, 600.0);
    QCOMPARE(r->nccl.bucketMb, 50.0);
    QCOMPARE(r->runDir, s.runDir);
    QCOMPARE(toEvent(r.value(), 0).data, ev.data);
  }

  void epochValidationCheckpointRoundTrip() {
    EpochEndEvent ep{3, 10, 1.1, 2.2, 0.9, 42.5, {0.01, 0.01, 0.02}};
    auto e = epochEndFromEvent(roundTrip(toEvent(ep, 0)));
    QVERIFY2(e.ok(), e.errorText().c_str());
    QCOMPARE(e->epoch, 3);
    QCOMPARE(e->epochs, 10);
    QCOMPARE(e->epochTime, 42.5);
    QCOMPARE(e->lr, (std::vector<double>{0.01, 0.01, 0.02}));
    QCOMPARE(e->dflLoss, 0.9);

    ValidationEvent v;
    v.epoch = 3;
    v.precision = 0.6;
    v.recall = 0.5;
    v.map50 = 0.55;
    v.map5095 = 0.31;
    v.boxLoss = 1.0;
    v.valTime = 7.5;
    v.perClass = {{0, "cat", 10, 14, 0.7, 0.6, 0.65, 0.4}, {1, "dog", 0, 0, 0, 0, -1, -1}};
    const Event vev = toEvent(v, 0);
    auto vr = validationFromEvent(roundTrip(vev));
    QVERIFY2(vr.ok(), vr.errorText().c_str());
    QCOMPARE(vr->map5095, 0.31);
    QCOMPARE(vr->valTime, 7.5);
    QCOMPARE(int(vr->perClass.size()), 2);
    QCOMPARE(vr->perClass[0].name, std::string("cat"));
    QCOMPARE(vr->perClass[0].instances, int64_t(14));
    QCOMPARE(vr->perClass[1].map50, -1.0);
    QCOMPARE(toEvent(vr.value(), 0).data, vev.data);
    // Per-class rows are optional on the wire.
    v.perClass.clear();
    const json noRows = toEvent(v, 0).data;
    QVERIFY(!noRows.contains("per_class"));
    QVERIFY(validationFromEvent(roundTrip(toEvent(v, 0))).ok());

    for (CheckpointKind k :
         {CheckpointKind::Last, CheckpointKind::Best, CheckpointKind::Periodic}) {
      auto c = checkpointFromEvent(roundTrip(toEvent(CheckpointEvent{"w/last.pt", 5, k}, 0)));
      QVERIFY2(c.ok(), c.errorText().c_str());
      QCOMPARE(c->kind, k);
      QCOMPARE(c->path, std::string("w/last.pt"));
      QCOMPARE(c->epoch, 5);
    }
  }

  void warningErrorFinishedRoundTrip() {
    auto w = warningFromEvent(roundTrip(toEvent(WarningEvent{"3 labels out of range", "data"}, 0)));
    QVERIFY2(w.ok(), w.errorText().c_str());
    QCOMPARE(w->message, std::string("3 labels out of range"));
    QCOMPARE(w->source, std::string("data"));

    ErrorEvent err;
    err.rank = 1;
    err.message = "rank 1 was killed by SIGKILL";
    err.signal = 9;
    err.logTail = {"epoch 3 iter 12", "\xff not utf-8"};
    err.hint = "check dmesg for the OOM killer";
    auto er = errorFromEvent(roundTrip(toEvent(err, -1)));
    QVERIFY2(er.ok(), er.errorText().c_str());
    QCOMPARE(er->rank, 1);
    QVERIFY(!er->exitCode.has_value());
    QCOMPARE(er->signal.value(), 9);
    QCOMPARE(int(er->logTail.size()), 2);
    QCOMPARE(er->logTail[0], std::string("epoch 3 iter 12"));
    QVERIFY(er->logTail[1].find("not utf-8") != std::string::npos);  // bad bytes replaced
    QCOMPARE(er->hint, err.hint);
    err.signal.reset();
    err.exitCode = 3;
    auto er2 = errorFromEvent(roundTrip(toEvent(err, -1)));
    QVERIFY(er2.ok());
    QCOMPARE(er2->exitCode.value(), 3);
    QVERIFY(!er2->signal.has_value());

    for (RunStatus s :
         {RunStatus::Completed, RunStatus::Stopped, RunStatus::Failed, RunStatus::EarlyStopped}) {
      FinishedEvent f{s, 7, 10, 5, 0.61, 0.42, 3600.5, "done"};
      auto fr = finishedFromEvent(roundTrip(toEvent(f, 0)));
      QVERIFY2(fr.ok(), fr.errorText().c_str());
      QCOMPARE(fr->status, s);
      QCOMPARE(fr->epochsCompleted, 7);
      QCOMPARE(fr->bestEpoch, 5);
      QCOMPARE(fr->bestMap5095, 0.42);
      QCOMPARE(fr->totalTime, 3600.5);
    }
    QCOMPARE(std::string(toString(RunStatus::EarlyStopped)), std::string("early_stopped"));
    QVERIFY(stave::config::memberTableProblems(finishedFields()).empty());
    const nlohmann::json wire{{"status", "stopped"},  {"epochs_completed", 7},
                              {"epochs", 10},         {"best_epoch", 5},
                              {"best_map50", 0.61},   {"best_map50_95", 0.42},
                              {"total_time", 3600.5}, {"message", "done"}};
    QCOMPARE(toEvent(FinishedEvent{RunStatus::Stopped, 7, 10, 5, 0.61, 0.42, 3600.5, "done"}, 0)
                 .data.dump(),
             wire.dump());
  }

  void stragglerRankExitReplanRoundTrip() {
    StragglerEvent s;
    s.slowRank = 1;
    s.waitsOn = StepPhase::DataWait;
    s.fraction = 0.41;
    s.othersFraction = 0.02;
    s.stepTime = 0.5;
    s.imbalance = 0.38;
    s.steps = 20;
    s.message = "rank 1 waits for data 41% of its step";
    const Event sev = toEvent(s, -1);
    auto sr = stragglerFromEvent(roundTrip(sev));
    QVERIFY2(sr.ok(), sr.errorText().c_str());
    QCOMPARE(sr->slowRank, 1);
    QCOMPARE(sr->waitsOn, StepPhase::DataWait);
    QCOMPARE(sr->fraction, 0.41);
    QCOMPARE(sr->message, s.message);
    QCOMPARE(toEvent(sr.value(), -1).data, sev.data);

    RankExitEvent x{2, std::nullopt, 9, "killed"};
    auto xr = rankExitFromEvent(roundTrip(toEvent(x, -1)));
    QVERIFY2(xr.ok(), xr.errorText().c_str());
    QCOMPARE(xr->rank, 2);
    QCOMPARE(xr->signal.value(), 9);
    QCOMPARE(xr->outcome, std::string("killed"));

    ScheduleReplannedEvent p{100, 140, 60, "resume_extended", 31.5};
    auto pr = scheduleReplannedFromEvent(roundTrip(toEvent(p, 0)));
    QVERIFY2(pr.ok(), pr.errorText().c_str());
    QCOMPARE(pr->oldEpochs, 100);
    QCOMPARE(pr->newEpochs, 140);
    QCOMPARE(pr->atEpoch, 60);
    QCOMPARE(pr->reason, std::string("resume_extended"));
    QCOMPARE(pr->epochTime, 31.5);
    // The payload read and written through the member table keeps its fields and their types.
    QVERIFY(stave::config::memberTableProblems(scheduleReplannedFields()).empty());
    const nlohmann::json wire{{"old_epochs", 100},
                              {"new_epochs", 140},
                              {"at_epoch", 60},
                              {"reason", "resume_extended"},
                              {"epoch_time", 31.5}};
    QCOMPARE(toEvent(p, 0).data.dump(), wire.dump());
    nlohmann::json old = wire;  // an older log without the optional fields
    old.erase("at_epoch");
    old.erase("epoch_time");
    Event oldEvent = toEvent(p, 0);
    oldEvent.data = old;
    auto po = scheduleReplannedFromEvent(oldEvent);
    QVERIFY2(po.ok(), po.errorText().c_str());
    QCOMPARE(po->atEpoch, 0);
    oldEvent.data.erase("reason");
    oldEvent.data["old_epochs"] = "100";
    auto pb = scheduleReplannedFromEvent(oldEvent);
    QVERIFY(!pb.ok());
    QCOMPARE(pb.errors().size(), size_t(2));
    QCOMPARE(pb.errors()[0].toString(),
             std::string("data.old_epochs: must be an integer, got string"));
    QCOMPARE(pb.errors()[1].toString(), std::string("data.reason: missing"));
  }

  void decodeErrors_data() {
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("needle");
    QTest::newRow("empty") << ""
                           << ""
                           << "not JSON";
    QTest::newRow("garbage") << "epoch 3 loss 1.2"
                             << ""
                             << "not JSON";
    QTest::newRow("truncated") << "{\"type\":\"step\",\"version\":1,\"da"
                               << ""
                               << "not JSON";
    QTest::newRow("overflowing number") << "{\"type\":\"step\",\"version\":1,\"data\":{\"loss\":1e999}}"
                                        << "data.loss"
                                        << "out of range";
    QTest::newRow("array") << "[1,2]"
                           << ""
                           << "expected a JSON object, got array";
    QTest::newRow("number") << "42"
                            << ""
                            << "expected a JSON object, got integer";
    QTest::newRow("no type") << R"({"version":1,"data":{}})"
                             << "type"
                             << "missing";
    QTest::newRow("type not string") << R"({"type":3,"version":1})"
                                     << "type"
                                     << "must be a string, got integer";
    QTest::newRow("empty type") << R"({"type":"","version":1})"
                                << "type"
                                << "must not be empty";
    QTest::newRow("no version") << R"({"type":"step"})"
                                << "version"
                                << "missing";
    QTest::newRow("version string") << R"({"type":"step","version":"1"})"
                                    << "version"
                                    << "must be an integer, got string";
    QTest::newRow("version fraction") << R"({"type":"step","version":1.5})"
                                      << "version"
                                      << "must be an integer, got number";
    QTest::newRow("newer version") << R"({"type":"step","version":2,"data":{}})"
                                   << "version"
                                   << "event version 2 is newer than this program reads";
    QTest::newRow("newer version, other fields bad") << R"({"type":7,"version":9})"
                                                     << "version"
                                                     << "newer";
    QTest::newRow("version zero") << R"({"type":"step","version":0})"
                                  << "version"
                                  << "must be 1 or more";
    QTest::newRow("rank string") << R"({"type":"step","version":1,"rank":"0"})"
                                 << "rank"
                                 << "must be an integer, got string";
    QTest::newRow("time string") << R"({"type":"step","version":1,"time":"now"})"
                                 << "time"
                                 << "must be a number, got string";
    QTest::newRow("data array") << R"({"type":"step","version":1,"data":[]})"
                                << "data"
                                << "must be an object, got array";
  }

  void decodeErrors() {
    QFETCH(QString, line);
    QFETCH(QString, key);
    QFETCH(QString, needle);
    auto r = decodeEvent(line.toStdString());
    QVERIFY(!r.ok());
    QVERIFY(!r.errors().empty());
    const auto& e = r.errors().front();
    QCOMPARE(QString::fromStdString(e.key), key);
    QVERIFY2(e.message.find(needle.toStdString()) != std::string::npos, e.message.c_str());
  }

  void decodeAcceptsLineEndingsAndDefaults() {
    auto r = decodeEvent("{\"type\":\"warning\",\"version\":1,\"data\":{\"message\":\"m\"}}\r\n");
    QVERIFY2(r.ok(), r.errorText().c_str());
    QCOMPARE(r->rank, 0);
    QCOMPARE(r->time, 0.0);
    auto w = warningFromEvent(r.value());
    QVERIFY(w.ok());
    QCOMPARE(w->message, std::string("m"));
    // Integral floats from other writers are accepted, unknown fields ignored.
    auto r2 = decodeEvent(R"({"type":"x","version":1.0,"rank":2.0,"extra":true})");
    QVERIFY2(r2.ok(), r2.errorText().c_str());
    QCOMPARE(r2->rank, 2);
    QVERIFY(r2->data.is_object());
  }

  void typedReadErrors() {
    // Wrong event type.
    auto wrong = stepFromEvent(toEvent(WarningEvent{"m", ""}, 0));
    QVERIFY(!wrong.ok());
    QCOMPARE(wrong.errors()[0].key, std::string("type"));
    QVERIFY(wrong.errors()[0].message.find("expected a \"step\" event") != std::string::npos);

    // Every problem of a payload is reported, each naming its field.
    Event e = toEvent(StepEvent{}, 0);
    e.data.erase("lr");
    e.data["epoch"] = "three";
    e.data["timing"]["fwd_bwd"] = true;
    auto r = stepFromEvent(e);
    QVERIFY(!r.ok());
    QCOMPARE(int(r.errors().size()), 3);
    const std::string text = r.errorText();
    QVERIFY2(text.find("data.epoch: must be an integer, got string") != std::string::npos,
             text.c_str());
    QVERIFY2(text.find("data.lr: missing") != std::string::npos, text.c_str());
    QVERIFY2(text.find("data.timing.fwd_bwd: must be a number, got bool") != std::string::npos,
             text.c_str());

    Event c = toEvent(CheckpointEvent{"p", 1, CheckpointKind::Best}, 0);
    c.data["kind"] = "newest";
    auto cr = checkpointFromEvent(c);
    QVERIFY(!cr.ok());
    QVERIFY2(cr.errorText().find("data.kind: \"newest\" is not one of last, best, periodic") !=
                 std::string::npos,
             cr.errorText().c_str());

    Event f = toEvent(FinishedEvent{}, 0);
    f.data["status"] = "exploded";
    QVERIFY(!finishedFromEvent(f).ok());

    Event v = toEvent(ValidationEvent{}, 0);
    v.data["per_class"] = json::array(
        {json{{"cls", 0}, {"precision", 1}, {"recall", 1}, {"map50", 1}, {"map50_95", "x"}}});
    auto vr = validationFromEvent(v);
    QVERIFY(!vr.ok());
    QVERIFY2(
        vr.errorText().find("data.per_class[0].map50_95: must be a number") != std::string::npos,
        vr.errorText().c_str());

    Event x = toEvent(ErrorEvent{}, 0);
    x.data["log_tail"] = json::array({"ok", 5});
    auto xr = errorFromEvent(x);
    QVERIFY(!xr.ok());
    QVERIFY2(xr.errorText().find("data.log_tail[1]: must be a string") != std::string::npos,
             xr.errorText().c_str());
  }

  void timingArithmetic() {
    StepTiming a{1, 2, 3, 4, 5, 15};
    StepTiming b{1, 1, 1, 1, 1, 5};
    StepTiming m = (a + b) * 0.5;
    QCOMPARE(m.dataWait, 1.0);
    QCOMPARE(m.h2d, 1.5);
    QCOMPARE(m.fwdBwd, 2.0);
    QCOMPARE(m.allreduceWait, 2.5);
    QCOMPARE(m.optimizer, 3.0);
    QCOMPARE(m.total, 10.0);
    QCOMPARE(phaseSeconds(a, StepPhase::AllreduceWait), 4.0);
    QCOMPARE(std::string(toString(StepPhase::FwdBwd)), std::string("fwd_bwd"));
  }
};

QTEST_GUILESS_MAIN(TestEvents)
#include "tst_events.moc"
