// EventDispatch: each event reaches the handler of its type with its data decoded into the
// typed struct; an event whose data does not decode reaches `invalid` with the reason (and no
// typed handler); a type with no handler reaches `otherwise`; raw handlers get the event as it
// is; a later handler of a type replaces the earlier one.
#include <QtTest>

#include "core/telemetry/event_dispatch.h"

using namespace stave::telemetry;

class TstEventDispatch : public QObject {
  Q_OBJECT
 private slots:
  void typedHandlers() {
    StepEvent s;
    s.epoch = 2;
    s.iter = 7;
    s.itersPerEpoch = 10;
    s.boxLoss = 1.5;
    EpochEndEvent ee;
    ee.epoch = 3;
    ee.epochs = 9;
    std::vector<std::string> calls;
    double box = 0;
    int rank = -1;
    EventDispatch d;
    d.on<StepEvent>([&](const Event& e, const StepEvent& st) {
       calls.push_back("step");
       box = st.boxLoss;
       rank = e.rank;
     })
        .on<EpochEndEvent>([&](const Event&, const EpochEndEvent& x) { calls.push_back("epoch_end " + std::to_string(x.epoch)); })
        .onRaw(event_type::kWarning, [&](const Event& e) { calls.push_back("raw " + e.type); })
        .invalid([&](const Event& e, const std::string& why) { calls.push_back("invalid " + e.type + ": " + (why.empty() ? "?" : "why")); })
        .otherwise([&](const Event& e) { calls.push_back("other " + e.type); });
    d(toEvent(s, 3));
    QCOMPARE(box, 1.5);
    QCOMPARE(rank, 3);
    d(toEvent(ee, 0));
    Event w;
    w.type = event_type::kWarning;
    w.data = {{"message", "m"}};
    d(w);
    Event bad = toEvent(s, 0);
    bad.data["box_loss"] = "not a number";  // the step's data does not decode
    d(bad);
    Event unknown;
    unknown.type = "something_new";
    d(unknown);
    const std::vector<std::string> want{"step", "epoch_end 3", "raw warning", "invalid step: why", "other something_new"};
    QCOMPARE(calls, want);
    QVERIFY(d.handles(event_type::kStep));
    QVERIFY(!d.handles(event_type::kFinished));
    // A later handler of a type replaces the first.
    d.on<StepEvent>([&](const Event&, const StepEvent&) { calls.push_back("step 2"); });
    d(toEvent(s, 0));
    QCOMPARE(calls.back(), std::string("step 2"));
    QCOMPARE(calls.size(), want.size() + 1);
  }

  void withoutInvalidOrOtherwise() {
    // No invalid handler: a bad event is skipped; no otherwise: an unknown type is ignored.
    int steps = 0;
    EventDispatch d;
    d.on<StepEvent>([&](const Event&, const StepEvent&) { ++steps; });
    Event bad = toEvent(StepEvent{}, 0);
    bad.data["box_loss"] = "x";
    d(bad);
    Event unknown;
    unknown.type = "x";
    d(unknown);
    d(toEvent(StepEvent{}, 0));
    QCOMPARE(steps, 1);
  }
};

QTEST_MAIN(TstEventDispatch)
#include "tst_event_dispatch.moc"
