#include "core/bench/scratch_dir.h"

#include <unistd.h>

namespace stave::bench {

std::filesystem::path scratchPath(const std::string& prefix) {
  return std::filesystem::temp_directory_path() / (prefix + std::to_string(::getpid()));
}

}  // namespace stave::bench
