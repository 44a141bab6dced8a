#include "core/studio/run/run_queue.h"

#include "core/studio/engine_text.h"
#include "core/studio/project/preflight.h"
#include "core/studio/run/run_folders.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <memory>

#include "core/base/atomic_file.h"
#include "core/studio/background_job.h"
#include "core/studio/project/preferences.h"
#include "core/studio/project/project_document.h"
#include "core/studio/run/run_controller.h"
#include "core/studio/run/run_session.h"
#include "core/studio/hardware/hardware_monitor.h"
#include "core/telemetry/gpu_sampler.h"

namespace stave::studio {
namespace {
using State = QueueEntry::State;
constexpr int kKeepEnded = 20;  // ended entries kept in the list

bool active(State s) {
  return s == State::Queued || s == State::Waiting;
}

bool started(State s) {
  return s == State::Starting || s == State::Running;
}

// The order of the first queue files, which kept the state as a number.
State stateFromNumber(int n) {
  static const State old[] = {State::Queued,   State::Waiting, State::Running,
                              State::Finished, State::Failed,  State::Cancelled};
  return n >= 0 && n < 6 ? old[n] : State::Queued;
}

QString lastValue(const QStringList& overrides, const QString& key, const QString& fallback) {
  QString out = fallback;
  for (const QString& o : overrides)
    if (o.startsWith(key + QLatin1Char('='))) out = o.mid(key.size() + 1);
  return out;
}
}  // namespace

RunQueue::RunQueue(ProjectDocument* doc, RunSessions* sessions, QObject* parent)
    : QAbstractListModel(parent),
      m_doc(doc),
      m_sessions(sessions ? sessions : new RunSessions(this)),
      m_prepare(std::make_unique<BackgroundJob>()),
      m_job(std::make_unique<BackgroundJob>()) {
  m_timer.setInterval(2000);
  connect(&m_timer, &QTimer::timeout, this, &RunQueue::tick);
  connect(m_doc, &ProjectDocument::opened, this, &RunQueue::load);
  connect(m_doc, &ProjectDocument::closed, this, [this] {
    for (RunSession* held : std::as_const(m_held)) m_sessions->release(held, this);
    m_held.clear();
    beginResetModel();
    m_entries.clear();
    endResetModel();
  });
  m_timer.start();
  if (m_doc->isOpen()) load();
}

RunQueue::~RunQueue() = default;

QString RunQueue::stateName(State s) {
  switch (s) {
    case State::Queued:
      return tr("queued");
    case State::Waiting:
      return tr("waiting");
    case State::Starting:
      return tr("starting");
    case State::Running:
      return tr("running");
    case State::Finished:
      return tr("finished");
    case State::Failed:
      return tr("failed");
    case State::Cancelled:
      return tr("cancelled");
  }
  return {};
}

QString RunQueue::stateKey(State s) {
  switch (s) {
    case State::Queued:
      return QStringLiteral("queued");
    case State::Waiting:
      return QStringLiteral("waiting");
    case State::Starting:
      return QStringLiteral("starting");
    case State::Running:
      return QStringLiteral("running");
    case State::Finished:
      return QStringLiteral("finished");
    case State::Failed:
      return QStringLiteral("failed");
    case State::Cancelled:
      return QStringLiteral("cancelled");
  }
  return {};
}

int RunQueue::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_entries.size());
}

QVariant RunQueue::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const QueueEntry& e = m_entries[static_cast<size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole: {
      QString text = tr("%1 × %2 — %3").arg(e.config).arg(e.nproc).arg(stateName(e.state));
      if (!e.runDir.isEmpty()) text += QStringLiteral(" (%1)").arg(QFileInfo(e.runDir).fileName());
      if (!e.message.isEmpty()) text += QStringLiteral(": ") + e.message;
      return text;
    }
    case Qt::ToolTipRole:
      return tr("queued %1").arg(e.queuedAt.toString(Qt::ISODate));
    case IdRole:
      return e.id;
    case ConfigRole:
      return e.config;
    case StateRole:
      return static_cast<int>(e.state);
    case RunDirRole:
      return e.runDir;
    case MessageRole:
      return e.message;
    default:
      return {};
  }
}

