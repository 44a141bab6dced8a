#pragma once
// What every YAML file Stave writes has in common: yaml-cpp's Emitter does the quoting, config
// values are written so that they read back as the same value and type, and the finished text
// ends with a line break. Comments go through YAML::Comment, user text in them through
// commentText first.

#include <string>
#include <string_view>

#include "core/config/schema.h"

namespace YAML {
class Emitter;
}

namespace stave::config {

/// Writes `value` as the YAML node that reads back to it: a string double-quoted (names with
/// quotes, '#', ': ', line breaks or a leading '-' stay one scalar), a float as formatFloat's
/// plain text (so YAML 1.1 readers such as PyYAML read a float too), a list as [1, 2, 3].
void emitValue(YAML::Emitter& out, const Value& value);

/// The emitter's text with a final line break. Throws (STAVE_CHECK) when the emitter reports an
/// error: a writer that left a map open, never something in the values.
std::string emittedText(const YAML::Emitter& out);

/// Writes `line` as a comment line of its own above the document's first node (YAML::Comment
/// alone continues the line of the comment before it).
void emitComment(YAML::Emitter& out, const std::string& line);

/// `s` for one comment line (YAML or shell): control characters, line breaks included, become
/// spaces, so nothing after '#' can become content.
std::string commentText(std::string_view s);

}  // namespace stave::config
