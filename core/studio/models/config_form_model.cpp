#include "core/studio/models/config_form_model.h"

#include <QCoreApplication>
#include <cmath>
#include <limits>

namespace stave::studio {
namespace {
using config::ParamSpec;
using config::runConfigSchema;

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

// The schema's help in the studio's language (core/studio/schema_strings.cpp lists the texts).
QString helpOf(const ParamSpec& spec) {
  return QCoreApplication::translate(config::kSchemaTrContext, spec.help.c_str());
}

const ParamSpec& specAt(int row) {
  return runConfigSchema().at(static_cast<size_t>(row));
}
}  // namespace

ConfigFormModel::ConfigFormModel(QObject* parent) : QAbstractTableModel(parent) {
  m_rows.resize(runConfigSchema().size());
  m_dataRow = rowOf(QStringLiteral("data"));
  setCommitted(config::RunConfig::defaults());
}

void ConfigFormModel::setCommitted(const config::RunConfig& cfg, const QString& name) {
  reset(cfg, name, true);
}

void ConfigFormModel::clearCommitted() {
  reset(config::RunConfig::defaults(), QString(), false);
}

void ConfigFormModel::reset(const config::RunConfig& cfg, const QString& name, bool shown) {
  beginResetModel();
  m_committed = cfg;
  m_name = name;
  m_hasCommitted = shown;
  for (size_t i = 0; i < m_rows.size(); ++i) {
    m_rows[i].text = committedText(static_cast<int>(i));
    m_rows[i].error.clear();
  }
  endResetModel();
  emit editStateChanged();
}

void ConfigFormModel::setReadOnly(bool readOnly) {
  if (m_readOnly == readOnly) return;
  m_readOnly = readOnly;
  emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));  // flags and texts
}

void ConfigFormModel::setProjectDataset(const QString& path) {
  if (m_dataset == path) return;
  m_dataset = path;
  if (m_dataRow < 0) return;
  m_rows[static_cast<size_t>(m_dataRow)].text = committedText(m_dataRow);
  m_rows[static_cast<size_t>(m_dataRow)].error.clear();
  emit dataChanged(index(m_dataRow, 0), index(m_dataRow, ColumnCount - 1));
}

void ConfigFormModel::setUsedValues(const QHash<QString, QString>& used, const QString& why) {
  if (used == m_used && why == m_usedWhy) return;
  m_used = used;
  m_usedWhy = why;
  emit dataChanged(index(0, ValueColumn), index(rowCount() - 1, ValueColumn));
}

bool ConfigFormModel::isReadOnlyRow(int row) const {
  return row == m_dataRow;
}

bool ConfigFormModel::isEditable(int row) const {
  return m_hasCommitted && !m_readOnly && !isReadOnlyRow(row);
}

QString ConfigFormModel::committedText(int row) const {
  if (row == m_dataRow) return m_dataset;
  return qs(config::formatValue(m_committed.get(specAt(row).name)));
}

Result<config::RunConfig> ConfigFormModel::edited() const {
  config::RunConfig cfg = m_committed;
  std::vector<Error> errors;
  for (size_t i = 0; i < m_rows.size(); ++i) {
    if (isReadOnlyRow(static_cast<int>(i))) continue;  // kept as committed
    const ParamSpec& spec = specAt(static_cast<int>(i));
    std::string why;
    auto v = config::parseValueText(spec, m_rows[i].text.toStdString(), &why);
    if (!v) {
      errors.push_back({"form", 0, spec.name, why});
      continue;
    }
    auto st = cfg.set(spec.name, *v);
    if (!st) errors.insert(errors.end(), st.errors().begin(), st.errors().end());
  }
  if (!errors.empty()) return errors;
  return cfg;
}

bool ConfigFormModel::isDirty() const {
  for (size_t i = 0; i < m_rows.size(); ++i)
    if (m_rows[i].text != committedText(static_cast<int>(i))) return true;
  return false;
}

int ConfigFormModel::errorCount() const {
  int n = 0;
  for (const auto& r : m_rows) n += r.error.isEmpty() ? 0 : 1;
  return n;
}

