#pragma once
// The Run page: start, stop and resume a run of the open project (F5, Shift+F5), its progress
// and outcome, and live charts fed from the run's events: losses per iteration and per epoch,
// validation metrics, learning rates, samples/s, per-GPU utilisation / memory / power, CPU
// and memory, the per-rank step time split (the straggler named), and a log of warnings and
// errors. Runs outlive the window; reopening the project reattaches to a run still going.
// Above the charts, a banner shows the doctor's most severe finding of the run (its latest
// diagnosis event) with Apply… (a new config with the advised change) and Details.
#include <QVector>
#include <QWidget>
#include <array>
#include <functional>
#include <map>

#include "core/studio/run/run_controller.h"
#include "core/studio/models/stored_run.h"
#include "core/studio/models/run_event.h"
#include "core/studio/run/run_folders.h"
#include "core/store/session_time.h"
#include <QTextCursor>

class QComboBox;
class QGridLayout;
class QLabel;
class QLayout;
class QPlainTextEdit;
class QPushButton;
class QSlider;
class QSpinBox;
class QTabWidget;
class QTimer;
class QCustomPlot;
class QCPRange;
class QCPBars;
class QCPItemText;

namespace stave::studio {
class BackgroundJob;
class DoctorAdvice;
class ProjectDocument;
class RunSession;
class RunSessions;
struct StoredRun;
}  // namespace stave::studio

namespace stave::widgets {

class FindingCard;
class ChartClock;
class LiveChart;
class ValidationView;

class RunPage : public QWidget {
  Q_OBJECT
 public:
  /// Follows runs through `sessions` (the studio's, shared with the queue: one reader per run
  /// folder); null: a registry of its own.
  explicit RunPage(studio::ProjectDocument* doc, studio::RunSessions* sessions = nullptr,
                   QWidget* parent = nullptr);

  /// The shown run's controller (its session's; an idle one when no run is shown).
  studio::RunController* controller() const { return m_run; }
  /// The shown run's session (nullptr when none is shown).
  studio::RunSession* session() const { return m_session; }
  /// The registry the page follows runs through.
  studio::RunSessions* sessions() const { return m_sessions; }
  /// Shows no run (the project closes; the runs go on).
  void showNoRun();
  /// The charts by their object name ("losses", "metrics", "gpuUtil", ...).
  LiveChart* chart(const QString& name) const;
  /// The one timer that refreshes the page's charts.
  ChartClock* chartClock() const { return m_clock; }
  /// Whether this machine has GPUs (the GPU charts show for a run not yet sampling only then).
  void setMachineHasGpu(bool has);
  /// True while the GPU charts are shown.
  bool gpuChartsShown() const;
  QCustomPlot* splitChart() const { return m_split; }
  QPushButton* startButton() const { return m_start; }
  /// Where Start sends the run: this machine (item 0) or a cluster profile (its name as data).
  QComboBox* targetBox() const { return m_target; }
  /// The shown cluster run's Slurm job and its state (hidden for a local run).
  QLabel* clusterJobLabel() const { return m_job; }
  /// Lists the cluster profiles of the preferences again (after Settings).
  void reloadClusterProfiles();
  QPushButton* stopButton() const { return m_stop; }
  QPushButton* resumeButton() const { return m_resume; }
  QLabel* outcomeLabel() const { return m_outcome; }
  /// The run's progress line (id, epoch, iteration, samples/s, ETA).
  QLabel* progressLabel() const { return m_progress; }
  QPlainTextEdit* logView() const { return m_log; }
  /// The tabs above the log: Charts, Validation.
  QTabWidget* viewTabs() const { return m_views; }
  /// The smoothing of the per-iteration charts (0..99 hundredths).
  QSlider* smoothingSlider() const { return m_smoothing; }
  /// The shown run's validation views (read when its tab is shown).
  ValidationView* validationView() const { return m_validation; }
  /// Latest GPU utilisation per GPU, keyed (node, index) (for the status bar), empty = no GPU
  /// seen; runNodes() > 1: a run of several nodes (its GPUs are named with their node).
  std::map<std::pair<int, int>, double> gpuUtilisation() const { return m_gpuUtil; }
  int runNodes() const { return m_nodes; }
  /// A line for the status bar: the run and what it does.
  QString statusText() const;
  /// The config and worker-process count chosen for the next run (the queue takes them too).
  QString chosenConfig() const;
  int chosenNproc() const;
  /// The doctor's latest diagnosis of the shown run.
  studio::DoctorAdvice* advice() const { return m_advice; }
  /// The banner with the most severe finding (hidden when there is none).
  FindingCard* banner() const { return m_banner; }
  /// Asked for the name of the config Apply makes; replaceable by tests. "" cancels.
  std::function<QString(const QString& suggestion)> askConfigName;
  /// Apply on the banner: a new config with the most severe finding's advice.
  bool applyBannerAdvice();

