#pragma once
// One rule for every command that writes: never onto one of its own inputs, never over a file
// or into a folder that already holds something unless the user asked for it (--force), and
// (by the writers themselves) atomically.

#include <string>
#include <vector>

#include "core/base/result.h"

namespace stave {

/// Checks that `out` (a file to be written, given by `flag`, e.g. "--out") may be written: it is
/// none of `inputs` (files or folders the command reads, compared after resolving links and
/// "..") and lies in none of the input folders' contents it would replace, it is not a folder,
/// and it does not exist yet unless `force`. The error names the path, the flag and the input.
Status checkOutputFile(const std::string& out, const std::vector<std::string>& inputs, bool force,
                       const std::string& flag);

/// The same for an output folder that the command fills (`out`): it is none of `inputs` and
/// holds none of them (its files could be overwritten by outputs of the same name), it is not
/// a file, and, unless `force`, it is empty or absent.
Status checkOutputFolder(const std::string& out, const std::vector<std::string>& inputs,
                         bool force, const std::string& flag);

}  // namespace stave
