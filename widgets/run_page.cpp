// The Run page: the page itself (the run bar, progress and outcome, the doctor's banner, the
// tabs and the log), the project's run list and the progress line. Starting, stopping and
// resuming runs are in run_page_control.cpp; the charts are built and cleared in
// run_page_charts.cpp; the run's events become log lines in run_page_events.cpp.
#include "widgets/run_page.h"

#include <qcustomplot.h>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <array>
#include <cmath>

#include "core/store/store.h"
#include "core/studio/background_job.h"
#include "core/studio/run/cluster_job.h"
#include "core/studio/hardware/hardware_advice.h"
#include "core/studio/project/preferences.h"
#include "core/studio/project/preflight.h"
#include "core/studio/project/project_document.h"
#include "core/studio/run/run_controller.h"
#include "core/studio/run/run_folders.h"
#include "core/studio/run/run_session.h"
#include "core/studio/run_times.h"
#include "widgets/chart_clock.h"
#include "widgets/live_chart.h"
#include "widgets/diagnosis_banner.h"
#include "widgets/fetch_weights_button.h"
#include "widgets/validation_view.h"

namespace stave::widgets {

using studio::RunController;
using studio::RunOutcome;
namespace tel = telemetry;

namespace {
QString duration(double s) {
  if (!(s >= 0) || !std::isfinite(s)) return QStringLiteral("—");
  const qint64 t = static_cast<qint64>(std::llround(s));
  if (t >= 3600)
    return QStringLiteral("%1:%2:%3")
        .arg(t / 3600)
        .arg((t / 60) % 60, 2, 10, QLatin1Char('0'))
        .arg(t % 60, 2, 10, QLatin1Char('0'));
  return QStringLiteral("%1:%2").arg(t / 60).arg(t % 60, 2, 10, QLatin1Char('0'));
}
}  // namespace

RunPage::RunPage(studio::ProjectDocument* doc, studio::RunSessions* sessions, QWidget* parent)
    : QWidget(parent),
      m_doc(doc),
      m_sessions(sessions ? sessions : new studio::RunSessions(this)),
      m_idle(new RunController(this)),
      m_run(m_idle),
      m_scan(new studio::BackgroundJob(this)),
      m_logJob(new studio::BackgroundJob(this)),
      m_advice(new studio::DoctorAdvice(this)),
      m_clock(new ChartClock(this)) {
  m_detailTimer = new QTimer(this);
  m_detailTimer->setSingleShot(true);
  m_detailTimer->setInterval(250);
  connect(m_detailTimer, &QTimer::timeout, this, &RunPage::fetchDetail);
  askConfigName = [this](const QString& suggestion) {
    bool ok = false;
    const QString name =
        QInputDialog::getText(this, tr("New config from the doctor's advice"),
                              tr("Name of the new config:"), QLineEdit::Normal, suggestion, &ok);
    return ok ? name.trimmed() : QString();
  };
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(buildRunBar());
  layout->addLayout(buildStatusRow());

  m_banner = new FindingCard(this);
  m_banner->setObjectName(QStringLiteral("diagnosisBanner"));
  m_banner->setDetailsVisible(true);
  m_banner->setVisible(false);
  layout->addWidget(m_banner);
  connect(m_banner, &FindingCard::applyClicked, this, [this] { applyBannerAdvice(); });
  connect(m_banner, &FindingCard::detailsClicked, this, &RunPage::detailsRequested);
  connect(m_advice, &studio::DoctorAdvice::changed, this, &RunPage::updateBanner);

  auto* split = new QSplitter(Qt::Vertical, this);
  m_views = new QTabWidget(split);
  m_views->setObjectName(QStringLiteral("runViews"));
  m_views->addTab(buildChartsTab(), tr("Charts"));
  // The split is drawn at most once a second while a run is followed, and not while hidden.
  m_splitTimer = new QTimer(this);
  m_splitTimer->setSingleShot(true);
  m_splitTimer->setInterval(1000);
  connect(m_splitTimer, &QTimer::timeout, this, &RunPage::drawSplitIfShown);
  m_split->installEventFilter(this);
  m_validation = new ValidationView(m_views);
  m_validation->setObjectName(QStringLiteral("runValidation"));
  m_views->addTab(m_validation, tr("Validation"));
  // The views are read when they are looked at: after a validation, or on choosing the tab.
  connect(m_views, &QTabWidget::currentChanged, this, [this] { updateValidation(); });
  m_log = new QPlainTextEdit(split);
  m_log->setObjectName(QStringLiteral("runLog"));
  m_log->setReadOnly(true);
  m_log->setMaximumBlockCount(5000);
  m_log->setPlaceholderText(tr("Warnings and errors of the run appear here."));
  split->setStretchFactor(0, 5);
  split->setStretchFactor(1, 1);
  layout->addWidget(split, 1);

  connectControls();
  buildDispatch();
  connectRunAndProject();
  updateState();
}

QLayout* RunPage::buildRunBar() {
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Config"), this));
  m_config = new QComboBox(this);
  m_config->setObjectName(QStringLiteral("runConfig"));
  bar->addWidget(m_config);
  bar->addWidget(new QLabel(tr("Processes"), this));
  m_nproc = new QSpinBox(this);
  m_nproc->setObjectName(QStringLiteral("runNproc"));
  m_nproc->setRange(1, 64);
  m_nproc->setToolTip(tr("Worker processes on this machine (one per GPU; on a CPU, Gloo ranks)"));
  bar->addWidget(m_nproc);
  bar->addWidget(new QLabel(tr("On"), this));
  m_target = new QComboBox(this);
  m_target->setObjectName(QStringLiteral("runTarget"));
  m_target->setToolTip(tr("Train on this machine, or send the run to a cluster (cluster profiles: "
                          "Settings ▸ Clusters)"));
  bar->addWidget(m_target);
  m_start = new QPushButton(tr("Start (F5)"), this);
  m_start->setObjectName(QStringLiteral("runStart"));
  m_stop = new QPushButton(tr("Stop (Shift+F5)"), this);
  m_stop->setObjectName(QStringLiteral("runStop"));
  m_resume = new QPushButton(tr("Resume"), this);
  m_resume->setObjectName(QStringLiteral("runResume"));
  m_moreEpochs = new QSpinBox(this);
  m_moreEpochs->setRange(0, 100000);
  m_moreEpochs->setSpecialValueText(tr("same epochs"));
  m_moreEpochs->setPrefix(tr("epochs "));
  m_moreEpochs->setToolTip(tr("Resume with this many epochs in all (0 keeps the run's own)"));
  bar->addWidget(m_start);
  bar->addWidget(m_stop);
  bar->addWidget(m_resume);
  bar->addWidget(m_moreEpochs);
  // A run behind SSH: its checkpoints come here only when asked.
  auto* fetch = new FetchWeightsButton(this);
  connect(fetch, &FetchWeightsButton::message, this, [this](const QString& text) {
    m_log->appendPlainText(tr("[weights] %1").arg(text));
    emit message(text);
  });
  bar->addWidget(fetch);
  bar->addSpacing(12);
  bar->addWidget(new QLabel(tr("Run"), this));
  m_runs = new QComboBox(this);
  m_runs->setObjectName(QStringLiteral("runList"));
  m_runs->setMinimumContentsLength(18);
  m_runs->setToolTip(tr("Show another run of the project"));
  bar->addWidget(m_runs, 1);
  return bar;
}

QLayout* RunPage::buildStatusRow() {
  auto* status = new QHBoxLayout;
  m_progress = new QLabel(this);
  m_progress->setObjectName(QStringLiteral("runProgress"));
  m_outcome = new QLabel(this);
  m_outcome->setObjectName(QStringLiteral("runOutcome"));
  m_outcome->setWordWrap(true);
  m_outcome->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_job = new QLabel(this);
  m_job->setObjectName(QStringLiteral("clusterJob"));
  m_job->setWordWrap(true);
  m_job->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_job->setVisible(false);
  status->addWidget(m_progress, 1);
  status->addWidget(m_job, 1);
  status->addWidget(m_outcome, 1);
  return status;
}

void RunPage::connectControls() {
  auto* f5 = new QShortcut(QKeySequence(Qt::Key_F5), this);
  f5->setContext(Qt::WindowShortcut);
  f5->setWhatsThis(tr("Run ▸ Start"));
  connect(f5, &QShortcut::activated, this, [this] { startRun(); });
  auto* sf5 = new QShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5), this);
  sf5->setContext(Qt::WindowShortcut);
  sf5->setWhatsThis(tr("Run ▸ Stop"));
  connect(sf5, &QShortcut::activated, this, [this] { stopRun(); });
  connect(m_start, &QPushButton::clicked, this, [this] { startRun(); });
  connect(m_stop, &QPushButton::clicked, this, [this] { stopRun(); });
  connect(m_resume, &QPushButton::clicked, this, [this] { resumeRun(); });
  connect(m_target, &QComboBox::currentIndexChanged, this, &RunPage::updateTarget);
  reloadClusterProfiles();
  connect(m_runs, &QComboBox::activated, this, [this](int i) {
    const QString dir = m_runs->itemData(i).toString();
    if (!dir.isEmpty() && dir != m_run->runDir()) showRun(dir);
  });
}

