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
  using P = studio::ClusterProfile;
  m_form = new QWidget(this);
  auto* form = new QFormLayout(m_form);
  const auto line = [this, form](QString P::*field, const char* name, const QString& label,
                                 const QString& hint) {
    auto* edit = new QLineEdit(m_form);
    edit->setObjectName(QString::fromLatin1(name));
    edit->setPlaceholderText(hint);
    form->addRow(label, edit);
    connect(edit, &QLineEdit::textEdited, this, &ClusterProfilesEditor::storeSelected);
    m_texts.append({field, edit});
    return edit;
  };
  const auto number = [this, form](int P::*field, const char* name, const QString& label, int lo,
                                   int hi, const QString& special) {
    auto* spin = new QSpinBox(m_form);
    spin->setObjectName(QString::fromLatin1(name));
    spin->setRange(lo, hi);
    spin->setSpecialValueText(special);
    form->addRow(label, spin);
    connect(spin, &QSpinBox::valueChanged, this, &ClusterProfilesEditor::storeSelected);
    m_numbers.append({field, spin});
    return spin;
  };
  m_name = line(&P::name, "clusterName", tr("Name:"), tr("shown in the Run page's list"));
  line(&P::partition, "clusterPartition", tr("Partition:"), tr("the cluster's default"));
  line(&P::account, "clusterAccount", tr("Account:"), tr("your default account"));
  line(&P::timeLimit, "clusterTime", tr("Time limit:"), tr("[D-]HH:MM:SS or minutes"));
  number(&P::gpusPerNode, "clusterGpus", tr("GPUs per node:"), -1, 1024, tr("the config's processes"))
      ->setToolTip(tr("GPUs (one rank each) per node; 0 = CPU ranks, no GPU request"));
  number(&P::nodes, "clusterNodes", tr("Nodes:"), 1, 100000, {});
  number(&P::cpusPerTask, "clusterCpus", tr("CPUs per rank:"), 0, 4096, tr("the config's workers + 2"));
  line(&P::runFolder, "clusterRunFolder", tr("Run folder:"), tr("the project's runs/ (on shared storage)"))
      ->setToolTip(tr("A folder the cluster's nodes and this machine both see (NFS, Lustre…). "
                      "Runs go to <folder>/<project>/<run>, linked from the project's runs/."));
  line(&P::trainExecutable, "clusterTrain", tr("stave-train:"), tr("this studio's (same path on the nodes)"));
  line(&P::commandsFolder, "clusterCommands", tr("Slurm commands in:"), tr("PATH"));
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
  for (const auto& [field, edit] : m_texts) edit->setText(p.*field);
  for (const auto& [field, spin] : m_numbers) spin->setValue(p.*field);
  m_showing = false;
}

void ClusterProfilesEditor::storeSelected() {
  const int row = m_list->currentRow();
  if (m_showing || row < 0 || row >= m_profiles.size()) return;
  studio::ClusterProfile& p = m_profiles[row];
  for (const auto& [field, edit] : m_texts) p.*field = edit->text().trimmed();
  for (const auto& [field, spin] : m_numbers) p.*field = spin->value();
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
