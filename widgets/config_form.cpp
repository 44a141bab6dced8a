#include "widgets/config_form.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStyle>
#include <QTableView>
#include <QVBoxLayout>

#include "core/config/run_config.h"
#include "core/studio/models/config_form_model.h"
#include "core/studio/project/project_document.h"

namespace stave::widgets {

using studio::ConfigFormModel;

namespace {
// A path row's editor: the path as text, with a file dialog behind its trailing button (the
// form's dialog). A line edit itself, so that Return and focus-out commit as for any row.
QLineEdit* newPathEditor(QWidget* parent, QAction** browse) {
  auto* edit = new QLineEdit(parent);
  edit->setObjectName(QStringLiteral("pathEdit"));
  edit->setFrame(false);
  *browse = edit->addAction(edit->style()->standardIcon(QStyle::SP_DirOpenIcon),
                            QLineEdit::TrailingPosition);
  (*browse)->setObjectName(QStringLiteral("browseAction"));
  (*browse)->setToolTip(ConfigForm::tr("Choose a file…"));
  return edit;
}

bool isPathRow(const QModelIndex& index) {
  return index.data(ConfigFormModel::TypeRole).toString() == QLatin1String("path");
}

bool isModelRow(const QModelIndex& index) {
  return index.data(ConfigFormModel::KeyRole).toString() == QLatin1String("model");
}

// The network family of a model name: "yolov8" of "yolov8s", "yolo11" of "yolo11n".
QString familyOf(const QString& name) {
  return name.left(name.size() - 1);
}
}  // namespace

void ConfigValueDelegate::initStyleOption(QStyleOptionViewItem* option,
                                          const QModelIndex& index) const {
  QStyledItemDelegate::initStyleOption(option, index);
  if (!index.data(ConfigFormModel::ErrorRole).toString().isEmpty()) {
    option->backgroundBrush = QColor(255, 220, 220);
    option->palette.setColor(QPalette::Text, QColor(160, 0, 0));
  }
  if (index.data(ConfigFormModel::ChangedFromDefaultRole).toBool()) option->font.setBold(true);
  if (index.column() == ConfigFormModel::ValueColumn &&
      !(index.flags() & (Qt::ItemIsEditable | Qt::ItemIsUserCheckable)))
    option->palette.setColor(QPalette::Text, option->palette.color(QPalette::PlaceholderText));
  // A path is told by its file name and its start: the middle goes when it does not fit.
  if (index.column() == ConfigFormModel::ValueColumn && (isPathRow(index) || isModelRow(index)))
    option->textElideMode = Qt::ElideMiddle;
}

QWidget* ConfigValueDelegate::createEditor(QWidget* parent, const QStyleOptionViewItem& option,
                                           const QModelIndex& index) const {
  auto* self = const_cast<ConfigValueDelegate*>(this);
  const QPersistentModelIndex at(index);
  if (isPathRow(index)) {
    QAction* browse = nullptr;
    QLineEdit* editor = newPathEditor(parent, &browse);
    if (index.data(ConfigFormModel::KeyRole).toString() == QLatin1String("pretrained"))
      editor->setPlaceholderText(tr("none: random weights, or those of a model=.pt"));
    connect(browse, &QAction::triggered, self, [self, editor, at] {
      // What was typed is kept; the dialog opens once the editor has closed.
      emit self->commitData(editor);
      emit self->closeEditor(editor, QAbstractItemDelegate::NoHint);
      emit self->fileWanted(at);
    });
    return editor;
  }
  const QStringList choices = index.data(ConfigFormModel::ChoicesRole).toStringList();
  if (!choices.isEmpty()) {
    auto* combo = new QComboBox(parent);
    if (isModelRow(index)) {
      combo->setObjectName(QStringLiteral("modelEditor"));
      // The families apart; then a checkpoint, which brings its own network and weights.
      for (const QString& name : choices) {
        if (combo->count() > 0 && familyOf(name) != familyOf(combo->itemText(combo->count() - 1)))
          combo->insertSeparator(combo->count());
        combo->addItem(name, name);
      }
      combo->insertSeparator(combo->count());
      combo->addItem(tr("Checkpoint file (.pt)…"), QString::fromLatin1(kChooseFile));
      combo->setItemData(combo->count() - 1,
                         tr("A checkpoint (Stave's or Ultralytics', e.g. yolo11n.pt) gives the "
                            "network and its weights"),
                         Qt::ToolTipRole);
      connect(combo, &QComboBox::activated, self, [self, combo, at](int i) {
        const bool choose = combo->itemData(i).toString() == QLatin1String(kChooseFile);
        if (!choose) emit self->commitData(combo);
        emit self->closeEditor(combo, QAbstractItemDelegate::NoHint);
        if (choose) emit self->fileWanted(at);
      });
    } else {
      for (const QString& c : choices) combo->addItem(c, c);
      connect(combo, &QComboBox::activated, self, [self, combo] { emit self->commitData(combo); });
    }
    return combo;
  }
  return QStyledItemDelegate::createEditor(parent, option, index);
}

void ConfigValueDelegate::setEditorData(QWidget* editor, const QModelIndex& index) const {
  const QString value = index.data(Qt::EditRole).toString();
  if (auto* combo = qobject_cast<QComboBox*>(editor)) {
    int i = combo->findData(value);
    if (i < 0) {
      // A value the list does not hold (a checkpoint file, yolov8s.yaml) is kept as it is:
      // shown above "Checkpoint file (.pt)…", or last.
      const int choose = combo->findData(QString::fromLatin1(kChooseFile));
      i = choose < 0 ? combo->count() : choose;
      combo->insertItem(i, value, value);
      combo->setItemData(i, value, Qt::ToolTipRole);
    }
    combo->setCurrentIndex(i);
    return;
  }
  QStyledItemDelegate::setEditorData(editor, index);
}

void ConfigValueDelegate::setModelData(QWidget* editor, QAbstractItemModel* model,
                                       const QModelIndex& index) const {
  if (auto* combo = qobject_cast<QComboBox*>(editor)) {
    const QString value = combo->currentData().toString();
    if (value == QLatin1String(kChooseFile)) return;  // the file dialog sets it
    model->setData(index, value, Qt::EditRole);
    return;
  }
  QStyledItemDelegate::setModelData(editor, model, index);
}

ConfigForm::ConfigForm(studio::ProjectDocument* doc, QWidget* parent)
    : QWidget(parent),
      m_doc(doc),
      m_model(new ConfigFormModel(this)),
      m_filter(new studio::ConfigFilterModel(this)) {
  m_filter->setSourceModel(m_model);

  auto* layout = new QVBoxLayout(this);
  buildFilterBar(layout);
  buildTable(layout);
  buildStatusRow(layout);
  connectSignals();
  updateState();
}

void ConfigForm::buildFilterBar(QVBoxLayout* layout) {
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Config:"), this));
  m_configs = new QComboBox(this);
  m_configs->setObjectName(QStringLiteral("configSelector"));
  top->addWidget(m_configs);
  top->addSpacing(16);
  top->addWidget(new QLabel(tr("Group:"), this));
  m_group = new QComboBox(this);
  m_group->setObjectName(QStringLiteral("groupFilter"));
  m_group->addItem(tr("All"), QString());
  for (auto g : config::paramGroups()) {
    const QString name = QString::fromLatin1(config::paramGroupName(g));
    const QString shown =
        QCoreApplication::translate(config::kSchemaTrContext, config::paramGroupName(g));
    m_group->addItem(shown.left(1).toUpper() + shown.mid(1), name);
  }
  top->addWidget(m_group);
  m_search = new QLineEdit(this);
  m_search->setObjectName(QStringLiteral("searchFilter"));
  m_search->setPlaceholderText(tr("Filter parameters…"));
  m_search->setClearButtonEnabled(true);
  top->addWidget(m_search, 1);
  m_changedOnly = new QCheckBox(tr("Changed only"), this);
  top->addWidget(m_changedOnly);
  layout->addLayout(top);
}

void ConfigForm::buildTable(QVBoxLayout* layout) {
  m_view = new QTableView(this);
  m_view->setObjectName(QStringLiteral("configTable"));
  m_view->setModel(m_filter);
  auto* delegate = new ConfigValueDelegate(m_view);
  m_view->setItemDelegate(delegate);
  connect(delegate, &ConfigValueDelegate::fileWanted, this, &ConfigForm::chooseFile,
          Qt::QueuedConnection);
  m_view->verticalHeader()->hide();
  m_view->horizontalHeader()->setStretchLastSection(true);
  m_view->setAlternatingRowColors(true);
  m_view->setEditTriggers(QAbstractItemView::AllEditTriggers);
  m_view->setColumnWidth(ConfigFormModel::NameColumn, 180);
  m_view->setColumnWidth(ConfigFormModel::ValueColumn, 220);  // a checkpoint's path
  m_view->setColumnWidth(ConfigFormModel::DefaultColumn, 110);
  m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 8);
  m_view->setWordWrap(false);
  layout->addWidget(m_view, 1);
}

