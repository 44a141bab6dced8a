#include "core/cuda/module/nccl_backend.h"

#include <stdexcept>

// c10d declares the NCCL backend only when USE_C10D_NCCL is defined; STAVE_HAVE_NCCL says
// nccl.h, which its header includes, was found.
#ifdef STAVE_HAVE_NCCL
#ifndef USE_C10D_NCCL
#define USE_C10D_NCCL 1
#endif
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

namespace stave::cuda::nccl {

#ifdef STAVE_HAVE_NCCL
const bool kHaveNccl = true;
#else
const bool kHaveNccl = false;
#endif

c10::intrusive_ptr<c10d::Backend> makeNccl(const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                           int size, std::chrono::milliseconds timeout) {
#ifdef STAVE_HAVE_NCCL
  auto opts = c10d::ProcessGroupNCCL::Options::create();
  opts->timeout = timeout;
  return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, size, opts);
#else
  (void)store, (void)rank, (void)size, (void)timeout;
  throw std::runtime_error("this build's CUDA module has no NCCL (nccl.h was not found)");
#endif
}

}  // namespace stave::cuda::nccl