  /// Starts a run of the chosen config — on this machine, or sent to the chosen cluster; false
  /// with the reason in the outcome label.
  bool startRun();
  bool stopRun();
  bool resumeRun();
  /// Follows a run folder of the project (reattach).
  bool showRun(const QString& runDir);
  /// True while the samples of a zoomed range of a run opened from the store are being read.
  bool detailLoading() const;

 signals:
  void message(const QString& text);
  /// Progress, outcome or GPU readings changed.
  void statusChanged();
  /// The banner's Details was pressed: show every finding.
  void detailsRequested();
  /// Another run (or none) is shown: controller() and session() changed.
  void shownRunChanged();

 private:
  // The parts of the page, built once by the constructor (run_page.cpp; the charts in
  // run_page_charts.cpp).
  QLayout* buildRunBar();
  QLayout* buildStatusRow();
  /// The Charts tab: the chart grid in a scroll area under the smoothing slider.
  QWidget* buildChartsTab();
  void createCharts(QWidget* grid);
  /// The per-rank step time split: stacked bars of the five phases.
  void createSplitChart(QWidget* grid);
  /// Charts over the same x pan and zoom together.
  void linkChartRanges();
  QLayout* buildSmoothingRow(QWidget* tab);
  /// F5, Shift+F5, the buttons and the run list.
  void connectControls();
  void connectRunAndProject();
  void projectOpened();
  /// Lists the project's run folders on m_scan; runsListed() fills the list.
  void refreshRunList();
  void runsListed(const studio::RunFolders& found);
  void onEvents(int first);
  /// A step's per-rank split and samples/s, and rank 0's progress; returns the ranks' summed
  /// samples/s.
  double noteStep(const telemetry::Event& e, const telemetry::StepEvent& s);
  /// Registers what each event type does to the page (m_dispatch).
  void buildDispatch();
  /// What the history store holds of the run besides its series (those went into the
  /// session's store): a first look's line in the log, each rank's last step.
  void applyStored(studio::StoredRun& run);
  /// The chart and series that draw `id` of the session's store (added, named and coloured,
  /// when new).
  std::pair<LiveChart*, int> target(studio::SeriesId id);
  std::pair<LiveChart*, int> newTarget(studio::SeriesId id);
  /// The session's store has points of `ids`: each gets its chart (the chart replots itself).
  void bindSeries(const QVector<studio::SeriesId>& ids);
  /// Every series the store holds gets its chart (the charts were cleared, or the page shows a
  /// run another view had read).
  void bindAllSeries();
  /// A time chart was zoomed or panned to `r`: within the stored part of a run opened from the
  /// store, its samples are read at full resolution (soon, once the view settles).
  void wantDetail(LiveChart* chart, const QCPRange& r);
  void fetchDetail();
  void clearCharts();
  void updateState();
  /// Whether Start must wait: a local run lives and the next would train here too.
  bool localRunBlocksStart() const;
  /// Start's words for the chosen target ("Start (F5)", "Run on cluster (F5)").
  void updateTarget();
  /// The cluster profile chosen in On ("" = this machine).
  QString chosenCluster() const;
  /// Switches the page to a new run that `start` begins; when it cannot, shows the run shown
  /// before and `refusal` (with %1 the reason). Remembers where the run went.
  bool beginRun(const QString& refusal, const std::function<studio::RunSession*(QString*)>& start);
  /// Follows `session` (released: the one shown before), connecting its signals.
  void setSession(studio::RunSession* session);
  /// Sends the chosen config to the chosen cluster (startRun's second half).
  bool submitRun(const QStringList& overrides);
  void updateSplit();
  /// The per-rank split changed: drawn within a second (at most once a second while a run is
  /// followed), or when it is shown if it is not.
  void scheduleSplit();
  /// Draws a changed split if it is shown.
  void drawSplitIfShown();
  bool eventFilter(QObject* watched, QEvent* event) override;
  void relayout();
  void updateBanner();
  /// Re-reads the validation views when they are shown and `changed` (or changed before).
  void updateValidation(bool changed = false);

