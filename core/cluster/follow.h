#pragma once
// Following a remote run: the mirror polled every second on the caller's thread while Slurm is
// asked how the job stands on a thread of its own (JobWatcher). squeue may take its full 30 s
// time limit when the controller is busy or the link is slow; the mirror's loop only reads the
// newest answer and never waits for one, so its cadence does not depend on Slurm.

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "core/cluster/mirror.h"
#include "core/cluster/remote_job.h"

namespace stave::cluster {

/// Asks how a job stands; gives up early when `stop` is raised.
using JobQuery = std::function<JobState(const std::atomic<bool>* stop)>;

/// Asks `query` on a thread of its own, at once and then every `periodMs` after each answer,
/// keeping the newest answer. The destructor raises the query's stop flag and joins the thread.
class JobWatcher {
 public:
  JobWatcher(JobQuery query, int periodMs);
  ~JobWatcher();
  JobWatcher(const JobWatcher&) = delete;
  JobWatcher& operator=(const JobWatcher&) = delete;

  /// The newest answer; `answers` (when given) is how many there have been (0: none yet, the
  /// state is Unknown). Never waits for a question under way.
  JobState latest(int* answers = nullptr) const;
  /// Asks again now instead of after the period (a question under way is not repeated).
  void askNow();

 private:
  void loop();

  JobQuery m_query;
  int m_periodMs;
  mutable std::mutex m_mutex;
  std::condition_variable m_wake;
  JobState m_latest;
  int m_answers = 0;
  bool m_askNow = false;
  std::atomic<bool> m_stop{false};
  std::thread m_thread;  ///< last: starts once the members above exist
};

/// How followJob() follows.
struct JobFollowOptions {
  int periodMs = 1000;       ///< between mirror polls
  /// Between questions to Slurm (on the watcher's thread). Slurm is asked only while the last
  /// poll reached the cluster, and at once when a poll reaches it again.
  int statePeriodMs = 5000;
  JobQuery query;            ///< how the job stands (queryJob over ssh in use)
  /// Called on the caller's thread after each poll.
  std::function<void(const MirrorPoll&)> onPoll;
  /// Called on the caller's thread with each answer that differs from the one before (state
  /// word or reason) and for every answer that says the job ended.
  std::function<void(const JobState&)> onState;
  const std::atomic<bool>* stop = nullptr;  ///< raised: followJob returns after its poll
};

/// What followJob() ended with.
struct JobFollowOutcome {
  std::string error;  ///< a failure not retried (host key, refused key, replaced folder); "" = none
  JobState last;      ///< Slurm's newest answer (Unknown when none came)
  bool stopped = false;  ///< the stop flag ended it
};

/// Keeps `mirror` current (followMirror: a dropped link is retried 1-30 s apart from the
/// offset) until Slurm says the job ended and a last poll brought nothing new, or `stop`.
JobFollowOutcome followJob(Mirror& mirror, const JobFollowOptions& options);

}  // namespace stave::cluster
