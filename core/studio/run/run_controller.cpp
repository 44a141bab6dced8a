#include "core/studio/run/run_controller.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <algorithm>

#include "core/base/signal_name.h"
#include "core/studio/background_job.h"
#include "core/studio/run/child_process.h"
#include "core/studio/run/cluster_job.h"
#include "core/studio/engine_text.h"
#include "core/studio/regular_file.h"
#include "core/studio/models/stored_run.h"

namespace stave::studio {

namespace {

QString signalName(int sig) { return QString::fromStdString(stave::signalName(sig)); }

}  // namespace

QString RunController::findTrainExecutable() {
  // stave-train beside the studio (installed), in the build tree's app/ folder, else on PATH.
  const QDir here(QCoreApplication::applicationDirPath());
  for (const QString& c : {here.filePath(QStringLiteral("stave-train")),
                           here.filePath(QStringLiteral("../stave-train"))}) {
    if (QFileInfo(c).isFile() && QFileInfo(c).isExecutable()) return QFileInfo(c).canonicalFilePath();
  }
  return QStandardPaths::findExecutable(QStringLiteral("stave-train"));
}

RunController::RunController(QObject* parent)
    : QObject(parent), m_storedRunBytes(kStoredRunBytes), m_reader(new BackgroundJob(this)),
      m_storeJob(new BackgroundJob(this)), m_watchJob(new BackgroundJob(this)),
      m_child(new ChildProcess(ChildProcess::Lifetime::Detached, 30000, this)),
      m_cluster(new ClusterJob(this)) {
  // What the run's events say of its state: a start (a resume after a final event starts a
  // new story), how it finished, its error.
  const auto started = [this] {
    if (m_sawEnd) {
      m_sawEnd = false;
      m_message.clear();
      m_hint.clear();
      m_cluster->setRunEnded(false);
    }
    setOutcome(RunOutcome::Running);
  };
  m_dispatch.on<telemetry::RunStartEvent>([started](const RunEvent&, const telemetry::RunStartEvent&) { started(); });
  // A run_start whose data does not read still says that a run began.
  m_dispatch.invalid([started](const RunEvent& e, const std::string&) {
    if (e.type == telemetry::event_type::kRunStart) started();
  });
  m_dispatch.on<telemetry::FinishedEvent>([this](const RunEvent&, const telemetry::FinishedEvent& fin) {
    m_sawEnd = true;
    m_cluster->setRunEnded(true);  // its job is ending: one state for the run and its job
    m_message = engineText(fin.text, fin.message);  // in the UI language
    switch (fin.status) {
      case telemetry::RunStatus::Completed: m_outcome = RunOutcome::Completed; break;
      case telemetry::RunStatus::Stopped: m_outcome = RunOutcome::Stopped; break;
      case telemetry::RunStatus::EarlyStopped: m_outcome = RunOutcome::EarlyStopped; break;
      case telemetry::RunStatus::Failed: m_outcome = RunOutcome::Failed; break;
    }
    emit stateChanged();
  });
  m_dispatch.on<telemetry::ErrorEvent>([this](const RunEvent&, const telemetry::ErrorEvent& err) {
    m_message = engineText(err.text, err.message);
    m_hint = engineText(err.hintText, err.hint);
  });
  m_exe = findTrainExecutable();
  m_timer.setInterval(200);
  connect(&m_timer, &QTimer::timeout, this, [this] {
    pollInBackground();
    watch();  // liveness even while a long log is read
  });
  connect(m_child, &ChildProcess::killed, this,
          [this] { m_message = tr("killed after the %1 s grace period").arg(gracePeriod()); });
  connect(m_cluster, &ClusterJob::changed, this, [this] {
    if (m_resumeWaiting && !m_cluster->active()) sendWaitingResume();
    if (!m_runDir.isEmpty()) finishIfDead();
    emit stateChanged();
  });
  connect(m_cluster, &ClusterJob::failed, this, [this](const QString& error) {
    emit warning(error);
    // A submission Slurm refused: the run never began (a resubmission: the old job stays).
    if (m_outcome == RunOutcome::Starting && !m_cluster->busy() && !m_cluster->active()) {
      m_message = error;
      setOutcome(RunOutcome::FailedToStart);
    }
  });
  connect(m_child, &ChildProcess::launched, this, &RunController::onLaunched);
  connect(m_child, &ChildProcess::stopped, this, &RunController::stopDone);
  connect(m_child, &ChildProcess::startFailed, this, [this](const QString& error) {
    m_message = error;
    emit warning(error);
    setOutcome(RunOutcome::FailedToStart);
  });
}

RunController::~RunController() = default;

void RunController::setGracePeriod(double seconds) { m_child->setGraceMs(static_cast<int>(seconds * 1000)); }

double RunController::gracePeriod() const { return m_child->graceMs() / 1000.0; }

void RunController::setPollInterval(int ms) { m_timer.setInterval(ms); }

QString RunController::runId() const { return QFileInfo(m_runDir).fileName(); }

QStringList RunController::liveRuns(const QString& projectDir) {
  QStringList out;
  const QDir runs(QDir(projectDir).filePath(QStringLiteral("runs")));
  for (const QString& name : runs.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
    if (ChildProcess::alive(runs.filePath(name))) out << runs.filePath(name);
  return out;
}

bool RunController::isLive() const {
  // A cluster run lives while its job may, until either side knows it ended: Slurm, or the
  // run's final event (read a moment before Slurm stops listing the job, which is then ending).
  if (!m_runDir.isEmpty() && m_cluster->isCluster()) return m_cluster->active() && !m_sawEnd;
  // Just started: live while its pid is being waited for (a start that fails ends it); then
  // as the last look at its process said.
  return !m_runDir.isEmpty() && m_child->folder() == m_runDir && (m_child->starting() || m_wasLive);
}

void RunController::launch(const QStringList& args, const QString& runDir) {
  m_child->startDetachedInBackground(m_exe, args, runDir);
  m_startedAt = QDateTime::currentMSecsSinceEpoch();
}

void RunController::onLaunched(const QString& error) {
  const Launch what = m_launch;
  m_launch = Launch::None;
  if (what == Launch::None || m_runDir.isEmpty()) return;  // left since
  if (error.isEmpty()) {
    // A new run's folder exists now: followed as any run, its events read off this thread.
    if (what == Launch::Start) {
      m_cluster->setFolder(m_runDir, false);  // started here: no cluster job
      m_timer.start();
      readFromStart(FirstRead::Reader);
    } else {
      m_timer.start();
    }
    emit launchDone({});
    return;
  }
  m_wasLive = false;
  if (what == Launch::Start) {
    m_message = error;
    m_outcome = RunOutcome::FailedToStart;
  } else {
    m_outcome = m_before.outcome;
    m_message = m_before.message;
    m_hint = m_before.hint;
    m_signal = m_before.signal;
    m_sawEnd = m_before.sawEnd;
    m_endSeenAtRead = m_before.endSeenAtRead;
    m_timer.start();
  }
  emit launchDone(error);
  emit stateChanged();
}

QString RunController::newRunDir(const QString& projectFile) {
  const QString projectDir = QFileInfo(projectFile).absolutePath();
  // A fresh folder name: the time, then -2, -3 ... if two starts fall in one second.
  const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
  QString id = QStringLiteral("run-") + stamp;
  for (int k = 2; QFileInfo::exists(QDir(projectDir).filePath(QStringLiteral("runs/") + id)); ++k)
    id = QStringLiteral("run-%1-%2").arg(stamp).arg(k);
  return QDir(projectDir).filePath(QStringLiteral("runs/") + id);
}

bool RunController::start(const QString& projectFile, const QString& configName, int nproc,
                          const QStringList& overrides, QString* error, const QString& runDir) {
  // A local run shares this machine with the next: one at a time (the queue waits for it). A
  // cluster job runs elsewhere and goes on while the new run is followed.
  if (isLive() && !m_cluster->isCluster()) {
    if (error) *error = tr("%1 is still running").arg(runId());
    return false;
  }
  const QString dir = runDir.isEmpty() ? newRunDir(projectFile) : runDir;
  QStringList args{QStringLiteral("train"), QStringLiteral("--project"), QFileInfo(projectFile).absoluteFilePath(),
                   QStringLiteral("--run-dir"), dir};
  if (!configName.isEmpty()) args << QStringLiteral("--config") << configName;
  if (nproc > 1) args << QStringLiteral("--nproc") << QString::number(nproc);
  args << overrides;
  detach();
  // The folder is made and the process started on a thread of its own; the run is followed
  // from its folder once that is done (onLaunched).
  m_runDir = QFileInfo(dir).absoluteFilePath();
  m_launch = Launch::Start;
  launch(args, m_runDir);
  m_wasLive = true;  // until a look after its start says otherwise
  setOutcome(RunOutcome::Starting);
  return true;
}

void RunController::resetStory() {
  m_sawEnd = false;
  m_endSeenAtRead = -1;
  m_signal = 0;
  m_message.clear();
  m_hint.clear();
}

bool RunController::resume(int epochs, QString* error) {
  if (m_runDir.isEmpty()) {
    if (error) *error = tr("no run to resume");
    return false;
  }
  if (isLive()) {
    if (error) *error = tr("%1 is still running").arg(runId());
    return false;
  }
  if (m_cluster->isCluster()) {
    if (!resubmit(epochs, error)) return false;
    emit launchDone({});  // Slurm's answer comes with the job's state
    return true;
  }
  QStringList args{QStringLiteral("train"), QStringLiteral("--run-dir"), m_runDir,
                   QStringLiteral("resume=true")};
  if (epochs > 0) args << QStringLiteral("epochs=%1").arg(epochs);
  m_before = {m_outcome, m_message, m_hint, m_signal, m_sawEnd, m_endSeenAtRead};
  m_launch = Launch::Resume;
  launch(args, m_runDir);
  resetStory();
  ++m_lookEpoch;  // a look in flight saw the process before
  m_haveLook = false;
  m_wasLive = true;
  setOutcome(RunOutcome::Starting);
  m_timer.start();
  return true;
}

bool RunController::stop(QString* error) {
  if (m_resumeWaiting) {
    // A resume not sent yet (its job before is ending): not sent; the run stays stopped.
    m_resumeWaiting = false;
    m_sawEnd = true;
    m_outcome = RunOutcome::Stopped;
    emit stateChanged();
    emit stopDone({});
    return true;
  }
  if (!m_runDir.isEmpty() && m_cluster->isCluster()) {
    if (!m_cluster->cancel(error)) return false;
    emit stopDone({});  // Slurm's answer comes as a warning
    return true;
  }
  // The record is read and the process signalled off this thread (stopDone tells); a run the
  // last look found ended is refused here, in ChildProcess::stop's words.
  if (m_runDir.isEmpty() || m_child->folder() != m_runDir || m_launch != Launch::None || !m_wasLive) {
    if (error) *error = ChildProcess::tr("the run is not running");
    return false;
  }
  m_child->stopInBackground();
  return true;
}

bool RunController::attach(const QString& runDir, QString* error, FirstRead first) {
  detach();
  // Here: the caller asked for file work on this thread. Reader: the first look tells.
  if (runDir.isEmpty() || (first == FirstRead::Here && !QFileInfo(runDir).isDir())) {
    if (error) *error = tr("%1 is not a folder").arg(runDir);
    return false;
  }
  m_runDir = QFileInfo(runDir).absoluteFilePath();
  m_child->setFolder(m_runDir);
  // Here: looked at on this thread, as the caller asked. Reader: the first look tells.
  if (first == FirstRead::Here) m_cluster->setFolder(m_runDir);
  m_outcome = RunOutcome::None;  // Running once a look finds its process alive
  m_timer.start();
  readFromStart(first);
  emit stateChanged();
  return true;
}

void RunController::readFromStart(FirstRead first) {
  if (first == FirstRead::Here) {
    readFromStart(QFileInfo(QDir(m_runDir).filePath(QStringLiteral("events.jsonl"))).size(), first);
    watch();
    return;
  }
  lookFirst();  // the log's size with the first look at the process, then the read
}

void RunController::readFromStart(qint64 logSize, FirstRead first) {
  // A long log opens from the store, off this thread.
  if (!m_storePath.isEmpty() && logSize > m_storedRunBytes) loadStored();
  else if (first == FirstRead::Here) poll();
  else pollInBackground();
}

void RunController::reread() {
  if (m_runDir.isEmpty()) return;
  ++m_generation;  // a read in flight was for the views before
  m_reading = m_loadingStored = m_caughtUp = false;
  m_stored.reset();
  m_events.clear();
  m_offset = m_lineNo = 0;
  m_logMissingReported = false;
  emit eventsAppended(0);  // the views start over; the events follow from the reader
  readFromStart(FirstRead::Reader);
}

void RunController::detach() {
  m_timer.stop();
  m_storeJob->stop();  // its ingestion ends at its next piece, keeping what it read
  m_runDir.clear();
  m_cluster->setFolder({});
  m_offset = 0;
  m_lineNo = 0;
  m_events.clear();
  m_stored.reset();
  m_loadingStored = false;
  m_lastEventTime = 0;
  m_reading = false;
  m_caughtUp = false;
  ++m_generation;  // a read in flight is for the run left
  m_outcome = RunOutcome::None;
  m_message.clear();
  m_hint.clear();
  m_signal = 0;
  m_sawEnd = false;
  m_endSeenAtRead = -1;
  m_logMissingReported = false;
  m_startedAt = 0;
  m_resumeWaiting = false;
  m_launch = Launch::None;  // a launch in flight is for the run left
  ++m_lookEpoch;  // a look in flight is of the run left
  m_haveLook = false;
  m_wasLive = false;
}

void RunController::setOutcome(RunOutcome o) {
  if (o == m_outcome) return;
  m_outcome = o;
  emit stateChanged();
}

namespace {

/// Bytes of events.jsonl read at a time: a day-long run's gigabyte arrives in pieces, each
/// decoded in a few tens of milliseconds and applied on the GUI thread without a stall.
constexpr qint64 kReadChunk = 4 << 20;

}  // namespace

RunController::EventBatch RunController::readEvents(const QString& path, qint64 offset, qint64 lineNo,
                                                    bool lowRateOnly) {
  EventBatch b;
  b.offset = offset;
  b.lineNo = lineNo;
  QFile f;
  if (!openRegularFile(&f, path)) {  // a FIFO or a device in its place is never waited on
    b.missing = true;
    return b;
  }
  if (f.size() < offset) {
    // Replaced (a new run in the folder): read again from the start.
    b.replaced = true;
    b.offset = b.lineNo = 0;
  }
  if (f.size() <= b.offset || !f.seek(b.offset)) return b;
  const QByteArray data = f.read(kReadChunk);
  const int end = data.lastIndexOf('\n');  // a half-written last line is waited for
  if (end < 0) {
    // One line longer than a chunk: no event is that long; skip it rather than stall.
    if (data.size() >= kReadChunk) {
      b.warnings << engineText(
          Text("store.line_too_long", {{"file", path.toStdString()},
                                       {"line", std::to_string(b.lineNo + 1)},
                                       {"mib", std::to_string(kReadChunk >> 20)}}));
      b.offset += data.size();
      b.more = true;
    }
    return b;
  }
  int pos = 0;
  while (pos <= end) {
    const int nl = data.indexOf('\n', pos);
    const std::string_view line(data.constData() + pos, static_cast<size_t>(nl - pos));
    pos = nl + 1;
    ++b.lineNo;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    if (lowRateOnly && telemetry::isHighRateType(telemetry::typeAtLineEnd(line))) continue;
    auto e = telemetry::decodeEvent(line);
    if (!e) {
      const TextParts why = textOfErrors(e.errors());
      b.warnings << engineText(
          Text("store.line_skipped",
               {{"file", path.toStdString()},
                {"line", std::to_string(b.lineNo)},
                why.empty() ? Text::Arg("reason", e.errorText()) : Text::Arg("reason", why)}));
      continue;
    }
    b.events.push_back(decodeRunEvent(std::move(e.value())));
  }
  b.offset += end + 1;
  b.more = f.size() > b.offset;
  return b;
}

void RunController::poll() {
  if (m_runDir.isEmpty()) return;
  if (!m_reading) {
    const quint64 seq = ++m_readsStarted;
    EventBatch batch = readEvents(QDir(m_runDir).filePath(QStringLiteral("events.jsonl")), m_offset, m_lineNo, m_lowRateOnly);
    const bool toEnd = !batch.more;  // a missing file has nothing more either
    applyBatch(std::move(batch));
    m_readApplied = seq;
    m_readToEnd = toEnd;
    m_caughtUp = m_caughtUp || toEnd;
  }
  finishIfDead();  // with the last look
  watch();         // and a new one, off this thread
}

void RunController::pollInBackground() {
  if (m_runDir.isEmpty()) return;
  if (m_reading) return;  // the read in flight continues when it is done
  m_reading = true;
  const QString path = QDir(m_runDir).filePath(QStringLiteral("events.jsonl"));
  const qint64 offset = m_offset, lineNo = m_lineNo;
  const quint64 generation = m_generation;
  const bool lowRateOnly = m_lowRateOnly;
  const quint64 seq = ++m_readsStarted;
  freeReader()->run<EventBatch>([path, offset, lineNo, lowRateOnly] { return readEvents(path, offset, lineNo, lowRateOnly); },
                            [this, generation, seq](EventBatch batch) {
                              if (generation != m_generation) return;  // another run since
                              m_reading = false;
                              const bool more = batch.more && !batch.missing;
                              const bool toEnd = !batch.more;  // a missing file has nothing more either
                              applyBatch(std::move(batch));
                              m_readApplied = seq;
                              m_readToEnd = toEnd;
                              m_caughtUp = m_caughtUp || toEnd;
                              finishIfDead();
                              // The rest of a long log at once, not one piece per tick.
                              if (more) QTimer::singleShot(0, this, &RunController::pollInBackground);
                            },
                            [this, generation](const QString& error) {
                              if (generation != m_generation) return;
                              m_reading = false;
                              emit warning(error);
                            });
}

BackgroundJob* RunController::freeReader() {
  // A read of the run left behind may still be going (a long run's first ingestion): it is
  // left to end on its own job, never waited for here.
  m_retired.erase(std::remove_if(m_retired.begin(), m_retired.end(),
                                 [](BackgroundJob* j) {
                                   if (j->busy()) return false;
                                   delete j;
                                   return true;
                                 }),
                  m_retired.end());
  if (m_reader->busy()) {
    m_reader->stop();  // its result is dropped: a store's ingestion keeps what it read and ends
    m_retired.push_back(m_reader);
    m_reader = new BackgroundJob(this);
  }
  return m_reader;
}

void RunController::loadStored() {
  m_reading = m_loadingStored = true;
  const std::string db = m_storePath.toStdString(), dir = m_runDir.toStdString();
  const quint64 generation = m_generation;
  // A store far behind (a run trained elsewhere, opened the first time) sends a first look
  // from the job's thread before it reads on; it is drawn until the whole run replaces it.
  const auto preview = [this, generation](StoredRun first) {
    auto run = std::make_shared<StoredRun>(std::move(first));
    QMetaObject::invokeMethod(
        this,
        [this, generation, run] {
          if (generation == m_generation && m_loadingStored) applyStored(run);
        },
        Qt::QueuedConnection);
  };
  BackgroundJob* job = freeReader();
  job->run<std::shared_ptr<Result<StoredRun>>>(
      [db, dir, stop = job->stopFlag(), preview] {
        return std::make_shared<Result<StoredRun>>(loadStoredRun(db, dir, stop, preview));
      },
      [this, generation](std::shared_ptr<Result<StoredRun>> loaded) {
        if (generation != m_generation) return;
        m_reading = m_loadingStored = false;
        if (!*loaded) {
          // The store cannot help (locked, damaged, read-only): the file itself, whole.
          emit warning(tr("the history store could not open this run (%1); reading its events.jsonl instead")
                           .arg(errorsText(loaded->errors())));
          forgetPreview();
          pollInBackground();
          return;
        }
        const bool behind = loaded->value().storeBehind;
        applyStored(std::make_shared<StoredRun>(std::move(loaded->value())));
        finishIfDead();
        pollInBackground();  // what was written since
        if (behind) catchUpStore();
      },
      [this, generation](const QString& error) {
        if (generation != m_generation) return;
        m_reading = m_loadingStored = false;
        emit warning(error);
        forgetPreview();
        pollInBackground();
      });
}

void RunController::catchUpStore() {
  const std::string db = m_storePath.toStdString(), dir = m_runDir.toStdString();
  // Its result is the store's: the page already shows the run. A failure is only logged: the
  // next open reads the tail again.
  m_storeJob->run<QString>(
      [db, dir, stop = m_storeJob->stopFlag()] {
        auto r = studio::catchUpStore(db, dir, stop);
        return r ? QString() : QString::fromStdString(r.errorText());  // logged: English
      },
      [](const QString& error) {
        if (!error.isEmpty()) qWarning("the history store did not catch up: %s", qPrintable(error));
      });
}

void RunController::applyStored(std::shared_ptr<StoredRun> run) {
  EventBatch batch;
  batch.events = std::move(run->events);
  for (size_t i = 0; i < run->warnings.size(); ++i)
    batch.warnings << engineText(i < run->warningTexts.size() ? run->warningTexts[i] : TextParts{},
                                 run->warnings[i]);
  batch.offset = run->offset;
  batch.lineNo = run->lineNo;
  for (const auto& e : run->lastSteps) m_lastEventTime = std::max(m_lastEventTime, e.time);
  m_stored = std::move(run);
  m_events.clear();
  applyBatch(std::move(batch));
  if (m_events.empty()) emit eventsAppended(0);  // the charts still take the stored series
}

bool RunController::hasCheckpoint() const {
  return std::any_of(m_events.begin(), m_events.end(), [](const RunEvent& e) {
    return e.type == telemetry::event_type::kCheckpoint;
  });
}

void RunController::forgetPreview() {
  if (!m_stored) return;
  // The first look drawn is dropped: the file is read whole, from its start.
  m_stored.reset();
  m_events.clear();
  m_offset = m_lineNo = 0;
  emit eventsAppended(0);
}

void RunController::applyBatch(EventBatch batch) {
  const QString path = QDir(m_runDir).filePath(QStringLiteral("events.jsonl"));
  if (batch.missing) {
    if (m_offset > 0 && !m_logMissingReported) {
      m_logMissingReported = true;
      emit warning(tr("%1 was removed or cannot be read; the charts keep what was read").arg(path));
    }
    return;
  }
  m_logMissingReported = false;
  for (const QString& w : batch.warnings) emit warning(w);
  if (batch.replaced) {
    m_events.clear();
    m_stored.reset();
    m_offset = m_lineNo = 0;
    emit eventsAppended(0);
  }
  const int first = static_cast<int>(m_events.size());
  for (auto& ev : batch.events) {
    m_lastEventTime = std::max(m_lastEventTime, ev.time);
    m_dispatch(ev);
    m_events.push_back(std::move(ev));
  }
  m_offset = batch.offset;
  m_lineNo = batch.lineNo;
  if (static_cast<int>(m_events.size()) > first) {
    emit eventsAppended(first);
    // The high-rate events have been drawn; only the others stay (a day-long run's steps and
    // samples are gigabytes decoded).
    const auto keep = std::remove_if(m_events.begin() + first, m_events.end(),
                                     [](const RunEvent& e) { return telemetry::isHighRateType(e.type); });
    m_events.erase(keep, m_events.end());
  }
}

QString RunController::outcomeName(RunOutcome o) {
  switch (o) {
    case RunOutcome::None: return tr("no run");
    case RunOutcome::Starting: return tr("starting");
    case RunOutcome::Running: return tr("running");
    case RunOutcome::Completed: return tr("completed");
    case RunOutcome::Stopped: return tr("stopped");
    case RunOutcome::EarlyStopped: return tr("early-stopped");
    case RunOutcome::Failed: return tr("failed");
    case RunOutcome::FailedToStart: return tr("failed to start");
    case RunOutcome::Crashed: return tr("crashed");
  }
  return {};
}

QString RunController::outcomeText() const {
  const QString name = outcomeName(m_outcome);
  if (m_outcome == RunOutcome::Crashed && m_signal > 0)
    return tr("%1 (%2)").arg(name, signalName(m_signal));
  if ((m_outcome == RunOutcome::Failed || m_outcome == RunOutcome::Crashed || m_outcome == RunOutcome::FailedToStart) &&
      !m_message.isEmpty())
    return tr("%1: %2").arg(name, m_message);
  return name;
}

}  // namespace stave::studio
