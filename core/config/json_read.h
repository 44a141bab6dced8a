#pragma once
// The one place where JSON text from a file (or a peer) becomes a JSON tree. nlohmann's parser
// throws more than parse_error: a number too large for a double (`1e999`) is out_of_range, and
// code that caught only parse_error let it end the program. Here every error of the parser is
// a Result error naming the file, the line and the key where it happened, in words without the
// library's "[json.exception...]" prefix.

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "core/base/result.h"

namespace stave {

/// Parses `text` (the contents of `file`, whose first line is `firstLine`) as one JSON value.
/// Malformed or truncated text, a number out of range, text nested deeper than kMaxJsonDepth:
/// an Error with the file and the line; a value that cannot be held (a number out of range)
/// also names its key path (e.g. "ui.zoom", "images[3].boxes[0]").
Result<nlohmann::json> parseJson(std::string_view text, const std::string& file,
                                 int firstLine = 1);

/// An exception of nlohmann's (or any std::exception) thrown while reading `file`'s `key`, as an
/// Error without the library's "[json.exception...]" prefix.
Error jsonError(const std::exception& e, const std::string& file, int line = 0,
                const std::string& key = "");

/// `what` without nlohmann's "[json.exception.type.NNN] " prefix.
std::string withoutJsonPrefix(std::string what);

}  // namespace stave
