// stave-train bench store: history ingestion speed against a plain INSERT loop in the same
// run, and the GUI's curve query (20 runs x 10,000 points). Prints JSON.
#include <iostream>
#include <memory>

#include "app/stave-train/command.h"
#include "core/bench/bench_store.h"

namespace {

int run(const stave::bench::BenchStoreOptions& o) {
  auto j = stave::bench::benchStore(o);
  if (!j) return stave::cli::usageError("bench store", j.errorText());
  std::cout << j->dump(2) << "\n";
  return stave::cli::kOk;
}

stave::cli::RunFunction setup(CLI::App& app) {
  using stave::cli::atLeast;
  auto o = std::make_shared<stave::bench::BenchStoreOptions>();
  app.add_option("--rows", o->rows, "metric rows ingested (and inserted by the reference)")
      ->type_name("N")
      ->check(atLeast(1000))
      ->capture_default_str();
  app.add_option("--runs", o->runs, "runs of the curve query")
      ->type_name("N")
      ->check(atLeast(1))
      ->capture_default_str();
  app.add_option("--points", o->points, "points per run of the curve query")
      ->type_name("N")
      ->check(atLeast(10))
      ->capture_default_str();
  return [o] { return run(*o); };
}

}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "bench store", "history ingestion rows/s vs a plain INSERT loop; curve query (JSON)",
    "stave-train bench store [--rows N] [--runs N] [--points N]", "", setup});
