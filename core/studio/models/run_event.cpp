#include "core/studio/models/run_event.h"

#include <QCoreApplication>
#include <QThread>
#include <atomic>
#include <string_view>

#include "core/telemetry/event_dispatch.h"

namespace stave::studio {

namespace tel = telemetry;

namespace {

std::atomic<uint64_t> g_decodes{0};
std::atomic<uint64_t> g_mainThreadDecodes{0};

/// Decodes `e` as a T when its type is T's; true when the type was T's.
template <typename T>
bool decodeAs(RunEvent& e) {
  if (e.type != tel::EventTraits<T>::kType) return false;
  auto typed = tel::EventTraits<T>::decode(e);
  if (typed) {
    e.typed = std::move(typed.value());
  } else {
    e.invalid = typed.errorText();
    e.invalidText = textOfErrors(typed.errors());
  }
  return true;
}

/// Each alternative of RunEvent::Typed but the first (std::monostate) in turn.
template <size_t... I>
void decodeAny(RunEvent& e, std::index_sequence<I...>) {
  (decodeAs<std::variant_alternative_t<I + 1, RunEvent::Typed>>(e) || ...);
}

}  // namespace

RunEvent decodeRunEvent(tel::Event in) {
  ++g_decodes;
  const QCoreApplication* app = QCoreApplication::instance();
  if (app && QThread::currentThread() == app->thread()) ++g_mainThreadDecodes;
  RunEvent e;
  static_cast<tel::Event&>(e) = std::move(in);
  decodeAny(e, std::make_index_sequence<std::variant_size_v<RunEvent::Typed> - 1>{});
  if (const auto* start = e.as<tel::RunStartEvent>();
      start && start->config.is_object() && !start->config.empty()) {
    // What names this one run, not how to train: a config made from the run gets its own (as
    // the History page's "new config from a run" does).
    nlohmann::json j = start->config;
    for (const char* k : {"name", "exist_ok", "resume", "data"}) j.erase(k);
    if (auto cfg = config::runConfigFromJson(j, "run_start"))
      e.runConfig = std::make_shared<const config::RunConfig>(std::move(cfg.value()));
  }
  return e;
}

RunEventDecodes decodeCounts() {
  return {g_decodes.load(), g_mainThreadDecodes.load()};
}

}  // namespace stave::studio
