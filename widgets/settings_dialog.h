#pragma once
// Settings…: the studio's preferences (language, and what runs started from the studio get:
// sampling interval, metrics port, default devices). OK stores them; Cancel keeps the old ones.
#include <QDialog>

#include "core/studio/preferences.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace stave::widgets {

class SettingsDialog : public QDialog {
  Q_OBJECT
 public:
  explicit SettingsDialog(QWidget* parent = nullptr);
  /// The values as edited (not yet stored).
  studio::Preferences edited() const;
  /// Stores the edited values when they are valid; false (and the reason shown) otherwise.
  bool apply();
  QLabel* problemLabel() const { return m_problem; }

  void accept() override;

 private:
  QComboBox* m_language = nullptr;
  QDoubleSpinBox* m_period = nullptr;
  QSpinBox* m_port = nullptr;
  QLineEdit* m_devices = nullptr;
  QLabel* m_problem = nullptr;
};

}  // namespace stave::widgets
