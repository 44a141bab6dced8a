// Setting a run up: threads and device, the data and its loaders, the model (pretrained
// weights), the optimiser and schedule, and a resume from weights/last.pt.
#include "core/train/trainer_impl.h"

namespace stave::train {

using namespace detail;

void Trainer::Impl::setupRuntime() {
  int threads = settings.threads;
  if (threads <= 0) {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    threads = std::max(1, cores / std::max(1, o.dist.localWorldSize));
  }
  torch::set_num_threads(threads);
  const uint64_t seed = settings.seed;
  torch::manual_seed(seed);
  if (settings.deterministic) {
    at::globalContext().setDeterministicAlgorithms(true, /*warn_only=*/true);
    at::globalContext().setDeterministicCuDNN(true);
    at::globalContext().setBenchmarkCuDNN(false);
  }
  device = resolveDevice();
  feeder = std::make_unique<DeviceFeeder>(device);
  // Static input shapes (multi-scale aside): let cuDNN time its algorithms once.
  if (device.is_cuda() && !settings.deterministic) setCudnnBenchmark(true);
  auto p = resolvePrecision(settings.precision, settings.amp, device);
  if (!p)
    throw RunFailure(p.errors(), Text("train.hint.cpu_precision"), kTrainBadInput);
  precision = p.value();
  channelsLast = resolveChannelsLast(settings.channelsLast, device);
  GradScalerOptions so;
  so.enabled = precision == Precision::Fp16;
  scaler = GradScaler(so);
}

torch::Device Trainer::Impl::resolveDevice() {
  const std::string devices = settings.devices;
  if (devices == "cpu") return torch::kCPU;
  if (!cuda::available()) {
    if (devices.empty()) return torch::kCPU;
    throw RunFailure(Text("train.no_cuda", {{"devices", devices}, {"reason", cuda::unavailableReason()}}),
                     Text("train.no_cuda.hint"), kTrainBadInput);
  }
  std::vector<int> ids;
  std::stringstream ss(devices);
  for (std::string item; std::getline(ss, item, ',');) {
    if (!item.empty()) ids.push_back(std::stoi(item));
  }
  const int count = cuda::deviceCount();
  if (ids.empty()) {
    for (int i = 0; i < count; ++i) ids.push_back(i);
  }
  const int id = ids[static_cast<size_t>(o.dist.localRank) % ids.size()];
  if (id < 0 || id >= count) {
    throw RunFailure(Text("train.no_such_gpu", {{"id", std::to_string(id)}, {"count", std::to_string(count)}}),
                     Text("train.no_such_gpu.hint", {{"last", std::to_string(count - 1)}}),
                     kTrainBadInput);
  }
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(id));
}

data::LoaderOptions Trainer::Impl::loaderOptions(bool train) const {
  data::LoaderOptions lo = train ? settings.trainLoader : settings.valLoader;
  // Ultralytics' cap: no more loader threads than this rank's share of the CPU cores (more
  // only compete with each other and with the model's threads).
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  lo.workers = std::min(lo.workers, std::max(1, cores / std::max(1, o.dist.localWorldSize)));
  lo.rank = rank;
  lo.worldSize = world;
  lo.channelsLast = channelsLast;
  if (device.is_cuda() && settings.pinMemory) lo.allocate = pinnedHostAllocator();
  return lo;
}

void Trainer::Impl::setupData() {
  auto specR = data::loadDataYaml(settings.data);
  if (!specR)
    throw RunFailure(specR.errors(), Text("train.hint.data_yaml"), kTrainBadInput);
  spec = specR.value();
  nc = settings.singleCls ? 1 : spec.nc();
  data::ScanOptions so;
  auto scan = [&](const std::string& split) {
    auto r = data::scanSplit(spec, split, so);
    if (!r)
      throw RunFailure(r.errors(), Text("train.hint.check_dataset"), kTrainBadInput);
    if (r->images.empty()) {
      throw RunFailure(Text("train.split_empty", {{"split", split}, {"yaml", spec.yamlPath}}),
                       Text("train.hint.check_dataset_why"), kTrainBadInput);
    }
    if (!r->problems.empty()) {
      warn(Text("train.split_problems", {{"count", std::to_string(r->problems.size())},
                                         {"split", split},
                                         {"first", r->problems.front().toString()}}),
           "data");
    }
    return std::make_unique<data::SplitIndex>(std::move(r.value()));
  };
  trainIndex = scan("train");
  valIndex = scan("val");
  applyFraction(*trainIndex);
  trainLoader = std::make_unique<data::Loader>(*trainIndex, loaderOptions(true));
  valLoader = std::make_unique<data::Loader>(*valIndex, loaderOptions(false));
  nb = trainLoader->batchesPerEpoch();
  if (nb <= 0)
    throw RunFailure(Text("train.no_batches"), Text("train.hint.smaller_batch"), kTrainBadInput);
}

