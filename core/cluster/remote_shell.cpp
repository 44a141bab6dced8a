#include "core/cluster/remote_shell.h"

namespace stave::cluster {

std::string shellWord(std::string_view word) {
  // Inside single quotes nothing is special but the closing quote, newlines included; a quote
  // of the word ends the quoted part, is given escaped, and a new quoted part begins.
  std::string out = "'";
  for (const char c : word) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  out += '\'';
  return out;
}

Result<std::string> shellCommand(const std::vector<std::string>& argv) {
  if (argv.empty()) return Error{"", 0, "command", "an empty command"};
  std::string line;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i].find('\0') != std::string::npos)
      return Error{"", 0, "command", "argument " + std::to_string(i) + " holds a NUL byte, which no command can be given"};
    if (i) line += ' ';
    line += shellWord(argv[i]);
  }
  return line;
}

Result<std::string> shellCommands(const std::vector<std::vector<std::string>>& commands, std::string_view joiner) {
  std::string line;
  for (const auto& argv : commands) {
    auto one = shellCommand(argv);
    if (!one) return one.errors();
    if (!line.empty()) line += joiner;
    line += one.value();
  }
  if (line.empty()) return Error{"", 0, "command", "no command"};
  return line;
}

}  // namespace stave::cluster
