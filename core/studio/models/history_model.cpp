#include "core/studio/models/history_model.h"
#include "core/studio/gui_thread_reads.h"

#include "core/studio/background_job.h"
#include "core/studio/engine_text.h"
#include "core/studio/models/stored_run.h"
#include "core/studio/run/weights_fetch.h"

#include <set>

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QSet>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "core/base/atomic_file.h"
#include "core/train/run_lock.h"

namespace stave::studio {

namespace {

/// Whether a live process holds a run's folder (its run lock): a `running` run that nobody
/// holds was killed and is shown as such, not as running.
bool holdsRunFolder(const std::string& runDir) {
  return RunFolderLock::holder(runDir).has_value();
}

}  // namespace

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

// The store's warnings in the UI language where they have a catalog form.
QStringList warningLines(const store::IngestReport& r) {
  QStringList out;
  for (size_t i = 0; i < r.warnings.size(); ++i)
    out << engineText(i < r.warningTexts.size() ? r.warningTexts[i] : TextParts{}, r.warnings[i]);
  return out;
}

double endTime(const store::RunRecord& r) {
  return r.finished > 0 ? r.finished : r.lastEvent;
}

QString durationText(double seconds) {
  if (seconds <= 0) return QStringLiteral("—");
  const qint64 s = static_cast<qint64>(std::llround(seconds));
  // The Run page's unit, in the UI language ("41 秒").
  if (s < 60) return QCoreApplication::translate("stave::studio::RunTimes", "%1 s").arg(s);
  if (s < 3600) return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
  return QStringLiteral("%1:%2:%3")
      .arg(s / 3600)
      .arg((s / 60) % 60, 2, 10, QLatin1Char('0'))
      .arg(s % 60, 2, 10, QLatin1Char('0'));
}

nlohmann::json configOfRun(const store::RunRecord& r) {
  auto j = nlohmann::json::parse(r.configJson, nullptr, false);
  return j.is_object() ? j : nlohmann::json::object();
}

nlohmann::json resolvedOfRun(const store::RunRecord& r) {
  auto j = nlohmann::json::parse(r.resolvedJson, nullptr, false);
  return j.is_object() ? j : nlohmann::json::object();
}

// Keys that tell a run's story or name it, not how it trained: never a hyperparameter to
// compare (resume=true showed as a difference between a resumed run and its twin).
bool isStoryKey(const std::string& key) {
  return key == "name" || key == "resume" || key == "exist_ok";
}

QString valueText(const nlohmann::json& v) {
  if (v.is_string()) return q(v.get<std::string>());
  if (v.is_null()) return QString();
  return q(v.dump());
}

QString csvField(const QString& s) {
  if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) &&
      !s.contains(QLatin1Char('\n')))
    return s;
  QString out = s;
  out.replace(QLatin1Char('"'), QStringLiteral("\"\""));
  return QLatin1Char('"') + out + QLatin1Char('"');
}

}  // namespace

HistoryModel::HistoryModel(QObject* parent)
    : QAbstractTableModel(parent),
      m_ingest(new BackgroundJob(this)),
      m_write(new BackgroundJob(this)),
      m_query(new BackgroundJob(this)),
      m_queryDb(std::make_shared<QueryDb>()) {}
HistoryModel::~HistoryModel() = default;

bool HistoryModel::open(const QString& projectDir, QString* error) {
  beginResetModel();
  m_runs.clear();
  m_marks = {};
  m_store.reset();
  m_projectDir = QDir(projectDir).absolutePath();
  endResetModel();
  countRead(OffGuiRead::HistoryStore);
  auto s = store::Store::open(store::Store::defaultPath(m_projectDir.toStdString()));
  if (!s) {
    if (error) *error = errorsText(s.errors());
    return false;
  }
  m_store = std::move(s.value());
  m_store->setMemory(0, kStudioStoreCache);
  m_ingestDb.reset();  // the next background refresh opens its own connection to this one
  m_queryDb = std::make_shared<QueryDb>();  // and the next curve read
  m_writes.clear();
  ++m_generation;
  reload();  // what the database already holds, at once
  refreshInBackground();
  return true;
}

