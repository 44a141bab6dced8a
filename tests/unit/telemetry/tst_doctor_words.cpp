// The doctor's words as catalog messages (issue 43 §4): the English that logs and stave-train
// print is the same sentence, word for word, as before the messages had ids; every sentence of
// a finding and a summary is a catalog id whose placeholders all have arguments; the ids travel
// in the diagnosis event, and an old event without them still reads.

#include <QtTest>

#include "core/telemetry/doctor.h"
#include "unit/telemetry/doctor_fixture.h"
#include "core/telemetry/straggler.h"

using namespace stave::telemetry;
using namespace stave::telemetry::test;
using stave::Text;
using stave::TextParts;
using nlohmann::json;

namespace {

const Finding* find(const DiagnosisEvent& d, const std::string& rule) {
  for (const auto& f : d.findings)
    if (f.rule == rule) return &f;
  return nullptr;
}

// Every id is in the catalog and every placeholder of its template has an argument.
void checkParts(const TextParts& parts, const std::string& where) {
  QVERIFY2(!parts.empty(), where.c_str());
  for (const auto& t : parts) {
    const stave::MessageDef* def = stave::findMessage(t.id);
    QVERIFY2(def, (where + ": " + t.id + " is not in the catalog").c_str());
    for (const auto& name : stave::placeholders(def->english)) {
      const auto arg = std::find_if(t.args.begin(), t.args.end(),
                                    [&](const Text::Arg& a) { return a.name == name; });
      QVERIFY2(arg != t.args.end(), (where + ": " + t.id + " lacks {" + name + "}").c_str());
      if (!arg->text.empty()) checkParts(arg->text, where + "/" + t.id + "." + name);
    }
  }
}

void checkReport(const DiagnosisEvent& r) {
  checkParts(r.summaryText, "summary");
  QCOMPARE(stave::english(r.summaryText), r.summary);
  for (const auto& f : r.findings) {
    checkParts(f.titleText, f.rule + " title");
    checkParts(f.text, f.rule);
    QCOMPARE(stave::english(f.titleText), f.title);
    QCOMPARE(stave::english(f.text), f.message);
  }
}

}  // namespace

class TestDoctorWords : public QObject {
  Q_OBJECT

 private slots:
  // The English of the logs, word for word as the doctor wrote it before it used the catalog.
  void dataBoundEnglishUnchanged() {
    Doctor d(quick());
    d.add(runStart("cpu", 1, {{"workers", 0}, {"cache", "none"}}));
    d.add(cpuSample(40, 8));
    feed(d, {timing(0.5, 0, 0.45, 0, 0.05)}, 20);
    const auto r = d.finalReport();
    checkReport(r);
    const Finding* f = find(r, "data_bound");
    QVERIFY(f);
    QCOMPARE(f->title, std::string("data-bound"));
    const std::string message =
        "ranks wait for data 50% of their step (CPU 40% busy, workers=0, cache=none); the CPU has "
        "idle cores: give each rank as many loader threads as it has cores, and cache decoded "
        "images in RAM so that later epochs skip decoding (cache=disk when the set does not fit)";
    QCOMPARE(f->message, message);
    QCOMPARE(r.summary, "data-bound: " + message + " -> try workers=8 cache=ram");
  }

  void stragglerEnglishUnchanged() {
    Doctor d(quick());
    d.add(runStart("cpu", 2, {{"cache", "none"}, {"bucket_mb", 25}}));
    feed(d, {timing(0.01, 0, 0.5, 0.42, 0.07), timing(0.41, 0, 0.5, 0.02, 0.07)}, 20);
    const auto r = d.finalReport();
    checkReport(r);
    const Finding* f = find(r, "straggler");
    QVERIFY(f);
    QCOMPARE(f->message,
             std::string("rank 1 is 40% of a step slower than the others, who wait for it in the "
                         "all-reduce: rank 1 waits for data 41% of its step; other ranks 1%. Its "
                         "loader is slower: a slower or shared disk, fewer free cores on its node, "
                         "or another job on them"));
    QCOMPARE(describeStraggler(3, StepPhase::FwdBwd, 0.5, -1, 1),
             std::string("rank 3 on node 1 spends 50% of its step in forward+backward"));
  }

  void gpuFindingsEnglishUnchanged() {
    Doctor d(quick());
    d.add(runStart("cuda", 1, {{"amp", false}, {"precision", "fp32"}, {"batch", 8}}));
    d.add(gpuSample(40, 0.2, 1));
    feed(d, {timing(0.01, 0.01, 0.9, 0, 0.08)}, 20);
    const auto r = d.finalReport();
    checkReport(r);
    const Finding* g = find(r, "gpu_underused");
    QVERIFY2(g, r.summary.c_str());
    QCOMPARE(g->title, std::string("GPU under-used"));
    QCOMPARE(g->message,
             std::string("the GPUs are busy 40% of the time although the ranks hardly wait for "
                         "data or peers; they compute in fp32 where bf16 (auto) doubles the "
                         "tensor-core rate; channels-last convolutions are faster on tensor "
                         "cores; a small batch leaves the step launch-bound (many small kernels)"));
    const Finding* m = find(r, "memory_headroom");
    QVERIFY(m);
    QCOMPARE(m->message, std::string("the fullest GPU uses only 20% of its memory: a larger batch "
                                     "per rank fits and keeps the GPU busier"));
  }