QHash<int, QByteArray> RunQueue::roleNames() const {
  return {{Qt::DisplayRole, "display"}, {IdRole, "id"},         {ConfigRole, "config"},
          {StateRole, "state"},         {RunDirRole, "runDir"}, {MessageRole, "message"}};
}

QString RunQueue::queueFile() const {
  if (!m_doc->isOpen()) return {};
  return QDir(QFileInfo(m_doc->path()).absolutePath()).filePath(QStringLiteral("queue.json"));
}

bool RunQueue::enqueue(const QString& config, int nproc, const QStringList& overrides,
                       QString* error) {
  if (!m_doc->isOpen()) {
    if (error) *error = tr("Open a project first.");
    return false;
  }
  if (!m_doc->config(config)) {
    if (error) *error = tr("no config named %1").arg(config);
    return false;
  }
  QueueEntry e;
  e.id = QString::number(m_nextId++);
  e.config = config;
  e.nproc = std::max(1, nproc);
  e.overrides = overrides;
  e.queuedAt = QDateTime::currentDateTime();
  beginInsertRows({}, rowCount(), rowCount());
  m_entries.push_back(e);
  endInsertRows();
  save();
  QTimer::singleShot(0, this, &RunQueue::tick);
  return true;
}

bool RunQueue::cancel(int row) {
  if (row < 0 || row >= rowCount() || !active(m_entries[size_t(row)].state)) return false;
  m_entries[size_t(row)].state = State::Cancelled;
  m_entries[size_t(row)].message.clear();
  changed(row);
  save();
  return true;
}

bool RunQueue::move(int row, int delta) {
  const int to = row + delta;
  if (row < 0 || row >= rowCount() || to < 0 || to >= rowCount() || delta == 0) return false;
  if (!active(m_entries[size_t(row)].state)) return false;  // only waiting entries move
  beginMoveRows({}, row, row, {}, delta > 0 ? to + 1 : to);
  std::swap(m_entries[size_t(row)], m_entries[size_t(to)]);
  endMoveRows();
  save();
  return true;
}

int RunQueue::pendingCount() const {
  return int(std::count_if(m_entries.begin(), m_entries.end(), [](const QueueEntry& e) {
    return active(e.state) || started(e.state);
  }));
}

void RunQueue::changed(int row) {
  emit dataChanged(index(row), index(row));
}

void RunQueue::tick() {
  if (m_job->busy()) return;  // the last measurement is still under way
  if (!m_hardware) m_hardware = new HardwareMonitor(this);
  m_hardware->start();
  // Nothing is measured before the GPUs are known (a first "CPU free" on a GPU machine would
  // start a run on the CPU lease): the inventory, and a first round where there are GPUs.
  if (!m_hardware->ready() || (m_hardware->hasGpu() && m_hardware->latest().empty())) return;
  const std::vector<telemetry::GpuSample> round = m_hardware->latest();
  const QString unavailable = m_hardware->hasGpu() ? QString() : m_hardware->noGpuReason();
  const GpuLeases leases = m_leases;
  const double threshold = m_memoryThreshold;
  const QString folder = m_doc->isOpen() ? QFileInfo(m_doc->path()).absolutePath() : QString();
  m_job->run<Probe>(
      [round, unavailable, leases, threshold, folder] {
        Probe p;
        if (!unavailable.isEmpty()) {
          p.problem = unavailable;
        } else {
          for (const auto& s : round) {
            GpuState g{s.index, true, {}};
            const QString holder = leases.holder(QStringLiteral("gpu%1").arg(s.index));
            if (!holder.isEmpty()) {
              g.free = false;
              g.why = tr("GPU %1 is used by %2").arg(s.index).arg(QFileInfo(holder).fileName());
            } else if (s.memoryTotal > 0 && s.memoryUsed > threshold * double(s.memoryTotal)) {
              g.free = false;
              g.why = tr("GPU %1 has %2% of its memory in use")
                          .arg(s.index)
                          .arg(100.0 * double(s.memoryUsed) / double(s.memoryTotal), 0, 'f', 0);
            }
            p.gpus.push_back(g);
          }
        }
        p.cpuHolder = leases.holder(QStringLiteral("cpu"));
        // A run started from the Run page (or headless) holds no lease, yet it uses the CPU
        // ("CPU free" showed during a run).
        if (p.gpus.empty() && p.cpuHolder.isEmpty() && !folder.isEmpty()) {
          const RunFolders runs = listRunFolders(folder);
          if (!runs.live.isEmpty()) p.cpuHolder = QFileInfo(runs.live.last()).fileName();
          else if (!runs.recent.isEmpty()) p.cpuHolder = QFileInfo(runs.recent.last()).fileName();
        }
        return p;
      },
      [this](Probe p) { apply(std::move(p)); },
      [this](const QString& error) {
        emit message(tr("Cannot read the GPUs and leases: %1").arg(error));
      });
}

