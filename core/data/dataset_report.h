#pragma once
// What check-dataset prints: per split counts, class and box statistics, and every problem.

#include <string>

#include <nlohmann/json.hpp>

#include "core/base/message.h"
#include "core/data/dataset.h"

namespace stave::data {

/// Statistics of one scanned split as JSON: images, labelled, background, instances,
/// instances per class, box size/aspect and image size statistics, problem counts and list.
nlohmann::json splitReport(const SplitIndex& index, const DataSpec& spec);

/// One line of the report for people as catalog messages (issue 43 §4), for the studio to show
/// in its language; an empty `text` is an empty line.
struct ReportLine {
  int indent = 0;  ///< spaces before the line
  TextParts text;  ///< the line's sentences, in order
};

/// The outcome of checking a whole dataset.
struct DatasetCheck {
  int exitCode = 0;       ///< 0 clean, 1 problems found, 2 the dataset cannot be used at all
  nlohmann::json report;  ///< {"data", "ok", "exit_code", "errors", "splits": {name: splitReport}}
  std::string text;       ///< the same for people, in English (stave-train check-dataset)
  std::vector<ReportLine> lines;  ///< `text`'s lines as catalog messages
};

/// Loads data.yaml and scans train, val and test (when given). `verify` decodes every image.
DatasetCheck checkDataset(const std::string& yamlPath, bool verify, int threads = 0);

}  // namespace stave::data
