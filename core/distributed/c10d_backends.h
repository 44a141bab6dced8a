#pragma once
// The c10d backends Stave creates, in one place. Included only by process_group.cpp.
// c10d's headers declare the Gloo backend only when USE_C10D_GLOO is defined. NCCL's lives in
// the CUDA module (core/cuda/module/nccl_backend.h), reached through stave::cuda::Runtime.

#ifdef STAVE_HAVE_GLOO
#ifndef USE_C10D_GLOO
#define USE_C10D_GLOO 1
#endif
#endif

#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/csrc/distributed/c10d/Types.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>
#ifdef STAVE_HAVE_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif

namespace stave::dist::backends {

using BackendPtr = c10::intrusive_ptr<c10d::Backend>;

#ifdef STAVE_HAVE_GLOO
/// A Gloo group over `store` using one transport device bound to `interfaceOrHost`
/// (an interface name when `isInterface`, else a host name or IP address).
inline BackendPtr makeGloo(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                           std::chrono::milliseconds timeout, const std::string& interfaceOrHost,
                           bool isInterface) {
  auto opts = c10d::ProcessGroupGloo::Options::create(timeout);
  opts->devices.push_back(isInterface
                              ? c10d::ProcessGroupGloo::createDeviceForInterface(interfaceOrHost)
                              : c10d::ProcessGroupGloo::createDeviceForHostname(interfaceOrHost));
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, size, opts);
}
#endif


}  // namespace stave::dist::backends
