// BackgroundJob never makes its owner's thread wait on a job that does not end: a job blocked
// for good (here: opening a FIFO no writer opens, as a run's cluster_job.json or a hung mount
// can) is abandoned when the next one starts — the next one's result arrives, its stale result
// never does — and the destructor returns after its bounded wait. The event loop keeps running
// throughout (a timer on this thread must keep firing).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <atomic>
#include <memory>
#include <thread>

#include "core/studio/background_job.h"

using stave::studio::BackgroundJob;

class TstBackgroundJob : public QObject {
  Q_OBJECT

  /// Opens `fifo` for reading: blocks until a writer opens it.
  static int blockOnFifo(const QByteArray& fifo) {
    const int fd = ::open(fifo.constData(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) ::close(fd);
    return 1;
  }
  /// Lets a reader blocked on `fifo` go (opens the writing end without blocking).
  static void release(const QByteArray& fifo) {
    const int fd = ::open(fifo.constData(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) ::close(fd);
  }

 private slots:
  void resultOnTheOwnersThread() {
    BackgroundJob job;
    int got = 0;
    job.run<int>([] { return 42; }, [&](int v) { got = v; });
    QVERIFY(job.busy());
    QTRY_COMPARE(got, 42);
    QVERIFY(!job.busy());
    QString failure;
    job.run<int>([]() -> int { throw std::runtime_error("no such file"); }, [](int) {},
                 [&](const QString& m) { failure = m; });
    QTRY_COMPARE(failure, QString("no such file"));
  }

  void aBlockedJobIsAbandonedNotJoined() {
    QTemporaryDir dir;
    const QByteArray fifo = QFile::encodeName(dir.filePath("cluster_job.json"));
    QCOMPARE(::mkfifo(fifo.constData(), 0600), 0);
    int ticks = 0;
    QTimer timer;
    connect(&timer, &QTimer::timeout, [&] { ++ticks; });
    timer.start(10);

    auto job = std::make_unique<BackgroundJob>();
    int stale = 0, fresh = 0;
    const std::atomic<bool>* firstStop = job->stopFlag();
    job->run<int>([fifo] { return blockOnFifo(fifo); }, [&](int v) { stale = v; });
    QTest::qWait(100);  // the first job is in open(), blocked
    QElapsedTimer t;
    t.start();
    job->run<int>([] { return 7; }, [&](int v) { fresh = v; });  // used to join the first
    QVERIFY2(t.elapsed() < 1000, "run() waited for the job before");
    QVERIFY(firstStop->load());  // the abandoned job was told to stop
    QTRY_COMPARE(fresh, 7);
    const int before = ticks;
    QTRY_VERIFY(ticks > before + 5);  // the event loop runs

    // The destructor does not wait for ever on a job that does not end.
    job->run<int>([fifo] { return blockOnFifo(fifo); }, [&](int v) { stale = v; });
    QTest::qWait(100);
    t.restart();
    job.reset();
    QVERIFY2(t.elapsed() < BackgroundJob::kStopWait.count() + 2000, "the destructor blocked");
    // Both blocked threads end now; neither result reaches anyone.
    for (int i = 0; i < 20; ++i) {
      release(fifo);
      QTest::qWait(20);
    }
    QTest::qWait(200);
    QCOMPARE(stale, 0);
  }

  // Jobs of one BackgroundJob never overlap while the older one ends within the wait: the
  // next starts when it has ended (they may share a database connection or a sampler), and
  // only its result is delivered.
  void theNextJobWaitsForTheOneThatEnds() {
    BackgroundJob job;
    auto inFirst = std::make_shared<std::atomic<bool>>(false);
    auto overlapped = std::make_shared<std::atomic<bool>>(false);
    int first = 0, second = 0;
    job.run<int>(
        [inFirst] {
          inFirst->store(true);
          std::this_thread::sleep_for(std::chrono::milliseconds(300));  // ignores its stop flag
          inFirst->store(false);
          return 1;
        },
        [&](int v) { first = v; });
    QTRY_VERIFY(inFirst->load());
    QElapsedTimer t;
    t.start();
    job.run<int>([inFirst, overlapped] { overlapped->store(inFirst->load()); return 2; },
                 [&](int v) { second = v; });
    QVERIFY2(t.elapsed() < 100, "run() waited on the owner's thread");
    QTRY_COMPARE(second, 2);
    QVERIFY(!overlapped->load());
    QCOMPARE(first, 0);  // the older result was no longer wanted
    QVERIFY(!job.busy());
  }

  void destructorWaitsForAJobThatStops() {
    // A job that checks its stop flag ends within the destructor's wait: it is joined.
    auto job = std::make_unique<BackgroundJob>();
    auto ended = std::make_shared<std::atomic<bool>>(false);
    job->run<int>(
        [stop = job->stopFlag(), ended] {
          while (!stop->load()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
          ended->store(true);
          return 0;
        },
        [](int) {});
    QTest::qWait(50);
    job.reset();
    QVERIFY(ended->load());
  }
};

QTEST_GUILESS_MAIN(TstBackgroundJob)
#include "tst_background_job.moc"
