#include "widgets/export_dialog.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "core/studio/engine_text.h"
#include "core/studio/project/project_document.h"

namespace stave::widgets {
namespace {
using config::ExportFormat;

bool isCluster(ExportFormat f) {
  return f == ExportFormat::Slurm || f == ExportFormat::K8s;
}
bool isScript(ExportFormat f) {
  return f == ExportFormat::Shell || isCluster(f);
}
}  // namespace

ExportDialog::ExportDialog(studio::ProjectDocument* doc, QWidget* parent)
    : QDialog(parent), m_doc(doc) {
  setWindowTitle(tr("Export run config"));
  setObjectName(QStringLiteral("exportDialog"));
  auto* layout = new QVBoxLayout(this);
  buildChoiceForm(layout);
  buildClusterBox(layout);

  m_preview = new QPlainTextEdit(this);
  m_preview->setObjectName(QStringLiteral("exportPreview"));
  m_preview->setReadOnly(true);
  m_preview->setLineWrapMode(QPlainTextEdit::NoWrap);
  m_preview->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  layout->addWidget(m_preview, 1);
  m_problem = new QLabel(this);
  m_problem->setObjectName(QStringLiteral("exportProblem"));
  m_problem->setStyleSheet(QStringLiteral("color: #b00020"));
  m_problem->setWordWrap(true);
  m_problem->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_problem);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  m_copy = buttons->addButton(tr("Copy"), QDialogButtonBox::ActionRole);
  m_save = buttons->addButton(tr("Save As…"), QDialogButtonBox::ActionRole);
  connect(m_copy, &QPushButton::clicked, this,
          [this] { QApplication::clipboard()->setText(m_text); });
  connect(m_save, &QPushButton::clicked, this, &ExportDialog::saveAs);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);

  connect(m_config, &QComboBox::currentTextChanged, this, &ExportDialog::refresh);
  connect(m_format, qOverload<int>(&QComboBox::currentIndexChanged), this, &ExportDialog::refresh);
  for (QSpinBox* box : {m_nodes, m_gpus, m_cpus})
    connect(box, qOverload<int>(&QSpinBox::valueChanged), this, &ExportDialog::refresh);
  for (QLineEdit* edit : {m_jobName, m_time, m_partition, m_account, m_image})
    connect(edit, &QLineEdit::textChanged, this, &ExportDialog::refresh);
  resize(820, 640);
  refresh();
}

void ExportDialog::buildChoiceForm(QVBoxLayout* layout) {
  auto* top = new QFormLayout;
  m_config = new QComboBox(this);
  m_config->setObjectName(QStringLiteral("exportConfig"));
  m_config->addItems(m_doc->configNames());
  m_config->setCurrentText(m_doc->activeConfig());
  top->addRow(tr("Config:"), m_config);
  m_format = new QComboBox(this);
  m_format->setObjectName(QStringLiteral("exportFormat"));
  const std::pair<ExportFormat, QString> formats[] = {
      {ExportFormat::Yaml, tr("YAML: the full resolved config (stave-train train reads it)")},
      {ExportFormat::Json, tr("JSON: the full resolved config")},
      {ExportFormat::Ultralytics, tr("Ultralytics args.yaml (yolo train cfg=FILE)")},
      {ExportFormat::Shell, tr("Shell script: one machine")},
      {ExportFormat::Slurm, tr("Slurm batch script (sbatch)")},
      {ExportFormat::K8s, tr("Kubernetes: Kubeflow PyTorchJob")}};
  for (const auto& [format, label] : formats) m_format->addItem(label, static_cast<int>(format));
  top->addRow(tr("Format:"), m_format);
  layout->addLayout(top);
}

