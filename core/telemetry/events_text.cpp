// A message's catalog form (id and arguments, core/base/message.h) as an event field.
#include "core/telemetry/events.h"

namespace stave::telemetry {

using nlohmann::json;

json textToJson(const TextParts& parts) {
  json out = json::array();
  for (const auto& t : parts) {
    json args = json::object();
    for (const auto& a : t.args) args[a.name] = a.text.empty() ? json(a.value) : textToJson(a.text);
    json item{{"msg_id", t.id}};
    if (!args.empty()) item["args"] = std::move(args);
    out.push_back(std::move(item));
  }
  return out;
}

namespace {
// Nested messages are short; a deeper nesting is a malformed (or hostile) line.
constexpr int kMaxDepth = 8;

bool readParts(const json& j, const std::string& at, int depth, TextParts& out,
               std::vector<Error>& errors) {
  if (depth > kMaxDepth) {
    errors.push_back(Error{"", 0, at, "messages nested deeper than " + std::to_string(kMaxDepth)});
    return false;
  }
  if (!j.is_array()) {
    errors.push_back(Error{"", 0, at, "must be a list of {\"msg_id\", \"args\"}"});
    return false;
  }
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string here = at + "[" + std::to_string(i) + "]";
    const json& item = j[i];
    if (!item.is_object() || !item.contains("msg_id") || !item["msg_id"].is_string()) {
      errors.push_back(Error{"", 0, here, "must be an object with a string \"msg_id\""});
      return false;
    }
    Text t(item["msg_id"].get<std::string>());
    if (const auto args = item.find("args"); args != item.end()) {
      if (!args->is_object()) {
        errors.push_back(Error{"", 0, here + ".args", "must be an object"});
        return false;
      }
      for (auto it = args->begin(); it != args->end(); ++it) {
        if (it.value().is_string()) {
          t.args.emplace_back(it.key(), it.value().get<std::string>());
        } else {
          TextParts nested;
          if (!readParts(it.value(), here + ".args." + it.key(), depth + 1, nested, errors))
            return false;
          t.args.emplace_back(it.key(), std::move(nested));
        }
      }
    }
    out.push_back(std::move(t));
  }
  return true;
}
}  // namespace

Result<TextParts> textFromJson(const json& j) {
  TextParts out;
  std::vector<Error> errors;
  if (!readParts(j, "", 0, out, errors)) return errors;
  return out;
}

}  // namespace stave::telemetry
