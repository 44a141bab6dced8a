#pragma once
// ProjectDocument: the open project as the studio sees it — the file, its configs, whether it has
// unsaved changes — with signals for the pages that show it.

#include <QObject>
#include <QString>
#include <QStringList>

#include "core/config/project.h"

namespace stave::studio {

/// Owns the open config::Project and tracks unsaved changes. All file work goes through
/// core/config, so the GUI and stave-train read and write projects the same way.
class ProjectDocument : public QObject {
  Q_OBJECT
 public:
  explicit ProjectDocument(QObject* parent = nullptr);

  /// Opens a .stave file. On failure the current project stays open and `error` says why.
  bool open(const QString& path, QString* error = nullptr);
  /// Saves atomically to the project's path. On failure nothing on disk changes.
  bool save(QString* error = nullptr);
  /// Saves atomically under `path` (".stave" added when missing) and continues there; the
  /// dataset path is re-anchored to the new folder. Runs and stave.db stay beside the old file.
  bool saveAs(const QString& path, QString* error = nullptr);
  /// Closes the project (unsaved changes are dropped: ask first); closed() follows.
  void close();
  /// True when a project is open.
  bool isOpen() const { return m_open; }
  /// True when there are changes that save() would write.
  bool isDirty() const { return m_dirty; }

  QString path() const;
  QString name() const;
  /// The dataset path as stored (relative to the project folder).
  QString datasetStored() const;
  /// The dataset's absolute path.
  QString datasetPath() const;
  /// The names of the project's configs, in order.
  QStringList configNames() const;
  QString activeConfig() const;
  /// Problems that do not stop the project from opening (missing dataset, ...), one per line.
  QStringList problems() const;
  // The project's runs are file work, listed off the GUI thread: listRunSummaries
  // (core/studio/run/run_folders.h) on the folder of path().

  /// The config `name`; nullptr when there is none.
  const config::RunConfig* config(const QString& name) const;
  /// Replaces (or adds) a config and marks the document dirty.
  void setConfig(const QString& name, const config::RunConfig& cfg);
  /// Makes `name` the active config; false if there is no such config.
  bool setActiveConfig(const QString& name);
  /// Adds a config `name`, a copy of `from` (the defaults when `from` is empty), and makes it
  /// active. False with `error` when the name is taken or not a valid name.
  bool addConfig(const QString& name, const QString& from, QString* error = nullptr);
  /// Renames a config (the active one stays active). False with `error` as for addConfig.
  bool renameConfig(const QString& from, const QString& to, QString* error = nullptr);
  /// Removes a config; the last one cannot be removed. When the active one goes, the first
  /// remaining becomes active.
  bool removeConfig(const QString& name, QString* error = nullptr);
  /// Why `name` cannot name a new config ("" when it can).
  QString configNameProblem(const QString& name) const;
  /// Makes `dataYaml` the project's dataset after reading it (every config trains on it).
  /// False with `error` naming the file, line and key when it is not a usable data.yaml.
  bool setDataset(const QString& dataYaml, QString* error = nullptr);

  /// Opaque UI state saved with the project (page, splitter sizes, ...).
  nlohmann::json uiState() const;
  void setUiState(const nlohmann::json& state);

  const config::Project& project() const { return m_project; }

 signals:
  /// A project was opened (or reopened).
  void opened();
  /// The project was closed.
  void closed();
  /// A config changed, was added or became active.
  void configsChanged();
  /// The unsaved-changes flag changed.
  void dirtyChanged(bool dirty);
  /// The project's dataset was changed (setDataset).
  void datasetChanged();

 private:
  void setDirty(bool dirty);
  config::Project m_project;
  bool m_open = false;
  bool m_dirty = false;
};

}  // namespace stave::studio
