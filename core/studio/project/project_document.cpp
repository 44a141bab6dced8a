#include "core/studio/project/project_document.h"
#include "core/studio/engine_text.h"

#include <QDir>
#include <QFileInfo>

#include "core/data/dataset.h"

namespace stave::studio {
namespace {
QString qs(const std::string& s) {
  return QString::fromStdString(s);
}
}  // namespace

ProjectDocument::ProjectDocument(QObject* parent) : QObject(parent) {}

bool ProjectDocument::open(const QString& path, QString* error) {
  auto loaded = config::loadProject(path.toStdString());
  if (!loaded) {
    if (error) *error = errorsText(loaded.errors());
    return false;
  }
  m_project = std::move(loaded).value();
  m_open = true;
  setDirty(false);
  emit opened();
  emit configsChanged();
  return true;
}

bool ProjectDocument::save(QString* error) {
  if (!m_open) {
    if (error) *error = tr("No project is open.");
    return false;
  }
  auto st = config::saveProject(m_project);
  if (!st) {
    if (error) *error = errorsText(st.errors());
    return false;
  }
  setDirty(false);
  return true;
}

bool ProjectDocument::saveAs(const QString& path, QString* error) {
  if (!m_open) {
    if (error) *error = tr("No project is open.");
    return false;
  }
  QString target = QFileInfo(path).absoluteFilePath();
  if (!target.endsWith(QLatin1String(config::kProjectExtension)))
    target += QLatin1String(config::kProjectExtension);
  config::Project copy = m_project;
  copy.path = target.toStdString();
  // The dataset is stored relative to the project folder: re-anchor it to the new folder.
  copy.setDataset(m_project.datasetPath());
  auto st = config::saveProject(copy);
  if (!st) {
    if (error) *error = errorsText(st.errors());
    return false;
  }
  m_project = std::move(copy);
  setDirty(false);
  emit opened();
  emit configsChanged();
  return true;
}

void ProjectDocument::close() {
  if (!m_open) return;
  m_project = config::Project{};
  m_open = false;
  setDirty(false);
  emit closed();
}

QString ProjectDocument::path() const {
  return qs(m_project.path);
}
QString ProjectDocument::name() const {
  return qs(m_project.name);
}
QString ProjectDocument::datasetStored() const {
  return qs(m_project.dataset);
}
QString ProjectDocument::datasetPath() const {
  return m_open ? qs(m_project.datasetPath()) : QString();
}
QString ProjectDocument::activeConfig() const {
  return qs(m_project.activeConfig);
}

QStringList ProjectDocument::configNames() const {
  QStringList names;
  for (const auto& [name, cfg] : m_project.configs) names << qs(name);
  return names;
}

QStringList ProjectDocument::problems() const {
  QStringList out;
  if (!m_open) return out;
  for (const auto& e : config::projectProblems(m_project)) out << qs(e.toString());
  return out;
}

const config::RunConfig* ProjectDocument::config(const QString& name) const {
  return m_project.config(name.toStdString());
}

void ProjectDocument::setConfig(const QString& name, const config::RunConfig& cfg) {
  const config::RunConfig* old = m_project.config(name.toStdString());
  if (old && *old == cfg) return;
  m_project.setConfig(name.toStdString(), cfg);
  setDirty(true);
  emit configsChanged();
}

bool ProjectDocument::setActiveConfig(const QString& name) {
  if (!m_project.config(name.toStdString())) return false;
  if (m_project.activeConfig == name.toStdString()) return true;
  m_project.activeConfig = name.toStdString();
  setDirty(true);
  emit configsChanged();
  return true;
}

QString ProjectDocument::configNameProblem(const QString& name) const {
  if (!m_open) return tr("No project is open.");
  if (name.trimmed().isEmpty()) return tr("A config needs a name.");
  if (name != name.trimmed()) return tr("A config name cannot start or end with a space.");
  if (name.size() > 64) return tr("A config name has at most 64 characters.");
  for (const QChar c : name)
    if (c.isSpace() && c != QLatin1Char(' ')) return tr("A config name is one line of text.");
  if (m_project.config(name.toStdString()))
    return tr("There is already a config called '%1'.").arg(name);
  return {};
}

bool ProjectDocument::addConfig(const QString& name, const QString& from, QString* error) {
  if (const QString why = configNameProblem(name); !why.isEmpty()) {
    if (error) *error = why;
    return false;
  }
  const config::RunConfig* source = from.isEmpty() ? nullptr : m_project.config(from.toStdString());
  if (!from.isEmpty() && !source) {
    if (error) *error = tr("There is no config called '%1'.").arg(from);
    return false;
  }
  m_project.setConfig(name.toStdString(), source ? *source : config::RunConfig::defaults());
  m_project.activeConfig = name.toStdString();
  setDirty(true);
  emit configsChanged();
  return true;
}

bool ProjectDocument::renameConfig(const QString& from, const QString& to, QString* error) {
  if (from == to) return true;
  if (!m_project.config(from.toStdString())) {
    if (error) *error = tr("There is no config called '%1'.").arg(from);
    return false;
  }
  if (const QString why = configNameProblem(to); !why.isEmpty()) {
    if (error) *error = why;
    return false;
  }
  for (auto& [n, c] : m_project.configs)
    if (n == from.toStdString()) n = to.toStdString();
  if (m_project.activeConfig == from.toStdString()) m_project.activeConfig = to.toStdString();
  setDirty(true);
  emit configsChanged();
  return true;
}

bool ProjectDocument::removeConfig(const QString& name, QString* error) {
  if (!m_project.config(name.toStdString())) {
    if (error) *error = tr("There is no config called '%1'.").arg(name);
    return false;
  }
  if (m_project.configs.size() <= 1) {
    if (error) *error = tr("A project keeps at least one config.");
    return false;
  }
  m_project.removeConfig(name.toStdString());
  if (m_project.activeConfig == name.toStdString())
    m_project.activeConfig = m_project.configs.front().first;
  setDirty(true);
  emit configsChanged();
  return true;
}

bool ProjectDocument::setDataset(const QString& dataYaml, QString* error) {
  if (!m_open) {
    if (error) *error = tr("No project is open.");
    return false;
  }
  const QString abs = QFileInfo(dataYaml).absoluteFilePath();
  auto spec = data::loadDataYaml(abs.toStdString());
  if (!spec) {
    if (error) *error = errorsText(spec.errors());
    return false;
  }
  if (abs == qs(m_project.datasetPath())) return true;
  m_project.setDataset(abs.toStdString());
  setDirty(true);
  emit datasetChanged();
  return true;
}

nlohmann::json ProjectDocument::uiState() const {
  return m_project.uiState;
}

void ProjectDocument::setUiState(const nlohmann::json& state) {
  if (m_project.uiState == state) return;
  m_project.uiState = state;
  setDirty(true);
}

void ProjectDocument::setDirty(bool dirty) {
  if (m_dirty == dirty) return;
  m_dirty = dirty;
  emit dirtyChanged(dirty);
}

}  // namespace stave::studio
