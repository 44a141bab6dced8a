#pragma once
// BackgroundJob: runs one function at a time on a thread of its own and hands its result to a
// callback on the owner's thread. The owner's (GUI) thread never waits for a job that does not
// end: file work can block for good (a FIFO, a hung network mount), and a window that joins such
// a thread freezes with it. So a job still running when the next one is asked for is told to
// stop and its result dropped; the next one starts as soon as it has ended — jobs of one
// BackgroundJob never overlap, so they may share a connection or a sampler — or, when it has
// not ended kStopWait later, the old thread is let go and the next starts beside it. The
// destructor raises the stop flag, waits up to kStopWait (long work such as a store's ingestion
// checks the flag and ends early) and then lets the thread go too. A thread let go holds only
// the job's shared state, never the BackgroundJob: its result is posted to the owner only while
// the owner lives.

#include <QObject>
#include <QTimer>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace stave::studio {

class BackgroundJob : public QObject {
  Q_OBJECT
 public:
  /// How long the destructor waits for a running job to end before it lets the thread go.
  static constexpr std::chrono::milliseconds kStopWait{2000};

  explicit BackgroundJob(QObject* parent = nullptr) : QObject(parent) {}
  ~BackgroundJob() override {
    if (!m_thread.joinable()) return;
    const std::shared_ptr<Job> job = m_job;
    job->stop->store(true);
    std::unique_lock<std::mutex> lock(job->mutex);
    job->ended.wait_for(lock, kStopWait, [&] { return job->done; });
    job->owner = nullptr;  // from here on the thread posts nothing to this object
    const bool done = job->done;
    lock.unlock();
    if (done)
      m_thread.join();  // it has only its return left
    else
      m_thread.detach();  // blocked (a FIFO, a hung mount): it ends when the system lets it
  }
  BackgroundJob(const BackgroundJob&) = delete;
  BackgroundJob& operator=(const BackgroundJob&) = delete;

  /// Whether a job is running (whose result is still wanted).
  bool busy() const { return m_busy; }
  /// The stop flag of the job run() starts next (capture it in the work, which takes it by
  /// pointer: it lives as long as the job's thread). stop(), the destructor, and a newer run()
  /// raise it: the work's result is no longer wanted. Work that takes long checks it
  /// (store::Store::setStopFlag) and ends early.
  const std::atomic<bool>* stopFlag() const { return m_nextStop.get(); }
  /// Raises the running job's stop flag.
  void stop() {
    if (m_job) m_job->stop->store(true);
  }

  /// Runs `work` on a new thread, then `done(result)` on this object's thread; an exception in
  /// `work` reaches `failed(message)` instead. A job still running is told to stop and its result
  /// dropped; `work` starts when it has ended, or kStopWait later (then it is let go), never
  /// waited for on this thread. A newer run() before then replaces `work`.
  template <typename R>
  void run(std::function<R()> work, std::function<void(R)> done,
           std::function<void(QString)> failed = {}) {
    const quint64 seq = ++m_seq;  // results of older jobs are dropped from now on
    m_busy = true;
    auto stop = std::move(m_nextStop);
    m_nextStop = std::make_shared<std::atomic<bool>>(false);
    m_pending = [this, seq, stop, work = std::move(work), done = std::move(done),
                 failed = std::move(failed)]() mutable {
      start<R>(seq, std::move(stop), std::move(work), std::move(done), std::move(failed));
    };
    if (!m_thread.joinable() || runningEnded()) {
      startPending();
      return;
    }
    m_job->stop->store(true);
    if (!m_wait) {
      m_wait = new QTimer(this);
      m_wait->setSingleShot(true);
      connect(m_wait, &QTimer::timeout, this, [this] { startPending(); });
    }
    if (!m_wait->isActive()) m_wait->start(kStopWait);
  }

 private:
  /// What a job's thread shares with its owner; kept alive by the thread itself.
  struct Job {
    std::mutex mutex;
    std::condition_variable ended;
    bool done = false;                       ///< the work ended and its result was posted
    BackgroundJob* owner = nullptr;          ///< where the result goes; cleared on destruction
    std::shared_ptr<std::atomic<bool>> stop; ///< the work's stop flag
  };

  /// Whether the running job's work has ended (its thread has only its return left).
  bool runningEnded() {
    std::lock_guard<std::mutex> lock(m_job->mutex);
    return m_job->done;
  }

  /// Starts the job waiting in m_pending (if any): the previous thread is joined when it has
  /// ended, else let go (never waited for).
  void startPending() {
    if (m_wait) m_wait->stop();
    if (!m_pending) return;
    letGo();
    auto pending = std::move(m_pending);
    m_pending = nullptr;
    pending();
  }

  /// The previous job: joined when it has ended, else told to stop and let go; its result is
  /// dropped either way (the sequence number).
  void letGo() {
    if (!m_thread.joinable()) return;
    bool done = false;
    {
      std::lock_guard<std::mutex> lock(m_job->mutex);
      done = m_job->done;
      if (!done) m_job->owner = nullptr;
    }
    if (done) {
      m_thread.join();
    } else {
      m_job->stop->store(true);
      m_thread.detach();
    }
  }

  template <typename R>
  void start(quint64 seq, std::shared_ptr<std::atomic<bool>> stop, std::function<R()> work,
             std::function<void(R)> done, std::function<void(QString)> failed) {
    auto job = std::make_shared<Job>();
    job->owner = this;
    job->stop = std::move(stop);
    m_job = job;
    m_thread = std::thread([job, seq, work = std::move(work), done = std::move(done),
                            failed = std::move(failed)] {
      auto result = std::make_shared<R>();
      std::exception_ptr error;
      try {
        *result = work();
      } catch (...) {
        error = std::current_exception();
      }
      {
        // Posted under the lock the destructor takes to clear `owner`: the owner is alive
        // while the call is queued, and Qt drops the call if the owner is deleted before it
        // runs.
        std::lock_guard<std::mutex> lock(job->mutex);
        if (BackgroundJob* owner = job->owner) {
          QMetaObject::invokeMethod(
              owner,
              [owner, seq, result, error, done, failed] {
                owner->finish(seq, error, failed, [&] { done(std::move(*result)); });
                owner->startPending();  // a job asked for meanwhile
              },
              Qt::QueuedConnection);
        }
        job->done = true;
      }
      job->ended.notify_all();
    });
  }

  void finish(quint64 seq, const std::exception_ptr& error,
              const std::function<void(QString)>& failed, const std::function<void()>& deliver) {
    if (seq != m_seq) return;  // a newer job was started
    m_busy = false;
    if (!error) {
      deliver();
      return;
    }
    QString message;
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      message = QString::fromUtf8(e.what());
    } catch (...) {
      message = QStringLiteral("unknown error");
    }
    if (failed) failed(message);
  }

  std::thread m_thread;
  std::shared_ptr<Job> m_job;
  std::shared_ptr<std::atomic<bool>> m_nextStop = std::make_shared<std::atomic<bool>>(false);
  quint64 m_seq = 0;
  bool m_busy = false;
  std::function<void()> m_pending;  ///< the job asked for while another still ran
  QTimer* m_wait = nullptr;         ///< how long that one is waited for
};

}  // namespace stave::studio