void HistoryModel::openInBackground(const QString& projectDir) {
  close();
  m_projectDir = QDir(projectDir).absolutePath();
  const quint64 generation = m_generation;
  struct Opened {
    std::unique_ptr<store::Store> gui;  ///< the connection the model's queries use
    std::vector<store::RunRecord> runs;
    FolderMarks marks;
    QString error;
  };
  const std::string path = store::Store::defaultPath(m_projectDir.toStdString());
  // Opening creates or migrates the database and checks it; the runs and their folders are
  // read beside it: seconds on a slow disk, never on the GUI thread. The connection is used
  // here only after the job handed it over (one thread at a time).
  m_ingest->run<std::shared_ptr<Opened>>(
      [path] {
        countRead(OffGuiRead::HistoryStore);
        auto out = std::make_shared<Opened>();
        auto s = store::Store::open(path);
        if (!s) {
          out->error = errorsText(s.errors());
          return out;
        }
        out->gui = std::move(s.value());
        out->gui->setMemory(0, kStudioStoreCache);
        out->runs = out->gui->runs();
        out->marks = folderMarks(out->runs);
        return out;
      },
      [this, generation](std::shared_ptr<Opened> o) {
        if (generation != m_generation) return;
        if (!o->gui) {
          emit refreshed(o->error);
          return;
        }
        m_store = std::move(o->gui);
        applyRuns(std::move(o->runs), std::move(o->marks), true);
        emit refreshed({});
        refreshInBackground();  // what is new under runs/
      },
      [this, generation](const QString& error) {
        if (generation == m_generation) emit refreshed(error);
      });
}

HistoryModel::FolderMarks HistoryModel::folderMarks(const std::vector<store::RunRecord>& runs) {
  FolderMarks marks;
  marks.missing.resize(runs.size());
  marks.remote.resize(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    marks.missing[i] = !QFileInfo::exists(q(runs[i].dir));
    marks.remote[i] = !marks.missing[i] && WeightsFetch::mayBeRemote(q(runs[i].dir));
  }
  return marks;
}

void HistoryModel::applyRuns(std::vector<store::RunRecord> runs, FolderMarks marks, bool changed) {
  if (!changed && runs.size() == m_runs.size()) {
    // Nothing new: the view keeps its selection untouched; a folder deleted meanwhile shows.
    const bool marked = !(marks == m_marks);
    m_marks = std::move(marks);
    if (marked && !m_runs.empty()) emit dataChanged(index(0, Status), index(rowCount() - 1, Status));
    return;
  }
  beginResetModel();
  m_runs = std::move(runs);
  m_marks = std::move(marks);
  endResetModel();
}

void HistoryModel::close() {
  ++m_generation;
  m_ingestDb.reset();
  m_queryDb = std::make_shared<QueryDb>();
  m_query->stop();
  m_writes.clear();  // one started ends; the others were for this project
  beginResetModel();
  m_runs.clear();
  m_marks = {};
  m_store.reset();
  m_projectDir.clear();
  endResetModel();
}

bool HistoryModel::refresh(QString* error) {
  if (!m_store) return false;
  countRead(OffGuiRead::HistoryStore);
  auto r = m_store->ingestRuns(QDir(m_projectDir).filePath(QStringLiteral("runs")).toStdString());
  if (!r) {
    if (error) *error = errorsText(r.errors());
    reload();
    return false;
  }
  QStringList warnings = warningLines(r.value());
  int updated = r->runsUpdated;
  if (auto settled = m_store->settleEndedRuns(holdsRunFolder))
    updated += settled.value();
  else
    warnings << errorsText(settled.errors());
  applyIngest(updated, warnings);
  return true;
}

void HistoryModel::applyIngest(int runsUpdated, const QStringList& warnings) {
  m_warnings = warnings;
  if (runsUpdated == 0 && static_cast<int>(m_runs.size()) == static_cast<int>(m_store->runs().size())) {
    // Nothing new: the view keeps its selection untouched; a folder deleted meanwhile still
    // shows.
    if (checkFolders() && !m_runs.empty()) emit dataChanged(index(0, Status), index(rowCount() - 1, Status));
    return;
  }
  reload();
}

bool HistoryModel::refreshing() const { return m_ingest->busy(); }

