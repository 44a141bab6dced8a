#pragma once
// RunConfig: one value for every row of the schema, with typed getters, YAML/JSON io,
// command-line overrides, validation and the derived values users see (global batch, ...).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/result.h"
#include "core/config/schema.h"

namespace stave::config {

/// A complete set of training parameters: every schema key has a value (its default unless set).
class RunConfig {
 public:
  /// Every key at its schema default.
  static RunConfig defaults();

  /// Typed getters; throw stave::InternalError on an unknown key or a type mismatch (a bug).
  bool getBool(std::string_view key) const;
  int64_t getInt(std::string_view key) const;
  /// Accepts Int parameters too.
  double getFloat(std::string_view key) const;
  std::string getString(std::string_view key) const;
  std::vector<int64_t> getIntList(std::string_view key) const;
  /// The raw value; throws stave::InternalError on an unknown key.
  const Value& get(std::string_view key) const;

  /// Sets a value after checking the key and the type (an int is accepted for a float key). Range
  /// and choices are checked by validate() so a form can hold an out-of-range edit.
  Status set(std::string_view key, Value value);

  /// True when `key` holds its schema default.
  bool isDefault(std::string_view key) const;
  /// Keys whose value differs from the default, in schema order.
  std::vector<std::string> changedKeys() const;

  bool operator==(const RunConfig& other) const { return m_values == other.m_values; }
  bool operator!=(const RunConfig& other) const { return !(*this == other); }

 private:
  RunConfig() = default;
  std::vector<Value> m_values;  // in runConfigSchema() order
};

/// Reads a config file, YAML or JSON (decided by content). Errors name the file, line and key;
/// a file with no setting in it (empty, blank or only comments) is an error naming the file.
Result<RunConfig> loadRunConfig(const std::string& path);
/// Reads a config file, then applies `key=value` overrides; all errors together.
Result<RunConfig> loadRunConfigWithOverrides(const std::string& path,
                                             const std::vector<std::string>& overrides);
/// Parses YAML (or JSON, which is read with the same line-aware parser) text; keys not set keep
/// their defaults. `sourceName` names the text in errors (a file path, "<stdin>").
Result<RunConfig> parseRunConfigYaml(const std::string& text, const std::string& sourceName);
/// Parses a JSON object already in memory (e.g. a project's config); `sourceName` prefixes keys.
Result<RunConfig> runConfigFromJson(const nlohmann::json& object, const std::string& sourceName,
                                    const RunConfig& base = RunConfig::defaults());

/// Every key in schema order, with group headings and help as comments. Reads back exactly.
std::string toYaml(const RunConfig& config);
/// Every key in schema order as a JSON object text. Reads back exactly.
std::string toJson(const RunConfig& config);
/// The config as a JSON object (all keys, or only the ones that differ from the defaults).
nlohmann::ordered_json toJsonObject(const RunConfig& config, bool onlyChanged = false);

/// Applies "key=value" strings (the command line). Errors name "command line", the key and the
/// valid range; every bad item is reported. Values are checked against the schema as they are set.
Status applyOverrides(RunConfig& config, const std::vector<std::string>& keyValues);

/// Every problem with the config: ranges, choices, per-key rules and rules across keys.
std::vector<Error> validate(const RunConfig& config);

/// Why `name` cannot be a run name (one path component: no '/', not "." or "..", no control
/// characters or line breaks), or "" when it can.
std::string runNameProblem(const std::string& name);

/// Whether a resumed run may change `key`: its schema row's `resumable` (epochs, patience,
/// validation and loader settings, rendezvous addresses, ...); every other key must equal the
/// checkpoint's.
bool resumeMayChange(std::string_view key);

/// What `optimizer` resolves to.
struct OptimizerChoice {
  bool sgd = true;          ///< SGD (Nesterov) when true, AdamW otherwise
  double lr0 = 0.01;        ///< learning rate to use (before batch scaling)
  double momentum = 0.9;    ///< momentum / beta1
  bool autoChosen = false;  ///< picked by 'auto' (then warmup_bias_lr is forced to 0)
};

/// Resolves `optimizer` ("auto", "SGD", "AdamW", case-insensitive) as Ultralytics documents:
/// auto with more than 10000 iterations -> SGD lr 0.01 momentum 0.9, else AdamW with
/// lr = round(0.002 * 5 / (4 + nc), 6), momentum 0.9. `iterations` = ceil(images /
/// max(global batch, nbs)) * epochs. Throws InternalError on an unknown name (validated earlier).
OptimizerChoice chooseOptimizer(const char* name, double lr0, double momentum, int64_t iterations,
                                int nc);

/// Weight decay scaled as Ultralytics does: weight_decay * batch * accumulate / nbs.
double scaledWeightDecay(double weightDecay, int64_t globalBatch, int64_t accumulate, int64_t nbs);

/// What derive() needs to know of the dataset to resolve optimizer=auto (-1 = not known).
struct DatasetSize {
  int64_t trainImages = -1;  ///< images of the train split (after `fraction`)
  int nc = -1;               ///< classes
};

/// Values derived from the config, the world size and the dataset, as the trainer uses them:
/// the one place the learning rate and weight decay are scaled and optimizer=auto is resolved
/// (the trainer, the studio's form and show-project all read them from here).
struct Derived {
  int64_t globalBatch;  ///< batch x worldSize
  int64_t accumulate;   ///< max(round(nbs / globalBatch), 1) micro-steps per optimizer step
  double weightDecay;   ///< weight_decay x globalBatch x accumulate / nbs (as Ultralytics)
  /// "SGD" or "AdamW"; "auto" while optimizer=auto cannot be resolved (dataset not known)
  std::string optimizer;
  bool autoChosen;       ///< optimizer=auto picked it (warmup_bias_lr is then 0)
  double lrScale;        ///< globalBatch / 64 with scale_lr_with_batch, else 1
  double lr0;            ///< the learning rate trained with: the optimiser's lr0 x lrScale
  double momentum;       ///< momentum / beta1 of that optimiser
  double warmupBiasLr;   ///< warmup_bias_lr, 0 when auto chose the optimiser
  int64_t iterations;    ///< optimiser steps of the run (-1 when the dataset is not known)
};
/// Derived values for `worldSize` ranks; `dataset` resolves optimizer=auto.
Derived derive(const RunConfig& config, int worldSize, const DatasetSize& dataset = {});

}  // namespace stave::config
