#pragma once
// What a stored run recorded about its dataset, for comparing two runs' label files
// (data::labelFilesDiffBetweenRuns). Header only: it joins store, data and telemetry, which
// the callers (stave-train history, the History page) link already.
#include <filesystem>
#include <string>
#include <system_error>

#include "core/data/label_history.h"
#include "core/store/store.h"
#include "core/telemetry/run_start_read.h"

namespace stave::store {

/// What run `r` recorded about its dataset: its data.yaml (a relative one taken against the
/// project folder, where the studio starts runs), content hash, start, and the label edit log's
/// position from its run_start (file work: call it off the GUI thread).
inline data::RunDataset runDatasetOf(const RunRecord& r) {
  namespace fs = std::filesystem;
  data::RunDataset d;
  d.contentHash = r.datasetHash;
  d.started = r.started;
  d.dataYaml = r.dataset;
  std::error_code ec;
  if (!d.dataYaml.empty() && fs::path(d.dataYaml).is_relative()) {
    const fs::path inProject = fs::path(r.dir).parent_path().parent_path() / d.dataYaml;
    if (fs::exists(inProject, ec)) d.dataYaml = inProject.string();
  }
  if (auto start = telemetry::readFirstRunStart(r.dir + "/events.jsonl"))
    d.labelEdits = start->dataset.labelEdits;
  return d;
}

}  // namespace stave::store
