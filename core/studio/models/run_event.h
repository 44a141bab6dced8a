#pragma once
// RunEvent: one event of a followed run as the run's reader hands it to the GUI thread — the
// event and its data already decoded into its typed struct, on the reader's thread (a run's
// steps and samples are most of what it writes: decoding them is the reader's work, never the
// GUI's). RunEventDispatch calls one handler per typed event without decoding anything. The
// Run page, the doctor's advice and the run's controller read the run through them. QtCore only.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>

#include "core/config/run_config.h"
#include "core/telemetry/events.h"

namespace stave::studio {

/// An event of a followed run with its data decoded (RunEvent is a telemetry::Event: type,
/// rank, time and the JSON data are there as read).
struct RunEvent : telemetry::Event {
  /// The typed data; std::monostate for a type without a struct or data that did not decode.
  using Typed =
      std::variant<std::monostate, telemetry::RunStartEvent, telemetry::StepEvent,
                   telemetry::EpochEndEvent, telemetry::ValidationEvent, telemetry::CheckpointEvent,
                   telemetry::WarningEvent, telemetry::ErrorEvent, telemetry::FinishedEvent,
                   telemetry::StragglerEvent, telemetry::RankExitEvent,
                   telemetry::ScheduleReplannedEvent, telemetry::GpuSampleEvent,
                   telemetry::SystemSampleEvent, telemetry::DiagnosisEvent>;
  Typed typed;
  /// Why the data did not decode into its struct ("" when it did, or the type has none).
  std::string invalid;
  /// `invalid` as catalog messages, for the studio's language (empty: English only).
  TextParts invalidText;
  /// run_start: its config as the schema reads it, without what names that one run (name,
  /// exist_ok, resume, data) — what a config made from the run starts from; null when it does
  /// not read (a run of another version).
  std::shared_ptr<const config::RunConfig> runConfig;

  /// The typed data when it is a T, else nullptr.
  template <typename T>
  const T* as() const {
    return std::get_if<T>(&typed);
  }
};

/// Decodes `e`'s data into its typed struct (and a run_start's config): the reader's work.
/// Counted (decodeCounts) by the thread it runs on.
RunEvent decodeRunEvent(telemetry::Event e);

/// How many events decodeRunEvent decoded, in all and on the application's main (GUI) thread.
struct RunEventDecodes {
  uint64_t total = 0;
  uint64_t onMainThread = 0;
};
/// The counts since the program started (a test checks that a page's run decodes off the GUI
/// thread).
RunEventDecodes decodeCounts();

/// One handler per typed event of a run, called with the data the reader decoded.
class RunEventDispatch {
 public:
  /// Handles events whose data is a T (replacing an earlier handler for T).
  template <typename T>
  RunEventDispatch& on(std::function<void(const RunEvent&, const T&)> handler) {
    m_handlers[index<T>()] = [handler = std::move(handler)](const RunEvent& e) {
      handler(e, *std::get_if<T>(&e.typed));
    };
    return *this;
  }
  /// An event whose data did not decode into its struct, with the reason.
  RunEventDispatch& invalid(std::function<void(const RunEvent&, const std::string&)> handler) {
    m_invalid = std::move(handler);
    return *this;
  }
  /// Calls the handler of `e`'s typed data (or `invalid`).
  void operator()(const RunEvent& e) const {
    if (!e.invalid.empty()) {
      if (m_invalid) m_invalid(e, e.invalid);
      return;
    }
    if (const auto& h = m_handlers[e.typed.index()]) h(e);
  }

 private:
  template <typename T, size_t I = 0>
  static constexpr size_t index() {
    if constexpr (std::is_same_v<std::variant_alternative_t<I, RunEvent::Typed>, T>)
      return I;
    else
      return index<T, I + 1>();
  }
  std::function<void(const RunEvent&)> m_handlers[std::variant_size_v<RunEvent::Typed>];
  std::function<void(const RunEvent&, const std::string&)> m_invalid;
};

}  // namespace stave::studio
