#include "core/telemetry/event_log.h"

#include <cstdio>
#include <sstream>

namespace stave::telemetry {
using namespace event_type;

namespace {
std::string fmt(const char* format, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, a);
  return buf;
}

std::string percent(double part, double whole) {
  return whole > 0 ? fmt("%.0f%%", 100.0 * part / whole) : std::string("-");
}
}  // namespace

std::optional<std::string> EventLogFormatter::format(const Event& event) {
  std::ostringstream os;
  if (event.type == kRunStart) {
    auto e = runStartFromEvent(event);
    if (!e) return std::nullopt;
    os << "run " << e->runDir << ": " << e->worldSize << " rank(s) on " << e->device << ", "
       << e->dataset.trainImages << " train / " << e->dataset.valImages << " val images, "
       << e->dataset.nc << " classes";
  } else if (event.type == kStep) {
    auto e = stepFromEvent(event);
    if (!e || event.time - m_lastStepTime < m_stepEvery) return std::nullopt;
    m_lastStepTime = event.time;
    const StepTiming& t = e->timing;
    os << "  rank " << event.rank << " epoch " << e->epoch + 1 << " iter " << e->iter + 1 << "/"
       << e->itersPerEpoch << "  box " << fmt("%.3f", e->boxLoss) << " cls "
       << fmt("%.3f", e->clsLoss) << " dfl " << fmt("%.3f", e->dflLoss) << "  "
       << fmt("%.1f", e->samplesPerSec) << " img/s  step: data " << percent(t.dataWait, t.total)
       << ", fwd+bwd " << percent(t.fwdBwd, t.total) << ", all-reduce wait "
       << percent(t.allreduceWait, t.total) << ", optimiser " << percent(t.optimizer, t.total);
  } else if (event.type == kEpochEnd) {
    auto e = epochEndFromEvent(event);
    if (!e) return std::nullopt;
    os << "epoch " << e->epoch + 1 << "/" << e->epochs << "  train box " << fmt("%.4f", e->boxLoss)
       << " cls " << fmt("%.4f", e->clsLoss) << " dfl " << fmt("%.4f", e->dflLoss) << "  "
       << fmt("%.1f", e->epochTime) << " s";
  } else if (event.type == kValidation) {
    auto e = validationFromEvent(event);
    if (!e) return std::nullopt;
    os << "  val  P " << fmt("%.3f", e->precision) << "  R " << fmt("%.3f", e->recall)
       << "  mAP50 " << fmt("%.4f", e->map50) << "  mAP50-95 " << fmt("%.4f", e->map5095) << "  ("
       << fmt("%.1f", e->valTime) << " s)";
  } else if (event.type == kCheckpoint) {
    auto e = checkpointFromEvent(event);
    if (!e || e->kind == CheckpointKind::Last) return std::nullopt;  // every epoch: too chatty
    os << "  saved " << toString(e->kind) << ": " << e->path;
  } else if (event.type == kWarning) {
    auto e = warningFromEvent(event);
    if (!e) return std::nullopt;
    os << "warning" << (e->source.empty() ? "" : " (" + e->source + ")") << ": " << e->message;
  } else if (event.type == kError) {
    auto e = errorFromEvent(event);
    if (!e) return std::nullopt;
    os << "error" << (e->rank >= 0 ? " on rank " + std::to_string(e->rank) : "") << ": " << e->message;
    if (!e->hint.empty()) os << "\n  try: " << e->hint;
    for (const auto& l : e->logTail) os << "\n  | " << l;
  } else if (event.type == kStraggler) {
    auto e = stragglerFromEvent(event);
    if (!e) return std::nullopt;
    os << "short stave: " << e->message;
  } else if (event.type == kScheduleReplanned) {
    auto e = scheduleReplannedFromEvent(event);
    if (!e) return std::nullopt;
    os << "schedule: " << e->oldEpochs << " -> " << e->newEpochs << " epochs (" << e->reason << ")";
  } else if (event.type == kFinished) {
    auto e = finishedFromEvent(event);
    if (!e) return std::nullopt;
    m_finalStatus = toString(e->status);
    os << "finished: " << m_finalStatus << " after " << e->epochsCompleted << "/" << e->epochs
       << " epochs in " << fmt("%.0f", e->totalTime) << " s";
    if (e->bestEpoch >= 0)
      os << "; best epoch " << e->bestEpoch + 1 << ": mAP50 " << fmt("%.4f", e->bestMap50)
         << ", mAP50-95 " << fmt("%.4f", e->bestMap5095);
    if (!e->message.empty()) os << "\n  " << e->message;
  } else {
    return std::nullopt;
  }
  return os.str();
}

}  // namespace stave::telemetry
