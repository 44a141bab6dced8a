#include "widgets/cluster_profiles_editor.h"

#include <algorithm>

#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QStyle>
#include <QStyleOptionFrame>
#include <QVBoxLayout>

namespace stave::widgets {

namespace {

/// The width `edit` needs to show `text` whole: the text, the frame and the margins around it.
int widthFor(const QLineEdit* edit, const QString& text) {
  QStyleOptionFrame option;
  option.initFrom(edit);
  option.rect = QRect(0, 0, 200, edit->sizeHint().height());
  option.lineWidth = edit->style()->pixelMetric(QStyle::PM_DefaultFrameWidth, &option, edit);
  option.state |= QStyle::State_Sunken;
  const QRect contents = edit->style()->subElementRect(QStyle::SE_LineEditContents, &option, edit);
  const QMargins margins = edit->textMargins();
  constexpr int kHorizontalMargin = 2;  // QLineEdit's own, on each side of the text
  return edit->fontMetrics().horizontalAdvance(text) + 2 * kHorizontalMargin + margins.left() +
         margins.right() + option.rect.width() - contents.width() + 1;
}

}  // namespace

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
  // Fields take the width there is; a label that leaves its field too little goes above it.
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  form->setRowWrapPolicy(QFormLayout::WrapLongRows);
  const auto line = [this, form](QString P::*field, const char* name, const QString& label,
                                 const QString& hint) {
    auto* edit = new QLineEdit(m_form);
    edit->setObjectName(QString::fromLatin1(name));
    edit->setPlaceholderText(hint);  // short: what an empty field means; more in the tooltip
    edit->setMinimumWidth(widthFor(edit, hint));  // never cut
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
    // Never cut: the special text, the arrows and the frame.
    if (!special.isEmpty())
      spin->setMinimumWidth(std::max(spin->sizeHint().width(), spin->fontMetrics().horizontalAdvance(special) + 48));
    form->addRow(label, spin);
    connect(spin, &QSpinBox::valueChanged, this, &ClusterProfilesEditor::storeSelected);
    m_numbers.append({field, spin});
    return spin;
  };
  m_name = line(&P::name, "clusterName", tr("Name:"), tr("shown in the Run page's list"));
  line(&P::destination, "clusterDestination", tr("SSH destination:"), tr("none: Slurm on this machine"))
      ->setToolTip(tr("How to reach the cluster's login node: user@host, or a Host of ~/.ssh/config "
                      "(jump hosts, agents and keys work as in a terminal). ssh never asks for a "
                      "password: check that `ssh DESTINATION true` works without a prompt. Empty: "
                      "the Slurm commands run on this machine."));
  number(&P::port, "clusterPort", tr("SSH port:"), 0, 65535, tr("ssh's configuration"));
  line(&P::sshConfig, "clusterSshConfig", tr("SSH config file:"), tr("~/.ssh/config"))
      ->setToolTip(tr("Another ssh configuration file (ssh -F); empty: your ~/.ssh/config"));
  line(&P::partition, "clusterPartition", tr("Partition:"), tr("the cluster's default"))
      ->setToolTip(tr("The Slurm partition (sbatch --partition); empty: the cluster's default"));
  line(&P::account, "clusterAccount", tr("Account:"), tr("your default account"))
      ->setToolTip(tr("The account the job is charged to (sbatch --account); empty: your default"));
  line(&P::timeLimit, "clusterTime", tr("Time limit:"), tr("[D-]HH:MM:SS or minutes"))
      ->setToolTip(tr("The job's time limit (sbatch --time): [D-]HH:MM:SS, or minutes"));
  number(&P::gpusPerNode, "clusterGpus", tr("GPUs per node:"), -1, 1024, tr("the config's processes"))
      ->setToolTip(tr("GPUs (one rank each) per node; 0 = CPU ranks, no GPU request"));
  number(&P::nodes, "clusterNodes", tr("Nodes:"), 1, 100000, {});
  number(&P::cpusPerTask, "clusterCpus", tr("CPUs per rank:"), 0, 4096, tr("the config's workers + 2"));
  line(&P::runFolder, "clusterRunFolder", tr("Run folder:"), tr("the project's runs/"))
      ->setToolTip(tr("A folder the cluster's nodes and this machine both see (NFS, Lustre…). "
                      "Runs go to <folder>/<project>/<run>, linked from the project's runs/. "
                      "Empty: the project's runs/, which must then be on shared storage. Over "
                      "SSH: the folder on the cluster (required); the project's runs/ keeps a "
                      "mirror."));
  line(&P::datasetLocal, "clusterDatasetLocal", tr("Dataset folder here:"), tr("no mapping"))
      ->setToolTip(tr("Over SSH: a folder of datasets as this machine sees it; the project's "
                      "data.yaml under it is given to the job under the cluster's folder below."));
  line(&P::datasetRemote, "clusterDatasetRemote", tr("Same folder on the cluster:"), tr("no mapping"))
      ->setToolTip(tr("Over SSH: that folder as the cluster's nodes see it."));
  line(&P::datasetOnCluster, "clusterDatasetOnCluster", tr("Dataset on the cluster:"), tr("mapped as above"))
      ->setToolTip(tr("Over SSH: the dataset's data.yaml when it is already on the cluster (wins "
                      "over the mapping)."));
  line(&P::trainExecutable, "clusterTrain", tr("stave-train:"), tr("this studio's"))
      ->setToolTip(tr("The stave-train the nodes start. Empty: this studio's own, which must be "
                      "at the same path on the nodes; over SSH: found on PATH there."));
  line(&P::commandsFolder, "clusterCommands", tr("Slurm commands in:"), tr("found on PATH"))
      ->setToolTip(tr("The folder of sbatch, squeue, sacct, scontrol and scancel (on the cluster "
                      "over SSH). Empty: found on PATH."));
  auto* note = new QLabel(tr("Without a destination, sbatch, squeue, sacct, scontrol and scancel run "
                             "on this machine; with one, on the login node over ssh, and the run "
                             "folder here mirrors the cluster's (checkpoints fetched on demand). "
                             "Stop sends SIGTERM to the job's steps (scancel --signal=TERM): the run "
                             "writes a checkpoint and can be resumed."),
                          m_form);
  note->setWordWrap(true);
  // Whole at the narrowest the form gets: a dialog does not grow for a wrapped label's height.
  const int narrowest = note->fontMetrics().averageCharWidth() * 36;
  note->setMinimumSize(narrowest, note->heightForWidth(narrowest));
  form->addRow(note);
  // The SSH fields make the form taller than a small screen: it scrolls (up and down only).
  auto* scroll = new QScrollArea(this);
  scroll->setObjectName(QStringLiteral("clusterFormScroll"));
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setWidget(m_form);
  scroll->setMinimumWidth(m_form->minimumSizeHint().width() +
                          scroll->style()->pixelMetric(QStyle::PM_ScrollBarExtent) + 2);
  // As tall as the form was before it scrolled: the dialog's other tab keeps its room.
  scroll->setMinimumHeight(std::min(m_form->minimumSizeHint().height(), 380));
  return scroll;
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