void ConfigForm::buildStatusRow(QVBoxLayout* layout) {
  m_derived = new QLabel(this);
  m_derived->setObjectName(QStringLiteral("derivedValues"));
  m_derived->setWordWrap(true);  // long in some languages and on narrow windows
  layout->addWidget(m_derived);
  auto* bottom = new QHBoxLayout;
  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("formStatus"));
  m_status->setWordWrap(true);
  bottom->addWidget(m_status, 1);
  m_cancel = new QPushButton(tr("Revert"), this);
  m_apply = new QPushButton(tr("Apply"), this);
  m_apply->setObjectName(QStringLiteral("applyButton"));
  bottom->addWidget(m_cancel);
  bottom->addWidget(m_apply);
  layout->addLayout(bottom);
}

void ConfigForm::connectSignals() {
  connect(m_group, &QComboBox::currentIndexChanged, this,
          [this] { m_filter->setGroup(m_group->currentData().toString()); });
  connect(m_search, &QLineEdit::textChanged, m_filter, &studio::ConfigFilterModel::setText);
  connect(m_changedOnly, &QCheckBox::toggled, m_filter, &studio::ConfigFilterModel::setChangedOnly);
  connect(m_apply, &QPushButton::clicked, m_model, &ConfigFormModel::apply);
  connect(m_cancel, &QPushButton::clicked, m_model, &ConfigFormModel::cancel);
  connect(m_model, &ConfigFormModel::editStateChanged, this, &ConfigForm::updateState);
  connect(m_model, &ConfigFormModel::committedChanged, this, [this](const config::RunConfig& cfg) {
    if (m_doc->isOpen() && !m_configs->currentText().isEmpty())
      m_doc->setConfig(m_configs->currentText(), cfg);
  });
  connect(m_configs, &QComboBox::currentTextChanged, this, [this](const QString& name) {
    loadConfig(name);
    if (!name.isEmpty()) m_doc->setActiveConfig(name);
  });
  connect(m_doc, &studio::ProjectDocument::opened, this, [this] {
    m_model->setProjectDataset(m_doc->datasetPath());
    QSignalBlocker block(m_configs);
    m_configs->clear();
    m_configs->addItems(m_doc->configNames());
    m_configs->setCurrentText(m_doc->activeConfig());
    loadConfig(m_doc->activeConfig());
  });
  connect(m_doc, &studio::ProjectDocument::datasetChanged, this,
          [this] { m_model->setProjectDataset(m_doc->datasetPath()); });
  // Configs added, renamed or removed on the Project page: the selector follows.
  connect(m_doc, &studio::ProjectDocument::configsChanged, this, [this] {
    QStringList shown;
    for (int i = 0; i < m_configs->count(); ++i) shown << m_configs->itemText(i);
    const QStringList names = m_doc->configNames();
    if (shown == names && m_configs->currentText() == m_doc->activeConfig()) return;
    QSignalBlocker block(m_configs);
    m_configs->clear();
    m_configs->addItems(names);
    m_configs->setCurrentText(m_doc->activeConfig());
    loadConfig(m_doc->activeConfig());
  });
}

