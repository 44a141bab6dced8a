// HistoryModel's work on the selected runs, each on a thread of its own and never on the GUI
// thread: their metric lists and curves read from the database (readCurves), their removal and
// the saving of their annotations (one write after the other).
#include "core/studio/models/history_model.h"

#include <QDir>
#include <QFileInfo>
#include <QSet>
#include <algorithm>

#include "core/studio/background_job.h"
#include "core/studio/engine_text.h"
#include "core/studio/gui_thread_reads.h"
#include "core/studio/models/stored_run.h"

namespace stave::studio {

namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

/// The metric keys of one run (a query: off the GUI thread, counted).
std::vector<std::string> metricKeysOf(const store::Store& db, int64_t runId) {
  countRead(OffGuiRead::HistoryRunQuery);
  return db.metricKeys(runId);
}

/// One metric of one run against the chosen axis (queries: off the GUI thread, counted).
QVector<CurvePoint> curveOf(const store::Store& db, const store::RunRecord& r, const QString& key,
                            CurveAxis axis) {
  countRead(OffGuiRead::HistoryRunQuery);
  QVector<CurvePoint> out;
  const auto points = db.curve(r.id, key.toStdString());
  const bool stepLevel = key.startsWith(QLatin1String("step/"));
  const double globalBatch =
      static_cast<double>(std::max<int64_t>(1, r.batch)) * std::max(1, r.worldSize);
  // Iterations per epoch, from the step curve when the metric is epoch-level.
  double itersPerEpoch = 0;
  if (axis == CurveAxis::ImagesSeen || (axis == CurveAxis::Epoch && stepLevel))
    itersPerEpoch = db.itersPerEpoch(r.id);
  out.reserve(static_cast<int>(points.size()));
  for (const auto& p : points) {
    CurvePoint c;
    c.y = p.value;
    switch (axis) {
      case CurveAxis::Epoch:
        c.x = stepLevel && itersPerEpoch > 0 ? p.step / itersPerEpoch : p.epoch + 1.0;
        break;
      case CurveAxis::WallTime:
        c.x = r.started > 0 ? p.time - r.started : p.time;
        break;
      case CurveAxis::ImagesSeen:
        c.x = (stepLevel ? p.step + 1.0 : (p.epoch + 1.0) * itersPerEpoch) * globalBatch;
        break;
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace

bool HistoryModel::readingCurves() const {
  return m_query->busy();
}

void HistoryModel::readCurves(const QList<int>& rows, const QStringList& preferred,
                              CurveAxis axis) {
  std::vector<store::RunRecord> runs;
  for (int row : rows)
    if (row >= 0 && row < rowCount()) runs.push_back(run(row));
  if (!m_store) runs.clear();
  const std::string dbPath = m_store ? m_store->path() : std::string();
  const quint64 generation = m_generation;
  // SQLite queries of the selected runs (a day-long run's step curve is large): never on the GUI
  // thread. The job's result is dropped by BackgroundJob when a newer one was asked for.
  m_query->run<HistoryCurves>(
      [runs = std::move(runs), preferred, axis, dbPath, slot = m_queryDb] {
        HistoryCurves out;
        out.axis = axis;
        for (const auto& r : runs) out.ids << r.id;
        if (runs.empty()) {
          out.key = preferred.value(0);
          return out;
        }
        std::unique_ptr<store::Store> db;
        {
          std::lock_guard<std::mutex> lock(slot->mutex);
          db = std::move(slot->db);
        }
        if (!db) {
          auto s = store::Store::open(dbPath);
          if (!s) {
            out.error = errorsText(s.errors());
            return out;
          }
          db = std::move(s.value());
          db->setBusyTimeout(kBackgroundBusyMs);  // a refresh may be writing
          db->setMemory(0, kStudioStoreCache);
        }
        QSet<QString> keys;
        for (const auto& r : runs)
          for (const auto& k : metricKeysOf(*db, r.id)) keys.insert(q(k));
        out.keys = QStringList(keys.begin(), keys.end());
        out.keys.sort();
        for (const QString& want : preferred)
          if (!want.isEmpty() && out.keys.contains(want)) {
            out.key = want;
            break;
          }
        if (out.key.isEmpty()) out.key = out.keys.value(0);
        for (const auto& r : runs)
          out.points << (out.key.isEmpty() ? QVector<CurvePoint>{}
                                           : curveOf(*db, r, out.key, axis));
        std::lock_guard<std::mutex> lock(slot->mutex);
        if (!slot->db) slot->db = std::move(db);
        return out;
      },
      [this, generation](HistoryCurves curves) {
        if (generation == m_generation) emit curvesRead(curves);
      },
      [this, generation](const QString& error) {
        if (generation != m_generation) return;
        HistoryCurves failed;
        failed.error = error;
        emit curvesRead(failed);
      });
}

QString HistoryModel::removeFilesAndRows(const QString& projectDir, const store::RunRecord& r,
                                         store::Store& db) {
  // Only a folder that really is one of this project's runs is removed.
  const QString runs = QDir(projectDir).filePath(QStringLiteral("runs"));
  const QFileInfo dir(q(r.dir));
  if (dir.exists()) {
    if (QDir(dir.absoluteFilePath()).canonicalPath() !=
        QDir(QDir(runs).filePath(dir.fileName())).canonicalPath())
      return tr("%1 is not inside %2; not removed").arg(q(r.dir), runs);
    if (!QDir(dir.absoluteFilePath()).removeRecursively())
      return tr("cannot remove %1 completely").arg(q(r.dir));
  }
  auto st = db.removeRun(r.id);
  if (!st) return errorsText(st.errors());
  return {};
}

bool HistoryModel::removeRun(int row, QString* error) {
  if (!m_store || row < 0 || row >= rowCount()) return false;
  const auto r = run(row);
  if (r.status == "running" && !folderMissing(row)) {
    if (error) *error = tr("%1 is still running; stop it first").arg(q(r.name));
    return false;
  }
  if (const QString why = removeFilesAndRows(m_projectDir, r, *m_store); !why.isEmpty()) {
    if (error) *error = why;
    return false;
  }
  beginRemoveRows({}, row, row);
  m_runs.erase(m_runs.begin() + row);
  m_marks.erase(static_cast<size_t>(row));
  endRemoveRows();
  return true;
}

bool HistoryModel::removeRunInBackground(int row, QString* error) {
  if (!m_store || row < 0 || row >= rowCount()) return false;
  const auto& r = run(row);
  if (r.status == "running" && !folderMissing(row)) {
    if (error) *error = tr("%1 is still running; stop it first").arg(q(r.name));
    return false;
  }
  for (const auto& asked : m_writes)
    if (asked.remove && asked.run.id == r.id) return true;  // asked twice: removed once
  PendingWrite w;
  w.run = r;
  w.remove = true;
  m_writes.push_back(std::move(w));
  startWrite();
  return true;
}

void HistoryModel::annotateInBackground(int row, const QString& title, const QStringList& tags,
                                        const QString& notes) {
  if (!m_store || row < 0 || row >= rowCount()) return;
  PendingWrite w;
  w.run = run(row);
  w.title = title.trimmed().toStdString();
  for (const auto& t : tags)
    if (!t.trimmed().isEmpty()) w.tags.push_back(t.trimmed().toStdString());
  w.notes = notes.toStdString();
  m_writes.push_back(std::move(w));
  startWrite();
}

bool HistoryModel::writing() const {
  return m_write->busy() || !m_writes.empty();
}

void HistoryModel::startWrite() {
  if (m_write->busy() || m_writes.empty() || !m_store) return;
  auto w = std::make_shared<const PendingWrite>(std::move(m_writes.front()));
  m_writes.pop_front();
  const std::string dbPath = m_store->path();
  const QString projectDir = m_projectDir;
  const quint64 generation = m_generation;
  const auto ended = [this, generation, w](const QString& error) {
    if (generation == m_generation) applyWrite(*w, error);
    startWrite();
  };
  // A day-long run's folder holds gigabytes, its rows millions; an annotation is an atomic
  // write with fsync: file and database work, never on the GUI thread.
  m_write->run<QString>(
      [dbPath, projectDir, w] {
        auto s = store::Store::open(dbPath);
        if (!s) return errorsText(s.errors());
        store::Store& db = *s.value();
        db.setBusyTimeout(kBackgroundBusyMs);  // a refresh may be writing
        if (w->remove) return removeFilesAndRows(projectDir, w->run, db);
        if (auto st = db.setTitle(w->run.id, w->title); !st) return errorsText(st.errors());
        if (auto st = db.setTags(w->run.id, w->tags); !st) return errorsText(st.errors());
        if (auto st = db.setNotes(w->run.id, w->notes); !st) return errorsText(st.errors());
        return QString();
      },
      ended, ended);
}

void HistoryModel::applyWrite(const PendingWrite& w, const QString& error) {
  const int row = rowOfId(w.run.id);
  if (error.isEmpty() && row >= 0) {
    if (w.remove) {
      beginRemoveRows({}, row, row);
      m_runs.erase(m_runs.begin() + row);
      m_marks.erase(static_cast<size_t>(row));
      endRemoveRows();
    } else {
      auto& r = m_runs[static_cast<size_t>(row)];
      r.title = w.title;
      r.tags = w.tags;
      r.notes = w.notes;
      emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    }
  }
  if (w.remove)
    emit runRemoved(w.run.id, q(w.run.name), error);
  else
    emit annotated(w.run.id, q(w.run.name), error);
}

}  // namespace stave::studio