void RunPage::setSession(studio::RunSession* session) {
  if (session == m_session) return;
  disconnect(m_run, nullptr, this, nullptr);
  disconnect(m_run->cluster(), nullptr, this, nullptr);
  studio::RunSession* old = m_session;
  m_session = session;
  m_run = session ? session->controller() : m_idle;
  // The charts draw the session's series (its store holds the points, for every view).
  for (auto& [name, c] : m_charts) c->setStore(session ? session->series() : nullptr);
  if (old) {
    disconnect(old->series(), nullptr, this, nullptr);
    disconnect(old, nullptr, this, nullptr);
  }
  if (session) {
    connect(session->series(), &studio::SeriesStore::seriesChanged, this, &RunPage::bindSeries);
    connect(session, &studio::RunSession::detailFailed, this, [this](const QString& error) {
      m_log->appendPlainText(tr("[studio] cannot read the samples of the zoomed range: %1").arg(error));
    });
  }
  connect(m_run, &RunController::eventsAppended, this, &RunPage::onEvents);
  connect(m_run, &RunController::stateChanged, this, &RunPage::updateState);
  connect(m_run, &RunController::warning, this, [this](const QString& w) {
    m_log->appendPlainText(tr("[studio] %1").arg(w));
    emit message(w);
  });
  // A cluster run's folder exists once sbatch took the job: list it then.
  connect(m_run->cluster(), &studio::ClusterJob::submitted, this, &RunPage::refreshRunList);
  m_sessions->release(old, this);
  emit shownRunChanged();
}