void Trainer::Impl::applyFraction(data::SplitIndex& index) const {
  const double fraction = settings.fraction;
  if (fraction >= 1.0) return;
  const size_t keep = std::max<size_t>(
      1, static_cast<size_t>(fraction * static_cast<double>(index.images.size())));
  index.images.resize(std::min(keep, index.images.size()));
}

void Trainer::Impl::transferPretrained() {
  // pretrained=FILE wins; else a model=FILE.pt gives its own weights, as in Ultralytics.
  const std::string path = !settings.pretrained.empty() ? settings.pretrained
                           : config::isCheckpointModel(settings.model) ? settings.model
                                                                        : std::string();
  if (path.empty() || settings.resume) return;
  const std::string key = settings.pretrained.empty() ? "model" : "pretrained";
  const Text hint("train.hint.start_weights", {{"key", key}});
  if (!startWeights || startWeightsPath != path) {
    auto opened = StartWeights::open(path);
    if (!opened) throw RunFailure(opened.errors(), hint, kTrainBadInput);
    startWeights = std::make_shared<const StartWeights>(std::move(opened.value()));
    startWeightsPath = path;
  }
  auto t = startWeights->transferInto(*model);
  if (!t) throw RunFailure(t.errors(), hint, kTrainBadInput);
  if (t->transferred == 0)
    throw RunFailure(Text("train.no_matching_tensor",
                          {{"path", path}, {"model", modelName}, {"nc", std::to_string(nc)}}),
                     hint, kTrainBadInput);
  const std::string text = transferSummary(t.value(), *startWeights, nc) + " " + path;
  weightsReport = {{"from", path},
                   {"key", key},
                   {"writer", startWeights->writer()},
                   {"source", startWeights->source()},
                   {"transferred", t->transferred},
                   {"total", t->total},
                   {"kept", keptSummary(t.value(), startWeights->meta().nc, nc)}};
  nlohmann::json kept = nlohmann::json::array();
  for (size_t i = 0; i < t->skipped.size() && i < 32; ++i) kept.push_back(t->skipped[i]);
  weightsReport["kept_items"] = std::move(kept);
  // A partial transfer is worth a warning in the run's record; a whole one only the log line.
  if (!t->skipped.empty())
    pretrainedSummary = Text("train.pretrained_partial",
                             {{"transferred", std::to_string(t->transferred)},
                              {"total", std::to_string(t->total)},
                              {"writer", startWeights->writer()},
                              {"source", startWeights->source()},
                              {"count", std::to_string(t->skipped.size())},
                              {"kept", keptText(t.value(), startWeights->meta().nc, nc)},
                              {"path", path}});
  if (rank == 0) std::cerr << text << "\n";
}

void Trainer::Impl::resolveModel() {
  modelName = config::modelName(settings.model);
  if (config::isCheckpointModel(settings.model)) {
    // The architecture comes from the file (the head gets the dataset's classes).
    auto opened = StartWeights::open(settings.model);
    if (!opened)
      throw RunFailure(opened.errors(), Text("train.hint.model_takes"), kTrainBadInput);
    startWeights = std::make_shared<const StartWeights>(std::move(opened.value()));
    startWeightsPath = settings.model;
    modelName = startWeights->modelName();
  }
  if (modelName.empty())
    throw RunFailure(Text("train.unknown_model", {{"model", settings.model}}),
                     Text("train.hint.model_use"), kTrainBadInput);
}

