#pragma once
// Settings ▸ Clusters: the cluster profiles runs can be sent to — a list (Add, Remove) and the
// chosen profile's fields: name, partition, account, time limit, GPUs per node, nodes, CPUs per
// rank, the run
// folder on storage the cluster shares with this machine, stave-train as the nodes start it,
// and where the Slurm commands are. The dialog stores what profiles() returns.
#include <QList>
#include <QWidget>

#include "core/studio/project/cluster_profile.h"

class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;

namespace stave::widgets {

class ClusterProfilesEditor : public QWidget {
  Q_OBJECT
 public:
  explicit ClusterProfilesEditor(const QList<studio::ClusterProfile>& profiles, QWidget* parent = nullptr);
  /// The profiles as edited.
  QList<studio::ClusterProfile> profiles() const { return m_profiles; }
  QListWidget* list() const { return m_list; }
  /// Adds a new profile ("cluster", "cluster-2", ...) and selects it.
  void addProfile();
  /// Removes the selected profile.
  void removeProfile();

 private:
  QWidget* buildForm();
  /// Shows the selected profile's fields (or disables them when none is selected).
  void showSelected();
  /// Copies the fields into the selected profile.
  void storeSelected();
  QList<studio::ClusterProfile> m_profiles;
  QListWidget* m_list = nullptr;
  QPushButton* m_remove = nullptr;
  QWidget* m_form = nullptr;
  QLineEdit* m_name = nullptr;
  /// Each field's widget (what showSelected fills and storeSelected reads).
  QList<QPair<QString studio::ClusterProfile::*, QLineEdit*>> m_texts;
  QList<QPair<int studio::ClusterProfile::*, QSpinBox*>> m_numbers;
  bool m_showing = false;  ///< the fields are being filled, not edited
};

}  // namespace stave::widgets