void RunPage::showNoRun() {
  setSession(nullptr);
  clearCharts();
  updateState();
}

void RunPage::connectRunAndProject() {
  connect(m_doc, &studio::ProjectDocument::opened, this, &RunPage::projectOpened);
  connect(m_doc, &studio::ProjectDocument::configsChanged, this, [this] {
    const QString keep = m_config->currentText();
    m_config->clear();
    m_config->addItems(m_doc->configNames());
    m_config->setCurrentText(keep.isEmpty() ? m_doc->activeConfig() : keep);
  });
}

void RunPage::projectOpened() {
  m_config->clear();
  m_config->addItems(m_doc->configNames());
  m_config->setCurrentText(m_doc->activeConfig());
  if (const auto* cfg = m_doc->config(m_doc->activeConfig()))
    m_nproc->setValue(static_cast<int>(std::max<int64_t>(1, cfg->getInt("nproc"))));
  // Where this project's last run went; a project that never ran starts on this machine.
  if (m_target->count() > 0) {
    const QSignalBlocker block(m_target);
    m_target->setCurrentIndex(std::max(0, m_target->findData(studio::lastRunTarget(m_doc->path()))));
    updateTarget();
  }
  setSession(nullptr);
  m_sessions->setStorePath(m_doc->isOpen() ? QString::fromStdString(store::Store::defaultPath(
                                                 QFileInfo(m_doc->path()).absolutePath().toStdString()))
                                           : QString());
  clearCharts();
  updateState();
  // Which run to show is decided when the runs folder has been read (off the GUI thread),
  // unless the user starts or picks one first.
  m_attachOnScan = true;
  refreshRunList();
}

