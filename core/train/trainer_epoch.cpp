// One epoch of training (the step loop: data, forward and backward, accumulation, AMP, the
// optimiser step, step events, stop checks) and the validation pass.
#include "core/train/trainer_impl.h"
#include "core/train/val_views.h"

namespace stave::train {

using namespace detail;

bool Trainer::Impl::stopRequested() {
  bool local = o.stopRequested && o.stopRequested->load();
  const bool stop = dist ? dist->anyRank(local) : local;
  if (stop && o.stopAgreed) o.stopAgreed->store(true);
  return stop;
}

void Trainer::Impl::flushLosses(EpochProgress& progress, int epoch, int64_t i) {
  const auto s = losses.flush();
  progress.loss = s.mean;
  progress.counted = s.counted;
  consecutiveNonFinite = static_cast<int>(s.consecutiveNonFinite);
  skippedSteps += s.skipped;
  if (s.nonFinite > 0) {
    state.nonFiniteTotal += s.nonFinite;
    if (consecutiveNonFinite >= kMaxNonFiniteInARow) {
      throw RunFailure(Text("train.nonfinite_stop", {{"count", std::to_string(consecutiveNonFinite)},
                                                     {"epoch", std::to_string(epoch)},
                                                     {"iter", std::to_string(i)}}),
                       Text("train.nonfinite_stop.hint"));
    }
    if (rank == 0) {
      warn(s.nonFinite == 1
               ? Text("train.nonfinite_one", {{"epoch", std::to_string(epoch)}, {"iter", std::to_string(i)}})
               : Text("train.nonfinite_many", {{"count", std::to_string(s.nonFinite)},
                                               {"epoch", std::to_string(epoch)},
                                               {"iter", std::to_string(i)}}),
           "amp");
    }
  }
}

void Trainer::Impl::startTrainEpoch(int epoch, const EpochProgress& progress) {
  const int closeMosaic = settings.closeMosaic;
  const bool mosaicOn = closeMosaic <= 0 || epoch < epochs - closeMosaic;
  if (rank == 0 && closeMosaic > 0 && epoch == epochs - closeMosaic) {
    std::fprintf(stderr, "closing mosaic for the last %d epochs\n", closeMosaic);
  }
  trainLoader->startEpoch(epoch, mosaicOn, progress.batches);
  model->train();
  losses.reset(device, progress.loss, progress.counted, consecutiveNonFinite);
}

void Trainer::Impl::forwardBackward(const data::Batch& batch, int64_t ni, bool optStep,
                                    telemetry::StepTiming& timing) {
  auto t1 = Clock::now();
  auto images = feeder->images(batch, channelsLast);
  if (settings.multiScale) {
    images = multiScaleResize(images, settings.imgsz, settings.seed, ni);
    if (channelsLast) images = images.contiguous(torch::MemoryFormat::ChannelsLast);
  }
  // The loss pads the targets per image on the CPU and moves them itself.
  auto targets = batchTargets(batch, torch::kCPU);
  if (settings.singleCls) targets.select(1, 1).zero_();
  timing.h2d = secondsSince(t1);

  auto t2 = Clock::now();
  if (dist) dist->beforeBackward(optStep);
  StepParts parts = stepParts();
  const auto out = train::forwardBackward(parts, images, targets, batch.n, static_cast<double>(world));
  losses.add(out.items);
  timing.fwdBwd = secondsSince(t2);
}

void Trainer::Impl::optimizerStep(int64_t ni, telemetry::StepTiming& timing) {
  if (dist) timing.allreduceWait = dist->waitGradients();
  auto t3 = Clock::now();
  StepParts parts = stepParts();
  const StepOutcome outcome = clipAndStep(parts);
  if (outcome.onDevice) {
    // No read-back: a non-finite step's gradients were zeroed on the device.
    losses.addStepOutcome(*outcome.onDevice);
  } else if (!outcome.finite) {
    ++skippedSteps;
  }
  if (outcome.finite) ema->update(*model);
  state.lastOptStep = ni;
  timing.optimizer = secondsSince(t3);
}

void Trainer::Impl::emitStepEvent(int epoch, int64_t i, const std::array<double, 3>& tloss,
                                  const telemetry::StepTiming& acc, int accSteps, int64_t accImages,
                                  bool last) {
  telemetry::StepEvent e;
  e.epoch = epoch;
  e.iter = static_cast<int>(i);
  e.itersPerEpoch = static_cast<int>(nb);
  e.boxLoss = tloss[0];
  e.clsLoss = tloss[1];
  e.dflLoss = tloss[2];
  e.lr = groupLr(*optimizer, 0);
  e.timing = acc * (1.0 / accSteps);
  e.samplesPerSec = acc.total > 0 ? static_cast<double>(accImages) / acc.total : 0.0;
  emit(e);
  reportImageProblems(*trainLoader, "train", last);
}

bool Trainer::Impl::trainEpoch(int epoch, EpochProgress& progress) {
  startTrainEpoch(epoch, progress);
  // On the CPU every step is read back at once (nothing runs ahead); on CUDA only when an
  // event is written, so the host keeps queueing work.
  const bool readEveryStep = !device.is_cuda();
  const int64_t stopCheckEvery = device.is_cuda() ? kCudaStopCheckEvery : 1;
  telemetry::StepTiming acc;
  int accSteps = 0;
  int64_t accImages = 0;
  auto lastEvent = Clock::now();
  const int faultMs = slowDataMs(rank);
  const std::string recordDir = recordBatchesDir();
  if (!recordDir.empty()) {
    std::error_code ec;  // a folder that cannot be made fails at the first write, naming it
    fs::create_directories(recordDir, ec);
  }
  int64_t i = progress.batches;
  for (;; ++i) {
    auto t0 = Clock::now();
    if (faultMs > 0) std::this_thread::sleep_for(std::chrono::milliseconds(faultMs));
    auto batch = trainLoader->next();
    if (!batch) break;
    telemetry::StepTiming timing;
    timing.dataWait = secondsSince(t0);
    const int64_t ni = i + nb * static_cast<int64_t>(epoch);
    if (!recordDir.empty()) recordBatch(recordDir, rank, ni, *batch);
    const auto point = schedule->at(epoch, i);
    applySchedulePoint(*optimizer, point);
    const bool optStep = ni - state.lastOptStep >= point.accumulate;
    forwardBackward(*batch, ni, optStep, timing);
    if (readEveryStep) flushLosses(progress, epoch, i);
    if (optStep) optimizerStep(ni, timing);
    state.iteration = ni + 1;
    timing.total = secondsSince(t0);
    acc = acc + timing;
    ++accSteps;
    accImages += batch->n;

    const bool last = i + 1 >= nb;
    if (secondsSince(lastEvent) >= kStepEventInterval || last) {
      if (!readEveryStep) flushLosses(progress, epoch, i);
      emitStepEvent(epoch, i, progress.loss, acc, accSteps, accImages, last);
      acc = {};
      accSteps = 0;
      accImages = 0;
      lastEvent = Clock::now();
    }
    progress.batches = i + 1;
    ++batchesThisProcess;
    if (o.progress) o.progress->fetch_add(1);
    // A collective: every rank asks at the same steps.
    const bool stop = (i + 1) % stopCheckEvery == 0 && stopRequested();
    if (stop || (o.stopAfter.batches > 0 && batchesThisProcess >= o.stopAfter.batches)) {
      if (!readEveryStep) flushLosses(progress, epoch, i);
      return false;
    }
  }
  if (!readEveryStep) flushLosses(progress, epoch, i);
  return true;
}

ValidationOutput Trainer::Impl::runValidation() {
  ValidationOptions vo;
  vo.conf = settings.conf;
  vo.iou = settings.iou;
  vo.maxDet = settings.maxDet;
  vo.precision = precision;
  vo.device = device;
  vo.channelsLast = channelsLast;
  vo.singleCls = settings.singleCls;
  vo.progress = o.progress;
  DetectionLoss valLoss(*emaModel, loss->options());
  GatherFloats gather;
  if (dist) gather = [this](const std::vector<float>& v) { return dist->gatherFloats(v); };
  // Every rank sends what the views need; rank 0 writes them to <run>/val/ (replaced by each
  // validation: after the run they are the final validation's).
  ValidationViews views;
  vo.views = &views;
  auto out = validate(*emaModel, *valLoader, nc, vo, &valLoss, gather);
  reportImageProblems(*valLoader, "val", true);
  if (rank == 0 && !o.runDir.empty()) {
    std::vector<std::string> paths;
    paths.reserve(valIndex->images.size());
    for (const auto& im : valIndex->images) paths.push_back(im.imagePath);
    if (auto st = writeValidationViews(views, (fs::path(o.runDir) / "val").string(), paths, spec.names); !st)
      warn(Text("train.val_views_not_written", {{"reason", st.errorText()}}), "val");
  }
  return out;
}

}  // namespace stave::train
