#include "core/config/json_keys.h"

#include <algorithm>
#include <cstdint>
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
          errors.push_back(textError(file, startLine, s,
                                     Text("json.duplicate_key", {{"line", std::to_string(it->second)}})));
        } else {
          keys[s] = startLine;
        }
      }
    }
  }
  return errors;
}

std::optional<Error> jsonTooDeep(std::string_view text, const std::string& file,
                                 int maxDepth) {
  // Per open container: the key (objects) or the element index (arrays) at this level.
  struct Level {
    bool object;
    std::string key;
    int64_t index = 0;
  };
  std::vector<Level> stack;
  int line = 1;
  std::string lastString;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
    } else if (c == '"') {
      lastString.clear();
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) ++i;
        if (text[i] == '\n') ++line;
        if (lastString.size() < 64) lastString += text[i];
      }
    } else if (c == ':') {
      if (!stack.empty() && stack.back().object) stack.back().key = lastString;
    } else if (c == ',') {
      if (!stack.empty() && !stack.back().object) ++stack.back().index;
    } else if (c == '{' || c == '[') {
      if (static_cast<int>(stack.size()) >= maxDepth) {
        std::string path;
        for (const auto& l : stack) {
          if (l.object)
            path += (path.empty() ? "" : ".") + l.key;
          else
            path += "[" + std::to_string(l.index) + "]";
          if (path.size() > 120) {
            path += "...";
            break;
          }
        }
        return textError(file, line, path, Text("json.too_deep", {{"depth", std::to_string(maxDepth)}}));
      }
      stack.push_back({c == '{', {}, 0});
    } else if (c == '}' || c == ']') {
      if (!stack.empty()) stack.pop_back();
    }
  }
  return std::nullopt;
}

int lineOfByte(std::string_view text, size_t byte) {
  int line = 1;
  for (size_t i = 0; i < std::min(byte, text.size()); ++i) line += text[i] == '\n';
  return line;
}

}  // namespace stave
