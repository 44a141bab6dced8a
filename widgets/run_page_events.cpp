// The Run page's chapter on events: each new event of the run shown becomes points on the
// charts, lines in the log pane and the state the progress line reads (run_page.cpp builds the
// page and drives the run).
#include <QPlainTextEdit>
#include <cmath>

#include "core/studio/hardware_advice.h"
#include "core/studio/run_controller.h"
#include "widgets/live_chart.h"
#include "widgets/run_page.h"

namespace stave::widgets {

namespace tel = telemetry;

void RunPage::onEvents(int first) {
  const auto& events = m_run->events();
  if (first == 0) clearCharts();
  namespace et = tel::event_type;
  bool splitChanged = false;
  bool validated = false;  // the run's val/ views were rewritten
  // Samples/s of all ranks: the sum of the ranks' latest, at rank 0's iteration.
  auto& rankSps = m_rankSps;
  if (first == 0) rankSps.clear();
  for (size_t i = static_cast<size_t>(first); i < events.size(); ++i) {
    const auto& e = events[i];
    if (m_t0 == 0) m_t0 = e.time;
    const double t = e.time - m_t0;
    if (e.type == et::kStep) {
      auto s = tel::stepFromEvent(e);
      if (!s) continue;
      const double it = double(s->epoch) * s->itersPerEpoch + s->iter;
      rankSps[e.rank] = s->samplesPerSec;
      m_rankSplit[e.rank] = {s->timing.dataWait, s->timing.h2d, s->timing.fwdBwd,
                             s->timing.allreduceWait, s->timing.optimizer};
      splitChanged = true;
      if (e.rank != 0) continue;
      auto* c = chart(QStringLiteral("losses"));
      c->append(c->series(tr("box"), seriesColor(0)), it, s->boxLoss);
      c->append(c->series(tr("cls"), seriesColor(1)), it, s->clsLoss);
      c->append(c->series(tr("dfl"), seriesColor(2)), it, s->dflLoss);
      double total = 0;
      for (const auto& [r, v] : rankSps) total += v;
      auto* sp = chart(QStringLiteral("speed"));
      sp->append(sp->series(tr("samples/s"), seriesColor(0)), it, total);
      m_epoch = s->epoch;
      m_iter = s->iter;
      m_iters = s->itersPerEpoch;
      m_sps = total;
      m_stepTime = s->timing.total;
    } else if (e.type == et::kEpochEnd) {
      auto s = tel::epochEndFromEvent(e);
      if (!s) continue;
      const double ep = s->epoch + 1;
      auto* c = chart(QStringLiteral("epochLosses"));
      c->append(c->series(tr("train box"), seriesColor(0)), ep, s->boxLoss);
      c->append(c->series(tr("train cls"), seriesColor(1)), ep, s->clsLoss);
      c->append(c->series(tr("train dfl"), seriesColor(2)), ep, s->dflLoss);
      auto* lr = chart(QStringLiteral("lr"));
      for (size_t gI = 0; gI < s->lr.size(); ++gI)
        lr->append(lr->series(QStringLiteral("pg%1").arg(gI), seriesColor(int(gI))), ep, s->lr[gI]);
      m_epochs = s->epochs;
      m_epoch = s->epoch + 1;
    } else if (e.type == et::kValidation) {
      auto v = tel::validationFromEvent(e);
      if (!v) continue;
      validated = true;
      const double ep = v->epoch + 1;
      auto* c = chart(QStringLiteral("metrics"));
      c->append(c->series(QStringLiteral("P"), seriesColor(0)), ep, v->precision);
      c->append(c->series(QStringLiteral("R"), seriesColor(1)), ep, v->recall);
      c->append(c->series(QStringLiteral("mAP50"), seriesColor(2)), ep, v->map50);
      c->append(c->series(QStringLiteral("mAP50-95"), seriesColor(3)), ep, v->map5095);
      auto* l = chart(QStringLiteral("epochLosses"));
      l->append(l->series(tr("val box"), seriesColor(3)), ep, v->boxLoss);
      l->append(l->series(tr("val cls"), seriesColor(4)), ep, v->clsLoss);
      l->append(l->series(tr("val dfl"), seriesColor(5)), ep, v->dflLoss);
    } else if (e.type == et::kRunStart) {
      auto r = tel::runStartFromEvent(e);
      if (r && r->config.contains("epochs") && r->config["epochs"].is_number_integer())
        m_epochs = r->config["epochs"].get<int>();
    } else if (e.type == et::kGpuSample) {
      auto gs = tel::gpuSampleFromEvent(e);
      if (!gs) continue;
      if (!gs->status.empty()) {
        // No GPU on the node: the GPU charts would stay empty; they make room for the rest.
        m_log->appendPlainText(tr("[node] %1").arg(QString::fromStdString(gs->status)));
        if (m_runGpu != 0) {
          m_runGpu = 0;
          relayout();
        }
        continue;
      }
      if (!gs->gpus.empty() && m_runGpu != 1) {
        m_runGpu = 1;
        relayout();
      }
      for (const auto& gp : gs->gpus) {
        const QString name = tr("GPU %1").arg(gp.index);
        auto* u = chart(QStringLiteral("gpuUtil"));
        if (gp.util >= 0) u->append(u->series(name, seriesColor(gp.index)), t, gp.util);
        auto* m = chart(QStringLiteral("gpuMem"));
        if (gp.memUsed >= 0) m->append(m->series(name, seriesColor(gp.index)), t, gp.memUsed / double(1 << 30));
        auto* p = chart(QStringLiteral("gpuPower"));
        if (gp.powerW >= 0) p->append(p->series(name, seriesColor(gp.index)), t, gp.powerW);
        m_gpuUtil[gp.index] = gp.util;
      }
    } else if (e.type == et::kSystemSample) {
      auto ss = tel::systemSampleFromEvent(e);
      if (!ss) continue;
      auto* c = chart(QStringLiteral("system"));
      if (ss->cpuTotal >= 0) c->append(c->series(tr("CPU"), seriesColor(0)), t, ss->cpuTotal);
      if (ss->memTotal > 0 && ss->memUsed >= 0)
        c->append(c->series(tr("memory"), seriesColor(1)), t, 100.0 * ss->memUsed / ss->memTotal);
    } else if (e.type == et::kStraggler) {
      auto s = tel::stragglerFromEvent(e);
      if (s) {
        m_straggler = QString::fromStdString(s->message);
        m_log->appendPlainText(tr("[rank %1] straggler: %2").arg(s->slowRank).arg(m_straggler));
        splitChanged = true;
      }
    } else if (e.type == et::kWarning) {
      auto w = tel::warningFromEvent(e);
      if (w) m_log->appendPlainText(tr("[rank %1] warning: %2").arg(e.rank).arg(QString::fromStdString(w->message)));
    } else if (e.type == et::kError) {
      auto w = tel::errorFromEvent(e);
      if (w) {
        QString text = tr("[rank %1] error: %2").arg(w->rank).arg(QString::fromStdString(w->message));
        if (!w->hint.empty()) text += tr(" — %1").arg(QString::fromStdString(w->hint));
        m_log->appendPlainText(text);
        for (const auto& line : w->logTail) m_log->appendPlainText(QStringLiteral("    ") + QString::fromStdString(line));
      }
    } else if (e.type == et::kFinished) {
      // How the run ended, in words ("stopped during epoch 2 after 21 of 32 batches; ...").
      if (auto f = tel::finishedFromEvent(e)) {
        QString text = tr("[run] %1 after %2 of %3 epoch(s)")
                           .arg(QString::fromLatin1(tel::toString(f->status)))
                           .arg(f->epochsCompleted)
                           .arg(f->epochs);
        if (!f->message.empty()) text += tr(": %1").arg(QString::fromStdString(f->message));
        m_log->appendPlainText(text);
        m_epoch = f->epochsCompleted;
        if (f->epochs > 0) m_epochs = f->epochs;
      }
    } else if (e.type == et::kDiagnosis) {
      // The doctor's report over the whole run; the periodic ones go to the banner only.
      auto d = tel::diagnosisFromEvent(e);
      if (d && d->final) {
        m_log->appendPlainText(tr("[doctor] %1").arg(QString::fromStdString(d->summary)));
        for (const auto& f : d->findings) {
          QString line = QStringLiteral("    ") + QString::fromStdString(f.message);
          if (!f.advice.empty())
            line += tr(" — try %1").arg(QString::fromStdString(tel::adviceText(f.advice)));
          m_log->appendPlainText(line);
        }
      }
    } else if (e.type == et::kCheckpoint) {
      auto c = tel::checkpointFromEvent(e);
      if (c && c->kind != tel::CheckpointKind::Last)
        m_log->appendPlainText(tr("[rank 0] checkpoint %1: %2").arg(QString::fromLatin1(tel::toString(c->kind)), QString::fromStdString(c->path)));
    }
  }
  if (splitChanged) updateSplit();
  if (validated) updateValidation(true);
  m_advice->consider(events, static_cast<size_t>(first));
  if (!m_advice->problem().isEmpty() && m_advice->problem() != m_adviceProblem)
    m_log->appendPlainText(tr("[studio] %1").arg(m_advice->problem()));
  m_adviceProblem = m_advice->problem();
  updateState();
}

}  // namespace stave::widgets