void HistoryModel::refreshInBackground() {
  if (!m_store) return;
  if (m_ingest->busy()) {
    m_ingestAgain = true;
    return;
  }
  struct Ingested {
    QString error;
    int runsUpdated = 0;
    QStringList warnings;
    std::shared_ptr<store::Store> db;  ///< the job's connection, kept for the next refresh
    bool read = false;                 ///< the runs were read (with their folders' marks)
    std::vector<store::RunRecord> runs;
    FolderMarks marks;
  };
  const std::string dbPath = m_store->path();
  const std::string runs = QDir(m_projectDir).filePath(QStringLiteral("runs")).toStdString();
  const quint64 generation = m_generation;
  // One connection for the background refreshes of a project (opened by the first: opening
  // checks the database, which every 3 s would be wasted work); one job at a time uses it.
  std::shared_ptr<store::Store> db = m_ingestDb;
  m_ingest->run<Ingested>(
      [dbPath, runs, db, stop = m_ingest->stopFlag()] {
        countRead(OffGuiRead::HistoryStore);
        Ingested out;
        out.db = db;
        if (!out.db) {
          auto s = store::Store::open(dbPath);
          if (!s) {
            out.error = errorsText(s.errors());
            return out;
          }
          out.db = std::move(s.value());
          out.db->setBusyTimeout(kBackgroundBusyMs);  // the Run page may be reading a run
          out.db->setMemory(0, kStudioStoreCache);
        }
        out.db->setStopFlag(stop);  // the studio closes: keep what was read, end
        // The rows as the store holds them after this, read here too (not on the GUI thread).
        const auto readRuns = [&out] {
          out.runs = out.db->runs();
          out.marks = folderMarks(out.runs);
          out.read = true;
        };
        auto r = out.db->ingestRuns(runs);
        if (!r) {
          out.error = errorsText(r.errors());
          readRuns();
          return out;
        }
        out.runsUpdated = r->runsUpdated;
        if (auto settled = out.db->settleEndedRuns(holdsRunFolder))
          out.runsUpdated += settled.value();
        else
          out.warnings << errorsText(settled.errors());
        out.warnings << warningLines(r.value());
        readRuns();
        return out;
      },
      [this, generation](Ingested r) {
        const bool again = m_ingestAgain;
        m_ingestAgain = false;
        if (generation == m_generation) m_ingestDb = r.db;
        if (generation == m_generation && m_store) {
          if (r.error.isEmpty()) m_warnings = r.warnings;
          if (r.read) applyRuns(std::move(r.runs), std::move(r.marks), r.runsUpdated > 0);
          // Asked again meanwhile: said once that run is done (never older than the asking).
          if (!again) emit refreshed(r.error);
        }
        if (again || generation != m_generation) refreshInBackground();
      },
      [this, generation](const QString& error) {
        m_ingestAgain = false;
        if (generation == m_generation) emit refreshed(error);
      });
}

void HistoryModel::reload() {
  beginResetModel();
  if (m_store) countRead(OffGuiRead::HistoryStore);
  m_runs = m_store ? m_store->runs() : std::vector<store::RunRecord>{};
  checkFolders();
  endResetModel();
}

bool HistoryModel::checkFolders() {
  FolderMarks marks = folderMarks(m_runs);
  const bool changed = !(marks == m_marks);
  m_marks = std::move(marks);
  return changed;
}

int HistoryModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_runs.size());
}

int HistoryModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QString HistoryModel::statusName(const std::string& status) {
  if (status == "completed") return tr("completed");
  if (status == "running") return tr("running");
  if (status == "stopped") return tr("stopped");
  if (status == "early_stopped") return tr("early-stopped");
  if (status == "failed") return tr("failed");
  if (status == "crashed") return tr("crashed");
  return tr("unknown");
}

QString HistoryModel::displayName(const store::RunRecord& r) {
  return r.title.empty() ? q(r.name) : q(r.title);
}

