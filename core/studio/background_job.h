#pragma once
// BackgroundJob: runs one function at a time on a thread of its own and hands its result to a
// callback on the owner's thread. The owner's (GUI) thread never waits for a job that does not
// end: file work can block for good (a FIFO, a hung network mount), and a window that joins such
// a thread freezes with it. So a job still running when the next one starts is abandoned — told
// to stop, its thread let go, its result dropped — and the destructor raises the stop flag, waits
// a short bounded time (long work such as a store's ingestion checks the flag and ends early)
// and then lets the thread go too. A thread let go holds only the job's shared state, never the
// BackgroundJob: its result is posted to the owner only while the owner lives.

#include <QObject>

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
  /// `work` reaches `failed(message)` instead. A job still running is abandoned (its stop flag
  /// raised, its result dropped), never waited for.
  template <typename R>
  void run(std::function<R()> work, std::function<void(R)> done,
           std::function<void(QString)> failed = {}) {
    letGo();
    auto job = std::make_shared<Job>();
    job->owner = this;
    job->stop = std::move(m_nextStop);
    m_nextStop = std::make_shared<std::atomic<bool>>(false);
    m_job = job;
    m_busy = true;
    const quint64 seq = ++m_seq;
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
              },
              Qt::QueuedConnection);
        }
        job->done = true;
      }
      job->ended.notify_all();
    });
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

  /// The previous job: joined when it has ended, else told to stop and let go (never waited
  /// for); its result is dropped either way (the sequence number).
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
};

}  // namespace stave::studio
