#include "widgets/cluster_profiles_editor.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace stave::widgets {

ClusterProfilesEditor::ClusterProfilesEditor(const QList<studio::ClusterProfile>& profiles, QWidget* parent)
    : QWidget(parent), m_profiles(profiles) {
  setObjectName(QStringLiteral("clusterProfiles"));
  auto* layout = new QHBoxLayout(this);
  auto* left = new QVBoxLayout;
  m_list = new QListWidget(this);
  m_list->setObjectName(QStringLiteral("clusterList"));
  m_list->setMaximumWidth(180);
  for (const auto& p : m_profiles) m_list->addItem(p.name);
  left->addWidget(m_list, 1);
  auto* buttons = new QHBoxLayout;
  auto* add = new QPushButton(tr("Add"), this);
  add->setObjectName(QStringLiteral("clusterAdd"));
  m_remove = new QPushButton(tr("Remove"), this);
  m_remove->setObjectName(QStringLiteral("clusterRemove"));
  buttons->addWidget(add);
  buttons->addWidget(m_remove);
  left->addLayout(buttons);
  layout->addLayout(left);
  layout->addWidget(buildForm(), 1);
  connect(add, &QPushButton::clicked, this, &ClusterProfilesEditor::addProfile);
  connect(m_remove, &QPushButton::clicked, this, &ClusterProfilesEditor::removeProfile);
  connect(m_list, &QListWidget::currentRowChanged, this, &ClusterProfilesEditor::showSelected);
  if (!m_profiles.isEmpty()) m_list->setCurrentRow(0);
  showSelected();
}

QWidget* ClusterProfilesEditor::buildForm() {
  m_form = new QWidget(this);
  auto* form = new QFormLayout(m_form);
  const auto line = [this, form](QLineEdit*& edit, const char* name, const QString& label, const QString& hint) {
    edit = new QLineEdit(m_form);
    edit->setObjectName(QString::fromLatin1(name));
    edit->setPlaceholderText(hint);
    form->addRow(label, edit);
    connect(edit, &QLineEdit::textEdited, this, &ClusterProfilesEditor::storeSelected);
  };
  line(m_name, "clusterName", tr("Name:"), tr("shown in the Run page's list"));
  line(m_partition, "clusterPartition", tr("Partition:"), tr("the cluster's default"));
  line(m_account, "clusterAccount", tr("Account:"), tr("your default account"));
  line(m_time, "clusterTime", tr("Time limit:"), tr("[D-]HH:MM:SS or minutes"));
  m_gpus = new QSpinBox(m_form);
  m_gpus->setObjectName(QStringLiteral("clusterGpus"));
  m_gpus->setRange(-1, 1024);
  m_gpus->setSpecialValueText(tr("the config's processes"));
  m_gpus->setToolTip(tr("GPUs (one rank each) per node; 0 = CPU ranks, no GPU request"));
  form->addRow(tr("GPUs per node:"), m_gpus);
  m_nodes = new QSpinBox(m_form);
  m_nodes->setObjectName(QStringLiteral("clusterNodes"));
  m_nodes->setRange(1, 100000);
  form->addRow(tr("Nodes:"), m_nodes);
  m_cpus = new QSpinBox(m_form);
  m_cpus->setObjectName(QStringLiteral("clusterCpus"));
  m_cpus->setRange(0, 4096);
  m_cpus->setSpecialValueText(tr("the config's workers + 2"));
  form->addRow(tr("CPUs per rank:"), m_cpus);
  for (QSpinBox* spin : {m_gpus, m_nodes, m_cpus})
    connect(spin, &QSpinBox::valueChanged, this, &ClusterProfilesEditor::storeSelected);
  line(m_runFolder, "clusterRunFolder", tr("Run folder:"), tr("the project's runs/ (on shared storage)"));
  m_runFolder->setToolTip(tr("A folder the cluster's nodes and this machine both see (NFS, Lustre…). "
                             "Runs go to <folder>/<project>/<run>, linked from the project's runs/."));
  line(m_train, "clusterTrain", tr("stave-train:"), tr("this studio's (same path on the nodes)"));
  line(m_commands, "clusterCommands", tr("Slurm commands in:"), tr("PATH"));
  auto* note = new QLabel(tr("sbatch, squeue, sacct, scontrol and scancel run on this machine. "
                             "Stop sends SIGTERM to the job's steps (scancel --signal=TERM): the run "
                             "writes a checkpoint and can be resumed."),
                          m_form);
  note->setWordWrap(true);
  form->addRow(note);
  return m_form;
}

void ClusterProfilesEditor::showSelected() {
  const int row = m_list->currentRow();
  const bool has = row >= 0 && row < m_profiles.size();
  m_form->setEnabled(has);
  m_remove->setEnabled(has);
  const studio::ClusterProfile p = has ? m_profiles[row] : studio::ClusterProfile{};
  m_showing = true;
  m_name->setText(p.name);
  m_partition->setText(p.partition);
  m_account->setText(p.account);
  m_time->setText(p.timeLimit);
  m_gpus->setValue(p.gpusPerNode);
  m_nodes->setValue(p.nodes);
  m_cpus->setValue(p.cpusPerTask);
  m_runFolder->setText(p.runFolder);
  m_train->setText(p.trainExecutable);
  m_commands->setText(p.commandsFolder);
  m_showing = false;
}

void ClusterProfilesEditor::storeSelected() {
  const int row = m_list->currentRow();
  if (m_showing || row < 0 || row >= m_profiles.size()) return;
  studio::ClusterProfile& p = m_profiles[row];
  p.name = m_name->text().trimmed();
  p.partition = m_partition->text().trimmed();
  p.account = m_account->text().trimmed();
  p.timeLimit = m_time->text().trimmed();
  p.gpusPerNode = m_gpus->value();
  p.nodes = m_nodes->value();
  p.cpusPerTask = m_cpus->value();
  p.runFolder = m_runFolder->text().trimmed();
  p.trainExecutable = m_train->text().trimmed();
  p.commandsFolder = m_commands->text().trimmed();
  m_list->item(row)->setText(p.name);
}

void ClusterProfilesEditor::addProfile() {
  studio::ClusterProfile p;
  p.name = tr("cluster");
  for (int k = 2;; ++k) {
    bool taken = false;
    for (const auto& q : m_profiles) taken = taken || q.name == p.name;
    if (!taken) break;
    p.name = tr("cluster-%1").arg(k);
  }
  m_profiles << p;
  m_list->addItem(p.name);
  m_list->setCurrentRow(static_cast<int>(m_profiles.size()) - 1);
  m_name->setFocus();
  m_name->selectAll();
}

void ClusterProfilesEditor::removeProfile() {
  const int row = m_list->currentRow();
  if (row < 0 || row >= m_profiles.size()) return;
  m_profiles.removeAt(row);
  delete m_list->takeItem(row);
  showSelected();
}

}  // namespace stave::widgets