void RunQueue::apply(Probe probe) {
  m_probe = std::move(probe);
  QString text;
  if (!m_probe.gpus.empty()) {
    const auto free = std::count_if(m_probe.gpus.begin(), m_probe.gpus.end(),
                                    [](const GpuState& g) { return g.free; });
    text = tr("%1/%2 GPUs free").arg(free).arg(m_probe.gpus.size());
  } else {
    text = m_probe.cpuHolder.isEmpty() ? tr("CPU free") : tr("CPU busy (%1)").arg(QFileInfo(m_probe.cpuHolder).fileName());
  }
  if (text != m_freeText) {
    m_freeText = text;
    emit freeTextChanged(text);
  }
  if (m_doc->isOpen()) {
    bool busy = false;
    if (followRunning()) {
      // A run ended and gave its leases back: measure again before starting the next.
      QTimer::singleShot(0, this, &RunQueue::tick);
      busy = true;
    }
    for (const auto& e : m_entries)
      if (started(e.state)) busy = true;  // one run of this queue at a time
    if (!busy) startHead();
  }
  emit measured();
}

bool RunQueue::followRunning() {
  bool ended = false;
  for (size_t i = 0; i < m_entries.size(); ++i) {
    QueueEntry& e = m_entries[i];
    if (!started(e.state)) continue;
    auto close = [&](State state, const QString& why) {
      e.state = state;
      e.message = why;
      releaseSession(e.runDir);
      m_leases.release(e.resources, e.runDir);
      changed(int(i));
      save();
      ended = true;
    };
    RunSession* session = sessionOf(e.runDir, nullptr);
    if (!session) {
      close(State::Failed,
            tr("its run folder %1 is gone (was the project moved or the run deleted?)")
                .arg(e.runDir));
      emit message(tr("Queued run %1: %2").arg(e.config, e.message));
      continue;
    }
    // The session reads the run on its own thread; until it has read to the end of the log
    // the run's state is not known (a run that ended may still read as not begun).
    const RunController* run = session->controller();
    if (!run->caughtUp()) continue;
    const RunOutcome o = run->outcome();
    if (o == RunOutcome::Starting || o == RunOutcome::Running || run->isLive()) {
      if (o == RunOutcome::Running && e.state == State::Starting) {
        e.state = State::Running;
        changed(int(i));
        save();
      }
      continue;
    }
    if (o == RunOutcome::None) {
      // Nothing in the folder tells (a studio that ended right after making it): after the
      // grace a starting run gets, it never started.
      const QDateTime made = QFileInfo(e.runDir).lastModified();
      if (made.secsTo(QDateTime::currentDateTime()) < GpuLeases::kStartGraceSeconds) continue;
      close(State::Failed, tr("the run never started (nothing in %1)").arg(e.runDir));
      continue;
    }
    close((o == RunOutcome::Failed || o == RunOutcome::Crashed || o == RunOutcome::FailedToStart) ? State::Failed : State::Finished,
          run->outcomeText());
    emit message(tr("Queued run %1 ended: %2").arg(QFileInfo(e.runDir).fileName(), e.message));
  }
  return ended;
}

