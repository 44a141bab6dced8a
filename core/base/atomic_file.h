#pragma once
// Atomic writes for every file the user owns: a temporary file in the same folder, fsync,
// then rename over the target. A crash leaves either the old file or the new one, never half.

#include <string>

#include "core/base/result.h"

namespace stave {

/// Writes `bytes` to `path` atomically (creating parent folders). The error names the path
/// and the system's reason.
Status writeFileAtomic(const std::string& path, const std::string& bytes);

/// Reads a whole file; the error names the path and the system's reason.
Result<std::string> readFile(const std::string& path);

namespace testing {
/// For tests: when set, writeFileAtomic fails after writing the temporary file and before the
/// rename, as a crash or a full disk would. Reset to false after use.
void setFailBeforeRename(bool fail);
}  // namespace testing

}  // namespace stave
