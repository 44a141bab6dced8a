#include "core/config/json_read.h"

#include <vector>

#include "core/config/json_keys.h"

namespace stave {

namespace {

using json = nlohmann::json;

/// nlohmann's DOM builder, plus the key path of the value being read, so that an error (a
/// number out of range is only found once its key was read) can say where it is.
class PathSax {
 public:
  explicit PathSax(json& out) : m_dom(out, /*allow_exceptions=*/false) {}

  bool null() { return scalar() && m_dom.null(); }
  bool boolean(bool v) { return scalar() && m_dom.boolean(v); }
  bool number_integer(json::number_integer_t v) { return scalar() && m_dom.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return scalar() && m_dom.number_unsigned(v); }
  bool number_float(json::number_float_t v, const json::string_t& s) {
    return scalar() && m_dom.number_float(v, s);
  }
  bool string(json::string_t& v) { return scalar() && m_dom.string(v); }
  bool binary(json::binary_t& v) { return scalar() && m_dom.binary(v); }
  bool start_object(std::size_t n) {
    m_levels.push_back({true, {}, 0});
    return m_dom.start_object(n);
  }
  bool key(json::string_t& k) {
    if (!m_levels.empty()) m_levels.back().key = k;
    return m_dom.key(k);
  }
  bool end_object() {
    close();
    return m_dom.end_object();
  }
  bool start_array(std::size_t n) {
    m_levels.push_back({false, {}, 0});
    return m_dom.start_array(n);
  }
  bool end_array() {
    close();
    return m_dom.end_array();
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    m_position = position;
    m_what = e.what();
    m_id = e.id;
    m_path = path();
    return false;
  }

  std::size_t position() const { return m_position; }
  const std::string& what() const { return m_what; }
  int id() const { return m_id; }
  const std::string& errorPath() const { return m_path; }

 private:
  struct Level {
    bool object;
    std::string key;
    size_t index;
  };
  /// A scalar value is complete: the next element of its array.
  bool scalar() {
    if (!m_levels.empty() && !m_levels.back().object) ++m_levels.back().index;
    return true;
  }
  void close() {
    if (!m_levels.empty()) m_levels.pop_back();
    scalar();  // the container itself was its parent's element
  }
  std::string path() const {
    std::string p;
    for (const auto& l : m_levels) {
      if (l.object) {
        if (l.key.empty()) break;  // the key of this level is not read yet
        p += (p.empty() ? "" : ".") + l.key;
      } else {
        p += "[" + std::to_string(l.index) + "]";
      }
      if (p.size() > 200) return p.substr(0, 200) + "...";
    }
    return p;
  }

  nlohmann::detail::json_sax_dom_parser<json> m_dom;
  std::vector<Level> m_levels;
  std::size_t m_position = 0;
  std::string m_what;
  int m_id = 0;
  std::string m_path;
};

}  // namespace

std::string withoutJsonPrefix(std::string what) {
  if (what.rfind("[json.exception.", 0) == 0)
    if (const auto end = what.find("] "); end != std::string::npos) what.erase(0, end + 2);
  return what;
}

Error jsonError(const std::exception& e, const std::string& file, int line,
                const std::string& key) {
  return Error{file, line, key, withoutJsonPrefix(e.what())};
}

Result<json> parseJson(std::string_view text, const std::string& file, int firstLine) {
  if (auto deep = jsonTooDeep(text, file)) {
    deep->line += firstLine - 1;
    return *deep;
  }
  json out;
  PathSax sax(out);
  bool ok = false;
  try {
    ok = json::sax_parse(text.begin(), text.end(), &sax, json::input_format_t::json, true);
  } catch (const std::exception& e) {  // the SAX above throws nothing; this is the last guard
    return jsonError(e, file, firstLine);
  }
  if (ok) return out;
  const int line = lineOfByte(text, sax.position() > 0 ? sax.position() - 1 : 0) + firstLine - 1;
  std::string what = withoutJsonPrefix(sax.what());
  if (sax.id() == 406) {
    // "number overflow parsing '1e999'": a number no double holds.
    const auto q = what.find('\'');
    const std::string number = q != std::string::npos ? what.substr(q) : std::string();
    return textError(file, line, sax.errorPath(), Text("json.number_range", {{"number", number}}));
  } else if (what.rfind("parse error", 0) == 0) {
    // "parse error at line 1, column 5: syntax error while parsing ..." — the line is ours.
    if (const auto colon = what.find(": "); colon != std::string::npos) what.erase(0, colon + 2);
    // A syntax error is named by its line (the key path there is often the previous value's).
    return textError(file, line, "", Text("json.malformed", {{"detail", what}}));
  }
  return Error{file, line, std::string(), what};
}

}  // namespace stave
