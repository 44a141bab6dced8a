// The Run page's chapter on events: each new event of the run shown becomes lines in the log
// pane and the state the progress line reads; its points are the session's series store's
// (studio::SeriesStore), which the charts draw by series id — here each series the store holds
// is given its chart, name and colour (run_page.cpp builds the page and drives the run).
#include <QPlainTextEdit>
#include <QTextBlock>
#include <QTextDocument>
#include <algorithm>
#include <cmath>

#include "core/studio/engine_text.h"
#include "core/studio/hardware/hardware_advice.h"
#include "core/studio/run/run_controller.h"
#include "core/studio/run/run_session.h"
#include "core/studio/run_times.h"
#include "core/studio/models/stored_run.h"
#include "core/telemetry/hardware_names.h"
#include "widgets/live_chart.h"
#include "widgets/run_page.h"

namespace stave::widgets {

namespace tel = telemetry;

void RunPage::applyStored(studio::StoredRun& run) {
  // Its series went into the session's store (studio::SeriesStore): the page keeps its log
  // line and the per-rank state of each rank's last step.
  if (run.preview)
    m_log->appendPlainText(tr("[studio] a first look at a long run: every %1th iteration and sample, until the "
                              "history store has read its whole log (once, in the background)")
                               .arg(run.sampleEvery));
  for (const auto& s : run.samples) m_nodes = std::max(m_nodes, s.id.node + 1);
  // The progress and the per-rank split from each rank's last step.
  for (const auto& e : run.lastSteps)
    if (const auto* st = e.as<tel::StepEvent>()) m_sps = noteStep(e, *st);  // all ranks' at the end
  if (!run.lastSteps.empty()) updateSplit();
}

std::pair<LiveChart*, int> RunPage::target(studio::SeriesId id) {
  if (auto it = m_targets.find(id); it != m_targets.end()) return it->second;
  auto found = newTarget(id);
  m_targets.emplace(id, found);
  // A GPU series with points: the run's node has GPUs, their charts show.
  if (id.chart == studio::RunChart::GpuUtil || id.chart == studio::RunChart::GpuMem ||
      id.chart == studio::RunChart::GpuPower) {
    if (m_runGpu != 1) {
      m_runGpu = 1;
      relayout();
    }
  }
  return found;
}

void RunPage::bindSeries(const QVector<studio::SeriesId>& ids) {
  // Series of several nodes are named by their node: the store knows how many there are
  // before the page's handlers have seen the batch that said so.
  if (m_session) m_nodes = std::max(m_nodes, m_session->series()->nodes());
  for (const auto& id : ids)
    if (m_session && m_session->series()->find(id)) target(id);
}

void RunPage::bindAllSeries() {
  if (!m_session) return;
  const auto ids = m_session->series()->ids();
  bindSeries(QVector<studio::SeriesId>(ids.begin(), ids.end()));
}

std::pair<LiveChart*, int> RunPage::newTarget(studio::SeriesId id) {
  // Each chart's series by name and colour; what goes on them is core/studio/run_series'.
  using C = studio::RunChart;
  const int i = id.series;
  switch (id.chart) {
    case C::Losses: {
      auto* c = chart(QStringLiteral("losses"));
      const QString names[] = {tr("box"), tr("cls"), tr("dfl")};
      return {c, c->bind(id, names[std::clamp(i, 0, 2)], seriesColor(i))};
    }
    case C::EpochLosses: {
      auto* c = chart(QStringLiteral("epochLosses"));
      const QString names[] = {tr("train box"), tr("train cls"), tr("train dfl"), tr("val box"), tr("val cls"), tr("val dfl")};
      return {c, c->bind(id, names[std::clamp(i, 0, 5)], seriesColor(i))};
    }
    case C::Metrics: {
      auto* c = chart(QStringLiteral("metrics"));
      const QString names[] = {QStringLiteral("P"), QStringLiteral("R"), QStringLiteral("mAP50"), QStringLiteral("mAP50-95")};
      return {c, c->bind(id, names[std::clamp(i, 0, 3)], seriesColor(i))};
    }
    case C::Lr: {
      auto* c = chart(QStringLiteral("lr"));
      return {c, c->bind(id, QStringLiteral("pg%1").arg(i), seriesColor(i))};
    }
    case C::Speed: {
      auto* c = chart(QStringLiteral("speed"));
      return {c, c->bind(id, i == 0 ? tr("samples/s") : tr("samples/s, rank 0"), seriesColor(0))};
    }
    case C::System: {
      auto* c = chart(QStringLiteral("system"));
      // A run of several nodes: each node's CPU and memory, named by the node.
      const QString what = i == 0 ? tr("CPU") : tr("memory");
      if (m_nodes <= 1) return {c, c->bind(id, what, seriesColor(i))};
      const QString node = studio::engineText(tel::nodeNameText(id.node));
      return {c, c->bind(id, tr("%1 %2").arg(node, what), seriesColor(c->seriesCount()))};
    }
    case C::GpuUtil:
    case C::GpuMem:
    case C::GpuPower: {
      auto* c = chart(id.chart == C::GpuUtil  ? QStringLiteral("gpuUtil")
                      : id.chart == C::GpuMem ? QStringLiteral("gpuMem")
                                              : QStringLiteral("gpuPower"));
      // "GPU 3", or "node 1 GPU 3" in a run of several nodes (one name everywhere: core's).
      const QString name = studio::engineText(tel::gpuNameText(id.node, i, m_nodes > 1));
      return {c, c->bind(id, name, seriesColor(m_nodes > 1 ? c->seriesCount() : i))};
    }
  }
  return {nullptr, -1};
}

double RunPage::noteStep(const tel::Event& e, const tel::StepEvent& s) {
  // Samples/s of all ranks: the sum of the ranks' latest, at rank 0's iteration.
  m_rankSps[e.rank] = s.samplesPerSec;
  m_rankSplit[e.rank] = {s.timing.dataWait, s.timing.h2d, s.timing.fwdBwd, s.timing.allreduceWait, s.timing.optimizer};
  double total = 0;
  for (const auto& [r, v] : m_rankSps) total += v;
  if (e.rank == 0) {
    m_epoch = s.epoch;
    m_iter = s.iter;
    m_iters = s.itersPerEpoch;
    m_stepTime = s.timing.total;
    m_sps = total;
  }
  return total;
}

void RunPage::buildDispatch() {
  // What each event of the shown run does to the page: one handler per type.
  m_dispatch.on<tel::StepEvent>([this](const studio::RunEvent& e, const tel::StepEvent& s) {
    noteStep(e, s);
    m_splitChanged = true;
  });
  m_dispatch.on<tel::EpochEndEvent>([this](const studio::RunEvent&, const tel::EpochEndEvent& s) {
    m_epochs = s.epochs;
    m_epoch = s.epoch + 1;
  });
  m_dispatch.on<tel::ValidationEvent>([this](const studio::RunEvent&, const tel::ValidationEvent&) {
    m_validated = true;  // the run's val/ views were rewritten
  });
  m_dispatch.on<tel::RunStartEvent>([this](const studio::RunEvent&, const tel::RunStartEvent& r) {
    m_outcomeAt = QTextCursor();  // a new session: the outcome to come is its own
    if (r.config.contains("epochs") && r.config["epochs"].is_number_integer()) m_epochs = r.config["epochs"].get<int>();
    // Where the weights came from (model=FILE.pt / pretrained=FILE.pt); what was left at its
    // initialisation, when anything was, follows as the run's warning.
    if (r.resolved.is_object() && r.resolved.contains("weights") && r.resolved["weights"].is_object()) {
      const auto& w = r.resolved["weights"];
      const auto text = [&](const char* key) {
        return w.contains(key) && w[key].is_string() ? QString::fromStdString(w[key].get<std::string>())
                                                     : QString();
      };
      const auto number = [&](const char* key) {
        return w.contains(key) && w[key].is_number_integer() ? w[key].get<long long>() : 0LL;
      };
      m_log->appendPlainText(tr("[run] start weights: %1 of %2 items from %3 (%4)")
                                 .arg(number("transferred"))
                                 .arg(number("total"))
                                 .arg(text("from"), text("writer")));
    }
  });
  m_dispatch.on<tel::GpuSampleEvent>([this](const studio::RunEvent&, const tel::GpuSampleEvent& gs) {
    if (!gs.status.empty()) {
      // No GPU on the node: the GPU charts would stay empty; they make room for the rest.
      m_log->appendPlainText(tr("[node] %1").arg(studio::engineText(gs.statusText, gs.status)));
      if (m_runGpu != 0) {
        m_runGpu = 0;
        relayout();
      }
      return;
    }
    if (!gs.gpus.empty() && m_runGpu != 1) {
      m_runGpu = 1;
      relayout();
    }
    m_nodes = std::max({m_nodes, gs.nodes, gs.node + 1});
    for (const auto& gp : gs.gpus) m_gpuUtil[{gs.node, gp.index}] = gp.util;
  });
  m_dispatch.on<tel::SystemSampleEvent>([this](const studio::RunEvent&, const tel::SystemSampleEvent& ss) {
    m_nodes = std::max({m_nodes, ss.nodes, ss.node + 1});
  });
  m_dispatch.on<tel::StragglerEvent>([this](const studio::RunEvent&, const tel::StragglerEvent& s) {
    m_straggler = studio::engineText(s.text, s.message);
    m_log->appendPlainText(tr("[rank %1] straggler: %2").arg(s.slowRank).arg(m_straggler));
    m_splitChanged = true;
  });
  m_dispatch.on<tel::WarningEvent>([this](const studio::RunEvent& e, const tel::WarningEvent& w) {
    // Rank -1 is the launcher (a silent rank, nodes not joining, a stop request).
    const QString said = studio::engineText(w.text, w.message);
    m_log->appendPlainText(e.rank < 0 ? tr("[launcher] warning: %1").arg(said)
                                      : tr("[rank %1] warning: %2").arg(e.rank).arg(said));
  });
  m_dispatch.on<tel::ErrorEvent>([this](const studio::RunEvent&, const tel::ErrorEvent& w) {
    const QString said = studio::engineText(w.text, w.message);
    QString text = w.rank < 0 ? tr("[launcher] error: %1").arg(said)
                              : tr("[rank %1] error: %2").arg(w.rank).arg(said);
    if (!w.hint.empty()) text += tr(" — %1").arg(studio::engineText(w.hintText, w.hint));
    m_log->appendPlainText(text);
    for (const auto& line : w.logTail) m_log->appendPlainText(QStringLiteral("    ") + QString::fromStdString(line));
  });
  m_dispatch.on<tel::FinishedEvent>([this](const studio::RunEvent&, const tel::FinishedEvent& f) {
    // How the run ended, in words ("stopped during epoch 2 after 21 of 32 batches; ...").
    // The status in the studio's words (translated), as the outcome line says it.
    const auto status = f.status == tel::RunStatus::Completed      ? studio::RunOutcome::Completed
                        : f.status == tel::RunStatus::Stopped      ? studio::RunOutcome::Stopped
                        : f.status == tel::RunStatus::EarlyStopped ? studio::RunOutcome::EarlyStopped
                                                                   : studio::RunOutcome::Failed;
    QString text = tr("[run] %1 after %2 of %3 epoch(s)")
                       .arg(studio::RunController::outcomeName(status))
                       .arg(f.epochsCompleted)
                       .arg(f.epochs);
    if (!f.message.empty()) text += tr(": %1").arg(studio::engineText(f.text, f.message));
    m_log->appendPlainText(text);
    m_outcomeAt = QTextCursor(m_log->document()->lastBlock());
    // The message's times are this session's; a resumed run's are the sum of its sessions'.
    m_sessionTimes.push_back(store::sessionTimeFromFinished(f.message, f.totalTime));
    if (m_sessionTimes.size() > 1) {
      if (const QString all = studio::sessionTimesText(m_sessionTimes); !all.isEmpty())
        m_log->appendPlainText(tr("[run] the whole run: %1").arg(all));
    }
    m_epoch = f.epochsCompleted;
    if (f.epochs > 0) m_epochs = f.epochs;
  });
  m_dispatch.on<tel::DiagnosisEvent>([this](const studio::RunEvent&, const tel::DiagnosisEvent& d) {
    // The doctor's report over the whole run; the periodic ones go to the banner only.
    if (!d.final) return;
    // Written after the finished event: shown before its outcome, which ends the log.
    QStringList lines{tr("[doctor] %1").arg(studio::engineText(d.summaryText, d.summary))};
    for (const auto& f : d.findings) {
      QString line = QStringLiteral("    ") + studio::engineText(f.text, f.message);
      if (!f.advice.empty()) line += tr(" — try %1").arg(QString::fromStdString(tel::adviceText(f.advice)));
      lines << line;
    }
    logBeforeOutcome(lines);
  });
  m_dispatch.on<tel::CheckpointEvent>([this](const studio::RunEvent&, const tel::CheckpointEvent& c) {
    if (c.kind != tel::CheckpointKind::Last)
      m_log->appendPlainText(tr("[rank 0] checkpoint %1: %2").arg(QString::fromLatin1(tel::toString(c.kind)), QString::fromStdString(c.path)));
  });
}

void RunPage::onEvents(int first) {
  const auto& events = m_run->events();
  if (first == 0) {
    clearCharts();
    if (const auto stored = m_run->stored()) applyStored(*stored);
  }
  m_splitChanged = m_validated = false;
  for (size_t i = static_cast<size_t>(first); i < events.size(); ++i) m_dispatch(events[i]);
  // The store took this batch's points first (the session's handler runs before the page's);
  // the charts were cleared above for a run from its start: every series it holds is bound.
  if (first == 0) bindAllSeries();
  if (m_splitChanged) scheduleSplit();  // at most once a second, not while hidden
  if (m_validated) updateValidation(true);
  m_advice->consider(events, static_cast<size_t>(first));
  if (!m_advice->problem().isEmpty() && m_advice->problem() != m_adviceProblem)
    logBeforeOutcome({tr("[studio] %1").arg(m_advice->problem())});
  m_adviceProblem = m_advice->problem();
  updateState();
}

}  // namespace stave::widgets
