// The doctor's rules on planted timings: each rule fires on its bottleneck with the advice it
// should give and stays silent on the others; warm-up steps are never judged; a rule needs
// enough steps and confirmation over periods, and does not flap; the diagnosis event travels.

#include <QtTest>

#include <cmath>
#include <limits>

#include "core/telemetry/doctor.h"
#include "unit/telemetry/doctor_fixture.h"

using namespace stave::telemetry;
using namespace stave::telemetry::test;
using nlohmann::json;

namespace {

const Finding* find(const DiagnosisEvent& d, const std::string& rule) {
  for (const auto& f : d.findings)
    if (f.rule == rule) return &f;
  return nullptr;
}

std::string adviceOf(const DiagnosisEvent& d, const std::string& rule) {
  const Finding* f = find(d, rule);
  return f ? adviceText(f->advice) : "<no finding>";
}


}  // namespace

class TestDoctor : public QObject {
  Q_OBJECT

 private slots:
  void everyRuleHasAnId() {
    const auto ids = doctorRuleIds();
    for (const char* id : {"data_bound", "input_copy_bound", "communication_bound", "straggler",
                           "memory_headroom", "gpu_underused"})
      QVERIFY2(std::find(ids.begin(), ids.end(), id) != ids.end(), id);
  }

  void dataBoundWithIdleCoresAdvisesWorkersAndCache() {
    Doctor d(quick());
    d.add(runStart("cpu", 1, {{"workers", 0}, {"cache", "none"}}));
    d.add(cpuSample(40, 8));
    feed(d, {timing(0.5, 0, 0.45, 0, 0.05)}, 20);
    const auto r = d.finalReport();
    QVERIFY(r.final);
    const Finding* f = find(r, "data_bound");
    QVERIFY2(f, r.summary.c_str());
    QCOMPARE(adviceOf(r, "data_bound"), std::string("workers=8 cache=ram"));
    QCOMPARE(f->severity, Severity::Critical);
    QVERIFY(std::abs(f->evidence.at("data_wait_share") - 0.5) < 1e-9);
    QVERIFY(f->message.find("50%") != std::string::npos);
    QCOMPARE(r.findings.size(), size_t(1));  // nothing else on a CPU run
    QVERIFY(r.summary.find("workers=8 cache=ram") != std::string::npos);
  }

  void dataBoundWithBusyCoresOnlyCaches() {
    Doctor d(quick());
    d.add(runStart("cpu", 1, {{"workers", 2}, {"cache", "none"}}));
    d.add(cpuSample(96, 8));
    feed(d, {timing(0.3, 0, 0.65, 0, 0.05)}, 20);
    QCOMPARE(adviceOf(d.finalReport(), "data_bound"), std::string("cache=ram"));
    QCOMPARE(find(d.finalReport(), "data_bound")->severity, Severity::Warning);
  }

  void dataBoundWithNothingLeftToTurnSaysSo() {
    Doctor d(quick());
    d.add(runStart("cpu", 1, {{"workers", 8}, {"cache", "ram"}}));
    d.add(cpuSample(97, 8));
    feed(d, {timing(0.3, 0, 0.65, 0, 0.05)}, 1, 0);  // the first epoch fills the cache
    feed(d, {timing(0.3, 0, 0.65, 0, 0.05)}, 20);
    const auto r = d.finalReport();
    QCOMPARE(adviceOf(r, "data_bound"), std::string(""));
    QVERIFY(find(r, "data_bound")->message.find("more CPU per GPU") != std::string::npos);
  }

  void littleDataWaitIsNoFinding() {
    Doctor d(quick());
    d.add(runStart("cpu", 1, {{"workers", 0}}));
    feed(d, {timing(0.05, 0, 0.9, 0, 0.05)}, 20);
    const auto r = d.finalReport();
    QVERIFY(r.findings.empty());
    QVERIFY2(r.summary.find("no bottleneck found") == 0, r.summary.c_str());
  }

  void inputCopyBoundOnCudaOnly() {
    Doctor d(quick());
    d.add(runStart("cuda", 1, {{"pin_memory", false}}));
    d.add(gpuSample(90, 0.6, 1));
    feed(d, {timing(0.01, 0.3, 0.64, 0, 0.05)}, 20);
    QCOMPARE(adviceOf(d.finalReport(), "input_copy_bound"), std::string("pin_memory=true"));

    Doctor pinned(quick());
    pinned.add(runStart("cuda", 1, {{"pin_memory", true}}));
    feed(pinned, {timing(0.01, 0.3, 0.64, 0, 0.05)}, 20);
    const auto pinnedReport = pinned.finalReport();
    const Finding* f = find(pinnedReport, "input_copy_bound");
    QVERIFY(f && f->advice.empty());
    QVERIFY(f->message.find("PCIe") != std::string::npos);

    Doctor cpu(quick());
    cpu.add(runStart("cpu", 1, {{"pin_memory", false}}));
    feed(cpu, {timing(0.01, 0.3, 0.64, 0, 0.05)}, 20);
    QVERIFY(!find(cpu.finalReport(), "input_copy_bound"));
  }