void RunPage::refreshRunList() {
  if (!m_doc->isOpen()) {
    m_runs->clear();
    return;
  }
  const QString folder = QFileInfo(m_doc->path()).absolutePath();
  m_scan->run<studio::RunFolders>([folder] { return studio::listRunFolders(folder); },
                                  [this](studio::RunFolders found) { runsListed(found); });
}

void RunPage::runsListed(const studio::RunFolders& found) {
  if (!m_doc->isOpen()) return;
  const QString current = m_run->runDir();
  m_runs->clear();
  for (const auto& r : found.runs)
    m_runs->addItem(r.live ? tr("%1 (running)").arg(r.name)
                    : r.cluster ? tr("%1 (cluster)").arg(r.name)
                                : r.name,
                    r.dir);
  const int i = m_runs->findData(current);
  if (i >= 0) m_runs->setCurrentIndex(i);
  if (!m_attachOnScan) return;
  m_attachOnScan = false;
  // A run still going (started by an earlier studio, or headless from here): reattach.
  if (!found.live.isEmpty()) {
    showRun(found.live.last());
    emit message(
        tr("Reattached to %1, still running").arg(QFileInfo(found.live.last()).fileName()));
  } else if (!found.cluster.isEmpty()) {
    // A cluster run whose job was not seen ending: follow it and ask Slurm again.
    showRun(found.cluster.last());
    emit message(tr("Following %1 on the cluster").arg(QFileInfo(found.cluster.last()).fileName()));
  } else if (m_runs->count() > 0) {
    showRun(m_runs->itemData(0).toString());  // the newest, with its final state
  }
}

bool RunPage::showRun(const QString& runDir) {
  m_attachOnScan = false;  // a run chosen now is the one shown
  clearCharts();
  QString error;
  studio::RunSession* shown = m_session;
  // A run another view follows already: its store holds the points, its events the rest.
  studio::RunSession* existing = m_sessions->find(runDir);
  const int replays = existing ? existing->replays() : 0;
  studio::RunSession* session = m_sessions->follow(runDir, this, studio::RunSessions::Need::Charts, &error);
  if (!session) {
    m_outcome->setText(error);
    return false;
  }
  if (session == shown) m_run->reread();  // shown again from its first event
  setSession(session);
  // Not read again for this page (no replay): it takes the run as read so far.
  if (existing && session == existing && session != shown && session->replays() == replays &&
      session->controller()->hasRead())
    onEvents(0);
  refreshRunList();
  updateState();
  return true;
}

void RunPage::updateValidation(bool changed) {
  m_validationStale = m_validationStale || changed;
  if (m_views->currentWidget() != m_validation || !m_validationStale) return;
  m_validationStale = false;
  const QString dir = m_run->runDir();
  if (dir.isEmpty()) {
    m_validation->clear(tr("No run shown"));
    return;
  }
  m_validation->showFolders({QDir(dir).filePath(QStringLiteral("val"))},
                            {QFileInfo(dir).fileName()});
}

