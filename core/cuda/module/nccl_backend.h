#pragma once
// c10d's NCCL backend, built into the CUDA module (libstave_cuda.so) rather than stave_distributed:
// ProcessGroupNCCL lives in libtorch_cuda, which only processes on a GPU machine load.
// ProcessGroup reaches it through stave::cuda::Runtime::makeNccl.

#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>

namespace stave::cuda::nccl {

/// Whether the NCCL backend was compiled in (nccl.h was found at build time).
extern const bool kHaveNccl;

/// An NCCL group over `store`; NCCL_* environment settings must be in place before this.
/// Throws when the module was built without NCCL.
c10::intrusive_ptr<c10d::Backend> makeNccl(const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                           int size, std::chrono::milliseconds timeout);

}  // namespace stave::cuda::nccl
