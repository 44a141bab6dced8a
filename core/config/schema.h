#pragma once
// The RunConfig schema: one row per training parameter. The parser, the validator, command-line
// overrides, the exports, the docs table, the resume rules and the GUI form are all driven by this
// table, so a new parameter is one row in schema_table.cpp.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/base/message.h"

namespace stave::config {

/// A parameter value. Bool, Int, Float and IntList map to their C++ types; String, Enum and Path
/// are all std::string.
using Value = std::variant<bool, int64_t, double, std::string, std::vector<int64_t>>;

/// The type of a parameter, which decides how its text is parsed and checked.
enum class ParamType { Bool, Int, Float, String, Enum, Path, IntList };

/// Where a parameter is shown (form sections, docs table).
enum class ParamGroup { Model, Data, Optimisation, Augmentation, Hardware, Distributed, Logging };

/// One row of the schema.
struct ParamSpec {
  std::string name;                  ///< key, Ultralytics' snake_case name where it has one
  ParamType type;                    ///< how the value is parsed and checked
  Value defaultValue;                ///< the value when a config does not set it
  double min;                        ///< inclusive lower bound for Int/Float (-inf: none)
  double max;                        ///< inclusive upper bound for Int/Float (+inf: none)
  std::vector<std::string> choices;  ///< the allowed values of an Enum
  ParamGroup group;                  ///< section it belongs to
  std::string help;                  ///< one line for users
  bool ultralytics;                  ///< Ultralytics has this parameter (same name)
  /// A resume (`resume=true`) may change it: it alters neither what the run has learned nor how
  /// its next step is computed (how long, how often, validation, checkpoints, the loader's
  /// speed, where the ranks meet, the run's telemetry). A resume changing any other key is
  /// refused (train::checkResume).
  bool resumable;
};

/// The schema, in display order.
const std::vector<ParamSpec>& runConfigSchema();
/// The row called `name`, or nullptr.
const ParamSpec* findParam(std::string_view name);
/// Position of `name` in runConfigSchema(); STAVE_CHECKs that it exists.
size_t paramIndex(std::string_view name);

/// The default of a bool, int or float row as a number (bools as 0/1). The engine's option
/// structs take their defaults from here, so the schema is the one place they are written;
/// STAVE_CHECKs that the row exists and is numeric.
double defaultNumber(std::string_view name);

/// The known key closest to `name` (edit distance), or "" when nothing is close.
std::string closestParam(std::string_view name);

/// "bool", "int", "float", "string", "enum", "path", "int list".
const char* paramTypeName(ParamType type);
/// "model", "data", "optimisation", "augmentation", "hardware", "distributed", "logging".
const char* paramGroupName(ParamGroup group);
/// All groups in display order.
const std::vector<ParamGroup>& paramGroups();

/// True when `value` holds the C++ type that `type` uses.
bool valueHasType(ParamType type, const Value& value);
/// Human text of a value: true/false, shortest exact number, raw string, "1,2,3".
std::string formatValue(const Value& value);
/// Shortest decimal text that reads back to exactly `v`, always with a '.' or exponent so it reads
/// as a float in YAML 1.1 and 1.2 (e.g. "3.0", "1.0e-05").
std::string formatFloat(double v);
/// The valid range or choices of a parameter in words, e.g. "an integer in [1, 4096]".
std::string describeRange(const ParamSpec& spec);
/// The same as a catalog message.
Text describeRangeText(const ParamSpec& spec);

/// True for an enum whose choices include "true" and "false" (channels_last: auto, true, false):
/// it reads every spelling of a bool (yes, on, a JSON bool) as those choices.
bool enumTakesBool(const ParamSpec& spec);

/// Parses the text of one value (command line, unquoted YAML scalar) as `spec`'s type. On failure
/// returns nullopt and sets `why` (e.g. "expected an integer, got 'abc'").
std::optional<Value> parseValueText(const ParamSpec& spec, std::string_view text, std::string* why);
/// Checks type, range, choices and the parameter's own rules. Returns "" when valid, else the
/// problem including the valid range.
std::string checkValue(const ParamSpec& spec, const Value& value);
/// The same problem as catalog messages (core/base/message.h); empty when the value is valid.
TextParts checkValueText(const ParamSpec& spec, const Value& value);

/// The built-in network a `model` value names, as "yolov8s" or "yolo11n": "yolov8s.yaml" ->
/// "yolov8s", a lone scale letter (Stave's checkpoints before YOLO11) -> "yolov8<letter>"; ""
/// when it names none (a checkpoint file, a typo).
std::string modelName(std::string_view model);

/// The scale letter of a `model` value: "yolo11s.yaml" -> "s"; "" when not a known model.
std::string modelScale(std::string_view model);

/// Whether a `model` value is a checkpoint file ("yolo11n.pt", "runs/a/weights/best.pt"), which
/// gives both the architecture and the starting weights, as Ultralytics reads `model=`.
bool isCheckpointModel(std::string_view model);

/// The parameter table as Markdown (docs/config.md).
std::string schemaMarkdown();
/// The keys a resume may change, in schema order, each between `quote`s and joined by ", "
/// (the refusal message, the README's list).
std::string resumableKeys(const char* quote = "`");

/// The translation context of the schema's texts in the studio.
inline constexpr const char* kSchemaTrContext = "stave::config::Schema";
/// A C++ source listing every parameter help text and group name for Qt's lupdate
/// (core/studio/schema_strings.cpp is this output; `stave-train config-docs --format tr`).
std::string schemaTranslationSource();

}  // namespace stave::config
