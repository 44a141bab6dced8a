#include "widgets/settings_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QTabWidget>
#include <QVBoxLayout>

#include "widgets/cluster_profiles_editor.h"

namespace stave::widgets {

SettingsDialog::SettingsDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Settings"));
  setObjectName(QStringLiteral("settingsDialog"));
  const auto prefs = studio::Preferences::load();
  auto* outer = new QVBoxLayout(this);
  m_tabs = new QTabWidget(this);
  m_tabs->setObjectName(QStringLiteral("settingsTabs"));
  outer->addWidget(m_tabs, 1);
  auto* general = new QWidget(m_tabs);
  auto* layout = new QVBoxLayout(general);
  m_tabs->addTab(general, tr("General"));
  m_clusters = new ClusterProfilesEditor(prefs.clusters, m_tabs);
  m_tabs->addTab(m_clusters, tr("Clusters"));

  auto* ui = new QGroupBox(tr("Interface"), general);
  auto* uiForm = new QFormLayout(ui);
  m_language = new QComboBox(ui);
  m_language->setObjectName(QStringLiteral("language"));
  for (const auto& [code, name] : studio::Preferences::languages())
    m_language->addItem(code.isEmpty() ? tr("System language") : name, code);
  m_language->setCurrentIndex(std::max(0, m_language->findData(prefs.language)));
  uiForm->addRow(tr("Language:"), m_language);
  auto* restart = new QLabel(tr("A new language takes effect when the studio starts again."), ui);
  restart->setWordWrap(true);
  uiForm->addRow(QString(), restart);
  layout->addWidget(ui);

  auto* runs = new QGroupBox(tr("Runs started from the studio"), general);
  auto* runForm = new QFormLayout(runs);
  m_period = new QDoubleSpinBox(runs);
  m_period->setObjectName(QStringLiteral("samplePeriod"));
  m_period->setRange(0.0, 3600.0);
  m_period->setDecimals(2);
  m_period->setSingleStep(0.25);
  m_period->setSuffix(tr(" s"));
  m_period->setSpecialValueText(tr("off"));
  m_period->setValue(prefs.samplePeriodS);
  runForm->addRow(tr("GPU sampling interval:"), m_period);
  m_port = new QSpinBox(runs);
  m_port->setObjectName(QStringLiteral("metricsPort"));
  m_port->setRange(0, 65535);
  m_port->setSpecialValueText(tr("off"));
  m_port->setValue(prefs.metricsPort);
  runForm->addRow(tr("Prometheus metrics port:"), m_port);
  m_devices = new QLineEdit(prefs.devices, runs);
  m_devices->setObjectName(QStringLiteral("devices"));
  m_devices->setPlaceholderText(tr("all visible GPUs (or the CPU)"));
  runForm->addRow(tr("Default devices:"), m_devices);
  auto* note = new QLabel(tr("These apply to a run when its config leaves the key "
                             "(sample_period_s, metrics_port, devices) at its default; a value set "
                             "in the project's config wins. Devices: cpu, or GPU indices such as "
                             "0,1."),
                          runs);
  note->setWordWrap(true);
  runForm->addRow(note);
  layout->addWidget(runs);
  layout->addStretch(1);

  m_problem = new QLabel(this);
  m_problem->setObjectName(QStringLiteral("settingsProblem"));
  m_problem->setStyleSheet(QStringLiteral("color: #b00020"));
  m_problem->setWordWrap(true);
  m_problem->hide();
  outer->addWidget(m_problem);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &SettingsDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &SettingsDialog::reject);
  outer->addWidget(buttons);
  setMinimumWidth(560);
}

studio::Preferences SettingsDialog::edited() const {
  studio::Preferences p;
  p.language = m_language->currentData().toString();
  p.samplePeriodS = m_period->value();
  p.metricsPort = m_port->value();
  p.devices = m_devices->text().trimmed();
  p.clusters = m_clusters->profiles();
  return p;
}

bool SettingsDialog::apply() {
  const auto p = edited();
  const QStringList problems = p.validate();
  if (!problems.isEmpty()) {
    m_problem->setText(problems.join(QLatin1Char('\n')));
    m_problem->show();
    return false;
  }
  m_problem->hide();
  p.save();
  return true;
}

void SettingsDialog::accept() {
  if (apply()) QDialog::accept();
}

}  // namespace stave::widgets
