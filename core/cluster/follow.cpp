#include "core/cluster/follow.h"

#include <chrono>
#include <exception>

namespace stave::cluster {

JobWatcher::JobWatcher(JobQuery query, int periodMs)
    : m_query(std::move(query)), m_periodMs(periodMs), m_thread([this] { loop(); }) {}

JobWatcher::~JobWatcher() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
  }
  m_wake.notify_all();
  m_thread.join();
}

JobState JobWatcher::latest(int* answers) const {
  std::lock_guard<std::mutex> lock(m_mutex);
  if (answers) *answers = m_answers;
  return m_latest;
}

void JobWatcher::askNow() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_askNow = true;
  }
  m_wake.notify_all();
}

void JobWatcher::loop() {
  while (!m_stop) {
    JobState s;
    try {
      s = m_query ? m_query(&m_stop) : JobState{};
    } catch (const std::exception& e) {
      // The follower hears of it as of any question that found no answer.
      s = JobState{};
      s.error = std::string("asking Slurm failed: ") + e.what();
    } catch (...) {
      s = JobState{};
      s.error = "asking Slurm failed";
    }
    std::unique_lock<std::mutex> lock(m_mutex);
    if (m_stop) return;  // an answer cut short by the stop flag says nothing
    m_latest = s;
    ++m_answers;
    // An ended job stays ended: nothing more to ask.
    if (s.ended()) return;
    m_wake.wait_for(lock, std::chrono::milliseconds(m_periodMs), [this] { return m_stop.load() || m_askNow; });
    m_askNow = false;
  }
}

JobFollowOutcome followJob(Mirror& mirror, const JobFollowOptions& o) {
  JobFollowOutcome out;
  // Slurm is asked only while the mirror's last poll reached the cluster: the (re)connection is
  // made by the poll alone, so the question then goes over its shared connection instead of
  // racing it to open a second one (ControlMaster=auto lets both connect).
  std::atomic<bool> linkUp{false};
  JobWatcher watcher(
      [&o, &linkUp](const std::atomic<bool>* stop) {
        if (!linkUp) {
          JobState s;
          s.error = "not asked: the cluster was not reached";
          return s;
        }
        return o.query(stop);
      },
      o.statePeriodMs);
  const auto onPoll = [&](const MirrorPoll& p) {
    const bool wasUp = linkUp.exchange(p.reached);
    if (p.reached && !wasUp) watcher.askNow();
    if (o.onPoll) o.onPoll(p);
  };
  int seen = 0;
  // Asked before each poll (followMirror): an answer that says the job ended is older than that
  // poll, which then sees the log's last lines.
  const auto done = [&] {
    int n = 0;
    const JobState s = watcher.latest(&n);
    if (n == seen) return out.last.ended();
    seen = n;
    if (!s.error.empty()) return out.last.ended();  // the mirror's poll says what the link does
    if ((s.state != out.last.state || s.reason != out.last.reason) && o.onState) o.onState(s);
    out.last = s;
    return s.ended();
  };
  out.error = followMirror(mirror, o.periodMs, done, onPoll, o.stop);
  out.stopped = o.stop && o.stop->load();
  return out;
}

}  // namespace stave::cluster
