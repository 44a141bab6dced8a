#pragma once
// A run's run_start event read back from its events.jsonl: what the run recorded about itself
// when it started (its dataset, the label edit log's position), for readers that need only that.

#include <cstddef>
#include <string>

#include "core/base/result.h"
#include "core/telemetry/events.h"

namespace stave::telemetry {

/// The first run_start event in the events file at `path`, looked for in its first `maxBytes`
/// (run_start comes first; a day's events are a gigabyte and are not read for it). The error
/// names the file: it cannot be read, or holds no run_start that early.
Result<RunStartEvent> readFirstRunStart(const std::string& path, size_t maxBytes = size_t{8} << 20);

}  // namespace stave::telemetry
