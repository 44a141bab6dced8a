#pragma once
// Integrity of a torch archive (checkpoints are zip files of stored records). LibTorch's reader
// does not check the records' CRC-32s, so a flipped bit in a tensor's bytes loads as a wrong
// weight; every checkpoint read goes through this first.

#include <cstdint>
#include <string>

#include "core/base/result.h"

struct zip;  // libzip's zip_t

namespace stave::train {

/// Reads record `index` of the open archive `za` to its end, which makes libzip compare the
/// record's CRC-32 with the stored one. With `dst`, the record must be exactly `size` bytes and
/// lands there; without, its bytes are read and dropped. Errors name `path` and `record` and
/// say "damaged <noun>" (noun: "checkpoint", "archive").
Status readRecordChecked(const std::string& path, zip* za, uint64_t index,
                         const std::string& record, const char* noun, void* dst = nullptr,
                         uint64_t size = 0);

/// libzip's words for error `code` (ZIP_ER_*) as a catalog message where the catalog has them
/// (a file that is no zip archive, cut off, inconsistent, a CRC mismatch), else `english`.
Text zipReason(int code, const std::string& english);

/// Checks that `bytes` (the contents of `path`) is a complete zip archive whose every record
/// matches the CRC-32 stored for it. The error names the file and the first damaged record.
Status verifyArchive(const std::string& path, const std::string& bytes);

}  // namespace stave::train