void RunQueue::startHead() {
  if (m_prepare->busy()) return;  // the head's start is being prepared
  auto it =
      std::find_if(m_entries.begin(), m_entries.end(), [](auto& e) { return active(e.state); });
  if (it == m_entries.end()) return;
  QueueEntry& e = *it;
  const int row = int(it - m_entries.begin());
  auto wait = [&](const QString& why) {
    if (e.state != State::Waiting || e.message != why) {
      e.state = State::Waiting;
      e.message = why;
      changed(row);
    }
  };
  auto fail = [&](const QString& why) {
    e.state = State::Failed;
    e.message = why;
    changed(row);
    save();
  };
  const config::RunConfig* cfg = m_doc->config(e.config);
  if (!cfg) return fail(tr("the project has no config named %1").arg(e.config));
  QStringList overrides = Preferences::load().runOverrides(*cfg) + e.overrides;
  const QString devices = lastValue(overrides, QStringLiteral("devices"),
                                    QString::fromStdString(cfg->getString("devices")));
  const std::vector<GpuState> none;
  const auto& gpuList = devices == QLatin1String("cpu") ? none : m_probe.gpus;
  QStringList resources;
  if (gpuList.empty()) {
    resources << QStringLiteral("cpu");
  } else if (!devices.isEmpty()) {
    for (const QString& d : devices.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
      const int index = d.trimmed().toInt();
      auto g =
          std::find_if(gpuList.begin(), gpuList.end(), [&](auto& x) { return x.index == index; });
      if (g == gpuList.end())
        return fail(tr("devices=%1: there is no GPU %2").arg(devices).arg(index));
      if (!g->free) return wait(g->why);
      resources << QStringLiteral("gpu%1").arg(index);
    }
  } else {
    QStringList chosen;
    QString why;
    for (const auto& g : gpuList) {
      if (g.free && chosen.size() < e.nproc) chosen << QString::number(g.index);
      if (!g.free && why.isEmpty()) why = g.why;
    }
    if (chosen.size() < e.nproc)
      return wait(tr("needs %1 free GPUs, %2 free (%3)").arg(e.nproc).arg(chosen.size()).arg(why));
    for (const QString& c : chosen) resources << QStringLiteral("gpu") + c;
    overrides << QStringLiteral("devices=") + chosen.join(QLatin1Char(','));
  }
  // The pre-flight (the dataset, the config, this machine), the run folder's name and the
  // leases' files are looked at off the GUI thread; the entry starts when that is done.
  const config::Project project = m_doc->project();
  const QString projectFile = m_doc->path(), configName = e.config;
  const GpuLeases leases = m_leases;
  m_prepare->run<PreparedStart>(
      [project, projectFile, configName, overrides, resources, leases] {
        PreparedStart p;
        // A run known to fail (no dataset, a config that does not validate) is not started: no
        // run folder is left behind.
        if (const QStringList blocking = preflightBlocking(preflight(project, configName, overrides));
            !blocking.isEmpty()) {
          p.blocking = blocking.join(QStringLiteral("; "));
          return p;
        }
        p.runDir = RunController::newRunDir(projectFile);
        GpuLeases held = leases;
        p.acquired = held.acquire(resources, p.runDir, &p.why);
        return p;
      },
      [this, id = e.id, projectFile, overrides, resources](PreparedStart p) {
        startPrepared(id, projectFile, overrides, resources, p);
      });
}

