#pragma once
// The subcommand registry of stave-train. Each cmd_*.cpp file defines one command with
// STAVE_COMMAND: its options are declared on a CLI11 subcommand, which parses and checks the
// command line and writes every command's --help; main() builds the whole command tree, parses
// once and runs the command that was named.

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.h"
#include "core/config/schema.h"

namespace stave::cli {

/// Exit codes shared by every subcommand.
enum ExitCode : int {
  kOk = 0,        ///< success
  kProblems = 1,  ///< ran, but found problems (check-dataset) or the run failed
  kUsage = 2,     ///< bad command line, or input that cannot be used at all
};

/// What runs a command once its command line has been parsed; returns the exit code.
using RunFunction = std::function<int()>;

/// One subcommand: its name ("val", or "bench loader": `loader` under `bench`), a one-line
/// summary, the synopsis and notes of its --help, and the function that declares its options.
struct Command {
  std::string name;
  std::string summary;
  /// Synopsis line(s) shown after "usage: " (in --help and under a usage error).
  std::string usage;
  /// Text shown after the option list in --help ("" = none).
  std::string notes;
  /// Declares the command's options (and positionals) on `app`, bound to state the returned
  /// function owns, and returns that function. Called once, before the command line is parsed.
  std::function<RunFunction(CLI::App& app)> setup;
  /// Ultralytics' `key=value` form names this command's options too: `val model=best.pt
  /// max_det=100` is `val --model=best.pt --max-det=100` (snake_case keys, kebab-case options).
  bool keyValueOptions = false;
};

/// Registers a command at static-initialisation time; returns true.
bool registerCommand(Command command);
/// All registered commands, sorted by name.
std::vector<const Command*> commands();
/// The command called `name`, or nullptr.
const Command* findCommand(const std::string& name);

/// Prints `message` to stderr as "stave-train <command>: message", then the command's synopsis,
/// and returns kUsage.
int usageError(const std::string& command, const std::string& message);

/// Prints each error as "stave-train <command>: error: <error>" and returns kUsage.
int reportErrors(const std::string& command, const std::vector<Error>& errors);

/// reportErrors, and with `json` also the errors on stdout, for a program that reads them (the
/// studio): {"errors": [{"file", "line", "key", "message", "message_text"}]}, message_text the
/// message as catalog ids (docs/events.md; [] when it has none).
int reportErrors(const std::string& command, const std::vector<Error>& errors, bool json);

/// The path of the running stave-train binary (to start workers of itself).
std::string selfExecutable();

/// stave-train's --help layout: the root lists every command with its summary, a command shows
/// "usage: <synopsis>", its summary, CLI11's option list (descriptions wrapped) and its notes.
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override;
  std::string make_option_desc(const CLI::Option* opt) const override;
};

// Validators for option values. Each failure reads "<option>: <why>" (CLI11 puts the name in).

/// A whole number in [lo, hi]: "expected a whole number from lo to hi, got 'x'".
CLI::Validator wholeNumber(long long lo, long long hi);
/// A whole number >= lo: "expected a whole number >= lo, got 'x'".
CLI::Validator atLeast(long long lo);
/// A decimal number >= lo: "expected a number >= lo, got 'x'".
CLI::Validator numberAtLeast(double lo);
/// A decimal number > lo: "must be above lo, got x".
CLI::Validator numberAbove(double lo);
/// A value of the run config's key `key`, read and checked by its schema row (type, range,
/// choices, the row's own rules), with the message a config file gets ("0 is out of range:
/// ..."); the value is passed on as the schema writes it (yes -> true for channels_last).
CLI::Validator schemaValue(std::string_view key);
/// An option of `app` that mirrors the run config's key `key`: `name` into `var`, its value
/// read and checked by schemaValue(key), shown as `typeName`, its default (var's value now)
/// shown in --help. Further checks chain on the result.
template <typename T>
CLI::Option* keyOption(CLI::App& app, const std::string& name, T& var, std::string_view key,
                       const std::string& help, const std::string& typeName) {
  return app.add_option(name, var, help)
      ->type_name(typeName)
      ->transform(schemaValue(key))
      ->capture_default_str();
}
/// schemaValue("imgsz"), or 0 (= the checkpoint's training size).
CLI::Validator imgszOrZero();

/// The schema's default of `key` (a bool, int or float row) as the type of an option's variable:
/// a command option that mirrors a run-config key starts from the key's default.
template <typename T>
T schemaDefault(std::string_view key) {
  return static_cast<T>(config::defaultNumber(key));
}
/// The schema's default of `key` as text (enum and string rows: precision, channels_last).
std::string schemaDefaultText(std::string_view key);

}  // namespace stave::cli

#define STAVE_CMD_CONCAT2(a, b) a##b
#define STAVE_CMD_CONCAT(a, b) STAVE_CMD_CONCAT2(a, b)
/// Registers a Command object (expression) with the registry.
#define STAVE_COMMAND(...)                                         \
  static const bool STAVE_CMD_CONCAT(s_stave_command_, __LINE__) = \
      ::stave::cli::registerCommand(__VA_ARGS__)
