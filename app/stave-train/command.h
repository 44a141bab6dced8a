#pragma once
// The subcommand registry of stave-train. Each cmd_*.cpp file defines one command with
// STAVE_COMMAND; main() looks the name up and runs it.

#include <functional>
#include <string>
#include <vector>

#include "core/base/result.h"

namespace stave::cli {

/// Exit codes shared by every subcommand.
enum ExitCode : int {
  kOk = 0,        ///< success
  kProblems = 1,  ///< ran, but found problems (check-dataset) or the run failed
  kUsage = 2,     ///< bad command line, or input that cannot be used at all
};

/// One subcommand: its name, a one-line summary, its full usage text and its entry point.
struct Command {
  std::string name;
  std::string summary;
  std::string usage;
  std::function<int(const std::vector<std::string>& args)> run;
};

/// Registers a command at static-initialisation time; returns true.
bool registerCommand(Command command);
/// All registered commands, sorted by name.
std::vector<const Command*> commands();
/// The command called `name`, or nullptr.
const Command* findCommand(const std::string& name);

/// Minimal argument reader shared by the commands: `--flag value`, `--flag=value`, `--switch`,
/// and positional arguments. Unknown flags are an error that names the flag.
class Args {
 public:
  /// `valueFlags` take a value, `switches` do not; both without the leading "--".
  Args(const std::vector<std::string>& args, const std::vector<std::string>& valueFlags,
       const std::vector<std::string>& switches);
  bool ok() const { return m_error.empty(); }
  const std::string& error() const { return m_error; }
  bool has(const std::string& flag) const;
  std::string value(const std::string& flag, const std::string& fallback = {}) const;
  const std::vector<std::string>& positional() const { return m_positional; }

 private:
  std::vector<std::pair<std::string, std::string>> m_values;
  std::vector<std::string> m_positional;
  std::string m_error;
};

/// Ultralytics' `key=value` form of a command line (`val model=best.pt data=coco.yaml`): every
/// argument `k=v` whose k is a key of `keys` becomes `--keys[k]=v`; the rest is unchanged.
std::vector<std::string> keyValueAsFlags(const std::vector<std::string>& args,
                                         const std::vector<std::pair<std::string, std::string>>& keys);

/// Prints `message` to stderr as "stave-train <command>: message" and returns kUsage.
int usageError(const std::string& command, const std::string& message);

/// Prints each error as "stave-train <command>: error: <error>" and returns kUsage.
int reportErrors(const std::string& command, const std::vector<Error>& errors);

/// Parses a whole decimal integer that fits an int; false on anything else ("", "3x", overflow).
bool parseInt(const std::string& text, int& out);

/// The path of the running stave-train binary (to start workers of itself).
std::string selfExecutable();

}  // namespace stave::cli

#define STAVE_CMD_CONCAT2(a, b) a##b
#define STAVE_CMD_CONCAT(a, b) STAVE_CMD_CONCAT2(a, b)
/// Registers a Command object (expression) with the registry.
#define STAVE_COMMAND(...)                                         \
  static const bool STAVE_CMD_CONCAT(s_stave_command_, __LINE__) = \
      ::stave::cli::registerCommand(__VA_ARGS__)
