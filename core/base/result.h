#pragma once
// Result types for input from users and files: a value, or the errors that explain why not.
// Broken invariants inside the program use STAVE_CHECK (a typed exception) instead.

#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/base/message.h"

namespace stave {

/// One problem with user input: where it is (file, line, key) and what is wrong.
struct Error {
  std::string file;     ///< the file the problem is in, or "" (e.g. the command line)
  int line = 0;         ///< 1-based line in `file`, 0 when unknown
  std::string key;      ///< the config key or field, or ""
  std::string message;  ///< what is wrong, including the valid range where there is one
  TextParts text = {};  ///< `message` as catalog messages, for the studio (empty: English only)

  /// "file:line: key: message", leaving out the parts that are empty.
  std::string toString() const {
    std::ostringstream os;
    if (!file.empty()) {
      os << file;
      if (line > 0) os << ':' << line;
      os << ": ";
    }
    if (!key.empty()) os << key << ": ";
    os << message;
    return os.str();
  }
};

/// An error whose message is a catalog message (core/base/message.h): its English is `message`.
inline Error textError(std::string file, int line, std::string key, TextParts text) {
  Error e{std::move(file), line, std::move(key), english(text)};
  e.text = std::move(text);
  return e;
}
inline Error textError(std::string file, int line, std::string key, Text text) {
  return textError(std::move(file), line, std::move(key), TextParts{std::move(text)});
}

/// The errors as catalog messages, one per line, each after its "file:line: key: " (as
/// toString() says it), or empty when one of them has no catalog form: then only the English
/// says them, and a reader shows that instead of a sentence half translated.
inline TextParts textOfErrors(const std::vector<Error>& errors) {
  TextParts out;
  for (const auto& e : errors) {
    if (e.text.empty()) return {};
    Error where = e;
    where.message.clear();
    const std::string prefix = (out.empty() ? "" : "\n") + where.toString();
    if (!prefix.empty()) out.push_back(Text("plain", {{"text", prefix}}));
    out.insert(out.end(), e.text.begin(), e.text.end());
  }
  return out;
}

/// All errors, one per line.
inline std::string joinErrors(const std::vector<Error>& errors) {
  std::string out;
  for (const auto& e : errors) {
    if (!out.empty()) out += '\n';
    out += e.toString();
  }
  return out;
}

/// A value of type T, or one or more errors.
template <typename T>
class Result {
 public:
  Result(T value) : m_value(std::move(value)) {}                      // NOLINT: implicit by design
  Result(Error error) : m_errors{std::move(error)} {}                 // NOLINT
  Result(std::vector<Error> errors) : m_errors(std::move(errors)) {}  // NOLINT

  bool ok() const { return m_value.has_value(); }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return *m_value; }
  T& value() & { return *m_value; }
  T&& value() && { return std::move(*m_value); }
  const T* operator->() const { return &*m_value; }
  T* operator->() { return &*m_value; }
  const std::vector<Error>& errors() const { return m_errors; }
  std::string errorText() const { return joinErrors(m_errors); }

 private:
  std::optional<T> m_value;
  std::vector<Error> m_errors;
};

/// Result for operations that return nothing.
struct Ok {};
using Status = Result<Ok>;

/// Thrown by STAVE_CHECK when an invariant inside the program is broken.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

}  // namespace stave

/// Checks an invariant; throws stave::InternalError naming the file, line and condition.
#define STAVE_CHECK(cond, msg)                                                                \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      std::ostringstream stave_check_os_;                                                     \
      stave_check_os_ << __FILE__ << ':' << __LINE__ << ": check failed: " #cond ": " << msg; \
      throw ::stave::InternalError(stave_check_os_.str());                                    \
    }                                                                                         \
  } while (0)
