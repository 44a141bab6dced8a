#include "core/config/yaml_emit.h"

#include <yaml-cpp/yaml.h>

#include "core/base/result.h"

namespace stave::config {

void emitValue(YAML::Emitter& out, const Value& value) {
  struct Visitor {
    YAML::Emitter& out;
    void operator()(bool b) const { out << b; }
    void operator()(int64_t i) const { out << i; }
    // The emitter's own float text is not the shortest exact one and may lack a '.'.
    void operator()(double d) const { out << formatFloat(d); }
    void operator()(const std::string& s) const { out << YAML::DoubleQuoted << s; }
    void operator()(const std::vector<int64_t>& v) const {
      out << YAML::Flow << YAML::BeginSeq;
      for (int64_t i : v) out << i;
      out << YAML::EndSeq;
    }
  };
  std::visit(Visitor{out}, value);
}

std::string emittedText(const YAML::Emitter& out) {
  STAVE_CHECK(out.good(), "YAML emitter: " << out.GetLastError());
  std::string text = out.c_str();
  if (text.empty() || text.back() != '\n') text += '\n';
  return text;
}

void emitComment(YAML::Emitter& out, const std::string& line) {
  // The node that follows ends the last comment's line.
  if (out.size() > 0) out << YAML::Newline;
  out << YAML::Comment(line);
}

std::string commentText(std::string_view s) {
  std::string out;
  for (unsigned char c : s) out += (c < 0x20 || c == 0x7f) ? ' ' : static_cast<char>(c);
  return out;
}

}  // namespace stave::config
