// Two Run pages showing one run: the second draws the session's series store as the first
// filled it — the same points, not a copy, and the run not read again (no replay) — and both
// charts grow from the one reader as the run goes on (issue 43 §1: LiveChart draws series it
// does not own).
#include <QDir>
#include <QFile>
#include <QPlainTextEdit>
#include <QTemporaryDir>
#include <QtTest>

#include "common/session_events.h"
#include "core/studio/project/project_document.h"
#include "core/studio/run/run_session.h"
#include "core/telemetry/events.h"
#include "widgets/live_chart.h"
#include "widgets/run_page.h"

namespace tel = stave::telemetry;
using stave::studio::RunSessions;
using stave::widgets::RunPage;

namespace {

tel::Event step(double t, int iter, int rank) {
  tel::StepEvent s;
  s.iter = iter;
  s.itersPerEpoch = 100;
  s.samplesPerSec = 10;
  s.boxLoss = 1.0 / (iter + 1);
  auto e = tel::toEvent(s, rank);
  e.time = t;
  return e;
}

tel::Event gpuSample(double t, double util) {
  tel::GpuSampleEvent g;
  for (int i = 0; i < 2; ++i) {
    tel::GpuReading r;
    r.index = i;
    r.util = util;
    g.gpus.push_back(r);
  }
  auto e = tel::toEvent(g, -1);
  e.time = t;
  return e;
}

void append(const QString& dir, const std::vector<tel::Event>& events) {
  QDir().mkpath(dir);
  QFile f(dir + "/events.jsonl");
  QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Append));
  for (const auto& e : events) f.write(QByteArray::fromStdString(tel::encodeEvent(e) + "\n"));
}

}  // namespace

class TstRunPageShared : public QObject {
  Q_OBJECT
 private slots:
  void aSecondPageDrawsTheSessionsSeries() {
    QTemporaryDir dir;
    const QString run = dir.filePath("runs/shared");
    const double t = tel::unixTimeNow();
    std::vector<tel::Event> events{stave::test::runStart(t)};
    for (int i = 0; i < 20; ++i) {
      events.push_back(step(t + i, i, 1));
      events.push_back(step(t + i, i, 0));
      events.push_back(gpuSample(t + i, 50 + i));
    }
    append(run, events);
    stave::studio::ProjectDocument doc;
    RunSessions sessions;
    sessions.setPollInterval(20);
    RunPage first(&doc, &sessions), second(&doc, &sessions);
    for (RunPage* p : {&first, &second}) p->resize(1200, 800);
    QVERIFY(first.showRun(run));
    auto* losses = first.chart("losses");
    QTRY_VERIFY_WITH_TIMEOUT(losses->seriesCount() == 3 && losses->pointCount(0) == 20, 20000);
    QTRY_VERIFY_WITH_TIMEOUT(first.chart("gpuUtil")->seriesCount() == 2, 20000);

    // The second page: the same session and store, shown at once, nothing read again.
    QVERIFY(second.showRun(run));
    QCOMPARE(second.session(), first.session());
    QCOMPARE(sessions.sessions().size(), 1);
    QCOMPARE(first.session()->replays(), 0);
    auto* losses2 = second.chart("losses");
    QCOMPARE(losses2->seriesCount(), 3);
    QCOMPARE(losses2->pointCount(0), 20);
    QCOMPARE(&losses2->points(0), &losses->points(0));  // the store's, not a copy
    auto* gpus = first.chart("gpuUtil");
    auto* gpus2 = second.chart("gpuUtil");
    QCOMPARE(gpus2->seriesCount(), 2);
    QCOMPARE(gpus2->seriesName(1), gpus->seriesName(1));
    QCOMPARE(&gpus2->points(1), &gpus->points(1));
    QVERIFY(second.gpuChartsShown());
    // Samples/s of both ranks, summed, as the first page shows it.
    QCOMPARE(second.chart("speed")->points(0).y(19), 20.0);

    // The run goes on: one reader, both pages' charts grow.
    append(run, {step(t + 21, 21, 1), step(t + 21, 21, 0), gpuSample(t + 21, 90)});
    QTRY_COMPARE_WITH_TIMEOUT(losses2->pointCount(0), 21, 20000);
    QCOMPARE(losses->pointCount(0), 21);
    QCOMPARE(gpus2->pointCount(0), 21);
    QCOMPARE(first.session()->replays(), 0);
  }
};

QTEST_MAIN(TstRunPageShared)
#include "tst_run_page_shared.moc"
