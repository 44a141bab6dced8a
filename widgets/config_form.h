#pragma once
#include <QStyledItemDelegate>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QCheckBox;
class QPushButton;
class QTableView;
class QVBoxLayout;

namespace stave::studio {
class ConfigFormModel;
class ConfigFilterModel;
class ProjectDocument;
}  // namespace stave::studio

namespace stave::widgets {

/// Draws problems in red and changed-from-default values in bold; edits enums with a combo box.
class ConfigValueDelegate : public QStyledItemDelegate {
  Q_OBJECT
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override;
  QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem& option,
                        const QModelIndex& index) const override;
  void setEditorData(QWidget* editor, const QModelIndex& index) const override;
  void setModelData(QWidget* editor, QAbstractItemModel* model,
                    const QModelIndex& index) const override;
};

/// The Train page: the project's run configs as a form generated from the schema, with the
/// values derived from them (global batch, accumulation, scaled lr and weight decay).
class ConfigForm : public QWidget {
  Q_OBJECT
 public:
  explicit ConfigForm(studio::ProjectDocument* doc, QWidget* parent = nullptr);
  studio::ConfigFormModel* model() const { return m_model; }
  studio::ConfigFilterModel* filter() const { return m_filter; }
  /// The derived-values line as shown.
  QString derivedText() const;
  /// The dataset's train images and classes (from the Dataset page's scan): optimizer=auto is
  /// then shown as what it will choose, with the lr0 and momentum a run will use.
  void setDatasetSize(qint64 trainImages, int nc);

 private:
  /// The constructor's parts: the config selector and the filters, the table, the derived
  /// values with the status line and Revert/Apply, then the connections.
  void buildFilterBar(QVBoxLayout* layout);
  void buildTable(QVBoxLayout* layout);
  void buildStatusRow(QVBoxLayout* layout);
  void connectSignals();
  void loadConfig(const QString& name);
  void updateState();
  studio::ProjectDocument* m_doc;
  studio::ConfigFormModel* m_model;
  studio::ConfigFilterModel* m_filter;
  QComboBox* m_configs = nullptr;
  QComboBox* m_group = nullptr;
  QLineEdit* m_search = nullptr;
  QCheckBox* m_changedOnly = nullptr;
  QTableView* m_view = nullptr;
  QLabel* m_derived = nullptr;
  QLabel* m_status = nullptr;
  QPushButton* m_apply = nullptr;
  QPushButton* m_cancel = nullptr;
  qint64 m_trainImages = -1;
  int m_nc = -1;
};

}  // namespace stave::widgets