void ConfigForm::loadConfig(const QString& name) {
  const config::RunConfig* cfg = m_doc->config(name);
  m_model->setCommitted(cfg ? *cfg : config::RunConfig::defaults());
}

QString ConfigForm::fileFilter(const QString& key) {
  if (key == QLatin1String("model") || key == QLatin1String("pretrained"))
    return tr("Checkpoints (*.pt);;All files (*)");
  if (key == QLatin1String("data")) return tr("Dataset (*.yaml *.yml);;All files (*)");
  return tr("All files (*)");
}

void ConfigForm::chooseFile(const QPersistentModelIndex& index) {
  if (!index.isValid()) return;
  const QString key = index.data(ConfigFormModel::KeyRole).toString();
  const QString value = index.data(Qt::EditRole).toString();
  // Starts where the value points, else in the project's folder (text only: no file work here).
  QString start = QFileInfo(m_doc->path()).absolutePath();
  if (!value.isEmpty() && QDir::isAbsolutePath(value)) start = value;
  const QString title = key == QLatin1String("model") || key == QLatin1String("pretrained")
                            ? tr("Start weights (%1)").arg(key)
                            : tr("File for %1").arg(key);
  const QString chosen = QFileDialog::getOpenFileName(this, title, start, fileFilter(key));
  if (chosen.isEmpty() || !index.isValid()) return;
  m_filter->setData(index, QDir::cleanPath(chosen), Qt::EditRole);
  m_view->setCurrentIndex(index);
}

