#pragma once
// A process group over c10d: TCPStore rendezvous with a timeout and clear errors, Gloo on CPU,
// NCCL on CUDA, and the few collectives the trainer needs. c10d stays inside process_group.cpp.

#include <torch/torch.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/distributed/dist_env.h"

namespace stave::dist {

/// NCCL settings of the run config; applied as environment variables before a group is made.
struct NcclSettings {
  std::string p2pLevel;            ///< nccl_p2p_level -> NCCL_P2P_LEVEL ("" = NCCL's default)
  bool shmDisable = false;         ///< nccl_shm_disable -> NCCL_SHM_DISABLE=1
  std::string debug;               ///< nccl_debug -> NCCL_DEBUG ("" = unset, e.g. WARN, INFO)
  bool asyncErrorHandling = true;  ///< TORCH_NCCL_ASYNC_ERROR_HANDLING / NCCL_ASYNC_ERROR_HANDLING
  double timeoutS = 1800;          ///< nccl_timeout_s: collective timeout in seconds
};

/// Sets the NCCL variables of `s` in this process's environment (a variable the user already
/// set wins) and returns every setting in effect, for the run_start event.
std::map<std::string, std::string> applyNcclSettings(const NcclSettings& s);

/// How to make a process group.
struct ProcessGroupOptions {
  std::string backend = "auto";  ///< "auto" (NCCL for CUDA devices, else Gloo), "gloo", "nccl"
  torch::Device device = torch::kCPU;  ///< where collectives run (CUDA: this rank's GPU)
  double rendezvousTimeoutS = 300;     ///< give up joining the TCPStore / peers after this long
  double timeoutS = 1800;              ///< collective timeout (nccl_timeout_s)
  NcclSettings nccl;                   ///< applied before an NCCL group is made
  std::string glooInterface;           ///< network interface for Gloo ("" = GLOO_SOCKET_IFNAME or
                                       ///< the interface that routes to the master)
};

/// A pending collective; wait() rethrows the collective's error (timeout, peer gone).
class AsyncWork {
 public:
  virtual ~AsyncWork() = default;
  /// True once the collective finished (or failed); never blocks.
  virtual bool isCompleted() = 0;
  /// Blocks until done (on CUDA: makes the current stream wait).
  virtual void wait() = 0;
};

/// Reduction of allReduce.
enum class ReduceMode { Sum, Mean };

/// One rank's membership in a group of `worldSize` ranks. Collectives must be called by every
/// rank in the same order. Errors of collectives are thrown (c10::Error), since by then the
/// run cannot continue; the trainer turns them into an error event at its top level.
class ProcessGroup {
 public:
  /// Rendezvous through rank 0's TCPStore and creates the backend. Errors (unreachable master,
  /// port in use, world-size mismatch, peers missing after the timeout) name the address, the
  /// rank and what to check; nothing here waits longer than rendezvousTimeoutS.
  static Result<std::unique_ptr<ProcessGroup>> create(const DistEnv& env,
                                                      const ProcessGroupOptions& options = {});
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  /// This process's rank.
  int rank() const;
  /// Number of ranks.
  int worldSize() const;
  /// "gloo" or "nccl".
  std::string backendName() const;
  /// Device the collectives run on.
  torch::Device device() const;
  /// Settings in effect (backend, timeouts, NCCL variables) for the run_start event.
  const std::map<std::string, std::string>& settings() const;

  /// Copies rank `root`'s parameters into every rank's module (in place).
  void broadcastParameters(torch::nn::Module& module, int root = 0);
  /// Copies rank `root`'s buffers (BN running stats) into every rank's module.
  void broadcastBuffers(torch::nn::Module& module, int root = 0);
  /// Replaces floating-point buffers by their mean over ranks, integer buffers (BN's
  /// num_batches_tracked) by rank 0's: a cheap stand-in for SyncBatchNorm at epoch end.
  void averageBuffers(torch::nn::Module& module);
  /// Broadcasts `tensors` (any device) in place from `root`.
  void broadcast(std::vector<torch::Tensor>& tensors, int root = 0);

  /// All-reduces `tensors` in place (coalesced per dtype).
  void allReduce(std::vector<torch::Tensor>& tensors, ReduceMode mode = ReduceMode::Sum);
  /// All-reduces and divides by worldSize.
  void allReduceMean(std::vector<torch::Tensor>& tensors) { allReduce(tensors, ReduceMode::Mean); }
  /// Starts a SUM all-reduce of `flat` (already on device()) and returns at once.
  std::shared_ptr<AsyncWork> allReduceAsync(torch::Tensor flat);
  /// Blocks until every rank arrives.
  void barrier();
  /// True on every rank when `flag` is true on any rank: how ranks agree to stop at the same
  /// step when only some of them saw SIGTERM.
  bool anyTrue(bool flag);

  /// Gathers a small float vector from every rank (lengths may differ); result[r] is rank r's.
  std::vector<std::vector<float>> allGather(const std::vector<float>& values);
  /// Gathers a byte string (e.g. serialized detections) from every rank; result[r] is rank r's.
  std::vector<std::string> allGatherBytes(const std::string& bytes);

 private:
  struct Impl;
  explicit ProcessGroup(std::unique_ptr<Impl> impl);
  torch::Tensor gatherFlat(const torch::Tensor& local, std::vector<int64_t>* sizes);
  std::unique_ptr<Impl> m_impl;
};

}  // namespace stave::dist