void Trainer::Impl::setupModel() {
  resolveModel();
  model::ModelOptions mo;
  mo.scale = modelName;
  mo.nc = nc;
  model = model::Yolo(mo);
  emaModel = model::Yolo(mo);
  transferPretrained();
  const int freeze = settings.freeze;
  if (freeze > model->detectIndex())
    throw RunFailure(Text("train.freeze_head", {{"freeze", std::to_string(freeze)},
                                                {"model", modelName},
                                                {"layers", std::to_string(model->detectIndex())}}),
                     Text("train.freeze_head.hint", {{"layers", std::to_string(model->detectIndex())}}),
                     kTrainBadInput);
  if (freeze > 0) model->freeze(freeze);
  model->to(device);
  emaModel->to(device);
  if (channelsLast) {
    toChannelsLast(*model);
    toChannelsLast(*emaModel);
  }
  ema = std::make_unique<ModelEma>(emaModel.ptr());
  ema->reset(*model);
  for (auto& p : model->parameters()) {
    if (p.requires_grad()) params.push_back(p);
  }
  LossOptions lo;
  lo.box = settings.box;
  lo.cls = settings.cls;
  lo.dfl = settings.dfl;
  loss = std::make_unique<DetectionLoss>(*model, lo);
}

void Trainer::Impl::setupOptimizer() {
  // The optimiser, its learning rate (optimizer=auto resolved, batch scaling) and the weight
  // decay come from derive(), as the form and show-project display them.
  config::DatasetSize size;
  size.trainImages = static_cast<int64_t>(trainIndex->images.size());
  size.nc = nc;
  const auto derived = config::derive(cfg, world, size);
  bool sgd = derived.optimizer == "SGD";
  double lr0 = derived.lr0;
  if (derived.autoChosen && settings.resume) {
    // optimizer=auto decides by the run's length; a resumed run keeps what it started with
    // (its state in last.pt belongs to that optimiser), even when epochs grew.
    const CheckpointMeta* meta = resumeFrom ? &resumeFrom->meta() : nullptr;
    if (meta && !meta->optimizer.empty()) {
      const bool saved = meta->optimizer == "SGD";
      if (saved != sgd && rank == 0)
        warn(Text("train.optimizer_kept", {{"optimizer", meta->optimizer},
                                           {"lr", std::to_string(meta->optimizerLr0)},
                                           {"other", sgd ? "SGD" : "AdamW"}}),
             "optimizer");
      sgd = saved;
      lr0 = meta->optimizerLr0 * derived.lrScale;
    }
  }
  optChoice.sgd = sgd;
  optChoice.lr0 = lr0 / derived.lrScale;  // the base lr0 a checkpoint records
  optChoice.momentum = derived.momentum;
  optChoice.autoChosen = derived.autoChosen;
  OptimizerSpec spec;
  spec.sgd = sgd;
  spec.lr0 = lr0;
  spec.momentum = derived.momentum;
  spec.weightDecay = derived.weightDecay;
  weightDecayUsed = derived.weightDecay;
  optimizer = buildOptimizer(splitParameters(*model), spec);
  schedOptions.lr0 = lr0;
  schedOptions.lrf = settings.lrf;
  schedOptions.momentum = derived.momentum;
  schedOptions.warmupEpochs = settings.warmupEpochs;
  schedOptions.warmupMomentum = settings.warmupMomentum;
  schedOptions.warmupBiasLr = derived.warmupBiasLr;
  schedOptions.cosine = settings.cosLr;
  schedOptions.itersPerEpoch = nb;
  // Ultralytics' integer accumulate (warmup ramps to it, not to the unrounded nbs / batch),
  // capped at the run's batches.
  schedOptions.accumulate = runAccumulate(derived.accumulate, nb, epochs, settings.timeHours > 0);
  schedOptions.momentumWarmup = sgd;
  replan(epochs);
  if (rank == 0) {
    std::ostringstream msg;
    msg << "optimizer: " << (spec.sgd ? "SGD" : "AdamW") << "(lr=" << lr0
        << ", momentum=" << spec.momentum
        << ") with parameter groups: biases, weights (weight_decay=" << spec.weightDecay
        << "), norm weights" << (optChoice.autoChosen ? " (chosen by optimizer=auto)" : "");
    std::fprintf(stderr, "%s\n", msg.str().c_str());
  }
}

void Trainer::Impl::replan(int newEpochs) {
  epochs = newEpochs;
  schedOptions.epochs = newEpochs;
  schedule = std::make_unique<Schedule>(schedOptions);
}

void Trainer::Impl::openResumeCheckpoint() {
  if (!settings.resume) return;
  auto reader = CheckpointReader::open(path("weights/last.pt"), device);
  if (!reader)
    throw RunFailure(reader.errors(), Text("train.hint.resume_last"), kTrainBadInput);
  resumeFrom = std::move(reader.value());
}

