// The studio's sessions: one per followed run folder, made, held and ended by RunSessions
// (run_session.h says what a session owns).
#include "core/studio/run/run_session.h"

#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <optional>

#include "core/store/store.h"
#include "core/studio/background_job.h"
#include "core/studio/models/stored_run.h"
#include "core/studio/run/cluster_job.h"
#include "core/studio/project/cluster_profile.h"

namespace stave::studio {

namespace {

/// A run folder however it is written ("runs/x", "/p/runs/x/"): one session each.
QString folderKey(const QString& runDir) {
  return QDir::cleanPath(QFileInfo(runDir).absoluteFilePath());
}

}  // namespace

RunSession::RunSession(RunController* run, QObject* parent)
    : QObject(parent), m_run(run), m_series(new SeriesStore(this)), m_detailJob(new BackgroundJob(this)) {
  m_run->setParent(this);
  // Connected before any view is: a view handling the same events finds their points stored.
  connect(m_run, &RunController::eventsAppended, this, &RunSession::feed);
}

void RunSession::feed(int first) {
  // A first batch comes after the history store's part, when the run was opened from it: its
  // series are moved into the store (built on the reader's thread), the events add the rest.
  StoredRun* stored = first == 0 ? m_run->stored().get() : nullptr;
  if (first == 0) {
    ++m_detailRun;  // a zoomed range's read of what was shown before is dropped
    m_detailLo = 0;
    m_detailHi = m_nextHi = -1;
  }
  m_series->apply(m_run->events(), static_cast<size_t>(first), stored);
}

bool RunSession::detailLoading() const {
  return m_detailJob->busy();
}

void RunSession::wantDetail(double wantLo, double wantHi, int columns) {
  const auto stored = m_run->stored();
  if (!stored || !(wantHi > wantLo)) return;
  // Only the stored part (after it the samples came from the file, every one), and only where
  // its 10 s buckets are two pixels wide or more.
  const double span = wantHi - wantLo;
  const double lo = std::max(0.0, wantLo), hi = std::min(wantHi, stored->bucketsUntil);
  if (!(hi > lo) || span > store::kSampleBucketSeconds[0] * columns / 2) return;
  if (m_detailLo <= lo && hi <= m_detailHi) return;  // read, or being read
  if (m_detailJob->busy()) {  // after the read in flight
    m_nextLo = wantLo;
    m_nextHi = wantHi;
    m_nextColumns = columns;
    return;
  }
  // A quarter of the range more on each side: a small pan draws at once.
  m_detailLo = std::max(0.0, lo - span / 4);
  m_detailHi = std::min(stored->bucketsUntil, hi + span / 4);
  struct Read {
    std::optional<SampleDetail> detail;
    std::string error;
  };
  const std::string path = QDir(m_run->runDir()).filePath(QStringLiteral("events.jsonl")).toStdString();
  const double t0 = stored->t0, from = m_detailLo, to = m_detailHi;
  const int64_t end = stored->offset;
  const quint64 run = m_detailRun;
  m_detailJob->run<Read>(
      [=] {
        Read r;
        auto d = readSampleDetail(path, t0, from, to, end);
        if (d)
          r.detail = std::move(d.value());
        else
          r.error = d.errorText();
        return r;
      },
      [this, run](Read r) {
        if (run != m_detailRun) return;  // the run was read again meanwhile
        if (!r.detail) {
          m_detailHi = -1;
          emit detailFailed(QString::fromStdString(r.error));
        } else {
          m_detailHi = r.detail->hi;  // lower when the read's budget ended it
          for (auto& s : r.detail->samples) m_series->setDetail(s.id, r.detail->lo, r.detail->hi, std::move(s.points));
          m_series->flush();
        }
        if (m_nextHi > m_nextLo) {
          const double lo = m_nextLo, hi = m_nextHi;
          m_nextHi = -1;
          wantDetail(lo, hi, m_nextColumns);
        }
      });
}

RunSessions::RunSessions(QObject* parent) : QObject(parent) {}

RunSessions::~RunSessions() = default;

RunSession* RunSessions::make() {
  auto* c = new RunController;
  configure(c);
  auto* s = new RunSession(c, this);
  m_all << s;
  // A session nobody holds any more ends when its process does (a stop's grace period is its).
  connect(c, &RunController::stateChanged, this, [this, s] { reap(s); });
  emit sessionAdded(s);
  return s;
}

void RunSessions::configure(RunController* c) const {
  if (!m_exe.isEmpty()) c->setExecutable(m_exe);
  if (m_grace >= 0) c->setGracePeriod(m_grace);
  if (m_pollMs > 0) c->setPollInterval(m_pollMs);
  if (m_clusterPollMs > 0) c->cluster()->setPollInterval(m_clusterPollMs);
  c->setStorePath(m_storePath);
  if (m_storedRunBytes >= 0) c->setStoredRunBytes(m_storedRunBytes);
}

void RunSessions::index(RunSession* s) {
  for (auto it = m_byDir.begin(); it != m_byDir.end();) {
    if (it.value() == s)
      it = m_byDir.erase(it);
    else
      ++it;
  }
  if (!s->runDir().isEmpty()) m_byDir.insert(folderKey(s->runDir()), s);
}

void RunSessions::hold(RunSession* s, QObject* holder, Need need) {
  if (!holder) return;
  const bool wasCharts = s->chartsWanted();
  // A session just opened for this holder is read as it wants already: no replay.
  const bool hadRead = !s->m_opening && s->m_run->hasRead();
  if (!s->m_holders.contains(holder)) {
    s->m_holders.insert(holder);
    // A holder that goes away lets go of what it held.
    connect(holder, &QObject::destroyed, s, [this, s, holder] {
      s->m_holders.remove(holder);
      s->m_chartHolders.remove(holder);
      s->m_run->setLowRateOnly(!s->chartsWanted());
      reap(s);
    });
  }
  if (need == Need::Charts) s->m_chartHolders.insert(holder);
  s->m_run->setLowRateOnly(!s->chartsWanted());
  // Steps and samples are handed on once and then dropped (a day-long run's are gigabytes);
  // their points stay in the session's store, which a second view draws as it is. A run read
  // without them (for the queue alone) is read again for the first view of its charts.
  if (need == Need::Charts && hadRead && !s->runDir().isEmpty() && !wasCharts) {
    s->m_run->reread();
    ++s->m_replays;
    emit s->replayed();
  }
}

RunSession* RunSessions::follow(const QString& runDir, QObject* holder, Need need, QString* error) {
  if (!QFileInfo(runDir).isDir()) {
    if (error) *error = RunController::tr("%1 is not a folder").arg(runDir);
    return nullptr;
  }
  const QString dir = folderKey(runDir);
  if (RunSession* s = find(dir)) {
    hold(s, holder, need);
    return s;
  }
  RunSession* s = make();
  s->m_run->setLowRateOnly(need == Need::State);
  const bool ok = s->m_run->attach(dir, error, RunController::FirstRead::Reader);
  return opened(s, ok, holder, need);
}

RunSession* RunSessions::start(const QString& projectFile, const QString& configName, int nproc,
                               const QStringList& overrides, QObject* holder, Need need,
                               QString* error, const QString& runDir) {
  RunSession* s = make();
  s->m_run->setLowRateOnly(need == Need::State);
  const bool ok = s->m_run->start(projectFile, configName, nproc, overrides, error, runDir);
  return opened(s, ok, holder, need);
}

RunSession* RunSessions::submit(const ClusterProfile& profile, const QString& projectFile,
                                const QString& configName, const QStringList& overrides,
                                QObject* holder, QString* error) {
  RunSession* s = make();
  const bool ok = s->m_run->submit(profile, projectFile, configName, overrides, error);
  return opened(s, ok, holder, Need::Charts);
}

RunSession* RunSessions::opened(RunSession* s, bool ok, QObject* holder, Need need) {
  if (!ok) {
    s->m_opening = false;
    reap(s);
    return nullptr;
  }
  index(s);
  hold(s, holder, need);
  s->m_opening = false;
  return s;
}

void RunSessions::release(RunSession* session, QObject* holder) {
  if (!session || !m_all.contains(session)) return;
  session->m_holders.remove(holder);
  session->m_chartHolders.remove(holder);
  disconnect(holder, &QObject::destroyed, session, nullptr);
  session->m_run->setLowRateOnly(!session->chartsWanted());
  reap(session);
}

void RunSessions::reap(RunSession* s) {
  // A cluster run's job is followed while Slurm lists it (its end is kept in the run folder
  // for a studio opened after Slurm forgot the job), though the run's events ended the run.
  const ClusterJob* job = s->m_run->cluster();
  const bool jobListed = job->isCluster() && job->active() && job->state().phase != SlurmJobState::Phase::Unknown;
  if (!m_all.contains(s) || s->m_opening || !s->m_holders.isEmpty() || s->m_run->isLive() || jobListed) return;
  m_all.removeAll(s);
  for (auto it = m_byDir.begin(); it != m_byDir.end();) {
    if (it.value() == s)
      it = m_byDir.erase(it);
    else
      ++it;
  }
  emit sessionRemoved(s);
  s->m_run->detach();  // the run itself goes on (its process is detached)
  s->deleteLater();
}

RunSession* RunSessions::find(const QString& runDir) const {
  if (runDir.isEmpty()) return nullptr;
  return m_byDir.value(folderKey(runDir), nullptr);
}

QList<RunSession*> RunSessions::sessions() const {
  return m_all;
}

void RunSessions::setExecutable(const QString& path) {
  m_exe = path;
  for (RunSession* s : m_all) s->m_run->setExecutable(path);
}

void RunSessions::setGracePeriod(double seconds) {
  m_grace = seconds;
  for (RunSession* s : m_all) s->m_run->setGracePeriod(seconds);
}

void RunSessions::setPollInterval(int ms) {
  m_pollMs = ms;
  for (RunSession* s : m_all) s->m_run->setPollInterval(ms);
}

void RunSessions::setClusterPollInterval(int ms) {
  m_clusterPollMs = ms;
  for (RunSession* s : m_all) s->m_run->cluster()->setPollInterval(ms);
}

void RunSessions::setStorePath(const QString& dbPath) {
  m_storePath = dbPath;
  for (RunSession* s : m_all) s->m_run->setStorePath(dbPath);
}

void RunSessions::setStoredRunBytes(qint64 bytes) {
  m_storedRunBytes = bytes;
  for (RunSession* s : m_all) s->m_run->setStoredRunBytes(bytes);
}

}  // namespace stave::studio
