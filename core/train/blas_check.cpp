#include "core/train/blas_check.h"

#include <dlfcn.h>

#include <climits>
#include <cstdlib>
#include <filesystem>

namespace stave::train {

BlasInfo detectBlas() {
  BlasInfo info;
  void* sgemm = dlsym(RTLD_DEFAULT, "sgemm_");
  if (dlsym(RTLD_DEFAULT, "openblas_get_config")) {
    info.name = "openblas";
  } else if (dlsym(RTLD_DEFAULT, "bli_info_get_version_str")) {
    info.name = "blis";
  } else if (dlsym(RTLD_DEFAULT, "mkl_get_version") || dlsym(RTLD_DEFAULT, "MKL_Get_Version")) {
    info.name = "mkl";
  } else if (!sgemm) {
    info.name = "none";  // no BLAS in the global scope (e.g. linked statically into LibTorch)
    return info;
  }
  if (sgemm) {
    Dl_info dl{};
    if (dladdr(sgemm, &dl) && dl.dli_fname) {
      std::error_code ec;
      const auto real = std::filesystem::canonical(dl.dli_fname, ec);
      info.library = ec ? std::string(dl.dli_fname) : real.string();
    }
  }
  if (info.name.empty()) {
    // Debian and Ubuntu keep the reference implementation in .../blas/libblas.so.3 (the
    // optimised ones live in openblas-*/, blis-*/, atlas/ beside it).
    const auto dir = std::filesystem::path(info.library).parent_path().filename().string();
    info.name = dir == "blas" ? "reference" : "unknown";
  }
  info.slow = info.name == "reference";
  return info;
}

std::string blasWarning(const BlasInfo& info) {
  if (!info.slow) return "";
  return "LibTorch is using the reference BLAS (" + info.library +
         "), which is several times slower for CPU training; install an optimised BLAS "
         "(Debian: apt-get install libopenblas0-openmp) and run again";
}

}  // namespace stave::train