  void communicationBoundWithTinyBuckets() {
    Doctor d(quick());
    d.add(runStart("cpu", 2, {{"bucket_mb", 1}, {"batch", 16}, {"nbs", 64}}));
    feed(d, {timing(0.01, 0, 0.5, 0.4, 0.09), timing(0.01, 0, 0.5, 0.4, 0.09)}, 20);
    const auto r = d.finalReport();
    QCOMPARE(adviceOf(r, "communication_bound"), std::string("bucket_mb=25"));
    QVERIFY(!find(r, "straggler"));

    Doctor big(quick());
    big.add(runStart("cpu", 2, {{"bucket_mb", 25}, {"batch", 16}, {"nbs", 64}}));
    feed(big, {timing(0.01, 0, 0.5, 0.4, 0.09), timing(0.01, 0, 0.5, 0.4, 0.09)}, 20);
    QCOMPARE(adviceOf(big.finalReport(), "communication_bound"), std::string("nbs=128"));

    Doctor one(quick());  // one rank never waits for peers
    one.add(runStart("cpu", 1, {{"bucket_mb", 1}}));
    feed(one, {timing(0.01, 0, 0.5, 0.4, 0.09)}, 20);
    QVERIFY(!find(one.finalReport(), "communication_bound"));
  }

  void stragglerNamesTheRankAndItsPhase() {
    Doctor d(quick());
    d.add(runStart("cpu", 2, {{"cache", "none"}, {"bucket_mb", 25}}));
    // Rank 1 waits 0.4 s for data; rank 0 waits as long for it in the all-reduce.
    feed(d, {timing(0.01, 0, 0.5, 0.42, 0.07), timing(0.41, 0, 0.5, 0.02, 0.07)}, 20);
    const auto r = d.finalReport();
    const Finding* f = find(r, "straggler");
    QVERIFY2(f, r.summary.c_str());
    QCOMPARE(f->rank, 1);
    QVERIFY2(f->message.find("rank 1 waits for data") != std::string::npos, f->message.c_str());
    QCOMPARE(adviceOf(r, "straggler"), std::string("cache=ram"));
    QVERIFY(!find(r, "communication_bound"));  // the wait is for the straggler, not the link

    Doctor gpu(quick());
    gpu.add(runStart("cuda", 2, {}));
    feed(gpu, {timing(0.01, 0, 0.5, 0.3, 0.05), timing(0.01, 0, 0.8, 0.0, 0.05)}, 20);
    const auto gpuReport = gpu.finalReport();
    const Finding* g = find(gpuReport, "straggler");
    QVERIFY(g && g->rank == 1);
    QVERIFY(g->message.find("forward+backward") != std::string::npos);
    QVERIFY(g->message.find("Hardware page") != std::string::npos);
  }

  void memoryNearFullAndHeadroom() {
    Doctor full(quick());
    full.add(runStart("cuda", 1, {{"batch", 16}}));
    full.add(gpuSample(95, 0.97));
    feed(full, {timing(0.01, 0.01, 0.9, 0, 0.05)}, 20);
    const auto fullReport = full.finalReport();
    const Finding* f = find(fullReport, "memory_headroom");
    QVERIFY(f);
    QCOMPARE(f->severity, Severity::Critical);
    QCOMPARE(adviceText(f->advice), std::string("batch=12"));

    Doctor room(quick());
    room.add(runStart("cuda", 1, {{"batch", 16}}));
    room.add(gpuSample(95, 0.2));
    feed(room, {timing(0.01, 0.01, 0.9, 0, 0.05)}, 20);
    const auto roomReport = room.finalReport();
    const Finding* g = find(roomReport, "memory_headroom");
    QVERIFY(g);
    QCOMPARE(g->severity, Severity::Info);
    QCOMPARE(adviceText(g->advice), std::string("batch=32"));
    QCOMPARE(roomReport.findings.back().rule, std::string("memory_headroom"));  // info last

    Doctor mid(quick());
    mid.add(runStart("cuda", 1, {{"batch", 16}}));
    mid.add(gpuSample(95, 0.7));
    feed(mid, {timing(0.01, 0.01, 0.9, 0, 0.05)}, 20);
    QVERIFY(!find(mid.finalReport(), "memory_headroom"));
  }

