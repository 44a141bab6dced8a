#pragma once
// JSON parsers keep the last of two equal keys in an object ("last one wins"); a project file
// edited by hand with a key twice would silently lose the first value. This finds them.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.h"

namespace stave {

/// Every key that appears twice in the same JSON object of `text` (already known to parse),
/// as an Error at the second occurrence's line naming the first's: "duplicate key 'k' (also
/// on line N)".
std::vector<Error> duplicateJsonKeys(const std::string& text, const std::string& file);

/// Deepest nesting of arrays and objects that Stave's JSON readers accept. Real project files,
/// configs and events nest a few levels; a file nested thousands deep is damaged or hostile and
/// would exhaust the stack of the recursive code that walks it.
constexpr int kMaxJsonDepth = 128;

/// An Error when `text` nests arrays/objects deeper than `maxDepth`, naming the line and the
/// key path where the limit is passed (e.g. "configs.default.lr0[0][0]"); nullopt otherwise.
/// One pass over the text, no recursion: safe on any input, parseable or not.
std::optional<Error> jsonTooDeep(std::string_view text, const std::string& file,
                                 int maxDepth = kMaxJsonDepth);

/// The 1-based line of byte `byte` of `text`. A JSON parse error's line: its `byte` is 1-based,
/// so pass `byte - 1`.
int lineOfByte(std::string_view text, size_t byte);

}  // namespace stave