  studio::ProjectDocument* m_doc;
  studio::RunSessions* m_sessions;
  studio::RunSession* m_session = nullptr;  ///< the shown run's, held by the page
  studio::RunController* m_idle;             ///< what controller() is while no run is shown
  studio::RunController* m_run;              ///< the shown run's controller, or m_idle
  studio::BackgroundJob* m_scan;    ///< lists the run folders (file work off the GUI thread)
  studio::BackgroundJob* m_logJob;  ///< reads a failed run's log tail
  QTimer* m_detailTimer = nullptr;     ///< the view settled: its range is asked for
  double m_detailWantLo = 0, m_detailWantHi = -1;  ///< the range asked for
  int m_detailColumns = 0;                         ///< and the asking chart's width
  bool m_attachOnScan = false;      ///< the next listing picks the run to show (project opened)
  QComboBox* m_config = nullptr;
  QSpinBox* m_nproc = nullptr;
  QComboBox* m_target = nullptr;
  QLabel* m_job = nullptr;
  QComboBox* m_runs = nullptr;
  QPushButton* m_start = nullptr;
  QPushButton* m_stop = nullptr;
  QPushButton* m_resume = nullptr;
  QSpinBox* m_moreEpochs = nullptr;
  QLabel* m_progress = nullptr;
  QLabel* m_outcome = nullptr;
  QPlainTextEdit* m_log = nullptr;
  /// Where the log's outcome lines ("[run] failed after ...") of the run's last session begin
  /// (null before its finished event): a failure's log tail goes before them, so the outcome
  /// stays the last thing the log says.
  QTextCursor m_outcomeAt;
  /// Each ended session's times (its finished event's), in order: a resumed run's totals.
  std::vector<store::SessionTime> m_sessionTimes;
  /// The log tail of a failure, once read, is shown before the outcome lines.
  void showLogTail(const studio::LogTail& tail);
  /// Adds `lines` to the log before the last session's outcome lines (at the end before its
  /// finished event): what is said of a run that has ended comes before how it ended.
  void logBeforeOutcome(const QStringList& lines);
  QTabWidget* m_views = nullptr;
  QSlider* m_smoothing = nullptr;  ///< moving average of the per-iteration charts, 0..0.99
  ValidationView* m_validation = nullptr;
  bool m_validationStale = true;  ///< the shown views are not the run folder's latest
  studio::DoctorAdvice* m_advice = nullptr;
  ChartClock* m_clock = nullptr;  ///< the one timer that refreshes the charts
  FindingCard* m_banner = nullptr;
  QString m_adviceProblem;  ///< the advice's problem already logged
  std::map<QString, LiveChart*> m_charts;
  std::map<studio::SeriesId, std::pair<LiveChart*, int>> m_targets;  ///< target()'s, until the charts are cleared
  QCustomPlot* m_split = nullptr;
  QGridLayout* m_grid = nullptr;
  std::vector<QWidget*> m_order;
  /// Whether the shown run's node has GPUs: -1 not known yet (no sample), 0 it reported none,
  /// 1 it sampled GPUs. Unknown: as this machine (a run about to start here).
  int m_runGpu = -1;
  QCPItemText* m_splitEmpty = nullptr;
  bool m_machineGpu = false;  ///< this machine has an NVIDIA GPU (as the queue last measured)
  // Per-rank latest step split, and the straggler's message.
  std::map<int, std::array<double, 5>> m_rankSplit;
  QString m_straggler;
  std::map<std::pair<int, int>, double> m_gpuUtil;
  int m_nodes = 1;  ///< the shown run's nodes, as its samples say (GPU names carry the node when > 1)
  int m_epoch = 0, m_epochs = 0, m_iter = 0, m_iters = 0;
  double m_sps = 0, m_stepTime = 0;
  std::map<int, double> m_rankSps;
  studio::RunOutcome m_lastOutcome = studio::RunOutcome::None;
  studio::RunEventDispatch m_dispatch;  ///< one handler per event type of the shown run (decoded by its reader)
  bool m_splitChanged = false;          ///< set by the handlers of one batch of events
  bool m_splitStale = false;            ///< the split changed since it was drawn
  QTimer* m_splitTimer = nullptr;       ///< draws a changed split (a second after the change)
  bool m_validated = false;
  bool m_lastLive = false;
};

}  // namespace stave::widgets
