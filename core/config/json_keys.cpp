#include "core/config/json_keys.h"

#include <map>

namespace stave {

std::vector<Error> duplicateJsonKeys(const std::string& text, const std::string& file) {
  std::vector<Error> errors;
  // One entry per open container: for objects, the keys seen so far and their lines.
  struct Level {
    bool object;
    std::map<std::string, int> keys;
  };
  std::vector<Level> stack;
  int line = 1;
  size_t i = 0;
  auto readString = [&]() {  // at the opening quote; returns the raw (escaped) contents
    std::string s;
    for (++i; i < text.size() && text[i] != '"'; ++i) {
      if (text[i] == '\\' && i + 1 < text.size()) s += text[i++];
      if (text[i] == '\n') ++line;
      s += text[i];
    }
    return s;
  };
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
    } else if (c == '{' || c == '[') {
      stack.push_back({c == '{', {}});
    } else if (c == '}' || c == ']') {
      if (!stack.empty()) stack.pop_back();
    } else if (c == '"') {
      const int startLine = line;
      const std::string s = readString();
      // A string is a key when the next non-space character is ':'.
      size_t j = i + 1;
      while (j < text.size() && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r' ||
                                 text[j] == '\n'))
        ++j;
      if (j < text.size() && text[j] == ':' && !stack.empty() && stack.back().object) {
        auto& keys = stack.back().keys;
        if (auto it = keys.find(s); it != keys.end()) {
          errors.push_back(Error{file, startLine, s,
                                 "duplicate key (also on line " + std::to_string(it->second) +
                                     "); remove one of them"});
        } else {
          keys[s] = startLine;
        }
      }
    }
  }
  return errors;
}

}  // namespace stave
