#pragma once
// JSON parsers keep the last of two equal keys in an object ("last one wins"); a project file
// edited by hand with a key twice would silently lose the first value. This finds them.

#include <string>
#include <vector>

#include "core/config/result.h"

namespace stave {

/// Every key that appears twice in the same JSON object of `text` (already known to parse),
/// as an Error at the second occurrence's line naming the first's: "duplicate key 'k' (also
/// on line N)".
std::vector<Error> duplicateJsonKeys(const std::string& text, const std::string& file);

}  // namespace stave
