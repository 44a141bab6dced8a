#pragma once
// Which BLAS the process's LibTorch calls (found at run time). Distribution LibTorch builds
// link the system's libblas.so.3: on Debian that is the unoptimised reference BLAS unless an
// optimised one (OpenBLAS, BLIS, MKL) is installed, and LibTorch's single-threaded CPU
// convolutions, linear layers and matrix products then run several times slower.

#include <string>

namespace stave::train {

/// The BLAS behind the process's sgemm_.
struct BlasInfo {
  std::string name;     ///< "openblas", "blis", "mkl", "reference", "unknown" or "none"
  std::string library;  ///< the shared library's real path, if known
  bool slow = false;    ///< the reference BLAS: worth a warning on CPU runs
};

/// Looks up the BLAS loaded in this process (no side effects; cheap).
BlasInfo detectBlas();

/// The warning a CPU run shows when detectBlas() finds the reference BLAS, else "".
std::string blasWarning(const BlasInfo& info);

}  // namespace stave::train