void RunPage::scheduleSplit() {
  m_splitStale = true;
  if (!m_splitTimer->isActive()) m_splitTimer->start();
}

void RunPage::drawSplitIfShown() {
  if (!m_splitStale || !ChartClock::drawsNow(m_split)) return;  // hidden: drawn when shown
  m_splitStale = false;
  updateSplit();
}

bool RunPage::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_split && event->type() == QEvent::Show) drawSplitIfShown();
  return QWidget::eventFilter(watched, event);
}

void RunPage::updateBanner() {
  const int best = m_advice->mostSevere();
  if (best < 0 || m_run->runDir().isEmpty()) {
    m_banner->setVisible(false);
    return;
  }
  const int others = static_cast<int>(m_advice->findings().size()) - 1;
  m_banner->setFinding(m_advice->findings()[static_cast<size_t>(best)],
                       others > 0 ? tr("more findings: %1 (Details)").arg(others) : QString());
  m_banner->setVisible(true);
}

bool RunPage::applyBannerAdvice() {
  QString message;
  const bool made = applyFinding(m_doc, m_advice, m_advice->mostSevere(), askConfigName, &message);
  if (!message.isEmpty()) emit this->message(message);
  return made;
}

void RunPage::updateState() {
  const bool open = m_doc->isOpen();
  const bool live = m_run->isLive();
  const auto o = m_run->outcome();
  m_start->setEnabled(open && !localRunBlocksStart());
  m_stop->setEnabled(live);
  // Resume continues from a checkpoint: a run that never wrote one (a job cancelled while it
  // pended, a run that failed before its first epoch) has nothing to resume.
  m_resume->setEnabled(!live && !m_run->runDir().isEmpty() && m_run->hasCheckpoint() &&
                       (o == RunOutcome::Stopped || o == RunOutcome::Crashed ||
                        o == RunOutcome::Failed || o == RunOutcome::FailedToStart ||
                        o == RunOutcome::Completed || o == RunOutcome::EarlyStopped));
  m_resume->setToolTip(!live && !m_run->runDir().isEmpty() && !m_run->hasCheckpoint()
                           ? tr("This run wrote no checkpoint: there is nothing to resume; start it again")
                           : QString());
  m_moreEpochs->setEnabled(m_resume->isEnabled());
  m_job->setVisible(!m_run->runDir().isEmpty() && m_run->cluster()->isCluster());
  m_job->setText(m_run->cluster()->describe());
  if (auto* fetch = findChild<FetchWeightsButton*>(QString(), Qt::FindDirectChildrenOnly))
    fetch->setRun(m_run->runDir(), m_run->cluster()->isCluster() && m_run->cluster()->record().overSsh);
  if (m_run->runDir().isEmpty()) {
    m_progress->setText(open ? tr("No run yet: press Start (F5).")
                             : tr("Open a project to train."));
    m_outcome->clear();
  } else {
    QString p = tr("<b>%1</b>").arg(m_run->runId().toHtmlEscaped());
    if (m_epochs > 0) {
      // While it trains: the epoch in progress. Once ended: how many epochs are done (an
      // "epoch 1/3" after a stop read as if it were still in epoch 1).
      if (live)
        p += tr(" · epoch %1/%2").arg(std::min(m_epoch + 1, m_epochs)).arg(m_epochs);
      else
        p += tr(" · %1 of %2 epoch(s) done").arg(std::min(m_epoch, m_epochs)).arg(m_epochs);
    }
    if (m_iters > 0 && live) p += tr(" · iteration %1/%2").arg(m_iter + 1).arg(m_iters);
    if (m_sps > 0) p += tr(" · %1 samples/s").arg(m_sps, 0, 'f', 1);
    if (live && m_stepTime > 0 && m_epochs > 0 && m_iters > 0) {
      const double left =
          (double(m_epochs - m_epoch - 1) * m_iters + (m_iters - m_iter - 1)) * m_stepTime;
      p += tr(" · ETA %1 (training steps)").arg(duration(left));
    }
    m_progress->setText(p);
    QString text = m_run->outcomeText();
    if (!m_run->outcomeHint().isEmpty()) text += tr(" — %1").arg(m_run->outcomeHint());
    // How long it trained, every session together (a resumed run's last session is a part).
    // A failure's own message already says its one session's times.
    if (!live && (o == RunOutcome::Completed || o == RunOutcome::Stopped || o == RunOutcome::EarlyStopped ||
                  (m_sessionTimes.size() > 1 && o != RunOutcome::Running && o != RunOutcome::Starting)))
      if (const QString times = studio::sessionTimesText(m_sessionTimes); !times.isEmpty())
        text += tr(" · %1").arg(times);
    m_outcome->setText(tr("Outcome: %1").arg(text));
    QPalette pal = m_outcome->palette();
    pal.setColor(QPalette::WindowText, o == RunOutcome::Failed || o == RunOutcome::Crashed ||
                                               o == RunOutcome::FailedToStart
                                           ? QColor(176, 0, 32)
                                           : palette().color(QPalette::WindowText));
    m_outcome->setPalette(pal);
  }
  if (o != m_lastOutcome || live != m_lastLive) {
    // The run list marks live runs: it follows both the outcome and the process (a stopped
    // run's outcome is known a moment before its process has gone).
    const bool outcomeChanged = o != m_lastOutcome;
    m_lastOutcome = o;
    m_lastLive = live;
    refreshRunList();
    if (!outcomeChanged) {
      emit statusChanged();
      return;
    }
    if (o == RunOutcome::Crashed || o == RunOutcome::Failed || o == RunOutcome::FailedToStart) {
      // The last lines the process wrote: rank 0's log (with a launcher), else its stderr,
      // read off the GUI thread (a day-long log is large).
      const QString dir = m_run->runDir();
      m_logJob->run<studio::LogTail>(
          [dir] { return studio::runLogTail(dir, 10); },
          [this, dir](studio::LogTail tail) {
            if (dir == m_run->runDir()) showLogTail(tail);
          });
    }
  }
  emit statusChanged();
}

