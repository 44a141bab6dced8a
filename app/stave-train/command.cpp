#include "app/stave-train/command.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <iostream>
#include <map>

namespace stave::cli {
namespace {
std::map<std::string, Command>& registry() {
  static std::map<std::string, Command> r;  // function-local: safe during static init
  return r;
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

Args::Args(const std::vector<std::string>& args, const std::vector<std::string>& valueFlags,
           const std::vector<std::string>& switches) {
  auto contains = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() > 2 && a.rfind("--", 0) == 0) {
      std::string flag = a.substr(2);
      std::string value;
      bool inlineValue = false;
      if (auto eq = flag.find('='); eq != std::string::npos) {
        value = flag.substr(eq + 1);
        flag = flag.substr(0, eq);
        inlineValue = true;
      }
      if (contains(switches, flag)) {
        if (inlineValue) {
          m_error = "--" + flag + " takes no value";
          return;
        }
        m_values.emplace_back(flag, "1");
      } else if (contains(valueFlags, flag)) {
        if (!inlineValue) {
          if (i + 1 >= args.size()) {
            m_error = "--" + flag + " needs a value";
            return;
          }
          value = args[++i];
        }
        m_values.emplace_back(flag, value);
      } else {
        m_error = "unknown option --" + flag;
        return;
      }
    } else {
      m_positional.push_back(a);
    }
  }
}

std::vector<std::string> keyValueAsFlags(
    const std::vector<std::string>& args,
    const std::vector<std::pair<std::string, std::string>>& keys) {
  std::vector<std::string> out;
  out.reserve(args.size());
  for (const auto& a : args) {
    const auto eq = a.find('=');
    std::string mapped;
    if (eq != std::string::npos && eq > 0 && a[0] != '-') {
      const std::string k = a.substr(0, eq);
      for (const auto& [key, flag] : keys)
        if (key == k) mapped = "--" + flag + "=" + a.substr(eq + 1);
    }
    out.push_back(mapped.empty() ? a : mapped);
  }
  return out;
}

bool Args::has(const std::string& flag) const {
  for (const auto& [k, v] : m_values)
    if (k == flag) return true;
  return false;
}

std::string Args::value(const std::string& flag, const std::string& fallback) const {
  for (auto it = m_values.rbegin(); it != m_values.rend(); ++it)
    if (it->first == flag) return it->second;
  return fallback;
}

int usageError(const std::string& command, const std::string& message) {
  std::cerr << "stave-train " << command << ": " << message << "\n";
  if (const Command* c = findCommand(command)) std::cerr << "usage: " << c->usage << "\n";
  return kUsage;
}

int reportErrors(const std::string& command, const std::vector<Error>& errors) {
  for (const auto& e : errors)
    std::cerr << "stave-train " << command << ": error: " << e.toString() << "\n";
  return kUsage;
}

bool parseInt(const std::string& text, int& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE || v < INT_MIN || v > INT_MAX) return false;
  out = static_cast<int>(v);
  return true;
}

std::string selfExecutable() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("stave-train");
}

}  // namespace stave::cli
