// Following a remote run while Slurm is slow: the job's state is asked on a thread of its own
// (JobWatcher), so a squeue that takes its whole time limit never holds up the mirror. A local
// shell stands in for ssh (as in tst_mirror); the state question is a function that blocks
// until the test lets it answer.
#include <QtTest/QtTest>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "core/cluster/follow.h"

using namespace stave::cluster;

namespace {

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void append(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::Append));
  f.write(bytes);
}

RemoteResult localShell(const std::string& line, const ProcessOptions& o) {
  RemoteResult r;
  r.process = runProcess({"sh", "-c", line}, o);
  return r;
}

/// A Slurm that does not answer until told to (or until its question is given up).
struct SlowSlurm {
  std::mutex mutex;
  std::condition_variable cv;
  bool answer = false;
  std::string state = "RUNNING";
  std::atomic<int> asked{0}, waiting{0};

  JobState operator()(const std::atomic<bool>* stop) {
    ++asked;
    ++waiting;
    std::unique_lock<std::mutex> lock(mutex);
    while (!answer && !(stop && stop->load())) cv.wait_for(lock, std::chrono::milliseconds(20));
    --waiting;
    JobState s;
    s.state = state;
    s.phase = jobPhase(state);
    return s;
  }
  void release(const std::string& word) {
    std::lock_guard<std::mutex> lock(mutex);
    state = word;
    answer = true;
    cv.notify_all();
  }
};

}  // namespace

class TstFollow : public QObject {
  Q_OBJECT
 private slots:
  void init() {
    QVERIFY(m_tmp.isValid());
    const QString base = m_tmp.filePath(QString::fromLatin1(QTest::currentTestFunction()));
    m_remote = base + "/scratch/a run; $x";
    m_local = base + "/mirror/run-1";
    QVERIFY(QDir().mkpath(m_remote));
  }

  // The state question hangs; new lines still reach the mirror poll after poll, and once Slurm
  // answers that the job ended the follow ends with the mirror equal to the log.
  void mirrorAdvancesWhileSlurmHangs() {
    Mirror mirror(localShell, m_remote.toStdString(), m_local.toStdString());
    auto slurm = std::make_shared<SlowSlurm>();
    JobFollowOptions o;
    o.periodMs = 100;
    o.statePeriodMs = 100;
    o.query = [slurm](const std::atomic<bool>* stop) { return (*slurm)(stop); };
    std::atomic<int> polls{0};
    o.onPoll = [&](const MirrorPoll&) { ++polls; };
    std::atomic<int> states{0};
    o.onState = [&](const JobState&) { ++states; };
    JobFollowOutcome outcome;
    std::atomic<bool> finished{false};
    std::thread follower([&] {
      outcome = followJob(mirror, o);
      finished = true;
    });
    const QString log = m_remote + "/events.jsonl";
    QTRY_VERIFY_WITH_TIMEOUT(slurm->waiting.load() == 1, 20000);  // squeue is "running"
    for (int k = 0; k < 5; ++k) {
      const QByteArray line = QByteArray("{\"step\":") + QByteArray::number(k) + "}\n";
      append(log, line);
      QTRY_VERIFY_WITH_TIMEOUT(readAll(m_local + "/events.jsonl") == readAll(log), 20000);
      // Still the first question, still unanswered: the mirror did not wait for it.
      QCOMPARE(slurm->asked.load(), 1);
      QCOMPARE(slurm->waiting.load(), 1);
    }
    QVERIFY(polls.load() >= 5);
    QCOMPARE(states.load(), 0);
    QVERIFY(!finished.load());
    append(log, "{\"finished\":1}\n");
    slurm->release("COMPLETED");
    QTRY_VERIFY_WITH_TIMEOUT(finished.load(), 20000);
    follower.join();
    QVERIFY2(outcome.error.empty(), outcome.error.c_str());
    QCOMPARE(outcome.last.phase, JobState::Phase::Completed);
    QVERIFY(!outcome.stopped);
    QCOMPARE(states.load(), 1);
    QCOMPARE(readAll(m_local + "/events.jsonl"), readAll(log));
  }

  // Ctrl-C while squeue hangs: the follow ends at once (the question is given up, not awaited).
  void stopWhileSlurmHangs() {
    Mirror mirror(localShell, m_remote.toStdString(), m_local.toStdString());
    auto slurm = std::make_shared<SlowSlurm>();
    std::atomic<bool> stop{false};
    JobFollowOptions o;
    o.periodMs = 100;
    o.query = [slurm](const std::atomic<bool>* s) { return (*slurm)(s); };
    o.stop = &stop;
    std::atomic<bool> finished{false};
    JobFollowOutcome outcome;
    std::thread follower([&] {
      outcome = followJob(mirror, o);
      finished = true;
    });
    QTRY_VERIFY_WITH_TIMEOUT(slurm->waiting.load() == 1, 20000);
    QElapsedTimer t;
    t.start();
    stop = true;
    QTRY_VERIFY_WITH_TIMEOUT(finished.load(), 20000);
    follower.join();
    QVERIFY2(t.elapsed() < 15000, qPrintable(QString::number(t.elapsed())));  // a poll under way ends first
    QVERIFY(outcome.stopped);
    QCOMPARE(outcome.last.phase, JobState::Phase::Unknown);
  }

  // The watcher asks again after each answer, keeps the newest, stops asking once the job ended,
  // and an exception in the question reaches the reader as an error, not a dead thread.
  void watcherKeepsNewestAnswer() {
    std::atomic<int> calls{0};
    JobWatcher w(
        [&](const std::atomic<bool>*) {
          const int n = ++calls;
          if (n == 2) throw std::runtime_error("no squeue");
          JobState s;
          s.state = n < 4 ? "RUNNING" : "FAILED";
          s.phase = jobPhase(s.state);
          return s;
        },
        10);
    int answers = 0;
    QTRY_VERIFY_WITH_TIMEOUT((w.latest(&answers), answers >= 4), 20000);
    const JobState s = w.latest(&answers);
    QCOMPARE(s.phase, JobState::Phase::Failed);
    QCOMPARE(answers, 4);
    // Ended: asked no more, whatever is asked of it.
    w.askNow();
    QTest::qWait(200);
    QCOMPARE(calls.load(), 4);
    QCOMPARE(w.latest(&answers).phase, JobState::Phase::Failed);
    QCOMPARE(answers, 4);

    std::atomic<int> seen{0};
    JobWatcher failing(
        [&](const std::atomic<bool>*) -> JobState {
          ++seen;
          throw std::runtime_error("no squeue");
        },
        10);
    QTRY_VERIFY_WITH_TIMEOUT(!failing.latest().error.empty(), 20000);
    QVERIFY(failing.latest().error.find("no squeue") != std::string::npos);
    QTRY_VERIFY_WITH_TIMEOUT(seen.load() >= 2, 20000);  // tried again
  }

 private:
  QTemporaryDir m_tmp;
  QString m_remote, m_local;
};

QTEST_GUILESS_MAIN(TstFollow)
#include "tst_follow.moc"
