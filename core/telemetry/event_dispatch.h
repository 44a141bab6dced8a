#pragma once
// EventDispatch: one handler per typed event. Every reader of events (the history store, the
// metrics endpoint, the TensorBoard writer, the doctor, the studio's run controller and Run
// page) registers what it does with each type it cares about; dispatch decodes an event's data
// into its typed struct once — only when a handler for its type is registered — and calls that
// handler. A typed decode that fails goes to the `invalid` handler (skipped silently when
// there is none); a type with no handler goes to `otherwise` (if set). Replaces an
// `if (type == ...)` chain in each reader.
//
//   telemetry::EventDispatch d;
//   d.on<StepEvent>([&](const Event& e, const StepEvent& s) { ... })
//    .on<FinishedEvent>([&](const Event& e, const FinishedEvent& f) { ... });
//   for (const auto& e : events) d(e);
#include <functional>
#include <string>
#include <unordered_map>

#include "core/telemetry/events.h"

namespace stave::telemetry {

/// Each typed event's type name and decoder (one specialisation per struct in events.h).
template <typename T>
struct EventTraits;

#define STAVE_EVENT_TRAITS(Struct, typeName, decoder)                    \
  template <>                                                            \
  struct EventTraits<Struct> {                                           \
    static constexpr const char* kType = typeName;                       \
    static Result<Struct> decode(const Event& e) { return decoder(e); }  \
  };
STAVE_EVENT_TRAITS(RunStartEvent, event_type::kRunStart, runStartFromEvent)
STAVE_EVENT_TRAITS(StepEvent, event_type::kStep, stepFromEvent)
STAVE_EVENT_TRAITS(EpochEndEvent, event_type::kEpochEnd, epochEndFromEvent)
STAVE_EVENT_TRAITS(ValidationEvent, event_type::kValidation, validationFromEvent)
STAVE_EVENT_TRAITS(CheckpointEvent, event_type::kCheckpoint, checkpointFromEvent)
STAVE_EVENT_TRAITS(WarningEvent, event_type::kWarning, warningFromEvent)
STAVE_EVENT_TRAITS(ErrorEvent, event_type::kError, errorFromEvent)
STAVE_EVENT_TRAITS(FinishedEvent, event_type::kFinished, finishedFromEvent)
STAVE_EVENT_TRAITS(StragglerEvent, event_type::kStraggler, stragglerFromEvent)
STAVE_EVENT_TRAITS(RankExitEvent, event_type::kRankExit, rankExitFromEvent)
STAVE_EVENT_TRAITS(ScheduleReplannedEvent, event_type::kScheduleReplanned, scheduleReplannedFromEvent)
STAVE_EVENT_TRAITS(GpuSampleEvent, event_type::kGpuSample, gpuSampleFromEvent)
STAVE_EVENT_TRAITS(SystemSampleEvent, event_type::kSystemSample, systemSampleFromEvent)
STAVE_EVENT_TRAITS(DiagnosisEvent, event_type::kDiagnosis, diagnosisFromEvent)
#undef STAVE_EVENT_TRAITS

class EventDispatch {
 public:
  /// Handles events of T's type (replacing an earlier handler of that type).
  template <typename T>
  EventDispatch& on(std::function<void(const Event&, const T&)> handler) {
    m_handlers[EventTraits<T>::kType] = [this, handler = std::move(handler)](const Event& e) {
      auto typed = EventTraits<T>::decode(e);
      if (typed) handler(e, typed.value());
      else if (m_invalid) m_invalid(e, typed.errors());
    };
    return *this;
  }
  /// Handles events of `type` without decoding their data (a type with no struct, or one
  /// whose data a reader takes as it is).
  EventDispatch& onRaw(const std::string& type, std::function<void(const Event&)> handler) {
    m_handlers[type] = std::move(handler);
    return *this;
  }
  /// An event whose data does not decode into its struct, with the reason.
  EventDispatch& invalid(std::function<void(const Event&, const std::string&)> handler) {
    m_invalid = [handler = std::move(handler)](const Event& e, const std::vector<Error>& why) {
      handler(e, joinErrors(why));
    };
    return *this;
  }
  /// The same, with the reasons as errors (their catalog messages for the studio's language).
  EventDispatch& invalid(std::function<void(const Event&, const std::vector<Error>&)> handler) {
    m_invalid = std::move(handler);
    return *this;
  }
  /// An event of a type no handler takes.
  EventDispatch& otherwise(std::function<void(const Event&)> handler) {
    m_otherwise = std::move(handler);
    return *this;
  }
  /// Whether a handler takes `type`.
  bool handles(const std::string& type) const { return m_handlers.count(type) > 0; }
  /// Calls the handler of `e`'s type.
  void operator()(const Event& e) const {
    const auto it = m_handlers.find(e.type);
    if (it != m_handlers.end()) it->second(e);
    else if (m_otherwise) m_otherwise(e);
  }

 private:
  std::unordered_map<std::string, std::function<void(const Event&)>> m_handlers;
  std::function<void(const Event&, const std::vector<Error>&)> m_invalid;
  std::function<void(const Event&)> m_otherwise;
};

}  // namespace stave::telemetry
