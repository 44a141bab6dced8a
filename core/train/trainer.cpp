// The trainer: the run step by step (set-up, epochs, validation when due, time budget, the
// finished event) and its public entry points; the chapters are trainer_*.cpp.
#include "core/train/trainer_impl.h"

namespace stave::train {

using namespace detail;

Trainer::Impl::Outcome Trainer::Impl::endsWith(telemetry::RunStatus status, Text text) {
  return {true, status, std::move(text)};
}

int Trainer::Impl::run() {
  setup();
  if (stoppedBeforeStart) {
    // The launcher writes the run's finished event when no rank does.
    std::fprintf(stderr, "rank %d: stopped on request before the rendezvous\n", rank);
    return kTrainOk;
  }
  EpochProgress progress = resumedProgress();
  Outcome outcome;
  for (int epoch = static_cast<int>(state.epoch + 1); epoch < epochs && !outcome.ends;
       ++epoch, progress = EpochProgress{})
    outcome = runEpoch(epoch, progress);
  emitFinished(outcome);
  if (dist) dist->finish();
  return kTrainOk;
}

void Trainer::Impl::setup() {
  epochs = settings.epochs;
  setupRuntime();
  if (world > 1) {
    if (o.atRendezvous) o.atRendezvous->store(true);
    // A stop that came before the flag was up would never be seen inside the wait.
    if (o.stopRequested && o.stopRequested->load()) {
      stoppedBeforeStart = true;
      return;
    }
    dist = std::make_unique<DistContext>(o, settings, device);
    if (o.atRendezvous) o.atRendezvous->store(false);
  }
  // A resumed run's config.yaml is rewritten only once its checkpoint was accepted.
  if (!settings.resume) writeConfigYaml();
  setupData();
  setupModel();
  if (dist) dist->attach(*model, params, settings);
  openResumeCheckpoint();
  setupOptimizer();
  resumeIfAsked();
  if (settings.resume) writeConfigYaml();
  writeRunStart();
  if (!pretrainedSummary.id.empty()) warn(pretrainedSummary, "pretrained");
  if (!state.lastMetrics.empty() && state.lastMetrics.size() != 7) state.lastMetrics.clear();
  if (state.lastMetrics.empty()) state.lastMetrics.assign(7, 0.0);
}

Trainer::Impl::EpochProgress Trainer::Impl::resumedProgress() {
  EpochProgress progress;
  if (state.epochBatches > 0) {
    progress.batches = state.epochBatches;
    if (state.epochLoss.size() == 4) {
      progress.loss = {state.epochLoss[0], state.epochLoss[1], state.epochLoss[2]};
      progress.counted = static_cast<int64_t>(state.epochLoss[3]);
    }
    state.epochBatches = 0;
    state.epochLoss.clear();
  }
  return progress;
}

Trainer::Impl::Outcome Trainer::Impl::runEpoch(int epoch, EpochProgress& progress) {
  auto epochStart = Clock::now();
  const bool complete = trainEpoch(epoch, progress);
  if (dist) {
    dist->syncBuffers(*model);
    dist->syncBuffers(*emaModel);
    // Gradients accumulated for the next optimiser step go into last.pt (rank 0's). Every
    // rank has the same step schedule, so they agree whether any are pending.
    if (state.lastOptStep < state.iteration - 1) dist->averageGradients(params);
  }
  const double epochTime = secondsSince(epochStart);
  trainSeconds += epochTime;
  if (!complete) {
    // Stopped part-way: the checkpoint says how far this epoch got; resume continues there.
    if (rank == 0)
      saveCheckpointAs("weights/last.pt", epoch - 1, telemetry::CheckpointKind::Last,
                       &progress);
    return endsWith(telemetry::RunStatus::Stopped,
                    Text("train.stopped_in_epoch", {{"epoch", std::to_string(epoch + 1)},
                                                    {"batches", std::to_string(progress.batches)},
                                                    {"total", std::to_string(nb)}}));
  }
  const std::array<double, 3> lrs{groupLr(*optimizer, 0), groupLr(*optimizer, 1),
                                  groupLr(*optimizer, 2)};
  emitEpochEnd(epoch, progress.loss, epochTime, lrs);
  const bool earlyStop = validateIfDue(epoch);
  writeEpochOutputs(epoch, progress.loss, lrs);
  state.epoch = epoch;
  ++epochsThisProcess;
  epochTimes.push_back(secondsSince(epochStart));

  const int patience = settings.patience;
  if (earlyStop)
    return endsWith(telemetry::RunStatus::EarlyStopped,
                    Text("train.early_stopped", {{"patience", std::to_string(patience)},
                                                 {"best", std::to_string(state.bestEpoch + 1)}}));
  if (followTimeBudget(epoch))
    return endsWith(telemetry::RunStatus::Completed,
                    Text("train.time_budget", {{"hours", csvNumber(settings.timeHours)}}));
  if (stopRequested())
    return endsWith(telemetry::RunStatus::Stopped,
                    Text("train.stopped_on_request", {{"epoch", std::to_string(epoch + 1)}}));
  if (o.stopAfter.epochs > 0 && epochsThisProcess >= o.stopAfter.epochs && epoch + 1 < epochs)
    return endsWith(telemetry::RunStatus::Stopped,
                    Text("train.stopped_after", {{"count", std::to_string(epochsThisProcess)}}));
  return {};
}

void Trainer::Impl::emitEpochEnd(int epoch, const std::array<double, 3>& loss, double epochTime, const std::array<double, 3>& lrs) {
  if (rank != 0) return;
  telemetry::EpochEndEvent ee;
  ee.epoch = epoch;
  ee.epochs = epochs;
  ee.boxLoss = loss[0];
  ee.clsLoss = loss[1];
  ee.dflLoss = loss[2];
  ee.epochTime = epochTime;
  ee.lr = {lrs[0], lrs[1], lrs[2]};
  emit(ee);
}

bool Trainer::Impl::validateIfDue(int epoch) {
  const int patience = settings.patience;
  const int valPeriod = std::max<int>(1, settings.valPeriod);
  const bool finalEpoch = epoch + 1 == epochs;
  const bool possibleStop =
      patience > 0 && state.bestEpoch >= 0 && epoch - state.bestEpoch + 1 >= patience;
  if (!((settings.val && (epoch + 1) % valPeriod == 0) || finalEpoch || possibleStop))
    return false;
  auto v = runValidation();
  valSeconds += v.seconds;
  state.lastMetrics = {v.precision, v.recall, v.map50, v.map5095, v.loss[0], v.loss[1], v.loss[2]};
  if (rank == 0) emit(validationEvent(epoch, v));
  const double fit = fitness(v.map50, v.map5095);
  if (fit >= state.bestFitness || state.bestEpoch < 0) {
    state.bestFitness = fit;
    state.bestEpoch = epoch;
  }
  if (v.map5095 > state.bestMap5095) {
    state.bestMap5095 = v.map5095;
    state.bestMap50 = v.map50;
    state.bestMapEpoch = epoch;
  }
  return patience > 0 && epoch - state.bestEpoch >= patience;
}

telemetry::ValidationEvent Trainer::Impl::validationEvent(int epoch, const ValidationOutput& v) const {
  telemetry::ValidationEvent ve;
  ve.epoch = epoch;
  ve.precision = v.precision;
  ve.recall = v.recall;
  ve.map50 = v.map50;
  ve.map5095 = v.map5095;
  ve.boxLoss = v.loss[0];
  ve.clsLoss = v.loss[1];
  ve.dflLoss = v.loss[2];
  ve.valTime = v.seconds;
  for (const auto& c : v.perClass) {
    telemetry::ClassMetricsRow row;
    row.cls = c.cls;
    row.name =
        c.cls < static_cast<int>(spec.names.size()) ? spec.names[static_cast<size_t>(c.cls)] : "";
    row.images = c.images;
    row.instances = c.instances;
    row.precision = c.precision;
    row.recall = c.recall;
    row.map50 = c.map50;
    row.map5095 = c.map5095;
    ve.perClass.push_back(row);
  }
  return ve;
}

void Trainer::Impl::writeEpochOutputs(int epoch, const std::array<double, 3>& loss, const std::array<double, 3>& lrs) {
  if (rank != 0) return;
  std::string row = std::to_string(epoch + 1);
  for (double v : loss) row += "," + csvNumber(v);
  for (double v : state.lastMetrics) row += "," + csvNumber(v);
  for (double v : lrs) row += "," + csvNumber(v);
  csvRows.push_back(row);
  writeResults();
  saveCheckpointAs("weights/last.pt", epoch, telemetry::CheckpointKind::Last);
  if (state.bestMapEpoch == epoch)
    saveCheckpointAs("weights/best.pt", epoch, telemetry::CheckpointKind::Best);
  const int savePeriod = settings.savePeriod;
  if (savePeriod > 0 && (epoch + 1) % savePeriod == 0)
    saveCheckpointAs("weights/epoch" + std::to_string(epoch + 1) + ".pt", epoch,
                     telemetry::CheckpointKind::Periodic);
}

bool Trainer::Impl::followTimeBudget(int epoch) {
  const double timeBudget = settings.timeHours * 3600.0;
  if (timeBudget <= 0 || epoch + 1 == epochs) return false;
  const double elapsed = secondsSince(runStart);
  double mean = 0;
  for (double t : epochTimes) mean += t;
  mean /= static_cast<double>(epochTimes.size());
  int planned = std::max(epoch + 1, static_cast<int>(std::ceil(timeBudget / std::max(mean, 1e-9))));
  if (dist) planned = dist->broadcastInt(planned);
  if (elapsed >= timeBudget) planned = epoch + 1;
  if (planned != epochs) {
    if (rank == 0)
      emit(telemetry::ScheduleReplannedEvent{epochs, planned, epoch + 1, "time_budget", mean});
    replan(planned);
  }
  return epoch + 1 >= epochs;
}

namespace {
// A length of time for a person: "0.7 s", "42 s", "12 min 5 s", "3 h 12 min".
Text durationWords(double s) {
  char buf[24];
  if (!(s >= 0)) s = 0;
  if (s < 120) {
    std::snprintf(buf, sizeof buf, s < 10 ? "%.1f" : "%.0f", s);
    return Text("duration.s", {{"n", buf}});
  }
  if (s < 7200)
    return Text("duration.min_s",
                {{"min", std::to_string(int(s) / 60)}, {"s", std::to_string(int(s) % 60)}});
  return Text("duration.h_min",
              {{"h", std::to_string(int(s) / 3600)}, {"min", std::to_string(int(s) % 3600 / 60)}});
}
}  // namespace

void Trainer::Impl::emitFinished(const Outcome& outcome) {
  telemetry::FinishedEvent fe;
  fe.status = outcome.status;
  fe.epochsCompleted = static_cast<int>(state.epoch + 1);
  fe.epochs = epochs;
  fe.bestEpoch = static_cast<int>(state.bestMapEpoch);
  fe.bestMap50 = state.bestMap50;
  fe.bestMap5095 = std::max(0.0, state.bestMap5095);
  fe.totalTime = secondsSince(runStart);
  // "<why it ended>; training X, validation Y[; N non-finite losses, ...]": History and the
  // studio read the times of each session from this sentence (store/session_time.h).
  const bool why = !outcome.text.id.empty();
  if (why) fe.text.push_back(outcome.text);
  fe.text.push_back(Text(why ? "train.then_times" : "train.times",
                         {{"train", durationWords(trainSeconds)}, {"val", durationWords(valSeconds)}}));
  if (state.nonFiniteTotal > 0 || skippedSteps > 0)
    fe.text.push_back(Text("train.nonfinite_total", {{"count", std::to_string(state.nonFiniteTotal)},
                                                     {"skipped", std::to_string(skippedSteps)}}));
  fe.message = english(fe.text);
  if (rank == 0) emit(fe);
}

Trainer::Trainer(TrainOptions options) : m(std::make_unique<Impl>(std::move(options))) {}
Trainer::~Trainer() = default;

int Trainer::run() {
  auto fail = [&](const std::string& message, const std::string& hint, int code,
                  const TextParts& text = {}, const TextParts& hintText = {}) {
    telemetry::ErrorEvent e;
    e.rank = m->rank;
    e.message = message;
    e.hint = hint;
    e.text = text;
    e.hintText = hintText;
    m->emit(e);
    telemetry::FinishedEvent fe;
    fe.status = telemetry::RunStatus::Failed;
    fe.epochsCompleted = static_cast<int>(m->state.epoch + 1);
    fe.epochs = m->epochs;
    fe.message = message;
    fe.text = text;
    if (m->rank == 0) m->emit(fe);
    std::fprintf(stderr, "rank %d: error: %s%s%s\n", m->rank, message.c_str(),
                 hint.empty() ? "" : "\nhint: ", hint.c_str());
    return code;
  };
  try {
    return m->run();
  } catch (const RunFailure& e) {
    return fail(e.what(), e.hint, e.code, e.text, e.hintText);
  } catch (const std::exception& e) {
    if (isOutOfMemory(e)) {
      const Text msg("train.oom", {{"device", m->device.str()},
                                   {"batch", std::to_string(m->settings.batch)},
                                   {"imgsz", std::to_string(m->settings.imgsz)},
                                   {"precision", precisionName(m->precision)},
                                   {"model", m->settings.model}});
      const Text hint("train.oom.hint",
                      {{"half", std::to_string(std::max<int64_t>(1, m->settings.batch / 2))},
                       {"nbs", std::to_string(m->settings.nbs)}});
      return fail(english(msg), english(hint), kTrainFailed, {msg}, {hint});
    }
    // A lost peer is named by its node; the transport's own text goes to this rank's log.
    if (m->dist) {
      if (const Text lost = m->dist->describeFailure(e.what()); !lost.id.empty()) {
        std::fprintf(stderr, "rank %d: the collective failed: %s\n", m->rank, e.what());
        return fail(english(lost), "", kTrainFailed, {lost});
      }
    }
    const Text msg("train.failed", {{"reason", e.what()}});
    return fail(english(msg), "", kTrainFailed, {msg});
  }
}

}  // namespace stave::train