void RunQueue::startPrepared(const QString& id, const QString& projectFile, const QStringList& overrides,
                             const QStringList& resources, const PreparedStart& prepared) {
  const QString& runDir = prepared.runDir;
  auto it = std::find_if(m_entries.begin(), m_entries.end(), [&](const QueueEntry& x) { return x.id == id; });
  // Cancelled, removed or another project meanwhile: what was taken for it is given back.
  if (it == m_entries.end() || !active(it->state) || !m_doc->isOpen() || m_doc->path() != projectFile) {
    if (prepared.acquired) m_leases.release(resources, runDir);
    return;
  }
  QueueEntry& e = *it;
  const int row = int(it - m_entries.begin());
  auto fail = [&](const QString& why) {
    e.state = State::Failed;
    e.message = why;
    changed(row);
    save();
  };
  if (!prepared.blocking.isEmpty()) return fail(prepared.blocking);
  if (!prepared.acquired) {
    if (e.state != State::Waiting || e.message != prepared.why) {
      e.state = State::Waiting;
      e.message = prepared.why;
      changed(row);
    }
    return;
  }
  QString error;
  RunSession* session = m_sessions->start(projectFile, e.config, e.nproc, overrides, this,
                                          RunSessions::Need::State, &error, runDir);
  if (!session) {
    m_leases.release(resources, runDir);
    return fail(error);
  }
  m_held.insert(QDir::cleanPath(session->runDir()), session);
  // Its folder and process are made off the GUI thread: a start that fails there fails the
  // entry as a refusal did, and gives back what it held.
  connect(
      session->controller(), &RunController::launchDone, this,
      [this, id = e.id, runDir, resources](const QString& error) {
        if (error.isEmpty()) {
          emit runStarted(runDir);  // its folder is there now, for a page to show
          return;
        }
        releaseSession(runDir);
        m_leases.release(resources, runDir);
        const auto at = std::find_if(m_entries.begin(), m_entries.end(),
                                     [&](const QueueEntry& x) { return x.id == id && x.runDir == runDir; });
        if (at == m_entries.end()) return;
        at->state = State::Failed;
        at->message = error;
        changed(int(at - m_entries.begin()));
        save();
      },
      Qt::SingleShotConnection);
  e.state = State::Starting;
  e.runDir = runDir;
  e.resources = resources;
  e.message.clear();
  changed(row);
  save();
  QTimer::singleShot(0, this, &RunQueue::tick);  // the free count now counts this run's leases
}

RunSession* RunQueue::sessionOf(const QString& runDir, QString* error) {
  const QString dir = QDir::cleanPath(QFileInfo(runDir).absoluteFilePath());
  if (RunSession* s = m_held.value(dir)) return s;
  // The queue needs the run's state, not its steps and samples (a page that shows the run
  // shares the session and has them decoded).
  RunSession* s = m_sessions->follow(dir, this, RunSessions::Need::State, error);
  if (s) m_held.insert(dir, s);
  return s;
}

void RunQueue::releaseSession(const QString& runDir) {
  m_sessions->release(m_held.take(QDir::cleanPath(QFileInfo(runDir).absoluteFilePath())), this);
}

QString RunQueue::toStored(const QString& runDir) const {
  // Inside the project folder: kept relative, so a moved project still finds its runs.
  const QDir project(QFileInfo(m_doc->path()).absolutePath());
  const QString rel = project.relativeFilePath(runDir);
  return runDir.isEmpty() || rel.startsWith(QLatin1String("..")) ? runDir : rel;
}

QString RunQueue::fromStored(const QString& runDir) const {
  if (runDir.isEmpty() || QDir::isAbsolutePath(runDir)) return runDir;
  return QDir::cleanPath(QDir(QFileInfo(m_doc->path()).absolutePath()).filePath(runDir));
}

