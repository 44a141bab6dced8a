#include "core/train/blas_check.h"

#include <dlfcn.h>

#include <climits>
#include <cstdlib>
#include <filesystem>

namespace stave::train {

BlasInfo detectBlas() {
  BlasInfo info;
  // The library that provides the process's sgemm_ (the one LibTorch's calls bind to), then
  // what that library is: other BLAS libraries may be loaded beside it (e.g. a LAPACK built on
  // OpenBLAS next to the reference BLAS).
  void* sgemm = dlsym(RTLD_DEFAULT, "sgemm_");
  if (!sgemm) {
    info.name = "none";  // no BLAS in the global scope (e.g. linked statically into LibTorch)
    return info;
  }
  Dl_info dl{};
  if (!dladdr(sgemm, &dl) || !dl.dli_fname) {
    info.name = "unknown";
    return info;
  }
  std::error_code ec;
  const auto real = std::filesystem::canonical(dl.dli_fname, ec);
  info.library = ec ? std::string(dl.dli_fname) : real.string();
  if (void* h = dlopen(dl.dli_fname, RTLD_NOW | RTLD_NOLOAD)) {
    if (dlsym(h, "openblas_get_config"))
      info.name = "openblas";
    else if (dlsym(h, "bli_info_get_version_str"))
      info.name = "blis";
    else if (dlsym(h, "mkl_get_version") || dlsym(h, "MKL_Get_Version"))
      info.name = "mkl";
    dlclose(h);
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