QVariant HistoryModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const auto& r = m_runs[static_cast<size_t>(index.row())];
  const double duration = r.started > 0 && endTime(r) >= r.started ? endTime(r) - r.started : 0;
  const int64_t globalBatch = r.batch * std::max(1, r.worldSize);
  if (role == SortRole) {
    switch (index.column()) {
      case Name: return displayName(r).toLower();
      case Status: return q(r.status);
      case Started: return r.started;
      case Duration: return duration;
      case Model: return q(r.model);
      case Imgsz: return qint64(r.imgsz);
      case Epochs: return r.epochsDone;
      case GlobalBatch: return qint64(globalBatch);
      case BestMap5095: return r.bestEpoch >= 0 ? r.bestMap5095 : -1.0;
      case SamplesPerSec: return r.samplesPerSec;
      case Tags: return q(nlohmann::json(r.tags).dump());
    }
  }
  if (role == Qt::ToolTipRole) {
    if (index.column() == Name)
      return tr("Folder: %1").arg(q(r.dir)) +
             (r.notes.empty() ? QString() : QStringLiteral("\n") + q(r.notes));
    if (index.column() == Status && m_marks.missing[static_cast<size_t>(index.row())])
      return tr("%1 no longer exists; Delete removes the run from the history").arg(q(r.dir));
    if (index.column() == Status) {
      QStringList lines;
      if (r.sessions.size() > 1) {
        QStringList story;
        for (const auto& st : r.sessions) story << statusName(st);
        lines << tr("Sessions: %1").arg(story.join(QStringLiteral(" → ")));
      }
      if (!r.message.empty()) lines << engineText(r.messageText, r.message);
      return lines.isEmpty() ? QVariant() : QVariant(lines.join(QLatin1Char('\n')));
    }
    return {};
  }
  if (role == Qt::TextAlignmentRole) {
    const int c = index.column();
    if (c == Imgsz || c == Epochs || c == GlobalBatch || c == BestMap5095 || c == SamplesPerSec ||
        c == Duration)
      return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Name: return displayName(r);
    case Status: {
      // A run whose folder was deleted or moved (its history stays until deleted here).
      if (m_marks.missing[static_cast<size_t>(index.row())]) return tr("folder missing");
      // The run's story when more than one process trained it (stopped, resumed, crashed):
      // "completed after 3 sessions" rather than only the last one's end.
      const QString last = statusName(r.status);
      if (r.sessions.size() > 1) return tr("%1 after %2 sessions").arg(last).arg(r.sessions.size());
      return last;
    }
    case Started:
      return r.started > 0 ? QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(r.started * 1000))
                                 .toString(QStringLiteral("yyyy-MM-dd HH:mm"))
                           : QString();
    case Duration: return durationText(duration);
    case Model: return q(r.model);
    case Imgsz: return r.imgsz > 0 ? QString::number(r.imgsz) : QString();
    case Epochs: return QStringLiteral("%1/%2").arg(r.epochsDone).arg(r.epochs);
    case GlobalBatch: return globalBatch > 0 ? QString::number(globalBatch) : QString();
    case BestMap5095: return r.bestEpoch >= 0 ? QString::number(r.bestMap5095, 'f', 4) : QString();
    case SamplesPerSec: return r.samplesPerSec > 0 ? QString::number(r.samplesPerSec, 'f', 1) : QString();
    case Tags: {
      QStringList t;
      for (const auto& s : r.tags) t << q(s);
      return t.join(QStringLiteral(", "));
    }
  }
  return {};
}

QVariant HistoryModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Name: return tr("Name");
    case Status: return tr("Status");
    case Started: return tr("Started");
    case Duration: return tr("Duration");
    case Model: return tr("Model");
    case Imgsz: return tr("imgsz");
    case Epochs: return tr("Epochs");
    case GlobalBatch: return tr("Global batch");
    case BestMap5095: return tr("Best mAP50-95");
    case SamplesPerSec: return tr("Samples/s");
    case Tags: return tr("Tags");
  }
  return {};
}

int HistoryModel::rowOfId(int64_t id) const {
  for (size_t i = 0; i < m_runs.size(); ++i)
    if (m_runs[i].id == id) return static_cast<int>(i);
  return -1;
}

QList<QPair<QString, QStringList>> HistoryModel::configDiff(const QList<int>& rows) const {
  QList<QPair<QString, QStringList>> out;
  std::vector<nlohmann::json> cfgs, used;
  std::map<std::string, int> keys;
  for (int row : rows) {
    if (row < 0 || row >= rowCount()) continue;
    cfgs.push_back(configOfRun(run(row)));
    used.push_back(resolvedOfRun(run(row)));
    for (auto it = cfgs.back().begin(); it != cfgs.back().end(); ++it) keys[it.key()]++;
  }
  if (cfgs.size() < 2) return out;
  for (const auto& [key, count] : keys) {
    if (isStoryKey(key)) continue;
    QStringList values;
    bool same = count == static_cast<int>(cfgs.size());
    for (size_t i = 0; i < cfgs.size(); ++i) {
      const auto it = cfgs[i].find(key);
      // The value the run trained with, where Stave chose another (optimizer=auto's lr0, the
      // batch-scaled weight decay): two runs that differ only in an unused value are the same.
      const auto u = used[i].find(key);
      const bool differs = it != cfgs[i].end() && u != used[i].end() && *u != *it;
      QString text = it == cfgs[i].end() ? QStringLiteral("—") : valueText(*it);
      if (differs) text = tr("%1 (used %2)").arg(text, valueText(*u));
      values << text;
      if (same && values.back() != values.front()) same = false;
    }
    if (!same) out.append({q(key), values});
  }
  return out;
}

