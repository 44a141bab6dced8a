#pragma once
// Integrity of a torch archive (checkpoints are zip files of stored records). LibTorch's reader
// does not check the records' CRC-32s, so a flipped bit in a tensor's bytes loads as a wrong
// weight; every checkpoint read goes through this first.

#include <string>

#include "core/base/result.h"

namespace stave::train {

/// Checks that `bytes` (the contents of `path`) is a complete zip archive whose every record
/// matches the CRC-32 stored for it. The error names the file and the first damaged record.
Status verifyArchive(const std::string& path, const std::string& bytes);

}  // namespace stave::train
