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
/// `model` gets the schema's networks (yolov8n..x, yolo11n..x) and "Checkpoint file (.pt)…";
/// a path row (pretrained) a line edit with a "…" button. The file dialog itself is the
/// form's (fileWanted): the editor closes first, so the dialog never outlives it.
class ConfigValueDelegate : public QStyledItemDelegate {
  Q_OBJECT
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  /// The model editor's item that asks for a checkpoint file: its Qt::UserRole data.
  static constexpr const char* kChooseFile = "stave:choose-file";
  void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override;
  QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem& option,
                        const QModelIndex& index) const override;
  void setEditorData(QWidget* editor, const QModelIndex& index) const override;
  void setModelData(QWidget* editor, QAbstractItemModel* model,
                    const QModelIndex& index) const override;

 signals:
  /// The user asked for a file for the row at `index` (Checkpoint file…, or a path's "…").
  void fileWanted(const QPersistentModelIndex& index);
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
  /// The table (tests open its editors).
  QTableView* view() const { return m_view; }
  /// The file dialog's filter for a path-like key ("Checkpoints (*.pt)" for model and
  /// pretrained, "Dataset (*.yaml *.yml)" for data).
  static QString fileFilter(const QString& key);

 private:
  /// The constructor's parts: the config selector and the filters, the table, the derived
  /// values with the status line and Revert/Apply, then the connections.
  void buildFilterBar(QVBoxLayout* layout);
  void buildTable(QVBoxLayout* layout);
  void buildStatusRow(QVBoxLayout* layout);
  void connectSignals();
  void loadConfig(const QString& name);
  /// Asks for a file for the row at `index` (a QFileDialog) and sets it as the row's edit.
  void chooseFile(const QPersistentModelIndex& index);
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