void Trainer::Impl::adaptToWorldSize() {
  // Another shape (a node fewer or more): the per-rank batch, nbs and the schedule stay; the
  // global batch, hence the accumulation and the batches per epoch, change. The step counters
  // are rescaled to the new batches per epoch; a stop inside an epoch continues after the
  // images already trained, when they are a whole number of the new batches.
  const int64_t before = state.worldSize;
  const int64_t perRank = settings.batch;
  // The accumulation of either shape is derive()'s, as every run's is.
  config::DatasetSize size;
  size.trainImages = static_cast<int64_t>(trainIndex->images.size());
  size.nc = nc;
  const auto was = config::derive(cfg, static_cast<int>(before), size);
  const auto now = config::derive(cfg, world, size);
  const int64_t oldGlobal = was.globalBatch, newGlobal = now.globalBatch;
  int64_t batches = 0;
  if (state.epochBatches > 0) {
    const int64_t images = state.epochBatches * oldGlobal;
    if (images % newGlobal != 0)
      throw RunFailure(Text("train.resume_world", {{"epoch", std::to_string(state.epoch + 2)},
                                                   {"batches", std::to_string(state.epochBatches)},
                                                   {"before", std::to_string(before)},
                                                   {"images", std::to_string(images)},
                                                   {"world", std::to_string(world)}}),
                       Text("train.resume_world.hint",
                            {{"before", std::to_string(before)}, {"world", std::to_string(world)}}),
                       kTrainBadInput);
    batches = images / newGlobal;
    state.epochBatches = batches;
  }
  state.iteration = (state.epoch + 1) * nb + batches;
  state.lastOptStep = state.iteration - 1;
  if (rank == 0) {
    warn(Text("train.resumed_world", {{"world", std::to_string(world)},
                                      {"checkpoint", path("weights/last.pt")},
                                      {"before", std::to_string(before)},
                                      {"per_rank", std::to_string(perRank)},
                                      {"nbs", std::to_string(settings.nbs)},
                                      {"global", std::to_string(newGlobal)},
                                      {"old_global", std::to_string(oldGlobal)},
                                      {"accumulate", std::to_string(now.accumulate)},
                                      {"old_accumulate", std::to_string(was.accumulate)},
                                      {"epoch", std::to_string(state.epoch + 2)},
                                      {"batches", std::to_string(nb)}}),
         "resume");
  }
}

void Trainer::Impl::resumeIfAsked() {
  if (!resumeFrom) return;
  CheckpointParts parts{model.get(), emaModel.get(), optimizer.get()};
  parts.gradients = true;
  if (auto s = resumeFrom->restore(parts, true); !s)
    throw RunFailure(s.errors(), Text("train.hint.resume_last"), kTrainBadInput);
  state = resumeFrom->meta();
  resumeFrom.reset();  // the archive's tensors are no longer needed
  // A checkpoint of an older Stave holds a 16-digit FNV-1a hash, which cannot be compared.
  if (state.datasetHash.size() == datasetHash().size() && state.datasetHash != datasetHash())
    warn(Text("train.dataset_changed", {{"checkpoint", path("weights/last.pt")},
                                        {"old", state.datasetHash},
                                        {"new", datasetHash()}}),
         "data");
  if (state.worldSize > 0 && state.worldSize != world) adaptToWorldSize();
  ema->setUpdates(state.emaUpdates);
  scaler.setState(state.scalerScale, state.scalerGrowth);
  // results.csv keeps the rows of the epochs the checkpoint holds.
  if (auto text = readFile(path("results.csv"))) {
    std::istringstream is(text.value());
    std::string line;
    std::getline(is, line);
    while (std::getline(is, line)) {
      if (line.empty()) continue;
      const int epochNumber = std::atoi(line.c_str());
      if (epochNumber <= state.epoch + 1) csvRows.push_back(line);
    }
  }
  if (state.epochs != epochs && rank == 0) {
    emit(telemetry::ScheduleReplannedEvent{
        static_cast<int>(state.epochs), epochs, static_cast<int>(state.epoch + 1),
        epochs > state.epochs ? "resume_extended" : "resume_shortened", 0.0});
  }
  if (state.epoch + 1 >= epochs) {
    throw RunFailure(Text("train.already_trained", {{"dir", o.runDir},
                                                    {"done", std::to_string(state.epoch + 1)},
                                                    {"epochs", std::to_string(epochs)}}),
                     Text("train.already_trained.hint"), kTrainBadInput);
  }
}

}  // namespace stave::train
