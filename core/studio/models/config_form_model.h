#pragma once
// ConfigFormModel: the training form as an item model, one row per schema parameter. It keeps the
// edited values apart from the committed config (apply, cancel, dirty), and reports each row's
// problem in words so the form can show it next to the field. Read-only, it is how other pages
// show a config's settings (the Hardware page: the distributed group through ConfigFilterModel).

#include <QAbstractTableModel>
#include <QHash>
#include <QSortFilterProxyModel>
#include <QString>
#include <vector>

#include "core/config/run_config.h"

namespace stave::studio {

/// Rows: runConfigSchema() in order. Columns: parameter, value, default, help.
class ConfigFormModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { NameColumn = 0, ValueColumn, DefaultColumn, HelpColumn, ColumnCount };
  enum Roles {
    KeyRole = Qt::UserRole + 1,  ///< QString: the parameter's key
    GroupRole,                   ///< QString: its group ("optimisation", ...)
    TypeRole,                    ///< QString: "bool", "int", "float", "enum", ...
    ChoicesRole,                 ///< QStringList: an enum's choices
    MinRole,                     ///< double: lower bound (-inf when none)
    MaxRole,                     ///< double: upper bound (+inf when none)
    HelpRole,                    ///< QString: the one-line help
    EditedTextRole,              ///< QString: the edited value as text
    CommittedTextRole,           ///< QString: the committed value as text
    ModifiedRole,                ///< bool: the edit differs from the committed value
    ChangedFromDefaultRole,      ///< bool: the edit differs from the schema default
    ErrorRole,                   ///< QString: what is wrong with the edit, "" when fine
  };
  Q_ENUM(Roles)

  explicit ConfigFormModel(QObject* parent = nullptr);

  /// Replaces the committed config and drops all edits. `name` (the config's name in the
  /// project) heads the Value column as "Value in <name>"; "" leaves it "Value".
  void setCommitted(const config::RunConfig& cfg, const QString& name = {});
  /// Shows no config: the Value column is empty and takes no edit, no row differs from the
  /// default, and committed() is the defaults until setCommitted shows one again.
  void clearCommitted();
  /// False after clearCommitted() until the next setCommitted().
  bool hasCommitted() const { return m_hasCommitted; }
  /// The committed config.
  const config::RunConfig& committed() const { return m_committed; }
  /// A read-only form shows the committed values and takes no edit: no cell is editable or
  /// checkable, and every value is text as in the Default column (booleans "true"/"false", an
  /// empty value "(empty)").
  void setReadOnly(bool readOnly);
  bool isReadOnly() const { return m_readOnly; }
  /// The edited config, when every edit parses (range problems are left to validate()).
  Result<config::RunConfig> edited() const;
  /// True when some edit differs from the committed value.
  bool isDirty() const;
  /// Number of rows whose edit has a problem.
  int errorCount() const;

  /// Sets the edit of `key` from text; false (and ErrorRole set) when it does not parse.
  bool setEditedText(const QString& key, const QString& text);
  /// Row of `key`, or -1.
  int rowOf(const QString& key) const;
  /// The project's dataset, shown read-only in the `data` row: every config of a project
  /// trains on the project's dataset (changed on the Project page), so `data` is never edited
  /// here and never part of a config.
  void setProjectDataset(const QString& path);
  /// Values a run will use in place of the edited ones (optimizer=auto's lr0 and momentum):
  /// the Value column shows "0.01 → 0.000556 used", the tooltip says why. Empty = none.
  void setUsedValues(const QHash<QString, QString>& used, const QString& why);
  /// True for rows the form shows but does not edit (`data`).
  bool isReadOnlyRow(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;
  QHash<int, QByteArray> roleNames() const override;

 public slots:
  /// Commits the edits when they are all valid; returns false and leaves them when not.
  bool apply();
  /// Drops every edit.
  void cancel();

 signals:
  /// The committed config changed through apply().
  void committedChanged(const stave::config::RunConfig& cfg);
  /// The dirty flag or the error count may have changed.
  void editStateChanged();

 private:
  struct Row {
    QString text;   // edited text
    QString error;  // parse or validation problem
  };
  void reset(const config::RunConfig& cfg, const QString& name, bool shown);
  void revalidate();
  QString committedText(int row) const;
  bool isEditable(int row) const;
  QString m_name;  // the committed config's name, for the Value column's header
  bool m_hasCommitted = true;
  bool m_readOnly = false;
  QString m_dataset;
  int m_dataRow = -1;
  QHash<QString, QString> m_used;
  QString m_usedWhy;
  config::RunConfig m_committed = config::RunConfig::defaults();
  std::vector<Row> m_rows;
};

/// Filters the form by group and by text in the key or help.
class ConfigFilterModel : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit ConfigFilterModel(QObject* parent = nullptr);
  /// Shows only `group` ("" = all groups).
  void setGroup(const QString& group);
  /// Shows rows whose key or help contains `text` (case-insensitive).
  void setText(const QString& text);
  /// Shows only rows that differ from the default.
  void setChangedOnly(bool on);
  /// The row of `key` in this view, -1 when it is filtered out or not a parameter.
  int rowOf(const QString& key) const;

 protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

 private:
  QString m_group;
  QString m_text;
  bool m_changedOnly = false;
};

}  // namespace stave::studio
