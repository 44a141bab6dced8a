#pragma once
// Messages a person reads, as an id from one catalog and its arguments (issue 43 §4): the engine
// writes the English text to its logs and stdout, and its events carry the id and arguments
// beside it, so that the studio shows the same message in the UI language.
//
// The catalog (message.cpp, kCatalog) holds each id once with its English template; arguments
// are named in braces: "ranks wait for data {share} of their step". An argument is a plain value
// (a number, a path, a config key: never translated) or itself a message (translated in turn).
// A message made of several sentences is a list of Texts, read one after the other.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stave {

/// One message of the catalog with its arguments.
struct Text {
  /// One argument: a plain value, or (when `text` is not empty) a message of its own.
  struct Arg {
    std::string name;        ///< the placeholder's name, without braces
    std::string value;       ///< the plain value (when `text` is empty)
    std::vector<Text> text;  ///< a nested message, its sentences in order (empty: plain value)
    Arg(std::string n, std::string v) : name(std::move(n)), value(std::move(v)) {}
    Arg(std::string n, const char* v) : name(std::move(n)), value(v) {}
    Arg(std::string n, Text t);
    Arg(std::string n, std::vector<Text> parts);
  };
  std::string id;         ///< catalog id, e.g. "doctor.data_bound"
  std::vector<Arg> args;  ///< in any order; each placeholder of the template names one

  Text() = default;
  explicit Text(std::string id_, std::vector<Arg> args_ = {})
      : id(std::move(id_)), args(std::move(args_)) {}
};
/// A message of several sentences, read in order.
using TextParts = std::vector<Text>;

/// One entry of the catalog.
struct MessageDef {
  std::string_view id;       ///< stable id: never reused for another meaning
  std::string_view english;  ///< the English template with {name} placeholders
};

/// The whole catalog, in the order it is written.
const std::vector<MessageDef>& messageCatalog();

/// The catalog entry of `id`, or nullptr when the catalog has none.
const MessageDef* findMessage(std::string_view id);

/// The placeholder names of a template, in order ("{share} of {cpu}" → share, cpu).
std::vector<std::string> placeholders(std::string_view tmpl);

/// Replaces each {name} of `tmpl` by `value(name)`; "{{" and "}}" stand for braces.
template <typename F>
std::string fillTemplate(std::string_view tmpl, F value) {
  std::string out;
  out.reserve(tmpl.size() + 16);
  for (size_t i = 0; i < tmpl.size(); ++i) {
    const char ch = tmpl[i];
    if ((ch == '{' || ch == '}') && i + 1 < tmpl.size() && tmpl[i + 1] == ch) {
      out += ch;
      ++i;
    } else if (ch == '{') {
      const size_t end = tmpl.find('}', i);
      if (end == std::string_view::npos) {
        out.append(tmpl.substr(i));
        break;
      }
      out += value(std::string(tmpl.substr(i + 1, end - i - 1)));
      i = end;
    } else {
      out += ch;
    }
  }
  return out;
}

/// The message in English, as logs and stave-train print it. An id the catalog lacks prints
/// as the id followed by its arguments (never silently empty).
std::string english(const Text& text);
/// The sentences in English, one after the other.
std::string english(const TextParts& parts);

}  // namespace stave
