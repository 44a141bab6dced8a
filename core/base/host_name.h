#pragma once
// This machine's host name, one way for every record that names it (run_start, the run lock,
// the metrics' host label, TensorBoard's file name, a rank's place in a multi-node run).
#include <string>

namespace stave {

/// gethostname(), or "" when it fails.
std::string hostName();

}  // namespace stave