  void gpuUnderusedAdvisesPrecisionLayoutAndBatch() {
    Doctor d(quick());
    d.add(runStart("cuda", 1,
                   {{"amp", false}, {"precision", "auto"}, {"channels_last", false}, {"batch", 16}}));
    d.add(gpuSample(40, 0.3, 1));
    feed(d, {timing(0.01, 0.01, 0.9, 0, 0.05)}, 20);
    QCOMPARE(adviceOf(d.finalReport(), "gpu_underused"),
             std::string("amp=true channels_last=true batch=32"));
    // channels_last is auto, true or false now (older logs hold a bool): auto is off on CUDA.
    for (const auto& [value, advised] :
         std::vector<std::pair<nlohmann::json, bool>>{{"auto", true}, {"false", true}, {"true", false}, {true, false}}) {
      Doctor e(quick());
      e.add(runStart("cuda", 1, {{"precision", "auto"}, {"channels_last", value}, {"batch", 64}}));
      e.add(gpuSample(40, 0.3, 1));
      feed(e, {timing(0.01, 0.01, 0.9, 0, 0.05)}, 20);
      QCOMPARE(adviceOf(e.finalReport(), "gpu_underused").find("channels_last=true") != std::string::npos, advised);
    }

    // Low utilisation while waiting for data is the data rule's finding, not this one's.
    Doctor starved(quick());
    starved.add(runStart("cuda", 1, {{"amp", false}}));
    starved.add(gpuSample(40, 0.3, 1));
    feed(starved, {timing(0.5, 0.01, 0.4, 0, 0.05)}, 20);
    QVERIFY(!find(starved.finalReport(), "gpu_underused"));
    QVERIFY(find(starved.finalReport(), "data_bound"));

    Doctor busy(quick());
    busy.add(runStart("cuda", 1, {{"amp", false}}));
    busy.add(gpuSample(97, 0.3, 1));
    feed(busy, {timing(0.01, 0.01, 0.9, 0, 0.05)}, 20);
    QVERIFY(!find(busy.finalReport(), "gpu_underused"));
  }

  void warmupIsNotJudged() {
    // The first steps of each rank are left out...
    DoctorOptions o;
    o.warmupSteps = 5;
    Doctor d(o);
    d.add(runStart("cpu", 1, {{"cache", "none"}, {"workers", 0}}));
    feed(d, {timing(5.0, 0, 0.5, 0, 0.05)}, 5, 0);
    feed(d, {timing(0.01, 0, 0.9, 0, 0.05)}, 20, 0);
    auto r = d.finalReport();
    QVERIFY2(r.findings.empty(), r.summary.c_str());
    QCOMPARE(r.warmupSteps, 5);
    QCOMPARE(r.steps, 20);

    // ... and with a cache, the whole first epoch, which fills it.
    Doctor c(o);
    c.add(runStart("cpu", 1, {{"cache", "ram"}, {"workers", 0}}));
    feed(c, {timing(0.6, 0, 0.4, 0, 0.05)}, 30, 3);  // a resumed run's first epoch is 3
    feed(c, {timing(0.01, 0, 0.9, 0, 0.05)}, 20, 4);
    r = c.finalReport();
    QVERIFY2(r.findings.empty(), r.summary.c_str());
    QCOMPARE(r.warmupSteps, 30);

    // Without a cache a slow first epoch is a finding.
    Doctor n(o);
    n.add(runStart("cpu", 1, {{"cache", "none"}, {"workers", 0}}));
    feed(n, {timing(0.6, 0, 0.4, 0, 0.05)}, 30, 0);
    QVERIFY(find(n.finalReport(), "data_bound"));

    // A period of nothing but warm-up says so.
    Doctor w(o);
    w.add(runStart("cpu", 1, {}));
    feed(w, {timing(0.6, 0, 0.4, 0, 0.05)}, 3, 0);
    bool judged = true;
    const auto p = w.diagnose(10, &judged);
    QVERIFY(!judged);
    QCOMPARE(p.warmupSteps, 3);
    QVERIFY2(p.summary.find("warm-up") == 0, p.summary.c_str());
  }

  void tooFewStepsAreNotJudged() {
    Doctor d(quick());
    d.add(runStart("cpu", 1, {{"workers", 0}}));
    feed(d, {timing(0.9, 0, 0.1, 0, 0)}, 2);  // minSteps is 3 per period
    bool judged = true;
    auto p = d.diagnose(30, &judged);
    QVERIFY(!judged);
    QVERIFY(p.findings.empty());
    const auto r = d.finalReport();  // minFinalSteps is 6
    QVERIFY(r.findings.empty());
    QVERIFY2(r.summary.find("not enough steps") == 0, r.summary.c_str());

    Doctor none(quick());
    QVERIFY(none.finalReport().findings.empty());
    QVERIFY(none.finalReport().summary.find("not enough steps") == 0);
  }