void ConfigForm::setDatasetSize(qint64 trainImages, int nc) {
  m_trainImages = trainImages;
  m_nc = nc;
  updateState();
}

QString ConfigForm::derivedText() const {
  return m_derived->text();
}

void ConfigForm::updateState() {
  auto cfg = m_model->edited();
  if (cfg) {
    const auto& c = cfg.value();
    const int world = static_cast<int>(std::max<int64_t>(1, c.getInt("nproc")) *
                                       std::max<int64_t>(1, c.getInt("nnodes")));
    // With the Dataset page's scan, optimizer=auto is resolved as the run will resolve it.
    config::DatasetSize size;
    if (m_trainImages >= 0) {
      size.trainImages = std::max<int64_t>(
          1, int64_t(std::llround(double(m_trainImages) * c.getFloat("fraction"))));
      size.nc = m_nc;
    }
    const config::Derived d = config::derive(c, world, size);
    QString optimizer;
    QHash<QString, QString> used;
    if (d.optimizer == "auto") {
      optimizer = tr("optimizer auto (SGD or AdamW by the run's length, chosen at the start)");
    } else if (d.autoChosen) {
      optimizer = tr("optimizer auto → %1, lr0 %2, momentum %3 (auto sets them: the lr0 and "
                     "momentum above are not used)")
                      .arg(QString::fromStdString(d.optimizer))
                      .arg(d.lr0 / d.lrScale, 0, 'g', 4)
                      .arg(d.momentum, 0, 'g', 4);
      used.insert(QStringLiteral("lr0"), QString::number(d.lr0 / d.lrScale, 'g', 6));
      used.insert(QStringLiteral("momentum"), QString::number(d.momentum, 'g', 6));
      used.insert(QStringLiteral("warmup_bias_lr"), QString::number(d.warmupBiasLr, 'g', 6));
    } else {
      optimizer = tr("%1 lr0 %2").arg(QString::fromStdString(d.optimizer)).arg(d.lr0, 0, 'g', 4);
    }
    m_model->setUsedValues(
        used, tr("optimizer=auto chooses %1 with its own learning rate and momentum for a run of "
                 "%2 optimiser steps; set optimizer=SGD or AdamW to use the values typed here.")
                  .arg(QString::fromStdString(d.optimizer))
                  .arg(d.iterations));
    m_derived->setText(tr("World size %1 · global batch %2 · accumulate %3 step(s) · "
                          "effective batch %4 · %5 · weight decay %6")
                           .arg(world)
                           .arg(d.globalBatch)
                           .arg(d.accumulate)
                           .arg(d.globalBatch * d.accumulate)
                           .arg(optimizer)
                           .arg(d.weightDecay, 0, 'g', 4));
  }
  const int errors = m_model->errorCount();
  if (errors > 0) {
    m_status->setText(tr("%n value(s) need fixing before Apply.", nullptr, errors));
    m_status->setStyleSheet(QStringLiteral("color: #b00020"));
  } else {
    m_status->setText(m_model->isDirty() ? tr("Unapplied changes.") : QString());
    m_status->setStyleSheet(QString());
  }
  m_apply->setEnabled(m_model->isDirty() && errors == 0);
  m_cancel->setEnabled(m_model->isDirty());
}

}  // namespace stave::widgets
