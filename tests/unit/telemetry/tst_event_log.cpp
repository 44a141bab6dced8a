#include <QtTest>

#include "core/telemetry/event_log.h"

using namespace stave::telemetry;

class TestEventLog : public QObject {
  Q_OBJECT
 private slots:
  void epochAndValidationLines() {
    EventLogFormatter f(0);
    EpochEndEvent e;
    e.epoch = 2;
    e.epochs = 10;
    e.boxLoss = 1.5;
    e.clsLoss = 2.25;
    e.dflLoss = 1.125;
    e.epochTime = 12.3;
    QCOMPARE(QString::fromStdString(*f.format(toEvent(e, 0))),
             QString("epoch 3/10  train box 1.5000 cls 2.2500 dfl 1.1250  12.3 s"));
    ValidationEvent v;
    v.map50 = 0.5;
    v.map5095 = 0.25;
    v.precision = 0.75;
    v.recall = 0.6;
    v.valTime = 2;
    QCOMPARE(QString::fromStdString(*f.format(toEvent(v, 0))),
             QString("  val  P 0.750  R 0.600  mAP50 0.5000  mAP50-95 0.2500  (2.0 s)"));
  }
  void stepLinesAreThinned() {
    EventLogFormatter f(10);
    StepEvent s;
    s.itersPerEpoch = 5;
    s.timing.total = 1;
    s.timing.dataWait = 0.41;
    Event e = toEvent(s, 1);
    e.time = 100;
    auto first = f.format(e);
    QVERIFY(first);
    QVERIFY(first->find("data 41%") != std::string::npos);
    e.time = 105;
    QVERIFY(!f.format(e));  // within 10 s of the last step line
    e.time = 111;
    QVERIFY(f.format(e));
  }
  void finishedAndError() {
    EventLogFormatter f;
    QVERIFY(f.finalStatus().empty());
    ErrorEvent err;
    err.rank = 1;
    err.message = "rank 1 was killed by SIGKILL";
    err.hint = "resume with resume=true";
    err.logTail = {"last line"};
    const std::string text = *f.format(toEvent(err, 1));
    QVERIFY(text.find("error on rank 1: rank 1 was killed by SIGKILL") == 0);
    QVERIFY(text.find("try: resume") != std::string::npos);
    QVERIFY(text.find("| last line") != std::string::npos);
    FinishedEvent done;
    done.status = RunStatus::Completed;
    done.epochsCompleted = done.epochs = 3;
    done.bestEpoch = 2;
    done.bestMap50 = 0.5;
    QVERIFY(f.format(toEvent(done, 0))->find("best epoch 3: mAP50 0.5000") != std::string::npos);
    QCOMPARE(f.finalStatus(), std::string("completed"));
  }
  void unknownTypesPrintNothing() {
    EventLogFormatter f;
    Event e;
    e.type = "something_new";
    QVERIFY(!f.format(e));
  }
};

QTEST_APPLESS_MAIN(TestEventLog)
#include "tst_event_log.moc"
