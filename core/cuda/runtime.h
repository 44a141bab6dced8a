#pragma once
// The CUDA side of the engine, loaded at run time. LibTorch's CUDA libraries (libtorch_cuda,
// cuDNN, cuBLAS, NCCL, ...) put ~230 MiB in every process that links them, GPU or not, so
// stave-train links only LibTorch's CPU part. When an NVIDIA driver is present, load() opens
// libstave_cuda.so (built next to stave-train from core/cuda/module and core/distributed/cuda), which
// brings libtorch_cuda with it; its static initialisers register CUDA with LibTorch as they do
// in a linked process. Everything here that is not torch:: calls goes through Runtime.
//
// load() must run before the first CUDA query (torch::cuda::is_available(), a manual seed, a
// pinned allocation): LibTorch caches its answer to "is there a CUDA library" on first use.
// stave-train's main() calls it first thing; available() and runtime() call it too.
//
// STAVE_CUDA chooses: auto (unset, the default: load when libcuda.so.1, the driver, opens),
// 1 (always load; a failure is an error), 0 (never: the CPU only). STAVE_CUDA_MODULE names the
// module file when it is not next to the executable.

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <memory>
#include <string>

namespace stave::cuda {

/// Copies loader batches (pinned host uint8) to one device on a side stream; the device's
/// current stream waits for each copy on the device, the host does not.
class InputCopier {
 public:
  virtual ~InputCopier() = default;
  /// `host` on the device as uint8. `keep` (the host memory's owner) is held until the copy
  /// has finished.
  virtual torch::Tensor upload(const torch::Tensor& host, std::shared_ptr<void> keep) = 0;
  /// Copies that may still be in flight.
  virtual size_t inFlight() const = 0;
};

/// What the engine needs from CUDA beyond torch::: streams and events, device properties,
/// allocator statistics, the NCCL process group. Implemented by the module.
class Runtime {
 public:
  virtual ~Runtime() = default;
  virtual std::unique_ptr<InputCopier> makeInputCopier(int device) const = 0;
  /// Compute capability 8.0 or newer (native bfloat16).
  virtual bool bf16Supported(int device) const = 0;
  virtual void synchronize(int device) const = 0;
  /// Makes `device` this thread's current CUDA device (torch.cuda.set_device).
  virtual void setDevice(int device) const = 0;
  /// The caching allocator's peak of allocated bytes since the last reset, and its reset.
  virtual int64_t peakAllocatedBytes(int device) const = 0;
  virtual void resetPeak(int device) const = 0;
  /// The CUDA runtime version LibTorch's CUDA library reports (e.g. 13000).
  virtual int cudaRuntimeVersion() const = 0;
  /// Whether c10d's NCCL backend was compiled into the module (nccl.h was found).
  virtual bool hasNccl() const = 0;
  /// An NCCL group over `store`; NCCL_* environment settings must be in place before this.
  virtual c10::intrusive_ptr<c10d::Backend> makeNccl(const c10::intrusive_ptr<c10d::Store>& store,
                                                     int rank, int size,
                                                     std::chrono::milliseconds timeout) const = 0;
};

/// The module's one exported symbol (C linkage) and its version; both sides are built together.
inline constexpr const char* kEntryPoint = "stave_cuda_runtime_v1";
using EntryPointFn = const Runtime* (*)();

/// What load() found, for check-device and error messages.
struct LoadStatus {
  bool loaded = false;
  std::string mode;    ///< auto, on or off (STAVE_CUDA)
  std::string path;    ///< the module file, when one was opened
  std::string reason;  ///< why it is not loaded (or the error when it failed)
  bool failed = false; ///< tried and failed (STAVE_CUDA=1, or a driver but a broken module)
};

/// Loads the module once per process as STAVE_CUDA says; later calls return the first answer.
/// Thread-safe. Never throws; a bad STAVE_CUDA value is a failed status naming it.
const LoadStatus& load();
/// The loaded module, or nullptr (loads first).
const Runtime* runtime();
/// A usable CUDA device is there: the module loaded and LibTorch counts at least one device.
bool available();
/// CUDA devices LibTorch sees (0 without the module).
int deviceCount();
/// One sentence on why there is no CUDA here ("" when available()), for error messages.
std::string unavailableReason();
/// Whether LibTorch's CUDA hooks are registered (libtorch_cuda's initialisers ran), so
/// torch:: CUDA calls reach the CUDA library rather than LibTorch's stand-in.
bool torchCudaRegistered();
/// Whether libtorch_cuda is mapped into this process (read from /proc/self/maps).
bool torchCudaInProcess();

}  // namespace stave::cuda