int ConfigFormModel::rowOf(const QString& key) const {
  const ParamSpec* spec = config::findParam(key.toStdString());
  return spec ? static_cast<int>(config::paramIndex(spec->name)) : -1;
}

bool ConfigFormModel::setEditedText(const QString& key, const QString& text) {
  const int row = rowOf(key);
  if (row < 0) return false;
  return setData(index(row, ValueColumn), text, Qt::EditRole);
}

void ConfigFormModel::revalidate() {
  // Parse errors first; then the config-wide rules (ranges, choices) for rows that parse.
  for (size_t i = 0; i < m_rows.size(); ++i) {
    if (isReadOnlyRow(static_cast<int>(i))) continue;
    const ParamSpec& spec = specAt(static_cast<int>(i));
    std::string why;
    auto v = config::parseValueText(spec, m_rows[i].text.toStdString(), &why);
    m_rows[i].error = v ? qs(config::checkValue(spec, *v)) : qs(why);
  }
  auto cfg = edited();
  if (cfg) {
    for (const auto& e : config::validate(cfg.value())) {
      const int row = rowOf(qs(e.key));
      if (row >= 0 && m_rows[static_cast<size_t>(row)].error.isEmpty())
        m_rows[static_cast<size_t>(row)].error = qs(e.message);
    }
  }
  emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
  emit editStateChanged();
}

bool ConfigFormModel::apply() {
  revalidate();
  if (errorCount() > 0) return false;
  auto cfg = edited();
  if (!cfg) return false;
  const bool changed = cfg.value() != m_committed;
  reset(cfg.value(), m_name, m_hasCommitted);
  if (changed) emit committedChanged(m_committed);
  return true;
}

void ConfigFormModel::cancel() {
  reset(m_committed, m_name, m_hasCommitted);
}

int ConfigFormModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ConfigFormModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant ConfigFormModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const int row = index.row();
  const ParamSpec& spec = specAt(row);
  const Row& r = m_rows[static_cast<size_t>(row)];
  // Read-only, a value is text like its default, and an empty one says so rather than looking
  // missing; an editable cell shows what the editor will hold.
  auto shown = [&](const QString& text) {
    return m_readOnly && role == Qt::DisplayRole && text.isEmpty() ? tr("(empty)") : text;
  };
  switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
      if (index.column() == NameColumn) return qs(spec.name);
      if (index.column() == ValueColumn) {
        if (!m_hasCommitted) return QString();
        if (spec.type == config::ParamType::Bool && role == Qt::DisplayRole && !m_readOnly)
          return QVariant();  // the check box
        if (role == Qt::DisplayRole) {
          const auto used = m_used.find(qs(spec.name));
          if (used != m_used.end() && used.value() != r.text)
            return tr("%1 → %2 used").arg(r.text, used.value());
        }
        return shown(r.text);
      }
      if (index.column() == DefaultColumn) return shown(qs(config::formatValue(spec.defaultValue)));
      if (index.column() == HelpColumn) return helpOf(spec);
      return {};
    case Qt::CheckStateRole:
      if (index.column() == ValueColumn && spec.type == config::ParamType::Bool && m_hasCommitted &&
          !m_readOnly)
        return r.text == QLatin1String("true") ? Qt::Checked : Qt::Unchecked;
      return {};
    case Qt::ToolTipRole:
      if (isReadOnlyRow(row))
        return tr("Every config trains on the project's dataset. Change it on the Project page "
                  "(Change Dataset…).");
      if (index.column() == ValueColumn && r.error.isEmpty() && m_used.contains(qs(spec.name)) &&
          m_used.value(qs(spec.name)) != r.text)
        return m_usedWhy;
      if (!r.error.isEmpty()) return r.error;
      // A path is elided in its cell: the tooltip has it whole.
      if (index.column() == ValueColumn && !r.text.isEmpty() &&
          (spec.type == config::ParamType::Path || config::isCheckpointModel(r.text.toStdString())))
        return r.text + QStringLiteral("\n") + helpOf(spec);
      return helpOf(spec) + QStringLiteral(" (") + qs(config::describeRange(spec)) +
             QLatin1Char(')');
    case KeyRole:
      return qs(spec.name);
    case GroupRole:
      return QString::fromLatin1(config::paramGroupName(spec.group));
    case TypeRole:
      return QString::fromLatin1(config::paramTypeName(spec.type));
    case ChoicesRole: {
      QStringList c;
      for (const auto& s : spec.choices) c << qs(s);
      return c;
    }
    case MinRole:
      return spec.min;
    case MaxRole:
      return spec.max;
    case HelpRole:
      return helpOf(spec);
    case EditedTextRole:
      return r.text;
    case CommittedTextRole:
      return committedText(row);
    case ModifiedRole:
      return r.text != committedText(row);
    case ChangedFromDefaultRole:
      if (isReadOnlyRow(row) || !m_hasCommitted) return false;
      return r.text != qs(config::formatValue(spec.defaultValue));
    case ErrorRole:
      return r.error;
    default:
      return {};
  }
}

