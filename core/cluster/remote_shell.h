#pragma once
// Remote commands as data: an argument vector becomes one command line for the remote login
// shell (POSIX sh: dash, bash, zsh), each word single-quoted, so that paths and names with
// spaces, quotes, '$', ';', backslashes or newlines reach the program as they are and run
// nothing. ssh joins its arguments with spaces and hands the line to that shell, so a command
// must go to ssh as exactly one such line.

#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.h"

namespace stave::cluster {

/// `word` as one POSIX shell word: in single quotes, each ' written as '\'' ("" gives '').
std::string shellWord(std::string_view word);

/// The command line that runs `argv` (argv[0] the program) with each word quoted. An empty
/// vector, or a word holding a NUL byte (no argument can carry one), is an error naming it.
Result<std::string> shellCommand(const std::vector<std::string>& argv);

/// Several commands, each an argument vector, joined by `joiner` (" && ", " ; ", " | ").
Result<std::string> shellCommands(const std::vector<std::vector<std::string>>& commands,
                                  std::string_view joiner = " && ");

}  // namespace stave::cluster