void RunQueue::save() {
  const QString file = queueFile();
  if (file.isEmpty()) return;
  // Ended entries beyond the last few are dropped from the file (their runs are in History).
  int ended = 0;
  QJsonArray list;
  for (auto it = m_entries.rbegin(); it != m_entries.rend(); ++it) {
    const QueueEntry& e = *it;
    const bool done =
        e.state == State::Finished || e.state == State::Failed || e.state == State::Cancelled;
    if (done && ++ended > kKeepEnded) continue;
    list.prepend(QJsonObject{{QStringLiteral("id"), e.id},
                             {QStringLiteral("config"), e.config},
                             {QStringLiteral("nproc"), e.nproc},
                             {QStringLiteral("overrides"), QJsonArray::fromStringList(e.overrides)},
                             {QStringLiteral("state"), stateKey(e.state)},
                             {QStringLiteral("run_dir"), toStored(e.runDir)},
                             {QStringLiteral("resources"), QJsonArray::fromStringList(e.resources)},
                             {QStringLiteral("message"), e.message},
                             {QStringLiteral("queued_at"), e.queuedAt.toString(Qt::ISODate)}});
  }
  const QByteArray bytes =
      QJsonDocument(QJsonObject{{QStringLiteral("format"), QStringLiteral("stave-queue")},
                                {QStringLiteral("version"), 2},
                                {QStringLiteral("entries"), list}})
          .toJson();
  if (auto st = writeFileAtomic(file.toStdString(), bytes.toStdString()); !st)
    emit message(tr("Cannot save the queue: %1").arg(errorsText(st.errors())));
}

void RunQueue::load() {
  beginResetModel();
  m_entries.clear();
  m_loadProblem.clear();
  for (RunSession* held : std::as_const(m_held)) m_sessions->release(held, this);
  m_held.clear();
  QFile f(queueFile());
  if (f.exists() && !f.open(QIODevice::ReadOnly)) {
    m_loadProblem = tr("Cannot read the queue %1: %2; the queue starts empty and the file is "
                       "replaced at the next change")
                        .arg(queueFile(), f.errorString());
  } else if (f.isOpen()) {
    QJsonParseError pe;
    const auto doc = QJsonDocument::fromJson(f.readAll(), &pe);
    if (!doc.isObject() ||
        doc.object().value(QStringLiteral("format")).toString() != QLatin1String("stave-queue")) {
      m_loadProblem =
          tr("%1 is not a Stave queue file (%2); the queue starts empty and the "
             "file is replaced at the next change")
              .arg(queueFile(), pe.error != QJsonParseError::NoError ? pe.errorString()
                                                                     : tr("unexpected content"));
    } else {
      for (const auto& v : doc.object().value(QStringLiteral("entries")).toArray()) {
        const auto o = v.toObject();
        QueueEntry e;
        e.id = o.value(QStringLiteral("id")).toString();
        e.config = o.value(QStringLiteral("config")).toString();
        e.nproc = std::max(1, o.value(QStringLiteral("nproc")).toInt(1));
        for (const auto& x : o.value(QStringLiteral("overrides")).toArray())
          e.overrides << x.toString();
        const QJsonValue state = o.value(QStringLiteral("state"));
        e.state = state.isDouble() ? stateFromNumber(state.toInt()) : State::Queued;
        for (int k = 0; k <= int(State::Cancelled); ++k)
          if (state.toString() == stateKey(State(k))) e.state = State(k);
        if (e.state == State::Waiting) e.state = State::Queued;
        e.runDir = fromStored(o.value(QStringLiteral("run_dir")).toString());
        for (const auto& x : o.value(QStringLiteral("resources")).toArray())
          e.resources << x.toString();
        e.message = o.value(QStringLiteral("message")).toString();
        e.queuedAt =
            QDateTime::fromString(o.value(QStringLiteral("queued_at")).toString(), Qt::ISODate);
        if (e.config.isEmpty()) continue;
        m_nextId = std::max(m_nextId, e.id.toInt() + 1);
        m_entries.push_back(e);
      }
    }
  }
  endResetModel();
  if (!m_loadProblem.isEmpty()) emit message(m_loadProblem);
  // A run the queue started before the studio closed is followed again (or closed out).
  QTimer::singleShot(0, this, &RunQueue::tick);
}

}  // namespace stave::studio
