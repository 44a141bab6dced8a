// The Run page's chapter on driving a run: starting one here (the unsaved project, the
// pre-flight, the start itself off the GUI thread) or on a cluster, stopping and resuming it, and
// the choice of where it runs (run_page.cpp builds the page and shows the run).
#include <QComboBox>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>

#include "core/studio/project/preferences.h"
#include "core/studio/project/preflight.h"
#include "core/studio/project/project_document.h"
#include "core/studio/run/cluster_job.h"
#include "core/studio/run/run_controller.h"
#include "core/studio/run/run_session.h"
#include "widgets/run_page.h"

namespace stave::widgets {

using studio::RunController;

QString RunPage::chosenConfig() const {
  return m_config->currentText();
}

int RunPage::chosenNproc() const {
  return m_nproc->value();
}

bool RunPage::startRun() {
  if (!m_doc->isOpen()) {
    m_outcome->setText(tr("Open a project first."));
    return false;
  }
  if (localRunBlocksStart()) {
    m_outcome->setText(tr("%1 is still running; stop it first.").arg(m_run->runId()));
    return false;
  }
  if (m_doc->isDirty()) {
    // The run reads the project file: offer to save rather than refuse.
    QMessageBox ask(QMessageBox::Question, tr("Start Training"),
                    tr("The project has unsaved changes."), QMessageBox::Cancel, this);
    ask.setObjectName(QStringLiteral("saveBeforeStart"));
    ask.setInformativeText(tr("The run trains with the project as saved. Save it and start?"));
    auto* save = ask.addButton(tr("Save and Start"), QMessageBox::AcceptRole);
    save->setObjectName(QStringLiteral("saveAndStart"));
    ask.setDefaultButton(save);
    ask.exec();
    if (ask.clickedButton() != save) {
      m_outcome->setText(tr("Not started: the project has unsaved changes."));
      return false;
    }
    QString error;
    if (!m_doc->save(&error)) {
      m_outcome->setText(tr("Not started: the project could not be saved: %1").arg(error));
      emit message(m_outcome->text());
      return false;
    }
  }
  // The studio's preferences (sampling interval, metrics port, devices) for keys the config
  // leaves at their defaults.
  QStringList overrides;
  if (const auto* cfg = m_doc->config(m_config->currentText()))
    overrides = studio::Preferences::load().runOverrides(*cfg);
  if (!chosenCluster().isEmpty()) return submitRun(overrides);
  // Pre-flight: a run known to fail is not started (no run folder, no Resume offered).
  const auto checks = studio::preflight(m_doc->project(), m_config->currentText(), overrides);
  if (const QStringList blocking = studio::preflightBlocking(checks); !blocking.isEmpty()) {
    QMessageBox box(QMessageBox::Critical, tr("Start Training"),
                    tr("The config “%1” cannot start:").arg(m_config->currentText()),
                    QMessageBox::Ok, this);
    box.setObjectName(QStringLiteral("preflightProblems"));
    box.setInformativeText(QStringLiteral("• ") + blocking.join(QStringLiteral("\n• ")));
    box.exec();
    m_outcome->setText(tr("Not started: %1").arg(blocking.constFirst()));
    emit message(m_outcome->text());
    return false;
  }
  if (const QStringList warnings = studio::preflightWarnings(checks); !warnings.isEmpty()) {
    QMessageBox box(QMessageBox::Warning, tr("Start Training"),
                    tr("%1 may not finish:").arg(m_config->currentText()), QMessageBox::Cancel,
                    this);
    box.setObjectName(QStringLiteral("preflightWarnings"));
    box.setInformativeText(QStringLiteral("• ") + warnings.join(QStringLiteral("\n• ")));
    auto* go = box.addButton(tr("Start Anyway"), QMessageBox::AcceptRole);
    box.exec();
    if (box.clickedButton() != go) {
      m_outcome->setText(tr("Not started."));
      return false;
    }
  }
  const QString previous = m_run->runDir();
  if (!beginRun(tr("Cannot start: %1"), [&](QString* error) {
        return m_sessions->start(m_doc->path(), m_config->currentText(), m_nproc->value(), overrides, this,
                                 studio::RunSessions::Need::Charts, error);
      }))
    return false;
  // The run's folder and process are made off this thread: "Started" once its process runs; a
  // start that fails there reads as a refusal did, and the run shown before comes back.
  studio::RunSession* started = m_session;
  connect(
      m_run, &RunController::launchDone, this,
      [this, started, previous](const QString& error) {
        if (m_session != started) return;  // another run is shown now
        if (error.isEmpty()) {
          refreshRunList();
          emit message(tr("Started %1").arg(m_run->runId()));
          return;
        }
        clearCharts();
        if (previous.isEmpty() || !showRun(previous)) setSession(nullptr);
        updateState();
        m_outcome->setText(tr("Cannot start: %1").arg(error));
        emit message(m_outcome->text());
      },
      Qt::SingleShotConnection);
  return true;
}

bool RunPage::beginRun(const QString& refusal, const std::function<studio::RunSession*(QString*)>& start) {
  const QString previous = m_run->runDir();
  m_attachOnScan = false;
  clearCharts();
  QString error;
  studio::RunSession* session = start(&error);
  if (session) setSession(session);
  if (!session) {
    if (!previous.isEmpty()) showRun(previous);  // keep showing what was there
    m_outcome->setText(refusal.arg(error));
    emit message(m_outcome->text());
    return false;
  }
  studio::setLastRunTarget(m_doc->path(), chosenCluster());
  updateState();
  return true;
}

QString RunPage::chosenCluster() const { return m_target->currentData().toString(); }

bool RunPage::submitRun(const QStringList& overrides) {
  // The cluster's machines are not this one: the local pre-flight (GPUs, memory, disk here)
  // does not apply; the export checks the config, and sbatch checks the request.
  const QString name = chosenCluster();
  const studio::Preferences prefs = studio::Preferences::load();
  const studio::ClusterProfile* profile = prefs.cluster(name);
  if (!profile) {
    m_outcome->setText(tr("Not sent: the cluster profile “%1” is no longer in Settings.").arg(name));
    reloadClusterProfiles();
    return false;
  }
  // Ranks per node for a CPU profile, and the nproc of a profile that takes the config's.
  QStringList all = overrides;
  all << QStringLiteral("nproc=%1").arg(m_nproc->value());
  if (!beginRun(tr("Not sent: %1"), [&](QString* error) {
        return m_sessions->submit(*profile, m_doc->path(), m_config->currentText(), all, this, error);
      }))
    return false;
  emit message(tr("Sending %1 to %2…").arg(m_run->runId(), name));
  return true;
}

void RunPage::reloadClusterProfiles() {
  // The choice made now, or where this project's last run went (kept per project).
  const QString keep = m_target->count() > 0 ? chosenCluster() : studio::lastRunTarget(m_doc->path());
  const QSignalBlocker block(m_target);
  m_target->clear();
  m_target->addItem(tr("This machine"), QString());
  for (const auto& c : studio::Preferences::load().clusters) m_target->addItem(tr("Cluster: %1").arg(c.name), c.name);
  m_target->setCurrentIndex(std::max(0, m_target->findData(keep)));
  updateTarget();
}

bool RunPage::localRunBlocksStart() const {
  // This machine trains one run at a time; a cluster job, or a job sent while one trains
  // here, runs elsewhere.
  return m_run->isLive() && !m_run->cluster()->isCluster() && chosenCluster().isEmpty();
}

void RunPage::updateTarget() {
  const bool cluster = !chosenCluster().isEmpty();
  m_start->setEnabled(m_doc->isOpen() && !localRunBlocksStart());
  m_start->setText(cluster ? tr("Run on cluster (F5)") : tr("Start (F5)"));
  m_nproc->setToolTip(cluster ? tr("Ranks per node on the cluster when its profile asks for no GPUs (CPU "
                                   "ranks) or takes the config's number")
                              : tr("Worker processes on this machine (one per GPU; on a CPU, Gloo ranks)"));
}

bool RunPage::stopRun() {
  QString error;
  // The run's record is read and its process signalled off this thread: a failure there is
  // said as a refusal here is.
  const QMetaObject::Connection answer = connect(
      m_run, &RunController::stopDone, this,
      [this](const QString& why) {
        if (!why.isEmpty()) emit message(tr("Cannot stop: %1").arg(why));
      },
      Qt::SingleShotConnection);
  if (!m_run->stop(&error)) {
    disconnect(answer);
    emit message(tr("Cannot stop: %1").arg(error));
    return false;
  }
  m_outcome->setText(m_run->cluster()->isCluster()
                         ? tr("stopping: Slurm sends SIGTERM; the trainer finishes its step and writes a checkpoint…")
                         : tr("stopping: the trainer finishes its step and writes a checkpoint…"));
  return true;
}

bool RunPage::resumeRun() {
  QString error;
  // Its process is started off this thread: "Resumed" once it runs, or the refusal's words.
  const QMetaObject::Connection answer = connect(
      m_run, &RunController::launchDone, this,
      [this](const QString& why) {
        if (why.isEmpty()) {
          emit message(tr("Resumed %1").arg(m_run->runId()));
          return;
        }
        updateState();
        m_outcome->setText(tr("Cannot resume: %1").arg(why));
        emit message(m_outcome->text());
      },
      Qt::SingleShotConnection);
  if (!m_run->resume(m_moreEpochs->value(), &error)) {
    disconnect(answer);
    m_outcome->setText(tr("Cannot resume: %1").arg(error));
    emit message(m_outcome->text());
    return false;
  }
  updateState();
  return true;
}

}  // namespace stave::widgets