  void summariesEnglishUnchanged() {
    Doctor clean(quick());
    clean.add(runStart("cpu", 1, {{"workers", 0}}));
    feed(clean, {timing(0.05, 0, 0.9, 0, 0.05)}, 20);
    const auto c = clean.finalReport();
    checkReport(c);
    QCOMPARE(c.summary, std::string("no bottleneck found: ranks compute 95% of their step (data "
                                    "wait 5%, all-reduce wait 0%)"));
    Doctor few(quick());
    const auto n = few.finalReport();
    checkReport(n);
    QCOMPARE(n.summary, std::string("not enough steps to judge: 0 step samples after the 0 of the "
                                    "warm-up (at least 6 needed)"));
    DoctorOptions o;
    o.warmupSteps = 5;
    Doctor w(o);
    w.add(runStart("cpu", 1, {}));
    feed(w, {timing(0.6, 0, 0.4, 0, 0.05)}, 3, 0);
    const auto p = w.diagnose(10);
    checkReport(p);
    QCOMPARE(p.summary, std::string("warm-up: 3 step samples not judged yet (first steps, and the "
                                    "first epoch while a cache fills)"));
  }

  // The ids and arguments travel in the event; an old event (English only) still reads.
  void idsTravelInTheEvent() {
    Doctor d(quick());
    d.add(runStart("cpu", 2, {{"cache", "none"}, {"bucket_mb", 25}}));
    feed(d, {timing(0.01, 0, 0.5, 0.42, 0.07), timing(0.41, 0, 0.5, 0.02, 0.07)}, 20);
    const auto r = d.finalReport();
    const Event e = toEvent(r, -1);
    auto back = diagnosisFromEvent(decodeEvent(encodeEvent(e)).value());
    QVERIFY2(back.ok(), back.errorText().c_str());
    checkReport(back.value());
    QCOMPARE(stave::english(back->summaryText), r.summary);
    QCOMPARE(back->findings[0].text.front().id, r.findings[0].text.front().id);
    QCOMPARE(stave::english(back->findings[0].text), r.findings[0].message);

    Event old = e;
    old.data.erase("summary_text");
    for (auto& f : old.data["findings"]) {
      f.erase("message_text");
      f.erase("title_text");
    }
    auto oldBack = diagnosisFromEvent(old);
    QVERIFY2(oldBack.ok(), oldBack.errorText().c_str());
    QVERIFY(oldBack->summaryText.empty() && oldBack->findings[0].text.empty());
    QCOMPARE(oldBack->findings[0].message, r.findings[0].message);

    Event bad = e;
    bad.data["findings"][0]["message_text"] = json::array({{{"args", 3}}});
    auto err = diagnosisFromEvent(bad);
    QVERIFY(!err.ok());
    QVERIFY2(err.errorText().find("data.findings[0].message_text[0]") != std::string::npos,
             err.errorText().c_str());
  }

  // Warnings and errors of stave-train and the launcher carry their ids too (the Run page's
  // log); their English reads as before.
  void warningsAndErrorsCarryIds() {
    WarningEvent w{"", "dist"};
    w.text = {Text("launcher.rank_not_started",
                   {{"rank", "2"}, {"seconds", "30"}, {"address", "n0:29500"}, {"nnodes", "2"}})};
    w.message = stave::english(w.text);
    QCOMPARE(w.message,
             std::string("rank 2 has not started training 30 s after it was launched: the ranks "
                         "wait at the rendezvous (n0:29500) until all 2 nodes have joined; is every "
                         "node's launcher started, with the same master_addr, master_port and "
                         "nnodes? (Ctrl-C or SIGTERM stops this wait at once)"));
    auto back = warningFromEvent(decodeEvent(encodeEvent(toEvent(w, -1))).value());
    QVERIFY2(back.ok(), back.errorText().c_str());
    checkParts(back->text, "warning");
    QCOMPARE(stave::english(back->text), w.message);

    ErrorEvent e;
    e.text = {Text("launcher.stop_timeout", {{"seconds", "600"}})};
    e.message = stave::english(e.text);
    e.hintText = {Text("plain", {{"text", "try again"}})};
    e.hint = "try again";
    auto eb = errorFromEvent(decodeEvent(encodeEvent(toEvent(e, -1))).value());
    QVERIFY2(eb.ok(), eb.errorText().c_str());
    QCOMPARE(eb->message, std::string("ranks did not stop within 600 s of the stop request; killed"));
    QCOMPARE(stave::english(eb->text), eb->message);
    QCOMPARE(stave::english(eb->hintText), std::string("try again"));
    // An old warning (English only) still reads.
    Event old = toEvent(WarningEvent{"plain words", "data"}, 0);
    QVERIFY(!old.data.contains("message_text"));
    QVERIFY(warningFromEvent(old)->text.empty());
  }
};

QTEST_MAIN(TestDoctorWords)
#include "tst_doctor_words.moc"