bool ConfigFormModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (!index.isValid() || index.column() != ValueColumn) return false;
  if (!isEditable(index.row())) return false;
  const ParamSpec& spec = specAt(index.row());
  QString text;
  if (role == Qt::CheckStateRole) {
    if (spec.type != config::ParamType::Bool) return false;
    text = value.toInt() == Qt::Checked ? QStringLiteral("true") : QStringLiteral("false");
  } else if (role == Qt::EditRole) {
    text = value.toString().trimmed();
  } else {
    return false;
  }
  Row& r = m_rows[static_cast<size_t>(index.row())];
  if (r.text == text && r.error.isEmpty()) return true;
  r.text = text;  // kept even when invalid, so the user can see and fix it
  revalidate();
  return true;
}

Qt::ItemFlags ConfigFormModel::flags(const QModelIndex& index) const {
  Qt::ItemFlags f = QAbstractTableModel::flags(index);
  if (index.isValid() && index.column() == ValueColumn && isEditable(index.row())) {
    if (specAt(index.row()).type == config::ParamType::Bool)
      f |= Qt::ItemIsUserCheckable;
    else
      f |= Qt::ItemIsEditable;
  }
  return f;
}

QVariant ConfigFormModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case NameColumn:
      return tr("Parameter");
    case ValueColumn:
      return m_name.isEmpty() ? tr("Value") : tr("Value in %1").arg(m_name);
    case DefaultColumn:
      return tr("Default");
    case HelpColumn:
      return tr("Description");
    default:
      return {};
  }
}

QHash<int, QByteArray> ConfigFormModel::roleNames() const {
  auto names = QAbstractTableModel::roleNames();
  names[KeyRole] = "key";
  names[GroupRole] = "group";
  names[TypeRole] = "type";
  names[ChoicesRole] = "choices";
  names[HelpRole] = "help";
  names[ErrorRole] = "error";
  names[ModifiedRole] = "modified";
  return names;
}

ConfigFilterModel::ConfigFilterModel(QObject* parent) : QSortFilterProxyModel(parent) {}

void ConfigFilterModel::setGroup(const QString& group) {
  m_group = group;
  invalidateFilter();
}

void ConfigFilterModel::setText(const QString& text) {
  m_text = text.trimmed();
  invalidateFilter();
}

void ConfigFilterModel::setChangedOnly(bool on) {
  m_changedOnly = on;
  invalidateFilter();
}

int ConfigFilterModel::rowOf(const QString& key) const {
  const auto* form = qobject_cast<const ConfigFormModel*>(sourceModel());
  const int row = form ? form->rowOf(key) : -1;
  return row < 0 ? -1 : mapFromSource(form->index(row, 0)).row();
}

bool ConfigFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
  const QModelIndex idx = sourceModel()->index(sourceRow, 0, sourceParent);
  if (!m_group.isEmpty() && idx.data(ConfigFormModel::GroupRole).toString() != m_group)
    return false;
  if (m_changedOnly && !idx.data(ConfigFormModel::ChangedFromDefaultRole).toBool()) return false;
  if (m_text.isEmpty()) return true;
  return idx.data(ConfigFormModel::KeyRole).toString().contains(m_text, Qt::CaseInsensitive) ||
         idx.data(ConfigFormModel::HelpRole).toString().contains(m_text, Qt::CaseInsensitive);
}

}  // namespace stave::studio
