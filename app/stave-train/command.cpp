#include "app/stave-train/command.h"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "core/telemetry/events.h"

namespace stave::cli {
namespace {
std::map<std::string, Command>& registry() {
  static std::map<std::string, Command> r;  // function-local: safe during static init
  return r;
}

/// Width of a --help line; descriptions are wrapped to what is left after the option column.
constexpr size_t kHelpWidth = 100;

/// `text` with each paragraph (split at '\n') wrapped at spaces to `width` characters.
std::string wrap(const std::string& text, size_t width) {
  std::string out;
  std::istringstream paragraphs(text);
  std::string paragraph;
  bool firstParagraph = true;
  while (std::getline(paragraphs, paragraph)) {
    if (!firstParagraph) out += '\n';
    firstParagraph = false;
    std::istringstream words(paragraph);
    size_t column = 0;
    for (std::string word; words >> word;) {
      if (column > 0 && column + 1 + word.size() > width) {
        out += '\n';
        column = 0;
      } else if (column > 0) {
        out += ' ';
        ++column;
      }
      out += word;
      column += word.size();
    }
  }
  return out;
}

/// The command name of a subcommand: its own name after its parents' ("bench loader").
std::string commandName(const CLI::App* app) {
  std::string name;
  for (; app && app->get_parent(); app = app->get_parent())
    name = name.empty() ? app->get_name() : app->get_name() + " " + name;
  return name;
}

/// "  name<padding>summary" lines for the commands whose names start with `prefix`.
std::string commandList(const std::string& prefix) {
  std::string out;
  for (const auto* c : commands()) {
    if (c->name.rfind(prefix, 0) != 0) continue;
    std::string name = c->name.substr(prefix.size());
    name.resize(std::max<size_t>(name.size() + 2, 20), ' ');
    out += "  " + name + c->summary + "\n";
  }
  return out;
}

/// A whole decimal number that fits a long long; false on anything else ("", "3x", "1e3").
bool parseWhole(const std::string& text, long long& out) {
  if (text.empty() || text.find_first_not_of("+-0123456789") != std::string::npos) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtoll(text.c_str(), &end, 10);
  return end != text.c_str() && *end == '\0' && errno != ERANGE;
}

/// A finite decimal number (no hex, inf or nan).
bool parseNumber(const std::string& text, double& out) {
  if (text.empty() || text.find_first_not_of("+-.0123456789eE") != std::string::npos) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtod(text.c_str(), &end);
  return end != text.c_str() && *end == '\0' && errno != ERANGE && std::isfinite(out);
}

std::string numberText(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}
}  // namespace

bool registerCommand(Command command) {
  const std::string name = command.name;
  registry()[name] = std::move(command);
  return true;
}

std::vector<const Command*> commands() {
  std::vector<const Command*> out;
  for (const auto& [name, cmd] : registry()) out.push_back(&cmd);
  return out;
}

const Command* findCommand(const std::string& name) {
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : &it->second;
}

int usageError(const std::string& command, const std::string& message) {
  std::cerr << "stave-train " << command << ": " << message << "\n";
  if (const Command* c = findCommand(command))
    std::cerr << "usage: " << c->usage << "\n('stave-train " << command
              << " --help' lists every option)\n";
  return kUsage;
}

int reportErrors(const std::string& command, const std::vector<Error>& errors) {
  for (const auto& e : errors)
    std::cerr << "stave-train " << command << ": error: " << e.toString() << "\n";
  return kUsage;
}

int reportErrors(const std::string& command, const std::vector<Error>& errors, bool json) {
  if (json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& e : errors)
      list.push_back({{"file", e.file},
                      {"line", e.line},
                      {"key", e.key},
                      {"message", e.message},
                      {"message_text", telemetry::textToJson(e.text)}});
    std::cout << nlohmann::json{{"errors", list}}.dump(2) << "\n";
  }
  return reportErrors(command, errors);
}

std::string selfExecutable() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("stave-train");
}

std::string HelpFormatter::make_help(const CLI::App* app, std::string name,
                                     CLI::AppFormatMode mode) const {
  const std::string command = commandName(app);
  if (command.empty()) {
    return "stave-train " STAVE_VERSION
           " - train YOLO detectors on one to many GPUs\n\n"
           "usage: stave-train <command> [options]\n\ncommands:\n" +
           commandList("") + "\n'stave-train <command> --help' shows a command's options.\n";
  }
  const Command* c = findCommand(command);
  if (!c) {  // a group of commands ("bench")
    return "usage: stave-train " + command + " <" + app->get_description() +
           "> [options]\n\ncommands:\n" + commandList(command + " ") + "\n'stave-train " + command +
           " <command> --help' shows a command's options.\n";
  }
  std::string out = "usage: " + c->usage + "\n\n" + c->summary + "\n";
  out += make_positionals(app);
  out += make_groups(app, mode);
  if (!c->notes.empty()) out += "\n" + c->notes + "\n";
  (void)name;
  return out;
}

std::string HelpFormatter::make_option_desc(const CLI::Option* opt) const {
  const size_t column = get_column_width();
  return wrap(opt->get_description(), column < kHelpWidth - 30 ? kHelpWidth - column : 30);
}

CLI::Validator wholeNumber(long long lo, long long hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        long long v = 0;
        if (parseWhole(text, v) && v >= lo && v <= hi) return {};
        return "expected a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
               ", got '" + text + "'";
      },
      "");
}

CLI::Validator atLeast(long long lo) {
  return CLI::Validator(
      [lo](std::string& text) -> std::string {
        long long v = 0;
        if (parseWhole(text, v) && v >= lo && v <= INT_MAX) return {};
        return "expected a whole number >= " + std::to_string(lo) + ", got '" + text + "'";
      },
      "");
}

CLI::Validator numberAtLeast(double lo) {
  return CLI::Validator(
      [lo](std::string& text) -> std::string {
        double v = 0;
        if (parseNumber(text, v) && v >= lo) return {};
        return "expected a number >= " + numberText(lo) + ", got '" + text + "'";
      },
      "");
}

CLI::Validator numberAbove(double lo) {
  return CLI::Validator(
      [lo](std::string& text) -> std::string {
        double v = 0;
        if (!parseNumber(text, v)) return "expected a number, got '" + text + "'";
        if (v <= lo) return "must be above " + numberText(lo) + ", got " + text;
        return {};
      },
      "");
}

CLI::Validator schemaValue(std::string_view key) {
  const config::ParamSpec* spec = config::findParam(key);
  if (!spec) throw std::logic_error("schemaValue: no config key '" + std::string(key) + "'");
  return CLI::Validator(
      [spec](std::string& text) -> std::string {
        std::string why;
        const auto v = config::parseValueText(*spec, text, &why);
        if (!v) return why;
        if (why = config::checkValue(*spec, *v); !why.empty()) return why;
        text = config::formatValue(*v);
        return {};
      },
      "");
}

CLI::Validator imgszOrZero() {
  const CLI::Validator imgsz = schemaValue("imgsz");
  return CLI::Validator(
      [imgsz](std::string& text) -> std::string { return text == "0" ? "" : imgsz(text); }, "");
}

std::string schemaDefaultText(std::string_view key) {
  const config::ParamSpec* spec = config::findParam(key);
  if (!spec) throw std::logic_error("schemaDefaultText: no config key '" + std::string(key) + "'");
  return config::formatValue(spec->defaultValue);
}

}  // namespace stave::cli
