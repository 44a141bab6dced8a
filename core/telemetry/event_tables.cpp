// The event structs' member tables (event_tables.h): the one list of each struct's plain keys,
// walked by the encoders and decoders in events_*.cpp.
#include "core/telemetry/event_tables.h"

namespace stave::telemetry {

const config::MemberTable<RunStartEvent>& runStartFields() {
  using R = RunStartEvent;
  static const config::MemberTable<R> table{
      {"device", &R::device},          {"device_names", &R::deviceNames, true},
      {"world_size", &R::worldSize},   {"nnodes", &R::nnodes, true},
      {"run_dir", &R::runDir, true},   {"host", &R::host, true},
  };
  return table;
}

const config::MemberTable<DatasetSummary>& datasetSummaryFields() {
  using D = DatasetSummary;
  static const config::MemberTable<D> table{
      {"yaml", &D::yaml, true},
      {"train_images", &D::trainImages},
      {"val_images", &D::valImages},
      {"nc", &D::nc},
      {"names", &D::names, true},
      {"content_hash", &D::contentHash, true},
      {"label_edits", &D::labelEdits, true},
  };
  return table;
}

const config::MemberTable<NcclSettings>& ncclSettingsFields() {
  using N = NcclSettings;
  static const config::MemberTable<N> table{
      {"backend", &N::backend, true},
      {"p2p_level", &N::p2pLevel, true},
      {"shm_disable", &N::shmDisable, true},
      {"debug", &N::debug, true},
      {"async_error_handling", &N::asyncErrorHandling, true},
      {"timeout_s", &N::timeoutS, true},
      {"bucket_mb", &N::bucketMb, true},
      {"interface", &N::interface, true},
  };
  return table;
}

const config::MemberTable<StepEvent>& stepFields() {
  using S = StepEvent;
  static const config::MemberTable<S> table{
      {"epoch", &S::epoch},       {"iter", &S::iter},         {"iters_per_epoch", &S::itersPerEpoch},
      {"box_loss", &S::boxLoss},  {"cls_loss", &S::clsLoss},  {"dfl_loss", &S::dflLoss},
      {"lr", &S::lr},             {"samples_per_s", &S::samplesPerSec},
  };
  return table;
}

const config::MemberTable<EpochEndEvent>& epochEndFields() {
  using E = EpochEndEvent;
  static const config::MemberTable<E> table{
      {"epoch", &E::epoch},       {"epochs", &E::epochs},          {"box_loss", &E::boxLoss},
      {"cls_loss", &E::clsLoss},  {"dfl_loss", &E::dflLoss},       {"epoch_time", &E::epochTime},
      {"lr", &E::lr},
  };
  return table;
}

const config::MemberTable<ValidationEvent>& validationFields() {
  using V = ValidationEvent;
  static const config::MemberTable<V> table{
      {"epoch", &V::epoch},
      {"precision", &V::precision},
      {"recall", &V::recall},
      {"map50", &V::map50},
      {"map50_95", &V::map5095},
      {"box_loss", &V::boxLoss, true},
      {"cls_loss", &V::clsLoss, true},
      {"dfl_loss", &V::dflLoss, true},
      {"val_time", &V::valTime},
  };
  return table;
}

const config::MemberTable<ClassMetricsRow>& classMetricsFields() {
  using C = ClassMetricsRow;
  static const config::MemberTable<C> table{
      {"cls", &C::cls},
      {"name", &C::name, true},
      {"images", &C::images, true},
      {"instances", &C::instances, true},
      {"precision", &C::precision},
      {"recall", &C::recall},
      {"map50", &C::map50},
      {"map50_95", &C::map5095},
  };
  return table;
}

const config::MemberTable<CheckpointEvent>& checkpointFields() {
  using C = CheckpointEvent;
  static const config::MemberTable<C> table{{"path", &C::path}, {"epoch", &C::epoch}};
  return table;
}

const config::MemberTable<WarningEvent>& warningFields() {
  using W = WarningEvent;
  static const config::MemberTable<W> table{{"message", &W::message},
                                            {"source", &W::source, true}};
  return table;
}

const config::MemberTable<ErrorEvent>& errorFields() {
  using E = ErrorEvent;
  static const config::MemberTable<E> table{
      {"rank", &E::rank, true},
      {"message", &E::message},
      {"log_tail", &E::logTail, true},
      {"hint", &E::hint, true},
  };
  return table;
}

const config::MemberTable<StragglerEvent>& stragglerFields() {
  using S = StragglerEvent;
  static const config::MemberTable<S> table{
      {"slow_rank", &S::slowRank},
      {"fraction", &S::fraction},
      {"others_fraction", &S::othersFraction, true},
      {"step_time", &S::stepTime, true},
      {"imbalance", &S::imbalance, true},
      {"steps", &S::steps, true},
      {"message", &S::message},
  };
  return table;
}

const config::MemberTable<RankExitEvent>& rankExitFields() {
  using R = RankExitEvent;
  static const config::MemberTable<R> table{{"rank", &R::rank}, {"outcome", &R::outcome}};
  return table;
}

}  // namespace stave::telemetry
