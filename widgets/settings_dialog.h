#pragma once
// Settings…: the studio's preferences — General: language, and what runs started from the
// studio get (sampling interval, metrics port, default devices); Clusters: the cluster profiles
// runs can be sent to. OK stores them; Cancel keeps the old ones.
#include <QDialog>

#include "core/studio/project/preferences.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTabWidget;

namespace stave::widgets {

class ClusterProfilesEditor;

class SettingsDialog : public QDialog {
  Q_OBJECT
 public:
  explicit SettingsDialog(QWidget* parent = nullptr);
  /// The values as edited (not yet stored).
  studio::Preferences edited() const;
  /// Stores the edited values when they are valid; false (and the reason shown) otherwise.
  bool apply();
  QLabel* problemLabel() const { return m_problem; }
  /// Settings ▸ Clusters.
  ClusterProfilesEditor* clusterEditor() const { return m_clusters; }
  QTabWidget* tabs() const { return m_tabs; }

  void accept() override;

 private:
  QComboBox* m_language = nullptr;
  QDoubleSpinBox* m_period = nullptr;
  QSpinBox* m_port = nullptr;
  QLineEdit* m_devices = nullptr;
  QLabel* m_problem = nullptr;
  QTabWidget* m_tabs = nullptr;
  ClusterProfilesEditor* m_clusters = nullptr;
};

}  // namespace stave::widgets
