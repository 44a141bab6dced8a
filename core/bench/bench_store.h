#pragma once
// `stave-train bench store`: the experiment history's ingestion speed (events.jsonl decoded
// and stored) against a plain SQLite INSERT loop in the same run, and the GUI's curve query
// over many runs. No torch, no Qt.

#include <nlohmann/json.hpp>

#include "core/base/result.h"

namespace stave::bench {

/// Sizes of the benchmark.
struct BenchStoreOptions {
  int rows = 200000;   ///< metric rows ingested and inserted
  int runs = 20;       ///< runs of the curve query
  int points = 10000;  ///< points per run of the curve query
};

/// Runs the reference, the ingestion and the curve query in a temporary folder; JSON with
/// rows/s of both, their ratio, the target (50,000 rows/s) and the query's time. Errors: the
/// store could not be opened or a run not ingested.
Result<nlohmann::json> benchStore(const BenchStoreOptions& options);

}  // namespace stave::bench
