#pragma once
// BackgroundJob: runs one function at a time on a thread it owns and hands its result to a
// callback on the owner's thread. The destructor waits for the thread (a job in flight finishes
// but its callback is dropped), so file work never blocks the GUI and never outlives its owner;
// it first raises the job's stop flag, which long work (a store's ingestion) checks to end
// early, so closing the studio does not wait for a day-long run's first ingestion.

#include <QObject>

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace stave::studio {

class BackgroundJob : public QObject {
  Q_OBJECT
 public:
  explicit BackgroundJob(QObject* parent = nullptr) : QObject(parent) {}
  ~BackgroundJob() override {
    m_stop = true;
    if (m_thread.joinable()) m_thread.join();
  }
  /// Whether a job is running.
  bool busy() const { return m_busy; }
  /// Raised by stop() and the destructor: the running work's result is no longer wanted. Work
  /// that takes long checks it (store::Store::setStopFlag) and ends early. Lowered by run().
  const std::atomic<bool>* stopFlag() const { return &m_stop; }
  void stop() { m_stop = true; }

  /// Runs `work` on the job's thread, then `done(result)` on this object's thread; an exception
  /// in `work` reaches `failed(message)` instead. A job already running is waited for first.
  template <typename R>
  void run(std::function<R()> work, std::function<void(R)> done,
           std::function<void(QString)> failed = {}) {
    if (m_thread.joinable()) m_thread.join();
    m_stop = false;
    m_busy = true;
    const quint64 seq = ++m_seq;
    m_thread = std::thread(
        [this, seq, work = std::move(work), done = std::move(done), failed = std::move(failed)] {
          auto result = std::make_shared<R>();
          std::exception_ptr error;
          try {
            *result = work();
          } catch (...) {
            error = std::current_exception();
          }
          // Queued to the owner's thread. The destructor joins this thread first, so `this` is
          // alive here; the queued call is dropped if the owner is deleted before it runs.
          QMetaObject::invokeMethod(
              this,
              [this, seq, result, error, done, failed] {
                if (seq != m_seq) return;  // a newer job was started
                m_busy = false;
                if (!error) {
                  done(std::move(*result));
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
              },
              Qt::QueuedConnection);
        });
  }

 private:
  std::thread m_thread;
  quint64 m_seq = 0;
  bool m_busy = false;
  std::atomic<bool> m_stop{false};
};

}  // namespace stave::studio