void RunPage::showLogTail(const studio::LogTail& tail) {
  // Only for a run that still ended badly: a process seen ended before its final event was
  // read ends completed after all, and on a clean end the log's last lines are noise.
  const auto o = m_run->outcome();
  if (o != RunOutcome::Crashed && o != RunOutcome::Failed && o != RunOutcome::FailedToStart) return;
  QStringList lines;
  if (!tail.lines.isEmpty()) {
    lines << tr("[studio] last lines of %1:").arg(tail.file);
    for (const QString& line : tail.lines) lines << QStringLiteral("    ") + line;
  }
  if (!m_outcomeAt.isNull()) {
    logBeforeOutcome(lines);
    return;
  }
  // No finished event (killed, crashed, never started): the outcome is the studio's; it ends the log.
  for (const QString& line : lines) m_log->appendPlainText(line);
  m_log->appendPlainText(tr("[run] %1").arg(m_run->outcomeText()));
}

void RunPage::logBeforeOutcome(const QStringList& lines) {
  if (lines.isEmpty()) return;
  if (m_outcomeAt.isNull()) {
    for (const QString& line : lines) m_log->appendPlainText(line);
    return;
  }
  // Before the outcome lines of the finished event, which stay the log's last words.
  QTextCursor at(m_outcomeAt);
  at.movePosition(QTextCursor::StartOfBlock);
  at.insertText(lines.join(QLatin1Char('\n')) + QLatin1Char('\n'));
  m_log->moveCursor(QTextCursor::End);
  m_log->ensureCursorVisible();
}

QString RunPage::statusText() const {
  if (m_run->runDir().isEmpty()) return {};
  return tr("%1: %2").arg(m_run->runId(), RunController::outcomeName(m_run->outcome()));
}

}  // namespace stave::widgets