  void badTimingsAreDropped() {
    Doctor d(quick());
    d.add(runStart("cpu", 1, {{"workers", 0}}));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    QVERIFY(!d.add(stepEvent(0, 1, timing(nan, 0, 0.5, 0, 0))));
    QVERIFY(!d.add(stepEvent(0, 1, timing(-1, 0, 0.5, 0, 0))));
    QVERIFY(!d.add(stepEvent(0, 1, StepTiming{})));  // a zero-length step
    QCOMPARE(d.stepsSeen(), 0);
    feed(d, {timing(0.01, 0, 0.9, 0, 0.05)}, 10);
    QVERIFY(d.finalReport().findings.empty());
    QCOMPARE(d.finalReport().steps, 10);
  }

  void periodsConfirmBeforeReportingAndDoNotFlap() {
    DoctorOptions o = quick();
    o.confirmPeriods = 2;
    Doctor d(o);
    d.add(runStart("cpu", 1, {{"workers", 0}, {"cache", "none"}}));
    auto period = [&](double data) {
      feed(d, {timing(data, 0, 1.0 - data, 0, 0)}, 5);
      return find(d.diagnose(30), "data_bound") != nullptr;
    };
    QVERIFY(!period(0.5));  // once is not enough
    QVERIFY(period(0.5));   // twice in a row is
    QVERIFY(period(0.15));  // below the firing threshold, above the clearing one: holds
    QVERIFY(period(0.02));  // one period below the clearing threshold: still reported
    QVERIFY(!period(0.02)); // the second withdraws it
    // Alternating periods never settle into a finding.
    for (int i = 0; i < 4; ++i) {
      QVERIFY(!period(0.5));
      QVERIFY(!period(0.02));
    }
    // A period with too few steps changes nothing.
    QVERIFY(!period(0.5));
    feed(d, {timing(0.02, 0, 0.98, 0, 0)}, 1);
    QVERIFY(!find(d.diagnose(30), "data_bound"));
    QVERIFY(period(0.5));
  }

  void diagnosisEventRoundTrips() {
    Doctor d(quick());
    d.add(runStart("cpu", 2, {{"workers", 0}, {"cache", "none"}}));
    d.add(cpuSample(30, 4));
    feed(d, {timing(0.5, 0, 0.4, 0.05, 0.05), timing(0.5, 0, 0.4, 0.05, 0.05)}, 10);
    const DiagnosisEvent r = d.finalReport();
    QVERIFY(!r.findings.empty());
    const Event e = toEvent(r, -1);
    QCOMPARE(e.type, std::string(event_type::kDiagnosis));
    auto back = diagnosisFromEvent(decodeEvent(encodeEvent(e)).value());
    QVERIFY2(back.ok(), back.errorText().c_str());
    QCOMPARE(back->final, true);
    QCOMPARE(back->steps, r.steps);
    QCOMPARE(back->summary, r.summary);
    QCOMPARE(back->findings.size(), r.findings.size());
    QCOMPARE(back->findings[0].rule, r.findings[0].rule);
    QCOMPARE(back->findings[0].severity, r.findings[0].severity);
    QCOMPARE(adviceText(back->findings[0].advice), adviceText(r.findings[0].advice));
    QCOMPARE(back->findings[0].evidence.at("data_wait_share"),
             r.findings[0].evidence.at("data_wait_share"));
    QCOMPARE(e.data["findings"][0]["advice_text"].get<std::string>(), std::string("workers=2 cache=ram"));

    Event bad = e;
    bad.data["findings"][0].erase("message");
    bad.data["findings"][0]["severity"] = "fatal";
    auto err = diagnosisFromEvent(bad);
    QVERIFY(!err.ok());
    QVERIFY2(err.errorText().find("data.findings[0].message") != std::string::npos,
             err.errorText().c_str());
    QVERIFY2(err.errorText().find("\"fatal\" is not one of") != std::string::npos,
             err.errorText().c_str());
  }

  void formattedReportNamesFindingAndAdvice() {
    Doctor d(quick());
    d.add(runStart("cpu", 1, {{"workers", 0}, {"cache", "none"}}));
    d.add(cpuSample(30, 2));
    feed(d, {timing(0.5, 0, 0.45, 0, 0.05)}, 10);
    const std::string text = formatDiagnosis(d.finalReport());
    QVERIFY2(text.find("[critical] data-bound") != std::string::npos, text.c_str());
    QVERIFY2(text.find("try: workers=2 cache=ram") != std::string::npos, text.c_str());
  }
};

QTEST_GUILESS_MAIN(TestDoctor)
#include "tst_doctor.moc"