void ExportDialog::buildClusterBox(QVBoxLayout* layout) {
  auto* cluster = new QGroupBox(tr("Cluster"), this);
  m_clusterBox = cluster;
  auto* form = new QFormLayout(cluster);
  const config::ExportOptions defaults;
  m_jobName = new QLineEdit(cluster);
  m_jobName->setObjectName(QStringLiteral("exportJobName"));
  m_jobName->setPlaceholderText(QStringLiteral("%1-%2").arg(m_doc->name(), m_doc->activeConfig()));
  form->addRow(tr("Job name:"), m_jobName);
  m_nodes = new QSpinBox(cluster);
  m_nodes->setObjectName(QStringLiteral("exportNodes"));
  m_nodes->setRange(0, 4096);  // 0 is refused by the export, which says why
  m_nodes->setValue(defaults.nodes);
  form->addRow(tr("Machines (nodes):"), m_nodes);
  m_gpus = new QSpinBox(cluster);
  m_gpus->setRange(-1, 64);  // 0: CPU ranks, no GPU request
  m_gpus->setSpecialValueText(tr("the config's nproc"));
  m_gpus->setValue(defaults.gpusPerNode);
  form->addRow(tr("GPUs per machine:"), m_gpus);
  m_cpus = new QSpinBox(cluster);
  m_cpus->setRange(0, 1024);
  m_cpus->setSpecialValueText(tr("workers + 2"));
  form->addRow(tr("CPUs per rank:"), m_cpus);
  m_time = new QLineEdit(QString::fromStdString(defaults.time), cluster);
  m_time->setObjectName(QStringLiteral("exportTime"));
  form->addRow(tr("Time limit:"), m_time);
  m_partition = new QLineEdit(cluster);
  m_partition->setPlaceholderText(tr("the cluster's default"));
  form->addRow(tr("Partition:"), m_partition);
  m_account = new QLineEdit(cluster);
  m_account->setObjectName(QStringLiteral("exportAccount"));
  m_account->setPlaceholderText(tr("your default account"));
  form->addRow(tr("Account:"), m_account);
  m_image = new QLineEdit(cluster);
  m_image->setObjectName(QStringLiteral("exportImage"));
  m_image->setPlaceholderText(tr("container image with stave-train"));
  form->addRow(tr("Container image:"), m_image);
  layout->addWidget(cluster);
}

void ExportDialog::setConfig(const QString& name) {
  m_config->setCurrentText(name);
}

void ExportDialog::setFormat(config::ExportFormat format) {
  m_format->setCurrentIndex(m_format->findData(static_cast<int>(format)));
}

config::ExportOptions ExportDialog::options() const {
  config::ExportOptions o;
  o.jobName = m_jobName->text().trimmed().toStdString();  // "" = the CLI's default
  o.nodes = m_nodes->value();
  o.gpusPerNode = m_gpus->value();
  o.cpusPerTask = m_cpus->value();
  o.time = m_time->text().trimmed().toStdString();
  o.partition = m_partition->text().trimmed().toStdString();
  o.account = m_account->text().trimmed().toStdString();
  o.image = m_image->text().trimmed().toStdString();
  return o;
}

QString ExportDialog::text() const {
  return m_text;
}

QString ExportDialog::problems() const {
  return m_problems;
}

void ExportDialog::refresh() {
  const auto format = static_cast<ExportFormat>(m_format->currentData().toInt());
  // Only the options the chosen format reads are shown.
  m_clusterBox->setVisible(isScript(format));
  auto* form = static_cast<QFormLayout*>(m_clusterBox->layout());
  for (QWidget* w : {static_cast<QWidget*>(m_nodes), static_cast<QWidget*>(m_gpus)})
    form->setRowVisible(w, isCluster(format));
  for (QWidget* w : {static_cast<QWidget*>(m_cpus), static_cast<QWidget*>(m_time),
                     static_cast<QWidget*>(m_partition), static_cast<QWidget*>(m_account)})
    form->setRowVisible(w, format == ExportFormat::Slurm);
  form->setRowVisible(m_image, isCluster(format));

  m_text.clear();
  m_problems.clear();
  if (!m_doc->isOpen()) {
    m_problems = tr("Open a project first.");
  } else {
    auto text = config::exportProjectConfig(m_doc->project(), m_config->currentText().toStdString(),
                                            {}, format, options());
    if (text)
      m_text = QString::fromStdString(text.value());
    else
      m_problems = studio::errorsText(text.errors());
  }
  m_preview->setPlainText(m_text);
  m_problem->setStyleSheet(QStringLiteral("color: #b00020"));
  m_problem->setText(m_problems);
  m_problem->setVisible(!m_problems.isEmpty());
  m_save->setEnabled(!m_text.isEmpty());
  m_copy->setEnabled(!m_text.isEmpty());
}

bool ExportDialog::saveTo(const QString& path) {
  const auto format = static_cast<ExportFormat>(m_format->currentData().toInt());
  if (m_text.isEmpty()) return false;
  auto st = config::writeExportFile(path.toStdString(), m_text.toStdString(), format);
  if (!st) {
    m_problem->setText(tr("Cannot save: %1").arg(studio::errorsText(st.errors())));
    m_problem->show();
    return false;
  }
  m_problem->setText(tr("Saved %1").arg(QDir::toNativeSeparators(path)));
  m_problem->setStyleSheet(QString());
  m_problem->show();
  return true;
}

void ExportDialog::saveAs() {
  const auto format = static_cast<ExportFormat>(m_format->currentData().toInt());
  const QString suggestion =
      QDir(QFileInfo(m_doc->path()).absolutePath())
          .filePath(QString::fromLatin1(config::defaultExportFileName(format)));
  const QString path = askSavePath
                           ? askSavePath(suggestion)
                           : QFileDialog::getSaveFileName(this, tr("Save export"), suggestion);
  if (!path.isEmpty()) saveTo(path);
}

}  // namespace stave::widgets
