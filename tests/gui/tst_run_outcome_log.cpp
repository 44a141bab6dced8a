// The Run page's log ends with how the run ended (issue 43 §5.5): a resumed run's outcome
// line is the last thing shown, with the training time of every session and their sum (the
// finished event's "training X s" is its own session's); the last lines of the run's log are
// shown only for a run that failed or crashed, and like the doctor's final report (written
// after the finished event) before its outcome, never after it.
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QtTest>

#include "core/studio/project/project_document.h"
#include "core/studio/run/run_controller.h"
#include "common/session_events.h"
#include "core/telemetry/events.h"
#include "widgets/run_page.h"
#include "core/studio/run/run_session.h"

using stave::studio::RunOutcome;
using stave::widgets::RunPage;
namespace tel = stave::telemetry;

namespace {

using stave::test::finished;
using stave::test::runStart;

tel::Event finalDiagnosis(double t) {
  tel::DiagnosisEvent d;
  d.final = true;
  d.summary = "no bottleneck found";
  auto e = tel::toEvent(d, 0);
  e.time = t;
  return e;
}

void writeFile(const QString& path, const QByteArray& text) {
  QDir().mkpath(QFileInfo(path).path());
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  f.write(text);
}

void writeEvents(const QString& dir, const std::vector<tel::Event>& events) {
  QByteArray text;
  for (const auto& e : events) text += QByteArray::fromStdString(tel::encodeEvent(e) + "\n");
  writeFile(dir + "/events.jsonl", text);
}

/// The process that trained `dir` has ended with `code` (its record names an ended process).
void ended(const QString& dir, int code) {
  writeFile(dir + "/launcher.json", QJsonDocument(QJsonObject{{"pid", qint64(QCoreApplication::applicationPid())},
                                                              {"start_ticks", 12345},
                                                              {"host", QSysInfo::machineHostName()},
                                                              {"boot_id", "x"}})
                                        .toJson());
  writeFile(dir + "/exit_status", QByteArray::number(code) + "\n");
}

QStringList logLines(RunPage& page) { return page.logView()->toPlainText().split('\n', Qt::SkipEmptyParts); }

}  // namespace

class TestRunOutcomeLog : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  stave::studio::ProjectDocument m_doc;

 private slots:
  void resumedRunEndsWithItsOutcomeAndEverySessionsTime() {
    const QString dir = m_dir.filePath("runs/resumed");
    writeEvents(dir, {runStart(1000),
                      finished(1140, tel::RunStatus::Stopped, 1, "stopped on request; training 2 min 7 s, validation 4.2 s", 140),
                      runStart(2000),
                      finished(2030, tel::RunStatus::Completed, 3, "training 24 s, validation 1.9 s", 28),
                      finalDiagnosis(2031)});
    ended(dir, 0);
    writeFile(dir + "/launcher.log", "launcher: rank 0 exited 0\nlauncher: done\n");
    RunPage page(&m_doc);
    QVERIFY(page.showRun(dir));
    QTRY_COMPARE(page.controller()->outcome(), RunOutcome::Completed);
    QTest::qWait(300);  // a log tail asked for would have arrived
    const QStringList lines = logLines(page);
    QVERIFY2(lines.size() >= 3, qPrintable(lines.join('\n')));
    QCOMPARE(lines.at(lines.size() - 2), QString("[run] completed after 3 of 3 epoch(s): training 24 s, validation 1.9 s"));
    QCOMPARE(lines.last(), QString("[run] the whole run: training 2 min 31 s, validation 6.1 s in 2 sessions "
                                   "(training 2 min 7 s + 24 s, validation 4.2 s + 1.9 s)"));
    QVERIFY2(!page.logView()->toPlainText().contains("last lines of"), qPrintable(lines.join('\n')));
    // The doctor's report, written after the finished event, comes before the outcome.
    QCOMPARE(lines.at(lines.size() - 3), QString("[doctor] no bottleneck found"));
    QVERIFY2(page.outcomeLabel()->text().contains("completed · training 2 min 31 s, validation 6.1 s in 2 sessions"),
             qPrintable(page.outcomeLabel()->text()));
  }

  void oneSessionSaysItsTimeOnce() {
    const QString dir = m_dir.filePath("runs/once");
    writeEvents(dir, {runStart(1000), finished(1030, tel::RunStatus::Completed, 3, "training 24 s, validation 1.9 s", 28)});
    RunPage page(&m_doc);
    QVERIFY(page.showRun(dir));
    QTRY_COMPARE(page.controller()->outcome(), RunOutcome::Completed);
    QCOMPARE(logLines(page).last(), QString("[run] completed after 3 of 3 epoch(s): training 24 s, validation 1.9 s"));
    QCOMPARE(page.outcomeLabel()->text(), QString("Outcome: completed · training 24 s, validation 1.9 s"));
  }

  void failureShowsTheLogBeforeItsOutcome() {
    const QString dir = m_dir.filePath("runs/failed");
    tel::ErrorEvent err;
    err.message = "out of memory";
    auto errEvent = tel::toEvent(err, 0);
    errEvent.time = 2010;
    writeEvents(dir, {runStart(1000),
                      finished(1140, tel::RunStatus::Stopped, 1, "stopped on request; training 2 min 7 s, validation 4.2 s", 140),
                      runStart(2000), errEvent,
                      finished(2011, tel::RunStatus::Failed, 1, "out of memory; training 3.0 s, validation 0.0 s", 11)});
    ended(dir, 1);
    writeFile(dir + "/launcher.log", "launcher: starting 1 rank\nrank 0: CUDA out of memory\n");
    RunPage page(&m_doc);
    QVERIFY(page.showRun(dir));
    QTRY_COMPARE(page.controller()->outcome(), RunOutcome::Failed);
    QTRY_VERIFY(page.logView()->toPlainText().contains("last lines of"));
    const QStringList lines = logLines(page);
    const int tail = int(lines.indexOf(QRegularExpression("^\\[studio\\] last lines of .*launcher.log:$")));
    QVERIFY2(tail >= 0, qPrintable(lines.join('\n')));
    QCOMPARE(lines.at(tail + 2), QString("    rank 0: CUDA out of memory"));
    QCOMPARE(lines.at(tail + 3), QString("[run] failed after 1 of 3 epoch(s): out of memory; training 3.0 s, validation 0.0 s"));
    QVERIFY2(lines.last().startsWith("[run] the whole run: training 2 min 10 s, validation 4.2 s in 2 sessions"),
             qPrintable(lines.join('\n')));
  }

  void crashWithoutFinalEventEndsWithTheStudiosOutcome() {
    const QString dir = m_dir.filePath("runs/crashed");
    writeEvents(dir, {runStart(tel::unixTimeNow())});
    ended(dir, 0);
    writeFile(dir + "/launcher.log", "launcher: rank 0 ended\n");
    RunPage page(&m_doc);
    page.sessions()->setPollInterval(20);
    QVERIFY(page.showRun(dir));
    QTRY_COMPARE(page.controller()->outcome(), RunOutcome::Crashed);
    QTRY_VERIFY(page.logView()->toPlainText().contains("last lines of"));
    const QStringList lines = logLines(page);
    QCOMPARE(lines.at(lines.size() - 2), QString("    launcher: rank 0 ended"));
    QCOMPARE(lines.last(), QString("[run] crashed: the process ended without a final event"));
  }
};

QTEST_MAIN(TestRunOutcomeLog)
#include "tst_run_outcome_log.moc"