QStringList HistoryModel::numericVaryingKeys(const QList<int>& rows) const {
  QStringList out;
  for (const auto& [key, values] : configDiff(rows)) {
    bool numeric = true;
    std::set<double> distinct;  // of the values used: an axis where all agree says nothing
    for (int row : rows) {
      if (row < 0 || row >= rowCount()) continue;
      const double v = configNumber(row, key);
      if (std::isnan(v)) numeric = false;
      distinct.insert(v);
    }
    if (numeric && distinct.size() > 1) out << key;
  }
  return out;
}

double HistoryModel::configNumber(int row, const QString& key) const {
  if (row < 0 || row >= rowCount()) return std::nan("");
  // The value the run trained with where Stave resolved it, else the config's.
  const auto used = resolvedOfRun(run(row));
  const auto config = configOfRun(run(row));
  const auto u = used.find(key.toStdString());
  const bool fromUsed = u != used.end() && (u->is_number() || u->is_boolean());
  const auto& c = fromUsed ? used : config;
  const auto it = c.find(key.toStdString());
  if (it == c.end()) return std::nan("");
  if (it->is_number()) return it->get<double>();
  if (it->is_boolean()) return it->get<bool>() ? 1.0 : 0.0;
  return std::nan("");
}

bool HistoryModel::setTitle(int row, const QString& title, QString* error) {
  if (!m_store || row < 0 || row >= rowCount()) return false;
  auto st = m_store->setTitle(run(row).id, title.trimmed().toStdString());
  if (!st) {
    if (error) *error = errorsText(st.errors());
    return false;
  }
  m_runs[static_cast<size_t>(row)].title = title.trimmed().toStdString();
  emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
  return true;
}

bool HistoryModel::setTags(int row, const QStringList& tags, QString* error) {
  if (!m_store || row < 0 || row >= rowCount()) return false;
  std::vector<std::string> t;
  for (const auto& s : tags)
    if (!s.trimmed().isEmpty()) t.push_back(s.trimmed().toStdString());
  auto st = m_store->setTags(run(row).id, t);
  if (!st) {
    if (error) *error = errorsText(st.errors());
    return false;
  }
  m_runs[static_cast<size_t>(row)].tags = t;
  emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
  return true;
}

bool HistoryModel::setNotes(int row, const QString& notes, QString* error) {
  if (!m_store || row < 0 || row >= rowCount()) return false;
  auto st = m_store->setNotes(run(row).id, notes.toStdString());
  if (!st) {
    if (error) *error = errorsText(st.errors());
    return false;
  }
  m_runs[static_cast<size_t>(row)].notes = notes.toStdString();
  emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
  return true;
}

bool HistoryModel::configOf(int row, config::RunConfig* out, QString* error) const {
  if (row < 0 || row >= rowCount()) return false;
  auto j = configOfRun(run(row));
  // What names this one run, not how to train: a new run gets its own.
  for (const char* k : {"name", "exist_ok", "resume", "data"}) j.erase(k);
  auto cfg = config::runConfigFromJson(j, run(row).name);
  if (!cfg) {
    if (error) *error = errorsText(cfg.errors());
    return false;
  }
  *out = cfg.value();
  return true;
}

bool HistoryModel::exportCsv(const QString& path, QString* error) const {
  QString text;
  QStringList head;
  for (int c = 0; c < ColumnCount; ++c) head << csvField(headerData(c, Qt::Horizontal, Qt::DisplayRole).toString());
  head << QStringLiteral("folder") << QStringLiteral("best_map50") << QStringLiteral("notes");
  text += head.join(QLatin1Char(',')) + QLatin1Char('\n');
  for (int row = 0; row < rowCount(); ++row) {
    QStringList cells;
    for (int c = 0; c < ColumnCount; ++c) cells << csvField(data(index(row, c)).toString());
    cells << csvField(q(run(row).dir)) << QString::number(run(row).bestMap50, 'f', 6)
          << csvField(q(run(row).notes));
    text += cells.join(QLatin1Char(',')) + QLatin1Char('\n');
  }
  auto st = writeFileAtomic(path.toStdString(), text.toStdString());
  if (!st) {
    if (error) *error = errorsText(st.errors());
    return false;
  }
  return true;
}

}  // namespace stave::studio
